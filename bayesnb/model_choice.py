"""Model choice over the number of components: criteria of fit and one table over K.

* AIC and BIC, properties of every :class:`bayesnb.mixture.MixtureFit`;
* :func:`cheeseman_stutz`: AutoClass's approximation to the marginal likelihood
  :math:`\\log p(X \\mid K)`, built on the closed-form conjugate marginal likelihood
  of complete data;
* :func:`pattern_statistics`: G² and Pearson χ² of the observed attribute patterns of
  all-discrete data against the fitted mixture;
* :func:`compare_components`: all of them for K = k_min..k_max, as one DataFrame;
* :func:`compare_covariances`: BIC, AIC and ICL of Gaussian mixtures over K and the
  covariance structure, as mclust tabulates them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bayesnb._data import Table, check_sample_weight
from bayesnb._lazy import sparse
from bayesnb.dask import is_dask
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families._kernels import _xlogp_sum
from bayesnb.families.base import count_at
from bayesnb.model import log_sum_exp_rows, normalize
from bayesnb.priors import Dirichlet

__all__ = ["cheeseman_stutz", "compare_components", "compare_covariances", "pattern_statistics"]


def compare_components(
    model, X, k_max: int, *, k_min: int = 1, return_fits: bool = False, **options
):
    """Fit K = k_min..k_max components and tabulate the criteria of model choice.

    Parameters
    ----------
    model : NaiveBayes
        The declaration; every K is fitted with ``model.cluster``.
    X : DataFrame, ndarray, sparse matrix or Dask collection
        The data to cluster. A Dask DataFrame or array is clustered and scored
        partition by partition, each criterion summed over the partitions.
    k_max, k_min : int
        The range of K (inclusive).
    return_fits : bool
        Also return the fitted mixtures, a dict keyed by K.
    **options
        Passed to :func:`bayesnb.mixture.fit_mixture` (``estimate``, ``n_init``,
        ``random_state``, ...).

    Returns
    -------
    DataFrame indexed by ``n_components``
        ``log_likelihood``, ``objective`` (the log posterior under MAP-EM),
        ``n_parameters``, ``aic``, ``bic``, ``icl`` (lower is better), ``cheeseman_stutz``
        (approximate log marginal likelihood with its ``log K!`` term, higher is
        better); for all-discrete models ``g2``, ``chi2``, ``df``, ``n_complete`` and
        ``n_patterns`` (see :func:`pattern_statistics`); then ``n_iter``
        and ``converged``; for all-discrete models last ``note``, empty unless
        ``df <= 0``: the K has as many free parameters as the possible patterns
        less one support, or more, so G² and χ² have no χ² reference (the note
        says so, with the numbers).

    Examples
    --------
    >>> import bayesnb as bnb
    >>> votes = bnb.datasets.house_votes_84().drop(columns="party")
    >>> model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y")))
    >>> table = bnb.compare_components(model, votes, 3, n_init=2, random_state=0)
    >>> table.index.tolist(), table["n_parameters"].tolist()
    ([1, 2, 3], [16, 33, 50])
    """
    for key in ("y", "init", "n_components"):
        if key in options:
            raise InputError(
                f"compare_components varies K itself, so {key}= cannot be given; fit a "
                "single K with model.cluster for that."
            )
    weights = options.get("sample_weight")
    _check_k_range(X, k_min, k_max, options, "compare_components")
    rows, fits = [], {}
    for K in range(int(k_min), int(k_max) + 1):
        fit = model.cluster(X, K, **options)
        fits[K] = fit
        row = {
            "n_components": K,
            **_criteria(fit),
            "cheeseman_stutz": cheeseman_stutz(fit, X, sample_weight=weights),
        }
        patterned = not _unpatterned_kinds(fit)
        if patterned:
            row.update(pattern_statistics(fit, X, sample_weight=weights))
        row.update({"n_iter": fit.n_iter, "converged": fit.converged})
        if patterned:
            row["note"] = _saturation_note(row["df"], row["n_parameters"])
        rows.append(row)
    table = pd.DataFrame(rows).set_index("n_components")
    return (table, fits) if return_fits else table


def compare_covariances(
    X,
    k_max: int,
    *,
    k_min: int = 1,
    covariances=("full", "diag", "spherical", "tied"),
    prior=None,
    return_fits: bool = False,
    **options,
):
    """Gaussian mixtures of every covariance structure and K, in one table (mclust's
    BIC table): a :class:`~bayesnb.MultivariateGaussian` over all of X's columns.

    Parameters
    ----------
    X : DataFrame or ndarray
        Continuous columns.
    k_max, k_min : int
        The range of K (inclusive).
    covariances : sequence of str
        Among "full", "diag", "spherical", "tied" and "tied-spherical".
    prior : NormalInverseWishart, optional
        The block's prior (the default is data-scaled; see its documentation).
    return_fits : bool
        Also return the fits, a dict keyed by ``(covariance, K)``.
    **options
        Passed to ``cluster`` (``estimate``, ``n_init``, ``random_state``, ...).

    Returns
    -------
    DataFrame indexed by ``(covariance, n_components)``
        ``log_likelihood``, ``objective``, ``n_parameters``, ``aic``, ``bic``,
        ``icl`` (lower is better), ``n_iter``, ``converged`` and ``error``: a fit that
        fails (a component collapsing under ``estimate="ml"``) leaves NaN and says why,
        as mclust leaves NA.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> faithful = bnb.datasets.old_faithful()
    >>> table = bnb.compare_covariances(faithful, 3, k_min=2, n_init=1, random_state=0)
    >>> covariance, k = table["bic"].idxmin()  # mclust's choice too: EEE, 3
    >>> covariance, int(k)
    ('tied', 3)
    >>> table.loc["tied", "bic"].round(1).tolist()
    [2325.4, 2314.6]
    """
    from bayesnb.families import MultivariateGaussian
    from bayesnb.naive_bayes import NaiveBayes

    _check_k_range(X, k_min, k_max, options, "compare_covariances")
    rows, fits = [], {}
    for covariance in covariances:
        model = NaiveBayes(MultivariateGaussian(prior, covariance=covariance))
        for K in range(int(k_min), int(k_max) + 1):
            row = {"covariance": covariance, "n_components": K}
            try:
                fit = model.cluster(X, K, **options)
            except InputError as err:  # a fit that fails: its row says why
                rows.append({**row, "error": str(err)})
                continue
            fits[covariance, K] = fit
            rows.append(
                {
                    **row,
                    **_criteria(fit),
                    "n_iter": fit.n_iter,
                    "converged": fit.converged,
                    "error": "",
                }
            )
    table = pd.DataFrame(rows).set_index(["covariance", "n_components"])
    return (table, fits) if return_fits else table


def _saturation_note(df: int, n_parameters: int) -> str:
    """The ``note`` of a row of pattern statistics: empty when ``df`` > 0, else why
    G² and χ² have no χ² reference (the free parameters use up the pattern cells)."""
    if df > 0:
        return ""
    cells = df + n_parameters + 1
    return (
        f"df = {df} <= 0: {n_parameters} free parameters, and the {cells} possible "
        f"patterns support at most {cells - 1}; g2 and chi2 have no chi-square reference"
    )


def _check_k_range(X, k_min, k_max, options: dict, caller: str) -> None:
    """Refuse, before anything is fitted, a ``k_min``/``k_max`` that is not a whole
    number with 1 <= k_min <= k_max, or a ``k_max`` beyond the rows of an in-memory
    ``X`` (a mixture has at most one component per row)."""
    for name, value in (("k_max", k_max), ("k_min", k_min)):
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            raise InputTypeError(
                f"{name} must be an int >= 1 (a number of components); got {value!r} "
                f"({type(value).__name__}). Give a whole number, e.g. {name}=3."
            )
    if not 1 <= k_min <= k_max:
        raise InputError(
            f"{caller} needs 1 <= k_min <= k_max; got k_min={k_min!r}, "
            f"k_max={k_max!r}. Give k_max >= k_min >= 1."
        )

    if is_dask(X):  # its rows are counted where they are
        return
    n_rows = Table(X, feature_names=options.get("feature_names")).n_rows
    if n_rows == 0:
        raise InputError(
            f"X has no rows, so {caller} has nothing to cluster. Check how X was read or filtered."
        )
    if k_max > n_rows:
        raise InputError(
            f"k_max={k_max} exceeds the {n_rows} rows of X: a mixture has at most one "
            f"component per row. Give k_max <= {n_rows}."
        )


def _criteria(fit) -> dict:
    """A mixture fit's log-likelihood, objective, free parameters, AIC, BIC and ICL."""
    return {
        "log_likelihood": fit.log_likelihood,
        "objective": fit.objective,
        "n_parameters": fit.n_parameters(),
        "aic": fit.aic,
        "bic": fit.bic,
        "icl": fit.icl,
    }


