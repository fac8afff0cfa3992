"""Input validation: tables, targets and the binding of declarations to columns."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from scipy import sparse

from bayesnb import _compiled
from bayesnb.families import Bernoulli, Categorical, Family, Gaussian
from bayesnb.families._kernels import Labels

ARRAY_BLOCK = "X"


@functools.lru_cache(maxsize=16)
def _default_names(n_columns: int) -> tuple[str, ...]:
    """``x0, x1, ...``: the column names of an array (made once per width)."""
    return tuple(f"x{i}" for i in range(n_columns))


class Table:
    """A DataFrame, 2-D ndarray or scipy.sparse matrix with named columns."""

    def __init__(self, data, feature_names=None):
        if isinstance(data, pd.DataFrame):
            names = [str(c) for c in data.columns]
            if len(set(names)) != len(names):
                raise ValueError(
                    f"X has duplicate column names {names!r}; rename them so every feature "
                    "has its own name."
                )
            if names != list(data.columns):
                data = data.set_axis(names, axis=1)
        elif sparse.issparse(data):
            data = sparse.csr_array(data)
            names = None
        else:
            data = np.asarray(data)
            if data.ndim != 2:
                raise ValueError(
                    f"X must be 2-D (n_samples, n_features); got an array of shape "
                    f"{data.shape}. Reshape a single feature with x.reshape(-1, 1)."
                )
            names = None
        if names is None:
            names = (
                list(_default_names(data.shape[1]))
                if feature_names is None
                else [str(n) for n in feature_names]
            )
        if len(names) != data.shape[1]:
            raise ValueError(f"feature_names has {len(names)} names for {data.shape[1]} columns.")
        self.data = data
        self.names = names
        self.is_frame = isinstance(data, pd.DataFrame)
        self.n_rows = data.shape[0]

    def take(self, columns: list[str]):
        """The sub-table of ``columns``: a DataFrame, or an array (a view, without copying,
        when the columns are adjacent, e.g. a single one)."""
        if self.is_frame:
            return self.data[columns]
        if columns == self.names:
            return self.data
        position = {name: j for j, name in enumerate(self.names)}
        index = [position[c] for c in columns]
        if index and index == list(range(index[0], index[0] + len(index))):
            return self.data[:, index[0] : index[0] + len(index)]
        return self.data[:, index]


def split_target(X, y, target):
    """Return ``(X, y, target_name)`` from either ``y`` or a ``target`` column of X."""
    if target is not None:
        if y is not None:
            raise ValueError("give either y or target=, not both.")
        if not isinstance(X, pd.DataFrame):
            raise TypeError(
                f"target={target!r} names a column, so X must be a DataFrame; got "
                f"{type(X).__name__}. Pass y= instead."
            )
        if target not in X.columns:
            raise ValueError(
                f"target={target!r} is not a column of X; columns are {list(X.columns)!r}."
            )
        return X.drop(columns=[target]), X[target], str(target)
    if y is None:
        raise ValueError("fit needs the class of every row: pass y= or target=.")
    name = y.name if isinstance(y, pd.Series) and y.name is not None else "label"
    return X, y, str(name)


def infer_family(values) -> Family:
    """Default family for a column or array: bool and 0/1 -> Bernoulli, float ->
    Gaussian, anything else (strings, categories, other integers) -> Categorical."""
    dtype = values.dtype
    if dtype.kind == "b":
        return Bernoulli()
    if dtype.kind in "iu":
        arr = values.to_numpy() if hasattr(values, "to_numpy") else values
        if arr.size and arr.min() >= 0 and arr.max() <= 1:
            return Bernoulli()
        return Categorical()
    if dtype.kind == "f":
        return Gaussian()
    return Categorical()


def declare(features, table: Table) -> list[tuple[str, Family, list[str]]]:
    """Resolve the user's declaration into ``(name, family, columns)`` triples."""
    if features is None:
        if not table.is_frame:  # an array is one block: its columns share a dtype
            data = table.data
            family = Bernoulli() if sparse.issparse(data) else infer_family(data)
            return [(ARRAY_BLOCK, family, table.names)]
        return [(n, infer_family(table.data[n]), [n]) for n in table.names]
    if isinstance(features, Family):
        # One block over an array; one feature per named column of a DataFrame, except
        # for a Multinomial, whose columns only make sense together.
        if features.multi_column and (not table.is_frame or features.kind == "multinomial"):
            return [(ARRAY_BLOCK, features, table.names)]
        return [(n, features, [n]) for n in table.names]
    if not isinstance(features, dict):
        raise TypeError(
            "features must be a dict {name: family}, a single family for every column, or "
            f"None to infer from dtypes; got {type(features).__name__}."
        )
    out, used, present = [], {}, set(table.names)
    for name, family in features.items():
        if not isinstance(family, Family):
            raise TypeError(
                f"features[{name!r}] must be a family such as bnb.Categorical(); got {family!r}."
            )
        columns = [str(c) for c in (family.columns or [name])]
        missing = [c for c in columns if c not in present]
        if missing:
            raise ValueError(
                f"features[{name!r}] refers to column(s) {missing!r}, which X does not have. "
                f"X has {table.names[:20]!r}."
            )
        for c in columns:
            if c in used:
                raise ValueError(f"column {c!r} is declared twice, by {used[c]!r} and {name!r}.")
            used[c] = name
        out.append((str(name), family, columns))
    undeclared = [c for c in table.names if c not in used]
    if undeclared:
        raise ValueError(
            f"X has column(s) {undeclared[:10]!r} that no feature declares. Declare them in "
            "`features`, or drop them from X."
        )
    return out


