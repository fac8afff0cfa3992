"""The same declarations on Dask: fitting, EM and prediction by merging sufficient
statistics computed partition by partition.

Every estimator of the package is a function of sufficient statistics, and the
statistics of disjoint rows merge (:mod:`bayesnb.sufficient`). So a Dask DataFrame or
array is fitted without gathering its rows:

1. **A summary pass** finds what binding the declaration needs from the data: every
   non-float column's distinct values (the categories, a Bernoulli's two values, the
   labels), every float column's range (a ``Binned`` feature's ``bins=<int>`` edges)
   and whether its values are all 0/1 (the inferred family). The declaration is bound
   on a small pandas frame holding just those values, so every block has the
   categories, edges and family it has when fitted in memory. A default that needs
   the data's moments (the Gaussian prior of EM, a multivariate Gaussian's centre)
   takes them from one more pass of pooled statistics.
2. **A counting pass** runs the families' ``count`` on every partition where it lives;
   only the statistics (O(classes × parameters)) travel, and the client merges them and
   estimates once.

EM (:func:`cluster`) repeats the second pass at every sweep, with the parameters sent
once per sweep; the encoded partitions stay on the workers (``persist=True``).
Prediction maps the fitted model over the partitions.

A Dask array's blocks may be NumPy arrays or scipy.sparse matrices (the usual layout
of word counts, ``X.map_blocks(scipy.sparse.csr_matrix)``); sparse blocks are read as
a sparse matrix is in memory: one block of Bernoulli presences or Multinomial counts.
Labels and weights given as Dask collections are read block by block alongside X's
blocks when they line up (as many blocks, of the same lengths or of lengths Dask knows
on neither side); otherwise the block lengths Dask does not know are computed (e.g.
those of ``ddf.to_dask_array()`` without ``lengths=True``) and the values are cut again
at X's row boundaries.

Without a ``distributed.Client`` Dask's local scheduler runs the passes; with one (a
``LocalCluster``, or ``Client("tcp://scheduler:8786")``), the same calls run on its
workers. Dask is the optional extra ``bayesnb[dask]``; nothing here imports it before
a Dask collection is passed.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from bayesnb._data import Table, declare, encode_labels, label_name
from bayesnb._lazy import sparse
from bayesnb.errors import InputError
from bayesnb.sufficient import merge_stats

__all__ = ["fit", "is_dask", "predict"]

#: Rows of the in-memory sample EM starts from when no start is given.
START_ROWS = 20_000


def is_dask(obj) -> bool:
    """Whether ``obj`` is a Dask collection (without importing Dask).

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import bayesnb as bnb
    >>> from bayesnb.dask import is_dask
    >>> votes = bnb.datasets.house_votes_84()
    >>> is_dask(votes), is_dask(dd.from_pandas(votes, npartitions=2))
    (False, True)
    """
    return type(obj).__module__.partition(".")[0] == "dask" and hasattr(obj, "__dask_graph__")


def _dask():
    try:
        import dask
    except ImportError:  # pragma: no cover - the extra is missing
        raise InputError(
            "fitting a Dask collection needs Dask: pip install 'bayesnb[dask]'."
        ) from None
    return dask


# -- the rows, partition by partition ------------------------------------------------------
class _Source:
    """A Dask DataFrame or array as a list of delayed partitions, each giving ``(X, y,
    w)``: the features (a pandas frame, a 2-D array or, for an array of scipy.sparse
    blocks, a CSR sparse array), the labels (or None) and the row weights (or None).

    ``y`` and ``sample_weight`` (a Dask Series or 1-D Dask array) are read block by
    block as they are when their blocks line up with X's: as many, each of the same
    length or of a length Dask knows on neither side (e.g. both from one frame's
    ``to_dask_array()``; :func:`_split` then refuses a block whose lengths differ).
    Otherwise every block's length is needed: a length Dask does not know is computed
    first (one more pass over that collection; ``ddf.to_dask_array(lengths=True)``
    spares it), and the values are cut again at X's row boundaries where they do not
    line up."""

    def __init__(self, X, y=None, target=None, sample_weight=None, feature_names=None):
        dask = _dask()
        self.delayed = dask.delayed
        if target is not None and y is not None:
            raise InputError(
                f"got both y and target={target!r}; give the labels once: y=labels, or "
                "target='column' naming a column of X."
            )
        self.is_frame = hasattr(X, "columns")
        if self.is_frame:
            columns = [str(c) for c in X.columns]
            if len(set(columns)) != len(columns):
                raise InputError("X has repeated column names; give every column its own name.")
            extra = []  # the columns named by target= and sample_weight=, by their labels
            for what, name in (("target", target), ("sample_weight", sample_weight)):
                if name is None or is_dask(name):
                    continue
                if _names_column(name, X.columns):
                    extra.append(name)
                elif what == "target" or isinstance(name, str):
                    raise InputError(
                        f"{what}={name!r} is not a column of X; its columns are "
                        f"{list(X.columns)[:20]!r}. Name one of them (by its label, e.g. "
                        f"an int for an int-labelled column), or give the values as a Dask "
                        "Series."
                    )
            self.names = [c for c in X.columns if c not in extra]
            self.meta = X._meta[self.names]
            parts = list(X.to_delayed())
            rows = (np.nan,) * len(parts)  # Dask does not know a frame's partition lengths
        else:
            if X.ndim != 2:
                raise InputError(
                    f"X must be 2-D (rows, columns); got a Dask array of shape {X.shape}."
                )
            X = X.rechunk({1: -1})
            parts = list(X.to_delayed()[:, 0])
            rows = tuple(X.chunks[0])  # NaN where Dask does not know a block's length
            self.names = (
                [str(c) for c in feature_names]
                if feature_names is not None
                else [f"x{j}" for j in range(X.shape[1])]
            )
            self.meta = np.empty((0, X.shape[1]), dtype=X.dtype)
        self.target = target
        named = self.is_frame and _names_column(sample_weight, X.columns)
        self.weight_column = sample_weight if named else None
        self._blocks, self._rows = parts, rows
        ys = self._aligned(y, "y")
        ws = (
            None
            if self.weight_column is not None
            else self._aligned(sample_weight, "sample_weight")
        )
        split = self.delayed(_split, pure=True)
        self.parts = [
            split(
                part,
                self.names if self.is_frame else None,
                target,
                self.weight_column,
                None if ys is None else ys[i],
                None if ws is None else ws[i],
            )
            for i, part in enumerate(parts)
        ]

    def _aligned(self, values, what: str):
        """A Dask Series or 1-D array of one value per row, as delayed pieces lined up
        with X's blocks."""
        if values is None:
            return None
        if not is_dask(values):
            raise InputError(
                f"{what} must be a Dask collection partitioned like X (or, for a Dask "
                f"DataFrame, the name of one of its columns); got {type(values).__name__}."
            )
        is_series = hasattr(values, "divisions")  # a Dask Series (or DataFrame)
        if getattr(values, "ndim", None) != 1:
            got = "DataFrame" if is_series else f"array of shape {values.shape}"
            raise InputError(
                f"{what} must hold one value per row of X, as a Dask Series or a 1-D Dask "
                f"array; got a Dask {got}. Select its one column (frame['name'], or "
                "array[:, 0])."
            )
        pieces = list(np.ravel(np.asarray(values.to_delayed(), dtype=object)))
        lengths = (np.nan,) * len(pieces) if is_series else tuple(values.chunks[0])
        if len(lengths) == len(self._rows) and all(
            a == b or (np.isnan(a) and np.isnan(b))
            for a, b in zip(lengths, self._rows, strict=True)
        ):
            return pieces  # one piece per block of X; _split checks the lengths not known
        # A length only one side knows, or other blocks: every block's length is needed.
        if any(np.isnan(n) for n in self._rows):
            self._rows = self._lengths(self._blocks)  # kept for sample_weight
        if any(np.isnan(n) for n in lengths):
            lengths = self._lengths(pieces)
        lengths = tuple(int(n) for n in lengths)
        rows = tuple(int(n) for n in self._rows)
        if lengths == rows:
            return pieces
        if sum(lengths) != sum(rows):
            raise InputError(
                f"{what} has {sum(lengths)} values for the {sum(rows)} rows of X; give one "
                "value per row."
            )
        return _cut(self.delayed, pieces, lengths, rows)

    def _lengths(self, pieces: list) -> tuple:
        """The number of rows of every delayed piece, computed."""
        dask = _dask()
        count = self.delayed(_n_rows, pure=True)
        return tuple(int(n) for n in dask.compute(*[count(p) for p in pieces]))

    def map(self, func, *args):
        """``func(X, y, w, *args)`` on every partition, computed; the results in
        partition order (each a partition's statistics, never its rows)."""
        dask = _dask()
        call = self.delayed(_call, pure=True)
        return list(dask.compute(*[call(func, part, *args) for part in self.parts]))


