"""The exact conjugate posterior of a naive Bayes classifier, in ArviZ's form.

With a Dirichlet prior on the class probabilities and a conjugate prior on every
feature's parameters, the posterior given labelled data factorizes into the same
conjugate families, updated by the sufficient statistics the fit already holds: a
Dirichlet (Beta) for every discrete variable, a Normal-Inverse-Gamma for every
Gaussian one and a Normal-Inverse-Wishart for every multivariate Gaussian block.
Nothing is sampled by a chain: draws are independent, made for every parameter at
once, and every summary that has a closed form (the intervals of each parameter, the
evidence) is computed from it without draws.

The draws reuse the families' own kernels: ``S`` draws of ``K`` classes are laid on
one class axis of ``S * K`` entries (draw-major), so a family scores every draw of
every class in the single call it makes for one set of parameters.
"""

from __future__ import annotations

import datetime
import numbers
import warnings

import numpy as np
import xarray as xr

from bayesnb._data import check_count
from bayesnb._lazy import special
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families._kernels import value_array
from bayesnb.families.base import FusedScorer
from bayesnb.marginals import interval
from bayesnb.priors import _PACKAGE_DIR, random_generator

#: Most entries (rows x draws x classes) of log-likelihoods held at once: the draws
#: are scored in chunks of this size.
CHUNK_ENTRIES = 1 << 23

#: Most values (draws x rows x columns) of one block that ``posterior_predictive``
#: holds (2**25 values are 256 MB as 8-byte numbers); a larger block (a vocabulary of
#: counts) is left out of it and of ``observed_data``, whose ``omitted`` attributes say
#: so.
MAX_DRAWN_VALUES = 1 << 25

METHOD = "exact conjugate"


# -- checks ----------------------------------------------------------------------------------
def check_prob(prob) -> float:
    """The mass of a credible interval: ArviZ's ``rcParams["stats.ci_prob"]`` when
    None, else a number strictly between 0 and 1."""
    if prob is None:
        from arviz_base import rcParams

        return float(rcParams["stats.ci_prob"])
    if isinstance(prob, bool) or not isinstance(prob, numbers.Real):
        raise InputTypeError(
            f"prob must be a number between 0 and 1 (the interval's mass); got {prob!r} "
            f"({type(prob).__name__}). Give e.g. prob=0.94."
        )
    if not 0.0 < prob < 1.0:
        raise InputError(
            f"prob must lie strictly between 0 and 1; got prob={prob!r}. Give the "
            "interval's mass, e.g. 0.94 (not 94)."
        )
    return float(prob)


def check_kind(kind) -> str:
    if kind not in ("eti", "hdi"):
        raise InputError(
            f"kind must be 'eti' (equal-tailed) or 'hdi' (highest density); got {kind!r}."
        )
    return kind


# -- the conjugate posterior and its draws ----------------------------------------------------
def hyperparameters(fit, *, prior: bool = False) -> tuple:
    """The class probabilities' posterior (a Dirichlet over the K classes, or the
    prior's :class:`~bayesnb.priors.PointMass`) and every block's hyperparameters
    (:meth:`bayesnb.families.Family.posterior_hyper`) of the exact posterior, or of
    the prior (``prior=True``: the same update on zero statistics)."""
    class_prior = fit.class_prior.with_categories(len(fit.labels))
    blocks = []
    for block, stats in zip(fit.blocks, fit.stats, strict=True):
        if prior:
            stats = {key: np.zeros_like(value) for key, value in stats.items()}
        blocks.append(block.posterior_hyper(stats))
    return (class_prior if prior else class_prior.posterior(fit.class_counts)), blocks


def draw(fit, hyper, size: int, rng) -> tuple[np.ndarray, list[dict]]:
    """``size`` independent draws of every parameter: the class log-probabilities
    (size, K) and every block's parameters with ``size * K`` classes (draw-major)."""
    class_posterior, blocks = hyper
    class_log_prob = class_posterior.log_sample(rng, size)
    params = [block.draw_params(h, size, rng) for block, h in zip(fit.blocks, blocks, strict=True)]
    return class_log_prob, params


