"""The compiled loops of the families' kernels and of the class labels.

Each function here is plain Python over arrays, compiled by numba the first time it
is called (numba is imported then, so ``import bayesnb`` stays fast) and cached on
disk, so later processes load the machine code instead of compiling again. Helpers
marked :func:`_inline` are compiled into the loops that call them.

Group codes (see :func:`bayesnb.families._kernels._code_groups`): the columns of a
discrete block are folded into one mixed-radix code per group of adjacent columns.
Column ``j``'s digit is its category code + 1, or 0 when the value is missing, in
base ``sizes[j] + 1`` with place value ``place[j]``, the group's first column least
significant; ``bounds[g]:bounds[g + 1]`` are the columns of group ``g``, whose codes
occupy rows ``offsets[g]:offsets[g] + n_codes`` of a (codes, K) table, and column
``j``'s categories start at ``segments[j]`` of a flat (K, sum of sizes) array.

The loops over category codes go by blocks of rows: a block's rows are read once
into digits stored column by column, every group's codes are summed from them
along contiguous rows, and each group's part of a table is then updated (counts)
or read (scores) while it is in cache. The ``value_*`` loops make the codes of a
block and use them at once, for a single pass over the data; the ``group_*`` loops
read codes made once by :func:`value_codes`, for EM's repeated passes. A row whose
responsibilities have a single non-zero entry (a classifier's label) costs one
update instead of K.
"""

from __future__ import annotations

import functools

import numpy as np

#: The loops below, by name, and their numba dispatchers once compiled.
_LOOPS: dict = {}
_DISPATCHERS: dict = {}


def _jit(func, inline: bool = False, options: dict | None = None):
    """``func`` run through numba (no Python objects, cached on disk; a division by
    zero gives an infinity or NaN, as in numpy, rather than raising).

    Every loop of this module is handed to ``numba.njit`` on the first call of any of
    them, and the module's names then point at the dispatchers, so a loop that calls
    another is compiled against the compiled one.
    """
    if func.__name__ in _LOOPS:
        raise RuntimeError(f"two compiled loops are named {func.__name__!r}")
    _LOOPS[func.__name__] = (func, inline, options or {})

    @functools.wraps(func)
    def call(*args):
        dispatcher = _DISPATCHERS.get(func.__name__)
        if dispatcher is None:  # the first call (or a loop of a module imported since)
            _compile_all()
            dispatcher = _DISPATCHERS[func.__name__]
        return dispatcher(*args)

    return call


def _inline(func):
    """A helper loop, compiled into every loop that calls it (numba's
    ``inline="always"``): the caller's own buffers then stay distinct from its other
    arrays, which lets the compiler keep values in registers and vectorize."""
    return _jit(func, inline=True)


def _in_order(func):
    """A loop compiled without floating-point reassociation, even where a
    :func:`_reassociated` loop calls it (numba passes a caller's fast-math flags on to
    a callee that sets none): for sums that reordering would slow down."""
    return _jit(func, options={"fastmath": False})


def _reassociated(func):
    """A loop compiled with floating-point reassociation allowed (and contraction into
    fused multiply-adds), so that its sums are vectorized: they then add in a few
    interleaved partial sums instead of one after another, which changes their
    round-off only. NaN and infinities keep their meaning (no ``nnan``/``ninf``)."""
    return _jit(func, options={"fastmath": {"reassoc", "contract"}})


def _compile_all() -> None:
    """Hand every registered loop not yet handed over to numba, and point its module's
    name at the dispatcher (loops of other modules, e.g. the EM loop, register here
    too, under names of their own)."""
    import sys

    import numba

    for name, (func, inline, extra) in _LOOPS.items():
        if name in _DISPATCHERS:
            continue
        options = {"inline": "always"} if inline else {}
        _DISPATCHERS[name] = vars(sys.modules[func.__module__])[name] = numba.njit(
            cache=True, nogil=True, error_model="numpy", **options, **extra
        )(func)


#: Rows of a block of the loops below: each group's codes, and the block's labels or
#: scores, are read from L1 while one group's part of the table stays in L2.
_BLOCK_ROWS = 2048

#: Entries of a block of category codes turned into digits at a time (the digits of
#: a wide block take fewer rows).
_DIGIT_ENTRIES = 1 << 14


@_inline
def _row_weight(weights, i):
    """Row ``i``'s weight: ``weights[i]``, or None for every row when ``weights`` is
    None (unweighted rows; numba then compiles the caller without the multiplies)."""
    return None if weights is None else weights[i]


@_inline
def _weighted(w, v):
    """``w * v``, or ``v`` itself for an unweighted row (``w`` None)."""
    return v if w is None else w * v


@_inline
def _column_major(values):
    """Whether the 2-d ``values`` is stored column by column (a DataFrame's block)."""
    return values.strides[0] < values.strides[1]