def _names_column(value, columns) -> bool:
    """Whether ``value`` is the label of one of a frame's ``columns`` (a str, or any
    other label such as the int 0); False for None, a Dask collection or an array."""
    if value is None or is_dask(value):
        return False
    try:
        return bool(value in columns)
    except (TypeError, ValueError):  # unhashable: values, not a label
        return False


def _n_rows(piece) -> int:
    """The rows of a block (an array, a sparse matrix, a pandas object)."""
    return int(piece.shape[0])


def _cut(delayed, pieces: list, lengths: tuple, rows: tuple) -> list:
    """``pieces`` (delayed, of ``lengths`` values) joined and cut again into
    consecutive runs of ``rows`` values, one delayed array per run."""
    stops = np.cumsum(lengths)
    starts = stops - np.asarray(lengths)
    stitch = delayed(_stitch, pure=True)
    out, begin = [], 0
    for n in rows:
        end = begin + n
        first = int(np.searchsorted(stops, begin, side="right"))
        spans = []
        for i in range(first, len(pieces)):
            if starts[i] >= end:
                break
            lo, hi = max(begin, starts[i]) - starts[i], min(end, stops[i]) - starts[i]
            if hi > lo:
                spans.append((pieces[i], int(lo), int(hi)))
        out.append(stitch(spans))
        begin = end
    return out