def cheeseman_stutz(fit, X, *, sample_weight=None) -> float:
    """The Cheeseman-Stutz approximation to :math:`\\log p(X \\mid K)` (AutoClass).

    Parameters
    ----------
    fit : MixtureFit
    X : DataFrame, ndarray, sparse matrix or Dask collection
        The training data (the approximation is about it). A Dask DataFrame or array
        is summed partition by partition (``sample_weight`` then a Dask Series or
        array partitioned like it, or the name of one of its columns).
    sample_weight : array-like of shape (n_rows,), optional
        The weights the fit was trained with (required when it was weighted): a row
        of weight 2 counts as two rows, as in the fit.

    Returns
    -------
    float

    Notes
    -----
    With :math:`X'` the data completed by the expected statistics at the fitted
    :math:`\\hat\\theta`,

    .. math:: \\log p(X \\mid K) \\approx \\log p(X' \\mid K)
              - \\log p(X' \\mid \\hat\\theta) + \\log p(X \\mid \\hat\\theta) + \\log K!,

    where :math:`p(X' \\mid K)` is the closed-form conjugate marginal likelihood of
    complete data (Dirichlet-multinomial, Normal-Inverse-Gamma) and
    :math:`\\log K!` counts the K! relabellings of the components, each an equal
    mode of the posterior. With K = 1 it is the exact marginal likelihood. NaN when
    a feature's family has no closed-form marginal likelihood (a Gamma, or a
    MultivariateGaussian whose covariance is not "full").

    Examples
    --------
    With one component it is exact: one win in three games under the uniform
    Beta(1, 1) prior has evidence :math:`B(2, 3) = 1/12`.

    >>> import math
    >>> import bayesnb as bnb
    >>> from bayesnb.model_choice import cheeseman_stutz
    >>> games = bnb.datasets.soccer_games()
    >>> one = bnb.NaiveBayes().cluster(games, 1)
    >>> round(cheeseman_stutz(one, games), 4), round(math.log(1 / 12), 4)
    (-2.4849, -2.4849)

    On three votes two components have far more evidence than one:

    >>> votes = bnb.datasets.house_votes_84()[["V3", "V4", "V5"]]
    >>> [
    ...     round(cheeseman_stutz(fit, votes), 1)
    ...     for fit in (bnb.NaiveBayes().cluster(votes, k, n_init=2, random_state=0)
    ...                 for k in (1, 2))
    ... ]
    [-873.5, -609.5]
    """
    K = len(fit.labels)
    if is_dask(X):  # the sums merged from the partitions
        from bayesnb.dask import _merge_counts, map_rows

        _dask_weights(fit, sample_weight, "cheeseman_stutz")
        parts = map_rows(fit, X, sample_weight, _expected_sums)
        stats, class_counts = _merge_counts(fit.blocks, [p[:2] for p in parts], K)
        loglik = float(sum(p[2] for p in parts))
    else:
        stats, class_counts, loglik = _expected_sums(fit, X, sample_weight, "cheeseman_stutz")
    marginal = Dirichlet(fit.class_prior.resolve(K)).log_marginal_likelihood(class_counts)
    complete = _xlogp_sum(class_counts, fit.class_log_prob)
    for block, st, params in zip(fit.blocks, stats, fit.block_params, strict=True):
        try:
            marginal += block.log_marginal(st, K)
        except NotImplementedError:  # no closed-form marginal likelihood: no estimate
            return math.nan
        complete += block.complete_log_likelihood(st, params)
    return marginal - complete + loglik + math.lgamma(K + 1)