@_inline
def _digit_rows(values):
    """Rows of a block of :func:`_block_digits` over ``values``: a column-major block
    reads each column in runs of :data:`_BLOCK_ROWS`; a row-major one takes fewer rows
    the more columns it has."""
    wide = 1 if _column_major(values) else values.shape[1]
    return max(16, min(_BLOCK_ROWS, _DIGIT_ENTRIES // max(1, wide)))


@_jit
def _column_digits(column, size, digit):
    """``digit[r]``: the digit of ``column[r]`` (see :func:`_block_digits`); returns
    how many entries are outside ``0..size-1``."""
    outside = 0
    for r in range(len(column)):
        v = column[r]
        ok = (v >= 0) & (v < size)
        digit[r] = np.int32(v) + 1 if ok else 0
        outside += not ok
    return outside


@_inline
def _block_digits(values, start, stop, sizes, digits, outside, first):
    """Fill ``digits[j, r]`` (a (d, rows) buffer) with the digit of column ``j`` of row
    ``start + r`` of the category codes ``values`` (n, d): the code + 1, or 0 for an
    entry outside ``0..sizes[j]-1`` (a missing -1 or NaN, an unseen value). Return the
    running count of entries outside, ``outside`` plus this block's, and the flat index
    of the first one (``first``, unless it is -1: none yet).

    The rows are read once into digits stored column by column, so the sums of every
    group's place values run along contiguous rows: row by row from a row-major
    ``values``, column by column from a column-major one (a DataFrame's block), so
    that either is read in memory order.
    """
    n_columns = values.shape[1]
    here = 0
    if _column_major(values):
        for j in range(n_columns):
            here += _column_digits(values[start:stop, j], sizes[j], digits[j])
    else:
        for r in range(stop - start):
            row = values[start + r]
            for j in range(n_columns):
                v = row[j]
                ok = (v >= 0) & (v < sizes[j])
                digits[j, r] = np.int32(v) + 1 if ok else 0
                here += not ok
    if here and first < 0:
        for e in range((stop - start) * n_columns):
            if digits[e % n_columns, e // n_columns] == 0:
                first = start * n_columns + e
                break
    return outside + here, first


@_inline
def _fold_group(digits, m, first, stop, place, codes):
    """``codes[r] = sum_j place[j] * digits[j, r]`` over the columns ``first..stop-1``
    of one group, for the block's ``m`` rows."""
    codes[:m] = 0
    for j in range(first, stop):
        p = np.int32(place[j])
        for r in range(m):
            codes[r] += p * digits[j, r]


@_inline
def _block_labels(labels, weights, resp, start, stop, label, weight, soft):
    """Fill ``label``/``weight`` for rows ``start..stop-1``: from the class ``labels``
    (n,) and ``weights`` ((n,), or None: unweighted) when ``labels`` is not empty,
    else from ``resp`` (K, n): the one non-zero entry of a row and its column, or -1
    for a row with several, whose entries are copied to ``soft`` (rows, K)."""
    if len(labels):
        for i in range(start, stop):
            label[i - start] = labels[i]
            weight[i - start] = _weighted(_row_weight(weights, i), 1.0)
        return
    n_comp = resp.shape[0]
    for i in range(start, stop):
        m, last = 0, 0
        for k in range(n_comp):
            w = resp[k, i]
            soft[i - start, k] = w
            nonzero = w != 0.0
            m += nonzero
            last = k if nonzero else last
        label[i - start] = last if m == 1 else -1
        weight[i - start] = resp[last, i]


@_inline
def _count_codes(codes, offset, m, label, weight, soft, hist):
    """Add the block's ``m`` rows, whose codes of one group are ``codes[:m]``, to that
    group's part of ``hist`` (codes, K), from row ``offset`` on: a labelled row adds
    its weight to its class, any other row its ``soft`` row."""
    n_comp = hist.shape[1]
    for r in range(m):
        b = offset + codes[r]
        k = label[r]
        if k >= 0:
            hist[b, k] += weight[r]
        else:
            for k in range(n_comp):
                hist[b, k] += soft[r, k]


@_inline
def _lookup_codes(codes, offset, m, table, acc):
    """Add ``table[offset + codes[r]]`` (K entries, adjacent) to ``acc[r]`` for the
    block's ``m`` rows."""
    for r in range(m):
        b = offset + codes[r]
        for k in range(table.shape[1]):
            acc[r, k] += table[b, k]


@_inline
def _store_scores(acc, start, stop, out):
    """Copy a block's summed scores ``acc`` (rows, K) to its columns of ``out`` (K, n)."""
    for k in range(out.shape[0]):
        for r in range(stop - start):
            out[k, start + r] = acc[r, k]


@_jit
def group_counts(codes, offsets, labels, weights, resp, hist):
    """Add every row of the group codes ``codes`` (n, G) to ``hist`` (codes, K), with
    the weights of :func:`_block_labels`, by blocks of rows, one group at a time."""
    n = codes.shape[0]
    label = np.empty(_BLOCK_ROWS, dtype=np.int64)
    weight = np.empty(_BLOCK_ROWS)
    soft = np.empty((_BLOCK_ROWS, hist.shape[1]))
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(n, start + _BLOCK_ROWS)
        _block_labels(labels, weights, resp, start, stop, label, weight, soft)
        for g in range(len(offsets)):
            _count_codes(codes[start:stop, g], offsets[g], stop - start, label, weight, soft, hist)


@_jit
def value_counts(values, sizes, place, bounds, offsets, labels, weights, resp, hist):
    """:func:`group_counts` of the group codes of the category codes ``values``, made
    block by block and never stored; returns :func:`_block_digits`' outside count and
    first outside entry."""
    n, n_columns = values.shape
    rows = _digit_rows(values)
    digits = np.empty((n_columns, rows), dtype=np.int32)
    codes = np.empty(rows, dtype=np.int32)
    label = np.empty(rows, dtype=np.int64)
    weight = np.empty(rows)
    soft = np.empty((rows, hist.shape[1]))
    outside, first = 0, -1
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        outside, first = _block_digits(values, start, stop, sizes, digits, outside, first)
        _block_labels(labels, weights, resp, start, stop, label, weight, soft)
        for g in range(len(offsets)):
            _fold_group(digits, stop - start, bounds[g], bounds[g + 1], place, codes)
            _count_codes(codes, offsets[g], stop - start, label, weight, soft, hist)
    return outside, first


@_jit
def value_codes(values, sizes, place, bounds, out):
    """Fill ``out`` (n, G) with the group codes of the category codes ``values``;
    returns :func:`_block_digits`' outside count and first outside entry."""
    n, n_columns = values.shape
    rows = _digit_rows(values)
    digits = np.empty((n_columns, rows), dtype=np.int32)
    codes = np.empty(rows, dtype=np.int32)
    outside, first = 0, -1
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        outside, first = _block_digits(values, start, stop, sizes, digits, outside, first)
        for g in range(out.shape[1]):
            _fold_group(digits, stop - start, bounds[g], bounds[g + 1], place, codes)
            for r in range(stop - start):
                out[start + r, g] = codes[r]
    return outside, first


@_jit
def group_lookup(codes, offsets, table, out):
    """``out[k, i] = sum_g table[offsets[g] + codes[i, g], k]``: out (K, n), by blocks
    of rows, one group at a time (each row reads K adjacent entries of ``table``)."""
    n = codes.shape[0]
    acc = np.empty((_BLOCK_ROWS, table.shape[1]))
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(n, start + _BLOCK_ROWS)
        acc[:] = 0.0
        for g in range(len(offsets)):
            _lookup_codes(codes[start:stop, g], offsets[g], stop - start, table, acc)
        _store_scores(acc, start, stop, out)


@_jit
def value_lookup(values, sizes, place, bounds, offsets, table, out):
    """:func:`group_lookup` of the group codes of the category codes ``values``, made
    block by block; returns :func:`_block_digits`' outside count and first entry."""
    n, n_columns = values.shape
    rows = _digit_rows(values)
    digits = np.empty((n_columns, rows), dtype=np.int32)
    codes = np.empty(rows, dtype=np.int32)
    acc = np.empty((rows, table.shape[1]))
    outside, first = 0, -1
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        outside, first = _block_digits(values, start, stop, sizes, digits, outside, first)
        acc[:] = 0.0
        for g in range(len(offsets)):
            _fold_group(digits, stop - start, bounds[g], bounds[g + 1], place, codes)
            _lookup_codes(codes, offsets[g], stop - start, table, acc)
        _store_scores(acc, start, stop, out)
    return outside, first


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
        rank[np.uint64(values[i] - lo)] = 1  # unsigned: no test for a wrapped index
    seen = 0
    for r in range(n_range):
        if rank[r]:
            rank[r] = seen
            seen += 1
        else:
            rank[r] = -1
    for i in range(len(values)):
        codes[i] = rank[np.uint64(values[i] - lo)]
    return rank


@_jit
def one_hot(codes, weights, resp):
    """Fill ``resp`` (K, n) with ``weights[i]`` (1 when ``weights`` is None) at
    ``codes[i]`` in column ``i`` and 0 elsewhere."""
    n_comp, n = resp.shape
    for i in range(n):
        for k in range(n_comp):
            resp[k, i] = 0.0
        resp[codes[i], i] = _weighted(_row_weight(weights, i), 1.0)


@_jit
def label_totals(codes, weights, out):
    """Add ``weights[i]`` (1 when ``weights`` is None) to ``out[codes[i]]`` for every
    row: four interleaved sums, so consecutive rows of one class do not wait on each
    other."""
    acc = np.zeros((4, len(out)))
    for i in range(len(codes)):
        acc[i & 3, codes[i]] += _weighted(_row_weight(weights, i), 1.0)
    for k in range(len(out)):
        out[k] += acc[0, k] + acc[1, k] + acc[2, k] + acc[3, k]


@_jit
def mark_values(values, seen):
    """Set ``seen[j, v]`` for every value ``v`` of column ``j`` of the integer array
    ``values`` (n, d) in ``0..seen.shape[1]-1``; return how many values lie outside."""
    n, n_columns = values.shape
    cap = seen.shape[1]
    outside = 0
    if values.strides[0] < values.strides[1]:  # column-major: down each column
        for j in range(n_columns):
            mark = seen[j]
            for i in range(n):
                v = values[i, j]
                if (v >= 0) & (v < cap):
                    mark[v] = True
                else:
                    outside += 1
        return outside
    for i in range(n):
        row = values[i]
        for j in range(n_columns):
            v = row[j]
            if (v >= 0) & (v < cap):
                seen[j, v] = True  # a store alone: no row waits on the one before
            else:
                outside += 1
    return outside


@_jit
def csr_label_counts(indptr, indices, data, labels, weights, out):
    """Add row ``i`` of the CSR matrix (``indptr``, ``indices``, ``data``) times
    ``weights[i]`` (1 when ``weights`` is None) to row ``labels[i]`` of ``out``
    (K, columns). Return whether some entry is negative, NaN
    or infinite (checked as it is read: the least entry, and a sum of ``0 * entry``
    that only NaN and inf turn into NaN).

    Four entries at a time: their loads are issued together, ahead of the four
    updates (which stay in order, so a repeated column is still added twice), and
    each of the two running checks takes one step per four entries. Positions are
    unsigned, so no index is tested for a negative (wrapped-around) value.
    """
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    low = 0.0
    spread = 0.0
    for i in range(len(indptr) - 1):
        row = out[labels[i]]
        w = _row_weight(weights, i)
        p, stop = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        while p + four <= stop:
            a, b, c, d = indices[p], indices[p + one], indices[p + two], indices[p + three]
            va, vb, vc, vd = data[p], data[p + one], data[p + two], data[p + three]
            low = min(low, min(min(va, vb), min(vc, vd)))
            spread += ((va + vb) + (vc + vd)) * 0.0
            row[a] += _weighted(w, va)
            row[b] += _weighted(w, vb)
            row[c] += _weighted(w, vc)
            row[d] += _weighted(w, vd)
            p += four
        while p < stop:
            v = data[p]
            low = min(low, v)
            spread += v * 0.0
            row[indices[p]] += _weighted(w, v)
            p += one
    return low < 0.0 or spread != 0.0


@_jit
def csr_scores(indptr, indices, data, table, out):
    """Add the product of the CSR matrix (``indptr``, ``indices``, ``data``) with
    ``table`` (columns, m) to ``out`` (n, m); return whether some entry is negative,
    NaN or infinite (checked as in :func:`csr_label_counts`).

    Each row is swept once per pair of table columns (a lone last column is read
    twice and added once), four entries at a time into separate sums, so no sum
    waits on the one before. Meant for a few columns: beyond about four, scipy's
    product, which reads all of an entry's columns at once, is faster.
    """
    m = table.shape[1]
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    low = 0.0
    spread = 0.0
    for i in range(len(indptr) - 1):
        start, stop = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        for k in range(0, m, 2):
            k2 = min(k + 1, m - 1)
            a, a2, b, b2, c, c2, d, d2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
            p = start
            while p + four <= stop:
                ia, ib = indices[p], indices[p + one]
                ic, id_ = indices[p + two], indices[p + three]
                va, vb, vc, vd = data[p], data[p + one], data[p + two], data[p + three]
                low = min(low, min(min(va, vb), min(vc, vd)))
                spread += ((va + vb) + (vc + vd)) * 0.0
                a += va * table[ia, k]
                a2 += va * table[ia, k2]
                b += vb * table[ib, k]
                b2 += vb * table[ib, k2]
                c += vc * table[ic, k]
                c2 += vc * table[ic, k2]
                d += vd * table[id_, k]
                d2 += vd * table[id_, k2]
                p += four
            while p < stop:
                v = data[p]
                low = min(low, v)
                spread += v * 0.0
                a += v * table[indices[p], k]
                a2 += v * table[indices[p], k2]
                p += one
            out[i, k] += (a + b) + (c + d)
            if k2 > k:
                out[i, k2] += (a2 + b2) + (c2 + d2)
    return low < 0.0 or spread != 0.0


@_jit
def dense_label_counts(x, labels, weights, ones):
    """Add row ``i`` of the dense matrix ``x`` (n, d) times ``weights[i]`` (1 when
    ``weights`` is None) to row ``labels[i]`` of ``ones`` (K, d). Return how many
    entries are neither 0 nor 1 (NaN included)."""
    other = 0
    for i in range(x.shape[0]):
        row = x[i]
        total = ones[labels[i]]
        w = _row_weight(weights, i)
        for j in range(x.shape[1]):
            v = row[j]
            total[j] += _weighted(w, v)
            other += (v != 0) & (v != 1)
    return other


#: Rows of a block of :func:`column_label_counts`: its label masks (K, rows) and one
#: column's part of the block stay in L1.
_MASK_ROWS = 4096


@_reassociated
def column_label_counts(x, labels, weights, ones, masks, check):
    """:func:`dense_label_counts` for a column-major ``x`` (a DataFrame's block): per
    block of rows, ``masks[k]`` holds each row's weight (1 when ``weights`` is None)
    where its label is ``k`` and 0 elsewhere, and every column's count for label
    ``k`` is the dot product of the column with ``masks[k]``. Each product runs along
    contiguous memory and vectorizes, where scattering a column's entries into their
    labels' sums would wait on each addition in turn. ``masks`` (K, rows) is scratch
    space, unsigned bytes for unweighted integer data, else floats; ``check`` False
    skips the count of entries other than 0 and 1 (for boolean data)."""
    n, d = x.shape
    n_labels = ones.shape[0]
    other = 0
    for start in range(0, n, masks.shape[1]):
        stop = min(start + masks.shape[1], n)
        m = stop - start
        masks[:, :m] = 0
        for i in range(start, stop):
            masks[labels[i], i - start] = 1 if weights is None else weights[i]
        for j in range(d):
            col = x[start:stop, j]
            if check:
                bad = 0
                for r in range(m):
                    v = col[r]
                    bad += (v != 0) & (v != 1)
                other += bad
            for k in range(n_labels):
                mask = masks[k]
                acc = mask[0] * col[0] * 0
                for r in range(m):
                    acc += mask[r] * col[r]
                ones[k, j] += acc
    return other


@_inline
def _moment_rows(m):
    """Rows of a block of :func:`dense_moments` and :func:`dense_gaussian_scores` for
    ``m`` columns: a block's values, and its per-class sums, stay in L1/L2."""
    return max(16, min(_BLOCK_ROWS, _DIGIT_ENTRIES // max(1, m)))


@_inline
def _first_values(row, w, centre, fresh):
    """Set the unset centres (``fresh``) of one class to the row's observed values;
    return how many were set. A row of weight 0 sets none."""
    done = 0
    if w != 0.0:
        for j in range(len(row)):
            v = row[j]
            if fresh[j] and v == v:
                centre[j] = v
                fresh[j] = False
                done += 1
    return done


@_inline
def _centred_sums(row, w, centre, acc, masked):
    """Add the row's weighted deviations from ``centre`` and their squares to
    ``acc[1]`` and ``acc[2]``, and its weight to ``acc[0]``: to every column's entry
    when ``masked`` (a missing (NaN) entry then adds nothing at all), else to
    ``acc[0, 0]`` alone (a NaN then makes the sums NaN)."""
    if masked:
        for j in range(len(row)):
            v = row[j]
            ok = v == v
            d = v - centre[j] if ok else 0.0
            wd = w * d
            acc[0, j] += w if ok else 0.0
            acc[1, j] += wd
            acc[2, j] += wd * d
    else:
        acc[0, 0] += w
        for j in range(len(row)):
            d = row[j] - centre[j]
            wd = w * d
            acc[1, j] += wd
            acc[2, j] += wd * d


@_inline
def _squared_sums(row, w, centre, mean, acc, masked):
    """Add the row's weighted squared deviations from ``centre + mean`` to ``acc[2]``
    and its weighted deviations to ``acc[3]``; a missing entry adds nothing when
    ``masked``."""
    for j in range(len(row)):
        v = row[j]
        d = (v - centre[j]) - mean[j]
        if masked:
            d = d if v == v else 0.0
        wd = w * d
        acc[3, j] += wd
        acc[2, j] += wd * d


@_inline
def _column_sums(col, w_k, m, c, masked):
    """``(s0, s1, s2)``: the weights ``w_k`` of the first ``m`` entries of ``col``, and
    the weighted deviations from ``c`` and their squares, summed (a missing entry
    adding nothing when ``masked``; ``s0`` is then its column's own)."""
    s0, s1, s2 = 0.0, 0.0, 0.0
    if masked:
        for r in range(m):
            v = col[r]
            ok = v == v
            dv = v - c if ok else 0.0
            w = w_k[r] if ok else 0.0
            wd = w * dv
            s0 += w
            s1 += wd
            s2 += wd * dv
    else:
        for r in range(m):
            dv = col[r] - c
            wd = w_k[r] * dv
            s1 += wd
            s2 += wd * dv
    return s0, s1, s2


@_inline
def _column_pair_sums(col, w_a, w_b, m, c_a, c_b, masked):
    """:func:`_column_sums` of two components at once, ``(s0, s1, s2)`` of the weights
    ``w_a`` about ``c_a`` and then of ``w_b`` about ``c_b``: one read of the column
    feeds both, which halves the loads and keeps twice the sums in flight."""
    a0, a1, a2, b0, b1, b2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if masked:
        for r in range(m):
            v = col[r]
            ok = v == v
            da = v - c_a if ok else 0.0
            db = v - c_b if ok else 0.0
            wa = w_a[r] if ok else 0.0
            wb = w_b[r] if ok else 0.0
            ea, eb = wa * da, wb * db
            a0 += wa
            a1 += ea
            a2 += ea * da
            b0 += wb
            b1 += eb
            b2 += eb * db
    else:
        for r in range(m):
            v = col[r]
            da, db = v - c_a, v - c_b
            ea, eb = w_a[r] * da, w_b[r] * db
            a1 += ea
            a2 += ea * da
            b1 += eb
            b2 += eb * db
    return a0, a1, a2, b0, b1, b2


@_inline
def _total_weights(soft, m, acc, masked):
    """``acc[k, 0, 0]``: component ``k``'s weight in the block, when the rows are
    complete (``masked`` False); a masked block sums it column by column."""
    if not masked:
        for k in range(soft.shape[0]):
            s0 = 0.0
            w_k = soft[k]
            for r in range(m):
                s0 += w_k[r]
            acc[k, 0, 0] = s0


@_reassociated
def _soft_block_sums(x, start, stop, resp, centre, cols, soft, acc, masked):
    """The soft-responsibility part of :func:`dense_moments` for rows
    ``start..stop-1``: ``acc[k]`` gets every component's weights, weighted deviations
    from ``centre[k]`` and their squares (as :func:`_centred_sums`), summed along the
    block's rows column by column. The block is first copied column by column into
    ``cols`` (d, rows) and its responsibilities into ``soft`` (K, rows), so each sum
    runs along contiguous memory and vectorizes; a row of weight 0 adds 0 (a NaN or an
    infinity in it makes the sums NaN unless ``masked``, as in the caller)."""
    m = stop - start
    n_comp, d = centre.shape
    for r in range(m):
        row = x[start + r]
        for j in range(d):
            cols[j, r] = row[j]
        for k in range(n_comp):
            soft[k, r] = resp[k, start + r]
    _total_weights(soft, m, acc, masked)
    for k in range(n_comp):
        for j in range(d):
            s0, s1, s2 = _column_sums(cols[j], soft[k], m, centre[k, j], masked)
            if masked:
                acc[k, 0, j] = s0
            acc[k, 1, j] = s1
            acc[k, 2, j] = s2


@_inline
def _column_label_sums(col, lab, wv, m, k, c0, c1, c2, c3, unit, masked):
    """``(s0, s1, s2)`` of classes ``k .. k+3`` (as :func:`_column_sums`, about the
    centres ``c0 .. c3``) for rows of class labels ``lab`` and weights ``wv``, in one
    read of the column: each class's deviation is selected by the row's label rather
    than multiplied by a weight of 0, so the loop reads the column, the labels and at
    most one weight per row, whatever the number of classes. ``unit``: every weight is
    1 (no multiplies). A class beyond the last (a centre of 0, no row of its label)
    sums to 0. The ``s0`` are set only when ``masked`` (each column's own)."""
    a0, a1, a2, b0, b1, b2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    e0, e1, e2, f0, f1, f2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if masked:
        for r in range(m):
            v = col[r]
            lr = lab[r] if v == v else -1  # a missing entry counts for no class
            w = wv[r]
            w0 = w if lr == k else 0.0
            w1 = w if lr == k + 1 else 0.0
            w2 = w if lr == k + 2 else 0.0
            w3 = w if lr == k + 3 else 0.0
            d0 = v - c0 if lr == k else 0.0
            d1 = v - c1 if lr == k + 1 else 0.0
            d2 = v - c2 if lr == k + 2 else 0.0
            d3 = v - c3 if lr == k + 3 else 0.0
            x0, x1, x2, x3 = w0 * d0, w1 * d1, w2 * d2, w3 * d3
            a0 += w0
            a1 += x0
            a2 += x0 * d0
            b0 += w1
            b1 += x1
            b2 += x1 * d1
            e0 += w2
            e1 += x2
            e2 += x2 * d2
            f0 += w3
            f1 += x3
            f2 += x3 * d3
    else:
        for r in range(m):
            v = col[r]
            lr = lab[r]
            # the deviation of the row's own class, 0 for the other three
            d0 = v - c0 if lr == k else 0.0
            d1 = v - c1 if lr == k + 1 else 0.0
            d2 = v - c2 if lr == k + 2 else 0.0
            d3 = v - c3 if lr == k + 3 else 0.0
            w = 1.0 if unit else wv[r]
            x0, x1, x2, x3 = (d0, d1, d2, d3) if unit else (w * d0, w * d1, w * d2, w * d3)
            a1 += x0
            a2 += x0 * d0
            b1 += x1
            b2 += x1 * d1
            e1 += x2
            e2 += x2 * d2
            f1 += x3
            f2 += x3 * d3
    return a0, a1, a2, b0, b1, b2, e0, e1, e2, f0, f1, f2


@_inline
def _centre_or_0(centre, k, j):
    """``centre[k, j]``, or 0 for a class ``k`` beyond the last."""
    return centre[k, j] if k < centre.shape[0] else 0.0


@_reassociated
def _column_block_sums(
    columns, start, stop, label, weight, soft, centre, soft_k, lab, acc, masked, into
):
    """:func:`_soft_block_sums` for data stored column by column, ``columns`` (d, n)
    (a DataFrame's block), every column's sums read in place, along contiguous memory.

    A block whose rows all have one class (class labels, or responsibilities of one
    non-zero entry per row) is summed four classes per read of each column
    (:func:`_column_label_sums`), its labels copied to the small integers ``lab``.
    Otherwise the rows' weights go by component (a labelled row's weight at its label,
    0 elsewhere; another row's ``soft`` row) into ``soft_k`` (K, rows), and every
    column is summed two components per read.

    ``into``: 1 for the first pass (the weights into ``acc[:, 0]``, the deviations into
    ``acc[:, 1]``); 3 for the second pass about the block's own means (``centre`` then
    holds them), the deviations into ``acc[:, 3]`` and the weights left as they are.
    The squared deviations go to ``acc[:, 2]`` in both."""
    first = into == 1
    m = stop - start
    n_comp, d = centre.shape
    hard, unit = len(lab) > 0, True
    for r in range(m):
        hard &= label[r] >= 0
        unit &= weight[r] == 1.0
    if hard:
        for r in range(m):
            lab[r] = label[r]
            if first and not masked:
                acc[label[r], 0, 0] += weight[r]
        for j in range(d):
            col = columns[j, start:stop]
            for k in range(0, n_comp, 4):
                c0, c1 = _centre_or_0(centre, k, j), _centre_or_0(centre, k + 1, j)
                c2, c3 = _centre_or_0(centre, k + 2, j), _centre_or_0(centre, k + 3, j)
                sums = _column_label_sums(col, lab, weight, m, k, c0, c1, c2, c3, unit, masked)
                for t in range(min(4, n_comp - k)):
                    if first and masked:
                        acc[k + t, 0, j] = sums[3 * t]
                    acc[k + t, into, j] = sums[3 * t + 1]
                    acc[k + t, 2, j] = sums[3 * t + 2]
        return
    for r in range(m):
        k = label[r]
        for kk in range(n_comp):
            soft_k[kk, r] = soft[r, kk] if k < 0 else (weight[r] if kk == k else 0.0)
    if first:
        _total_weights(soft_k, m, acc, masked)
    for j in range(d):  # each column read from memory once, then from L1
        col = columns[j, start:stop]
        for k in range(0, n_comp - 1, 2):  # two components per read of the column
            sums = _column_pair_sums(
                col, soft_k[k], soft_k[k + 1], m, centre[k, j], centre[k + 1, j], masked
            )
            for kk in range(2):
                if first and masked:
                    acc[k + kk, 0, j] = sums[3 * kk]
                acc[k + kk, into, j] = sums[3 * kk + 1]
                acc[k + kk, 2, j] = sums[3 * kk + 2]
        if n_comp % 2:
            k = n_comp - 1
            s0, s1, s2 = _column_sums(col, soft_k[k], m, centre[k, j], masked)
            if first and masked:
                acc[k, 0, j] = s0
            acc[k, into, j] = s1
            acc[k, 2, j] = s2


@_inline
def _moment_row(x, columns, i, buf):
    """Row ``i`` of the data: of ``x`` (n, d), or gathered from ``columns`` (d, n)
    into ``buf`` when the data comes column by column."""
    if columns.shape[1] == 0:
        return x[i]
    for j in range(columns.shape[0]):
        buf[j] = columns[j, i]
    return buf


#: Entries of a block of :func:`dense_moments`: read again only in the rare block that
#: needs a second pass, so it need only stay in L2.
_MOMENT_ENTRIES = 1 << 16

#: Entries of a block of :func:`dense_moments` over data stored column by column: each
#: column is read in runs this long divided by the columns (measured on 10**6 x 50:
#: runs of 1310 rows took 1.5x the time of runs of 5242).
_COLUMN_ENTRIES = 1 << 18

#: A block's sum of squared deviations from the centre may exceed the block's own
#: ``S`` at most this many times before the block is summed again from its mean: the
#: one-pass ``S`` then has a relative round-off of a few times this many ulps.
_ONE_PASS_RATIO = 16.0


def read_only(values: np.ndarray) -> np.ndarray:
    """A read-only view of ``values``, not a copy. An input passed so has one compiled
    type whether the caller's array is writable or not (pandas hands out read-only
    ones): the compiler types the two apart, and compiles a function for each."""
    view = values.view()
    view.flags.writeable = False
    return view


def read_only_arrays(values: tuple) -> tuple:
    """``values`` with every array (in nested tuples too) a read-only view
    (:func:`read_only`): a compiled loop's inputs then have one type whether the
    caller's arrays were writable or not."""
    return tuple(
        read_only_arrays(v) if isinstance(v, tuple)
        else read_only(v) if isinstance(v, np.ndarray)
        else v
        for v in values
    )  # fmt: skip


#: :func:`_column_block_sums`'s passes (its ``into``), NumPy integers: called with a
#: Python int literal, a function is compiled once per literal.
_PASS_1, _PASS_2 = np.int64(1), np.int64(3)


@_jit
def dense_moments(x, columns, labels, weights, resp, masked, n_out, mean_out, ss_out):
    """Fill ``n_out``, ``mean_out`` and ``ss_out`` (K, d), zero on entry, with the
    weighted count, mean and centred sum of squares of the dense ``x`` (n, d) by
    class, rows weighted as in :func:`_block_labels` (class labels, or
    responsibilities ``resp`` (K, n)). Data stored column by column (a DataFrame's
    block) comes as ``columns`` (d, n), its transpose, with an ``x`` of no rows; every
    block is then summed column by column (:func:`_column_block_sums`). ``masked``: a
    missing (NaN) entry is left out of its column; else the rows are taken as complete
    (a NaN makes its sums NaN, and the caller counts again with ``masked``). Return
    the number of centres still unset (columns of a class with no observed value).

    Exact to round-off whatever the data's offset and the rows' order. Every class
    and column has a fixed centre, and every sum is of deviations from it: the
    class's first observed value, then, once the first block holding the class is
    summed, that block's mean. The rows go by blocks in cache: row by row for class
    labels (or one component), column by column for the soft responsibilities of
    several components (:func:`_soft_block_sums`, vectorized). One pass sums the
    weights, deviations and squared deviations: the block's mean and
    :math:`S = \\sum w d^2 - (\\sum w d)^2 / \\sum w`, which is exact unless the
    block's mean lies far from the centre (in units of the block's spread: the first
    block of a class, data sorted by value). Only then is the block read again, in
    cache, for the squared deviations from its mean (the corrected two-pass formula).
    Each block's statistics merge into the totals by the pairwise update of Chan,
    Golub and LeVeque, on means relative to the centre (small numbers, so their
    differences are exact). A class whose observed values are all equal gets exactly
    its value as mean and ``ss = 0``.
    """
    by_column = columns.shape[1] > 0
    n, d = (columns.shape[1], columns.shape[0]) if by_column else x.shape
    n_comp = n_out.shape[0]
    rows = max(16, min(4 * _BLOCK_ROWS, _MOMENT_ENTRIES // max(1, d)))
    if by_column:  # long runs of each column
        rows = max(16, min(8 * _BLOCK_ROWS, _COLUMN_ENTRIES // max(1, d)))
    buf = np.empty(d)  # a row gathered from ``columns``
    label = np.empty(rows, dtype=np.int64)
    weight = np.empty(rows)
    soft = np.empty((rows, n_comp))
    acc = np.empty((n_comp, 4, d))  # a block's weights, deviations, squares, deviations
    # Row by row for class labels (one class per row) and a single component; column
    # by column for the soft responsibilities of several components
    by_row = not by_column and (len(labels) > 0 or n_comp == 1)
    cols = np.empty((d, 0 if by_row or by_column else rows))  # the soft path's block
    soft_k = np.empty((n_comp, 0 if by_row else rows))  # and its weights, by component
    # a column-major block's labels, as small integers (four classes per read)
    lab = np.empty(rows if by_column and n_comp <= 127 else 0, dtype=np.int8)
    means = np.empty((n_comp, d))  # a block's means, relative to the centres
    shifted = np.empty((n_comp, d) if by_column else (0, 0))  # centres + means
    centre = np.zeros((n_comp, d))
    fresh = np.ones((n_comp, d), dtype=np.bool_)  # no centre yet
    provisional = np.zeros((n_comp, d), dtype=np.bool_)  # a first value, for one block
    unset = n_comp * d
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        m = stop - start
        labelled = by_row or by_column or unset > 0  # the rows' labels
        if labelled:
            _block_labels(labels, weights, resp, start, stop, label, weight, soft)
        if unset:  # a class's first observed value in each column: its first centre
            for r in range(m):
                k = label[r]
                for kk in range(n_comp) if k < 0 else range(k, k + 1):
                    w = weight[r] if k >= 0 else soft[r, kk]
                    row = _moment_row(x, columns, start + r, buf)
                    got = _first_values(row, w, centre[kk], fresh[kk])
                    if got:
                        unset -= got
                        for j in range(d):
                            provisional[kk, j] |= not fresh[kk, j] and n_out[kk, j] <= 0.0
                if unset == 0:  # every centre set: the block's other rows add none
                    break
        acc[:] = 0.0
        if by_column:
            _column_block_sums(
                columns, start, stop, label, weight, soft, centre, soft_k, lab, acc, masked, _PASS_1
            )
        elif not by_row:  # soft responsibilities: column by column, vectorized
            _soft_block_sums(x, start, stop, resp, centre, cols, soft_k, acc, masked)
        else:
            for r in range(m):
                k = label[r]
                if k >= 0:
                    _centred_sums(x[start + r], weight[r], centre[k], acc[k], masked)
                else:
                    for k in range(n_comp):
                        w = soft[r, k]
                        if w != 0.0:
                            _centred_sums(x[start + r], w, centre[k], acc[k], masked)
        again = False
        for k in range(n_comp):
            if not masked:
                acc[k, 0, :] = acc[k, 0, 0]
            for j in range(d):
                nb = acc[k, 0, j]
                if nb > 0.0:
                    mb = acc[k, 1, j] / nb
                    between = acc[k, 1, j] * mb
                    if provisional[k, j]:  # the class's first block: centre on its mean
                        centre[k, j] += mb
                        mb = 0.0
                        provisional[k, j] = False
                        again = True
                    elif not (between <= _ONE_PASS_RATIO * (acc[k, 2, j] - between)):
                        again = True
                    else:
                        acc[k, 2, j] -= between
                    means[k, j] = mb
        if again:  # squared deviations from the block's means, the block in cache
            if not labelled:
                _block_labels(labels, weights, resp, start, stop, label, weight, soft)
            acc[:, 2:, :] = 0.0
            if by_column:  # column by column again, about centre + mean
                for k in range(n_comp):
                    for j in range(d):
                        shifted[k, j] = centre[k, j] + means[k, j]
                _column_block_sums(
                    columns,
                    start,
                    stop,
                    label,
                    weight,
                    soft,
                    shifted,
                    soft_k,
                    lab,
                    acc,
                    masked,
                    _PASS_2,
                )
            else:
                for r in range(m):
                    k = label[r]
                    row = x[start + r]
                    if k >= 0:
                        _squared_sums(row, weight[r], centre[k], means[k], acc[k], masked)
                    else:
                        for k in range(n_comp):
                            w = soft[r, k]
                            if w != 0.0:
                                _squared_sums(row, w, centre[k], means[k], acc[k], masked)
        for k in range(n_comp):
            for j in range(d):
                nb = acc[k, 0, j]
                if nb <= 0.0:
                    continue
                dev = acc[k, 3, j] if again else 0.0
                mb = means[k, j] + dev / nb
                sb = acc[k, 2, j] - dev * (dev / nb)
                if sb < 0.0:  # round-off below an exact 0 (a NaN stays NaN)
                    sb = 0.0
                na = n_out[k, j]
                if na <= 0.0:
                    n_out[k, j], mean_out[k, j], ss_out[k, j] = nb, mb, sb
                else:
                    total = na + nb
                    delta = mb - mean_out[k, j]
                    share = nb / total
                    mean_out[k, j] += delta * share
                    ss_out[k, j] += sb + delta * delta * na * share
                    n_out[k, j] = total
    for k in range(n_comp):
        for j in range(d):
            mean_out[k, j] = centre[k, j] + mean_out[k, j] if n_out[k, j] > 0.0 else 0.0
    return unset


@_jit
def dense_gaussian_scores(x, mu, inv_sd, const, out):
    """Fill ``out`` (K, n) with ``sum_j const[k, j] - ((x[i, j] - mu[k, j]) *
    inv_sd[k, j])**2 / 2`` over the observed (not NaN) entries of every row of ``x``
    (n, d): the Gaussian log-likelihood, each deviation taken from the component's own
    mean (exact whatever the offset) and scaled before it is squared (no overflow).

    By blocks of rows copied column by column into a buffer, so the sums run along
    contiguous rows. An infinite value gives -inf or NaN; the caller checks.
    """
    n, d = x.shape
    n_comp = mu.shape[0]
    rows = _moment_rows(d)
    cols = np.empty((d, rows))
    acc = np.empty(rows)
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        m = stop - start
        for r in range(m):
            row = x[start + r]
            for j in range(d):
                cols[j, r] = row[j]
        for k in range(n_comp):
            acc[:m] = 0.0
            for j in range(d):
                c, mean, s = const[k, j], mu[k, j], inv_sd[k, j]
                col = cols[j]
                for r in range(m):
                    v = col[r]
                    z = (v - mean) * s
                    acc[r] += c - 0.5 * z * z if v == v else 0.0
            for r in range(m):
                out[k, start + r] = acc[r]


@_inline
def inverse_transform(terms, at, k, u):
    """The first of the ``k`` non-negative ``terms[at:at + k]`` whose cumulative sum
    exceeds ``u`` times their total (inverse transform sampling with a uniform
    ``u``); the last when none does (a NaN total)."""
    total = 0.0
    for j in range(k):
        total += terms[at + j]
    target = u * total
    acc = 0.0
    for j in range(k):
        acc += terms[at + j]
        if target < acc:
            return j
    return k - 1


@_jit
def draw_memberships(logj, class_log_prob, u, known, weights, resp):
    """One Gibbs draw of every row's component in every chain, into ``resp``.

    ``logj`` (n, chains * K) holds ``sum_j log p(x_ij | theta)`` of every chain's
    components (chain-major), ``class_log_prob`` (chains, K) the log-weights and ``u``
    (n, chains) uniforms in [0, 1). Row ``i`` of chain ``c`` takes the first component
    whose cumulative joint likelihood exceeds ``u[i, c]`` times the total (inverse
    transform sampling, each row shifted by its maximum), or its ``known`` component
    when that is >= 0; ``resp[i, c * K + z]`` is set to ``weights[i]`` (``resp`` is
    zero on entry).
    """
    n = logj.shape[0]
    chains, k = class_log_prob.shape
    terms = np.empty(k)
    for i in range(n):
        for c in range(chains):
            base = c * k
            if known[i] >= 0:
                resp[i, base + known[i]] = weights[i]
                continue
            top = -np.inf
            for j in range(k):
                v = logj[i, base + j] + class_log_prob[c, j]
                if v > top:
                    top = v
            for j in range(k):
                terms[j] = np.exp(logj[i, base + j] + class_log_prob[c, j] - top)
            z = inverse_transform(terms, 0, k, u[i, c])
            resp[i, base + z] = weights[i]
