"""The ``bayesnb`` command: ``demo``, ``compare`` and ``cluster`` (Typer).

Every command formats the tables of :mod:`bayesnb.workflow`; the same work runs from
Python with :func:`bayesnb.compare` and :func:`bayesnb.cluster_report`. Bad input
(a missing or unreadable file, an unknown column, a bad spec, a folder that cannot
be written) prints one line to stderr, ``error: ...``, and exits with status 2; a
warning prints one line, ``warning: ...``, in the command line's terms (``--folds``,
not ``n_splits``).
"""

from __future__ import annotations

import base64
import csv
import io
import itertools
import re
import sys
import time
import warnings
from pathlib import Path
from typing import Annotated

import numpy as np
import pandas as pd
import typer

import bayesnb as bnb
from bayesnb.errors import BayesNBError, InputError
from bayesnb.priors import random_generator

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Naive Bayes and mixtures, the Bayesian way: compare estimators, cluster, report.",
)

READERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}  # the suffix's delimiter
DELIMITERS = (",", ";", "\t", "|")  # those a text table may use, whatever its suffix
SNIFF_BYTES = 64 * 1024  # of a text table read to find its delimiter
FAMILIES = {
    "bernoulli": lambda: bnb.Bernoulli(),
    "categorical": lambda: bnb.Categorical(),
    "gaussian": lambda: bnb.Gaussian(),
    "gamma": lambda: bnb.Gamma(),
    "multivariate-gaussian": lambda: bnb.MultivariateGaussian(),
}


class Usage(Exception):
    """Bad input on the command line: one line, exit status 2."""


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _guarded(run):
    """Run ``run()``; a usage error, a package input error or a filesystem error is one
    line, status 2, and every warning one line ``warning: ...`` (each text once), in
    the command line's terms."""
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = _in_cli_terms(" ".join(str(message).split()))
        if text not in shown:
            shown.add(text)
            typer.echo(f"warning: {text}", err=True)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            return run()
    except (Usage, BayesNBError) as err:
        _fail(_in_cli_terms(str(err).splitlines()[0]))
    except OSError as err:  # a path the command writes or reads outside read_table
        where = f"{err.filename!r}: " if err.filename else ""
        _fail(
            f"{where}{err.strerror or _first_line(err)}. Check the path: that its folders "
            "exist and that you may read or write there."
        )


#: The Python parameters that messages of the package name, as the options that set them.
CLI_TERMS = (
    (re.compile(r"\bn_splits=(\d+)"), r"--folds \1"),
    (re.compile(r"\bn_splits\b"), "--folds"),
)


def _in_cli_terms(text: str) -> str:
    """A message of the package with its Python parameters named as the options that
    set them (``n_splits=5`` as ``--folds 5``)."""
    for pattern, option in CLI_TERMS:
        text = pattern.sub(option, text)
    return text


def _check_seed(random_state: int) -> None:
    """``--random-state``: an int >= 0, checked before anything is read or written."""
    try:
        random_generator(random_state, "--random-state")
    except InputError as err:
        raise Usage(str(err)) from None