def _expected_sums(fit, X, sample_weight, what: str | None = None):
    """The sums over the rows of ``X`` that :func:`cheeseman_stutz` needs, at the fit's
    parameters: every block's expected statistics, the components' expected counts and
    the log-likelihood (rows weighted by ``sample_weight``; checked against the fit
    when ``what`` names the caller). The sums of disjoint rows add up (a Dask
    collection's partitions)."""
    encoded = fit.encode(X)
    jll = fit._joint(encoded)
    row_ll = log_sum_exp_rows(jll)
    resp = normalize(jll)
    w = sample_weight if what is None else _row_weights(fit, sample_weight, len(row_ll), what)
    if w is not None:  # a row of weight 0 adds nothing, even at likelihood 0
        resp *= w[:, None]
        row_ll = w * np.where(w > 0, row_ll, 0.0)
    stats = [
        count_at(block, enc, resp, params)
        for block, enc, params in zip(fit.blocks, encoded, fit.block_params, strict=True)
    ]
    return stats, resp.sum(axis=0), float(row_ll.sum())


def pattern_statistics(fit, X, *, sample_weight=None) -> dict:
    """G² and Pearson χ² of the observed attribute patterns against the model.

    For all-discrete models (Bernoulli and Categorical features): the complete
    rows of ``X`` are tallied by pattern (their joint values) and compared with
    the expected counts :math:`N p(x)` under the fitted mixture.

    Parameters
    ----------
    fit : MixtureFit
    X : DataFrame, ndarray, sparse matrix or Dask collection
        A Dask DataFrame or array is tallied partition by partition (``sample_weight``
        then a Dask Series or array partitioned like it, or the name of a column).
    sample_weight : array-like of shape (n_rows,), optional
        The weights the fit was trained with (required when it was weighted): every
        row is tallied with its weight, so N is the complete rows' total weight.

    Returns
    -------
    dict
        ``g2``, ``chi2``, ``df``, ``n_complete`` (rows without a missing value,
        those tallied; under ``sample_weight`` their total weight) and ``n_patterns``
        (distinct patterns observed, of positive weight).

    Notes
    -----
    :math:`G^2 = 2\\sum_x O_x \\log(O_x/E_x)` over observed patterns and
    :math:`\\chi^2 = \\sum_x (O_x - E_x)^2/E_x` over every possible pattern, equal
    to :math:`\\sum_{O_x > 0} O_x^2/E_x - N` since the :math:`E_x` sum to N.
    ``df`` = (number of possible patterns - 1) - free parameters. With many
    attributes most patterns have tiny expected counts and neither statistic
    follows its χ² reference: compare them across K rather than test them.

    Examples
    --------
    Three votes have 2³ = 8 patterns. One component (the votes independent) leaves
    8 - 1 - 3 = 4 degrees of freedom and fits badly; two components (7 free
    parameters) reproduce the pattern counts.

    >>> import bayesnb as bnb
    >>> from bayesnb.model_choice import pattern_statistics
    >>> votes = bnb.datasets.house_votes_84()[["V3", "V4", "V5"]]
    >>> for k in (1, 2):
    ...     fit = bnb.NaiveBayes().cluster(votes, k, n_init=2, random_state=0)
    ...     stats = pattern_statistics(fit, votes)
    ...     print(k, round(stats["g2"], 1), stats["df"], stats["n_complete"], stats["n_patterns"])
    1 546.0 4 408 8
    2 0.9 0 408 8
    """
    kinds = _unpatterned_kinds(fit)
    if kinds:
        raise InputError(
            f"pattern statistics need discrete Bernoulli/Categorical features only; this "
            f"model has {kinds}. Use the log-likelihood, BIC or Cheeseman-Stutz instead."
        )
    if is_dask(X):  # every partition's tally, merged
        from bayesnb.dask import map_rows

        _dask_weights(fit, sample_weight, "pattern_statistics")
        tallies = [p for p in map_rows(fit, X, sample_weight, _pattern_tally) if p[3]]
        n_complete = sum(p[3] for p in tallies)
        weighted = sample_weight is not None
        if tallies:
            _, first, inverse = np.unique(
                np.concatenate([p[0] for p in tallies]),
                axis=0,
                return_index=True,
                return_inverse=True,
            )
            observed = np.bincount(inverse.ravel(), weights=np.concatenate([p[1] for p in tallies]))
            pattern_ll = np.concatenate([p[2] for p in tallies])[first]
            levels = tallies[0][4]
    else:
        tally = _pattern_tally(fit, X, sample_weight, "pattern_statistics")
        _, observed, pattern_ll, n_complete, levels, weighted = tally
    if n_complete == 0:
        raise InputError(
            "pattern statistics tally the rows of X without a missing value (and of "
            "positive weight), and X has none. Give rows with every feature observed."
        )
    total = float(observed.sum())
    expected = total * np.exp(pattern_ll)
    g2 = 2.0 * float(np.sum(observed * (np.log(observed) - np.log(expected))))
    chi2 = float(np.sum(observed**2 / expected)) - total
    return {
        "g2": g2,
        "chi2": chi2,
        "df": math.prod(levels) - 1 - fit.n_parameters(),
        "n_complete": total if weighted else int(n_complete),
        "n_patterns": len(pattern_ll),
    }


