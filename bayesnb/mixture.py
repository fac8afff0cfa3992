"""Autoclass: clustering with the naive Bayes mixture, fitted by expectation-maximization.

The mixture is the naive Bayes model of :class:`bayesnb.NaiveBayes` with the class
unobserved. EM alternates two steps over data encoded once:

E-step
    The families' own ``log_likelihood`` gives the joint log-likelihood; a
    log-sum-exp over components (laid out components-first) turns it into
    responsibilities and the log-likelihood of every row.
M-step
    The families' own ``count(enc, resp)`` with the soft responsibilities, then
    :func:`bayesnb.model.estimate_all`: the classifier's code path, unchanged.

One iteration is one *sweep* over the rows, a block of bounded size at a time: the
block's responsibilities, then at once the block's expected statistics, while the
block is still in cache; the blocks' statistics merge by
:func:`bayesnb.sufficient.merge_stats`, the same reduction a fit over partitions of
the data on several machines would use.

This module holds the EM engine, :func:`fit_mixture` and the fitted
:class:`MixtureFit`. Model choice over K is in :mod:`bayesnb.model_choice`, cluster
reports in :mod:`bayesnb.cluster_reports` and the teaching aids of seed 003 in
:mod:`bayesnb.completions`.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning

from bayesnb import cluster_reports, model_choice
from bayesnb._data import Table
from bayesnb._starts import component_labels, start_params
from bayesnb.families import Gaussian
from bayesnb.model import FittedModel, estimate_all, feature_log_likelihood
from bayesnb.priors import Dirichlet, ZeroProbabilityWarning
from bayesnb.sufficient import merge_stats

__all__ = [
    "ConvergenceWarning",
    "MixtureFit",
    "MonotonicityError",
    "fit_mixture",
]

EM_ESTIMATES = ("ml", "map")
INITS = ("random", "uniform")


class MonotonicityError(RuntimeError):
    """EM's objective decreased by more than round-off between two iterations.

    EM with maximum-likelihood or MAP M-steps never decreases its objective (the
    log-likelihood, or the log posterior). A decrease means the M-step did not
    maximize what the objective measures: a bug, or an estimator that is not a
    maximizer.
    """


# ----------------------------------------------------------------------------------------
# The EM engine
# ----------------------------------------------------------------------------------------

#: Bytes of encoded design an EM sweep takes at a time. Every block costs a fixed
#: overhead of about 30 numpy calls (the families' kernels, the normalization, the
#: merge; ~30 microseconds as measured), and on the benchmark's 10^5 x 100 design
#: blocks small enough for a core's L2 cache (<= 1 MiB) save less than that in the
#: M-step product that rereads them (benchmarks/bench_em.py prints both), so blocks
#: are sized for a last-level cache. They also bound the E-step's (K, rows)
#: temporaries whatever the number of rows.
_SWEEP_BYTES = 1 << 24


@dataclass
class _State:
    """Parameters of every block and the component log-weights, with the statistics
    that produced them (``None`` for a start given as parameters)."""

    block_params: list
    class_log_prob: np.ndarray
    stats: list | None = None
    class_counts: np.ndarray | None = None


@dataclass
class _Sweep:
    """One pass over the rows at a state: its E-step and the statistics it implies."""

    objective: float
    log_likelihood: float
    row_ll: np.ndarray  # (n,)
    resp: np.ndarray  # (K, n)
    stats: list  # expected sufficient statistics, one dict per block
    class_counts: np.ndarray  # (K,)


@dataclass
class _Run:
    state: _State
    history: list
    log_likelihood: float
    row_ll: np.ndarray
    resp: np.ndarray  # (K, n)
    converged: bool
    seconds: float = 0.0


def _nbytes(enc) -> int:
    """Bytes held by an encoding: an array, a sparse matrix, a tuple of those, or None."""
    if enc is None:
        return 0
    if isinstance(enc, tuple):
        return sum(_nbytes(e) for e in enc)
    if sparse.issparse(enc):
        return sum(a.nbytes for a in (enc.data, enc.indices, enc.indptr))
    return np.asarray(enc).nbytes


def _block_rows(encoded: list, n: int) -> int:
    """Rows per block of the EM sweep: about ``_SWEEP_BYTES`` of the encoded design."""
    per_row = max(1, sum(_nbytes(e) for e in encoded) // max(1, n))
    return max(1, min(n, _SWEEP_BYTES // per_row))


def _take_rows(enc, rows: slice):
    """Rows ``rows`` (a slice with a stop) of an encoding, without copying the values.

    Arrays give views, a CSR matrix one that shares its values and column indices, a
    tuple its parts' rows, and None stays None.
    """
    if type(enc) is np.ndarray:  # the common case first: a view
        return enc if rows.start == 0 and rows.stop >= len(enc) else enc[rows]
    if enc is None:
        return None
    if isinstance(enc, tuple):
        return tuple(_take_rows(e, rows) for e in enc)
    if rows.start == 0 and rows.stop >= enc.shape[0]:
        return enc
    if sparse.issparse(enc) and enc.format == "csr":
        lo, hi = enc.indptr[rows.start], enc.indptr[rows.stop]
        return sparse.csr_array(
            (enc.data[lo:hi], enc.indices[lo:hi], enc.indptr[rows.start : rows.stop + 1] - lo),
            shape=(rows.stop - rows.start, enc.shape[1]),
        )
    return enc[rows]


class _Problem:
    """The declaration bound to the data, the data encoded once, and the EM steps.

    ``known`` gives the component code of every row, -1 where unknown
    (semi-supervised fitting), or is None.
    """

    def __init__(
        self,
        model,
        table: Table,
        labels: list,
        estimate: str,
        class_estimate: str,
        known: np.ndarray | None = None,
    ):
        self.labels = list(labels)
        self.K = len(self.labels)
        self.n = table.n_rows
        self.table = table
        self.blocks = model.bind(table)
        self.encoded = [b.encode_repeated(table.take(b.columns)) for b in self.blocks]
        self.class_prior = model.class_prior
        self.estimates = {
            "class": class_estimate,
            "features": {b.name: b.estimate or estimate for b in self.blocks},
        }
        for b in self.blocks:
            method = self.estimates["features"][b.name]
            if method not in EM_ESTIMATES:
                raise ValueError(
                    f"feature {b.name!r} declares estimate={method!r}; EM needs 'ml' or "
                    "'map', the estimators that maximize what the objective measures. Use "
                    "estimate='map' (with alpha + 1 in place of alpha, the MAP equals the "
                    "posterior mean of a Dirichlet)."
                )
            if isinstance(b, Gaussian) and b.ddof != 0 and method == "ml":
                raise ValueError(
                    f"Gaussian feature {b.name!r} has ddof={b.ddof}; EM's M-step must be the "
                    "maximum-likelihood 1/N variance. Declare Gaussian(ddof=0) or use "
                    "estimate='map'."
                )
        self.map_blocks = [
            i for i, b in enumerate(self.blocks) if self.estimates["features"][b.name] == "map"
        ]
        self.class_alpha = Dirichlet(self.class_prior.resolve(self.K))
        self.known = known
        step = _block_rows(self.encoded, self.n)
        starts = range(0, max(self.n, 1), step)  # no rows: one empty block, zero statistics
        self.row_blocks = [slice(s, min(self.n, s + step)) for s in starts]
        self.fixed = [self._fixed_rows(rows) for rows in self.row_blocks]

    def _fixed_rows(self, rows: slice):
        """``(rows within the block, their codes)`` of the known rows of a block, or None."""
        if self.known is None:
            return None
        codes = self.known[rows]
        local = np.flatnonzero(codes >= 0)
        return (local, codes[local]) if local.size else None

    # -- objective --------------------------------------------------------------------
    def log_prior(self, state: _State) -> float:
        """Log density of the priors of the MAP-estimated parts at the parameters."""
        total = 0.0
        for i in self.map_blocks:
            total += self.blocks[i].log_prior(state.block_params[i])
        if self.estimates["class"] == "map":
            total += float(self.class_alpha.logpdf(np.exp(state.class_log_prob)))
        return total

    def joint(self, state: _State, encoded: list | None = None) -> np.ndarray:
        """``log P(c) + sum_j log p(x_j | c)``, components first: shape (K, rows).

        Of the rows in ``encoded`` (default: every row).
        """
        jll = feature_log_likelihood(
            self.blocks, self.encoded if encoded is None else encoded, state.block_params
        )
        out = np.ascontiguousarray(jll.T)
        out += state.class_log_prob[:, None]
        return out

    # -- the E-step and the M-step ----------------------------------------------------
    def sweep(self, state: _State, out: tuple | None = None) -> _Sweep:
        """The E-step at ``state`` and the expected statistics it implies, in one pass.

        Block by block (:attr:`row_blocks`): the block's joint log-likelihood,
        normalized over the components into responsibilities, then counted by the
        families while the block is still in cache. The blocks' statistics merge by
        :func:`bayesnb.sufficient.merge_stats`. ``out`` = ``(resp, row_ll)`` are
        buffers of shapes (K, n) and (n,) to fill (allocated when None).
        """
        resp, row_ll = (np.empty((self.K, self.n)), np.empty(self.n)) if out is None else out
        stats: list = [None] * len(self.blocks)
        class_counts = np.zeros(self.K)
        for rows, fixed in zip(self.row_blocks, self.fixed, strict=True):
            encoded = [_take_rows(enc, rows) for enc in self.encoded]
            r = resp[:, rows]
            self._normalize(self.joint(state, encoded), r, row_ll[rows], rows.start, fixed)
            for i, (block, enc) in enumerate(zip(self.blocks, encoded, strict=True)):
                st = block.count(enc, r.T)
                stats[i] = st if stats[i] is None else merge_stats(stats[i], st)
            class_counts += r.sum(axis=1)
        loglik = float(row_ll.sum())
        return _Sweep(loglik + self.log_prior(state), loglik, row_ll, resp, stats, class_counts)

    @staticmethod
    def _normalize(logj, resp, row_ll, offset: int, fixed) -> None:
        """Fill ``resp`` (K, m) and ``row_ll`` (m,) from the joint ``logj`` (K, m) of the
        rows from ``offset`` on: a log-sum-exp over the components, components first."""
        top = logj.max(axis=0)
        if not np.all(np.isfinite(top)):
            row = offset + int(np.flatnonzero(~np.isfinite(top))[0])
            raise ValueError(
                f"row {row} has likelihood 0 under every component: each gives probability "
                "0 to one of its values. Fit with estimate='map' under priors with "
                "alpha > 1 so no probability is exactly 0."
            )
        if fixed is not None:
            local, codes = fixed
            known_joint = logj[codes, local]
        np.subtract(logj, top, out=resp)
        np.exp(resp, out=resp)
        total = resp.sum(axis=0)
        resp /= total
        np.log(total, out=row_ll)
        row_ll += top
        if fixed is not None:
            resp[:, local] = 0.0
            resp[codes, local] = 1.0
            row_ll[local] = known_joint

    def statistics(self, resp: np.ndarray) -> tuple[list, np.ndarray]:
        """Statistics of every block and the class counts from responsibilities (K, n)."""
        r = resp.T  # (n, K) view: the families' counting takes rows first
        stats = [b.count(enc, r) for b, enc in zip(self.blocks, self.encoded, strict=True)]
        return stats, resp.sum(axis=1)

    def estimate(self, stats: list, class_counts: np.ndarray) -> _State:
        """The M-step: parameters from expected statistics."""
        empty = np.flatnonzero(class_counts <= 0)
        if empty.size and "ml" in (self.estimates["class"], *self.estimates["features"].values()):
            raise ValueError(
                f"component {self.labels[int(empty[0])]!r} has no members (total "
                "responsibility 0), so its maximum-likelihood estimates are undefined. Use "
                "estimate='map' with priors alpha > 1, or fewer components."
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZeroProbabilityWarning)
            params, class_log_prob = estimate_all(
                self.blocks, stats, class_counts, self.class_prior, self.estimates
            )
        return _State(params, class_log_prob, stats, class_counts)

    # -- starts -------------------------------------------------------------------------
    def fix_known(self, weights: np.ndarray) -> np.ndarray:
        if self.known is not None:
            rows = np.flatnonzero(self.known >= 0)
            weights[:, rows] = 0.0
            weights[self.known[rows], rows] = 1.0
        return weights

    def random_weights(self, rng: np.random.Generator) -> np.ndarray:
        """Random responsibilities plus one heavy seed row per component.

        Every row gets Dirichlet(1) responsibilities, and K distinct random rows each
        add ``n / K`` to one component, so component k starts as half the whole data
        (slightly perturbed) and half its seed row: asymmetric, and never exactly
        equal even when two seed rows coincide.
        """
        pool = np.arange(self.n) if self.known is None else np.flatnonzero(self.known < 0)
        if len(pool) < self.K:
            pool = np.arange(self.n)
        weights = rng.dirichlet(np.ones(self.K), size=self.n).T.copy()
        seeds = rng.choice(pool, size=self.K, replace=False)
        weights[np.arange(self.K), seeds] += self.n / self.K
        return self.fix_known(weights)

    def uniform_weights(self) -> np.ndarray:
        return self.fix_known(np.full((self.K, self.n), 1.0 / self.K))

    # -- the loop -------------------------------------------------------------------------
    def run(self, state: _State, max_iter: int, tol: float, restart: int) -> _Run:
        """Iterate M-step and sweep from ``state``; one sweep reads the data once."""
        start = time.perf_counter()
        buffers = (np.empty((self.K, self.n)), np.empty(self.n))  # reused by every sweep
        sweep = self.sweep(state, buffers)
        history = [sweep.objective]
        converged = False
        for iteration in range(1, max_iter + 1):
            try:
                state = self.estimate(sweep.stats, sweep.class_counts)
            except ValueError as err:
                raise ValueError(f"EM restart {restart}, iteration {iteration}: {err}") from err
            sweep = self.sweep(state, buffers)
            history.append(sweep.objective)
            _check_increase(history, self.n, iteration, restart)
            if history[-1] - history[-2] <= tol * self.n:
                converged = True
                break
        return _Run(
            state,
            history,
            sweep.log_likelihood,
            sweep.row_ll,
            sweep.resp,
            converged,
            seconds=time.perf_counter() - start,
        )


def _check_increase(history: list, n: int, iteration: int, restart: int) -> None:
    """Raise :class:`MonotonicityError` when the objective fell beyond round-off."""
    previous, current = history[-2], history[-1]
    slack = 1e-9 * (abs(previous) + n)
    if current < previous - slack:
        raise MonotonicityError(
            f"EM's objective decreased at iteration {iteration} of restart {restart}: "
            f"{previous!r} -> {current!r} (by {previous - current:.3g}, round-off allows "
            f"{slack:.3g}). An ML or MAP M-step cannot do that; the M-step is not "
            "maximizing the objective (report this as a bug, with the data)."
        )


def _problem_at(model, X, params, feature_names=None) -> tuple[_Problem, _State]:
    """The problem of ``model`` on ``X`` (every estimate ML) and the state at ``params``.

    For the teaching aids of :mod:`bayesnb.completions`.
    """
    table = Table(X, feature_names=feature_names)
    problem = _Problem(model, table, component_labels(None, params), "ml", "ml")
    return problem, _State(*start_params(problem.blocks, problem.K, params))


def _known_codes(y, labels: list, n: int) -> np.ndarray:
    values = pd.Series(y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y, dtype=object))
    if len(values) != n:
        raise ValueError(f"y has {len(values)} entries for {n} rows of X.")
    missing = values.isna().to_numpy()
    codes = pd.Index(labels).get_indexer(values.where(~missing)).astype(np.intp)
    stray = (codes < 0) & ~missing
    if stray.any():
        raise ValueError(
            f"y has the label {values[stray].iloc[0]!r}, which is not among the components "
            f"{labels!r}. Give n_components as the list of every label."
        )
    return np.where(missing, -1, codes)


# ----------------------------------------------------------------------------------------
# Fitting
# ----------------------------------------------------------------------------------------


def fit_mixture(
    model,
    X,
    n_components=2,
    *,
    y=None,
    method: str = "em",
    estimate: str = "map",
    class_estimate: str | None = None,
    init="random",
    n_init: int = 5,
    max_iter: int = 1000,
    tol: float = 1e-6,
    random_state=None,
    feature_names=None,
) -> MixtureFit:
    """Cluster ``X`` with the naive Bayes mixture declared by ``model`` (Autoclass).

    Usually called as ``model.cluster(X, ...)``.

    Parameters
    ----------
    model : NaiveBayes
        The declaration: one family (with its prior) per feature and the Dirichlet
        prior of the component weights.
    X : DataFrame, ndarray or sparse matrix
        The features only. Missing values (NaN/None) are marginalized exactly.
    n_components : int or list, default 2
        The number of components K, or their names. ``None`` takes them from
        ``init`` parameters.
    y : array_like, optional
        Semi-supervised fitting: the known component of each row, with NaN/None
        where unknown. Known rows keep their component in every E-step. With an int
        ``n_components`` the components are the sorted known labels.
    method : {"em"}
        Expectation-maximization.
    estimate : {"map", "ml"}
        M-step estimator for every feature without its own ``estimate``: the
        posterior mode under the declared priors (MAP-EM) or maximum likelihood.
    class_estimate : {"map", "ml"}, optional
        Estimator of the component weights (default: ``estimate``).
    init : "random", "uniform", ndarray, Dataset, dict or fitted model
        ``"random"`` (default): random responsibilities plus one heavy random seed
        row per component, a random asymmetric start. ``"uniform"``: every
        component equal to the whole data, the symmetric saddle point that EM cannot
        leave (for teaching). An (n, K) array: starting responsibilities (rows
        summing to 1). Parameters in the layout of :attr:`MixtureFit.params` (an
        ``xarray.Dataset`` or a dict with ``class_prob`` and one entry per feature,
        one per column of a Categorical or Binned block), or a fitted model of the
        same declaration: the starting parameters.
    n_init : int, default 5
        Random restarts; the fit with the highest final objective is returned and
        every restart stays in :attr:`MixtureFit.restarts`. Only with
        ``init="random"``.
    max_iter : int, default 1000
        Iterations (one M-step and one E-step each) per restart. Reaching it without
        converging raises a ``ConvergenceWarning``.
    tol : float, default 1e-6
        Convergence when the objective gains at most ``tol`` per row in an iteration.
    random_state : int, numpy Generator or None
    feature_names : list, optional
        Column names for an array ``X``.

    Returns
    -------
    MixtureFit

    Raises
    ------
    MonotonicityError
        If the objective ever decreases beyond round-off (checked every iteration).

    Notes
    -----
    With responsibilities :math:`r_{ik} = P(C_i = k \\mid x_i, \\theta)` the E-step is

    .. math:: \\log r_{ik} = \\log\\pi_k + \\sum_j \\log p(x_{ij} \\mid \\theta_{kj})
              - \\operatorname{logsumexp}_m \\Big[\\log\\pi_m
              + \\sum_j \\log p(x_{ij} \\mid \\theta_{mj})\\Big],

    a missing :math:`x_{ij}` dropping out of the sum. The M-step estimates from the
    expected statistics, e.g. :math:`E[N_k] = \\sum_i r_{ik}` and
    :math:`E[N_{kjv}] = \\sum_{i: x_{ij} = v} r_{ik}`. The objective is the
    log-likelihood :math:`\\sum_i \\log\\sum_k \\pi_k p(x_i \\mid \\theta_k)` (ML-EM),
    plus :math:`\\log p(\\theta)` of the priors of the MAP-estimated parts (MAP-EM);
    EM never decreases it. Known rows (``y``) contribute
    :math:`\\log \\pi_{y_i} p(x_i \\mid \\theta_{y_i})` instead.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> votes = bnb.datasets.house_votes_84()
    >>> model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y")))
    >>> mix = model.cluster(votes.drop(columns="party"), 2, n_init=3, random_state=0)
    >>> mix.n_samples, mix.converged
    (435, True)
    >>> bool(np.all(np.diff(mix.history) >= 0))          # EM never goes down
    True
    """
    if method != "em":
        raise ValueError(
            f"method must be 'em' (expectation-maximization); got {method!r}. For posterior "
            "sampling, build the PyMC model from the same declaration."
        )
    for name, value in (("estimate", estimate), ("class_estimate", class_estimate)):
        if value is not None and value not in EM_ESTIMATES:
            raise ValueError(
                f"{name} must be 'map' or 'ml' for EM; got {value!r}. EM's M-step must "
                "maximize its objective: the posterior mean and predictive do not. Use "
                "'map' (a Dirichlet with alpha + 1 gives the mean's smoothing)."
            )
    for name, value, low in (("n_init", n_init, 1), ("max_iter", max_iter, 1)):
        if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name} must be an int >= {low}; got {value!r}.")
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}.")
    if isinstance(init, str) and init not in INITS:
        raise ValueError(f"init must be one of {INITS}, an array or parameters; got {init!r}.")
    given_start = not (isinstance(init, str) and init == "random")
    if given_start and n_init != 1:
        raise ValueError(
            f"n_init={n_init} restarts need random starts, but init={_describe(init)} is "
            "deterministic. Use n_init=1, or init='random'."
        )

    table = Table(X, feature_names=feature_names)
    if y is not None and isinstance(n_components, int | np.integer):
        known = pd.Series(np.asarray(y, dtype=object)).dropna()
        labels = sorted(pd.unique(known).tolist())
        if len(labels) != n_components:
            raise ValueError(
                f"y names {len(labels)} known component(s) {labels[:10]!r} but "
                f"n_components={n_components}. Give n_components as the list of every "
                "component name."
            )
    else:
        labels = component_labels(n_components, init)
    if not given_start and len(labels) > table.n_rows:
        raise ValueError(
            f"n_components={len(labels)} exceeds the {table.n_rows} rows of X; use at most "
            "one component per row."
        )
    known = None if y is None else _known_codes(y, labels, table.n_rows)
    problem = _Problem(model, table, labels, estimate, class_estimate or estimate, known)

    rng = np.random.default_rng(random_state)
    runs = []
    for restart in range(n_init):
        if isinstance(init, str):
            weights = problem.random_weights(rng) if init == "random" else problem.uniform_weights()
            state = problem.estimate(*problem.statistics(weights))
        elif isinstance(init, np.ndarray):
            weights = problem.fix_known(_check_resp(init, table.n_rows, problem.K))
            state = problem.estimate(*problem.statistics(weights))
        else:
            state = _State(*start_params(problem.blocks, problem.K, init))
        runs.append(problem.run(state, int(max_iter), float(tol), restart))

    fits = [MixtureFit._from_run(problem, run, init=_describe(init)) for run in runs]
    best = int(np.argmax([f.objective for f in fits]))
    for fit in fits:
        fit.restarts = fits
        fit.best_restart = best
    stalled = [i for i, f in enumerate(fits) if not f.converged]
    if stalled:
        which = "" if fits[best].converged else ", the best one included"
        warnings.warn(
            f"EM reached max_iter={max_iter} without converging (tol={tol:g} per row) in "
            f"{len(stalled)} of {n_init} restart(s){which}. Raise max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    _warn_zeros(fits[best])
    return fits[best]


def _describe(init) -> str:
    if isinstance(init, str):
        return repr(init)
    if isinstance(init, np.ndarray):
        return "responsibilities"
    return "parameters"


def _check_resp(resp, n: int, K: int) -> np.ndarray:
    resp = np.asarray(resp, dtype=float)
    if resp.shape != (n, K):
        raise ValueError(
            f"init responsibilities must have shape (n_rows, n_components) = ({n}, {K}); got "
            f"{resp.shape}."
        )
    if not np.all(np.isfinite(resp)) or np.any(resp < 0):
        raise ValueError("init responsibilities must be finite and >= 0.")
    sums = resp.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-8):
        row = int(np.flatnonzero(~np.isclose(sums, 1.0, atol=1e-8))[0])
        raise ValueError(
            f"init responsibilities must sum to 1 in every row; row {row} sums to "
            f"{sums[row]!r}. Divide by the row sums."
        )
    return np.ascontiguousarray(resp.T)


def _warn_zeros(fit: MixtureFit) -> None:
    zeros = int(np.sum(~np.isfinite(fit.class_log_prob)))
    for p in fit.block_params:
        if "log_prob" in p:
            zeros += int(np.sum(~np.isfinite(p["log_prob"])))
    if zeros:
        warnings.warn(
            f"the fitted mixture gives probability 0 to {zeros} (component, value) pair(s); "
            "a new row showing such a value is ruled out of that component. Use "
            "estimate='map' with priors alpha > 1 to keep every probability positive.",
            ZeroProbabilityWarning,
            stacklevel=3,
        )


# ----------------------------------------------------------------------------------------
# The fitted mixture
# ----------------------------------------------------------------------------------------


class MixtureFit(FittedModel):
    """A fitted naive Bayes mixture: parameters, expected statistics, EM diagnostics.

    Prediction, parameters (:attr:`params`, dims ``component`` and per-feature
    category dims), statistics (:attr:`counts`, the expected sufficient statistics
    of the last M-step) and persistence are those of every fitted model.

    Attributes
    ----------
    history : ndarray
        The objective at the start and after every iteration: the log-likelihood,
        plus the log prior density for MAP-EM. Never decreasing.
    log_likelihood : float
        :math:`\\sum_i \\log p(x_i)` of the training rows at the fitted parameters.
    objective : float
        ``history[-1]``.
    n_iter : int
        Iterations run. ``converged`` tells whether ``tol`` was met.
    responsibilities : ndarray (n, K)
        :math:`P(C_i = k \\mid x_i)` of the training rows (known rows one-hot).
    restarts : list of MixtureFit
        Every restart's fit; ``restarts[best_restart]`` is this one.
    n_samples : int
        Training rows.
    """

    label_dim = "component"
    history = None
    log_likelihood = None
    objective = None
    n_iter = None
    converged = None
    responsibilities = None
    restarts = None
    best_restart = None
    n_samples = None
    init = None
    seconds = None

    @classmethod
    def _at(cls, problem: _Problem, state: _State) -> MixtureFit:
        """The mixture of ``problem`` at ``state``, without EM diagnostics."""
        return cls(
            labels=problem.labels,
            blocks=problem.blocks,
            stats=state.stats,
            block_params=state.block_params,
            class_counts=state.class_counts,
            class_log_prob=state.class_log_prob,
            class_prior=problem.class_prior,
            estimates=problem.estimates,
            feature_names=problem.table.names,
            is_frame=problem.table.is_frame,
            target="component",
        )

    @classmethod
    def _from_run(cls, problem: _Problem, run: _Run, init: str) -> MixtureFit:
        fit = cls._at(problem, run.state)
        fit.history = np.asarray(run.history, dtype=float)
        fit.objective = float(run.history[-1])
        fit.log_likelihood = float(run.log_likelihood)
        fit.n_iter = len(run.history) - 1
        fit.converged = bool(run.converged)
        fit.responsibilities = np.ascontiguousarray(run.resp.T)
        fit.n_samples = problem.n
        fit.init = init
        fit.seconds = run.seconds
        return fit

    def __repr__(self) -> str:
        if self.log_likelihood is None:
            return f"MixtureFit(n_components={len(self.labels)})"
        return (
            f"MixtureFit(n_components={len(self.labels)}, log_likelihood="
            f"{self.log_likelihood:.6g}, n_iter={self.n_iter}, converged={self.converged})"
        )

    # -- information criteria -------------------------------------------------------------
    def _need_fit(self, what: str) -> None:
        if self.log_likelihood is None:
            raise ValueError(
                f"{what} needs the training diagnostics, which this mixture does not carry. "
                "Refit, or use log_likelihood_rows(X) on the training data."
            )

    @property
    def aic(self) -> float:
        """Akaike's criterion :math:`-2\\log L + 2p` (lower is better)."""
        self._need_fit("aic")
        return -2.0 * self.log_likelihood + 2.0 * self.n_parameters()

    @property
    def bic(self) -> float:
        """Schwarz's criterion :math:`-2\\log L + p\\log n` (lower is better)."""
        self._need_fit("bic")
        return -2.0 * self.log_likelihood + self.n_parameters() * math.log(self.n_samples)

    # -- reports and model choice ---------------------------------------------------------
    def influence(self) -> xr.DataArray:
        """Each attribute's influence on each cluster: see
        :func:`bayesnb.cluster_reports.influence`."""
        return cluster_reports.influence(self)

    def report(self, top: int | None = 5) -> pd.DataFrame:
        """Clusters by weight, attributes by influence: see
        :func:`bayesnb.cluster_reports.report`."""
        return cluster_reports.report(self, top)

    def cheeseman_stutz(self, X) -> float:
        """AutoClass's approximate log marginal likelihood: see
        :func:`bayesnb.model_choice.cheeseman_stutz`."""
        return model_choice.cheeseman_stutz(self, X)

    def pattern_statistics(self, X) -> dict:
        """G² and χ² against the observed patterns: see
        :func:`bayesnb.model_choice.pattern_statistics`."""
        return model_choice.pattern_statistics(self, X)

    # -- sampling ---------------------------------------------------------------------------
    def sample(self, n: int, random_state=None) -> pd.DataFrame:
        """Draw ``n`` rows from the fitted generative model.

        First the component from the weights, then every feature from its family
        given the component.

        Returns
        -------
        DataFrame
            A ``component`` column followed by the feature columns, values in the
            training data's coding (e.g. ``"y"``/``"n"``).
        """
        if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 0:
            raise ValueError(f"n must be an int >= 0; got {n!r}.")
        if "component" in self.feature_names:
            raise ValueError("a feature is named 'component'; rename it to sample.")
        rng = np.random.default_rng(random_state)
        weights = np.exp(self.class_log_prob)
        components = rng.choice(len(self.labels), size=int(n), p=weights / weights.sum())
        columns = {"component": np.asarray(self.labels, dtype=object)[components]}
        for block, params in zip(self.blocks, self.block_params, strict=True):
            draws = np.asarray(block.sample(params, components, rng)).reshape(int(n), -1)
            for j, col in enumerate(block.columns):
                columns[col] = draws[:, j]
        return pd.DataFrame(columns)[["component", *self.feature_names]]

    # -- persistence of the diagnostics ---------------------------------------------------
    def _config(self) -> dict:
        config = super()._config()
        if self.history is not None:
            config["diagnostics"] = {
                "history": self.history.tolist(),
                "log_likelihood": self.log_likelihood,
                "n_iter": self.n_iter,
                "converged": self.converged,
                "n_samples": self.n_samples,
            }
        return config

    def _restore(self, config: dict) -> None:
        """Put back the training diagnostics saved by :meth:`save` (called by ``load``)."""
        diagnostics = config.get("diagnostics")
        if diagnostics is None:
            return
        self.history = np.asarray(diagnostics["history"], dtype=float)
        self.objective = float(self.history[-1])
        self.log_likelihood = float(diagnostics["log_likelihood"])
        self.n_iter = int(diagnostics["n_iter"])
        self.converged = bool(diagnostics["converged"])
        self.n_samples = int(diagnostics["n_samples"])
