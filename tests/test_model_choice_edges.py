"""``compare_components``' pattern statistics say when the model has used up their
degrees of freedom, and the command line prints that note under the table."""

import pytest
from typer.testing import CliRunner

import bayesnb as bnb
from bayesnb.cli import app

VOTES3 = ["V3", "V4", "V5"]


def test_a_saturated_k_is_noted_in_the_table():
    """Three yes/no votes have 2³ = 8 patterns, so 7 degrees of freedom to spend; a
    mixture of K Bernoulli components has K - 1 weights and 3K probabilities, 4K - 1
    free parameters: df = 7 - (4K - 1) = 4, 0, -4 for K = 1, 2, 3."""
    votes = bnb.datasets.house_votes_84()[VOTES3]
    table = bnb.compare_components(bnb.NaiveBayes(), votes, 3, n_init=2, random_state=0)
    assert table["n_parameters"].tolist() == [3, 7, 11]
    assert table["df"].tolist() == [4, 0, -4]
    assert table.columns[-1] == "note"
    assert table.loc[1, "note"] == ""
    assert table.loc[2, "note"] == (
        "df = 0 <= 0: 7 free parameters, and the 8 possible patterns support at most 7; "
        "g2 and chi2 have no chi-square reference"
    )
    assert table.loc[3, "note"].startswith("df = -4 <= 0: 11 free parameters, and the 8")


def test_a_gaussian_table_has_no_pattern_note():
    faithful = bnb.datasets.old_faithful()
    table = bnb.compare_components(bnb.NaiveBayes(), faithful, 2, n_init=1, random_state=0)
    assert "note" not in table.columns and "df" not in table.columns


def test_no_rows_is_said_before_k():
    votes = bnb.datasets.house_votes_84()[VOTES3].iloc[:0]
    with pytest.raises(bnb.InputError, match=r"^X has no rows, so compare_components has"):
        bnb.compare_components(bnb.NaiveBayes(), votes, 1)


def test_the_command_prints_the_note_under_the_table(tmp_path):
    path = tmp_path / "votes3.csv"
    bnb.datasets.house_votes_84()[VOTES3].to_csv(path, index=False)
    result = CliRunner().invoke(app, ["cluster", str(path), "-k", "1..2", "--quiet"])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
    assert notes == [
        "note: K=2: df = 0 <= 0: 7 free parameters, and the 8 possible patterns support "
        "at most 7; g2 and chi2 have no chi-square reference."
    ]
    header = next(line for line in result.output.splitlines() if "log_likelihood" in line)
    assert "note" not in header.split()
