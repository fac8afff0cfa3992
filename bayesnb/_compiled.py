"""The compiled loops of the families' kernels and of the class labels.

Each function here is plain Python over arrays, compiled by numba the first time it
is called (numba is imported then, so ``import bayesnb`` stays fast) and cached on
disk, so later processes load the machine code instead of compiling again. The
loops over group codes go by blocks of rows, one group at a time, so each group's
part of a table stays in cache; a row whose responsibilities have a single non-zero
entry (a classifier's label) costs one update instead of K.

Group codes (see :func:`bayesnb.families._kernels._code_groups`): the columns of a
discrete block are folded into one mixed-radix code per group of adjacent columns.
Column ``j``'s digit is its category code + 1, or 0 when the value is missing, in
base ``sizes[j] + 1``, the group's first column least significant;
``bounds[g]:bounds[g + 1]`` are the columns of group ``g``, whose codes occupy rows
``offsets[g]:offsets[g] + n_codes`` of a (codes, K) table, and column ``j``'s
categories start at ``segments[j]`` of a flat (K, sum of sizes) array.
"""

from __future__ import annotations

import functools

import numpy as np

#: The loops below, by name, and their numba dispatchers once compiled.
_LOOPS: dict = {}
_DISPATCHERS: dict = {}


def _jit(func):
    """``func`` run through numba (no Python objects, cached on disk).

    Every loop of this module is handed to ``numba.njit`` on the first call of any of
    them, and the module's names then point at the dispatchers, so a loop that calls
    another is compiled against the compiled one.
    """
    _LOOPS[func.__name__] = func

    @functools.wraps(func)
    def call(*args):
        if not _DISPATCHERS:
            _compile_all()
        return _DISPATCHERS[func.__name__](*args)

    return call


def _compile_all() -> None:
    import numba

    for name, func in _LOOPS.items():
        _DISPATCHERS[name] = globals()[name] = numba.njit(cache=True, nogil=True)(func)


#: Rows of a block of :func:`group_counts` and :func:`group_lookup`: each group's
#: codes, and the block's labels or scores, are read from L1 while one group's part of
#: the table stays in L2.
_BLOCK_ROWS = 2048


@_jit
def group_counts(codes, offsets, resp, hist):
    """Add ``resp`` (K, n) to ``hist`` (codes, K) at every row's code of every group.

    By blocks of rows, one group at a time: a block's weights are copied once, rows
    first, and each group's part of ``hist`` is updated while it is in cache. A row
    whose responsibilities have one non-zero entry (a label) adds that entry alone.
    """
    n, n_groups = codes.shape
    n_comp = resp.shape[0]
    label = np.empty(_BLOCK_ROWS, dtype=np.int64)  # -1: several non-zero entries
    weights = np.empty((_BLOCK_ROWS, n_comp))
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(n, start + _BLOCK_ROWS)
        for i in range(start, stop):
            m, last = 0, 0
            for k in range(n_comp):
                w = resp[k, i]
                weights[i - start, k] = w
                if w != 0.0:
                    m += 1
                    last = k
            label[i - start] = last if m == 1 else -1
        for g in range(n_groups):
            offset = offsets[g]
            for i in range(start, stop):
                b = offset + codes[i, g]
                k = label[i - start]
                if k >= 0:
                    hist[b, k] += weights[i - start, k]
                else:
                    for k in range(n_comp):
                        hist[b, k] += weights[i - start, k]


@_jit
def group_lookup(codes, offsets, table, out):
    """``out[k, i] = sum_g table[offsets[g] + codes[i, g], k]``: out (K, n).

    By blocks of rows, one group at a time: each row reads its K entries of the
    group's part of ``table`` (adjacent), and the block's sums stay in cache.
    """
    n, n_groups = codes.shape
    n_comp = table.shape[1]
    acc = np.empty((_BLOCK_ROWS, n_comp))
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(n, start + _BLOCK_ROWS)
        acc[:] = 0.0
        for g in range(n_groups):
            offset = offsets[g]
            for i in range(start, stop):
                b = offset + codes[i, g]
                for k in range(n_comp):
                    acc[i - start, k] += table[b, k]
        for k in range(n_comp):
            for i in range(start, stop):
                out[k, i] = acc[i - start, k]


