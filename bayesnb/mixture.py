"""Autoclass: clustering with the naive Bayes mixture, fitted by expectation-maximization.

The mixture is the naive Bayes model of :class:`bayesnb.NaiveBayes` with the class
unobserved. EM alternates two steps over data encoded once:

E-step
    The families' own ``log_likelihood`` gives the (n, K) joint log-likelihood; a
    log-sum-exp over components (laid out components-first) turns it into
    responsibilities and the log-likelihood of every row.
M-step
    The families' own ``count(enc, resp)`` with the soft responsibilities, then
    :func:`bayesnb.model.estimate_all`: the classifier's code path, unchanged.

Sections: the EM engine and :func:`fit_mixture`; the fitted :class:`MixtureFit`
(reports, sampling, fit statistics); model choice over K (:func:`compare_components`);
the teaching aids of seed 003 (:func:`expected_statistics`,
:func:`enumerate_completions`).
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from scipy import sparse, special
from sklearn.exceptions import ConvergenceWarning

from bayesnb._data import Table
from bayesnb.families import Bernoulli, Categorical, Gaussian, Multinomial
from bayesnb.model import FittedModel, estimate_all, log_normalize, log_sum_exp_rows
from bayesnb.priors import Dirichlet, ZeroProbabilityWarning

__all__ = [
    "ConvergenceWarning",
    "MixtureFit",
    "MonotonicityError",
    "compare_components",
    "enumerate_completions",
    "expected_statistics",
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


@dataclass
class _State:
    """Parameters of every block and the component log-weights, with the statistics
    that produced them (``None`` for a start given as parameters)."""

    block_params: list
    class_log_prob: np.ndarray
    stats: list | None = None
    class_counts: np.ndarray | None = None


@dataclass
class _Run:
    state: _State
    history: list
    log_likelihood: float
    row_loglik: np.ndarray
    resp: np.ndarray  # (K, n)
    converged: bool
    seconds: float = 0.0


class _Problem:
    """The declaration bound to the data, the data encoded once, and the two EM steps."""

    def __init__(self, model, table: Table, labels: list, estimate: str, class_estimate: str):
        self.labels = list(labels)
        self.K = len(self.labels)
        self.n = table.n_rows
        self.table = table
        self.blocks = model.bind(table)
        self.encoded = [b.encode(table.take(b.columns)) for b in self.blocks]
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
        self.known: np.ndarray | None = None  # component code per row, -1 when unknown

    # -- objective --------------------------------------------------------------------
    def log_prior(self, state: _State) -> float:
        """Log density of the priors of the MAP-estimated parts at the parameters."""
        total = 0.0
        for i in self.map_blocks:
            total += self.blocks[i].log_prior(state.block_params[i])
        if self.estimates["class"] == "map":
            total += float(self.class_alpha.logpdf(np.exp(state.class_log_prob)))
        return total

    def joint(self, state: _State) -> np.ndarray:
        """``log P(c) + sum_j log p(x_j | c)``, components first: shape (K, n)."""
        jll = None
        for block, enc, params in zip(self.blocks, self.encoded, state.block_params, strict=True):
            term = block.log_likelihood(enc, params)
            jll = term if jll is None else jll.__iadd__(term)
        out = np.ascontiguousarray(jll.T)
        out += state.class_log_prob[:, None]
        return out

    # -- the two steps ----------------------------------------------------------------
    def e_step(self, state: _State):
        """Objective, log-likelihood, per-row log-likelihood and responsibilities (K, n)."""
        logj = self.joint(state)
        fixed = None
        if self.known is not None:
            rows = np.flatnonzero(self.known >= 0)
            fixed = (rows, self.known[rows], logj[self.known[rows], rows])
        top = logj.max(axis=0)
        if not np.all(np.isfinite(top)):
            row = int(np.flatnonzero(~np.isfinite(top))[0])
            raise ValueError(
                f"row {row} has likelihood 0 under every component: each gives probability "
                "0 to one of its values. Fit with estimate='map' under priors with "
                "alpha > 1 so no probability is exactly 0."
            )
        logj -= top
        np.exp(logj, out=logj)
        total = logj.sum(axis=0)
        logj /= total
        row_ll = np.log(total)
        row_ll += top
        if fixed is not None:
            rows, codes, joint = fixed
            logj[:, rows] = 0.0
            logj[codes, rows] = 1.0
            row_ll[rows] = joint
        loglik = float(row_ll.sum())
        return loglik + self.log_prior(state), loglik, row_ll, logj

    def m_step(self, resp: np.ndarray) -> _State:
        """Expected statistics from responsibilities (K, n), then the estimates."""
        r = resp.T  # (n, K) view: the families' counting takes rows first
        stats = [b.count(enc, r) for b, enc in zip(self.blocks, self.encoded, strict=True)]
        class_counts = resp.sum(axis=1)
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
        import time

        start = time.perf_counter()
        objective, loglik, row_ll, resp = self.e_step(state)
        history = [objective]
        converged = False
        for iteration in range(1, max_iter + 1):
            try:
                state = self.m_step(resp)
            except ValueError as err:
                raise ValueError(f"EM restart {restart}, iteration {iteration}: {err}") from err
            objective, loglik, row_ll, resp = self.e_step(state)
            history.append(objective)
            _check_increase(history, self.n, iteration, restart)
            if history[-1] - history[-2] <= tol * self.n:
                converged = True
                break
        return _Run(
            state, history, loglik, row_ll, resp, converged, seconds=time.perf_counter() - start
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


# ----------------------------------------------------------------------------------------
# Starting parameters given by the user
# ----------------------------------------------------------------------------------------


def _source_value(source, key: str):
    if isinstance(source, xr.Dataset):
        return source[key] if key in source.data_vars else None
    return source.get(key)


def _ordered(value, block, key: str, K: int, cat_dim: str | None, categories) -> np.ndarray:
    """``value`` as an array (K, [columns,] [categories]) in the block's order."""
    if isinstance(value, xr.DataArray):
        feat_dim = f"{block.name}_feature"
        if feat_dim in value.dims and feat_dim in value.coords:
            value = value.sel({feat_dim: list(block.columns)})
        if cat_dim is not None and cat_dim in value.dims and cat_dim in value.coords:
            value = value.sel({cat_dim: list(categories)})
        order = [d for d in ("component", feat_dim, cat_dim) if d is not None and d in value.dims]
        value = value.transpose(*order, ...).values
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0 or arr.shape[0] != K:
        raise ValueError(
            f"init[{key!r}] must have one entry per component ({K}) on its first axis; got "
            f"shape {arr.shape}. Give it in the layout of MixtureFit.params."
        )
    return arr