def encode_labels(y, n_rows: int, labels=None):
    """Codes of ``y`` into sorted ``labels`` (learned when not given)."""
    if labels is None and not isinstance(y, pd.Series):
        fast = _integer_codes(y, n_rows)
        if fast is not None:
            return fast
    y = pd.Series(np.asarray(y) if not isinstance(y, pd.Series) else y.to_numpy())
    if len(y) != n_rows:
        raise ValueError(f"y has {len(y)} entries for {n_rows} rows of X.")
    if y.isna().any():
        raise ValueError(
            f"y has {int(y.isna().sum())} missing label(s). Supervised fitting needs every "
            "class; drop those rows, or cluster with the mixture model (semi-supervised)."
        )
    if labels is None:
        labels = sorted(pd.unique(y).tolist())
    codes = pd.Categorical(y, categories=labels).codes
    if (codes < 0).any():
        raise ValueError(f"y has labels outside {labels!r}.")
    return np.asarray(codes, dtype=np.intp), list(labels)


def _integer_codes(y, n_rows: int):
    """``(codes, labels)`` of an integer array ``y`` over a modest range, without pandas.

    ``None`` when ``y`` is not such an array (the general path then handles it).
    """
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or len(arr) != n_rows or not len(arr):
        return None
    lo, hi = int(arr.min()), int(arr.max())
    if hi - lo > 2 * len(arr) + 1024 or hi > np.iinfo(np.intp).max:
        return None
    codes = np.empty(len(arr), dtype=np.intp)
    rank = _compiled.rank_codes(arr, lo, hi - lo + 1, codes)
    return codes, (np.flatnonzero(rank >= 0) + lo).tolist()


def class_labels(codes: np.ndarray, n_labels: int, sample_weight=None) -> Labels:
    """The class labels as responsibilities: ``codes`` with their validated weights."""
    w = None
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=float)
        if w.shape != (len(codes),) or np.any(w < 0) or not np.all(np.isfinite(w)):
            raise ValueError(
                f"sample_weight must be {len(codes)} finite non-negative numbers; got shape "
                f"{w.shape}."
            )
        if len(w) and not w.any():
            raise ValueError(
                "sample_weight is zero for every row, so there is nothing to learn from; "
                "give at least one row a positive weight."
            )
    return Labels(codes, n_labels, w)