def _stitch(spans: list) -> np.ndarray:
    """The values ``piece[lo:hi]`` of every ``(piece, lo, hi)``, joined."""
    values = [np.asarray(piece)[lo:hi] for piece, lo, hi in spans]
    return np.concatenate(values) if values else np.empty(0)


def _block(part):
    """An array block as the package's table reads it: a CSR sparse array for a
    scipy.sparse block, an ndarray otherwise."""
    if sparse.issparse(part):
        return sparse.csr_array(part)
    try:
        X = np.asarray(part)
    except (TypeError, ValueError, RuntimeError):  # e.g. a pydata/sparse block
        X = np.empty(())
    if X.ndim != 2:
        raise InputError(
            "X's blocks must be NumPy arrays or scipy.sparse matrices; a block is "
            f"{type(part).__name__}. Convert the blocks, e.g. X.map_blocks(np.asarray) or "
            "X.map_blocks(scipy.sparse.csr_matrix)."
        )
    return X


def _split(part, names, target, weight_column, y, w):
    if names is None:  # an array block
        X = _block(part)
    else:
        X = part[names]
        y = part[target] if target is not None else y
        w = part[weight_column] if weight_column is not None else w
    y = None if y is None else pd.Series(np.asarray(y), copy=False)
    w = None if w is None else np.asarray(w, dtype=float)
    n = X.shape[0]
    for what, values in (("y", y), ("sample_weight", w)):
        if values is not None and len(values) != n:
            raise InputError(
                f"a block of X has {n} rows but its piece of {what} has {len(values)}: "
                f"{what} must hold one value per row of X, in X's row order. Partition "
                f"{what} exactly like X, or give both known chunk sizes "
                "(ddf.to_dask_array(lengths=True), x.compute_chunk_sizes()) so that it is "
                "cut at X's blocks."
            )
    return X, y, w


def _call(func, part, *args):
    X, y, w = part
    return func(X, y, w, *args)


# -- the summary pass: what binding needs --------------------------------------------------
def _is_float(dtype) -> bool:
    return not isinstance(dtype, pd.CategoricalDtype) and getattr(dtype, "kind", "O") == "f"


def _columns(X):
    if isinstance(X, pd.DataFrame):
        return [X.iloc[:, j] for j in range(X.shape[1])]
    return [X[:, j] for j in range(X.shape[1])]


def _summary_part(X, y, w, values_of: list):
    """One partition's summary: rows, weights, label values, and per column its
    distinct values (``values_of[j]``) or its float range and a value other than 0/1."""
    out = {"n": X.shape[0], "labels": set(), "columns": []}
    if w is not None:
        if len(w) and not (np.all(np.isfinite(w)) and np.all(w >= 0)):
            raise InputError(
                "sample_weight must be finite and >= 0 in every row; a partition has "
                f"{w[~(np.isfinite(w) & (w >= 0))][0]!r}."
            )
        out["weight"] = float(w.sum())
    if y is not None:
        out["labels"] = set(pd.unique(y).tolist())
    if sparse.issparse(X):
        out["sparse"] = True
        out["columns"] = _sparse_columns(X, values_of)
        return out
    for col, distinct in zip(_columns(X), values_of, strict=True):
        if distinct:
            out["columns"].append({"values": set(pd.unique(pd.Series(col).dropna()).tolist())})
            continue
        v = np.asarray(col, dtype=float)
        v = v[~np.isnan(v)]
        other = v[(v != 0) & (v != 1)]
        out["columns"].append(
            {
                "min": float(v.min()) if v.size else None,
                "max": float(v.max()) if v.size else None,
                "other": float(other[0]) if other.size else None,
            }
        )
    return out