def _block_start(block, source, K: int) -> dict:
    name = block.name
    if isinstance(block, Gaussian):
        mu = _source_value(source, f"{name}_mu")
        var = _source_value(source, f"{name}_var")
        sigma = _source_value(source, f"{name}_sigma")
        if mu is None or (var is None and sigma is None):
            raise ValueError(
                f"init lacks the Gaussian parameters of {name!r}: give {name + '_mu'!r} and "
                f"{name + '_var'!r} (or {name + '_sigma'!r}), each with a component axis."
            )
        mu = _ordered(mu, block, f"{name}_mu", K, None, None).reshape(K, -1)
        if var is None:
            var = _ordered(sigma, block, f"{name}_sigma", K, None, None).reshape(K, -1) ** 2
        else:
            var = _ordered(var, block, f"{name}_var", K, None, None).reshape(K, -1)
        if mu.shape != (K, block.n_columns) or var.shape != mu.shape:
            raise ValueError(
                f"init for Gaussian {name!r} must have shape ({K}, {block.n_columns}); got "
                f"mu {mu.shape} and var {var.shape}."
            )
        if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(var)) and np.all(var > 0)):
            raise ValueError(
                f"init for Gaussian {name!r} needs finite means and variances > 0; got "
                f"var={var.tolist()!r}."
            )
        return {"mu": mu, "var": var}
    value = _source_value(source, name)
    if value is None:
        raise ValueError(
            f"init lacks the parameters of feature {name!r}; give init[{name!r}] in the "
            "layout of MixtureFit.params."
        )
    cat_dim = f"{name}_category"
    categories = block.category_labels()
    arr = _ordered(value, block, name, K, cat_dim, categories)
    if isinstance(block, Bernoulli):
        p = arr.reshape(K, -1)
        if p.shape[1] != block.n_columns:
            raise ValueError(
                f"init[{name!r}] must give P(true) for {block.n_columns} column(s) per "
                f"component; got shape {arr.shape}."
            )
        if not np.all((p >= 0) & (p <= 1)):
            raise ValueError(f"init[{name!r}] must hold probabilities in [0, 1]; got {p!r}.")
        with np.errstate(divide="ignore"):
            return {"log_prob": np.stack([np.log1p(-p), np.log(p)], axis=-1)}
    if arr.shape != (K, len(categories)):
        raise ValueError(
            f"init[{name!r}] must have shape ({K}, {len(categories)}) (component, category); "
            f"got {arr.shape}."
        )
    if np.any(arr < 0) or not np.allclose(arr.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError(
            f"init[{name!r}] must hold probabilities summing to 1 over each component's "
            f"categories; the sums are {arr.sum(axis=1).tolist()!r}."
        )
    with np.errstate(divide="ignore"):
        return {"log_prob": np.log(arr)}


def _state_from(problem: _Problem, source) -> _State:
    """A start from a fitted model (same declaration) or from parameters like ``params``."""
    K = problem.K
    if isinstance(source, FittedModel):
        names = [(b.name, b.kind, list(b.columns)) for b in source.blocks]
        ours = [(b.name, b.kind, list(b.columns)) for b in problem.blocks]
        if names != ours or len(source.labels) != K:
            raise ValueError(
                f"init is a fitted model with {len(source.labels)} classes and blocks {names!r}; "
                f"EM here has {K} components and blocks {ours!r}. Start from a model fitted "
                "with the same declaration and number of classes."
            )
        for b, p in zip(source.blocks, source.block_params, strict=True):
            if "concentration" in p or "df" in p:
                raise ValueError(
                    f"init's feature {b.name!r} holds posterior-predictive parameters; start "
                    "from a model fitted with estimate='ml', 'map' or 'mean'."
                )
        return _State(
            [dict(p) for p in source.block_params], np.array(source.class_log_prob, dtype=float)
        )
    if not isinstance(source, dict | xr.Dataset):
        raise TypeError(
            "init must be 'random', 'uniform', an (n, K) array of responsibilities, a fitted "
            f"model, or parameters as an xarray.Dataset or dict; got {type(source).__name__}."
        )
    weights = _source_value(source, "class_prob")
    if weights is None:
        raise ValueError("init lacks 'class_prob', the component weights (one per component).")
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (K,) or np.any(weights < 0) or not np.isclose(weights.sum(), 1.0):
        raise ValueError(
            f"init['class_prob'] must be {K} non-negative weights summing to 1; got "
            f"{weights.tolist()!r}."
        )
    with np.errstate(divide="ignore"):
        class_log_prob = np.log(weights)
    return _State([_block_start(b, source, K) for b in problem.blocks], class_log_prob)


def _labels_of(n_components, init) -> list:
    if n_components is None:
        weights = None if isinstance(init, str | np.ndarray) else _init_weights(init)
        if weights is None:
            raise ValueError(
                "n_components=None needs init parameters that name the components; give "
                "n_components as an int or a list of names."
            )
        return weights
    if isinstance(n_components, int | np.integer) and not isinstance(n_components, bool):
        if n_components < 1:
            raise ValueError(f"n_components must be >= 1; got {n_components}.")
        return list(range(int(n_components)))
    labels = list(n_components)
    if not labels or len(set(labels)) != len(labels):
        raise ValueError(
            f"n_components must be a positive int or a list of distinct names; got {labels!r}."
        )
    return labels


def _init_weights(init):
    if isinstance(init, FittedModel):
        return list(init.labels)
    value = _source_value(init, "class_prob") if isinstance(init, dict | xr.Dataset) else None
    if isinstance(value, xr.DataArray) and "component" in value.coords:
        return value["component"].values.tolist()
    if value is not None:
        return list(range(len(np.asarray(value))))
    return None


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
        ``xarray.Dataset`` or a dict with ``class_prob`` and one entry per feature),
        or a fitted model of the same declaration: the starting parameters.
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
        labels = _labels_of(n_components, init)
    if not given_start and len(labels) > table.n_rows:
        raise ValueError(
            f"n_components={len(labels)} exceeds the {table.n_rows} rows of X; use at most "
            "one component per row."
        )
    problem = _Problem(model, table, labels, estimate, class_estimate or estimate)
    if y is not None:
        problem.known = _known_codes(y, labels, table.n_rows)

    rng = np.random.default_rng(random_state)
    runs = []
    for restart in range(n_init):
        if isinstance(init, str):
            weights = problem.random_weights(rng) if init == "random" else problem.uniform_weights()
            state = problem.m_step(weights)
        elif isinstance(init, np.ndarray):
            state = problem.m_step(problem.fix_known(_check_resp(init, table.n_rows, problem.K)))
        else:
            state = _state_from(problem, init)
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
    def _from_run(cls, problem: _Problem, run: _Run, init: str) -> MixtureFit:
        state = run.state
        fit = cls(
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
    def n_parameters(self) -> int:
        """Free parameters: ``K - 1`` weights plus every family's free parameters."""
        return self.n_free_parameters()

    @property
    def aic(self) -> float:
        """Akaike's criterion :math:`-2\\log L + 2p` (lower is better)."""
        self._need_fit("aic")
        return -2.0 * self.log_likelihood + 2.0 * self.n_parameters

    @property
    def bic(self) -> float:
        """Schwarz's criterion :math:`-2\\log L + p\\log n` (lower is better)."""
        self._need_fit("bic")
        return -2.0 * self.log_likelihood + self.n_parameters * math.log(self.n_samples)

    # -- reports ----------------------------------------------------------------------------
    def _pooled(self) -> list[dict]:
        """Parameters of the whole data: one component holding every row's statistics."""
        out = []
        for block, st in zip(self.blocks, self.stats, strict=True):
            if isinstance(block, Gaussian):
                n = st["n"].sum(axis=0, keepdims=True)
                mean = (st["n"] * st["mean"]).sum(axis=0, keepdims=True) / n
                ss = (st["ss"] + st["n"] * (st["mean"] - mean) ** 2).sum(axis=0, keepdims=True)
                pooled = {"n": n, "mean": mean, "ss": ss}
            else:
                pooled = {"counts": st["counts"].sum(axis=0, keepdims=True)}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ZeroProbabilityWarning)
                out.append(block.estimate_params(pooled, self.estimates["features"][block.name]))
        return out

    def influence(self) -> xr.DataArray:
        """How strongly each attribute sets each cluster apart from the whole data.

        AutoClass's attribute influence: the Kullback-Leibler divergence of the
        cluster's distribution of the attribute from the whole data's (the same
        family and estimator applied to the statistics of every row), in nats.

        Returns
        -------
        DataArray, dims (component, feature)
            One entry per column (a Multinomial block counts as one attribute).

        Notes
        -----
        Discrete: :math:`\\sum_v p_{kv} \\log(p_{kv}/q_v)`. Gaussian:
        :math:`\\log(\\sigma/\\sigma_k) + (\\sigma_k^2 + (\\mu_k - \\mu)^2)/(2\\sigma^2) - 1/2`.
        """
        columns, values = [], []
        for block, params, pooled in zip(
            self.blocks, self.block_params, self._pooled(), strict=True
        ):
            if isinstance(block, Gaussian):
                vk, v0 = params["var"], pooled["var"]
                kl = 0.5 * np.log(v0 / vk) + (vk + (params["mu"] - pooled["mu"]) ** 2) / (2 * v0)
                kl -= 0.5
            else:
                p = np.exp(params["log_prob"])
                with np.errstate(divide="ignore", invalid="ignore"):
                    terms = p * (params["log_prob"] - pooled["log_prob"])
                kl = np.where(p > 0, terms, 0.0).sum(axis=-1)
            kl = kl.reshape(len(self.labels), -1)
            names = [block.name] if isinstance(block, Multinomial) else list(block.columns)
            columns.extend(names)
            values.append(kl)
        return xr.DataArray(
            np.concatenate(values, axis=1),
            dims=("component", "feature"),
            coords={"component": self.labels, "feature": columns},
            attrs={
                "description": "KL divergence (nats) of the cluster's attribute "
                "distribution from the whole data's"
            },
        )

    def report(self, top: int | None = 5) -> pd.DataFrame:
        """One row per (cluster, attribute): weight, influence and a summary.

        Clusters come by decreasing weight and, within each, attributes by decreasing
        influence (``top`` per cluster; ``None`` for all).

        Returns
        -------
        DataFrame indexed by (component, feature)
            Columns ``weight``, ``size`` (expected number of rows), ``influence``
            (nats) and ``summary`` (the cluster's most probable value or mean against
            the whole data's).
        """
        infl = self.influence()
        weights = np.exp(self.class_log_prob)
        summaries = self._summaries()
        rows = []
        for k in np.argsort(-weights, kind="stable"):
            order = np.argsort(-infl.values[k], kind="stable")
            for j in order if top is None else order[:top]:
                feature = infl["feature"].values[j]
                rows.append(
                    {
                        "component": self.labels[k],
                        "feature": feature,
                        "weight": weights[k],
                        "size": self.class_counts[k],
                        "influence": infl.values[k, j],
                        "summary": summaries[feature][k],
                    }
                )
        return pd.DataFrame(rows).set_index(["component", "feature"])

    def _summaries(self) -> dict:
        out = {}
        K = len(self.labels)
        for block, params, pooled in zip(
            self.blocks, self.block_params, self._pooled(), strict=True
        ):
            if isinstance(block, Gaussian):
                for j, col in enumerate(block.columns):
                    mu, sd = params["mu"][:, j], np.sqrt(params["var"][:, j])
                    m0, s0 = pooled["mu"][0, j], np.sqrt(pooled["var"][0, j])
                    out[col] = [
                        f"mean {mu[k]:.4g} ± {sd[k]:.3g} (all: {m0:.4g} ± {s0:.3g})"
                        for k in range(K)
                    ]
                continue
            n_values = params["log_prob"].shape[-1]
            p = np.exp(params["log_prob"]).reshape(K, -1, n_values)
            q = np.exp(pooled["log_prob"]).reshape(1, -1, n_values)
            cats = block.category_labels()
            if isinstance(block, Multinomial):  # the token most over-represented
                with np.errstate(divide="ignore"):
                    top = (np.log(p[:, 0]) - np.log(q[0, 0])).argmax(axis=1)
                out[block.name] = [
                    f"{cats[top[k]]}: {p[k, 0, top[k]]:.3g} (all: {q[0, 0, top[k]]:.3g})"
                    for k in range(K)
                ]
                continue
            for j, col in enumerate(block.columns):
                if isinstance(block, Bernoulli):
                    out[col] = [
                        f"P({cats[1]}) = {p[k, j, 1]:.3f} (all: {q[0, j, 1]:.3f})" for k in range(K)
                    ]
                    continue
                top = p[:, j].argmax(axis=1)
                out[col] = [
                    f"{cats[top[k]]}: {p[k, j, top[k]]:.3f} (all: {q[0, j, top[k]]:.3f})"
                    for k in range(K)
                ]
        return out

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
            if isinstance(block, Multinomial):
                raise TypeError(
                    f"sampling the Multinomial block {block.name!r} needs document lengths, "
                    "which the model does not describe. Sample the other features, or draw "
                    f"tokens from params[{block.name!r}] with lengths of your own."
                )
            draws = np.asarray(block.sample(params, components, rng))
            draws = draws.reshape(int(n), -1)
            if isinstance(block, Bernoulli):
                v0, v1 = block.values
                if (v0, v1) == (0, 1):
                    draws = draws.astype(np.int64)
                else:
                    draws = np.where(draws == 1.0, v1, v0).astype(object)
            for j, col in enumerate(block.columns):
                columns[col] = draws[:, j]
        return pd.DataFrame(columns)[["component", *self.feature_names]]

    # -- fit statistics ------------------------------------------------------------------------
    def cheeseman_stutz(self, X) -> float:
        """The Cheeseman-Stutz approximation to :math:`\\log p(X \\mid K)` (AutoClass).

        Parameters
        ----------
        X : DataFrame, ndarray or sparse matrix
            The training data (the approximation is about it).

        Notes
        -----
        With :math:`X'` the data completed by the expected statistics at the fitted
        :math:`\\hat\\theta`,

        .. math:: \\log p(X \\mid K) \\approx \\log p(X' \\mid K)
                  - \\log p(X' \\mid \\hat\\theta) + \\log p(X \\mid \\hat\\theta) + \\log K!,

        where :math:`p(X' \\mid K)` is the closed-form conjugate marginal likelihood of
        complete data (Dirichlet-multinomial, Normal-Inverse-Gamma) and
        :math:`\\log K!` counts the K! relabellings of the components, each an equal
        mode of the posterior. With K = 1 it is the exact marginal likelihood.
        """
        encoded = self.encode(X)
        jll = self._joint(encoded)
        row_ll = log_sum_exp_rows(jll)
        resp = np.exp(log_normalize(jll))
        class_counts = resp.sum(axis=0)
        K = len(self.labels)
        marginal = _dirichlet_marginal(class_counts, self.class_prior.resolve(K))
        complete = _xlogp_sum(class_counts, self.class_log_prob)
        for block, enc, params in zip(self.blocks, encoded, self.block_params, strict=True):
            st = block.count(enc, resp)
            marginal += _log_marginal(block, st, K)
            complete += _complete_loglik(block, st, params)
        return marginal - complete + float(row_ll.sum()) + math.lgamma(K + 1)

    def pattern_statistics(self, X) -> dict:
        """G² and Pearson χ² of the observed attribute patterns against the model.

        For all-discrete models (Bernoulli and Categorical features): the complete
        rows of ``X`` are tallied by pattern (their joint values) and compared with
        the expected counts :math:`N p(x)` under the fitted mixture.

        Returns
        -------
        dict
            ``g2``, ``chi2``, ``df``, ``n_complete`` (rows without a missing value,
            those tallied) and ``n_patterns`` (distinct patterns observed).

        Notes
        -----
        :math:`G^2 = 2\\sum_x O_x \\log(O_x/E_x)` over observed patterns and
        :math:`\\chi^2 = \\sum_x (O_x - E_x)^2/E_x` over every possible pattern, equal
        to :math:`\\sum_{O_x > 0} O_x^2/E_x - N` since the :math:`E_x` sum to N.
        ``df`` = (number of possible patterns - 1) - free parameters. With many
        attributes most patterns have tiny expected counts and neither statistic
        follows its χ² reference: compare them across K rather than test them.
        """
        discrete = [type(b) in (Bernoulli, Categorical) for b in self.blocks]
        if not all(discrete):
            kinds = sorted({b.kind for b, d in zip(self.blocks, discrete, strict=True) if not d})
            raise ValueError(
                f"pattern statistics need discrete Bernoulli/Categorical features only; this "
                f"model has {kinds}. Use the log-likelihood, BIC or Cheeseman-Stutz instead."
            )
        codes, levels = self._pattern_codes(X)
        complete = np.all(codes >= 0, axis=1)
        n_complete = int(complete.sum())
        if n_complete == 0:
            raise ValueError("X has no row without a missing value; no pattern to tally.")
        row_ll = self.log_likelihood_rows(X)[complete]
        patterns, first, observed = np.unique(
            codes[complete], axis=0, return_index=True, return_counts=True
        )
        expected = n_complete * np.exp(row_ll[first])
        g2 = 2.0 * float(np.sum(observed * (np.log(observed) - np.log(expected))))
        chi2 = float(np.sum(observed**2 / expected)) - n_complete
        return {
            "g2": g2,
            "chi2": chi2,
            "df": math.prod(levels) - 1 - self.n_parameters,
            "n_complete": n_complete,
            "n_patterns": len(patterns),
        }

    def _pattern_codes(self, X):
        """Integer codes (n, columns) of the raw values, -1 where missing or unseen."""
        table = Table(X, feature_names=None if self.is_frame else self.feature_names)
        codes, levels = [], []
        for block in self.blocks:
            raw = table.take(block.columns)
            if sparse.issparse(raw):
                raw = raw.toarray()
            frame = raw if isinstance(raw, pd.DataFrame) else pd.DataFrame(raw)
            index = pd.Index(block.category_labels())
            for j in range(frame.shape[1]):
                col = frame.iloc[:, j]
                if col.dtype.kind == "b":
                    col = col.astype(np.int64)
                codes.append(index.get_indexer(col))
                levels.append(len(index))
        return np.stack(codes, axis=1), levels

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


