"""The ``bayesnb`` command at its edges: seeds, the report folder, delimiters, rows
against K, partial ``--features``, warnings as one line, and the short help.

Every command runs in-process (Typer's CliRunner); each check reads the exit status
and the message, and compares tables with the Python API's on the same data."""

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import bayesnb as bnb
from bayesnb import cli
from bayesnb.cli import app
from tests.test_cli import _numbers

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.strip()]


def _one_error(result) -> str:
    """The single ``error:`` line of a failed command (status 2, no traceback)."""
    assert result.exit_code == 2, result.output
    lines = _lines(result)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


@pytest.fixture
def tennis_csv(tmp_path):
    path = tmp_path / "tennis.csv"
    bnb.datasets.play_tennis().to_csv(path, index=False)
    return path


# -- 1. --random-state ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ("compare", "{tennis}", "--target", "play", "--random-state", "-1"),
        ("cluster", "{tennis}", "--random-state", "-1"),
        ("demo", "--out", "{out}", "--random-state", "-5"),
    ],
)
def test_a_negative_seed_is_one_error_before_anything_is_written(args, tennis_csv, tmp_path):
    """The check random_state gets in Python (priors.random_generator), under the
    option's name; the demo's folder is not even created."""
    out = tmp_path / "report"
    line = _one_error(_run(*(a.format(tennis=tennis_csv, out=out) for a in args)))
    seed = args[-1]
    assert line == (
        f"error: --random-state must be an int >= 0; got {seed}. Give a seed >= 0, "
        "e.g. --random-state 0."
    )
    assert not out.exists()


# -- 2. --out that cannot be written ---------------------------------------------------------
def test_an_out_folder_under_a_file_is_one_error_naming_out(tmp_path):
    (tmp_path / "f").write_text("x\n")
    out = tmp_path / "f" / "sub"
    line = _one_error(_run("demo", "--out", out, "--quiet"))
    assert line == (
        f"error: --out {str(out)!r}: cannot create the folder: Not a directory. Give a "
        "folder you may create and write to, e.g. --out ./bayesnb-report."
    )


def test_an_out_folder_without_permission_is_one_error_naming_out(tmp_path, monkeypatch):
    """(The tests may run as root, whom chmod does not stop: mkdir is made to refuse.)"""
    out = tmp_path / "locked" / "report"

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    line = _one_error(_run("demo", "--out", out, "--quiet"))
    assert line.startswith(f"error: --out {str(out)!r}: cannot create the folder: ")
    assert "Permission denied" in line and "Give a folder you may create and write to" in line