def _sparse_columns(X, values_of: list) -> list:
    """:func:`_summary_part`'s columns of a sparse block, from its stored values and a
    0 in every column with a row it does not store (vectorized: a block of word counts
    may have many thousands of columns)."""
    X = sparse.csc_array(X)
    X.sum_duplicates()  # every column's values in row order, once per cell
    n, d = X.shape
    stored = np.diff(X.indptr)
    column = np.repeat(np.arange(d), stored)
    data = X.data
    implicit = stored < n  # a row it does not store: a 0
    observed = ~np.isnan(data) if data.dtype.kind == "f" else np.ones(data.size, bool)
    out: list = [None] * d
    if any(values_of):
        zero = np.zeros(1, dtype=X.dtype).tolist()[0]
        c, v = column[observed], data[observed]
        order = np.lexsort((v, c))
        c, v = c[order], v[order]
        new = np.ones(c.size, bool)
        new[1:] = (c[1:] != c[:-1]) | (v[1:] != v[:-1])
        c, v = c[new], v[new]  # every column's distinct stored values
        bounds = np.searchsorted(c, np.arange(d + 1))
        for j in np.flatnonzero(values_of):
            values = set(v[bounds[j] : bounds[j + 1]].tolist())
            out[j] = {"values": (values | {zero}) if implicit[j] else values}
    if not all(values_of):
        low, high = np.full(d, np.inf), np.full(d, -np.inf)
        np.minimum.at(low, column[observed], data[observed])
        np.maximum.at(high, column[observed], data[observed])
        low[implicit], high[implicit] = np.minimum(low[implicit], 0), np.maximum(high[implicit], 0)
        odd = observed & (data != 0) & (data != 1)
        first, at = np.unique(column[odd], return_index=True)
        other = dict(zip(first.tolist(), data[odd][at].tolist(), strict=True))
        for j in np.flatnonzero(~np.asarray(values_of, dtype=bool)):
            seen = bool(np.isfinite(low[j]))
            out[j] = {
                "min": float(low[j]) if seen else None,
                "max": float(high[j]) if seen else None,
                "other": other.get(int(j)),
            }
    return out


def _merge_summaries(parts: list) -> dict:
    total = {"n": 0, "sizes": [], "labels": set(), "weight": 0.0, "weighted": False}
    total["columns"], total["sparse"] = None, False
    for part in parts:
        total["n"] += part["n"]
        total["sparse"] |= part.get("sparse", False)
        total["sizes"].append(part["n"])
        total["labels"] |= part["labels"]
        total["weight"] += part.get("weight", 0.0)
        total["weighted"] |= "weight" in part
        if total["columns"] is None:
            total["columns"] = [dict(c) for c in part["columns"]]
            continue
        for mine, theirs in zip(total["columns"], part["columns"], strict=True):
            if "values" in mine:
                mine["values"] |= theirs["values"]
                continue
            for key, pick in (("min", min), ("max", max)):
                if theirs[key] is not None:
                    mine[key] = theirs[key] if mine[key] is None else pick(mine[key], theirs[key])
            if mine["other"] is None:
                mine["other"] = theirs["other"]
    return total


def _proxy(meta, summary: dict):
    """A small in-memory frame (or array) of ``meta``'s columns and dtypes holding
    every value binding reads: each column's distinct values, or its range and a value
    other than 0/1. Shorter columns repeat their first value. An array whose blocks are
    scipy.sparse gives a CSR sparse array, which binding reads as it reads one in
    memory (one Bernoulli or Multinomial block)."""
    cells = []
    for col in summary["columns"]:
        if "values" in col:
            cells.append(list(col["values"]))
        else:
            found = [col[k] for k in ("min", "max", "other") if col[k] is not None]
            cells.append(found or [np.nan])
    rows = max([len(c) for c in cells] + [1])
    padded = [c + [c[0]] * (rows - len(c)) if c else [None] * rows for c in cells]
    if isinstance(meta, np.ndarray):
        proxy = np.array(padded, dtype=meta.dtype).T.reshape(rows, meta.shape[1])
        return sparse.csr_array(proxy) if summary["sparse"] else proxy
    data = {}
    for (name, dtype), values in zip(meta.dtypes.items(), padded, strict=True):
        if isinstance(dtype, pd.CategoricalDtype) and "__UNKNOWN_CATEGORIES__" in list(
            dtype.categories
        ):
            seen = sorted({v for v in values if not pd.isna(v)}, key=str)
            dtype = pd.CategoricalDtype(seen, ordered=dtype.ordered)
        data[name] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(data, columns=meta.columns)