@_jit
def group_tables(logp, offsets, bounds, sizes, segments, table):
    """Fill ``table`` (codes, K): the summed ``logp`` (K, sum of sizes) of every code's
    digits (a missing digit adds 0).

    Built digit by digit from the least significant: the codes of the first ``cur``
    places are extended by each value of the next digit, so the work is about the
    table's size, not its size times the number of columns.
    """
    n_comp = logp.shape[0]
    for g in range(len(offsets)):
        base = offsets[g]
        table[base] = 0.0
        cur = 1
        for j in range(bounds[g], bounds[g + 1]):
            for digit in range(1, sizes[j] + 1):
                column = segments[j] + digit - 1
                for c in range(cur):
                    for k in range(n_comp):
                        table[base + digit * cur + c, k] = table[base + c, k] + logp[k, column]
            cur *= sizes[j] + 1


@_jit
def _digit_margins(part, first, stop, sizes, segments, out):
    """Add the margin of every column ``first..stop-1`` of ``part`` (codes, K), whose
    codes hold those columns' digits only, to ``out`` (K, sum of sizes)."""
    n_comp = part.shape[1]
    for c in range(part.shape[0]):
        rest = c
        for j in range(first, stop):
            base = sizes[j] + 1
            digit = rest % base
            rest //= base
            if digit:
                column = segments[j] + digit - 1
                for k in range(n_comp):
                    out[k, column] += part[c, k]


@_jit
def group_margins(hist, offsets, bounds, sizes, segments, out):
    """Add every column's counts (the margin of its digit, without digit 0) from
    ``hist`` (codes, K) to ``out`` (K, sum of sizes).

    Each group is split into its low and high columns: one read of the group's
    histogram sums it over the high digits and over the low ones, and the margins
    come from those two small tables.
    """
    n_comp = hist.shape[1]
    for g in range(len(offsets)):
        first, stop = bounds[g], bounds[g + 1]
        half = first + (stop - first) // 2
        n_low = 1
        for j in range(first, half):
            n_low *= sizes[j] + 1
        n_high = 1
        for j in range(half, stop):
            n_high *= sizes[j] + 1
        low = np.zeros((n_low, n_comp))
        high = np.zeros((n_high, n_comp))
        for h in range(n_high):
            for lo in range(n_low):
                b = offsets[g] + h * n_low + lo
                for k in range(n_comp):
                    v = hist[b, k]
                    low[lo, k] += v
                    high[h, k] += v
        _digit_margins(low, first, half, sizes, segments, out)
        _digit_margins(high, half, stop, sizes, segments, out)


@_jit
def rank_codes(values, lo, n_range, codes):
    """Fill ``codes`` with the rank of every value of the integer array ``values``
    among its distinct values, all in ``lo..lo+n_range-1``; return the rank of every
    value of that range (-1 for a value absent)."""
    rank = np.zeros(n_range, dtype=np.int64)
    for i in range(len(values)):
        rank[values[i] - lo] = 1
    seen = 0
    for r in range(n_range):
        if rank[r]:
            rank[r] = seen
            seen += 1
        else:
            rank[r] = -1
    for i in range(len(values)):
        codes[i] = rank[values[i] - lo]
    return rank


@_jit
def one_hot(codes, weights, resp):
    """Fill ``resp`` (K, n) with ``weights[i]`` (or ``weights[0]`` for every row, when
    ``weights`` has one entry) at ``codes[i]`` in column ``i`` and 0 elsewhere."""
    n_comp, n = resp.shape
    each = len(weights) > 1
    for i in range(n):
        for k in range(n_comp):
            resp[k, i] = 0.0
        resp[codes[i], i] = weights[i] if each else weights[0]