def _chunk(params: list[dict], k: int, start: int, stop: int) -> list[dict]:
    """Draws ``start:stop`` of parameters laid ``size * k`` on the class axis."""
    return [{key: v[start * k : stop * k] for key, v in p.items()} for p in params]


def _chunks(size: int, per_draw: int):
    """``(start, stop)`` of consecutive draws holding about :data:`CHUNK_ENTRIES`."""
    step = max(1, CHUNK_ENTRIES // max(1, per_draw))
    for start in range(0, size, step):
        yield start, min(size, start + step)


# -- export ----------------------------------------------------------------------------------
def stacked_dataset(fit, class_values: np.ndarray, block_values: list[dict], lead: dict):
    """A Dataset with the variables, dims and coords of ``fit.params`` behind leading
    dims ``lead`` (``{dim: coords}``): ``class_values`` is (*lead, K) and every block's
    values have ``prod(lead) * K`` classes, lead-major, as :meth:`draw` lays them."""
    dim = fit.label_dim
    labels = value_array(fit.labels)
    k = len(labels)
    lead_dims = tuple(lead)
    lead_shape = tuple(len(c) for c in lead.values())
    lead_coords = {d: np.asarray(c) for d, c in lead.items()}
    data = {
        "class_prob": xr.DataArray(
            np.reshape(class_values, (*lead_shape, k)),
            dims=(*lead_dims, dim),
            coords={**lead_coords, dim: labels},
        )
    }
    flat = np.arange(int(np.prod(lead_shape)) * k)
    for block, values in zip(fit.blocks, block_values, strict=True):
        for name, da in block.to_xarray(values, None, dim, flat)["params"].items():
            kept = {c: v for c, v in da.coords.items() if c in da.dims and c != dim}
            # other coordinates (a Binned feature's bin edges) go to the attributes:
            # ArviZ's tables stack every variable, and a coordinate that only some
            # variables carry stops them
            extra = {c: v.values.tolist() for c, v in da.coords.items() if c not in da.dims}
            data[name] = xr.DataArray(
                da.values.reshape(*lead_shape, k, *da.shape[1:]),
                dims=(*lead_dims, *da.dims),
                coords={**kept, **lead_coords, dim: labels},
                attrs={**da.attrs, **extra},
            )
    return xr.Dataset(data)


def _attrs(**extra) -> dict:
    from bayesnb import __version__

    return {
        "created_at": datetime.datetime.now(datetime.UTC).isoformat(),
        "creation_library": "bayesnb",
        "creation_library_version": __version__,
        "creation_library_language": "Python",
        "inference_library": "bayesnb",
        "inference_library_version": __version__,
        "method": METHOD,
        **extra,
    }


def observed_values(blocks, table) -> dict:
    """The rows of ``table`` as every block codes them (:meth:`Family.observed_codes`),
    one DataArray per block with dims ``row`` and the block's :meth:`Family.row_dims`
    (a complete discrete block as integers, NaN marking a missing value otherwise)."""
    out = {}
    for block in blocks:
        seen = block.observed_codes(table.take(block.columns)).reshape(table.n_rows, -1)
        out[block.name] = _row_array(block, seen)
    return out


def _row_array(block, values: np.ndarray, lead: tuple = ()) -> xr.DataArray:
    """``values`` (*lead, rows, columns) of ``block`` as a DataArray with dims
    ``(*lead, row, *row_dims)``."""
    extra = block.row_dims()
    if not extra:
        values = values[..., 0]
    coords = {d: value_array(c) for d, c in extra.items()}
    return xr.DataArray(values, dims=(*lead, "row", *extra), coords=coords)


# -- the DataTree ----------------------------------------------------------------------------
def posterior_tree(fit, draws: int, chains: int, random_state, data: bool) -> xr.DataTree:
    """See :meth:`bayesnb.NaiveBayesFit.posterior`."""
    draws, chains = check_count(draws, "draws"), check_count(chains, "chains")
    if not isinstance(data, bool):
        raise InputTypeError(f"data must be True or False; got {data!r}.")
    rng = random_generator(random_state)
    size = draws * chains
    lead = {"chain": np.arange(chains), "draw": np.arange(draws)}
    post_class, post_params = draw(fit, hyperparameters(fit), size, rng)
    prior_class, prior_params = draw(fit, hyperparameters(fit, prior=True), size, rng)
    attrs = _attrs(draws=draws, chains=chains)
    groups = {
        "posterior": stacked_dataset(fit, np.exp(post_class), post_params, lead),
        "prior": stacked_dataset(fit, np.exp(prior_class), prior_params, lead),
    }
    if data and fit.training:
        groups.update(_data_groups(fit, post_class, post_params, (chains, draws), rng))
    elif data:
        warnings.warn(
            "this fit holds no training rows (a model read by bnb.load, made from "
            "statistics or fitted on a Dask collection), so its posterior has no "
            "observed_data, posterior_predictive or log_likelihood group; az.loo and "
            "az.compare need the last. Fit the model on the rows again to have them, or pass "
            "data=False for the posterior and prior alone.",
            UserWarning,
            stacklevel=3,
        )
    for ds in groups.values():
        ds.attrs.update(attrs)
    return data_tree(groups)


def data_tree(groups: dict) -> xr.DataTree:
    """The ``DataTree`` of ``groups`` (name: Dataset); a variable, coordinate or dim
    whose name holds "/" (a column "km/h") is an :class:`~bayesnb.errors.InputError`
    naming it, since a DataTree reads "/" as a path, where xarray would raise its own
    error about paths."""
    for ds in groups.values():
        for name in map(str, [*ds.data_vars, *ds.coords, *ds.dims]):
            if "/" in name:
                example = {name: name.replace("/", "_")}
                raise InputError(
                    f"the name {name!r} holds '/', which an xarray DataTree (the ArviZ "
                    "posterior) reads as a path, so it cannot name a variable or dimension "
                    f"there. Rename that column or label, e.g. X.rename(columns={example!r}), "
                    "and fit again; params, predictions and credible_interval work with "
                    "such names."
                )
    return xr.DataTree.from_dict(groups)


def _data_groups(fit, class_log_prob, params, shape: tuple, rng) -> dict:
    """``observed_data``, ``log_likelihood``, ``posterior_predictive`` and (with
    weights) ``constant_data`` over the fit's training rows, every batch in turn."""
    size, k = class_log_prob.shape
    target = str(fit.target)
    if target in ("row", "chain", "draw"):
        raise InputError(
            f"the fit's target is named {target!r}, the name of a dimension of the "
            "posterior's groups (their rows, chains and draws), so its labels cannot be "
            "stored under that name. Rename the target column before "
            f"fitting (e.g. df.rename(columns={{{target!r}: {target + '_'!r}}}))."
        )
    loglik, label_draws, label_seen, weights = [], [], [], []
    n_total = sum(batch.table.n_rows for batch in fit.training)
    omitted = {
        block.name: (
            f"{size} draws x {n_total} rows x {block.n_columns} columns is more than the "
            f"{MAX_DRAWN_VALUES} values drawn per block"
        )
        for block in fit.blocks
        if size * n_total * block.n_columns > MAX_DRAWN_VALUES
    }
    values = {b.name: ([], []) for b in fit.blocks}  # observed, drawn
    for batch in fit.training:
        codes = batch.labels.codes
        n = len(codes)
        label_seen.append(codes)
        weights.append(np.ones(n) if batch.labels.weights is None else batch.labels.weights)
        loglik.append(_pointwise(fit, batch.table, codes, class_log_prob, params))
        drawn = _draw_labels(class_log_prob, n, rng)
        label_draws.append(drawn.astype(np.min_scalar_type(-k)))  # signed, as ArviZ asks
        components = (np.arange(size)[:, None] * k + drawn).ravel()
        rows = np.tile(np.arange(n), size)
        for block, p in zip(fit.blocks, params, strict=True):
            if block.name in omitted:
                continue
            seen = block.observed_codes(batch.table.take(block.columns))
            seen = seen.reshape(n, -1)
            drawn_values = _sample_codes(block, p, components, rows, seen, k, n, rng)
            values[block.name][0].append(seen)
            values[block.name][1].append(drawn_values.reshape(size, n, -1))
    row = {"row": _row_labels(fit.training, n_total)}
    chain_draw = {"chain": np.arange(shape[0]), "draw": np.arange(shape[1])}
    label_note = {"description": f"position of every row's class on the {fit.label_dim!r} axis"}
    observed = {target: xr.DataArray(np.concatenate(label_seen), dims=("row",), attrs=label_note)}
    predictive = {
        target: xr.DataArray(
            np.concatenate(label_draws, axis=1).reshape(*shape, n_total),
            dims=("chain", "draw", "row"),
            attrs=label_note,
        )
    }
    for block in fit.blocks:
        if block.name in omitted:
            continue
        seen, drawn = (np.concatenate(parts, axis=-2) for parts in values[block.name])
        if drawn.dtype.kind in "iu" and not np.isnan(seen).any():
            seen = seen.astype(drawn.dtype)  # complete codes: the draws' integer type
        observed[block.name] = _row_array(block, seen)
        predictive[block.name] = _row_array(
            block, drawn.reshape(*shape, *drawn.shape[1:]), ("chain", "draw")
        )
    groups = {
        "observed_data": xr.Dataset(observed, coords=row),
        "posterior_predictive": xr.Dataset(predictive, coords={**chain_draw, **row}),
        "log_likelihood": xr.Dataset(
            {
                target: xr.DataArray(
                    np.concatenate(loglik, axis=1).reshape(*shape, n_total),
                    dims=("chain", "draw", "row"),
                    attrs={"description": "log p(features, class | parameters) of every row"},
                )
            },
            coords={**chain_draw, **row},
        ),
    }
    if omitted:
        note = "; ".join(f"{name!r}: {why}" for name, why in omitted.items())
        for name in ("observed_data", "posterior_predictive"):
            groups[name].attrs["omitted"] = note
    constant = weighted_rows(np.concatenate(weights), row)
    if constant is not None:
        groups["constant_data"] = constant
    return groups


def weighted_rows(weights, row: dict) -> xr.Dataset | None:
    """The ``constant_data`` group of training rows with ``weights`` (``row``: their
    coordinate), None when every weight is 1; with a warning that the pointwise
    log-likelihood beside it is unweighted, which ArviZ's LOO cannot know."""
    if weights is None or np.all(weights == 1.0):
        return None
    warnings.warn(
        "this fit has sample weights, and its log_likelihood group holds one entry "
        "per training row, unweighted (rows of weight 0 included; the weights are in "
        "constant_data). az.loo and az.compare, which take no weights, would treat "
        "every row as one observation and misstate the elpd. For them, fit the rows "
        "repeated by their whole-number weights (or without the rows of weight 0) "
        "instead of weighting.",
        UserWarning,
        skip_file_prefixes=(_PACKAGE_DIR,),  # the user's call
    )
    return xr.Dataset({"sample_weight": xr.DataArray(np.asarray(weights), dims=("row",))}, row)


def _row_labels(training: list, n_total: int) -> np.ndarray:
    """The ``row`` coordinate of the training rows: every batch's plain index labels
    (:meth:`~bayesnb._data.Table.index_labels`) in turn, when all are of one kind
    (numbers, text or datetimes); else positions 0..n-1."""
    labels = [batch.table.index_labels() for batch in training]
    if any(v is None for v in labels):
        return np.arange(n_total)
    kinds = {"n" if v.dtype.kind in "biuf" else v.dtype.kind for v in labels}
    return np.concatenate(labels) if len(kinds) == 1 else np.arange(n_total)


def _pointwise(fit, table, codes, class_log_prob, params) -> np.ndarray:
    """``log p(x_i, y_i | theta_s)`` (draws, rows) of one batch of rows."""
    size, k = class_log_prob.shape
    n = len(codes)
    out = np.empty((size, n))
    for start, stop in _chunks(size, n * k):
        jll = FusedScorer.of_blocks(fit.blocks, _chunk(params, k, start, stop)).scores(table)
        jll = jll.reshape(n, stop - start, k)
        own = np.take_along_axis(jll, codes[:, None, None], axis=2)[..., 0]
        out[start:stop] = own.T + class_log_prob[start:stop][:, codes]
    return out


def _draw_labels(class_log_prob: np.ndarray, n: int, rng) -> np.ndarray:
    """A class for each of ``n`` rows under every draw's class probabilities (draws, n)."""
    cumulative = np.cumsum(np.exp(class_log_prob), axis=1)
    u = rng.random((len(class_log_prob), n)) * cumulative[:, -1:]
    drawn = np.zeros(u.shape, dtype=np.intp)
    for j in range(class_log_prob.shape[1] - 1):
        drawn += u >= cumulative[:, j : j + 1]
    return drawn


def _sample_codes(block, params, components, rows, seen, k, n, rng) -> np.ndarray:
    """The block's draws for every (draw, row), chunk by chunk of draws."""
    size = len(components) // n
    parts = []
    per_draw = n * max(1, seen.shape[1])
    for start, stop in _chunks(size, per_draw):
        span = slice(start * n, stop * n)
        parts.append(
            np.reshape(
                block.sample_codes(params, components[span], rng, seen, rows[span]),
                (stop * n - start * n, -1),
            )
        )
    return np.concatenate(parts)


# -- summaries in closed form ----------------------------------------------------------------
def credible_interval(fit, prob, kind: str) -> xr.Dataset:
    """See :meth:`bayesnb.NaiveBayesFit.credible_interval`."""
    prob, kind = check_prob(prob), check_kind(kind)
    class_posterior, blocks = hyperparameters(fit)
    class_bounds = np.stack(interval(class_posterior.marginal(), prob, kind))
    block_values = []
    for block, hyper in zip(fit.blocks, blocks, strict=True):
        bounds = {}
        for key, marginal in block.marginals(hyper).items():
            stacked = np.stack(interval(marginal, prob, kind))
            bounds[key] = stacked.reshape(-1, *stacked.shape[2:])
        block_values.append(bounds)
    lead = {"ci_bound": ["lower", "upper"]}
    ds = stacked_dataset(fit, class_bounds, block_values, lead).transpose(..., "ci_bound")
    ds.attrs.update(prob=prob, kind=kind, method=METHOD)
    return ds


def exact_summary(fit, prob=None) -> xr.Dataset:
    """Every parameter's exact posterior mean, sd and equal-tailed interval: the
    variables of ``fit.params`` with a last dim ``stat`` (mean, sd, lower, upper)."""
    prob = check_prob(prob)
    class_posterior, blocks = hyperparameters(fit)
    marginals = [{"class": class_posterior.marginal()}]
    marginals += [block.marginals(hyper) for block, hyper in zip(fit.blocks, blocks, strict=True)]
    values = []
    for group in marginals:
        out = {}
        for key, m in group.items():
            stacked = np.stack([m.mean(), m.std(), *interval(m, prob, "eti")])
            out[key] = stacked.reshape(-1, *stacked.shape[2:])
        values.append(out)
    class_values = values[0]["class"].reshape(4, -1)
    lead = {"stat": ["mean", "sd", "lower", "upper"]}
    ds = stacked_dataset(fit, class_values, values[1:], lead).transpose(..., "stat")
    ds.attrs.update(prob=prob, method=METHOD)
    return ds


def log_evidence(fit) -> float:
    """See :meth:`bayesnb.NaiveBayesFit.log_evidence`."""
    k = len(fit.labels)
    total = fit.class_prior.with_categories(k).log_marginal_likelihood(fit.class_counts)
    for block, stats in zip(fit.blocks, fit.stats, strict=True):
        try:
            total += block.log_marginal(stats, k)
        except NotImplementedError:
            raise InputError(
                f"{block.kind} feature {block.name!r} has no closed-form marginal "
                "likelihood (it has no conjugate prior in bayesnb), so the fit has no "
                "log_evidence. Compare such declarations by held-out log-likelihood "
                "(log_likelihood_rows on test rows) or by BIC instead."
            ) from None
    return float(total)


# -- predictions under the posterior ----------------------------------------------------------
def posterior_predict(fit, X, draws: int, chains: int, random_state) -> xr.DataArray:
    """See :meth:`bayesnb.NaiveBayesFit.posterior_predict`."""
    draws, chains = check_count(draws, "draws"), check_count(chains, "chains")
    rng = random_generator(random_state)
    fit._posterior_scores(X)  # the point estimate's checks: every row has a posterior
    table = fit._table(X)
    size, k = draws * chains, len(fit.labels)
    class_log_prob, params = draw(fit, hyperparameters(fit), size, rng)
    n = table.n_rows
    out = np.empty((size, n, k))
    for start, stop in _chunks(size, n * k):
        scores = FusedScorer.of_blocks(fit.blocks, _chunk(params, k, start, stop))
        jll = scores.scores(table, posterior=True).reshape(n, stop - start, k)
        jll += class_log_prob[start:stop]
        with np.errstate(invalid="ignore"):
            jll -= special.logsumexp(jll, axis=2, keepdims=True)
        out[start:stop] = np.exp(jll).transpose(1, 0, 2)
    if not np.isfinite(out).all():
        s, i = (int(v) for v in np.argwhere(~np.isfinite(out).all(axis=2))[0])
        raise InputError(
            f"row {i} of X has no class posterior under posterior draw {s}: its "
            "likelihood is 0 (or not a number) under every class there, a value too "
            "large in magnitude for the densities. Rescale that row's features."
        )
    rows = table.row_labels()
    return xr.DataArray(
        out.reshape(chains, draws, n, k),
        dims=("chain", "draw", "row", fit.label_dim),
        coords={
            "chain": np.arange(chains),
            "draw": np.arange(draws),
            "row": rows,
            fit.label_dim: value_array(fit.labels),
        },
        name="class_posterior",
        attrs={"description": "P(class | row, parameters) under every posterior draw"},
    )


def predictive_interval(fit, X, prob, kind, draws, chains, random_state) -> xr.Dataset:
    """See :meth:`bayesnb.NaiveBayesFit.predictive_interval`."""
    prob, kind = check_prob(prob), check_kind(kind)
    p = posterior_predict(fit, X, draws, chains, random_state)
    samples = p.values.reshape(p.shape[0] * p.shape[1], *p.shape[2:])  # (draws, rows, labels)
    if kind == "eti":
        lower, upper = np.quantile(samples, [(1.0 - prob) / 2.0, (1.0 + prob) / 2.0], axis=0)
    else:
        lower, upper = _sample_hdi(samples, prob)
    dims = ("row", fit.label_dim)
    coords = {d: p.coords[d] for d in dims}
    ds = xr.Dataset(
        {
            "mean": xr.DataArray(samples.mean(axis=0), dims=dims, coords=coords),
            "lower": xr.DataArray(lower, dims=dims, coords=coords),
            "upper": xr.DataArray(upper, dims=dims, coords=coords),
        }
    )
    ds.attrs.update(prob=prob, kind=kind, method=METHOD, draws=int(samples.shape[0]))
    return ds


def _sample_hdi(samples: np.ndarray, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """The shortest interval holding ``ceil(prob * S)`` of ``S`` draws (first axis)."""
    ordered = np.sort(samples, axis=0)
    size = len(ordered)
    m = min(size - 1, max(1, int(np.ceil(prob * size)) - 1))
    widths = ordered[m:] - ordered[: size - m]
    start = np.argmin(widths, axis=0)[None]
    lower = np.take_along_axis(ordered, start, axis=0)[0]
    upper = np.take_along_axis(ordered, start + m, axis=0)[0]
    return lower, upper