def _xlogp_sum(counts, log_prob) -> float:
    """``sum(counts * log_prob)`` with a zero count contributing 0 (never 0 * -inf)."""
    counts = np.broadcast_to(np.asarray(counts, dtype=float), np.shape(log_prob))
    used = counts > 0
    return float(np.sum(counts[used] * np.asarray(log_prob)[used]))


def _dirichlet_marginal(counts, alpha) -> float:
    """``log B(alpha + counts) - log B(alpha)``, summed over the leading axes."""
    counts = np.asarray(counts, dtype=float)
    alpha = np.broadcast_to(alpha, counts.shape)
    post = alpha + counts
    out = special.gammaln(alpha.sum(axis=-1)) - special.gammaln(post.sum(axis=-1))
    out += (special.gammaln(post) - special.gammaln(alpha)).sum(axis=-1)
    return float(np.sum(out))


def _log_marginal(block, stats: dict, K: int) -> float:
    """Closed-form log marginal likelihood of complete-data statistics under the prior."""
    if isinstance(block, Gaussian):
        prior = block.prior
        n = np.asarray(stats["n"], dtype=float)
        post = prior.posterior(n, stats["mean"], stats["ss"])
        a, b, k = (np.asarray(v, dtype=float) for v in (prior.alpha, prior.beta, prior.kappa))
        out = (
            special.gammaln(post.alpha)
            - special.gammaln(a)
            + a * np.log(b)
            - post.alpha * np.log(post.beta)
            + 0.5 * (np.log(k) - np.log(post.kappa))
            - 0.5 * n * np.log(2.0 * np.pi)
        )
        return float(np.sum(out))
    counts = stats["counts"]
    return _dirichlet_marginal(counts, block._alpha(K, counts.shape[1:]))