def _pattern_tally(fit, X, sample_weight, what: str | None = None):
    """The rows of ``X`` without a missing value (and of positive weight) tallied by
    pattern: the distinct patterns (codes, one row each), their counts (total
    weights), each pattern's log-likelihood under the fit, the number of rows tallied,
    every column's number of values, and whether the rows are weighted.
    ``sample_weight`` is checked against the fit when ``what`` names the caller.
    Tallies of disjoint rows merge (a Dask collection's partitions)."""
    codes, levels = _pattern_codes(fit, X)
    w = sample_weight if what is None else _row_weights(fit, sample_weight, len(codes), what)
    complete = np.all(codes >= 0, axis=1)
    if w is not None:
        complete &= w > 0
    n_complete = int(complete.sum())
    if n_complete == 0:
        return codes[:0], np.zeros(0), np.zeros(0), 0, levels, w is not None
    row_ll = fit.log_likelihood_rows(X)[complete]
    patterns, first, inverse = np.unique(
        codes[complete], axis=0, return_index=True, return_inverse=True
    )
    observed = np.bincount(inverse.ravel(), weights=None if w is None else w[complete])
    return patterns, observed, row_ll[first], n_complete, levels, w is not None


def _dask_weights(fit, sample_weight, what: str) -> None:
    """A fit with weights needs them for a criterion over a Dask collection too (the
    weights themselves are read partition by partition)."""
    if sample_weight is None:
        _row_weights(fit, None, 0, what)


