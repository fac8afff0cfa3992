"""MCMC for the naive Bayes mixture: a blocked Gibbs sampler on the package's own
sufficient statistics, NUTS on the PyMC model of the same declaration, and the
relabelling that undoes label switching.

The mixture's posterior is symmetric under any permutation of the components, so
chains started apart, or a chain that crosses between modes, hold the same component
under different labels. Every draw is relabelled to a reference, the EM fit: the
permutation that minimizes the cost
:math:`C_{jk} = -\\sum_i r_{ik}\\,[\\log\\pi_j + \\log p(x_i\\mid\\theta_j)]` (the
reference's responsibilities :math:`r` scored by the draw's components), found by
:func:`scipy.optimize.linear_sum_assignment`. The relabelled draws are the
``posterior`` group, the draws as sampled ``posterior_raw``.

The Gibbs sampler runs every chain at once: the chains' components are laid on one
class axis of ``chains * K`` entries, so one call of each family's kernel scores
every chain (the E-step), and one count gives every chain's statistics.

1. :math:`z_i \\mid \\theta` from the responsibilities (one uniform per row and
   chain against the cumulative joint likelihood), a known row keeping its component;
2. :math:`\\pi, \\theta \\mid z` from the conjugate posterior of the counts ``z``
   gives (:meth:`bayesnb.families.Family.posterior_hyper` and ``draw_params``).

A missing value drops out of both steps, exactly as in EM.
"""

from __future__ import annotations

import itertools
import os
import time
import warnings
from dataclasses import dataclass

import numpy as np
import xarray as xr
from scipy.optimize import linear_sum_assignment

from bayesnb import _compiled
from bayesnb._data import check_count
from bayesnb._progress import progress
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families._kernels import log_sum_exp_last
from bayesnb.families.base import count_at, fused_groups, joined
from bayesnb.mixture import MixtureFit, _Problem, _State
from bayesnb.model import feature_log_likelihood
from bayesnb.posterior import (
    CHUNK_ENTRIES,
    _attrs,
    data_tree,
    observed_values,
    stacked_dataset,
    weighted_rows,
)
from bayesnb.priors import _PACKAGE_DIR, log_gamma_draws

SAMPLERS = ("gibbs", "nuts", "nutpie")

#: Default warm-up draws per chain: NUTS adapts its step size and mass matrix in
#: them; the Gibbs sampler has nothing to adapt and starts at the EM fit, inside the
#: posterior's bulk, so its warm-up is a short burn-in.
NUTS_TUNE = 1000
GIBBS_BURN_IN = 200
#: The defaults of ``draws`` (kept draws per chain), ``chains`` and ``sampler``.
DEFAULT_DRAWS = 1000
DEFAULT_CHAINS = 4
DEFAULT_SAMPLER = "gibbs"


@dataclass
class Draws:
    """Draws of a mixture's parameters: the component log-weights (chains, draws, K) and
    every block's parameters with ``chains * draws * K`` components, chain-major."""

    class_log_prob: np.ndarray
    block_params: list
    sample_stats: dict

    @property
    def shape(self) -> tuple[int, int]:
        return self.class_log_prob.shape[:2]


def check_options(sampler, draws, chains, tune) -> tuple[str, int, int, int]:
    """The MCMC options, checked (errors name the parameter), their defaults filled in
    for those that are None."""
    sampler = DEFAULT_SAMPLER if sampler is None else sampler
    draws = DEFAULT_DRAWS if draws is None else draws
    chains = DEFAULT_CHAINS if chains is None else chains
    if sampler not in SAMPLERS:
        raise InputError(
            f"sampler must be one of {SAMPLERS}; got {sampler!r}. 'gibbs' (the default) "
            "is the conjugate Gibbs sampler, 'nuts' PyMC's NUTS, 'nutpie' NUTS by nutpie."
        )
    if tune is None:
        tune = GIBBS_BURN_IN if sampler == "gibbs" else NUTS_TUNE
    return (
        sampler,
        _count(draws, "draws", 1, "the draws kept per chain", DEFAULT_DRAWS),
        _count(chains, "chains", 1, "the number of chains", DEFAULT_CHAINS),
        _count(tune, "tune", 0, "the warm-up draws per chain, discarded", GIBBS_BURN_IN),
    )