class _Bound:
    """The declaration bound to a Dask collection's rows, as in memory."""

    def __init__(self, model, source: _Source, *, counted: bool, target=None):
        self.source = source
        meta = source.meta
        dtypes = list(meta.dtypes) if hasattr(meta, "dtypes") else [meta.dtype] * meta.shape[1]
        values_of = [not _is_float(d) for d in dtypes]
        self.summary = _merge_summaries(source.map(_summary_part, values_of))
        if self.summary["n"] == 0:
            raise InputError("X has no rows; fitting needs at least one.")
        if self.summary["weighted"] and not self.summary["weight"] > 0:
            raise InputError("sample_weight sums to 0; give at least one row a weight > 0.")
        table = self._table(meta)
        if self.summary["sparse"]:
            _check_sparse_families(model, table)
        # a float column declared categorical needs its distinct values too
        wanted = self._float_categoricals(model, table)
        if wanted:
            values_of = [v or j in wanted for j, v in enumerate(values_of)]
            self.summary = _merge_summaries(source.map(_summary_part, values_of))
            table = self._table(meta)
        self.table = table
        self.blocks = model.bind(table, None, counted=True, target=target)
        for block in self.blocks:
            if getattr(block, "edges", 0) is None and not isinstance(block.bins, numbers.Integral):
                raise InputError(
                    f"Binned feature {block.name!r} learns bins={block.bins!r} from all the "
                    "rows, which a Dask fit does not gather. Use bins=<int> (edges from the "
                    "range) or declare edges=[...]."
                )
        self.counted = counted
        if counted:  # a mixture's defaults wait for its number of components (pool)
            self.pool()

    def _table(self, meta) -> Table:
        proxy = _proxy(meta, self.summary)
        return _part_table(proxy, self.source.names, self.source.is_frame)

    def _float_categoricals(self, model, table: Table) -> set:
        from bayesnb.families.discrete import Categorical

        names = list(table.names)
        dtypes = (
            list(table.data.dtypes)
            if isinstance(table.data, pd.DataFrame)
            else [table.data.dtype] * len(names)
        )
        out = set()
        for _, family, columns in declare(model.features, table):
            if isinstance(family, Categorical) and family.categories is None:
                out |= {names.index(c) for c in columns if _is_float(dtypes[names.index(c)])}
        return out

    def pool(self, n_labels: int | None = None) -> None:
        """Defaults the in-memory bind learns from the pooled rows (a Gaussian prior's
        mean and scale under EM, for ``n_labels`` components; a multivariate Gaussian's
        centre and covariance): from the partitions' pooled statistics, merged."""
        pending = [b for b in self.blocks if b.needs_pooled(self.counted)]
        if not pending:
            return
        source = self.source
        parts = [p for p in source.map(_pooled_part, pending, source.names, source.is_frame) if p]
        for j, block in enumerate(pending):
            stats = parts[0][j]
            for part in parts[1:]:
                stats = merge_stats(stats, part[j])
            block.adopt_pooled(stats, n_labels)


def _check_sparse_families(model, table: Table) -> None:
    """Refuse a declaration other than Bernoulli or Multinomial features on an array
    of scipy.sparse blocks: the package reads a sparse matrix with those alone."""
    from bayesnb.families import Bernoulli, Multinomial

    for name, family, _ in declare(model.features, table):
        if not isinstance(family, Bernoulli | Multinomial):
            raise InputError(
                f"X is a Dask array of scipy.sparse blocks, which is read as word presences "
                f"(Bernoulli) or counts (Multinomial); feature {name!r} is declared "
                f"{type(family).__name__}. Declare bnb.Bernoulli() or bnb.Multinomial(), or "
                "make the blocks dense: X.map_blocks(lambda b: b.toarray())."
            )


def _part_table(X, names, is_frame: bool) -> Table:
    """A partition's rows as the package's table (an array's columns named as X's; a
    sparse block stays sparse)."""
    if is_frame:
        return Table(X, feature_names=None)
    return Table(X if sparse.issparse(X) else np.asarray(X), feature_names=names)


def _pooled_part(X, y, w, blocks, names, is_frame):
    """Every block's statistics of a partition's rows as one class (weighted)."""
    if not X.shape[0]:
        return None
    table = _part_table(X, names, is_frame)
    weights = np.ones(X.shape[0]) if w is None else w
    return [b.pooled_stats(table.take(b.columns), weights) for b in blocks]