def test_an_out_folder_where_none_can_be_made_names_out(tmp_path, monkeypatch):
    """An error without the folder's name (as /proc gives) still names --out."""
    out = tmp_path / "report"

    def missing(self, *args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(Path, "mkdir", missing)
    line = _one_error(_run("demo", "--out", out, "--quiet"))
    assert line.startswith(f"error: --out {str(out)!r}: cannot create the folder: No such")
    assert "[Errno" not in line


# -- 3. delimiters ---------------------------------------------------------------------------
@pytest.mark.parametrize("sep", [";", "\t", "|", ","])
def test_a_csv_is_read_by_its_own_delimiter(sep, tmp_path):
    faithful = bnb.datasets.old_faithful()
    path = tmp_path / "faithful.csv"
    faithful.to_csv(path, sep=sep, index=False)
    frame = cli.read_table(str(path))
    assert list(frame.columns) == ["eruptions", "waiting"]
    pd.testing.assert_frame_equal(frame, faithful, check_dtype=False)
    # and the command clusters the two columns: the Python table's BIC
    result = _run("cluster", path, "-k", "1..2", "--quiet")
    assert result.exit_code == 0, result.output
    table = bnb.compare_components(bnb.NaiveBayes(), faithful, 2, random_state=0)
    for value in table["bic"]:
        assert f"{value:.4g}" in result.output


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_a_csv_with_decimal_commas_is_read_as_numbers(sep, tmp_path):
    path = tmp_path / "euro.csv"
    rows = ["eruptions;waiting;kind", "3,6;79;long", "1,5E-3;54;short", "-0,5;62;short"]
    path.write_text("\n".join(r.replace(";", sep) for r in rows) + "\n")
    frame = cli.read_table(str(path))
    assert frame["eruptions"].tolist() == [3.6, 1.5e-3, -0.5]
    assert frame["waiting"].tolist() == [79, 54, 62]
    assert frame["kind"].tolist() == ["long", "short", "short"]


@pytest.mark.parametrize(
    "text, columns",
    [
        ("x\n1\n2\n", ["x"]),  # one column: nothing splits the header
        ('"a;b",c\n1,2\n3,4\n', ["a;b", "c"]),  # a quoted ; in a comma file's name
        ("a,b;c\n1,2;3\n4,5;6\n", ["a", "b;c"]),  # both split the header in two: the suffix's
    ],
)
def test_the_suffixs_delimiter_wins_ties(text, columns, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(text)
    assert list(cli.read_table(str(path)).columns) == columns


def test_a_tsv_written_with_commas_is_not_one_column(tmp_path):
    path = tmp_path / "tennis.tsv"
    bnb.datasets.play_tennis().to_csv(path, index=False)  # commas, despite .tsv
    frame = cli.read_table(str(path))
    expected = bnb.datasets.play_tennis().reset_index(drop=True)
    pd.testing.assert_frame_equal(frame, expected, check_dtype=False)


# -- 5a. warnings: one line, in the options' terms --------------------------------------------
@pytest.mark.filterwarnings("default::UserWarning")  # as Python shows them by default
def test_compares_warnings_are_one_line_each_in_the_options_terms(tmp_path):
    """Old Faithful by its waiting time: 51 classes, 8 of one row each (43.0 first),
    and maximum likelihood meets classes whose eruptions are all equal."""
    faithful = bnb.datasets.old_faithful()
    path = tmp_path / "faithful.csv"
    faithful.to_csv(path, index=False)
    sizes = faithful["waiting"].value_counts()
    assert (sizes == 1).sum() == 8 and min(sizes[sizes == 1].index) == 43.0  # the oracle
    # a class of one row tests in fold 1 and a class of two trains one row in fold 1,
    # so every training fold holds a class of one row: zero variance under ML
    assert (sizes == 2).any()
    result = _run("compare", path, "--target", "waiting", "--sizes", "1", "--prior", "1", "--quiet")
    assert result.exit_code == 0, result.output
    warnings_ = [line for line in _lines(result) if line.startswith("warning: ")]
    assert len(warnings_) == 2, result.output
    least, failed = warnings_
    assert least.startswith(
        "warning: The least populated class of 'waiting', 43.0, has only 1 row(s), fewer "
        "than --folds 5: some test folds hold none of it. 8 of the 51 classes have a "
        "single row"
    )
    assert "(51 distinct values in 272 rows)" in least
    assert failed.startswith(
        "warning: compare: the 'ml' estimator could not be fitted on 5 of its 5 training "
        "folds (estimate='ml' found zero variance"
    )
    for bad in ("n_splits", "np.float64", "UserWarning", "cli.py", "Give --folds <= 1"):
        assert bad not in result.output
    # the table still reports every estimator: ML with no posterior anywhere
    assert "m-estimate" in result.output
    ml_line = next(line for line in _lines(result) if line.split()[1:2] == ["ml"])
    assert _numbers(ml_line)[-1] == 1.0  # no_posterior


def test_the_folds_error_speaks_of_folds(tmp_path):
    """PlayTennis has 9 Yes: 10 folds would leave one test fold empty."""
    path = tmp_path / "tennis.csv"
    bnb.datasets.play_tennis().to_csv(path, index=False)
    line = _one_error(_run("compare", path, "--target", "play", "--folds", "10"))
    assert "--folds 10 is more than the 9 rows of the largest class of 'play' ('Yes')" in line
    assert line.endswith("Give --folds <= 9.")


# -- 5b, 5c. rows against K ------------------------------------------------------------------
@pytest.fixture
def no_fits(monkeypatch):
    """Any mixture fit fails the test: the checks come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("a mixture was fitted before the rows were checked")

    monkeypatch.setattr(bnb.NaiveBayes, "cluster", refuse)


def test_clustering_a_header_only_file_says_it_has_no_rows(tmp_path, no_fits):
    path = tmp_path / "header.csv"
    path.write_text("a,b\n")
    line = _one_error(_run("cluster", path))
    assert line.startswith(f"error: {str(path)!r} has no rows (only a header: columns ['a', 'b'])")
    assert "k_max" not in line


@pytest.mark.parametrize(
    "k, remedy", [("1..6", "Give -k 1..3."), ("2..4", "Give -k 2..3."), ("5", "Give -k 3.")]
)
def test_k_beyond_the_rows_names_the_users_range_before_any_fit(k, remedy, tmp_path, no_fits):
    path = tmp_path / "three.csv"
    path.write_text("x,y\n1.0,2.0\n3.0,4.5\n5.0,6.1\n")
    line = _one_error(_run("cluster", path, "-k", k))
    last = k.split("..")[-1]
    assert line.startswith(
        f"error: -k {k!r} asks for up to {last} components, but {str(path)!r} has 3 row(s)"
    )
    assert line.endswith(remedy) and "k_max" not in line


def test_cluster_report_checks_every_k_against_the_rows_before_fitting(no_fits):
    three = pd.DataFrame({"x": [1.0, 3.0, 5.0]})
    with pytest.raises(bnb.InputError, match=r"k_values run to K=6, but data has 3 row\(s\)"):
        bnb.cluster_report(three, range(1, 7))
    with pytest.raises(bnb.InputError, match="data has no rows"):
        bnb.cluster_report(three.iloc[:0], range(1, 3))


# -- 5d. partial --features, and compare's --drop ---------------------------------------------
@pytest.mark.parametrize("command", ["compare", "cluster"])
def test_a_partial_features_list_names_the_rest_and_the_options(command, tennis_csv):
    args = ["--target", "play"] if command == "compare" else ["--drop", "play"]
    line = _one_error(_run(command, tennis_csv, *args, "--features", "outlook=categorical"))
    assert line.startswith(
        "error: --features 'outlook=categorical' gives no family to 3 of the 4 feature "
        "columns (temperature, humidity, wind)"
    )
    assert "--drop temperature,humidity,wind" in line and "omit --features" in line
    assert "`features`" not in line and "from X" not in line


def test_compare_drops_columns_as_cluster_does(tennis_csv):
    result = _run(
        "compare", tennis_csv, "--target", "play", "--drop", "temperature,humidity",
        "--features", "outlook=categorical,wind=categorical", "--sizes", "1", "--folds", "3",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = bnb.datasets.play_tennis().drop(columns=["temperature", "humidity"])
    table = bnb.compare(data, "play", train_sizes=(1.0,), n_splits=3, random_state=0)
    printed = _numbers(result.output)
    for value in table["log_loss"]:
        assert any(abs(v - value) <= 5e-4 * max(1.0, abs(value)) for v in printed), value
    line = _one_error(_run("compare", tennis_csv, "--target", "play", "--drop", "play"))
    assert line == "error: --drop names the class column 'play' (--target); keep it."


# -- 8. the short help -----------------------------------------------------------------------
def test_the_top_level_help_gives_each_command_one_whole_line():
    result = runner.invoke(app, ["--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    for name in ("compare", "cluster", "demo"):
        short = app.registered_commands  # the declared short helps
        text = next(c.short_help for c in short if c.callback.__name__ == name)
        assert text.endswith(".") and len(text) < 70
        line = next(ln for ln in result.output.splitlines() if ln.lstrip("│ ").startswith(name))
        assert text in line, result.output


# -- 7. the Dask page's cluster example, as a saved script -------------------------------------
@pytest.mark.slow
def test_the_dask_pages_cluster_example_runs_as_a_script(tmp_path):
    """Saved as a file and run, the example starts worker processes that import the
    script again; without its __main__ guard they fail ("Nanny failed to start")."""
    import re
    import subprocess
    import sys

    page = Path(__file__).resolve().parents[1] / "docs" / "guide" / "dask.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
    code = next(b for b in blocks if "LocalCluster" in b)
    assert 'if __name__ == "__main__":' in code
    script = tmp_path / "example.py"
    script.write_text(code + "    print(sorted(fit.labels))\n")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "['democrat', 'republican']"