def _count(value, name: str, minimum: int, meaning: str, default: int) -> int:
    """``value`` as an int >= ``minimum``; else an error naming ``name``, what it
    counts, what was given and an example of a valid value."""
    try:
        return check_count(value, name, minimum)
    except InputTypeError:
        integral = isinstance(value, float | np.floating) and float(value).is_integer()
        remedy = f"int({name})" if integral else f"a whole number, e.g. {name}={default}"
        raise InputTypeError(
            f"{name} ({meaning}) must be an integer >= {minimum}; got "
            f"{type(value).__name__} {value!r}. Pass {remedy}."
        ) from None
    except InputError:
        raise InputError(
            f"{name} ({meaning}) must be an integer >= {minimum}; got {value!r}. Pass "
            f"e.g. {name}={default}."
        ) from None


def _physical_memory() -> int | None:
    """The machine's physical memory in bytes, or None where it cannot be read."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(problem: _Problem, reference: MixtureFit, draws: int, chains: int) -> None:
    """Refuse ``draws`` and ``chains`` whose kept draws could not fit in memory, before
    any is drawn (a NumPy ``MemoryError`` deep in the sampler, or hours spent on the
    starts of a billion chains, otherwise).

    Every kept draw holds every parameter of every component (four times: as drawn,
    relabelled, and each as a group of the trace) and every row's log-likelihood
    (twice: the relabelling's and the trace's group), in float64. The count is a lower
    bound, so it is held against all of the machine's memory: only a run that could
    never end is refused."""
    per_draw = 8 * (4 * sum(v.size for v in reference.params.data_vars.values()) + 2 * problem.n)
    need = chains * draws * per_draw
    memory = _physical_memory()
    if memory is None or need <= memory:
        return
    gib = 2.0**30
    fits = int(memory // (chains * per_draw))
    most = (
        f"with chains={chains}, at most draws={fits} fit"
        if fits
        else f"chains={chains} do not fit even with draws=1"
    )
    raise InputError(
        f"draws={draws} and chains={chains} would keep {chains * draws:,} draws of "
        f"{per_draw // 8:,} numbers each (every parameter and every row's "
        f"log-likelihood), at least {need / gib:,.1f} GiB, more than this machine's "
        f"{memory / gib:,.1f} GiB of memory. Lower draws or chains ({most}; the defaults "
        f"are draws={DEFAULT_DRAWS} and chains={DEFAULT_CHAINS}), or cluster fewer rows."
    )


# -- the Gibbs sampler -----------------------------------------------------------------------
def _permuted(state: _State, order: np.ndarray) -> tuple[list, np.ndarray]:
    """``state``'s parameters with its components reordered by ``order``."""
    params = [{k: v[order] for k, v in p.items()} for p in state.block_params]
    return params, state.class_log_prob[order]


def gibbs(problem: _Problem, start: _State, draws: int, chains: int, tune: int, rng) -> Draws:
    """Blocked Gibbs draws of the mixture ``problem``, every chain at once.

    Chain 0 starts at ``start`` and every other chain at ``start`` with its free
    components (those without a known row, see :func:`pinned_components`) permuted at
    random, so the chains begin in different labellings of the same mode: the raw
    draws show the switching that relabelling undoes.
    """
    k = problem.K
    free = np.flatnonzero(~pinned_components(problem))
    orders = [np.arange(k)]
    for _ in range(chains - 1):
        order = np.arange(k)
        order[free] = free[rng.permutation(free.size)] if free.size > 1 else free
        orders.append(order)
    starts = [_permuted(start, order) for order in orders]
    params = [
        {key: np.concatenate([s[0][b][key] for s in starts]) for key in start.block_params[b]}
        for b in range(len(problem.blocks))
    ]
    class_log_prob = np.stack([s[1] for s in starts])  # (chains, K)
    with progress(tune + draws, f"Gibbs sampling, {chains} chains") as advance:
        from bayesnb._gibbs_loop import CompiledGibbs

        if _compiled_gibbs_enabled and CompiledGibbs.covers(problem):
            sampler = CompiledGibbs(problem)
            kept, block_params = sampler.sample(class_log_prob, params, draws, tune, rng, advance)
            return Draws(class_log_prob=kept, block_params=block_params, sample_stats={})
        return _gibbs_python(problem, class_log_prob, params, draws, tune, rng, advance)