# -- supervised fitting ----------------------------------------------------------------------
def fit(
    model,
    X,
    y=None,
    *,
    target=None,
    estimate: str = "mean",
    class_estimate: str | None = None,
    sample_weight=None,
    feature_names=None,
    classes=None,
):
    """:meth:`NaiveBayes.fit <bayesnb.NaiveBayes.fit>` of a Dask DataFrame or array
    (``model.fit(ddf, target=...)`` calls it): every partition counted where it lives,
    the statistics merged, the parameters estimated once. ``y`` and ``sample_weight``
    are Dask Series or 1-D Dask arrays of one value per row of ``X``, or, for a
    DataFrame, names of its columns. They are read block by block with ``X`` when
    their blocks line up with its blocks (as many, each of the same length or of a
    length Dask knows on neither side: e.g. ``X`` and ``y`` from one frame's
    ``to_dask_array()``); otherwise the block lengths Dask does not know are computed
    (one more pass; ``ddf.to_dask_array(lengths=True)`` spares it) and they are cut
    again at ``X``'s row boundaries. An array's blocks may be scipy.sparse matrices,
    fitted as the same sparse matrix is in memory (Bernoulli or Multinomial features
    only). Without labels the fit is the density, as in memory. The fit keeps no
    training rows (``fit.training`` is empty), so its exact posterior has no
    ``observed_data`` group.

    Examples
    --------
    The house votes in four partitions, counted by Dask's local scheduler: the
    merged statistics give the parameters of the fit in memory.

    >>> import dask.dataframe as dd
    >>> import numpy as np
    >>> import bayesnb as bnb
    >>> from bayesnb import dask as on_dask
    >>> votes = bnb.datasets.house_votes_84()
    >>> ddf = dd.from_pandas(votes, npartitions=4)
    >>> fit = on_dask.fit(bnb.NaiveBayes(), ddf, target="party")  # as NaiveBayes().fit(ddf, ...)
    >>> in_memory = bnb.NaiveBayes().fit(votes, target="party")
    >>> all(np.allclose(fit.params[v], in_memory.params[v]) for v in in_memory.params.data_vars)
    True
    >>> fit.training
    []
    """
    from bayesnb.density import CONSTANT_LABEL, DENSITY_TARGET, DensityFit
    from bayesnb.naive_bayes import NaiveBayesFit, check_classes
    from bayesnb.priors import check_estimate

    check_estimate(estimate)
    if class_estimate is not None:
        check_estimate(class_estimate, "class_estimate")
    density = y is None and target is None and classes is None
    if not density and y is None and target is None:
        raise InputError("fit got classes= but no labels: pass y= or target= as well.")
    source = _Source(X, y, target, sample_weight, feature_names)
    columns = getattr(source.meta, "columns", ())
    if density:
        target_name = DENSITY_TARGET
    else:
        target_name = str(target) if target is not None else label_name(y, columns)
    bound = _Bound(model, source, counted=True, target=target_name)
    if density:
        labels, kind = [CONSTANT_LABEL], DensityFit
        class_estimate = estimate
    else:
        kind = NaiveBayesFit
        seen = pd.Series(list(bound.summary["labels"]), dtype=object)
        if seen.isna().any():
            raise InputError(
                "y has missing labels (None, NaN, NA): supervised fitting needs the class of "
                "every row. Drop those rows first, e.g. ddf.dropna(subset=[target])."
            )
        if classes is None:
            _, labels = encode_labels(seen, len(seen))
        else:
            labels = check_classes(classes)
            encode_labels(seen, len(seen), labels=labels, remedy="Add it to classes=.")
    parts = source.map(_count_part, bound.blocks, labels, density, source.names, source.is_frame)
    stats, class_counts = _merge_counts(bound.blocks, parts, len(labels))
    fitted = kind.from_statistics(
        labels=labels,
        blocks=bound.blocks,
        stats=stats,
        class_counts=class_counts,
        class_prior=model.class_prior,
        estimates={
            "class": class_estimate or estimate,
            "features": {b.name: b.estimate or estimate for b in bound.blocks},
        },
        feature_names=[str(c) for c in source.names],  # as a Table names them
        is_frame=source.is_frame,
        # keyed by the frame's own labels (an int stays an int), as a Table's
        # frame_dtypes: drawn rows then come back under them, as in memory
        column_dtypes=dict(source.meta.dtypes.items()) if source.is_frame else None,
        target=target_name,
    )
    fitted.training = []
    return fitted


def _count_part(X, y, w, blocks, labels, density, names, is_frame):
    """A partition's statistics, every block's and the classes' (None: no rows)."""
    from bayesnb.families._kernels import Labels
    from bayesnb.families.base import count_blocks

    n = X.shape[0]
    if not n:
        return None
    if density:
        codes = np.zeros(n, dtype=np.intp)
    else:
        codes, _ = encode_labels(y, n, labels=labels)
    resp = Labels(codes, len(labels), w)
    return count_blocks(blocks, _part_table(X, names, is_frame), resp), resp.totals()


def _merge_counts(blocks, parts, n_labels: int):
    """The partitions' statistics merged in partition order."""
    stats, class_counts = None, np.zeros(n_labels)
    for part in parts:
        if part is None:
            continue
        counts, totals = part
        stats = (
            counts
            if stats is None
            else [b.merge_stats(a, c) for b, a, c in zip(blocks, stats, counts, strict=True)]
        )
        class_counts = class_counts + totals
    return stats, class_counts


# -- sums over the rows at fitted parameters --------------------------------------------------
def map_rows(fitted, X, sample_weight, func, *args) -> list:
    """``func(fitted, rows, w, *args)`` of every non-empty partition of ``X``, run where
    the partition lives; the results (each a partition's sums, never its rows) in
    partition order. ``rows`` is a pandas frame, an array or a CSR sparse array, as
    ``fitted`` reads it in memory; ``w`` its weights (``sample_weight``: a Dask Series
    or 1-D array, or the name of a column of ``X``), or None. The model choice
    criteria (:mod:`bayesnb.model_choice`) sum over the rows this way."""
    names = None if fitted.is_frame else fitted.feature_names
    source = _Source(X, None, None, sample_weight, names)
    return [r for r in source.map(_map_rows_part, fitted, func, args) if r is not None]


