"""The workflow behind the ``bayesnb`` command, as tidy tables from Python.

* :func:`compare`: the estimators side by side (maximum likelihood, MAP, the posterior
  mean and the posterior predictive, Laplace-k and the m-estimate as the priors they
  are), cross-validated over prior strengths and training sizes: accuracy, log loss,
  Brier score and calibration error;
* :func:`cluster_report`: a mixture over a range of K (the model-choice table), the
  chosen K's cluster report, and EM beside MCMC.

The command line only formats these tables.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesnb._data import Table, declare
from bayesnb._progress import progress
from bayesnb.errors import InputError, UnseenValuesWarning
from bayesnb.families._kernels import _plain
from bayesnb.priors import Dirichlet, ZeroProbabilityWarning, m_estimate, random_generator

#: The estimators :func:`compare` runs: (name, estimate, how the prior strength s
#: and the number t of a feature's values set its Dirichlet prior; None for none).
ESTIMATORS = (
    ("ml", "ml", None),
    ("map", "map", lambda s, t: Dirichlet(s + 1.0)),  # mode under alpha = s + 1: Laplace-s
    ("mean", "mean", lambda s, t: Dirichlet(s)),
    ("predictive", "predictive", lambda s, t: Dirichlet(s)),
    ("m-estimate", "mean", lambda s, t: m_estimate(s, 1.0 / t)),  # uniform over t values
)


def compare(
    data: pd.DataFrame,
    target: str,
    *,
    features=None,
    strengths=(0.5, 1.0, 2.0),
    train_sizes=(0.1, 0.25, 0.5, 1.0),
    n_splits: int = 5,
    random_state=0,
) -> pd.DataFrame:
    """Cross-validated scores of every estimator over prior strengths and training sizes.

    Parameters
    ----------
    data : DataFrame
        The rows, with the ``target`` column.
    target : str
        The class column.
    features : Family or dict, optional
        The declaration (default: inferred, as ``NaiveBayes()``); its Bernoulli and
        Categorical features take each estimator's Dirichlet prior in place of their
        own (the priors are what is compared).
    strengths : sequence of float
        Prior strengths s: MAP under Dirichlet(s + 1) and the posterior mean (and
        predictive) under Dirichlet(s) are Laplace smoothing with k = s; the
        m-estimate puts m = s virtual rows on the uniform distribution over each
        feature's own values: ``(n + s/t)/(N + s)`` for a feature of t values (2 for
        a Bernoulli; a Categorical's declared categories, else the values it takes in
        all of ``data``, not in one training fold).
    train_sizes : sequence of float
        Fractions (0, 1] of each training fold used (the learning curve).
    n_splits : int
        Folds of the cross-validation (stratified by class, seeded), at least 2 and at
        most the number of rows of the largest class (more would leave test folds
        empty: an :class:`~bayesnb.errors.InputError`). As with scikit-learn's
        ``StratifiedKFold``, more folds than the rows of the smallest class warns
        (some test folds then hold none of it).
    random_state : int or numpy Generator
        The folds' and the subsamples' seed, an int >= 0 (else an
        :class:`~bayesnb.errors.InputError`).

    Returns
    -------
    DataFrame
        One row per estimator, prior strength and training size: ``estimator``,
        ``prior_strength`` (NaN for ML), ``train_size``, ``n_train``, ``accuracy``,
        ``log_loss``, ``brier``, ``calibration_error`` (the expected calibration
        error over 10 bins) and ``no_posterior`` (the share of test rows with no
        posterior, see below), each the mean over the folds.

    Warns
    -----
    UserWarning
        When an estimator cannot be fitted on some training folds (below), naming
        it, how many of its fits failed and the first reason; and when some class
        has fewer rows than ``n_splits``.

    Notes
    -----
    *Rows with no posterior.* Maximum likelihood gives likelihood 0 under every
    class to a test row that holds, for each class, some value never seen with that
    class in training (though seen with another: a value never seen at all is
    skipped). Such a row is scored as the uniform guess over the classes of the
    training fold (K of them): probability 1/K for each, so log loss log K, Brier
    score 1 - 1/K, and accuracy 1/K (the expected accuracy of a guess at random;
    a class absent from the training fold has probability 0). It counts in
    ``no_posterior``.

    *Ties.* Accuracy counts a row whose highest probability is shared by j classes
    as 1/j of a hit when its class is one of them, 0 otherwise (a tie broken at
    random), so no label wins a tie by its name or its sort order. A row with no
    posterior is a tie of all K classes.

    *Fits that fail.* An estimator may be undefined on a training fold although
    the others are not: maximum likelihood on a Gaussian column with zero variance
    in some class (every training row of the class holds the same value; its
    density would be infinite), the posterior mean with too few rows for the
    variance's mean to exist, a singular covariance. Such a fold is not an error:
    every one of its test rows is scored as having no posterior (the uniform guess
    above, ``no_posterior`` 1 for the fold), the other estimators are scored as
    usual, and a warning gives the reason. Only when every fit of every estimator
    fails is the first failure raised, as an :class:`~bayesnb.errors.InputError`
    (the data, not an estimator, is then at fault).

    Examples
    --------
    Three votes of the house-votes data on three folds. At strength s = 1 the MAP
    under Dirichlet(2) and the posterior mean under Dirichlet(1) are the same
    estimate, (n + 1)/(N + 2), so they score alike.

    >>> import bayesnb as bnb
    >>> votes = bnb.datasets.house_votes_84()[["party", "V4", "V5", "V8"]]
    >>> table = bnb.compare(votes, "party", strengths=(1.0,), train_sizes=(1.0,), n_splits=3)
    >>> table[["estimator", "n_train", "accuracy", "log_loss"]].round(3)
        estimator  n_train  accuracy  log_loss
    0          ml      290     0.943     0.250
    1         map      290     0.943     0.247
    2        mean      290     0.943     0.247
    3  predictive      290     0.943     0.247
    4  m-estimate      290     0.943     0.248
    """
    if not isinstance(data, pd.DataFrame):
        raise InputError(f"compare needs a DataFrame; got {type(data).__name__}.")
    if target not in data.columns:
        raise InputError(
            f"target {target!r} is not a column of the data; its columns are "
            f"{list(data.columns)[:20]!r}."
        )
    if len(data) == 0:
        raise InputError(
            f"data has no rows (its columns are {list(data.columns)[:20]!r}); compare "
            "cross-validates over rows, so it needs at least n_splits rows of a class. "
            "Check how the data was read or filtered."
        )
    y = data[target]
    if y.isna().any():
        raise InputError(f"target {target!r} has missing labels; drop those rows first.")
    labels = sorted(y.unique(), key=str)
    codes = np.array([labels.index(v) for v in y])
    X = data.drop(columns=target)
    rng = random_generator(random_state)
    folds = _stratified_folds(codes, n_splits, rng, labels, target)
    rows = []
    declared = declare(features, Table(X))  # the families, inferred once from all rows
    n_values = _n_values(declared, X)  # of every discrete feature, from all rows
    # every estimator is scored on the same training rows: one stratified subsample
    # of each fold per training size
    everything = np.arange(len(X))
    subsets = {
        size: [_subsample(np.setdiff1d(everything, test), codes, size, rng) for test in folds]
        for size in train_sizes
    }
    n_fits = (1 + (len(ESTIMATORS) - 1) * len(strengths)) * len(train_sizes) * len(folds)
    failures: list[tuple[str, InputError]] = []  # (estimator, why its fit failed)
    with progress(n_fits, "cross-validating the estimators") as advance:
        folded = _Folds(X, y, codes, labels, folds, declared, n_values, advance, failures)
        for name, estimate, prior_of in ESTIMATORS:
            for strength in [np.nan] if prior_of is None else strengths:
                for size in train_sizes:
                    rows.append(
                        folded.scores(subsets[size], name, estimate, prior_of, strength, size)
                    )
    per_estimator = {
        name: (1 if prior_of is None else len(strengths)) * len(train_sizes) * len(folds)
        for name, _, prior_of in ESTIMATORS
    }
    _report_failures(failures, per_estimator)
    return pd.DataFrame(rows)


def _report_failures(failures: list, per_estimator: dict) -> None:
    """Raise the first failure when every fit of every estimator failed (the data
    is at fault, not an estimator); else warn once per estimator whose fits failed,
    with how many of its ``per_estimator[name]`` fits and the first reason."""
    if not failures:
        return
    if len(failures) == sum(per_estimator.values()):
        raise failures[0][1]
    by_name: dict[str, list] = {}
    for name, err in failures:
        by_name.setdefault(name, []).append(err)
    for name, errors in by_name.items():
        warnings.warn(
            f"compare: the {name!r} estimator could not be fitted on {len(errors)} of its "
            f"{per_estimator[name]} training folds ({_reason(errors[0])}); their test rows "
            "are scored as the uniform guess and counted in no_posterior.",
            UserWarning,
            stacklevel=3,
        )


def _reason(err: Exception) -> str:
    """The first sentence of an error's message: what went wrong, without its remedy
    (which names a Python option)."""
    text = " ".join(str(err).split())
    match = re.search(r"\.(\s|$)", text)
    return text[: match.start()] if match else text


def _subsample(train: np.ndarray, codes: np.ndarray, size: float, rng) -> np.ndarray:
    """The share ``size`` of the rows ``train``, class by class (at least one row of
    every class they hold), sorted; all of them when ``size`` is 1."""
    if size >= 1.0:
        return train
    parts = []
    for c in np.unique(codes[train]):
        rows = train[codes[train] == c]
        parts.append(rng.permutation(rows)[: max(1, round(size * len(rows)))])
    return np.sort(np.concatenate(parts))


@dataclass(frozen=True)
class _Folds:
    """What every row of :func:`compare` shares: the rows ``X`` and labels ``y`` (with
    their ``codes`` into ``labels``), the test ``folds``, the ``declared`` families
    with the ``n_values`` of each discrete feature, the progress bar's
    ``advance``, and the list ``failures`` that collects ``(estimator, error)`` of
    every fit that failed."""

    X: pd.DataFrame
    y: pd.Series
    codes: np.ndarray
    labels: list
    folds: list
    declared: list
    n_values: dict
    advance: object
    failures: list

    def scores(self, subsets, name, estimate, prior_of, strength, size) -> dict:
        """One row of :func:`compare`: the scores of one estimator, prior strength and
        training size, averaged over the folds (trained on ``subsets``, one per
        fold)."""
        from bayesnb.naive_bayes import NaiveBayes

        X, y, codes = self.X, self.y, self.codes
        scores = []
        for test, train in zip(self.folds, subsets, strict=True):
            # a fresh declaration for every fold, each feature's prior set from all rows
            model = NaiveBayes(_with_prior(self.declared, prior_of, strength, self.n_values))
            with warnings.catch_warnings():  # (zeros and unseen values: scored)
                warnings.simplefilter("ignore", ZeroProbabilityWarning)
                warnings.simplefilter("ignore", UnseenValuesWarning)
                try:
                    fit = model.fit(X.iloc[train], y.iloc[train], estimate=estimate)
                except InputError as err:  # undefined on this fold: no posterior anywhere
                    self.failures.append((name, err))
                    proba, dead = _undecided(codes[train], len(test), len(self.labels)), 1.0
                else:
                    proba, dead = _aligned(fit, X.iloc[test], self.labels)
            scores.append({**_scores(codes[test], proba), "no_posterior": dead})
            self.advance()
        n_train = round(float(np.mean([len(train) for train in subsets])))
        row = {
            "estimator": name,
            "prior_strength": strength,
            "train_size": size,
            "n_train": n_train,
        }
        row.update(pd.DataFrame(scores).mean().to_dict())
        return row


DISCRETE = ("bernoulli", "categorical")


def _n_values(declared: list, X: pd.DataFrame) -> dict:
    """The number of values of every column of each Bernoulli and Categorical feature
    of ``declared``, ``{name: [t, ...]}``: 2 for a Bernoulli, a Categorical's declared
    categories, else the values the column takes in ``X`` (all the rows)."""
    from bayesnb.families.discrete import _observed_categories

    out = {}
    for name, family, columns in declared:
        if family.kind == "bernoulli":
            out[name] = [2] * len(columns)
        elif family.kind == "categorical":
            if family.categories is not None:
                out[name] = [len(family.categories)] * len(columns)
            else:
                seen = _observed_categories(X[list(columns)], list(columns))
                out[name] = [len(values) for values in seen]
    return out


def _with_prior(declared: list, prior_of, strength, n_values: dict) -> dict:
    """The declaration ``declared`` (``(name, family, columns)`` triples) as a dict,
    every Bernoulli and Categorical feature under ``prior_of(strength, t)`` with t its
    number of values (``prior_of`` None: as declared). A block whose columns take
    different numbers of values is split into one feature per column, each with its
    own prior (the same model: a block's columns have their own probabilities)."""
    import copy

    out = {}
    for name, family, columns in declared:
        if prior_of is None or family.kind not in DISCRETE:
            family = copy.copy(family)
            family.columns = list(columns)
            out[name] = family
            continue
        counts = n_values[name]
        parts = (
            [(name, list(columns), counts[0])]
            if len(set(counts)) == 1
            else [(f"{name}[{c}]", [c], t) for c, t in zip(columns, counts, strict=True)]
        )
        for part, part_columns, t in parts:
            family_part = copy.copy(family)
            family_part.columns = part_columns
            family_part.prior = prior_of(strength, t)
            out[part] = family_part
    return out


def _aligned(fit, X, labels) -> tuple[np.ndarray, float]:
    """``predict_proba`` with columns in ``labels``' order (a class missing from the
    training rows gets probability 0), and the share of rows with no posterior (zero
    likelihood under every class, ML's zero-probability problem): those rows get the
    uniform distribution, an undecided answer."""
    jll = fit.joint_log_likelihood(X)
    top = jll.max(axis=1, keepdims=True)
    dead = ~np.isfinite(top[:, 0])
    with np.errstate(invalid="ignore"):
        proba = np.exp(jll - np.where(dead[:, None], 0.0, top))
    proba[dead] = 1.0
    proba /= proba.sum(axis=1, keepdims=True)
    out = np.zeros((len(X), len(labels)))
    for j, label in enumerate(fit.labels):
        out[:, labels.index(label)] = proba[:, j]
    return out, float(np.mean(dead))


def _undecided(train_codes: np.ndarray, n_test: int, n_labels: int) -> np.ndarray:
    """The uniform guess over the classes of the training rows (codes
    ``train_codes``), for ``n_test`` rows: what a fold whose fit failed predicts."""
    present = np.zeros(n_labels)
    present[np.unique(train_codes)] = 1.0
    return np.tile(present / present.sum(), (n_test, 1))


def _scores(truth: np.ndarray, proba: np.ndarray) -> dict:
    """Accuracy, log loss, Brier score and expected calibration error of the
    probabilities ``proba`` (rows, classes) of the true classes ``truth``. A row whose
    highest probability j classes share is 1/j of a hit if its class is among them
    (a tie broken at random: the uniform guess of a row with no posterior is right
    with probability 1/K, whatever the labels)."""
    n, K = proba.shape
    picked = proba[np.arange(n), truth]
    onehot = np.eye(K)[truth]
    top = proba.max(axis=1)
    tied = proba == top[:, None]
    hit = tied[np.arange(n), truth] / tied.sum(axis=1)
    bins = np.clip((top * 10).astype(int), 0, 9)
    ece = sum(
        abs(hit[bins == b].mean() - top[bins == b].mean()) * np.mean(bins == b)
        for b in range(10)
        if np.any(bins == b)
    )
    with np.errstate(divide="ignore"):
        loss = -np.mean(np.log(picked))
    return {
        "accuracy": float(np.mean(hit)),
        "log_loss": float(loss),
        "brier": float(np.mean(np.sum((proba - onehot) ** 2, axis=1))),
        "calibration_error": float(ece),
    }


def _stratified_folds(
    codes: np.ndarray, n_splits: int, rng, labels: list, target: str
) -> list[np.ndarray]:
    """``n_splits`` test folds, every class's rows shuffled and dealt out in turn.

    scikit-learn's ``StratifiedKFold`` rule: more folds than the rows of the largest
    class is an error (a fold would test nothing), more than those of the smallest
    class a warning (some folds test none of it)."""
    if not isinstance(n_splits, int) or isinstance(n_splits, bool) or n_splits < 2:
        raise InputError(
            f"n_splits must be an int >= 2 (the number of cross-validation folds); got "
            f"{n_splits!r}. Give e.g. n_splits=5."
        )
    sizes = np.bincount(codes, minlength=len(labels))
    largest, smallest = int(np.argmax(sizes)), int(np.argmin(sizes))
    if n_splits > sizes[largest]:
        raise InputError(
            f"n_splits={n_splits} is more than the {sizes[largest]} rows of the largest "
            f"class of {target!r} ({_plain(labels[largest])!r}), so "
            f"{n_splits - sizes[largest]} test fold(s) would be empty. Give n_splits <= "
            f"{sizes[largest]}."
        )
    if n_splits > sizes[smallest]:
        if sizes[smallest] >= 2:
            remedy = f"Give n_splits <= {sizes[smallest]} to test every class in every fold."
        else:  # no number of folds (at least 2) tests a class of one row in every fold
            single = int(np.sum(sizes == 1))
            remedy = (
                f"{single} of the {len(labels)} classes have a single row, which no "
                "number of folds (at least 2) tests in every fold: drop or merge those "
                f"rows, or check that {target!r} holds classes ({len(labels)} distinct "
                f"values in {len(codes)} rows)."
            )
        warnings.warn(
            f"The least populated class of {target!r}, {_plain(labels[smallest])!r}, has "
            f"only {sizes[smallest]} row(s), fewer than n_splits={n_splits}: some test "
            f"folds hold none of it. {remedy}",
            UserWarning,
            stacklevel=3,
        )
    folds: list[list[int]] = [[] for _ in range(n_splits)]
    for k in np.unique(codes):
        rows = rng.permutation(np.flatnonzero(codes == k))
        for i, part in enumerate(np.array_split(rows, n_splits)):
            folds[i].extend(part.tolist())
    return [np.sort(np.asarray(f, dtype=int)) for f in folds]


def cluster_report(
    data: pd.DataFrame,
    k_values=range(1, 7),
    *,
    model=None,
    method: str = "em",
    random_state=0,
    draws: int = 500,
    chains: int = 4,
    **options,
) -> dict:
    """A mixture over a range of K, the chosen K's clusters, and EM beside MCMC.

    Parameters
    ----------
    data : DataFrame
        The rows to cluster (every column a feature).
    k_values : iterable of int
        The numbers of components to fit (consecutive).
    model : NaiveBayes, optional
        The declaration (default ``NaiveBayes()``, families inferred).
    method : {"em", "mcmc", "both"}
        "em": the table and the report from EM; "mcmc" and "both" also sample the
        chosen K's posterior by MCMC (the Gibbs sampler, relabelled) and set its
        estimates beside EM's.
    random_state : int
        Every fit's seed.
    draws, chains : int
        MCMC's draws per chain and chains.
    **options
        Passed to ``cluster`` (``n_init``, ``estimate``, ...).

    Returns
    -------
    dict
        ``"choice"``: :func:`bayesnb.compare_components`' table over K
        (log-likelihood, AIC, BIC, ICL, Cheeseman-Stutz, ...); ``"k"``: the K of
        least BIC; ``"fit"``: its EM fit; ``"report"``: its cluster report
        (:meth:`bayesnb.MixtureFit.report`, every attribute's influence);
        ``"em_vs_mcmc"`` (MCMC only): :func:`bayesnb.compare_fits` of the EM and
        MCMC fits; ``"mcmc"``: the MCMC fit.

    Examples
    --------
    Old Faithful by one to three components of independent Gaussian columns: BIC
    picks three, the short eruptions and the long ones in two parts, as it does for
    the maximum-likelihood fits of this model (scikit-learn's ``GaussianMixture``
    with ``covariance_type="diag"``: BIC 2332.5 for three against 2346.1 for two).

    >>> import bayesnb as bnb
    >>> faithful = bnb.datasets.old_faithful()
    >>> result = bnb.cluster_report(faithful, range(1, 4), n_init=1)
    >>> result["k"], result["choice"]["bic"].round(1).tolist()
    (3, [3055.9, 2346.3, 2343.4])
    >>> result["report"].loc[0, "summary"].tolist()
    ['mean 3.817 ± 0.291 (all: 3.488 ± 1.13)', 'mean 76.04 ± 5.74 (all: 70.9 ± 13.4)']
    """
    from bayesnb.compare import compare_fits
    from bayesnb.model_choice import compare_components
    from bayesnb.naive_bayes import NaiveBayes

    if method not in ("em", "mcmc", "both"):
        raise InputError(f"method must be 'em', 'mcmc' or 'both'; got {method!r}.")
    ks = sorted({int(k) for k in k_values})
    if not ks or ks[0] < 1 or ks != list(range(ks[0], ks[-1] + 1)):
        raise InputError(f"k_values must be consecutive ints >= 1; got {list(k_values)!r}.")
    _check_rows_for_k(data, ks, options)
    model = NaiveBayes() if model is None else model
    with progress(len(ks), "fitting the mixtures over K") as advance:
        rows, fits = [], {}
        for K in ks:  # one K at a time, for the bar
            row, fitted = compare_components(
                model, data, K, k_min=K, random_state=random_state, return_fits=True, **options
            )
            rows.append(row)
            fits.update(fitted)
            advance()
    table = pd.concat(rows)
    k = int(table["bic"].idxmin())
    out = {"choice": table, "k": k, "fit": fits[k], "report": fits[k].report()}
    if method != "em":
        mcmc = model.cluster(
            data,
            k,
            method="mcmc",
            draws=draws,
            chains=chains,
            random_state=random_state,
            **options,
        )
        out["mcmc"] = mcmc
        out["em_vs_mcmc"] = compare_fits({"EM": fits[k], "MCMC": mcmc})
    return out


def _check_rows_for_k(data, ks: list[int], options: dict) -> None:
    """Refuse, before anything is fitted, in-memory ``data`` with no rows or with
    fewer rows than the largest K of ``ks`` (a mixture has at most one component per
    row)."""
    from bayesnb.dask import is_dask

    if is_dask(data):  # its rows are counted where they are
        return
    n_rows = Table(data, feature_names=options.get("feature_names")).n_rows
    if n_rows == 0:
        raise InputError(
            "data has no rows, so there is nothing to cluster. Check how the data was "
            "read or filtered."
        )
    if ks[-1] > n_rows:
        first = min(ks[0], n_rows)
        raise InputError(
            f"k_values run to K={ks[-1]}, but data has {n_rows} row(s): a mixture has at "
            f"most one component per row. Give k_values within 1..{n_rows}, e.g. "
            f"range({first}, {n_rows + 1})."
        )
