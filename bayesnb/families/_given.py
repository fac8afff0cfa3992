"""Parameters given by the user in the layout of the exported ones (``to_xarray``, with
a ``component`` axis): read back into a block's column and category order, checked.

A source is an ``xarray.Dataset`` or a dict with one entry per variable. The families
read their own parameters with these helpers (:meth:`bayesnb.families.Family.params_from`),
for EM's user-given starts.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesnb.errors import InputError


def source_value(source, key: str):
    """``source[key]``, or None when the source does not have it."""
    if isinstance(source, xr.Dataset):
        return source[key] if key in source.data_vars else None
    return source.get(key)


def required(block, key: str, source):
    """``source[key]``, raising an error that names the feature when it is absent."""
    value = source_value(source, key)
    if value is None:
        where = "" if key == block.name else f" (column of the {block.kind} block {block.name!r})"
        raise InputError(
            f"init lacks the parameters of feature {key!r}{where}; give init[{key!r}] in "
            "the layout of MixtureFit.params."
        )
    return value


def ordered(value, block, key: str, K: int, cat_dim: str | None, categories) -> np.ndarray:
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
        raise InputError(
            f"init[{key!r}] must have one entry per component ({K}) on its first axis; got "
            f"shape {arr.shape}. Give it in the layout of MixtureFit.params."
        )
    return arr


def probabilities(block, key: str, K: int, categories: list, source) -> np.ndarray:
    """``source[key]``: (component, category) probabilities over ``categories``, checked."""
    arr = ordered(required(block, key, source), block, key, K, f"{key}_category", categories)
    if arr.shape != (K, len(categories)):
        raise InputError(
            f"init[{key!r}] must have shape ({K}, {len(categories)}) (component, category); "
            f"got {arr.shape}."
        )
    if np.any(arr < 0) or not np.allclose(arr.sum(axis=1), 1.0, atol=1e-9):
        raise InputError(
            f"init[{key!r}] must hold probabilities summing to 1 over each component's "
            f"categories; the sums are {arr.sum(axis=1).tolist()!r}."
        )
    return arr
