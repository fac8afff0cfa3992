"""Low-level kernels of the families: products, block-wise casts and checks, code groups."""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from bayesnb import _compiled

#: Entries of a dense design cast to float at a time: a block small enough to stay in
#: cache, so a Boolean or integer design is read once and never copied whole.
_BLOCK_ENTRIES = 1 << 15


def _row_blocks(n_rows: int, n_cols: int):
    """Consecutive row slices of about ``_BLOCK_ENTRIES`` entries each."""
    step = max(1, _BLOCK_ENTRIES // max(1, n_cols))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def _product(design, weights: np.ndarray) -> np.ndarray:
    """``design @ weights.T``, shape (n, K), stored components first (Fortran order).

    ``design`` is (n, d): float, Boolean or integer, dense or sparse; ``weights`` is
    (K, d). A dense design that is not float64 is cast block by block.
    """
    if sparse.issparse(design):
        return np.asarray(design @ weights.T)
    if design.dtype == np.float64:
        return (weights @ design.T).T
    out = np.empty((weights.shape[0], design.shape[0]))
    buf = np.empty((min(design.shape[0], _BLOCK_ENTRIES), design.shape[1]))
    for rows in _row_blocks(*design.shape):
        block = buf[: rows.stop - rows.start]
        np.copyto(block, design[rows], casting="unsafe")
        out[:, rows] = weights @ block.T
    return out.T


def _guarded_dot(design, logp: np.ndarray) -> np.ndarray:
    """``design @ logp.T`` that never forms ``0 * -inf``.

    Entries of ``logp`` that are ``-inf`` are zeroed in the product; a row that
    actually uses one (a positive design entry) gets ``-inf`` afterwards.
    """
    finite = np.isfinite(logp)
    if finite.all():
        return _product(design, logp)
    out = _product(design, np.where(finite, logp, 0.0))
    hits = _product(design, (~finite).astype(float))
    out[hits > 0] = -np.inf
    return out


def _column_sums(design, resp: np.ndarray) -> np.ndarray:
    """``resp.T @ design``: statistics with the component axis first, shape (K, d).

    A dense design that is not float64 (Boolean, integer) is cast block by block.
    """
    if sparse.issparse(design):
        return np.asarray(design.T @ resp).T
    if design.dtype == np.float64:
        return resp.T @ design
    out = np.zeros((resp.shape[1], design.shape[1]))
    buf = np.empty((min(design.shape[0], _BLOCK_ENTRIES), design.shape[1]))
    for rows in _row_blocks(*design.shape):
        block = buf[: rows.stop - rows.start]
        np.copyto(block, design[rows], casting="unsafe")
        out += resp[rows].T @ block
    return out


def _is_zero_one(x: np.ndarray) -> bool:
    """Whether every entry of the float matrix ``x`` is 0 or 1 (NaN is neither).

    Checked block by block, so ``x`` is read once and no full-size mask is made.
    """
    for rows in _row_blocks(*x.shape):
        block = x[rows]
        if not ((block == 0.0) | (block == 1.0)).all():
            return False
    return True


_INF_BITS = np.float64(np.inf).view(np.uint64)


def _finite_nonnegative(values: np.ndarray) -> bool:
    """Whether every entry of the float64 array ``values`` is finite and >= 0.

    One integer reduction: read as unsigned integers, the non-negative finite doubles
    are exactly the bit patterns below that of ``+inf`` (a set sign bit, ``inf`` and
    NaN all lie above it). Only when that fails (e.g. on ``-0.0``) are the values
    compared as floats.
    """
    flat = np.ascontiguousarray(values).reshape(-1)
    if flat.view(np.uint64).max() < _INF_BITS:
        return True
    return bool(flat.min() >= 0 and flat.max() < np.inf)  # NaN fails both


#: Most joint values of one group of categorical columns (see :func:`_code_groups`):
#: small enough for a group's tables of counts and log-probabilities to stay in cache,
#: large enough to fold several few-valued columns into one code.
_GROUP_CODES = 1 << 13

#: Entries of a block of categorical values turned into group codes at a time.
_CODE_BLOCK_ENTRIES = 1 << 16


@functools.lru_cache(maxsize=64)
def _code_groups(sizes: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    """Adjacent categorical columns folded into one mixed-radix code per group.

    Column ``j`` contributes the digit ``code_j + 1`` in base ``sizes[j] + 1``, where
    ``code_j`` indexes its ``sizes[j]`` categories and the digit 0 stands for a
    missing (or marginalized) value; a group's first column is the least significant
    digit. Columns join a group while its number of codes stays within
    ``_GROUP_CODES``. Returns ``(start, stop, n_codes)`` for every group.
    """
    groups, start = [], 0
    while start < len(sizes):
        stop, n_codes = start + 1, sizes[start] + 1
        while stop < len(sizes) and n_codes * (sizes[stop] + 1) <= _GROUP_CODES:
            n_codes *= sizes[stop] + 1
            stop += 1
        groups.append((start, stop, n_codes))
        start = stop
    return tuple(groups)


class _Layout(NamedTuple):
    """The arrays of :func:`_code_groups` that the compiled loops take."""

    sizes: np.ndarray  # (d,) categories of every column
    bounds: np.ndarray  # (G + 1,) the columns of group g are bounds[g]:bounds[g + 1]
    offsets: np.ndarray  # (G,) the first row of every group in a (codes, K) table
    segments: np.ndarray  # (d,) where every column starts in the flat (K, sum(sizes))
    n_codes: int  # rows of a (codes, K) table: every group's codes


@functools.lru_cache(maxsize=64)
def _layout(sizes: tuple[int, ...]) -> _Layout:
    groups = _code_groups(sizes)
    n_codes = [g[2] for g in groups]
    layout = _Layout(
        sizes=np.asarray(sizes, dtype=np.int64),
        bounds=np.array([g[0] for g in groups] + [len(sizes)], dtype=np.int64),
        offsets=np.concatenate([[0], np.cumsum(n_codes)[:-1]]).astype(np.int64),
        segments=np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64),
        n_codes=int(sum(n_codes)),
    )
    for array in layout[:4]:
        array.flags.writeable = False  # shared by every call through the cache
    return layout


def _group_codes(values: np.ndarray, sizes: tuple[int, ...], check=None) -> np.ndarray:
    """The group codes (n, G) of category codes ``values`` (n, d), -1 where missing.

    One block of rows at a time: ``check(block)`` (optional) validates the block and
    returns it, or a copy with -1 for the values outside the domain; the block is cast
    to a small unsigned buffer, one contiguous row per column, every row is multiplied
    by its column's place value, and each group's rows are summed, plus the group's
    sum of place values (the "+ 1" of every digit). The arithmetic is modulo the
    buffer's range, in which a missing -1 times its place value cancels that "+ 1":
    every code is below the range, so the modular sums are the exact codes.
    """
    groups = _code_groups(sizes)
    n, d = values.shape
    dtype = np.min_scalar_type(max(g[2] for g in groups) - 1)
    place = np.empty((d, 1), dtype=dtype)
    for first, stop, _ in groups:
        value = 1
        for j in range(first, stop):
            place[j] = value
            value *= sizes[j] + 1
    offsets = [int(place[first:stop].sum()) for first, stop, _ in groups]
    out = np.empty((len(groups), n), dtype=dtype)  # returned as (n, G): groups contiguous
    step = max(1, _CODE_BLOCK_ENTRIES // max(1, d))
    digits = np.empty((d, min(n, step)), dtype=dtype)
    for start in range(0, n, step):
        block = values[start : start + step]
        if check is not None:
            block = check(block)
        dig = digits[:, : len(block)]
        np.copyto(dig, block.T, casting="unsafe")
        dig *= place
        for codes, (first, stop, _), offset in zip(out, groups, offsets, strict=True):
            acc = codes[start : start + len(block)]
            np.add.reduce(dig[first:stop], axis=0, out=acc)
            acc += offset
    return out.T


def _group_counts(enc: np.ndarray, resp: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """``resp.T @ one_hot`` of every column, flat (K, sum(sizes)), from group codes.

    One weighted histogram of every group's codes over the rows, then each column's
    counts as the margin of its digit; the digit 0 (missing) is dropped.
    """
    layout = _layout(sizes)
    hist = np.zeros((layout.n_codes, resp.shape[1]))
    _compiled.group_counts(enc, layout.offsets, resp.T, hist)
    out = np.zeros((resp.shape[1], int(layout.sizes.sum())))
    _compiled.group_margins(hist, layout.offsets, layout.bounds, layout.sizes, layout.segments, out)
    return out


def _group_lookup(enc: np.ndarray, logp: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """``sum_j one_hot_j @ logp_j.T`` from group codes: (n, K), components first.

    ``logp`` is flat (K, sum(sizes)). Every group gets a table of the summed
    log-probabilities of its columns' digits (a missing digit adds 0), and every row
    reads one entry per group: a ``-inf`` reaches exactly the rows showing that
    category, and no ``0 * -inf`` is ever formed.
    """
    layout = _layout(sizes)
    table = np.empty((layout.n_codes, logp.shape[0]))
    _compiled.group_tables(
        np.ascontiguousarray(logp, dtype=float),
        layout.offsets,
        layout.bounds,
        layout.sizes,
        layout.segments,
        table,
    )
    out = np.empty((logp.shape[0], len(enc)))
    _compiled.group_lookup(enc, layout.offsets, table, out)
    return out.T


def _as_float_matrix(data, what: str) -> np.ndarray:
    if isinstance(data, pd.DataFrame | pd.Series):
        data = data.to_numpy(dtype=float, na_value=np.nan)
    arr = np.asarray(data)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{what} needs numeric values; got dtype {arr.dtype}. Convert the column, "
            "or declare it Categorical."
        )
    return arr


# ----------------------------------------------------------------------------------------
# Discrete families
# ----------------------------------------------------------------------------------------


def _as_2d(data) -> np.ndarray:
    arr = np.asarray(data)
    return arr[:, None] if arr.ndim == 1 else arr
