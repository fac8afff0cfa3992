"""The ``bayesnb`` command: its tables hold the Python API's values, the demo writes
its report, and bad input is one line with exit status 2."""

import contextlib

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import bayesnb as bnb
from bayesnb.cli import app

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def votes_csv(tmp_path):
    path = tmp_path / "votes.csv"
    bnb.datasets.house_votes_84().to_csv(path, index=False)
    return path


@pytest.fixture
def tennis_tsv(tmp_path):
    path = tmp_path / "tennis.tsv"
    bnb.datasets.play_tennis().to_csv(path, sep="\t", index=False)
    return path


def _numbers(text: str) -> list[float]:
    out = []
    for token in text.split():
        with contextlib.suppress(ValueError):
            out.append(float(token))
    return out


def test_compare_prints_the_apis_table(votes_csv, tennis_tsv):
    for path, target in ((votes_csv, "party"), (tennis_tsv, "play")):
        result = _run("compare", path, "--target", target, "--sizes", "1", "--folds", "3")
        assert result.exit_code == 0, result.output
        data = pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",")
        table = bnb.compare(data, target, train_sizes=(1.0,), n_splits=3, random_state=0)
        printed = _numbers(result.output)
        for value in table["log_loss"]:
            if np.isfinite(value):
                assert any(abs(v - value) <= 5e-4 * max(1.0, abs(value)) for v in printed)
        assert "m-estimate" in result.output and "predictive" in result.output


def test_cluster_prints_the_model_choice_table(votes_csv, tmp_path):
    result = _run("cluster", votes_csv, "-k", "1..3", "--drop", "party")
    assert result.exit_code == 0, result.output
    votes = bnb.datasets.house_votes_84().drop(columns="party")
    report = bnb.cluster_report(votes, range(1, 4))
    for value in report["choice"]["bic"]:
        assert f"{value:.4g}" in result.output
    faithful = tmp_path / "faithful.parquet"
    bnb.datasets.old_faithful().to_parquet(faithful)
    result = _run("cluster", faithful, "-k", "2", "--method", "both")
    assert result.exit_code == 0, result.output
    assert "EM beside MCMC" in result.output


def test_the_demo_writes_its_report(tmp_path):
    out = tmp_path / "report"
    result = _run("demo", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert len(pngs) >= 6
    for name in ("report.md", "report.html", "compare_house_votes.csv", "cluster_votes_choice.nc"):
        assert (out / name).exists()
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") == len(pngs)
    saved = bnb.load(out / "house_votes_classifier.nc")
    assert saved.labels == ["democrat", "republican"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("compare", "missing.csv", "--target", "y"), "no such file"),
        (("compare", "{votes}", "--target", "nope"), "--target 'nope' is not a column"),
        (("compare", "{votes}", "--target", "party", "--prior", "a,b"), "--prior 'a,b'"),
        (("compare", "{votes}", "--target", "party", "--features", "poisson"), "the families are"),
        (("cluster", "{votes}", "-k", "3..1"), "need 1 <= first <= last"),
        (("cluster", "{votes}", "-k", "x"), "give a number of components"),
        (("cluster", "{votes}", "--method", "gibbs"), "give em, mcmc or both"),
        (("cluster", "{txt}"), "give a .csv, .tsv or .parquet file"),
        (("cluster", "{folder}"), "is a folder"),
    ],
)
def test_bad_input_is_one_line_and_status_2(args, message, votes_csv, tmp_path):
    (tmp_path / "notes.doc").write_text("x")
    names = {"votes": votes_csv, "txt": tmp_path / "notes.doc", "folder": tmp_path}
    result = runner.invoke(app, [a.format(**names) for a in args])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


@pytest.mark.parametrize(
    "command, name, content, message",
    [
        ("compare", "empty.csv", b"", "the file is empty"),
        ("cluster", "latin1.csv", b"a,b\n\xff,1\n", "not UTF-8 text (byte 0xff"),
        ("compare", "ragged.csv", b"a,b\n1,2\n1,2,3,4\n", "Expected 2 fields in line 3, saw 4"),
        ("compare", "ragged.tsv", b"a\tb\n1\t2\n1\t2\t3\n", "separated by '\\t'"),
        ("compare", "bad.parquet", b"x\n", "as Parquet: Could not open Parquet input"),
    ],
)
def test_an_unreadable_file_is_one_line_and_status_2(command, name, content, message, tmp_path):
    """The file's reading errors (pandas', the decoder's, pyarrow's) become one line
    naming the file, what went wrong and what to do, not a traceback."""
    path = tmp_path / name
    path.write_bytes(content)
    args = [command, str(path)] + (["--target", "a"] if command == "compare" else [])
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: cannot read {str(path)!r}") and message in lines[0]


def test_a_corrupt_parquet_page_is_one_line_and_status_2(tmp_path):
    """A Parquet file whose footer is intact but whose data is damaged: pyarrow raises
    an OSError, which is a reading error too."""
    path = tmp_path / "damaged.parquet"
    pd.DataFrame({"a": range(100), "b": range(100)}).to_parquet(path)
    raw = path.read_bytes()
    path.write_bytes(raw[:100] + bytes(50) + raw[150:])
    result = _run("cluster", path)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: cannot read {str(path)!r} as Parquet")
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (("--target", "a"), "data has no rows (its columns are ['a', 'b', 'c'])"),
        (("--target", "play", "--folds", "20"), "--folds 20 is more than the 9 rows"),
    ],
)
def test_compare_refuses_too_few_rows_for_the_folds(args, message, tmp_path, tennis_tsv):
    """A header-only CSV has no rows to cross-validate (it used to end in NumPy's
    "need at least one array to concatenate"); 20 folds of PlayTennis's 14 rows (9
    Yes, 5 No) would leave 11 test folds empty."""
    header_only = tmp_path / "header.csv"
    header_only.write_text("a,b,c\n")
    path = tennis_tsv if "play" in args else header_only
    result = _run("compare", path, *args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_progress_bars_show_only_when_asked_or_on_a_terminal(capsys):
    """Off the terminal (captured output) no bar is drawn by default; forced on, the
    cross-validation's bar draws on stderr; --quiet's False silences it again."""
    from bayesnb import _progress

    tennis = bnb.datasets.play_tennis()
    try:
        bnb.show_progress(None)
        bnb.compare(tennis, "play", train_sizes=(1.0,), n_splits=2)
        assert capsys.readouterr().err == ""
        bnb.show_progress(True)
        with _progress.progress(3, "counting") as advance:
            for _ in range(3):
                advance()
        assert "counting" in capsys.readouterr().err
        bnb.show_progress(False)
        bnb.compare(tennis, "play", train_sizes=(1.0,), n_splits=2)
        assert capsys.readouterr().err == ""
    finally:
        bnb.show_progress(None)
    with pytest.raises(TypeError, match="True, False or None"):
        bnb.show_progress("yes")