def _map_rows_part(X, y, w, fitted, func, args):
    if w is not None and len(w) and not (np.all(np.isfinite(w)) and np.all(w >= 0)):
        raise InputError(
            "sample_weight must be finite and >= 0 in every row; a partition has "
            f"{w[~(np.isfinite(w) & (w >= 0))][0]!r}. Give every row a finite weight (0 "
            "leaves it out)."
        )
    if not X.shape[0]:
        return None
    return func(fitted, X, w, *args)


# -- prediction ------------------------------------------------------------------------------
_METHODS = ("predict", "predict_proba", "predict_log_proba", "joint_log_likelihood")


def predict(fitted, X, method: str):
    """``fitted.<method>(X)`` of a Dask collection, partition by partition: a Dask
    DataFrame gives a Dask DataFrame (one column per class, or a Series of labels for
    ``predict``), a Dask array a Dask array. Each task holds the fitted model and
    depends on its partition alone, so it runs where the partition is. An array's
    scipy.sparse blocks are scored sparse.

    ``method`` is ``"predict"``, ``"predict_proba"`` or ``"predict_log_proba"``;
    ``fitted.predict_proba(ddf)`` and the other methods call this.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import numpy as np
    >>> import bayesnb as bnb
    >>> from bayesnb.dask import predict
    >>> votes = bnb.datasets.house_votes_84()
    >>> fit = bnb.NaiveBayes().fit(votes, target="party")
    >>> rows = dd.from_pandas(votes.drop(columns="party"), npartitions=4)
    >>> proba = predict(fit, rows, "predict_proba")  # lazy: one task per partition
    >>> type(proba).__name__, proba.npartitions, list(proba.columns)
    ('DataFrame', 4, ['democrat', 'republican'])
    >>> in_memory = fit.predict_proba(votes.drop(columns="party"))
    >>> bool(np.allclose(proba.compute().to_numpy(), in_memory))
    True
    """
    dask = _dask()
    if method not in _METHODS:
        raise InputError(f"method must be one of {_METHODS}; got {method!r}.")
    # The model goes into every task as a literal (O(classes x parameters)), not as a
    # key: a task then depends on its partition alone, and the scheduler runs it there.
    model = fitted
    labels = list(fitted.labels)
    if hasattr(X, "columns"):
        if method == "predict":
            meta = pd.Series(np.asarray(labels)[:0], name=fitted.target)
        else:
            meta = pd.DataFrame({label: pd.Series(dtype=float) for label in labels})
        import dask.dataframe as dd

        one = dask.delayed(_predict_frame, pure=True)
        parts = [one(part, model, method) for part in X.to_delayed()]
        return dd.from_delayed(parts, meta=meta, divisions=X.divisions, verify_meta=False)
    if X.ndim != 2:
        raise InputError(f"X must be 2-D (rows, columns); got a Dask array of shape {X.shape}.")
    import dask.array as da

    X = X.rechunk({1: -1})
    one = dask.delayed(_predict_block, pure=True)
    dtype = np.asarray(labels).dtype if method == "predict" else np.dtype(float)
    shape = () if method == "predict" else (len(labels),)
    return da.concatenate(
        [
            da.from_delayed(one(block, model, method), shape=(rows, *shape), dtype=dtype)
            for block, rows in zip(X.to_delayed()[:, 0], X.chunks[0], strict=True)
        ]
    )


def _predict_frame(part, fitted, method):
    out = getattr(fitted, method)(part)
    if method == "predict":
        return pd.Series(out, index=part.index, name=fitted.target)
    return pd.DataFrame(out, index=part.index, columns=list(fitted.labels))


def _predict_block(block, fitted, method):
    return getattr(fitted, method)(_block(block))


# -- EM over partitions ----------------------------------------------------------------------
class _BoundModel:
    """A declaration whose blocks are already bound (to a Dask collection's rows):
    ``bind`` hands them out, so an in-memory EM on a sample of the rows works in the
    same categories, edges and priors as the EM on all of them."""

    def __init__(self, model, blocks: list):
        self.features, self.class_prior, self.blocks = model.features, model.class_prior, blocks

    def bind(self, table, sample_weight=None, *, counted: bool = False, n_labels=None) -> list:
        return self.blocks