def _row_weights(fit, sample_weight, n_rows: int, what: str):
    """``sample_weight`` checked for ``n_rows`` rows (None without weights); an error
    when the fit was weighted but no weights are given, since the criterion would
    then count the rows otherwise than the fit did."""
    w = check_sample_weight(sample_weight, n_rows)
    weighted = fit.total_weight is not None and fit.total_weight != fit.n_samples
    if w is None and weighted:
        raise InputError(
            f"{what}: this mixture was fitted with sample_weight (total weight "
            f"{fit.total_weight:g} over {fit.n_samples} rows), but no sample_weight was "
            f"given, so {what} would count every row of X once. Give the fit's weights: "
            f"{what}(X, sample_weight=...)."
        )
    return w


def _unpatterned_kinds(fit) -> list[str]:
    """The sorted kinds of the blocks whose raw values have no finite set of patterns
    to tally (a Gaussian's or a Binned block's are continuous, a Multinomial's counts
    unbounded); empty when every block has one."""
    return sorted({b.kind for b in fit.blocks if b.value_domains() is None})


def _pattern_codes(fit, X):
    """Integer codes (n, columns) of the raw values, -1 where missing or unseen."""
    table = Table(X, feature_names=None if fit.is_frame else fit.feature_names)
    codes, levels = [], []
    for block in fit.blocks:
        raw = table.take(block.columns)
        if sparse.issparse(raw):
            raw = raw.toarray()
        frame = raw if isinstance(raw, pd.DataFrame) else pd.DataFrame(raw)
        for j, domain in enumerate(block.value_domains()):
            col = frame.iloc[:, j]
            if col.dtype.kind == "b":
                col = col.astype(np.int64)
            index = pd.Index(domain)
            codes.append(index.get_indexer(col))
            levels.append(len(index))
    return np.stack(codes, axis=1), levels