#: Whether :func:`gibbs` runs in compiled code where the mixture's EM does (False:
#: always the Python sweep, which a test compares it with).
_compiled_gibbs_enabled = True


def _gibbs_python(problem: _Problem, class_log_prob, params, draws, tune, rng, advance) -> Draws:
    """:func:`gibbs`'s sweeps in Python, each family's kernels called once per sweep
    for every chain at once: for families without compiled pieces."""
    k, n = problem.K, problem.n
    chains = class_log_prob.shape[0]
    known = problem.known
    work = _Fused(problem)
    blocks, encoded, params = work.blocks, work.encoded, work.join(params)
    alpha = problem.class_prior.resolve(k)
    weights = np.ones(n) if problem.weights is None else np.asarray(problem.weights, float)
    codes = np.full(n, -1, dtype=np.intp) if known is None else np.asarray(known, np.intp)
    kept_class, kept_params = [], []
    resp = np.empty((n, chains * k))
    for sweep in range(tune + draws):
        # z | theta: every chain's joint log-likelihood, then one uniform per row and chain
        logj = np.ascontiguousarray(feature_log_likelihood(blocks, encoded, params))
        resp.fill(0.0)
        _compiled.draw_memberships(
            logj, class_log_prob, rng.random((n, chains)), codes, weights, resp
        )
        # theta | z: every block's conjugate posterior of the counts z gives
        # (a block with missing values completes them by a draw given z and theta)
        stats = [
            count_at(b, enc, resp, p, rng)
            for b, enc, p in zip(blocks, encoded, params, strict=True)
        ]
        params = [
            _conditional_draw(b, st, chains, rng) for b, st in zip(blocks, stats, strict=True)
        ]
        log_g = log_gamma_draws(alpha + resp.sum(axis=0).reshape(chains, k), rng)
        class_log_prob = log_g - log_sum_exp_last(log_g)
        if sweep >= tune:
            kept_class.append(class_log_prob)
            kept_params.append(params)
        advance()
    per_block = [_chain_major([p[b] for p in kept_params], chains, k) for b in range(len(blocks))]
    return Draws(
        class_log_prob=np.stack(kept_class, axis=1),  # (chains, draws, K)
        block_params=work.split(per_block),
        sample_stats={},
    )


def _conditional_draw(block, stats: dict, chains: int, rng) -> dict:
    """One draw of ``block``'s parameters from their conjugate posterior given every
    chain's statistics (``chains * K`` classes, chain-major); chain by chain for a
    family whose update must see one labelling's classes at a time
    (``Family.classes_together``)."""
    if not block.classes_together:
        return block.draw_params(block.posterior_hyper(stats), 1, rng)
    k = len(next(iter(stats.values()))) // chains
    parts = [
        block.draw_params(
            block.posterior_hyper({key: v[c * k : (c + 1) * k] for key, v in stats.items()}),
            1,
            rng,
        )
        for c in range(chains)
    ]
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


class _Fused:
    """The mixture's blocks with single-column features fused into one block per group
    (see :func:`bayesnb.families.base.fused_groups`), encoded once: one kernel call
    and one count per group of them, instead of one per column."""

    def __init__(self, problem: _Problem, *, repeated: bool = True):
        """``repeated``: the encoding for many sweeps with few classes (EM's); else
        that for one pass with many (every draw at once: a Categorical block then
        multiplies its indicators instead of building tables per class)."""
        self.problem = problem
        groups = self._fused = fused_groups(problem.blocks)
        self.groups = [g.index for g in groups]
        self.blocks = [g.block for g in groups]
        self.encoded = []
        for index, block, _ in groups:
            if len(index) == 1 and repeated:
                self.encoded.append(problem.encoded[index[0]])
            else:
                data = problem.table.take(block.columns)
                encode = block.encode_repeated if repeated else block.encode
                self.encoded.append(encode(data))

    def join(self, params: list) -> list:
        """Per-block parameters joined per group."""
        return joined(self._fused, params)

    def split(self, params: list) -> list:
        """Per-group parameters split back into one dict per block, in block order."""
        out: list = [None] * len(self.problem.blocks)
        for index, block, values in zip(self.groups, self.blocks, params, strict=True):
            group = [self.problem.blocks[i] for i in index]
            parts = [values] if len(group) == 1 else block.split(values, group)
            for i, part in zip(index, parts, strict=True):
                out[i] = part
        return out

    def log_likelihood(self, params: list) -> np.ndarray:
        """``sum_j log p(x_j | c)`` (n, classes) of per-block ``params``."""
        return feature_log_likelihood(self.blocks, self.encoded, self.join(params))