def _complete_loglik(block, stats: dict, params: dict) -> float:
    """Complete-data log-likelihood of the statistics at the parameters.

    Like :func:`_log_marginal`, it leaves out the constants the families leave out
    (a bin's width, the multinomial coefficient); they cancel in Cheeseman-Stutz.
    """
    if isinstance(block, Gaussian):
        n, mean, ss = stats["n"], stats["mean"], stats["ss"]
        mu, var = params["mu"], params["var"]
        out = -0.5 * n * np.log(2.0 * np.pi * var) - (ss + n * (mean - mu) ** 2) / (2.0 * var)
        return float(np.sum(out))
    return _xlogp_sum(stats["counts"], params["log_prob"])


# ----------------------------------------------------------------------------------------
# Model choice over K
# ----------------------------------------------------------------------------------------


def compare_components(
    model, X, k_max: int, *, k_min: int = 1, return_fits: bool = False, **options
):
    """Fit K = k_min..k_max components and tabulate the criteria of model choice.

    Parameters
    ----------
    model : NaiveBayes
    X : DataFrame, ndarray or sparse matrix
        The data to cluster.
    k_max, k_min : int
        The range of K (inclusive).
    return_fits : bool
        Also return the fitted mixtures, a dict keyed by K.
    **options
        Passed to :func:`fit_mixture` (``estimate``, ``n_init``, ``random_state``, ...).

    Returns
    -------
    DataFrame indexed by ``n_components``
        ``log_likelihood``, ``objective`` (the log posterior under MAP-EM),
        ``n_parameters``, ``aic``, ``bic`` (lower is better), ``cheeseman_stutz``
        (approximate log marginal likelihood with its ``log K!`` term, higher is
        better); for all-discrete models ``g2``, ``chi2``, ``df``, ``n_complete`` and
        ``n_patterns`` (see :meth:`MixtureFit.pattern_statistics`); then ``n_iter``
        and ``converged``.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> from bayesnb.mixture import compare_components
    >>> votes = bnb.datasets.house_votes_84().drop(columns="party")
    >>> model = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y")))
    >>> table = compare_components(model, votes, 3, n_init=2, random_state=0)
    >>> table.index.tolist(), table["n_parameters"].tolist()
    ([1, 2, 3], [16, 33, 50])
    """
    for key in ("y", "init", "n_components"):
        if key in options:
            raise ValueError(
                f"compare_components varies K itself, so {key}= cannot be given; fit a "
                "single K with model.cluster for that."
            )
    if not (isinstance(k_min, int) and isinstance(k_max, int) and 1 <= k_min <= k_max):
        raise ValueError(f"need ints 1 <= k_min <= k_max; got k_min={k_min!r}, k_max={k_max!r}.")
    rows, fits = [], {}
    for K in range(k_min, k_max + 1):
        fit = fit_mixture(model, X, K, **options)
        fits[K] = fit
        row = {
            "n_components": K,
            "log_likelihood": fit.log_likelihood,
            "objective": fit.objective,
            "n_parameters": fit.n_parameters,
            "aic": fit.aic,
            "bic": fit.bic,
            "cheeseman_stutz": fit.cheeseman_stutz(X),
        }
        if all(type(b) in (Bernoulli, Categorical) for b in fit.blocks):
            row.update(fit.pattern_statistics(X))
        row.update({"n_iter": fit.n_iter, "converged": fit.converged})
        rows.append(row)
    table = pd.DataFrame(rows).set_index("n_components")
    return (table, fits) if return_fits else table


