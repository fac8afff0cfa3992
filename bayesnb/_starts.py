"""Starting points of EM given by the user, and the names of the components.

A start is either parameters in the layout of :attr:`bayesnb.mixture.MixtureFit.params`
(an ``xarray.Dataset`` or a dict with ``class_prob`` and one entry per feature, in
probabilities, means and variances; a Categorical or Binned block has one entry per
column, over the column's own categories) or a fitted model of the same declaration. This
module turns either into the families' internal parameters (log-probabilities, means
and variances, in each block's column and category order), checking every shape and
value.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesnb.families import Bernoulli, Categorical, Gaussian
from bayesnb.model import FittedModel


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
    if isinstance(block, Categorical):
        # One variable per column (named by the column in a block), each over the
        # column's own categories; laid side by side in the block's stored layout.
        parts = [
            _probabilities(block, block._variable(j), K, block.column_categories[j], source)
            for j in range(block.n_columns)
        ]
        with np.errstate(divide="ignore"):
            return {"log_prob": block._stored(np.log(np.concatenate(parts, axis=1)))}
    if isinstance(block, Bernoulli):
        value = _required(block, name, source)
        arr = _ordered(value, block, name, K, f"{name}_category", block.category_labels())
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
    arr = _probabilities(block, name, K, block.category_labels(), source)
    with np.errstate(divide="ignore"):
        return {"log_prob": np.log(arr)}


def _required(block, key: str, source):
    value = _source_value(source, key)
    if value is None:
        where = "" if key == block.name else f" (column of the {block.kind} block {block.name!r})"
        raise ValueError(
            f"init lacks the parameters of feature {key!r}{where}; give init[{key!r}] in "
            "the layout of MixtureFit.params."
        )
    return value


def _probabilities(block, key: str, K: int, categories: list, source) -> np.ndarray:
    """``init[key]``: (component, category) probabilities over ``categories``, checked."""
    arr = _ordered(_required(block, key, source), block, key, K, f"{key}_category", categories)
    if arr.shape != (K, len(categories)):
        raise ValueError(
            f"init[{key!r}] must have shape ({K}, {len(categories)}) (component, category); "
            f"got {arr.shape}."
        )
    if np.any(arr < 0) or not np.allclose(arr.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError(
            f"init[{key!r}] must hold probabilities summing to 1 over each component's "
            f"categories; the sums are {arr.sum(axis=1).tolist()!r}."
        )
    return arr


def start_params(blocks: list, K: int, source) -> tuple[list, np.ndarray]:
    """Starting ``(block_params, class_log_prob)`` from a fitted model of the same
    declaration, or from parameters in the layout of ``MixtureFit.params``."""
    if isinstance(source, FittedModel):
        names = [(b.name, b.kind, list(b.columns)) for b in source.blocks]
        ours = [(b.name, b.kind, list(b.columns)) for b in blocks]
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
        return [dict(p) for p in source.block_params], np.array(source.class_log_prob, dtype=float)
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
    return [_block_start(b, source, K) for b in blocks], class_log_prob


def component_labels(n_components, init) -> list:
    """The component names: ``range(K)``, the given list, or those named by ``init``."""
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