def cluster(
    model,
    X,
    n_components=2,
    *,
    y=None,
    estimate=None,
    class_estimate=None,
    init="kmeans",
    n_init=None,
    max_iter: int,
    tol: float,
    accelerate: bool = True,
    sample_weight=None,
    rng,
    feature_names=None,
    hard: bool = False,
    persist: bool = True,
):
    """EM of the mixture declared by ``model`` on a Dask DataFrame or array
    (``model.cluster(ddf, K, ...)`` calls it, with its options checked).

    Every sweep maps the E-step and the expected statistics over the partitions, where
    they live, and the client merges the statistics and takes the M-step: the
    accelerated EM, the monotonicity check and semi-supervised labels (``y``, a Dask
    collection partitioned like ``X`` with NaN for an unknown component) are those of
    the in-memory EM, whose iterates it takes from the same start. ``persist=True``
    keeps every partition encoded on its worker between sweeps; ``False`` reads and
    encodes the partitions again at every sweep (data larger than the cluster's
    memory).

    A random ``init`` ("kmeans", "k-means++", "random", "assign") with its ``n_init``
    restarts runs in memory on a sample of :data:`START_ROWS` rows drawn from the
    partitions (with every block bound to all the rows); EM on all the rows then starts
    from the best restart's parameters. A start given as parameters (a Dataset, a dict
    or a fitted model) is used as it is. Responsibilities of the training rows are not
    gathered (``responsibilities`` is None): ``predict_proba(ddf)`` gives them lazily.
    The one sum of them that :attr:`~bayesnb.mixture.MixtureFit.icl` needs is merged
    from the partitions by EM's last sweep, so ``icl`` is the in-memory fit's.
    An array of scipy.sparse blocks runs EM as in memory.
    """
    from bayesnb._dask_em import DaskProblem
    from bayesnb._starts import start_params
    from bayesnb.mixture import (
        _describe,
        _restart_fits,
        _State,
        fit_mixture,
        mixture_labels,
    )

    if isinstance(init, np.ndarray) or (isinstance(init, str) and init == "uniform"):
        raise InputError(
            f"init={_describe(init)} on a Dask collection is not built: it needs every "
            "row's responsibilities in memory. Use a random init ('kmeans', the default) or "
            "starting parameters."
        )
    source = _Source(X, y, None, sample_weight, feature_names)
    bound = _Bound(model, source, counted=False)
    known = None
    if y is not None:
        known = pd.Series(list(bound.summary["labels"]), dtype=object)
    labels = mixture_labels(n_components, known, init)
    bound.pool(len(labels))
    if len(labels) > 1:  # what the in-memory bind warns of (a constant Gaussian column),
        for block in bound.blocks:  # read from the columns' ranges
            block._check_mixture_data(bound.table.take(block.columns))
    given = _BoundModel(model, bound.blocks)
    problem = DaskProblem(given, bound, labels, estimate, class_estimate, hard, persist)
    if isinstance(init, str):  # restarts on a sample, in memory
        Xs, ys, ws = _sample(source, bound.summary["sizes"], START_ROWS, rng)
        start = fit_mixture(
            given,
            Xs,
            labels,
            y=ys,
            estimate=estimate,
            class_estimate=class_estimate,
            init=init,
            n_init=n_init,
            max_iter=max_iter,
            tol=tol,
            accelerate=accelerate,
            sample_weight=ws,
            random_state=rng,
            feature_names=None if source.is_frame else source.names,
            hard=hard,
        )
    else:
        start = init
    state = _State(*start_params(problem.blocks, problem.K, start))
    run = problem.run(state, max_iter, tol, 0, accelerate)
    fits, best = _restart_fits(problem, [run], init, max_iter, tol)
    # ICL's sum over the rows, which an in-memory fit takes from its responsibilities:
    # here merged from the partitions by EM's last sweep, at the fit's parameters
    fits[best]._top_log_sum = problem.top_log_sum(run.state)
    return fits[best]


def _sample(source: _Source, sizes: list, rows: int, rng):
    """About ``rows`` rows drawn at random from every partition (of ``sizes`` rows) in
    proportion to its size (all of them when there are fewer), as one in-memory
    ``(X, y, w)``."""
    total = sum(sizes)
    fraction = min(1.0, rows / max(total, 1))
    seeds = rng.integers(0, 2**63 - 1, size=len(sizes))
    dask = _dask()
    take = source.delayed(_take_rows, pure=True)
    picked = dask.compute(
        *[take(part, fraction, int(seed)) for part, seed in zip(source.parts, seeds, strict=True)]
    )
    picked = [p for p in picked if p[0].shape[0]]
    Xs = [p[0] for p in picked]
    if source.is_frame:
        X = pd.concat(Xs)
    elif any(sparse.issparse(x) for x in Xs):
        X = sparse.csr_array(sparse.vstack([sparse.csr_array(x) for x in Xs], format="csr"))
    else:
        X = np.concatenate(Xs)
    ys = [p[1] for p in picked]
    ws = [p[2] for p in picked]
    y = None if ys[0] is None else pd.concat(ys, ignore_index=True)
    w = None if ws[0] is None else np.concatenate(ws)
    return X, y, w


def _take_rows(part, fraction: float, seed: int):
    X, y, w = part
    keep = np.flatnonzero(np.random.default_rng(seed).random(X.shape[0]) < fraction)
    X = X.iloc[keep] if isinstance(X, pd.DataFrame) else X[keep]
    return X, None if y is None else y.iloc[keep], None if w is None else w[keep]