#: Up to this many components, every permutation is scored at once (K! of them).
_EXHAUSTIVE_K = 6


def _assignments(cost: np.ndarray, free: np.ndarray | None = None) -> np.ndarray:
    """For every draw's cost (draws, K, K) (draw component j against reference
    component k), the order of the draw's components that minimizes the total cost:
    entry k is the draw component assigned to reference component k. Only the
    components ``free`` (their indices; None: all) are permuted, among themselves; the
    others keep their labels. Few components: every permutation scored at once; else
    :func:`scipy.optimize.linear_sum_assignment` draw by draw (the same optimum)."""
    size, k, _ = cost.shape
    free = np.arange(k) if free is None else np.asarray(free, dtype=np.intp)
    out = np.tile(np.arange(k), (size, 1))
    m = free.size
    if m < 2:
        return out
    cost = cost[:, free[:, None], free[None, :]]  # (draws, m, m)
    if m <= _EXHAUSTIVE_K:
        perms = np.array(list(itertools.permutations(range(m))))  # perms[p, j] = k of j
        totals = cost[:, np.arange(m)[None, :], perms].sum(axis=2)  # (draws, perms)
        best = perms[totals.argmin(axis=1)]
        out[:, free] = free[np.argsort(best, axis=1)]
        return out
    for s in range(size):
        _, columns = linear_sum_assignment(cost[s])
        out[s, free] = free[np.argsort(columns)]
    return out


def pinned_components(problem: _Problem) -> np.ndarray:
    """(K,) bool: the components that hold a known row (``y=``). Such a row keeps its
    component in every draw, so that component's label is fixed; the others can
    still switch labels among themselves."""
    pinned = np.zeros(problem.K, dtype=bool)
    if problem.known is not None:
        codes = np.asarray(problem.known)
        pinned[np.unique(codes[codes >= 0])] = True
    return pinned


def _chain_major(per_draw: list[dict], chains: int, k: int) -> dict:
    """Parameters kept draw by draw (each with ``chains * K`` components) laid out
    chain-major: ``chains * draws * K`` components, chain ``c``'s draw ``d`` at
    ``(c * draws + d) * K``."""
    out = {}
    for key in per_draw[0]:
        stacked = np.stack([p[key] for p in per_draw])  # (draws, chains * K, ...)
        d = stacked.shape[0]
        rest = stacked.shape[2:]
        stacked = stacked.reshape(d, chains, k, *rest).swapaxes(0, 1)
        out[key] = np.ascontiguousarray(stacked).reshape(chains * d * k, *rest)
    return out


# -- NUTS on the PyMC model -------------------------------------------------------------------
def sample_nuts(problem: _Problem, reference: MixtureFit, sampler, draws, chains, tune, rng):
    """NUTS draws of the PyMC model of ``problem`` (:func:`bayesnb.pymc_model.
    bound_mixture_model`), every chain started at the EM fit ``reference``;
    ``sampler="nutpie"`` samples with nutpie (an optional dependency)."""
    import pymc as pm

    from bayesnb.pymc_model import bound_mixture_model, free_values

    if sampler == "nutpie":
        try:
            import nutpie  # noqa: F401
        except ImportError:
            raise InputError(
                "sampler='nutpie' needs the nutpie package, which is not installed. "
                "Install it (pip install nutpie, or the bayesnb[nutpie] extra), or use "
                "sampler='nuts' (PyMC's NUTS) or 'gibbs'."
            ) from None
    pm_model = bound_mixture_model(
        problem.blocks,
        problem.table,
        problem.labels,
        problem.class_prior,
        problem.known,
        problem.weights,
    )
    start = free_values(pm_model, reference.params)
    options = {
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "random_seed": int(rng.integers(2**31 - 1)),
        "progressbar": False,
        "compute_convergence_checks": False,
    }
    if sampler == "nutpie":
        options["nuts_sampler"] = "nutpie"
    else:  # PyMC's own NUTS (it would pick nutpie when installed)
        options.update(nuts_sampler="pymc", initvals=start)
    with pm_model, warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        idata = pm.sample(**options)
    posterior = idata["posterior"].ds
    stats_group = idata["sample_stats"].ds
    k = problem.K
    size = chains * draws
    flat = _flat_draws(posterior, size * k)
    block_params = [block.params_from(flat, size * k) for block in problem.blocks]
    class_prob = posterior["class_prob"].transpose("chain", "draw", "component").values
    with np.errstate(divide="ignore"):
        class_log_prob = np.log(class_prob)
    sample_stats = {
        name: stats_group[name].transpose("chain", "draw").values
        for name in ("diverging", "tree_depth", "step_size", "energy")
        if name in stats_group
    }
    return Draws(class_log_prob, block_params, sample_stats)