# ----------------------------------------------------------------------------------------
# Teaching aids (seed 003): expected statistics, per instance and by brute force
# ----------------------------------------------------------------------------------------


def _problem_at(model, X, params, feature_names=None):
    table = Table(X, feature_names=feature_names)
    problem = _Problem(model, table, _labels_of(None, params), "ml", "ml")
    return problem, _state_from(problem, params)


def _statistics_dataset(problem: _Problem, state: _State, stats, class_counts) -> xr.Dataset:
    data = {
        "class_count": xr.DataArray(
            class_counts, dims=("component",), coords={"component": problem.labels}
        )
    }
    for block, st, params in zip(problem.blocks, stats, state.block_params, strict=True):
        data.update(block.to_xarray(params, st, "component", problem.labels)["counts"])
    return xr.Dataset(data)


def expected_statistics(model, X, params, *, feature_names=None) -> xr.Dataset:
    """The E-step's expected sufficient statistics, one instance at a time.

    Parameters
    ----------
    model : NaiveBayes
        The declaration.
    X : DataFrame, ndarray or sparse matrix
    params : Dataset, dict or fitted model
        Parameters in the layout of :attr:`MixtureFit.params` (``class_prob`` and
        one entry per feature; a ``component`` coordinate names the components).

    Returns
    -------
    Dataset
        In the layout of :attr:`MixtureFit.counts`: ``class_count`` is
        :math:`E[N_k] = \\sum_i P(C_i = k \\mid x_i)` and every count is
        :math:`E[N_{kjv}] = \\sum_{i: x_{ij} = v} P(C_i = k \\mid x_i)`.

    Examples
    --------
    Seed 003's E-step from :math:`\\theta_C = 0.7`, :math:`\\theta_1 = 0.9/0.3`,
    :math:`\\theta_2 = 0.6/0.2` on D = {FT, TT}:

    >>> import pandas as pd, xarray as xr, bayesnb as bnb
    >>> D = pd.DataFrame({"X1": [False, True], "X2": [True, True]})
    >>> model = bnb.NaiveBayes({"X1": bnb.Bernoulli(), "X2": bnb.Bernoulli()})
    >>> start = xr.Dataset(
    ...     {"class_prob": ("component", [0.3, 0.7]), "X1": ("component", [0.3, 0.9]),
    ...      "X2": ("component", [0.2, 0.6])}, coords={"component": ["F", "T"]})
    >>> stats = expected_statistics(model, D, start)
    >>> stats["class_count"].values                      # E[N_F], E[N_T] = 6/11, 16/11
    array([0.54545455, 1.45454545])
    >>> stats["X1"].sel(X1_category=1).values            # E[N_1,T^F], E[N_1,T^T]
    array([0.04545455, 0.95454545])
    """
    problem, state = _problem_at(model, X, params, feature_names)
    _, _, _, resp = problem.e_step(state)
    r = resp.T
    stats = [b.count(enc, r) for b, enc in zip(problem.blocks, problem.encoded, strict=True)]
    return _statistics_dataset(problem, state, stats, resp.sum(axis=1))


