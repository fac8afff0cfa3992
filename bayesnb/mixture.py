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

import contextlib
import math
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb import _em_loop, cluster_reports, model_choice
from bayesnb._data import Table, check_sample_weight
from bayesnb._em_loop import _FIXED_POINT_ULPS, _RATE_WINDOW, _STEP_FACTOR
from bayesnb._lazy import sparse
from bayesnb._starts import component_labels, start_params
from bayesnb.dask import is_dask
from bayesnb.errors import InputError, InputTypeError, ZeroLikelihoodError
from bayesnb.families.base import count_at
from bayesnb.model import FittedModel, check_draw_count, estimate_all, feature_log_likelihood
from bayesnb.priors import (
    _PACKAGE_DIR,
    Dirichlet,
    PointMass,
    ZeroProbabilityWarning,
    class_concentration,
    random_generator,
)
from bayesnb.sufficient import merge_stats

__all__ = [
    "MixtureFit",
    "MonotonicityError",
    "fit_mixture",
]

EM_ESTIMATES = ("ml", "map", "mean")
INITS = ("kmeans", "k-means++", "random", "assign", "uniform")

#: Convergence: EM stops when the objective's remaining gain, extrapolated from the last
#: gains (Aitken), is at most ``tol`` per row (of weight).
DEFAULT_TOL = 1e-8
DEFAULT_MAX_ITER = 2000
#: The share of every row's weight a k-means start spreads evenly over the components.
KMEANS_SHARE = 0.05
#: k-means++ seedings of a k-means start on a large X (beyond AUTO_RESTART_ENTRIES,
#: where one restart is the default; the one k-means leaves tightest is kept; one
#: seeding on a smaller X, whose restarts must start apart), and the most rows its
#: centres are found from (a random sample of them beyond).
KMEANS_INITS = 3
KMEANS_ROWS = 20_000
#: Up to this many entries (rows x columns) of X, the default is 5 restarts; beyond, one
#: (from k-means, as scikit-learn's GaussianMixture).
AUTO_RESTART_ENTRIES = 10**6
#: Up to this many entries of X, EM and its k-means start run on one thread
#: (:func:`_one_thread`).
ONE_THREAD_ENTRIES = 2 * 10**5
#: The starts drawn at random, which restarts (``n_init``) draw anew.
RANDOM_INITS = ("kmeans", "k-means++", "random", "assign")


class _CollapseError(InputError):
    """An M-step of one EM run that failed: a component shrank onto too few rows or
    distinct values for its estimate (under ``estimate="ml"`` the likelihood grows
    without bound there). The restart it stopped is set aside (:func:`_restart_fits`);
    only when every restart failed is it an error."""


class MonotonicityError(RuntimeError):
    """EM's objective decreased by more than round-off between two iterations.

    EM with maximum-likelihood or MAP M-steps never decreases its objective (the
    log-likelihood, or the log posterior). A decrease means the M-step did not
    maximize what the objective measures: a bug, or an estimator that is not a
    maximizer.

    Examples
    --------
    The check runs at every iteration, so a fit that returns has an objective that
    never fell: here MAP-EM on the house votes, with its history of the log
    posterior.

    >>> import numpy as np
    >>> import bayesnb as bnb
    >>> votes = bnb.datasets.house_votes_84().drop(columns="party")
    >>> try:
    ...     mix = bnb.NaiveBayes().cluster(votes, 2, estimate="map", random_state=0)
    ... except bnb.MonotonicityError:
    ...     print("an M-step failed to maximize: report it")
    >>> bool(np.all(np.diff(mix.history) >= 0.0))
    True
    """


def __getattr__(name):
    """``ConvergenceWarning`` is scikit-learn's, imported on first use so that
    ``import bayesnb`` does not import scikit-learn."""
    if name == "ConvergenceWarning":
        from sklearn.exceptions import ConvergenceWarning

        return ConvergenceWarning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    at: _State | None = None  # the state swept (a generalized M-step starts from it)