# -- reading input ---------------------------------------------------------------------------
def read_table(path: str) -> pd.DataFrame:
    """A CSV, TSV or Parquet file as a DataFrame.

    A text table's delimiter is found from its first lines (:func:`_delimiter`): a
    ``.csv`` file separated by ``;``, tabs or ``|`` is read by them, not as one
    column; a file separated by ``;``, tabs or ``|`` whose numbers have decimal
    commas (``3,6``) is read with decimal commas. A file that cannot be read as its
    suffix says (empty, not UTF-8, ragged rows, not Parquet) raises an
    :class:`~bayesnb.errors.InputError` naming it.
    """
    file = Path(path)
    if not file.exists():
        raise Usage(f"no such file: {path!r}.")
    if file.is_dir():
        raise Usage(f"{path!r} is a folder; give a CSV, TSV or Parquet file.")
    suffix = file.suffix.lower()
    if suffix in (".parquet", ".pq"):
        try:
            return pd.read_parquet(file)
        except ImportError:
            raise Usage(
                f"reading {path!r} needs pyarrow: python3 -m pip install pyarrow."
            ) from None
        except _parquet_errors() as err:
            raise InputError(
                f"cannot read {path!r} as Parquet: {_first_line(err)}. Give a Parquet file "
                "(DataFrame.to_parquet writes one) or a .csv/.tsv file of the same table."
            ) from None
    if suffix not in READERS:
        raise Usage(
            f"cannot read {path!r}: give a .csv, .tsv or .parquet file (got {suffix or 'none'})."
        )
    sep = _delimiter(file, READERS[suffix])
    try:
        frame = pd.read_csv(file, sep=sep)
        if sep != "," and _has_decimal_commas(frame):
            frame = pd.read_csv(file, sep=sep, decimal=",")
        return frame
    except pd.errors.EmptyDataError:
        raise InputError(
            f"cannot read {path!r}: the file is empty (no header row, no data). Give a "
            "file whose first line names the columns, followed by one line per row."
        ) from None
    except UnicodeDecodeError as err:
        raise InputError(
            f"cannot read {path!r}: it is not UTF-8 text (byte "
            f"0x{err.object[err.start]:02x}: {err.reason}). Save it as UTF-8, e.g. for a "
            f"Latin-1 file: iconv -f latin1 -t utf-8 {file.name} > utf8{suffix}."
        ) from None
    except pd.errors.ParserError as err:
        raise InputError(
            f"cannot read {path!r}: {_first_line(err)}. Every line needs as many fields "
            f"as the header line, separated by {sep!r}; quote a field that holds {sep!r}."
        ) from None
    except OSError as err:
        raise InputError(
            f"cannot read {path!r}: {err.strerror or _first_line(err)}. Check that the "
            "file is readable (its permissions, the disk)."
        ) from None


def _delimiter(file: Path, default: str) -> str:
    """The delimiter of the text table ``file``: of ``,``, ``;``, tab and ``|``, the
    one that splits its header line into the most fields, preferring those that split
    each of the next 20 lines into as many, and ``default`` (the suffix's) on a tie or
    when none splits the header (a table of one column). Only the first 64 KiB are
    read; a file that cannot be read is left to ``pd.read_csv`` to report."""
    try:
        with open(file, "rb") as handle:
            sample = handle.read(SNIFF_BYTES)
    except OSError:
        return default
    text = sample.decode("utf-8", errors="replace")
    if len(sample) == SNIFF_BYTES and "\n" in text:
        text = text[: text.rfind("\n") + 1]  # whole lines only
    found = []  # (consistent, fields, -rank, delimiter): the largest wins
    order = (default, *(d for d in DELIMITERS if d != default))
    for rank, sep in enumerate(order):
        try:
            rows = [r for r in itertools.islice(csv.reader(io.StringIO(text), delimiter=sep), 21)]
        except csv.Error:
            continue
        rows = [r for r in rows if r]
        if rows and len(rows[0]) > 1:
            consistent = all(len(r) == len(rows[0]) for r in rows[1:])
            found.append((consistent, len(rows[0]), -rank, sep))
    return max(found)[3] if found else default


DECIMAL_COMMA = re.compile(r"\s*[+-]?(\d*,\d+|\d+)([eE][+-]?\d+)?\s*")


def _has_decimal_commas(frame: pd.DataFrame) -> bool:
    """Whether a text column of ``frame`` holds only numbers, some with a decimal comma
    (``3,6``, ``1,5E-3``): a file separated by ``;``, tabs or ``|`` written with
    decimal commas."""
    for column in frame.columns:
        values = frame[column].dropna()
        if len(values) == 0 or pd.api.types.is_numeric_dtype(values):
            continue
        text = values.astype(str)
        if text.str.fullmatch(DECIMAL_COMMA).all() and text.str.contains(",").any():
            return True
    return False


def _parquet_errors() -> tuple[type[Exception], ...]:
    """What reading a damaged or foreign file as Parquet raises: pyarrow's errors, and
    OSError (a corrupt page, an unreadable file)."""
    try:
        import pyarrow
    except ImportError:
        return (OSError,)
    return (pyarrow.ArrowException, OSError)