def _flat_draws(posterior: xr.Dataset, size: int) -> xr.Dataset:
    """``posterior`` with (chain, draw, component) laid on one ``component`` axis of
    ``size`` entries, chain-major (the layout :class:`Draws` holds)."""
    out = {}
    for name, da in posterior.data_vars.items():
        if "component" not in da.dims:
            continue
        rest = [d for d in da.dims if d not in ("chain", "draw", "component")]
        values = da.transpose("chain", "draw", "component", *rest).values
        out[name] = xr.DataArray(
            values.reshape(size, *values.shape[3:]),
            dims=("component", *rest),
            coords={d: da[d].values for d in rest if d in da.coords},
        )
    return xr.Dataset(out, coords={"component": np.arange(size)})


# -- relabelling, the pointwise log-likelihood and the memberships ---------------------------
@dataclass
class Relabelled:
    draws: Draws
    permuted: np.ndarray  # (chains, draws) bool
    pointwise: np.ndarray  # (chains, draws, n)
    membership: np.ndarray  # (n, K)


def relabel(problem: _Problem, raw: Draws, reference_resp: np.ndarray | None) -> Relabelled:
    """Every draw relabelled to the reference responsibilities (n, K), or left as drawn
    when ``reference_resp`` is None; with the pointwise log-likelihood of every draw
    and the posterior mean of every row's membership. A component that holds a known
    row keeps its label (:func:`pinned_components`): only the others are permuted,
    among themselves.

    One chunked pass of the families' kernels over the draws does the three."""
    chains, n_draws = raw.shape
    k, n = problem.K, problem.n
    free = np.flatnonzero(~pinned_components(problem))
    size = chains * n_draws
    flat_class = raw.class_log_prob.reshape(size, k)
    orders = np.tile(np.arange(k), (size, 1))
    pointwise = np.empty((size, n))
    membership = np.zeros((n, k))
    known = problem.known
    fixed = None if known is None else np.flatnonzero(known >= 0)
    work = _Fused(problem, repeated=False)
    step = max(1, CHUNK_ENTRIES // max(1, n * k))
    for start in range(0, size, step):
        stop = min(size, start + step)
        chunk = [{key: v[start * k : stop * k] for key, v in p.items()} for p in raw.block_params]
        logj = work.log_likelihood(chunk).reshape(n, stop - start, k)
        # components first, (K, n, draws): every reduction over the few components is
        # then an elementwise operation on long rows
        logj = np.moveaxis(logj, 2, 0) + flat_class[start:stop].T[:, None, :]
        top = logj.max(axis=0)
        resp = np.exp(logj - top)
        total = resp.sum(axis=0)
        resp /= total
        row_ll = np.log(total) + top  # (n, draws)
        if fixed is not None and fixed.size:
            row_ll[fixed] = logj[known[fixed], fixed]
            resp[:, fixed] = 0.0
            resp[known[fixed], fixed] = 1.0
        pointwise[start:stop] = row_ll.T
        if reference_resp is not None:
            cost = -np.einsum("nk,jns->sjk", reference_resp, logj)
            orders[start:stop] = _assignments(cost, free)
        order = orders[start:stop]  # (draws, K)
        membership += np.take_along_axis(resp, order.T[:, None, :], axis=0).sum(axis=2).T
    index = (np.arange(size)[:, None] * k + orders).ravel()
    draws = Draws(
        class_log_prob=np.take_along_axis(flat_class, orders, axis=1).reshape(chains, n_draws, k),
        block_params=[{key: v[index] for key, v in p.items()} for p in raw.block_params],
        sample_stats=raw.sample_stats,
    )
    permuted = (orders != np.arange(k)).any(axis=1).reshape(chains, n_draws)
    return Relabelled(draws, permuted, pointwise.reshape(chains, n_draws, n), membership / size)


# -- the fit ---------------------------------------------------------------------------------
class MCMCMixtureFit(MixtureFit):
    """A mixture fitted by MCMC: the interface of the EM fit (``params``, ``predict``,
    ``predict_proba``, reports) at the posterior mean of the relabelled draws, plus
    the draws themselves.

    Attributes
    ----------
    trace : xarray.DataTree
        ``posterior`` (relabelled draws, the variables, dims and coords of
        :attr:`params` behind ``chain`` and ``draw``), ``posterior_raw`` (the draws as
        sampled), ``sample_stats`` (``permuted``: whether relabelling permuted the draw;
        the sampler's own statistics, e.g. NUTS's ``diverging``), ``log_likelihood``
        (``log p(x_i | theta)`` of every row and draw, for ``az.loo``),
        ``observed_data`` and ``membership``.
    membership : xarray.DataArray
        ``P(component | row, data)``, (row, component): the posterior mean over the
        relabelled draws of every row's responsibilities.
    reference : MixtureFit
        The EM fit the draws were relabelled to.
    n_permuted : int
        Draws whose labels relabelling permuted.
    sampler : str
    diagnostics : dict
        ``max_r_hat``, ``min_ess_bulk`` (ArviZ's, over every parameter of the
        relabelled posterior that is not constant), ``n_divergent`` (NUTS),
        ``n_permuted``, ``seconds``. ``max_r_hat`` and ``min_ess_bulk`` are NaN when
        ArviZ cannot compute them (fewer than 4 draws per chain, or one chain for
        r_hat).
    converged : bool
        Whether every r_hat of the relabelled posterior is at most 1.01; False when
        r_hat could not be computed. Else the fit warns.
    """

    #: Its parameters are the posterior means of the draws, so the whole data's in a
    #: cluster report are too (:func:`bayesnb.cluster_reports.pooled_params`).
    pooled_estimate = "mean"

    trace = None
    membership = None
    reference = None
    n_permuted = None
    sampler = None
    diagnostics = None

    def __repr__(self) -> str:
        if self.diagnostics is None:
            return f"MCMCMixtureFit(n_components={len(self.labels)})"
        d = self.diagnostics
        return (
            f"MCMCMixtureFit(n_components={len(self.labels)}, sampler={self.sampler!r}, "
            f"max_r_hat={d['max_r_hat']:.4f}, n_permuted={self.n_permuted})"
        )

    def summary(self, **kwargs):
        """``arviz.summary`` of the relabelled posterior (mean, sd, interval, ESS,
        r_hat); the table's ``attrs`` hold the divergences (``n_divergent``, NUTS) and
        the relabelled draws (``n_permuted``)."""
        import arviz as az

        table = az.summary(self.trace, **kwargs)
        table.attrs.update(n_divergent=self.diagnostics["n_divergent"], n_permuted=self.n_permuted)
        return table

    def save(self, path) -> None:
        """Not for an MCMC fit: it is its draws. Save ``fit.trace`` (an
        ``xarray.DataTree``) with ``fit.trace.to_netcdf(path)``."""
        raise InputError(
            f"save: an MCMC fit is its draws, which a model file does not hold; got path "
            f"{str(path)!r}. Save the draws with fit.trace.to_netcdf(path) (read them back "
            "with xarray.open_datatree), or save the EM fit, fit.reference.save(path)."
        )


def sample_mixture(problem: _Problem, reference: MixtureFit, sampler, draws, chains, tune, rng):
    """The MCMC fit of ``problem`` (see :func:`bayesnb.mixture.fit_mixture`)."""
    check_memory(problem, reference, draws, chains)
    began = time.perf_counter()
    start = _State(reference.block_params, reference.class_log_prob)
    if sampler == "gibbs":
        raw = gibbs(problem, start, draws, chains, tune, rng)
    else:
        raw = sample_nuts(problem, reference, sampler, draws, chains, tune, rng)
    # known rows fix the labels of their components; the others can still switch
    ref_resp = (
        None if pinned_components(problem).sum() >= problem.K - 1 else reference.responsibilities
    )
    done = relabel(problem, raw, ref_resp)
    seconds = time.perf_counter() - began
    return _fit_from(problem, reference, raw, done, sampler, seconds)


def _fit_from(problem, reference, raw: Draws, done: Relabelled, sampler, seconds):
    chains, n_draws = raw.shape
    lead = {"chain": np.arange(chains), "draw": np.arange(n_draws)}
    posterior = stacked_dataset(
        reference, np.exp(done.draws.class_log_prob), done.draws.block_params, lead
    )
    mean = posterior.mean(("chain", "draw"))
    state = _State(*_mean_state(problem, mean))
    sweep = problem.sweep(state)
    fit = MCMCMixtureFit._at(
        problem, _State(state.block_params, state.class_log_prob, sweep.stats, sweep.class_counts)
    )
    fit.log_likelihood = sweep.log_likelihood
    fit.objective = sweep.objective
    fit.responsibilities = np.ascontiguousarray(sweep.resp.T)
    fit.n_samples, fit.total_weight = problem.n, problem.total_weight
    labels = reference.params["component"].values
    rows = {"row": problem.table.row_labels()}
    membership = xr.DataArray(
        done.membership,
        dims=("row", "component"),
        coords={**rows, "component": labels},
        name="membership",
    )
    stats = {
        "permuted": xr.DataArray(done.permuted, dims=("chain", "draw")),
        "log_likelihood": xr.DataArray(done.pointwise.sum(axis=2), dims=("chain", "draw")),
        **{
            name: xr.DataArray(value, dims=("chain", "draw"))
            for name, value in raw.sample_stats.items()
        },
    }
    attrs = _attrs(sampler=sampler, draws=n_draws, chains=chains, method="MCMC")
    groups = {
        "posterior": posterior,
        "posterior_raw": stacked_dataset(
            reference, np.exp(raw.class_log_prob), raw.block_params, lead
        ),
        "sample_stats": xr.Dataset(stats, coords=lead),
        "log_likelihood": _log_likelihood_group(done.pointwise, lead, rows["row"]),
        "observed_data": xr.Dataset(observed_values(problem.blocks, problem.table), coords=rows),
        "membership": xr.Dataset({"membership": membership}),
    }
    constant = weighted_rows(problem.weights, rows)
    if constant is not None:
        groups["constant_data"] = constant
    for ds in groups.values():
        ds.attrs.update(attrs)
    fit.trace = data_tree(groups)
    fit.membership = membership
    fit.reference = reference
    fit.n_permuted = int(done.permuted.sum())
    fit.sampler = sampler
    _diagnose(fit, raw, sampler, seconds)
    return fit


def _diagnose(fit: MCMCMixtureFit, raw: Draws, sampler: str, seconds: float) -> None:
    """``fit.diagnostics`` and ``fit.converged`` from ArviZ's r_hat and bulk ESS of the
    relabelled posterior, with a ``ConvergenceWarning`` when the chains disagree or
    when the diagnostics cannot be computed.

    A parameter that is constant over every draw (one component's weight 1) has no
    spread, so its r_hat and ESS are NaN by nature and are left out. Any other NaN
    means ArviZ could not compute the diagnostic (too few draws or chains: its split
    r_hat needs at least 4 draws per chain and 2 chains); ``max_r_hat`` and
    ``min_ess_bulk`` are then NaN and the fit is not converged, rather than read as
    r_hat 1 and infinite ESS.
    """
    import arviz as az

    posterior = fit.trace["posterior"].ds
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN where a draw is constant
        r_hat = az.rhat(posterior)
        ess = az.ess(posterior)
    undefined, worst = [], {}  # the largest r_hat of every parameter that moves
    r_all, ess_all = [], []
    for name in posterior.data_vars:
        moves = np.ptp(posterior[name].values, axis=(0, 1)) > 0  # constant: NaN by nature
        r, e = np.asarray(r_hat[name].values)[moves], np.asarray(ess[name].values)[moves]
        if np.any(np.isnan(r) | np.isnan(e)):
            undefined.append(name)
        if r.size and not np.isnan(r).any():
            worst[name] = float(r.max())
        r_all.append(r)
        ess_all.append(e)
    # NaN when ArviZ gives NaN for a parameter that moves; with every parameter
    # constant, r_hat 1 and ESS infinite
    r_all, ess_all = np.concatenate(r_all), np.concatenate(ess_all)
    max_r_hat = float("nan") if np.isnan(r_all).any() else float(np.max(r_all, initial=1.0))
    min_ess = float("nan") if np.isnan(ess_all).any() else float(np.min(ess_all, initial=np.inf))
    fit.diagnostics = {
        "max_r_hat": max_r_hat,
        "min_ess_bulk": min_ess,
        "n_divergent": int(np.sum(raw.sample_stats.get("diverging", 0))),
        "n_permuted": fit.n_permuted,
        "seconds": seconds,
    }
    fit.converged = bool(max_r_hat <= 1.01) and not undefined  # the chains agree
    if fit.converged:
        return
    from sklearn.exceptions import ConvergenceWarning  # imported when it is needed

    chains, n_draws = raw.shape
    if undefined:  # NaN where the draws move: too few draws or chains
        why = [f"{n_draws} draw(s) per chain, fewer than 4"] if n_draws < 4 else []
        why += [f"{chains} chain, fewer than 2"] if chains < 2 else []
        more = f" (and {len(undefined) - 5} more)" if len(undefined) > 5 else ""
        warnings.warn(
            f"MCMC ({sampler}): r_hat or ESS could not be computed: ArviZ gives NaN for "
            f"{', '.join(map(repr, undefined[:5]))}{more} from {chains} chain(s) of {n_draws} "
            f"draw(s) ({'; '.join(why) or 'non-finite draws'}; its r_hat needs at least 4 "
            "draws per chain and 2 chains, its ESS 4 draws). diagnostics reports "
            f"max_r_hat={max_r_hat:.4g} and min_ess_bulk={min_ess:.4g}, and converged=False. "
            "Sample at least 4 draws per chain and 2 chains: the defaults, draws=1000 and "
            "chains=4, are ample.",
            ConvergenceWarning,
            skip_file_prefixes=(_PACKAGE_DIR,),  # the user's call
        )
        return
    warnings.warn(
        f"MCMC ({sampler}) has r_hat = {max_r_hat:.3f} > 1.01 after relabelling, on "
        f"{max(worst, key=worst.get)!r}: the chains disagree. Draw more (draws=, tune=), or "
        "check the trace (fit.trace['posterior']).",
        ConvergenceWarning,
        skip_file_prefixes=(_PACKAGE_DIR,),  # the user's call
    )


def _log_likelihood_group(pointwise: np.ndarray, lead: dict, rows: np.ndarray) -> xr.Dataset:
    """``log p(x_i | theta)`` (chain, draw, row) of every row with an observed value,
    labelled by ``rows`` (the frame's index, or positions).

    A row with none has likelihood 1 under every draw: it is left out (the group's
    ``omitted_rows`` attribute lists it), as ArviZ's PSIS cannot smooth a constant
    and the row adds exactly 0 to every log-likelihood and to the LOO estimate."""
    spread = np.ptp(pointwise, axis=(0, 1))
    empty = np.flatnonzero((spread <= 1e-12) & (np.abs(pointwise[0, 0]) <= 1e-12))
    keep = np.setdiff1d(np.arange(pointwise.shape[2]), empty)
    ds = xr.Dataset(
        {"x": xr.DataArray(pointwise[..., keep], dims=("chain", "draw", "row"))},
        coords={**lead, "row": rows[keep]},
    )
    if empty.size:
        ds.attrs["omitted_rows"] = (
            f"rows {rows[empty[:20]].tolist()} ({empty.size}): no observed value, so "
            "likelihood 1 under every draw"
        )
    return ds


def _mean_state(problem: _Problem, mean: xr.Dataset) -> tuple[list, np.ndarray]:
    """Parameters at the posterior mean (a Dataset in the layout of ``params``)."""
    from bayesnb._starts import start_params

    return start_params(problem.blocks, problem.K, mean)