@dataclass
class _Run:
    state: _State
    history: list
    log_likelihood: float
    row_ll: np.ndarray
    resp: np.ndarray  # (K, n)
    converged: bool
    seconds: float = 0.0
    n_sweeps: int = 0  # passes over the data, rejected extrapolations included
    saddle: bool = False  # stopped where a perturbation raises the objective
    failure: InputError | None = None  # the M-step error that stopped it (a collapse)


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
    if isinstance(enc, tuple):  # a named tuple (a sparse block's missing entries) stays one
        parts = [_take_rows(e, rows) for e in enc]
        return type(enc)._make(parts) if hasattr(enc, "_make") else tuple(parts)
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
    (semi-supervised fitting), or is None. ``sample_weight`` (validated, one per row)
    or None weighs every row's responsibilities and log-likelihood.
    """

    def __init__(
        self,
        model,
        table: Table,
        labels: list,
        estimate: str | None,
        class_estimate: str | None,
        known: np.ndarray | None = None,
        sample_weight: np.ndarray | None = None,
        hard: bool = False,
        blocks: list | None = None,
    ):
        self.labels = list(labels)
        self.hard = hard
        self.K = len(self.labels)
        self.n = table.n_rows
        self.table = table
        self.weights = sample_weight
        self.total_weight = float(self.n if sample_weight is None else sample_weight.sum())
        self.blocks = (
            model.bind(table, sample_weight, n_labels=self.K) if blocks is None else blocks
        )
        self.encoded = self._encode(table)
        self.class_prior = model.class_prior
        self.estimates = {
            "class": class_estimate or estimate or "mean",
            "features": {b.name: b.estimate or estimate or b.em_estimate for b in self.blocks},
        }
        for b in self.blocks:
            method = self.estimates["features"][b.name]
            b.check_em_estimate(method)
            if method == "map" and isinstance(b.prior, Dirichlet) and np.any(b.prior.alpha < 1):
                raise InputError(
                    f"feature {b.name!r} declares the prior {b.prior!r} with a concentration "
                    "< 1 and is estimated by estimate='map'; under EM that prior's density "
                    "is unbounded where a probability reaches 0, so the objective has no "
                    "maximum. Use estimate='mean' (the default for discrete features) or "
                    "concentrations >= 1."
                )
        # The parts whose log prior density enters the objective: MAP under the declared
        # prior (shift 0), and the posterior mean of a Dirichlet, which is the MAP under
        # the prior with every concentration raised by one (shift 1).
        shift = {"map": 0.0, "mean": 1.0}
        self.prior_blocks = [
            (i, shift[m])
            for i, b in enumerate(self.blocks)
            if (m := self.estimates["features"][b.name]) in shift
        ]
        fixed_weights = isinstance(self.class_prior, PointMass)  # no prior term, no estimate
        self.class_prior_shift = None if fixed_weights else shift.get(self.estimates["class"])
        alpha = (
            None if fixed_weights else class_concentration(self.class_prior, self.K, "Clustering")
        )
        if alpha is not None and self.estimates["class"] == "map" and np.any(alpha < 1):
            raise InputError(
                f"class_estimate='map' with the class prior {self.class_prior!r}, a "
                "concentration < 1: under EM its density is unbounded where a component's "
                "weight reaches 0, so the objective has no maximum. Use "
                "class_estimate='mean' (the default) or a class prior with alpha >= 1."
            )
        self.class_alpha = (
            None if self.class_prior_shift is None else (Dirichlet(alpha + self.class_prior_shift))
        )
        self.known = known
        self._lay_out()
        # every block with compiled pieces: EM runs in the compiled loop
        self.compiled = _em_loop.compile_problem(self)

    def _encode(self, table: Table) -> list:
        """Every block's encoding of its columns of ``table``, made once for all sweeps."""
        return [b.encode_repeated(table.take(b.columns)) for b in self.blocks]

    def _lay_out(self) -> None:
        """The sweep's cache-sized row blocks and the known rows of each."""
        step = _block_rows(self.encoded, self.n)
        starts = range(0, max(self.n, 1), step)  # no rows: one empty block, zero statistics
        self.row_blocks = [slice(s, min(self.n, s + step)) for s in starts]
        self.fixed = [self._fixed_rows(rows) for rows in self.row_blocks]

    @classmethod
    def rows_part(cls, blocks: list, table: Table, K: int, weights, known, hard: bool):
        """A part of the rows on its own, for the E-step and expected statistics of
        :meth:`sweep` over it alone (the rows of one partition of a Dask collection):
        the bound ``blocks``, no prior term (it enters the whole objective once)."""
        part = cls.__new__(cls)
        part.blocks, part.K, part.n, part.hard = blocks, K, table.n_rows, hard
        part.weights, part.known = weights, known
        part.prior_blocks, part.class_alpha = [], None
        part.encoded = part._encode(table)
        part._lay_out()
        return part

    def _fixed_rows(self, rows: slice):
        """``(rows within the block, their codes)`` of the known rows of a block, or None."""
        if self.known is None:
            return None
        codes = self.known[rows]
        local = np.flatnonzero(codes >= 0)
        return (local, codes[local]) if local.size else None

    # -- objective --------------------------------------------------------------------
    def log_prior(self, state: _State) -> float:
        """Log density of the priors of the MAP- and mean-estimated parts at the
        parameters (a mean-estimated Dirichlet part: the prior with alpha + 1)."""
        total = 0.0
        for i, shift in self.prior_blocks:
            params = state.block_params[i]
            block = self.blocks[i]
            total += block.log_prior(params, shift=shift) if shift else block.log_prior(params)
        if self.class_alpha is not None:
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
        families (each row's responsibilities times its weight) while the block is
        still in cache. The blocks' statistics merge by
        :func:`bayesnb.sufficient.merge_stats`. ``out`` = ``(resp, row_ll)`` are
        buffers of shapes (K, n) and (n,) to fill (allocated when None).
        """
        resp, row_ll = (np.empty((self.K, self.n)), np.empty(self.n)) if out is None else out
        stats: list = [None] * len(self.blocks)
        class_counts = np.zeros(self.K)
        w = self.weights
        for rows, fixed in zip(self.row_blocks, self.fixed, strict=True):
            encoded = [_take_rows(enc, rows) for enc in self.encoded]
            r = resp[:, rows]
            self._normalize(
                self.joint(state, encoded), r, row_ll[rows], rows.start, fixed, self.hard
            )
            if w is not None:
                r = r * w[rows]
            for i, (block, enc) in enumerate(zip(self.blocks, encoded, strict=True)):
                st = count_at(block, enc, r.T, state.block_params[i])
                stats[i] = st if stats[i] is None else merge_stats(stats[i], st)
            class_counts += r.sum(axis=1)
        loglik = float(row_ll.sum() if w is None else row_ll @ w)
        objective = loglik + self.log_prior(state)
        return _Sweep(objective, loglik, row_ll, resp, stats, class_counts, state)

    @staticmethod
    def _normalize(logj, resp, row_ll, offset: int, fixed, hard: bool = False) -> None:
        """Fill ``resp`` (K, m) and ``row_ll`` (m,) from the joint ``logj`` (K, m) of the
        rows from ``offset`` on: a log-sum-exp over the components, components first.
        ``hard``: every row wholly in its most probable component (the first of a tie),
        and its log-likelihood that component's joint (classification EM)."""
        top = logj.max(axis=0)
        if not np.all(np.isfinite(top)):
            row = offset + int(np.flatnonzero(~np.isfinite(top))[0])
            raise ZeroLikelihoodError(
                f"row {row} has likelihood 0 under every component: each gives probability "
                "0 to one of its values. Fit with estimate='mean' (the default for discrete "
                "features), or 'map' under priors with alpha > 1, so no probability is "
                "exactly 0."
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
        if hard:
            columns = np.arange(logj.shape[1])
            winners = logj.argmax(axis=0)
            resp[:] = 0.0
            resp[winners, columns] = 1.0
            row_ll[:] = logj[winners, columns]
        if fixed is not None:
            resp[:, local] = 0.0
            resp[codes, local] = 1.0
            row_ll[local] = known_joint

    def statistics(self, resp: np.ndarray, at: _State | None = None) -> tuple[list, np.ndarray]:
        """Statistics of every block and the class counts from responsibilities (K, n),
        each row's weighted by its sample weight; missing values a block fills in are
        filled from ``at`` (a start when None: :func:`~bayesnb.families.base.count_at`)."""
        if self.weights is not None:
            resp = resp * self.weights
        r = resp.T  # (n, K) view: the families' counting takes rows first
        params = [None] * len(self.blocks) if at is None else at.block_params
        stats = [
            count_at(b, enc, r, p)
            for b, enc, p in zip(self.blocks, self.encoded, params, strict=True)
        ]
        return stats, resp.sum(axis=1)

    def estimate(self, stats: list, class_counts: np.ndarray, at: _State | None = None) -> _State:
        """The M-step: parameters from expected statistics. ``at`` (the state the
        statistics were swept at) lets a family without a closed-form M-step (a
        ``generalized`` one: :class:`~bayesnb.families.gamma.Gamma`) take an improving
        step from its current parameters instead of maximizing: generalized EM."""
        empty = np.flatnonzero(class_counts <= 0)
        if empty.size and "ml" in (self.estimates["class"], *self.estimates["features"].values()):
            raise InputError(
                f"component {self.labels[int(empty[0])]!r} has no members (total "
                "responsibility 0), so its maximum-likelihood estimates are undefined. Leave "
                "estimate unset (the per-family default: 'mean' for discrete features, 'map' "
                "for Gaussian ones), or fit fewer components."
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZeroProbabilityWarning)
            params, class_log_prob = estimate_all(
                self.blocks,
                stats,
                class_counts,
                self.class_prior,
                self.estimates,
                self.labels,
                current=None if at is None else at.block_params,
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

        Every row gets Dirichlet(1) responsibilities, and K distinct random rows (of
        positive weight) each add ``n / K`` rows' worth of weight to one component, so
        component k starts as half the whole data (slightly perturbed) and half its
        seed row: asymmetric, and never exactly equal even when two seed rows coincide.
        """
        usable = np.ones(self.n, bool) if self.weights is None else self.weights > 0
        pool = np.flatnonzero(usable if self.known is None else usable & (self.known < 0))
        if len(pool) < self.K:
            pool = np.flatnonzero(usable)
        if len(pool) < self.K:
            pool = np.arange(self.n)
        weights = rng.dirichlet(np.ones(self.K), size=self.n).T.copy()
        seeds = rng.choice(pool, size=self.K, replace=False)
        boost = self.total_weight / self.K
        if self.weights is not None:
            boost = boost / np.maximum(self.weights[seeds], 1e-300)
        weights[np.arange(self.K), seeds] += boost
        return self.fix_known(weights)

    def assigned_weights(self, rng: np.random.Generator) -> np.ndarray:
        """Hard responsibilities of an arbitrary assignment (seed 003's start: assign
        the rows to clusters arbitrarily, then take an M-step): every row to a
        component drawn uniformly (``rng.integers``), then K rows drawn without
        replacement (``rng.permutation``) one to each component, so none starts
        empty."""
        z = rng.integers(0, self.K, self.n)
        if self.n >= self.K:
            z[rng.permutation(self.n)[: self.K]] = np.arange(self.K)
        weights = np.zeros((self.K, self.n))
        weights[z, np.arange(self.n)] = 1.0
        return self.fix_known(weights)

    def kmeans_weights(
        self, rng: np.random.Generator, *, lloyd: bool = True, seedings: int = KMEANS_INITS
    ) -> np.ndarray:
        """Hard responsibilities (K, n) from k-means on the rows' features.

        Every block gives its columns as numbers (:meth:`Family.seed_features`:
        standardized Gaussian values, 0/1, categories one-hot, word proportions),
        and scikit-learn's k-means++ picks K seed rows (:func:`sklearn.cluster.
        kmeans_plusplus`, with the sample weights). ``lloyd=True``: scikit-learn's
        :class:`~sklearn.cluster.KMeans` (Lloyd's iterations, the best of
        ``seedings`` seedings) goes on from those seeds, on a random sample of
        :data:`KMEANS_ROWS` rows when there are more, and every row starts in its
        nearest centre's component; ``lloyd=False``: in its nearest seed's. Every row
        keeps :data:`KMEANS_SHARE` of its weight spread evenly over the components, so
        no component starts empty and no probability starts at an exact 0, which EM
        could never leave. Labelled rows stay in their component.
        """
        from sklearn.cluster import KMeans, kmeans_plusplus  # imported on use: slow
        from sklearn.metrics import pairwise_distances_argmin

        parts = [b.seed_features(self.table.take(b.columns)) for b in self.blocks]
        if any(sparse.issparse(p) for p in parts):
            features = sparse.hstack(parts, format="csr")
            if features.nnz < 2**31:  # scikit-learn's k-means takes 32-bit indices only
                features.indices = features.indices.astype(np.int32)
                features.indptr = features.indptr.astype(np.int32)
        else:
            features = parts[0] if len(parts) == 1 else np.hstack(parts)
        weight = self.weights
        seed = int(rng.integers(2**31 - 1))
        if lloyd:
            rows = np.arange(self.n)
            if self.n > KMEANS_ROWS:  # the clusters' centres from a sample of the rows
                rows = np.sort(np.random.default_rng(seed).choice(self.n, KMEANS_ROWS, False))
            with warnings.catch_warnings():  # fewer distinct rows than K: never mind
                warnings.simplefilter("ignore")
                kmeans = KMeans(self.K, init="k-means++", n_init=seedings, random_state=seed)
                kmeans.fit(features[rows], sample_weight=None if weight is None else weight[rows])
                members = kmeans.predict(features)
        else:
            centres, _ = kmeans_plusplus(features, self.K, sample_weight=weight, random_state=seed)
            members = pairwise_distances_argmin(features, centres)
        weights = np.full((self.K, self.n), KMEANS_SHARE / self.K)
        weights[members, np.arange(self.n)] += 1.0 - KMEANS_SHARE
        return self.fix_known(weights)

    def uniform_weights(self) -> np.ndarray:
        return self.fix_known(np.full((self.K, self.n), 1.0 / self.K))

    # -- the loop -------------------------------------------------------------------------
    def _m_step(self, sweep: _Sweep, restart: int, iteration: int) -> _State:
        try:
            state = self.estimate(sweep.stats, sweep.class_counts, sweep.at)
            self.check_resolution(state)
        except InputError as err:
            raise _CollapseError(f"EM restart {restart}, iteration {iteration}: {err}") from err
        return state

    # -- the precision of Gaussian parameters -------------------------------------------
    def _gaussian_params(self, state: _State):
        """``(block, mu, var)`` of every Gaussian block at ``state``, (K, columns) each."""
        for block, params in zip(self.blocks, state.block_params, strict=True):
            if "var" in params:
                yield block, np.asarray(params["mu"]), np.asarray(params["var"])

    def check_resolution(self, state: _State) -> None:
        """Refuse a Gaussian component whose standard deviation is below the spacing of
        float64 numbers at its mean: its density cannot be evaluated there (a mean one
        unit in the last place away from the data sits many deviations from it)."""
        for block, mu, var in self._gaussian_params(state):
            bad = np.sqrt(var) < np.spacing(np.abs(mu))
            if bad.any():
                k, j = np.argwhere(bad)[0]
                raise InputError(
                    f"Gaussian feature {block.name!r}, column {block.columns[j]!r}: component "
                    f"{self.labels[k]!r} has mean {mu[k, j]:.6g} and standard deviation "
                    f"{np.sqrt(var[k, j]):.3g}, below the spacing of float64 numbers at that "
                    f"mean ({np.spacing(abs(mu[k, j])):.3g}), so its density cannot be "
                    "evaluated. Subtract an offset from the column (e.g. its median) or "
                    "rescale it before clustering."
                )

    def resolution_slack(self, state: _State) -> float:
        """How much the objective at ``state`` may move by the rounding of the Gaussian
        means alone: a mean off by ``d`` (a few units in the last place) changes the
        log-likelihood of the rows of weight W by ``W d^2 / (2 var)``; a joint
        Gaussian's by ``W d' P d / 2`` for the precision matrix P, at most
        ``W (sum_j |d_j| sqrt(P_jj))^2 / 2``. (The compiled loop keeps a joint
        Gaussian's means centred, so only this Python loop, which keeps them in the
        data's units, meets that rounding beside a large offset.)"""
        slack = 0.0
        for _, mu, var in self._gaussian_params(state):
            slack += float(np.sum((4.0 * np.spacing(np.abs(mu))) ** 2 / (2.0 * var)))
        for params in state.block_params:
            if "cov" in params:
                cov = np.asarray(params["cov"], dtype=float)
                try:
                    precision = np.diagonal(np.linalg.inv(cov), axis1=-2, axis2=-1)
                except np.linalg.LinAlgError:  # refused by the estimate's own check
                    continue
                step = 4.0 * np.spacing(np.abs(np.asarray(params["mu"], dtype=float)))
                slack += float(np.sum(np.sum(step * np.sqrt(precision), axis=-1) ** 2) / 2.0)
        return self.total_weight * slack

    def run(
        self, state: _State, max_iter: int, tol: float, restart: int, accelerate: bool = True
    ) -> _Run:
        """Iterate M-step and sweep from ``state``; one sweep reads the data once.

        Plain EM takes one M-step and one sweep per iteration. Accelerated EM
        (SQUAREM, Varadhan and Roland 2008, step length S3) runs in cycles: two EM
        steps from the cycle's start, an extrapolation along them in unconstrained
        coordinates (:func:`_extrapolate`), accepted only when its objective is at
        least that of the first EM step (else the second EM step is taken instead),
        then one EM step from the accepted point. Every accepted point is one entry of
        the history, which is checked to increase (:func:`_check_increase`).
        Convergence: :func:`_converged` on the objective at the end of every
        iteration (plain) or cycle (accelerated), against ``tol`` per row.

        When every block has compiled pieces (:attr:`compiled`), the loop runs in
        compiled code (:mod:`bayesnb._em_loop`); the Python loop
        (:meth:`_run_python`) runs otherwise, and for a restart the compiled loop
        stopped at something irregular (a row of likelihood 0, an undefined estimate, a
        decrease), whose error it then raises.
        """
        return self.run_many([state], max_iter, tol, restart, accelerate)[0]

    def run_many(
        self, states: list, max_iter: int, tol: float, first: int, accelerate: bool = True
    ) -> list:
        """:meth:`run` from every state of ``states`` (restarts ``first``, ``first +
        1``, ...). In the compiled loop the restarts advance together, each as it
        would alone, and each run's ``seconds`` is its share of the loop's time, in
        proportion to its sweeps; a restart the loop stops at something irregular
        runs again in the Python loop (:meth:`_run_python`), which says what it was."""
        if self.compiled is None:
            return [
                self._run_python(s, max_iter, tol, first + i, accelerate)
                for i, s in enumerate(states)
            ]
        start = time.perf_counter()
        outs = self.compiled.run_many(states, max_iter, tol, accelerate)
        seconds = time.perf_counter() - start
        sweeps = sum(out[-1] for out in outs if out is not None) or 1
        runs: list = []
        for i, out in enumerate(outs):
            if out is None:
                runs.append(self._run_python(states[i], max_iter, tol, first + i, accelerate))
                continue
            state, history, loglik, row_ll, resp, converged, n_sweeps = out
            seconds_i = seconds * n_sweeps / sweeps
            runs.append(_Run(state, history, loglik, row_ll, resp, converged, seconds_i, n_sweeps))
        return runs

    def _run_python(
        self, state: _State, max_iter: int, tol: float, restart: int, accelerate: bool
    ) -> _Run:
        """:meth:`run` in Python, a sweep and an M-step at a time."""
        start = time.perf_counter()
        buffers = self._buffers()  # reused by every sweep
        sweep = self.sweep(state, buffers)
        history = [sweep.objective]
        checkpoints = [sweep.objective]
        n_sweeps = 1
        converged = False
        step_max = 1.0
        rates: list = []  # the EM map's rate observed in every SQUAREM cycle
        target = tol * self.total_weight

        self.check_resolution(state)
        slack = [self.resolution_slack(state)]
        accepted = [state]  # the state of the last accepted point, which ``sweep`` swept

        def accept(new_sweep: _Sweep, at: _State) -> None:
            history.append(new_sweep.objective)
            slack.append(self.resolution_slack(at))
            try:
                _check_increase(history, self.n, len(history) - 1, restart, max(slack[-2:]))
            except MonotonicityError as err:
                flat = _nearly_flat(at)
                if flat is None:
                    raise
                raise _CollapseError(  # a decrease of lost digits, not of the M-step
                    f"EM restart {restart}, iteration {len(history) - 1}: {flat}"
                ) from err
            accepted[0] = at

        failure = None
        try:
            while len(history) - 1 < max_iter:
                iteration = len(history)
                if not accelerate or max_iter - (len(history) - 1) < 3:
                    state = self._m_step(sweep, restart, iteration)
                    sweep = self.sweep(state, buffers)
                    n_sweeps += 1
                    accept(sweep, state)
                    checkpoints.append(sweep.objective)
                    if _converged(checkpoints, target):
                        converged = True
                        break
                    continue
                # One SQUAREM cycle from theta0 = state.
                theta0, start_objective = state, sweep.objective
                theta1 = self._m_step(sweep, restart, iteration)
                sweep = self.sweep(theta1, buffers)
                n_sweeps += 1
                accept(sweep, theta1)
                first_objective = sweep.objective
                gain = first_objective - start_objective
                if gain <= _FIXED_POINT_ULPS * np.spacing(abs(start_objective)):  # a fixed point
                    state = theta1
                    converged = True
                    break
                theta2 = self._m_step(sweep, restart, iteration + 1)
                theta_x, alpha, rate = _extrapolate(self, theta0, theta1, theta2, step_max)
                rates.append(rate)
                trial = None
                if theta_x is not theta2:
                    trial = self._try(theta_x, buffers, first_objective)
                    n_sweeps += 1
                if trial is None and theta_x is not theta2:  # it would lower the objective
                    step_max = max(1.0, step_max / _STEP_FACTOR)
                elif alpha <= -step_max:  # the step length reached its bound: let it grow
                    step_max *= _STEP_FACTOR
                if trial is None:
                    sweep, theta_next = self.sweep(theta2, buffers), None
                    n_sweeps += 1
                else:
                    sweep, theta_next = trial
                accept(sweep, theta2 if trial is None else theta_x)
                accepted_objective = sweep.objective
                # The stabilizing EM step from the accepted point.
                state = (
                    theta_next
                    if theta_next is not None
                    else self._m_step(sweep, restart, len(history))
                )
                sweep = self.sweep(state, buffers)
                n_sweeps += 1
                accept(sweep, state)
                cycle_gain = sweep.objective - start_objective
                if _converged_cycle(
                    cycle_gain, sweep.objective - accepted_objective, rates, target
                ):
                    converged = True
                    break
        except _CollapseError as err:  # a component collapsed: stop at the last point
            state, converged, failure = accepted[0], False, err  # ``sweep`` swept it
        return _Run(
            state,
            history,
            sweep.log_likelihood,
            sweep.row_ll,
            sweep.resp,
            converged,
            seconds=time.perf_counter() - start,
            n_sweeps=n_sweeps,
            failure=failure,
        )

    def _buffers(self):
        """The arrays every sweep of :meth:`_run_python` fills: (K, n) responsibilities
        and (n,) row log-likelihoods."""
        return np.empty((self.K, self.n)), np.empty(self.n)

    def _try(self, theta: _State, buffers, floor: float):
        """The sweep at an extrapolated ``theta`` and the EM step from it, or None when
        the objective there falls below ``floor``, is not finite, or the step fails."""
        try:
            sweep = self.sweep(theta, buffers)
            if not (np.isfinite(sweep.objective) and sweep.objective >= floor):
                return None
            return sweep, self.estimate(sweep.stats, sweep.class_counts, theta)
        except (ValueError, FloatingPointError):
            return None

    # -- saddle points ----------------------------------------------------------------------
    def coinciding(self, state: _State) -> bool:
        """Whether two components have the same parameters (to ``_SAME``): a point of
        the subspace EM maps to itself, where it may stop at a saddle."""
        if self.K < 2:
            return False
        rows = np.concatenate(
            [np.reshape(part, (self.K, -1)) for part in _component_parts(self, state)], axis=1
        )
        rows = np.where(np.isfinite(rows), rows, 0.0)
        for k in range(self.K):
            gaps = np.abs(rows[k + 1 :] - rows[k]).max(axis=1, initial=0.0)
            if np.any(gaps <= _SAME):
                return True
        return False

    def probe(self, run: _Run, max_iter: int, tol: float, restart: int, accelerate: bool):
        """EM from the converged ``run``'s responsibilities, slightly perturbed (a seeded
        random factor ``exp(0.1 u)``, u standard normal, on every responsibility).

        Returns the probe's run when its objective rose above the run's beyond
        round-off and ``tol`` (the point was a saddle), else None.
        """
        rng = np.random.default_rng([restart, 20080101])
        resp = run.resp * np.exp(_PROBE_SCALE * rng.standard_normal(run.resp.shape))
        resp /= resp.sum(axis=0)
        state = self.estimate(*self.statistics(self.fix_known(resp), run.state))
        probe = self.run(state, max_iter, tol, restart, accelerate)
        if probe.failure is not None:  # a component collapsed on the way: no maximum found
            return None
        top = run.history[-1]
        if probe.history[-1] > top + _saddle_slack(top, self.n, tol * self.total_weight):
            return probe
        return None


#: Components whose parameters (log-probabilities, standardized means, log-variances)
#: differ by at most this much coincide.
_SAME = 1e-6
#: The scale of the perturbation that probes a stopping point for a saddle.
_PROBE_SCALE = 0.1


def _saddle_slack(objective: float, n: int, target: float) -> float:
    """How far above a stopping point a probe must climb to show it was a saddle:
    beyond round-off and the convergence tolerance."""
    return 1e-9 * (abs(objective) + n) + target


def _converged(checkpoints: list, target: float) -> bool:
    """Whether the objective, observed at ``checkpoints``, is within ``target`` of its
    limit.

    The last gain g and the ratio of successive gains rho (the larger of the last two
    ratios) extrapolate the remaining gains as a geometric series (Aitken's delta-squared):
    the limit lies about ``g / (1 - rho)`` above the previous checkpoint, and EM stops
    when that is at most ``target``. A gain of 0 (or below, by round-off) is a fixed
    point; gains that do not shrink (rho >= 1) are not converging yet. Slow progress
    (rho near 1) thus does not stop EM, unlike a bound on the last gain alone.

    One rule for both engines: the compiled loop's (:func:`bayesnb._em_loop._converged`).
    """
    values = np.asarray(checkpoints[-4:], dtype=float)
    return bool(_em_loop._converged(values, len(values), target))


def _converged_cycle(cycle_gain: float, em_gain: float, rates: list, target: float) -> bool:
    """Whether an accelerated run is within ``target`` of its limit after a cycle.

    The cycle's objective gain must be at most ``target``, and so must the remaining
    gain extrapolated from the last EM step's gain ``em_gain``: near the optimum EM
    contracts by a factor lambda per step, so its successive gains shrink by rho =
    lambda^2, and ``em_gain / (1 - rho)`` bounds what is left (Aitken, with the rate
    read off the parameters, since the cycles' extrapolations make the objective's own
    ratios irregular). The rate observed in one cycle depends on how the step lines up
    with EM's slowest direction, so lambda is the largest of the last
    ``_RATE_WINDOW`` cycles'.

    One rule for both engines: the compiled loop's
    (:func:`bayesnb._em_loop._converged_cycle`).
    """
    values = np.asarray(rates[-_RATE_WINDOW:], dtype=float)
    return bool(_em_loop._converged_cycle(cycle_gain, em_gain, values, len(values), target))


def _component_parts(problem: _Problem, state: _State, scales=None) -> list[np.ndarray]:
    """The parameters of ``state`` in unconstrained coordinates, component first:
    log-probabilities, means in units of ``scales`` (per Gaussian block; default: the
    square root of the mean variance over the components) and log-variances."""
    parts = []
    for i, params in enumerate(state.block_params):
        block = problem.blocks[i]
        if hasattr(block, "unconstrained"):  # a family with coordinates of its own
            parts.extend(block.unconstrained(params, None if scales is None else scales[i]))
        elif "log_prob" in params:
            parts.append(params["log_prob"])
        else:
            var = params["var"]
            scale = np.sqrt(var.mean(axis=0)) if scales is None else scales[i]
            parts.append(params["mu"] / scale)
            parts.append(np.log(var))
    return parts


def _extrapolate(problem: _Problem, theta0: _State, theta1: _State, theta2: _State, step_max):
    """SQUAREM's extrapolated point from two EM steps, its step length alpha, and the
    EM map's observed rate ``|theta2 - theta1| / |theta1 - theta0|``.

    With r = theta1 - theta0 and v = theta2 - 2 theta1 + theta0 in unconstrained
    coordinates (log-probabilities of the component weights and of every discrete
    feature, Gaussian means over their scale, log-variances), the S3 step length
    ``alpha = -|r| / |v|``, bounded to ``[-step_max, -1]``, gives
    ``theta0 - 2 alpha r + alpha^2 v``; alpha = -1 is ``theta2`` itself. Every
    distribution is then normalized again (a log-sum-exp over its categories), and an
    entry that is not finite in one of the three points (a probability 0) keeps its
    value in ``theta2``.
    """
    scales = [
        b.unconstrained_scale(p)
        if hasattr(b, "unconstrained")
        else (np.sqrt(p["var"].mean(axis=0)) if "var" in p else None)
        for b, p in zip(problem.blocks, theta0.block_params, strict=True)
    ]

    def vector(state):
        parts = [state.class_log_prob, *_component_parts(problem, state, scales)]
        return np.concatenate([np.ravel(p) for p in parts])

    x0, x1, x2 = vector(theta0), vector(theta1), vector(theta2)
    finite = np.isfinite(x0) & np.isfinite(x1) & np.isfinite(x2)
    with np.errstate(invalid="ignore"):  # -inf - -inf where a probability is 0: masked
        r = np.where(finite, x1 - x0, 0.0)
        v = np.where(finite, x2 - 2.0 * x1 + x0, 0.0)
    sr, sv = float(np.sqrt(r @ r)), float(np.sqrt(v @ v))
    second = r + v  # theta2 - theta1
    rate = float(np.sqrt(second @ second)) / sr if sr > 0.0 else 0.0
    if not (sv > 0.0 and np.isfinite(sr / sv)):
        return theta2, -1.0, rate
    alpha = min(-1.0, max(-sr / sv, -step_max))
    if alpha == -1.0:
        return theta2, alpha, rate
    x = np.where(finite, x0 - 2.0 * alpha * r + alpha * alpha * v, x2)
    if not np.all(np.isfinite(x[finite])):
        return theta2, -1.0, rate
    return _from_vector(problem, x, theta2, scales), alpha, rate


def _from_vector(problem: _Problem, x: np.ndarray, like: _State, scales: list) -> _State:
    """The state whose unconstrained coordinates are ``x`` (laid out as in
    :func:`_extrapolate`), every distribution normalized again."""
    at = 0

    def take(shape):
        nonlocal at
        size = math.prod(shape)
        out = x[at : at + size].reshape(shape)
        at += size
        return out

    class_log_prob = _log_normalized(take(like.class_log_prob.shape), None)
    block_params = []
    for block, params, scale in zip(problem.blocks, like.block_params, scales, strict=True):
        if hasattr(block, "unconstrained"):
            block_params.append(block.from_unconstrained(take, params, scale))
        elif "log_prob" in params:
            logp = take(params["log_prob"].shape)
            block_params.append({"log_prob": _log_normalized(logp, block._segments())})
        else:
            mu = take(params["mu"].shape) * scale
            block_params.append({"mu": mu, "var": np.exp(take(params["var"].shape))})
    return _State(block_params, class_log_prob)


def _log_normalized(logp: np.ndarray, segments) -> np.ndarray:
    """``logp`` minus the log-sum-exp of every distribution on its last axis (of every
    segment of it, when ``segments`` gives their starts)."""
    top = np.max(logp, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        p = np.exp(logp - top)
        if segments is None:
            total = p.sum(axis=-1, keepdims=True)
        else:
            sizes = np.diff(np.append(segments, logp.shape[-1]))
            total = np.repeat(np.add.reduceat(p, segments, axis=-1), sizes, axis=-1)
        return logp - top - np.log(total)


#: A joint Gaussian component whose correlation matrix has an eigenvalue below this
#: lies nearly on a lower-dimensional set: its densities have lost about half their
#: digits (see :func:`_nearly_flat`).
_FLAT_CORRELATION = 1e-8


def _nearly_flat(state: _State) -> str | None:
    """Why a component of ``state`` is collapsing, if one is: a joint Gaussian whose
    own correlation matrix is nearly singular (smallest eigenvalue below
    :data:`_FLAT_CORRELATION`), which happens to the maximum-likelihood estimate when
    a component shrinks onto a line or a plane (with missing values, along a column
    seen in few rows). A decrease of EM's objective there is the densities' lost
    digits, and the restart is set aside as collapsed; None otherwise."""
    for params in state.block_params:
        if "cov" not in params:
            continue
        cov = np.asarray(params["cov"], dtype=float)
        cov = cov.reshape(-1, *cov.shape[-2:])
        for k, c in enumerate(cov):
            sd = np.sqrt(np.diagonal(c))
            if not np.all(sd > 0):
                return f"component {k} has a covariance without spread in some column"
            low = float(np.linalg.eigvalsh(c / np.outer(sd, sd))[0])
            if low < _FLAT_CORRELATION:
                return (
                    f"component {k} is collapsing onto a lower-dimensional set: its "
                    f"covariance's correlation matrix has the eigenvalue {low:.3g}, so its "
                    "densities have lost their digits (estimate='ml' has no maximum "
                    "there; the default estimate='map' keeps the covariance definite)"
                )
    return None


def _check_increase(
    history: list, n: int, iteration: int, restart: int, resolution: float = 0.0
) -> None:
    """Raise :class:`MonotonicityError` when the objective fell beyond round-off (of the
    sums, plus ``resolution``, what the rounding of the parameters alone may move)."""
    previous, current = history[-2], history[-1]
    slack = 1e-9 * (abs(previous) + n) + resolution
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
    values = _label_series(y)
    _check_label_count(values, n)
    missing = values.isna().to_numpy()
    codes = pd.Index(labels).get_indexer(values.where(~missing)).astype(np.intp)
    stray = (codes < 0) & ~missing
    if stray.any():
        raise InputError(
            f"y has the label {values[stray].iloc[0]!r}, which is not among the components "
            f"{labels!r}. Give n_components as the list of every label."
        )
    return np.where(missing, -1, codes)


def _check_label_count(values: pd.Series, n: int) -> None:
    if len(values) != n:
        raise InputError(
            f"y has {len(values)} entries for {n} rows of X; give one label per row (None "
            "or NaN where a row's component is unknown)."
        )


def _label_series(y) -> pd.Series:
    """``y`` as an object Series: a missing label (NaN, None, pd.NA, NaT) stays missing."""
    if isinstance(y, pd.Series):
        return pd.Series(y.to_numpy(dtype=object, na_value=None))
    if isinstance(y, pd.api.extensions.ExtensionArray | pd.Index):
        return pd.Series(np.asarray(y, dtype=object))
    if isinstance(y, pd.DataFrame) or np.ndim(y) != 1:
        raise InputError(
            f"y must hold one label per row of X (one dimension); got "
            f"{type(y).__name__} of shape {np.shape(y)}. Give a list, array or Series, "
            "with a missing value (None, NaN) for a row whose component is unknown."
        )
    return pd.Series(np.asarray(y, dtype=object))


def _sorted_labels(known: pd.Series) -> list:
    """The distinct known labels of ``y``, sorted."""
    distinct = pd.unique(known).tolist()
    try:
        return sorted(distinct)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in distinct})
        raise InputTypeError(
            f"y mixes labels of types {kinds} (e.g. {distinct[:4]!r}), which cannot be "
            "ordered into components. Give labels of one type, or give n_components as "
            "the list of every component name."
        ) from None


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
    estimate: str | None = None,
    class_estimate: str | None = None,
    init="kmeans",
    n_init: int | None = None,
    max_iter: int = DEFAULT_MAX_ITER,
    tol: float = DEFAULT_TOL,
    accelerate: bool = True,
    sample_weight=None,
    random_state=None,
    feature_names=None,
    sampler: str | None = None,
    draws: int | None = None,
    chains: int | None = None,
    tune: int | None = None,
    hard: bool = False,
    persist: bool | None = None,
) -> MixtureFit:
    """Cluster ``X`` with the naive Bayes mixture declared by ``model`` (Autoclass).

    Usually called as ``model.cluster(X, ...)``.

    Parameters
    ----------
    model : NaiveBayes
        The declaration: one family (with its prior) per feature and the Dirichlet
        prior of the component weights.
    X : DataFrame, ndarray or sparse matrix
        The features only. Missing values (NaN/None) are marginalized exactly. A Dask
        DataFrame or array runs EM partition by partition (:func:`bayesnb.dask.cluster`,
        where the options that differ are described).
    n_components : int or list, default 2
        The number of components K, or their names (a list; a string is not taken
        for a list of names). ``None`` takes them from ``init`` parameters.
    y : array_like, optional
        Semi-supervised fitting: the known component of each row; a missing label
        (NaN, None, ``pd.NA``) means the row's component is unknown. Known rows keep
        their component in every E-step. With an int ``n_components`` the components
        are the sorted known labels.
    method : {"em", "mcmc"}
        ``"em"``: expectation-maximization. ``"mcmc"``: EM first (with every EM
        option here), then Markov chain Monte Carlo from the EM fit, its draws
        relabelled to it (see :mod:`bayesnb.mcmc`); returns a
        :class:`bayesnb.mcmc.MCMCMixtureFit`.
    sampler : {"gibbs", "nuts", "nutpie"}, optional
        With ``method="mcmc"`` only: the conjugate blocked Gibbs sampler (default,
        the fast one), or NUTS on the PyMC model of the declaration (``"nutpie"``:
        NUTS by nutpie, an optional dependency).
    draws, chains, tune : int, optional
        With ``method="mcmc"`` only: kept draws per chain (default 1000), chains (4),
        and discarded warm-up draws per chain. ``tune`` unset: 1000 for NUTS,
        which adapts its step size and mass matrix then; 200 for the Gibbs sampler,
        which has nothing to adapt and starts at the EM fit, in the posterior's bulk,
        so its warm-up is only a burn-in. Giving any of ``sampler``, ``draws``,
        ``chains`` or ``tune`` with ``method="em"`` is an error (EM would not use
        them).
    estimate : {None, "mean", "map", "ml"}
        M-step estimator for every feature without its own ``estimate``. ``None``
        (default) chooses per family: ``"mean"`` for discrete features (Bernoulli,
        Categorical, Binned, Multinomial under their Dirichlet/Beta prior) and
        ``"map"`` for Gaussian ones (the Normal-Inverse-Gamma mode, whose variance is
        never 0). ``"mean"``, the posterior mean of a Dirichlet(alpha), is the
        posterior mode under Dirichlet(alpha + 1), so EM maximizes the objective with
        that prior's log density and stays monotone; it gives smoothed probabilities,
        never 0. A Gaussian feature cannot take ``"mean"`` (its posterior mean
        variance maximizes nothing EM measures): use ``"map"``. ``"map"``: the
        posterior mode under the declared priors (MAP-EM). ``"ml"``: maximum
        likelihood.
    class_estimate : {"mean", "map", "ml"}, optional
        Estimator of the component weights; default ``estimate``, or ``"mean"`` when
        ``estimate`` is None (the mode under the class prior's Dirichlet(alpha + 1)).
    init : str, ndarray, Dataset, dict or fitted model
        One of "kmeans", "k-means++", "random", "assign" and "uniform", or a start.
        ``"kmeans"`` (default): k-means (scikit-learn's, from k-means++ seeds) on the
        rows' features (standardized Gaussian columns, 0/1, categories one-hot, word
        proportions: :meth:`~bayesnb.families.Family.seed_features`), every row
        starting in its cluster's component, as scikit-learn's ``GaussianMixture``
        starts. ``"k-means++"``: every row in its nearest k-means++ seed's component
        (no Lloyd iterations). ``"random"``: random responsibilities plus one heavy
        random seed row per component, a random asymmetric start. ``"assign"``: seed
        003's recipe, every row in a component chosen at random (each component
        given at least one row), then an M-step. ``"uniform"``: every
        component equal to the whole data, the symmetric saddle point that EM cannot
        leave (for teaching: the fit warns and reports ``saddle=True``). An (n, K)
        array: starting responsibilities (rows summing to 1). Parameters in the
        layout of :attr:`MixtureFit.params` (an ``xarray.Dataset`` or a dict with
        ``class_prob`` and one entry per feature, one per column of a Categorical or
        Binned block), or a fitted model of the same declaration: the starting
        parameters.
    n_init : int, optional
        Restarts, each from its own random start (``"kmeans"``, ``"k-means++"``,
        ``"random"`` or ``"assign"``); the fit with the highest final objective is
        returned and every restart stays in :attr:`MixtureFit.restarts`. Default: 5,
        where restarts are cheap (``X`` of at most :data:`AUTO_RESTART_ENTRIES` entries, rows times
        columns, or ``init="random"`` or ``"assign"``), else 1 (as scikit-learn's
        ``GaussianMixture``); 1 from a start that is not random (``"uniform"``, or a
        start given). A restart in which a component collapses (under
        ``estimate="ml"``, where the likelihood grows without bound) is set aside: it
        stays in :attr:`MixtureFit.restarts` with its ``failure``, a
        ``ConvergenceWarning`` says why, and the best of the others is returned; only
        when every restart collapses is it an error.
    max_iter : int, default 2000
        EM steps (one M-step and one sweep over the data each, counting accelerated
        points) per restart. Reaching it without converging raises a
        ``ConvergenceWarning``.
    tol : float, default 1e-8
        Convergence when the objective's remaining gain, extrapolated from its last
        gains (Aitken's delta-squared: the last gain over one minus the ratio of
        successive gains), is at most ``tol`` per row. Slow progress therefore does
        not stop EM early.
    accelerate : bool, default True
        SQUAREM (Varadhan and Roland, 2008): extrapolate along two EM steps, keep the
        extrapolated point only when it does not lower the objective, then take one EM
        step from it. The objective still never decreases. ``False``: plain EM.
    sample_weight : array_like, optional
        Non-negative row weights: a row of weight 2 counts as the row twice (its
        responsibilities and its log-likelihood are multiplied by 2).
    random_state : int, numpy Generator or None
    feature_names : list, optional
        Column names for an array ``X``.
    hard : bool, default False
        Classification EM: every E-step puts each row wholly in its most probable
        component, and the objective is the classification log-likelihood
        :math:`\\sum_i \\log \\pi_{z_i} p(x_i \\mid \\theta_{z_i})` (plus the log prior),
        which both steps raise; ``log_likelihood`` is then that. With a
        ``MultivariateGaussian(covariance="tied-spherical")``, fixed equal weights
        (``class_prior=bnb.PointMass(...)``) and ``estimate="ml"``, it is k-means
        (Lloyd's algorithm).

    persist : bool, optional
        Dask only (an error for ``X`` in memory): keep every partition encoded on its
        worker between sweeps (True, the default); False reads the partitions again at
        every sweep (data beyond the cluster's memory).

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
    expected statistics, e.g. :math:`E[N_k] = \\sum_i w_i r_{ik}` and
    :math:`E[N_{kjv}] = \\sum_{i: x_{ij} = v} w_i r_{ik}` (weights :math:`w_i`, 1
    by default). The objective is the log-likelihood
    :math:`\\sum_i w_i \\log\\sum_k \\pi_k p(x_i \\mid \\theta_k)`, plus
    :math:`\\log p(\\theta)` of the priors of the MAP-estimated parts and of the
    Dirichlet(alpha + 1) priors of the mean-estimated parts; EM never decreases it.
    Known rows (``y``) contribute :math:`\\log \\pi_{y_i} p(x_i \\mid \\theta_{y_i})`
    instead.

    After convergence, a stopping point where two components coincide is probed
    with slightly perturbed responsibilities: when EM then climbs above it, it was
    a saddle. A random restart leaves it (EM goes on from the perturbed point);
    any other start is reported with ``saddle=True``, ``converged=False`` and a
    ``ConvergenceWarning``.

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
    if method not in ("em", "mcmc"):
        raise InputError(
            f"method must be 'em' (expectation-maximization) or 'mcmc' (Markov chain Monte "
            f"Carlo); got {method!r}."
        )
    if method == "mcmc":
        from bayesnb.mcmc import check_options

        sampler, draws, chains, tune = check_options(sampler, draws, chains, tune)
    else:
        _refuse_mcmc_options(sampler=sampler, draws=draws, chains=chains, tune=tune)
    for name, value in (("estimate", estimate), ("class_estimate", class_estimate)):
        if value is not None and not isinstance(value, str):
            raise InputTypeError(
                f"{name} must be None, 'mean', 'map' or 'ml' for EM; got {value!r} "
                f"({type(value).__name__}). Leave it unset for the per-family default."
            )
        if value is not None and value not in EM_ESTIMATES:
            why = (
                " EM's M-step must maximize its objective, and the posterior predictive does not."
                if value == "predictive"
                else ""
            )
            raise InputError(
                f"{name} must be None, 'mean', 'map' or 'ml' for EM (lower case); got "
                f"{value!r}.{why} Leave it unset for the per-family default."
            )
    random_start = isinstance(init, str) and init in RANDOM_INITS
    if n_init is not None:
        n_init = _check_count("n_init", n_init)
    max_iter = _check_count("max_iter", max_iter)
    tol = _check_tol(tol)
    if not isinstance(accelerate, bool | np.bool_):
        raise InputTypeError(f"accelerate must be True or False; got {accelerate!r}.")
    if not isinstance(hard, bool | np.bool_):
        raise InputTypeError(f"hard must be True or False; got {hard!r}.")
    if hard and method != "em":
        raise InputError("hard=True (classification EM) is an EM option; use method='em'.")
    if method == "mcmc" and isinstance(model.class_prior, PointMass):
        raise InputError(
            f"MCMC with fixed class probabilities ({model.class_prior!r}) is not built: "
            "the samplers draw the component weights from a Dirichlet. Give "
            "class_prior=bnb.Dirichlet(...) (or None), or use method='em'."
        )
    rng = random_generator(random_state)
    if isinstance(init, str) and init not in INITS:
        raise InputError(
            f"init must be one of {', '.join(map(repr, INITS))}, an (n, K) array of "
            f"responsibilities, parameters or a fitted model; got {init!r}. Leave it unset "
            "for 'kmeans' (the default)."
        )
    if not isinstance(init, str | np.ndarray | dict | xr.Dataset | FittedModel):
        raise InputTypeError(
            f"init must be one of {', '.join(map(repr, INITS))}, an (n, K) numpy array of "
            "responsibilities, parameters (an xarray.Dataset or dict) or a fitted model; got "
            f"{type(init).__name__}. Leave it unset for 'kmeans' (the default), or wrap "
            "responsibilities in np.asarray."
        )
    given_start = not random_start
    if given_start and n_init not in (None, 1):
        raise InputError(
            f"n_init={n_init} restarts need random starts, but init={_describe(init)} is "
            "deterministic. Use n_init=1, or init='random'."
        )
    if persist is not None and not is_dask(X):
        raise InputError(
            f"persist={persist!r} is an option of clustering a Dask collection (whether its "
            f"partitions stay encoded on the workers), and X is in memory "
            f"({type(X).__name__}). Leave persist out."
        )
    if is_dask(X):
        if method != "em":
            raise InputError(
                "method='mcmc' on a Dask collection is not built: the samplers keep every "
                "row's component. Use method='em', or sample a subset in memory."
            )
        from bayesnb import dask as on_dask

        return on_dask.cluster(
            model,
            X,
            n_components,
            y=y,
            estimate=estimate,
            class_estimate=class_estimate,
            init=init,
            n_init=n_init,
            max_iter=max_iter,
            tol=tol,
            accelerate=accelerate,
            sample_weight=sample_weight,
            rng=rng,
            feature_names=feature_names,
            hard=hard,
            persist=True if persist is None else persist,
        )

    table = Table(X, feature_names=feature_names)
    large = table.n_rows * len(table.names) > AUTO_RESTART_ENTRIES
    if n_init is None:  # restarts where they are cheap, as scikit-learn's one beyond
        n_init = 1 if given_start or (large and init not in ("random", "assign")) else 5
    weights = check_sample_weight(sample_weight, table.n_rows)
    labels = mixture_labels(n_components, y, init, table.n_rows)
    if not given_start and len(labels) > table.n_rows:
        raise InputError(
            f"n_components={len(labels)} exceeds the {table.n_rows} rows of X; use at most "
            "one component per row."
        )
    known = None if y is None else _known_codes(y, labels, table.n_rows)
    problem = _Problem(model, table, labels, estimate, class_estimate, known, weights, hard)

    with _one_thread(table, init):
        fits, best = _run_restarts(problem, init, n_init, rng, large, max_iter, tol, accelerate)
    if method == "mcmc":
        from bayesnb.mcmc import sample_mixture

        return sample_mixture(problem, fits[best], sampler, draws, chains, tune, rng)
    return fits[best]


def _refuse_mcmc_options(**given) -> None:
    """Raise naming the MCMC options (``sampler``, ``draws``, ``chains``, ``tune``)
    given with ``method="em"``, which EM would not use."""
    named = {name: value for name, value in given.items() if value is not None}
    if named:
        listed = ", ".join(f"{name}={value!r}" for name, value in named.items())
        raise InputError(
            f"{listed}: MCMC option(s), which method='em' (the default) does not use. Give "
            f"method='mcmc' to sample the posterior after EM, or leave "
            f"{', '.join(named)} out."
        )


def _one_thread(table: Table, init):
    """A context in which a small problem's k-means start and EM (numpy's BLAS and
    scikit-learn's OpenMP) run on one thread: on a few thousand rows the threads cannot
    share the work out, and when the machine is busy they wait for each other (a
    clustering of 272 rows took 3-14 times longer with two threads than with one on
    a two-core machine running one other process). Larger problems keep the threads
    as they are set."""
    if table.n_rows * len(table.names) > ONE_THREAD_ENTRIES:
        return contextlib.nullcontext()
    from threadpoolctl import ThreadpoolController

    if isinstance(init, str) and init in ("kmeans", "k-means++"):
        import sklearn.cluster  # noqa: F401  (its OpenMP library, limited too)
    key = "sklearn.cluster" in sys.modules
    controller = _CONTROLLERS.get(key)
    if controller is None:  # inspecting the loaded libraries takes milliseconds: once
        controller = _CONTROLLERS[key] = ThreadpoolController()
    return controller.limit(limits=1)


#: The thread-pool controllers of :func:`_one_thread`, made once: before and after
#: scikit-learn's k-means (and its OpenMP library) is imported.
_CONTROLLERS: dict = {}


def _run_restarts(problem, init, n_init, rng, large, max_iter, tol, accelerate):
    """Every restart's fit and the best one's index (:func:`_restart_fits`), each
    restart from its own start drawn in turn from ``rng``."""
    table = problem.table
    states = []
    for _ in range(n_init):
        if isinstance(init, str):
            if init == "kmeans":  # large X (one restart by default): the best of several
                # seedings; else (restarts by default) one each, so that they start apart
                start = problem.kmeans_weights(rng, seedings=KMEANS_INITS if large else 1)
            elif init == "k-means++":
                start = problem.kmeans_weights(rng, lloyd=False)
            elif init == "assign":
                start = problem.assigned_weights(rng)
            elif init == "random":
                start = problem.random_weights(rng)
            else:
                start = problem.uniform_weights()
            state = problem.estimate(*problem.statistics(start))
        elif isinstance(init, np.ndarray):
            start = problem.fix_known(_check_resp(init, table.n_rows, problem.K))
            state = problem.estimate(*problem.statistics(start))
        else:
            state = _State(*start_params(problem.blocks, problem.K, init))
        states.append(state)
    given_start = not (isinstance(init, str) and init in RANDOM_INITS)
    runs = [
        _leave_saddles(problem, run, max_iter, tol, restart, accelerate, given_start)
        for restart, run in enumerate(problem.run_many(states, max_iter, tol, 0, accelerate))
    ]
    return _restart_fits(problem, runs, init, max_iter, tol)


def _restart_fits(problem: _Problem, runs: list, init, max_iter: int, tol: float):
    """Every restart's fit and the best one's index, with the warnings a stalled
    restart, a saddle or a collapsed restart calls for.

    A restart whose M-step failed (a component collapsed: :class:`_CollapseError`) is
    set aside: it stays in ``restarts`` with its ``failure``, and the best of the others
    is returned, with a ``ConvergenceWarning`` saying how many collapsed and why. When
    every restart collapsed there is no fit, and that is an error.
    """
    fits = [MixtureFit._from_run(problem, run, init=_describe(init)) for run in runs]
    failed = [i for i, f in enumerate(fits) if f.failure is not None]
    ml = "ml" in (problem.estimates["class"], *problem.estimates["features"].values())
    remedy = (
        " Under estimate='ml' the likelihood grows without bound where a component "
        "collapses: leave estimate unset or give estimate='map' (for Gaussian features "
        "the default), whose priors keep every component spread, or fit fewer components."
        if ml
        else " Fit fewer components, or follow the remedy above."
    )
    if len(failed) == len(fits):
        which = "its only restart" if len(fits) == 1 else f"every one of its {len(fits)} restarts"
        raise InputError(
            f"EM failed in {which}, so there is no fit to return: {runs[0].failure}{remedy}"
        ) from runs[0].failure
    best = max((i for i in range(len(fits)) if i not in failed), key=lambda i: fits[i].objective)
    for fit in fits:
        fit.restarts = fits
        fit.best_restart = best
    stalled = [
        i for i, f in enumerate(fits) if not f.converged and not f.saddle and f.failure is None
    ]
    if failed or stalled or fits[best].saddle:
        from sklearn.exceptions import ConvergenceWarning  # imported when it is needed
    if failed:
        warnings.warn(
            f"EM set aside {len(failed)} of {len(fits)} restarts, where a component "
            f"collapsed (restart {failed[0]}: {runs[failed[0]].failure}); the fit is the best "
            f"of the other {len(fits) - len(failed)}. The set-aside restarts stay in "
            f"restarts, each with its failure (restart_table() lists them).{remedy}",
            ConvergenceWarning,
            skip_file_prefixes=(_PACKAGE_DIR,),  # the user's call
        )
    if stalled:
        which = "" if fits[best].converged or fits[best].saddle else ", the best one included"
        warnings.warn(
            f"EM reached max_iter={max_iter} without converging (tol={tol:g} per row) in "
            f"{len(stalled)} of {len(fits)} restart(s){which}. Raise max_iter or tol.",
            ConvergenceWarning,
            skip_file_prefixes=(_PACKAGE_DIR,),  # the user's call
        )
    if fits[best].saddle:
        warnings.warn(
            f"EM stopped at a saddle point (init={_describe(init)}): components "
            "coincide there, and EM from slightly perturbed responsibilities climbs "
            f"above its objective {fits[best].objective:.10g}, so it is not a maximum. "
            "The fit reports converged=False and saddle=True. Start where the components "
            "differ: init='kmeans' (the default) or 'random' with several restarts "
            f"(n_init); {_saddle_start(init)}",
            ConvergenceWarning,
            skip_file_prefixes=(_PACKAGE_DIR,),  # the user's call
        )
    _warn_zeros(fits[best])
    return fits, best


def _saddle_start(init) -> str:
    """Why the saddle's start led there, for the warning."""
    if isinstance(init, str) and init == "uniform":
        return "init='uniform' starts on this symmetric saddle, which EM cannot leave."
    return "a start whose components coincide stays on the saddle."


def mixture_labels(n_components, y=None, init="random", n_rows: int | None = None) -> list:
    """The components' names: from ``n_components`` (K or the names) and ``init``, or,
    with semi-supervised labels ``y`` and an int K, the sorted known labels (which
    must then be K of them). ``y`` must have ``n_rows`` entries when that is given."""
    if y is not None and n_rows is not None:
        _check_label_count(_label_series(y), n_rows)
    if (
        y is not None
        and isinstance(n_components, int | np.integer)
        and not isinstance(n_components, bool)
    ):
        labels = _sorted_labels(_label_series(y).dropna())
        if not labels:  # every label missing: nothing is known
            return component_labels(n_components, init)
        if len(labels) != n_components:
            raise InputError(
                f"y names {len(labels)} known component(s) {labels[:10]!r} but "
                f"n_components={n_components}. Give n_components as the list of every "
                "component name."
            )
        return labels
    return component_labels(n_components, init)


def _leave_saddles(problem, run: _Run, max_iter, tol, restart, accelerate, given_start) -> _Run:
    """Probe a converged run whose components coincide (:meth:`_Problem.probe`).

    A random start at a saddle continues from the probe (its history goes on from the
    first point above the saddle's objective), at most K - 1 times; a given start is
    marked ``saddle`` and not converged instead.
    """
    for _ in range(max(1, problem.K - 1)):
        if not (run.converged and problem.coinciding(run.state)):
            return run
        probe = problem.probe(run, max_iter, tol, restart, accelerate)
        if probe is None:
            return run
        if given_start:
            run.saddle, run.converged = True, False
            run.n_sweeps += probe.n_sweeps
            return run
        top = run.history[-1]
        climbed = [h for h in probe.history if h > top]
        probe.history = run.history + climbed
        probe.n_sweeps += run.n_sweeps
        probe.seconds += run.seconds
        run = probe
    return run


def _check_count(name: str, value) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise InputTypeError(
            f"{name} must be an int >= 1; got {value!r} ({type(value).__name__}). Give a "
            f"whole number, e.g. {name}=10."
        )
    if value < 1:
        raise InputError(f"{name} must be an int >= 1; got {value!r}.")
    return int(value)


def _check_tol(tol) -> float:
    number = int | float | np.integer | np.floating
    if isinstance(tol, bool | np.bool_) or not isinstance(tol, number):
        raise InputTypeError(
            f"tol must be a finite number >= 0 (per row); got {tol!r} ({type(tol).__name__}). "
            f"Give a float such as tol={DEFAULT_TOL:g}."
        )
    if not np.isfinite(tol) or tol < 0:
        raise InputError(
            f"tol must be a finite number >= 0 (per row); got {tol!r}. Give a float such "
            f"as tol={DEFAULT_TOL:g}."
        )
    return float(tol)


def _describe(init) -> str:
    if isinstance(init, str):
        return repr(init)
    if isinstance(init, np.ndarray):
        return "responsibilities"
    return "parameters"


def _check_resp(resp, n: int, K: int) -> np.ndarray:
    resp = np.asarray(resp, dtype=float)
    if resp.shape != (n, K):
        raise InputError(
            f"init responsibilities must have shape (n_rows, n_components) = ({n}, {K}); got "
            f"{resp.shape}."
        )
    if not np.all(np.isfinite(resp)) or np.any(resp < 0):
        raise InputError("init responsibilities must be finite and >= 0.")
    sums = resp.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-8):
        row = int(np.flatnonzero(~np.isclose(sums, 1.0, atol=1e-8))[0])
        raise InputError(
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
            skip_file_prefixes=(_PACKAGE_DIR,),  # the user's call
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
        EM steps taken (accepted points after the start). ``converged`` tells whether
        ``tol`` was met.
    n_sweeps : int
        Passes over the data, including accelerated points that were tried and
        rejected and the probe of a saddle.
    saddle : bool
        True when EM stopped at a saddle it could not leave (a non-random start whose
        components coincide, such as ``init="uniform"``); ``converged`` is then False.
    responsibilities : ndarray (n, K)
        :math:`P(C_i = k \\mid x_i)` of the training rows (known rows one-hot).
    restarts : list of MixtureFit
        Every restart's fit; ``restarts[best_restart]`` is this one.
    failure : str or None
        Why EM set this restart aside: an M-step failed because a component collapsed
        onto too few rows or distinct values for its estimate (under ``estimate="ml"``
        the likelihood grows without bound there); the fit holds the parameters of the
        last point before it. None for a restart that ran to its end, as the returned
        fit always did.
    n_samples : int
        Training rows.
    total_weight : float
        Their total weight (``n_samples`` without ``sample_weight``): the sample size
        of :attr:`bic`, since a row of weight 2 counts as two rows.

    Examples
    --------
    The 16 house votes as a mixture of two components, without the party: the
    components come out close to the two parties.

    >>> import numpy as np
    >>> import pandas as pd
    >>> import bayesnb as bnb
    >>> votes = bnb.datasets.house_votes_84()
    >>> X = votes.drop(columns="party")
    >>> mix = bnb.NaiveBayes().cluster(X, 2, n_init=2, random_state=0)
    >>> mix.converged, mix.responsibilities.shape, mix.params["class_prob"].values.round(3)
    (True, (435, 2), array([0.522, 0.478]))
    >>> pd.crosstab(mix.predict(X), votes["party"], rownames=["component"])
    party      democrat  republican
    component
    0               218           8
    1                49         160
    >>> round(mix.log_likelihood, 1), round(mix.bic, 1)
    (-3105.7, 6411.9)
    >>> bool(np.all(np.diff(mix.history) >= 0))  # EM never lowers its objective
    True
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
    total_weight = None
    init = None
    seconds = None
    n_sweeps = None
    saddle = False
    failure = None
    _top_log_sum = None  # sum_i w_i log max_k r_ik over the training rows (for icl)
    #: The estimator of the whole data's parameters in a cluster report: None for each
    #: feature's own (:func:`bayesnb.cluster_reports.pooled_params`).
    pooled_estimate = None

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
            column_dtypes=problem.table.frame_dtypes(),
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
        fit.responsibilities = None if run.resp is None else np.ascontiguousarray(run.resp.T)
        if run.resp is not None and run.resp.shape[1]:  # ICL's sum, kept for a saved fit
            logs = np.log(run.resp.max(axis=0))
            w = problem.weights
            fit._top_log_sum = float(np.sum(logs if w is None else w * np.where(w > 0, logs, 0.0)))
        fit.n_samples = problem.n
        fit.total_weight = problem.total_weight
        fit.init = init
        fit.seconds = run.seconds
        fit.n_sweeps = run.n_sweeps
        fit.saddle = bool(run.saddle)
        fit.failure = None if run.failure is None else str(run.failure)
        return fit

    def __repr__(self) -> str:
        if self.log_likelihood is None:
            return f"MixtureFit(n_components={len(self.labels)})"
        return (
            f"MixtureFit(n_components={len(self.labels)}, log_likelihood="
            f"{self.log_likelihood:.6g}, n_iter={self.n_iter}, converged={self.converged})"
        )

    def restart_table(self) -> pd.DataFrame:
        """Every restart of this fit, one row each in the order they ran: its final
        ``objective`` and ``log_likelihood``, ``gap`` (its objective minus the best
        one, 0 for the restarts that reached it), ``n_iter``, ``n_sweeps``,
        ``converged``, ``saddle``, ``failure`` (why EM set the restart aside, a
        component having collapsed; empty for the others, whose gap alone is defined)
        and ``best`` for the restart this fit is. How many restarts share the best
        objective shows how hard the optimum is to reach; a spread of gaps shows the
        local optima.

        A fit without restarts (one loaded from a file, say) is a table of itself.

        Examples
        --------
        >>> import bayesnb as bnb
        >>> X = bnb.datasets.house_votes_84().drop(columns="party")
        >>> mix = bnb.NaiveBayes().cluster(X, 3, init="random", n_init=4, random_state=0)
        >>> table = mix.restart_table()
        >>> len(table), bool(table["gap"].max() == 0.0), bool((table["gap"] <= 0).all())
        (4, True, True)
        """
        self._need_fit("restart_table")
        fits = self.restarts or [self]
        best = max(fit.objective for fit in fits if fit.failure is None)
        table = pd.DataFrame(
            {
                "objective": [fit.objective for fit in fits],
                "log_likelihood": [fit.log_likelihood for fit in fits],
                "gap": [np.nan if fit.failure else fit.objective - best for fit in fits],
                "n_iter": [fit.n_iter for fit in fits],
                "n_sweeps": [fit.n_sweeps for fit in fits],
                "converged": [bool(fit.converged) for fit in fits],
                "saddle": [bool(fit.saddle) for fit in fits],
                "failure": [fit.failure or "" for fit in fits],
                "best": [fit is self for fit in fits],
            },
            index=pd.RangeIndex(len(fits), name="restart"),
        )
        return table

    # -- information criteria -------------------------------------------------------------
    def _need_fit(self, what: str) -> None:
        if self.log_likelihood is None:
            raise InputError(
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
        """Schwarz's criterion :math:`-2\\log L + p\\log n` (lower is better), n the
        total weight of the training rows (their number without ``sample_weight``)."""
        self._need_fit("bic")
        n = self.n_samples if self.total_weight is None else self.total_weight
        return -2.0 * self.log_likelihood + self.n_parameters() * math.log(n)

    @property
    def icl(self) -> float:
        """The integrated completed likelihood criterion in mclust's form (Biernacki,
        Celeux and Govaert 2000): :attr:`bic` plus :math:`-2\\sum_i \\log \\max_k
        r_{ik}`, twice the log-probability lost by classifying every training row
        into its most probable component (lower is better). It penalizes
        overlapping components, which BIC does not. A row of weight w counts w
        times, as in the fit."""
        self._need_fit("icl")
        if self._top_log_sum is None:
            raise InputError(
                "icl needs the sum of log max_k r_ik over the training rows, which this "
                "mixture does not carry (a fit saved without it, by an earlier version). "
                "Refit, or compute it from bic - 2 * sum(log(predict_proba(X).max(axis=1))) "
                "over the training rows X."
            )
        return self.bic - 2.0 * self._top_log_sum

    def uncertainty(self) -> np.ndarray:
        """Every training row's classification uncertainty, :math:`1 - \\max_k r_{ik}`
        (mclust's): 0 for a row wholly in one component, up to :math:`1 - 1/K`."""
        self._need_fit("uncertainty")
        if self.responsibilities is None:
            raise InputError(
                "uncertainty() needs the training rows' responsibilities, which this mixture "
                "does not carry: a saved fit does not store them, and a fit on Dask leaves "
                "them on the workers. Compute 1 - predict_proba(X).max(axis=1) on the "
                "training rows X."
            )
        return 1.0 - self.responsibilities.max(axis=1)

    # -- reports and model choice ---------------------------------------------------------
    def influence(self) -> xr.DataArray:
        """Each attribute's influence on each cluster: see
        :func:`bayesnb.cluster_reports.influence`."""
        return cluster_reports.influence(self)

    def report(self, top: int | None = 5) -> pd.DataFrame:
        """Clusters by weight, attributes by influence: see
        :func:`bayesnb.cluster_reports.report`."""
        return cluster_reports.report(self, top)

    def cheeseman_stutz(self, X, *, sample_weight=None) -> float:
        """AutoClass's approximate log marginal likelihood: see
        :func:`bayesnb.model_choice.cheeseman_stutz`."""
        return model_choice.cheeseman_stutz(self, X, sample_weight=sample_weight)

    def pattern_statistics(self, X, *, sample_weight=None) -> dict:
        """G² and χ² against the observed patterns: see
        :func:`bayesnb.model_choice.pattern_statistics`."""
        return model_choice.pattern_statistics(self, X, sample_weight=sample_weight)

    # -- sampling ---------------------------------------------------------------------------
    def sample(self, n: int, random_state=None) -> pd.DataFrame:
        """Draw ``n`` rows from the fitted generative model.

        First the component from the weights, then every feature from its family
        given the component.

        Returns
        -------
        DataFrame
            A ``component`` column followed by the feature columns, values in the
            training data's coding (e.g. ``"y"``/``"n"``) and, for a frame, a
            discrete feature's column in its training dtype (Boolean, categorical,
            string, nullable integer).
        """
        n = check_draw_count(n)
        if "component" in self.feature_names:
            raise InputError(
                "a feature is named 'component', the name of the drawn component's column; "
                "rename that feature to sample."
            )
        rng = random_generator(random_state)
        weights = np.exp(self.class_log_prob)
        components = rng.choice(len(self.labels), size=int(n), p=weights / weights.sum())
        columns = {
            "component": np.asarray(self.labels, dtype=object)[components],
            **self._draw_features(components, rng),
        }
        return self._with_training_labels(pd.DataFrame(columns)[["component", *self.feature_names]])

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
                "total_weight": self.total_weight,
                "saddle": self.saddle,
                "top_log_sum": self._top_log_sum,
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
        self.total_weight = float(diagnostics.get("total_weight", self.n_samples))
        self.saddle = bool(diagnostics.get("saddle", False))
        top = diagnostics.get("top_log_sum")
        self._top_log_sum = None if top is None else float(top)
