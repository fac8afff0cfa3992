"""Starting points of EM given by the user, and the names of the components.

A start is either parameters in the layout of :attr:`bayesnb.mixture.MixtureFit.params`
(an ``xarray.Dataset`` or a dict with ``class_prob`` and one entry per feature, in
probabilities, means and variances; a Categorical or Binned block has one entry per
column, over the column's own categories) or a fitted model of the same declaration. This
module checks the component weights, and each family reads its own parameters into its
internal layout (:meth:`bayesnb.families.Family.params_from`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb.errors import InputError, InputTypeError
from bayesnb.families._given import source_value as _source_value
from bayesnb.model import FittedModel


def start_params(blocks: list, K: int, source) -> tuple[list, np.ndarray]:
    """Starting ``(block_params, class_log_prob)`` from a fitted model of the same
    declaration, or from parameters in the layout of ``MixtureFit.params``."""
    if isinstance(source, FittedModel):
        names = [(b.name, b.kind, list(b.columns)) for b in source.blocks]
        ours = [(b.name, b.kind, list(b.columns)) for b in blocks]
        if names != ours or len(source.labels) != K:
            raise InputError(
                f"init is a fitted model with {len(source.labels)} classes and blocks {names!r}; "
                f"EM here has {K} components and blocks {ours!r}. Start from a model fitted "
                "with the same declaration and number of classes."
            )
        for b, p in zip(source.blocks, source.block_params, strict=True):
            if "concentration" in p or "df" in p:
                raise InputError(
                    f"init's feature {b.name!r} holds posterior-predictive parameters; start "
                    "from a model fitted with estimate='ml', 'map' or 'mean'."
                )
        return [dict(p) for p in source.block_params], np.array(source.class_log_prob, dtype=float)
    if not isinstance(source, dict | xr.Dataset):
        raise InputTypeError(
            "init must be 'random', 'uniform', an (n, K) array of responsibilities, a fitted "
            f"model, or parameters as an xarray.Dataset or dict; got {type(source).__name__}."
        )
    weights = _source_value(source, "class_prob")
    if weights is None:
        raise InputError(
            "init lacks 'class_prob', the component weights (one per component); give "
            "init['class_prob'] in the layout of MixtureFit.params."
        )
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (K,) or np.any(weights < 0) or not np.isclose(weights.sum(), 1.0):
        raise InputError(
            f"init['class_prob'] must be {K} non-negative weights summing to 1; got "
            f"{weights.tolist()!r}."
        )
    with np.errstate(divide="ignore"):
        class_log_prob = np.log(weights)
    return [_block_params(b, source, K) for b in blocks], class_log_prob


def _block_params(block, source, K: int) -> dict:
    """The family's reading of its starting parameters, its refusals as InputError."""
    try:
        return block.params_from(source, K)
    except InputError:
        raise
    except ValueError as err:
        raise InputError(str(err)) from err


def component_labels(n_components, init) -> list:
    """The component names: ``range(K)``, the given list, or those named by ``init``."""
    if n_components is None:
        weights = None if isinstance(init, str | np.ndarray) else _init_weights(init)
        if weights is None:
            raise InputError(
                "n_components=None needs init parameters that name the components; give "
                "n_components as an int or a list of names."
            )
        return weights
    if isinstance(n_components, bool | np.bool_):
        raise InputTypeError(
            f"n_components must be an int >= 1 or a list of component names; got "
            f"{n_components!r} (bool). Give e.g. n_components=3."
        )
    if isinstance(n_components, int | np.integer):
        if n_components < 1:
            raise InputError(
                f"n_components must be an int >= 1 or a list of names; got {n_components}."
            )
        return list(range(int(n_components)))
    if isinstance(n_components, str | bytes):
        raise InputTypeError(
            f"n_components must be an int or a list of component names; got the string "
            f"{n_components!r}, which is not a list of names. Give n_components=3, or "
            f"n_components=[{n_components!r}] for a single component of that name."
        )
    if isinstance(n_components, float | np.floating):
        raise InputTypeError(
            f"n_components must be an int or a list of component names; got "
            f"{n_components!r} (float). Give a whole number, e.g. n_components=3."
        )
    if not isinstance(n_components, list | tuple | range | np.ndarray | pd.Index | pd.Series):
        raise InputTypeError(
            f"n_components must be an int or a list of component names; got "
            f"{type(n_components).__name__}. Give e.g. n_components=3 or ['a', 'b']."
        )
    labels = list(n_components.tolist() if hasattr(n_components, "tolist") else n_components)
    if not labels or len(set(labels)) != len(labels):
        raise InputError(
            f"n_components must be a positive int or a list of distinct names; got {labels!r}."
        )
    missing = [name for name in labels if _is_missing(name)]
    if missing:
        raise InputError(
            f"n_components names a component {missing[0]!r}, a missing value; a missing "
            "label in y means 'component unknown', so it cannot name a component. Give "
            "every component a name, e.g. n_components=['a', 'b']."
        )
    return labels


def _is_missing(value) -> bool:
    """Whether a scalar is a missing value (None, NaN, pd.NA, NaT)."""
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _init_weights(init):
    if isinstance(init, FittedModel):
        return list(init.labels)
    value = _source_value(init, "class_prob") if isinstance(init, dict | xr.Dataset) else None
    if isinstance(value, xr.DataArray) and "component" in value.coords:
        return value["component"].values.tolist()
    if value is not None:
        return list(range(len(np.asarray(value))))
    return None
