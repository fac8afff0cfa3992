"""The ``bayesnb`` command: ``demo``, ``compare`` and ``cluster`` (Typer).

Every command formats the tables of :mod:`bayesnb.workflow`; the same work runs from
Python with :func:`bayesnb.compare` and :func:`bayesnb.cluster_report`. Bad input
(a missing or unreadable file, an unknown column, a bad spec) prints one line to
stderr and exits with status 2.
"""

from __future__ import annotations

import base64
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

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Naive Bayes and mixtures, the Bayesian way: compare estimators, cluster, report.",
)

READERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
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
    """Run ``run()``; a usage error or a package input error is one line, status 2."""
    try:
        return run()
    except (Usage, BayesNBError, FileNotFoundError, IsADirectoryError) as err:
        _fail(str(err).splitlines()[0])


# -- reading input ---------------------------------------------------------------------------
def read_table(path: str) -> pd.DataFrame:
    """A CSV, TSV or Parquet file as a DataFrame.

    A file that cannot be read as its suffix says (empty, not UTF-8, ragged rows, not
    Parquet) raises an :class:`~bayesnb.errors.InputError` naming it.
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
    sep = READERS[suffix]
    try:
        return pd.read_csv(file, sep=sep)
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
    """``None``, one family for every column (``"bernoulli"``), or ``col=family,...``."""
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
    return out


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
@app.command()
def compare(
    data: Annotated[str, typer.Argument(help="A CSV, TSV or Parquet file.")],
    target: Annotated[str, typer.Option(help="The class column.")],
    features: Annotated[
        str | None, typer.Option(help="One family for all columns, or col=family,...")
    ] = None,
    prior: Annotated[str, typer.Option(help="Prior strengths, comma-separated.")] = "0.5,1,2",
    sizes: Annotated[
        str, typer.Option(help="Training fractions for the learning curve.")
    ] = "0.1,0.25,0.5,1",
    folds: Annotated[int, typer.Option(help="Cross-validation folds.")] = 5,
    random_state: Annotated[int, typer.Option(help="Seed of the folds.")] = 0,
    quiet: Annotated[bool, typer.Option(help="No progress bars.")] = False,
) -> None:
    """Compare ML, MAP, the posterior mean and predictive, Laplace-k and the m-estimate
    by cross-validated accuracy, log loss, Brier score and calibration."""

    def run():
        _quiet(quiet)
        frame = read_table(data)
        if target not in frame.columns:
            raise Usage(f"--target {target!r} is not a column; the columns are {list(frame)}.")
        declared = parse_features(features, [c for c in frame.columns if c != target])
        strengths = parse_numbers(prior, "--prior")
        fractions = parse_numbers(sizes, "--sizes")
        if any(f > 1 for f in fractions):
            raise Usage(f"--sizes {sizes!r}: fractions of the training rows, in (0, 1].")
        if folds < 2:
            raise Usage(f"--folds {folds}: need at least 2.")
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


@app.command()
def cluster(
    data: Annotated[str, typer.Argument(help="A CSV, TSV or Parquet file.")],
    k: Annotated[str, typer.Option("-k", help="Components: a number or a range 1..6.")] = "1..6",
    method: Annotated[str, typer.Option(help="em, mcmc or both.")] = "em",
    features: Annotated[
        str | None, typer.Option(help="One family for all columns, or col=family,...")
    ] = None,
    drop: Annotated[str | None, typer.Option(help="Columns to leave out, comma-separated.")] = None,
    random_state: Annotated[int, typer.Option(help="Seed of every fit.")] = 0,
    quiet: Annotated[bool, typer.Option(help="No progress bars.")] = False,
) -> None:
    """Fit mixtures over K: the model-choice table, the clusters of the K of least
    BIC, and EM beside MCMC."""

    def run():
        _quiet(quiet)
        frame = read_table(data)
        if drop:
            missing = [c for c in drop.split(",") if c not in frame.columns]
            if missing:
                raise Usage(f"--drop names column(s) {missing}, which the data lacks.")
            frame = frame.drop(columns=drop.split(","))
        if method not in ("em", "mcmc", "both"):
            raise Usage(f"--method {method!r}: give em, mcmc or both.")
        model = bnb.NaiveBayes(parse_features(features, list(frame.columns)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = bnb.cluster_report(
                frame, parse_k(k), model=model, method=method, random_state=random_state
            )
        _show(out["choice"], f"Mixtures of {data} over K (lower AIC/BIC/ICL is better)")
        _show(out["report"], f"The {out['k']} clusters of least BIC: attribute influence")
        if "em_vs_mcmc" in out:
            side = out["em_vs_mcmc"].pivot_table(
                index=["parameter", "entry"], columns="fit", values="mean", sort=False
            )
            _show(side, "EM beside MCMC (posterior means, relabelled)")

    _guarded(run)


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="The report folder.")] = Path("bayesnb-report"),
    random_state: Annotated[int, typer.Option(help="Seed of every fit.")] = 0,
    quiet: Annotated[
        bool, typer.Option(help="No progress; print only where the report is.")
    ] = False,
) -> None:
    """The estimators, clustering with EM beside MCMC and a Gaussian mixture, on the
    embedded data: a report folder with tables, plots and the fits."""
    _quiet(quiet)
    _guarded(lambda: write_demo(out, random_state, quiet))


def _quiet(quiet: bool) -> None:
    """``--quiet``: no progress bars (else they show on a terminal only)."""
    bnb.show_progress(False if quiet else None)


# -- the demo --------------------------------------------------------------------------------
def write_demo(out: Path, random_state: int = 0, quiet: bool = False) -> Path:
    """Write the demo's report to ``out`` (created): report.md and report.html, PNG
    plots, CSV and netCDF tables, and the house-votes classifier as netCDF."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if out.exists() and not out.is_dir():
        raise Usage(f"--out {str(out)!r} is a file; give a folder.")
    out.mkdir(parents=True, exist_ok=True)
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
    return out


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