def _linear(block, stats: dict) -> dict:
    """Statistics that add up over rows (counts; n, sum and sum of squares, centred)."""
    if isinstance(block, Gaussian):
        n = stats["n"]
        d = stats["mean"] - block.shift
        return {"n": n, "s1": n * d, "s2": stats["ss"] + n * d * d}
    return {"counts": stats["counts"]}


def _from_linear(block, linear: dict) -> dict:
    if isinstance(block, Gaussian):
        n = linear["n"]
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(n > 0, linear["s1"] / n, 0.0)
        return {"n": n, "mean": d + block.shift, "ss": np.maximum(linear["s2"] - n * d * d, 0.0)}
    return {"counts": linear["counts"]}


def enumerate_completions(model, X, params, *, max_completions: int = 100_000, feature_names=None):
    """Expected statistics by brute force: every completion of the hidden classes.

    A completion assigns a component to every row; there are :math:`K^n` of them
    (the "exponential" slide of seed 003). Each has probability
    :math:`\\prod_i P(c_i)\\, p(x_i \\mid c_i)`, normalized over completions, and its
    own complete-data statistics; their expectation equals the per-instance E-step
    of :func:`expected_statistics`.

    Returns
    -------
    completions : DataFrame
        One row per completion: the component of every row of ``X``, ``joint``
        (unnormalized probability) and ``probability``.
    statistics : Dataset
        The expected statistics, in the layout of :func:`expected_statistics`.

    Examples
    --------
    >>> import pandas as pd, xarray as xr, bayesnb as bnb
    >>> D = pd.DataFrame({"X1": [False, True], "X2": [True, True]})
    >>> model = bnb.NaiveBayes({"X1": bnb.Bernoulli(), "X2": bnb.Bernoulli()})
    >>> start = xr.Dataset(
    ...     {"class_prob": ("component", [0.3, 0.7]), "X1": ("component", [0.3, 0.9]),
    ...      "X2": ("component", [0.2, 0.6])}, coords={"component": ["F", "T"]})
    >>> completions, stats = enumerate_completions(model, D, start)
    >>> completions
       0  1     joint  probability
    0  F  F  0.000756     0.022727
    1  F  T  0.015876     0.477273
    2  T  F  0.000756     0.022727
    3  T  T  0.015876     0.477273
    """
    problem, state = _problem_at(model, X, params, feature_names)
    K, n = problem.K, problem.n
    if K**n > max_completions:
        raise ValueError(
            f"{K}^{n} = {K**n} completions exceed max_completions={max_completions}; the "
            "brute force is exponential in the number of rows. Use a few rows, or "
            "expected_statistics for the per-instance E-step."
        )
    logj = problem.joint(state)  # (K, n)
    rows = np.arange(n)
    assignments = np.array(list(itertools.product(range(K), repeat=n)), dtype=np.intp)
    log_joint = logj[assignments, rows].sum(axis=1)
    prob = np.exp(log_joint - special.logsumexp(log_joint))
    totals: list[dict | None] = [None] * len(problem.blocks)
    class_counts = np.zeros(K)
    for z, p in zip(assignments, prob, strict=True):
        onehot = np.zeros((n, K))
        onehot[rows, z] = 1.0
        class_counts += p * onehot.sum(axis=0)
        for i, (block, enc) in enumerate(zip(problem.blocks, problem.encoded, strict=True)):
            lin = _linear(block, block.count(enc, onehot))
            if totals[i] is None:
                totals[i] = {key: p * value for key, value in lin.items()}
            else:
                for key, value in lin.items():
                    totals[i][key] = totals[i][key] + p * value
    stats = [_from_linear(b, t) for b, t in zip(problem.blocks, totals, strict=True)]
    completions = pd.DataFrame(np.asarray(problem.labels, dtype=object)[assignments])
    if problem.table.is_frame:
        completions.columns = list(problem.table.data.index)
    completions["joint"] = np.exp(log_joint)
    completions["probability"] = prob
    return completions, _statistics_dataset(problem, state, stats, class_counts)