def _first_line(err: Exception) -> str:
    """The first non-blank line of an exception's message, without a final period."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return (lines[0] if lines else type(err).__name__).rstrip(".")


def parse_features(spec: str | None, columns: list):
    """``None``, one family for every column (``"bernoulli"``), or ``col=family,...``
    naming every one of ``columns`` (the rest are not inferred: a column left out is
    an error that says to name it, ``--drop`` it, or omit ``--features``)."""
    if spec is None:
        return None
    if "=" not in spec:
        if spec not in FAMILIES:
            raise Usage(f"--features {spec!r}: the families are {sorted(FAMILIES)}.")
        return FAMILIES[spec]()
    out = {}
    for part in spec.split(","):
        name, _, family = part.partition("=")
        name, family = name.strip(), family.strip()
        if name not in columns:
            raise Usage(f"--features names the column {name!r}, which the data lacks.")
        if family not in FAMILIES:
            raise Usage(f"--features {part!r}: the families are {sorted(FAMILIES)}.")
        out[name] = FAMILIES[family]()
    undeclared = [c for c in columns if c not in out]
    if undeclared:
        shown = ", ".join(map(str, undeclared[:10])) + (", ..." if len(undeclared) > 10 else "")
        raise Usage(
            f"--features {spec!r} gives no family to {len(undeclared)} of the "
            f"{len(columns)} feature columns ({shown}); a col=family list must name every "
            "column, the rest are not inferred. Name them too (e.g. "
            f"{undeclared[0]}=categorical), leave them out with --drop "
            f"{','.join(map(str, undeclared))}, or omit --features to infer every family."
        )
    return out


def drop_columns(frame: pd.DataFrame, drop: str | None) -> pd.DataFrame:
    """``frame`` without the comma-separated columns ``drop`` (``--drop``)."""
    if not drop:
        return frame
    names = [name.strip() for name in drop.split(",")]
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise Usage(
            f"--drop names column(s) {missing}, which the data lacks; its columns are "
            f"{list(frame.columns)[:20]}."
        )
    return frame.drop(columns=names)


def parse_numbers(spec: str, what: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in spec.split(","))
    except ValueError:
        raise Usage(f"{what} {spec!r}: give numbers separated by commas, e.g. 0.5,1,2.") from None
    if not values or any(not np.isfinite(v) or v <= 0 for v in values):
        raise Usage(f"{what} {spec!r}: every value must be a finite number > 0.")
    return values


def parse_k(spec: str) -> range:
    """``"3"`` or ``"1..6"``."""
    lo, sep, hi = spec.partition("..")
    try:
        first, last = int(lo), int(hi) if sep else int(lo)
    except ValueError:
        raise Usage(f"-k {spec!r}: give a number of components or a range, e.g. 1..6.") from None
    if not 1 <= first <= last:
        raise Usage(f"-k {spec!r}: need 1 <= first <= last.")
    return range(first, last + 1)


def _show(table: pd.DataFrame, title: str, quiet: bool = False) -> None:
    if not quiet:
        typer.echo(f"\n{title}\n{table.to_string(float_format=lambda v: f'{v:.4g}')}")


# -- commands --------------------------------------------------------------------------------
DATA_HELP = (
    "A CSV, TSV or Parquet file. The delimiter of a text file (',', ';', tab or '|') is "
    "found from its header line, whatever the suffix."
)
FEATURES_HELP = (
    "One family for all columns (e.g. gaussian), or col=family,... naming every column "
    "(the rest are not inferred; --drop the others). Default: every family inferred."
)


@app.command(short_help="Cross-validate the estimators of a classifier on a table.")
def compare(
    data: Annotated[str, typer.Argument(help=DATA_HELP)],
    target: Annotated[str, typer.Option(help="The class column.")],
    features: Annotated[str | None, typer.Option(help=FEATURES_HELP)] = None,
    drop: Annotated[str | None, typer.Option(help="Columns to leave out, comma-separated.")] = None,
    prior: Annotated[str, typer.Option(help="Prior strengths, comma-separated.")] = "0.5,1,2",
    sizes: Annotated[
        str, typer.Option(help="Training fractions for the learning curve.")
    ] = "0.1,0.25,0.5,1",
    folds: Annotated[int, typer.Option(help="Cross-validation folds.")] = 5,
    random_state: Annotated[int, typer.Option(help="Seed of the folds, >= 0.")] = 0,
    quiet: Annotated[bool, typer.Option(help="No progress bars.")] = False,
) -> None:
    """Compare ML, MAP, the posterior mean and predictive, Laplace-k and the m-estimate
    by cross-validated accuracy, log loss, Brier score and calibration. A test row
    that an estimator rules out of every class, and every test row of a fold on which
    it cannot be fitted (ML on a Gaussian column of zero variance in a class), is
    scored as the uniform guess (accuracy 1/K) and counted in no_posterior; a warning
    says why."""

    def run():
        _quiet(quiet)
        _check_seed(random_state)
        strengths = parse_numbers(prior, "--prior")
        fractions = parse_numbers(sizes, "--sizes")
        if any(f > 1 for f in fractions):
            raise Usage(f"--sizes {sizes!r}: fractions of the training rows, in (0, 1].")
        if folds < 2:
            raise Usage(f"--folds {folds}: need at least 2.")
        frame = read_table(data)
        if target not in frame.columns:
            raise Usage(f"--target {target!r} is not a column; the columns are {list(frame)}.")
        if drop and target in [name.strip() for name in drop.split(",")]:
            raise Usage(f"--drop names the class column {target!r} (--target); keep it.")
        frame = drop_columns(frame, drop)
        declared = parse_features(features, [c for c in frame.columns if c != target])
        table = bnb.compare(
            frame,
            target,
            features=declared,
            strengths=strengths,
            train_sizes=fractions,
            n_splits=folds,
            random_state=random_state,
        )
        _show(table, f"Estimators on {data} ({folds}-fold cross-validation)")

    _guarded(run)


@app.command(short_help="Cluster a table with mixtures over a range of K.")
def cluster(
    data: Annotated[str, typer.Argument(help=DATA_HELP)],
    k: Annotated[str, typer.Option("-k", help="Components: a number or a range 1..6.")] = "1..6",
    method: Annotated[str, typer.Option(help="em, mcmc or both.")] = "em",
    features: Annotated[str | None, typer.Option(help=FEATURES_HELP)] = None,
    drop: Annotated[str | None, typer.Option(help="Columns to leave out, comma-separated.")] = None,
    random_state: Annotated[int, typer.Option(help="Seed of every fit, >= 0.")] = 0,
    quiet: Annotated[bool, typer.Option(help="No progress bars.")] = False,
) -> None:
    """Fit mixtures over K: the model-choice table, the clusters of the K of least
    BIC, and EM beside MCMC."""

    def run():
        _quiet(quiet)
        _check_seed(random_state)
        if method not in ("em", "mcmc", "both"):
            raise Usage(f"--method {method!r}: give em, mcmc or both.")
        ks = parse_k(k)
        frame = drop_columns(read_table(data), drop)
        _check_rows_for_k(frame, ks, k, data)
        model = bnb.NaiveBayes(parse_features(features, list(frame.columns)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = bnb.cluster_report(
                frame, ks, model=model, method=method, random_state=random_state
            )
        choice = out["choice"]
        notes = choice.pop("note") if "note" in choice else pd.Series(dtype=str)
        _show(choice, f"Mixtures of {data} over K (lower AIC/BIC/ICL is better)")
        for K, note in notes.items():
            if note:
                typer.echo(f"note: K={K}: {note}.")
        _show(out["report"], f"The {out['k']} clusters of least BIC: attribute influence")
        if "em_vs_mcmc" in out:
            side = out["em_vs_mcmc"].pivot_table(
                index=["parameter", "entry"], columns="fit", values="mean", sort=False
            )
            _show(side, "EM beside MCMC (posterior means, relabelled)")

    _guarded(run)


@app.command(short_help="Write a report of every workflow on the embedded data.")
def demo(
    out: Annotated[Path, typer.Option(help="The report folder.")] = Path("bayesnb-report"),
    random_state: Annotated[int, typer.Option(help="Seed of every fit, >= 0.")] = 0,
    quiet: Annotated[
        bool, typer.Option(help="No progress; print only where the report is.")
    ] = False,
) -> None:
    """The estimators, clustering with EM beside MCMC and a Gaussian mixture, on the
    embedded data: a report folder with tables, plots and the fits."""
    _quiet(quiet)
    _guarded(lambda: write_demo(out, random_state, quiet))


def _check_rows_for_k(frame: pd.DataFrame, ks: range, spec: str, data: str) -> None:
    """``-k``: refuse, before any fit, a file with no rows or fewer rows than the
    largest K asked for (a mixture has at most one component per row)."""
    n = len(frame)
    if n == 0:
        raise Usage(
            f"{data!r} has no rows (only a header: columns {list(frame.columns)[:20]}), so "
            "there is nothing to cluster. Give a file with one line per row after the header."
        )
    if ks[-1] > n:
        first = min(ks[0], n)
        remedy = f"-k {n}" if first == n else f"-k {first}..{n}"
        raise Usage(
            f"-k {spec!r} asks for up to {ks[-1]} components, but {data!r} has {n} row(s): "
            f"a mixture has at most one component per row. Give {remedy}."
        )


def _quiet(quiet: bool) -> None:
    """``--quiet``: no progress bars (else they show on a terminal only)."""
    bnb.show_progress(False if quiet else None)


# -- the demo --------------------------------------------------------------------------------
def write_demo(out: Path, random_state: int = 0, quiet: bool = False) -> Path:
    """Write the demo's report to ``out`` (created): report.md and report.html, PNG
    plots, CSV and netCDF tables, and the house-votes classifier as netCDF.

    ``random_state`` is checked before anything is written; a folder that cannot be
    created or written (not found, a file in its path, no permission) is a
    :class:`Usage` error naming ``--out``."""
    _check_seed(random_state)
    if out.exists() and not out.is_dir():
        raise Usage(f"--out {str(out)!r} is a file; give a folder.")
    try:
        _write_demo(out, random_state, quiet)
    except OSError as err:
        where = Path(err.filename) if err.filename else out
        if where != out and out.resolve() not in where.resolve().parents:
            raise  # not the report's folder: _guarded names the path
        what = "create the folder" if where == out else f"write {str(where)!r}"
        raise Usage(
            f"--out {str(out)!r}: cannot {what}: {err.strerror or _first_line(err)}. "
            "Give a folder you may create and write to, e.g. --out ./bayesnb-report."
        ) from None
    return out


def _write_demo(out: Path, random_state: int, quiet: bool) -> None:
    """:func:`write_demo` once ``out`` and ``random_state`` are checked."""
    out.mkdir(parents=True, exist_ok=True)  # first: a folder that cannot be made fails fast
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = time.perf_counter()
    sections: list[tuple[str, str, list[str]]] = []  # (title, text, plot files)

    def say(text: str) -> None:
        if not quiet:
            typer.echo(text)

    say(
        f"bayesnb demo: writing {out}/ (about 15 s; the first run in a fresh environment "
        "also compiles the package's loops, about a minute and a half more on 2 cores)"
    )

    def save_table(table: pd.DataFrame, name: str) -> str:
        table.to_csv(out / f"{name}.csv")
        flat = table.reset_index()
        for column in flat.select_dtypes(include="object").columns:  # netCDF-3: text as str
            flat[column] = flat[column].astype(str)
        flat.to_xarray().to_netcdf(out / f"{name}.nc")
        return table.to_markdown() if _has_tabulate() else table.to_string()

    def save_plot(ax, name: str) -> str:
        fig = np.atleast_1d(ax)[0].figure
        fig.tight_layout()
        fig.savefig(out / f"{name}.png", dpi=110)
        plt.close(fig)
        return f"{name}.png"

    with warnings.catch_warnings():  # the report shows what the warnings would say
        warnings.simplefilter("ignore")
        _demo_sections(out, random_state, say, save_table, save_plot, sections)
    seconds = time.perf_counter() - start
    _write_reports(out, sections, seconds)
    files = sorted(p.name for p in out.iterdir())
    pngs = [f for f in files if f.endswith(".png")]
    typer.echo(
        f"bayesnb demo: wrote {out}/ in {seconds:.0f} s: report.md, report.html, "
        f"{len(pngs)} plots, the tables as CSV and netCDF. (The first run in a fresh "
        "environment also compiles the package's loops, cached for later runs.)"
    )


def _demo_sections(out, random_state, say, save_table, save_plot, sections) -> None:
    from bayesnb import plots

    # 1. the soccer example and PlayTennis
    say("1/4 priors and estimators: the soccer example, PlayTennis")
    soccer = bnb.datasets.soccer_games()
    wins, games = int(soccer["win"].sum()), len(soccer)
    beta_png = save_plot(plots.beta_estimates(wins, games, 2.0, 2.0), "beta_soccer")
    tennis = bnb.datasets.play_tennis()
    tennis_table = bnb.compare(
        tennis, "play", train_sizes=(1.0,), n_splits=3, random_state=random_state
    )
    tennis_fit = bnb.NaiveBayes().fit(tennis, target="play")
    query = tennis.drop(columns="play").iloc[[0, 5, 10]]
    intervals = tennis_fit.predictive_interval(query, random_state=random_state)
    intervals_png = save_plot(plots.class_intervals(intervals), "class_intervals_tennis")
    sections.append(
        (
            "Priors and estimators",
            f"The soccer team won {wins} of {games} games. Beta(2, 2) prior and posterior, "
            "with ML, MAP and the posterior mean marked. PlayTennis, every estimator "
            "(3-fold cross-validation):\n\n" + save_table(tennis_table, "compare_play_tennis"),
            [beta_png, intervals_png],
        )
    )
    # 2. house votes: estimators over prior strength and training size
    say("2/4 estimators on house votes 84: cross-validation over prior and size")
    votes = bnb.datasets.house_votes_84()
    votes_table = bnb.compare(votes, "party", random_state=random_state)
    curves_png = save_plot(plots.learning_curves(votes_table, "log_loss", 1.0), "learning_curves")
    fit = bnb.NaiveBayes(bnb.Bernoulli(bnb.Dirichlet(1.0))).fit(votes, target="party")
    fit.save(out / "house_votes_classifier.nc")
    truth = np.searchsorted(fit.labels, votes["party"].to_numpy())
    reliability_png = save_plot(
        plots.reliability(truth, fit.predict_proba(votes.drop(columns="party")), label="mean"),
        "reliability_votes",
    )
    sections.append(
        (
            "Estimators on house votes 84",
            "Cross-validated scores (5 folds) of every estimator over prior strength "
            "and training size:\n\n" + save_table(votes_table, "compare_house_votes"),
            [curves_png, reliability_png],
        )
    )
    # 3. Autoclass on house votes, EM beside MCMC
    say("3/4 Autoclass on house votes: EM over K, then MCMC (Gibbs) at the chosen K")
    report = bnb.cluster_report(
        votes.drop(columns="party"), range(1, 5), method="both", random_state=random_state
    )
    traces_png = save_plot(plots.em_traces(report["fit"]), "em_traces_votes")
    mcmc_png = save_plot(plots.mcmc_traces(report["mcmc"]), "mcmc_traces_votes")
    rank_pngs = []
    for group in ("posterior_raw", "posterior"):
        name = f"mcmc_ranks_{group}.png"
        plots.mcmc_ranks(report["mcmc"], group=group).savefig(out / name)
        rank_pngs.append(name)
    import matplotlib.pyplot as plt

    plt.close("all")
    sections.append(
        (
            "Autoclass on house votes 84, EM beside MCMC",
            "Model choice over K:\n\n"
            + save_table(report["choice"], "cluster_votes_choice")
            + f"\n\nThe {report['k']} clusters of least BIC, attributes by influence:\n\n"
            + save_table(report["report"].head(15), "cluster_votes_report")
            + "\n\nEM beside MCMC:\n\n"
            + save_table(report["em_vs_mcmc"].head(20), "em_vs_mcmc_votes"),
            [traces_png, mcmc_png, *rank_pngs],
        )
    )
    # 4. Old Faithful: Gaussian mixtures over K x covariance
    say("4/4 Old Faithful: Gaussian mixtures over K and covariance structure")
    faithful = bnb.datasets.old_faithful()
    table = bnb.compare_covariances(faithful, 3, random_state=random_state)
    covariance, k = table["bic"].idxmin()
    best = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).cluster(
        faithful, int(k), random_state=random_state
    )
    ellipses_png = save_plot(plots.cluster_ellipses(best, faithful), "faithful_ellipses")
    sections.append(
        (
            "Gaussian mixtures of Old Faithful",
            "BIC, AIC and ICL over K and covariance structure (lower is better):\n\n"
            + save_table(table, "faithful_covariances")
            + f"\n\nBIC chooses {covariance} with K = {int(k)}.",
            [ellipses_png],
        )
    )


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


def _write_reports(out: Path, sections, seconds: float) -> None:
    md = ["# bayesnb demo", "", f"Written by `bayesnb demo` in {seconds:.0f} s.", ""]
    html = [
        "<!doctype html><meta charset='utf-8'><title>bayesnb demo</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto} pre{font-size:80%}"
        "</style><h1>bayesnb demo</h1>",
    ]
    for title, text, pngs in sections:
        md += [f"## {title}", "", text, ""] + [f"![{p}]({p})" for p in pngs] + [""]
        html.append(f"<h2>{title}</h2><pre>{_escape(text)}</pre>")
        for p in pngs:
            data = base64.b64encode((out / p).read_bytes()).decode()
            html.append(f"<p><img alt='{p}' src='data:image/png;base64,{data}'></p>")
    (out / "report.md").write_text("\n".join(md), encoding="utf-8")
    (out / "report.html").write_text("\n".join(html), encoding="utf-8")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def main(argv=None) -> int:
    """The console script: ``bayesnb ...`` (``argv`` for tests)."""
    try:
        app(args=argv, prog_name="bayesnb", standalone_mode=True)
    except SystemExit as stop:
        return int(stop.code or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
