"""Feature families: the likelihood of one declared feature (or block of columns).

Every family follows the same four-step kernel, shared by the classifier and by EM:

``encode(data)``
    Raw columns to a numeric design: 0/1 values, one-hot indicators (stored as
    category codes, several columns folded into one code), counts or floats (centred
    block by block in the products). A missing value becomes a zero row (discrete)
    or is left out where a Gaussian's sums show it, so it drops out of both the
    counts and the likelihood.
``count(enc, resp)``
    Sufficient statistics given responsibilities ``resp`` of shape (n, K): one-hot
    labels for a classifier, soft memberships inside EM. One matrix product.
``estimate(stats, method)``
    Parameters from statistics under the declared conjugate prior.
``log_likelihood(enc, params)``
    The (n, K) log-likelihood of every row under every class. One matrix product.

Families are declared unbound (``Categorical()``) and bound to training data by the
model, which learns their categories, edges or scale.
"""

from __future__ import annotations

import copy
import functools
import itertools
import warnings

import numpy as np
import pandas as pd
import xarray as xr
from scipy import sparse, special

from bayesnb.priors import Beta, Dirichlet, NormalInverseGamma, check_estimate

LOG_2PI = np.log(2.0 * np.pi)


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

#: Rows of group codes (and of responsibilities or scores) handled at a time.
_COUNT_BLOCK_ROWS = 1 << 16


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


def _group_codes(values: np.ndarray, sizes: tuple[int, ...], check=None) -> tuple:
    """The group codes of category codes ``values`` (n, d), -1 where missing: a tuple of
    one (n,) array per group.

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
    out = tuple(np.empty(n, dtype=dtype) for _ in groups)
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
    return out


def _digit_axes(first: int, stop: int) -> list[int]:
    """The axis of every column ``first..stop-1`` in a group's table (K, *bases), whose
    axes run from the most significant digit (the last column) to the least."""
    return [1 + (stop - 1 - j) for j in range(first, stop)]


def _group_counts(enc: tuple, resp: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """``resp.T @ one_hot`` of every column, flat (K, sum(sizes)), from group codes.

    One weighted histogram of every group's codes per component, then each column's
    counts as the margin of its digit; the digit 0 (missing) is dropped. The rows go
    by blocks, so each block's responsibilities are read from cache by every group.
    """
    n_labels = resp.shape[1]
    groups = _code_groups(sizes)
    hists = [np.zeros((n_labels, n_codes)) for _, _, n_codes in groups]
    for start in range(0, resp.shape[0], _COUNT_BLOCK_ROWS):
        weights = resp[start : start + _COUNT_BLOCK_ROWS]
        for hist, codes, (_, _, n_codes) in zip(hists, enc, groups, strict=True):
            block = codes[start : start + _COUNT_BLOCK_ROWS].astype(np.intp)
            for k in range(n_labels):
                hist[k] += np.bincount(block, weights=weights[:, k], minlength=n_codes)
    out = np.empty((n_labels, sum(sizes)))
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    for hist, (first, stop, _) in zip(hists, groups, strict=True):
        hist = hist.reshape(n_labels, *[sizes[j] + 1 for j in range(stop - 1, first - 1, -1)])
        axes = _digit_axes(first, stop)
        for j, axis in zip(range(first, stop), axes, strict=True):
            margin = hist.sum(axis=tuple(a for a in axes if a != axis)) if len(axes) > 1 else hist
            out[:, offsets[j] : offsets[j + 1]] = margin[:, 1:]
    return out


def _group_lookup(enc: tuple, logp: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """``sum_j one_hot_j @ logp_j.T`` from group codes: (n, K), components first.

    ``logp`` is flat (K, sum(sizes)). Every group gets a table of the summed
    log-probabilities of its columns' digits (a missing digit adds 0), and every row
    reads one entry per group: a ``-inf`` reaches exactly the rows showing that
    category, and no ``0 * -inf`` is ever formed.
    """
    n_labels, n = logp.shape[0], len(enc[0])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    groups = _code_groups(sizes)
    tables = []
    for first, stop, n_codes in groups:
        axes = _digit_axes(first, stop)
        table = np.zeros((n_labels, *[1] * len(axes)))
        for j, axis in zip(range(first, stop), axes, strict=True):
            column = np.zeros((n_labels, sizes[j] + 1))
            column[:, 1:] = logp[:, offsets[j] : offsets[j + 1]]
            shape = [n_labels] + [1] * len(axes)
            shape[axis] = sizes[j] + 1
            table = table + column.reshape(shape)
        tables.append(table.reshape(n_labels, n_codes))
    out = np.empty((n_labels, n))
    scratch = np.empty(min(n, _COUNT_BLOCK_ROWS))
    for start in range(0, n, _COUNT_BLOCK_ROWS):
        rows = slice(start, min(n, start + _COUNT_BLOCK_ROWS))
        part = scratch[: rows.stop - rows.start]
        for g, (table, codes) in enumerate(zip(tables, enc, strict=True)):
            block = codes[rows].astype(np.intp)
            for k in range(n_labels):  # every code is in range: "clip" skips the checks
                if g == 0:
                    np.take(table[k], block, out=out[k, rows], mode="clip")
                else:
                    out[k, rows] += np.take(table[k], block, out=part, mode="clip")
    return out.T


class Family:
    """Base class of the feature families. Subclasses set ``kind`` and the kernel."""

    kind = "family"
    multi_column = False

    def __init__(self, prior=None, *, estimate: str | None = None, columns=None):
        if estimate is not None:
            check_estimate(estimate)
        self.prior = prior
        self.estimate = estimate
        self.columns = None if columns is None else list(columns)
        if self.columns is not None and not self.multi_column and len(self.columns) != 1:
            raise ValueError(
                f"{type(self).__name__} describes one column; got columns={self.columns!r}. "
                "Declare one entry per column in `features`."
            )
        self.name: str | None = None

    def __repr__(self) -> str:
        bits = [f"prior={self.prior!r}"]
        if self.estimate is not None:
            bits.append(f"estimate={self.estimate!r}")
        if self.columns is not None:
            bits.append(f"columns={self.columns!r}")
        return f"{type(self).__name__}({', '.join(bits)})"

    # -- binding -----------------------------------------------------------------------
    def bind(
        self, name: str, columns: list, data, sample_weight=None, *, counted: bool = False
    ) -> Family:
        """A copy of this declaration bound to training ``data`` (its columns).

        ``sample_weight`` (one non-negative number per row) weighs the rows in any
        data-dependent default the family learns. ``counted=True`` promises that the
        caller counts these same rows next with responsibilities whose rows sum to
        ``sample_weight`` (a classifier's labels): a default that is a function of the
        pooled statistics (the Gaussian prior's pooled mean and variance) is then
        taken from those statistics at the first estimate, without a read here.
        """
        bound = copy.copy(self)
        bound.name = name
        bound.columns = list(columns)
        bound._learn(data, sample_weight)
        return bound

    def _learn(self, data, sample_weight=None) -> None:  # pragma: no cover - overridden
        pass

    @property
    def n_columns(self) -> int:
        return len(self.columns)

    def _feature_dim(self) -> str:
        return f"{self.name}_feature"

    def _lead_dims(self, label_dim: str) -> tuple[str, ...]:
        """Dims before any category axis: the label, then features for a block."""
        return (label_dim, self._feature_dim()) if self.multi_column else (label_dim,)

    def _coords(self) -> dict:
        return {self._feature_dim(): self.columns} if self.multi_column else {}


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


class _Discrete(Family):
    """Shared estimate and export for families whose statistics are counts."""

    def _alpha(self, n_labels: int, shape: tuple[int, ...]) -> np.ndarray:
        prior = self.prior
        alpha = np.asarray(prior.alpha, dtype=float)
        target = (n_labels, *shape)
        for candidate in (
            alpha,
            alpha[:, None, :] if alpha.ndim == 2 and self.multi_column else None,
        ):
            if candidate is None:
                continue
            try:
                return np.broadcast_to(candidate, target)
            except ValueError:
                continue
        raise ValueError(
            f"the prior of feature {self.name!r} has concentration of shape {alpha.shape}, "
            f"which does not fit {target} (labels, ..., categories). Give a scalar, one "
            "value per category, or one row per class."
        )

    def estimate_params(self, stats: dict, method: str) -> dict:
        counts = stats["counts"]
        alpha = self._alpha(counts.shape[0], counts.shape[1:])
        return {
            "log_prob": Dirichlet(alpha).point_estimate(
                counts, method, what=f"{self.kind} feature {self.name!r}"
            )
        }

    def log_prior(self, params: dict) -> float:
        """Log density of the prior at the estimated probabilities (for MAP-EM)."""
        alpha = self._alpha(params["log_prob"].shape[0], params["log_prob"].shape[1:])
        return float(Dirichlet(alpha).logpdf(np.exp(params["log_prob"])).sum())

    def category_labels(self) -> list:
        raise NotImplementedError

    def column_sizes(self) -> list[int]:
        """The number of values of every column."""
        return [len(self.category_labels())] * self.n_columns

    def n_free_parameters(self, n_labels: int) -> int:
        return n_labels * self.n_columns * (len(self.category_labels()) - 1)

    def to_xarray(self, params: dict, stats: dict, label_dim: str, labels) -> dict:
        cat = f"{self.name}_category"
        dims = (*self._lead_dims(label_dim), cat)
        coords = {label_dim: labels, cat: self.category_labels(), **self._coords()}
        prob = np.exp(params["log_prob"])
        counts = stats["counts"]
        return {
            "params": {self.name: xr.DataArray(prob, dims=dims, coords=coords)},
            "counts": {self.name: xr.DataArray(counts, dims=dims, coords=coords)},
        }


class Bernoulli(_Discrete):
    """A Boolean feature, or a block of them (``columns=[...]``), with a Beta prior.

    Parameters
    ----------
    prior : Beta or Dirichlet, default Beta(1, 1)
        ``Beta(a, b)`` puts ``a`` pseudo-counts on true and ``b`` on false.
    values : (false, true), optional
        The two raw values, e.g. ``("n", "y")``. Default: ``False/True`` for
        Booleans, ``0/1`` for numbers, and the two sorted values for strings.
    columns : list, optional
        Several Boolean columns sharing this declaration, as one block.

    Notes
    -----
    The parameter is :math:`\\theta = P(x = 1 \\mid c)` and
    :math:`\\log p(x\\mid c) = x\\log\\theta + (1-x)\\log(1-\\theta)`; both logs come
    from the counts, never from ``log(1 - exp(log theta))``.
    """

    kind = "bernoulli"
    multi_column = True

    def __init__(self, prior=None, *, values=None, estimate=None, columns=None):
        super().__init__(
            Beta(1.0, 1.0) if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, Dirichlet):
            raise TypeError(f"Bernoulli prior must be a Beta or Dirichlet; got {self.prior!r}.")
        self.values = None if values is None else tuple(values)

    def _learn(self, data, sample_weight=None) -> None:
        if self.values is not None:
            return
        if isinstance(data, pd.DataFrame):
            kinds = {data[c].dtype.kind for c in data.columns}
            if kinds <= {"b", "i", "u", "f"}:
                self.values = (0, 1)
                return
            seen = pd.unique(data.to_numpy().ravel())
            seen = sorted(v for v in seen if not pd.isna(v))
            if len(seen) > 2:
                raise ValueError(
                    f"Bernoulli feature {self.name!r} takes 2 values; got {len(seen)}: "
                    f"{seen[:5]!r}. Declare it Categorical, or pass values=(false, true)."
                )
            if len(seen) == 2:
                self.values = (seen[0], seen[1])
            else:
                raise ValueError(
                    f"Bernoulli feature {self.name!r} shows {len(seen)} distinct value(s) "
                    f"{seen!r}, so which one is 'true' is unknown. Pass values=(false, true)."
                )
        else:
            self.values = (0, 1)

    def category_labels(self) -> list:
        return list(self.values)

    def encode(self, data):
        """0/1 matrix (NaN-free) and an observed mask (None when complete).

        Boolean and 0/1 integer input stays in its dtype (the products cast it block by
        block); float input is checked in one read and not copied when complete.
        """
        if sparse.issparse(data):
            x = sparse.csr_array(data, dtype=float)
            if x.nnz and (x.data.min() < 0 or x.data.max() > 1 or np.any(x.data % 1)):
                raise ValueError(
                    f"Bernoulli feature {self.name!r} needs 0/1 entries; the sparse input "
                    "has others. Binarize it first (e.g. X > 0)."
                )
            return x, None
        if isinstance(data, pd.DataFrame) and self.values != (0, 1):
            raw = data.to_numpy(dtype=object)
            x = np.full(raw.shape, np.nan)
            x[raw == self.values[0]] = 0.0
            x[raw == self.values[1]] = 1.0
            bad = np.isnan(x) & ~pd.isna(raw)
            if bad.any():
                raise ValueError(
                    f"Bernoulli feature {self.name!r} takes the values {self.values!r}; got "
                    f"{raw[bad][0]!r}. Clean the column, or declare it Categorical."
                )
        else:
            x = _as_float_matrix(data, f"Bernoulli feature {self.name!r}")
            if x.dtype.kind == "b":
                return x, None
            if x.dtype.kind in "iu":
                if x.size and (x.min() < 0 or x.max() > 1):
                    raise ValueError(
                        f"Bernoulli feature {self.name!r} needs 0/1 values; got the range "
                        f"[{x.min()}, {x.max()}]. Binarize it first (e.g. X > 0)."
                    )
                return x, None
            x = np.asarray(x, dtype=float)
            if _is_zero_one(x):
                return x, None
        missing = np.isnan(x)
        has_missing = missing.any()
        x0 = np.where(missing, 0.0, x) if has_missing else x
        if np.any((x0 != 0.0) & (x0 != 1.0)):
            bad = x0[(x0 != 0.0) & (x0 != 1.0)][0]
            raise ValueError(
                f"Bernoulli feature {self.name!r} needs 0/1 values (NaN for missing); got "
                f"{bad!r}. Binarize it first (e.g. X > 0)."
            )
        return x0, ((~missing).astype(float) if has_missing else None)

    def count(self, enc, resp: np.ndarray) -> dict:
        x, observed = enc
        ones = _column_sums(x, resp)  # (K, d)
        seen = (
            np.broadcast_to(resp.sum(axis=0)[:, None], ones.shape)
            if observed is None
            else _column_sums(observed, resp)
        )
        return {"counts": np.stack([seen - ones, ones], axis=-1)}

    def log_likelihood(self, enc, params: dict) -> np.ndarray:
        x, observed = enc
        logp = params["log_prob"]  # (K, d, 2)
        log0, log1 = logp[..., 0], logp[..., 1]

        def score(w1, w0):
            # x w1 + (observed - x) w0, without materializing (observed - x).
            out = _product(x, w1 - w0)
            out += w0.sum(axis=1) if observed is None else _product(observed, w0)
            return out

        finite = np.isfinite(logp)
        if finite.all():
            return score(log1, log0)
        # A zero probability somewhere: score with the -inf entries zeroed, then count
        # the impossible factors each row uses and rule those (row, class) pairs out.
        safe = np.where(finite, logp, 0.0)
        out = score(safe[..., 1], safe[..., 0])
        impossible = (~finite).astype(float)
        out[score(impossible[..., 1], impossible[..., 0]) > 0] = -np.inf
        return out

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        out = super().to_xarray(params, stats, label_dim, labels)
        cat = f"{self.name}_category"
        da = out["params"][self.name].isel({cat: 1}, drop=True)
        if not self.multi_column or self.n_columns == 1:
            da = da.isel({self._feature_dim(): 0}, drop=True)
            out["counts"][self.name] = out["counts"][self.name].isel(
                {self._feature_dim(): 0}, drop=True
            )
        da.attrs["description"] = f"P({self.name} = {self.values[1]!r} | {label_dim})"
        out["params"][self.name] = da
        return out

    def sample(self, params: dict, components: np.ndarray, rng) -> np.ndarray:
        p1 = np.exp(params["log_prob"][..., 1])[components]
        return (rng.random(p1.shape) < p1).astype(float)


class Categorical(_Discrete):
    """A discrete feature with any number of values, or a block of them, Dirichlet prior.

    Parameters
    ----------
    prior : Dirichlet, default Dirichlet(1.0)
        A scalar concentration, one per category, or one row per class.
    categories : sequence, optional
        The feature's domain (shared by every column of a block). Default: each
        column's values seen in training, sorted (a pandas categorical keeps its
        categories). A value declared here but never seen still gets its smoothed
        probability.
    unseen : {"marginalize", "error"}
        What a value outside the domain does at prediction time. ``"marginalize"``
        (default) treats it like a missing value: its factor is skipped, exactly as
        the text model skips words outside its vocabulary. ``"error"`` raises.
    columns : list, optional
        Several columns sharing this declaration, as one block. An array's columns
        form one block by default; a DataFrame's get one feature each.

    Notes
    -----
    Column :math:`j` of a block has its own probabilities :math:`\\theta_{c,j,v}` over
    its own categories and contributes :math:`\\log\\theta_{c,j,x_j}` to a row's
    log-likelihood. When every column of a block has the same categories, the
    statistics and parameters have the shape (labels, columns, categories), like a
    Bernoulli block's; when the columns' categories differ they are laid side by
    side, (labels, sum of the columns' category counts), column ``j`` starting at
    ``segments()[j]``. A single column has the shape (labels, categories).
    ``params`` has one variable per column either way: named by the feature for a
    single column and by the column in a block, with dims (label, <variable>_category).

    A block is encoded as one mixed-radix code per group of adjacent columns (the
    digit of a column is its category code + 1, and 0 when the value is missing), so
    counting takes one weighted histogram per group and class, and scoring one table
    lookup per group and class, instead of one per column.

    Examples
    --------
    >>> import numpy as np, bayesnb as bnb
    >>> X = np.array([[0, 2], [1, 2], [0, 0], [1, 1]])
    >>> fit = bnb.NaiveBayes(bnb.Categorical()).fit(X, [0, 0, 1, 1], estimate="mean")
    >>> [b.name for b in fit.blocks], fit.blocks[0].column_categories
    (['X'], [[0, 1], [0, 1, 2]])
    >>> fit.params["x1"].sel(label=0).values          # (0+1)/5, (0+1)/5, (2+1)/5
    array([0.2, 0.2, 0.6])
    """

    kind = "categorical"
    multi_column = True

    def __init__(
        self, prior=None, *, categories=None, unseen="marginalize", estimate=None, columns=None
    ):
        super().__init__(
            Dirichlet(1.0) if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, Dirichlet):
            raise TypeError(f"Categorical prior must be a Dirichlet; got {self.prior!r}.")
        if unseen not in ("marginalize", "error"):
            raise ValueError(f"unseen must be 'marginalize' or 'error'; got {unseen!r}.")
        self.categories = None if categories is None else list(categories)
        self.unseen = unseen
        self.column_categories: list[list] | None = None

    def _learn(self, data, sample_weight=None) -> None:
        if self.categories is not None:
            self.column_categories = [list(self.categories) for _ in self.columns]
            return
        learned = _observed_categories(data, self.n_columns)
        for column, categories in zip(self.columns, learned, strict=True):
            if not categories:
                raise ValueError(
                    f"Categorical feature {column!r} has no observed value in training. "
                    "Drop it, or declare its categories."
                )
        self.column_categories = learned
        if all(c == learned[0] for c in learned):
            self.categories = list(learned[0])

    # -- layout --------------------------------------------------------------------------
    def category_labels(self) -> list:
        """The categories, shared by every column of the block."""
        if self.categories is None:
            raise ValueError(
                f"the columns of Categorical block {self.name!r} have different categories; "
                "see column_categories for each column's."
            )
        return list(self.categories)

    def column_sizes(self) -> list[int]:
        """The number of categories of every column."""
        return [len(c) for c in self.column_categories]

    def segments(self) -> np.ndarray:
        """Where every column's categories start on the last axis of the flat layout."""
        return np.concatenate([[0], np.cumsum(self.column_sizes())[:-1]]).astype(np.intp)

    def _sizes(self) -> tuple[int, ...]:
        return tuple(self.column_sizes())

    def _shared(self) -> bool:
        """Whether the statistics have a category axis of their own (shared categories)."""
        return self.categories is not None

    def _stored(self, flat: np.ndarray) -> np.ndarray:
        """Flat (K, sum of sizes) values in the stored layout."""
        if self._shared() and self.n_columns > 1:
            return flat.reshape(flat.shape[0], self.n_columns, len(self.categories))
        return flat

    @staticmethod
    def _flat(values: np.ndarray) -> np.ndarray:
        values = np.asarray(values)
        return values.reshape(values.shape[0], -1)

    def _variable(self, j: int) -> str:
        """The name of column ``j``'s variable in ``params`` and ``counts``."""
        return self.name if self.n_columns == 1 else str(self.columns[j])

    def n_free_parameters(self, n_labels: int) -> int:
        return n_labels * sum(size - 1 for size in self.column_sizes())

    def _alpha(self, n_labels: int, shape: tuple[int, ...]) -> np.ndarray:
        """The concentration for statistics of ``shape`` whose last axis holds one
        column's categories. A block whose columns have different categories has no such
        axis (they lie side by side), and raises rather than mix them."""
        if not self._shared():
            raise ValueError(
                f"the columns of Categorical block {self.name!r} have different categories, "
                "laid side by side on the last axis; a Dirichlet over that axis would mix "
                "the columns. Take each column's part with segments() and column_sizes()."
            )
        return self._concentration(n_labels, shape)

    def _concentration(self, n_labels: int, shape: tuple[int, ...]) -> np.ndarray:
        """The concentration broadcast to (n_labels, *shape), in the stored layout."""
        alpha = np.asarray(self.prior.alpha, dtype=float)
        target = (n_labels, *shape)
        per_class = alpha.ndim == 2 and len(shape) == 2  # (K, categories) over a block
        try:
            return np.broadcast_to(alpha[:, None, :] if per_class else alpha, target)
        except ValueError:
            raise ValueError(
                f"the prior of feature {self.name!r} has concentration of shape "
                f"{alpha.shape}, which does not fit {target} (labels, ..., categories). Give "
                "a scalar, one value per category, or one row per class."
            ) from None

    # -- kernel ----------------------------------------------------------------------------
    def codes(self, data) -> np.ndarray:
        """Integer codes (n, columns) into every column's categories; -1 for a missing
        (or marginalized unseen) value."""
        frame = data if isinstance(data, pd.DataFrame) else None
        arr = None if frame is not None else _as_2d(data)
        n = len(frame) if frame is not None else arr.shape[0]
        out = np.empty((n, self.n_columns), dtype=np.intp)
        for j, categories in enumerate(self.column_categories):
            col = frame.iloc[:, j] if frame is not None else pd.Series(arr[:, j])
            if col.dtype.kind in "iu" and _is_range(categories):
                values = col.to_numpy().astype(np.int64)  # a huge unsigned one turns negative
                unseen = (values < 0) | (values >= len(categories))
                out[:, j] = np.where(unseen, -1, values)
            else:
                # get_indexer gives -1 for a missing or unseen value (pd.Categorical with
                # a value outside its categories is deprecated in pandas 3 and warns).
                out[:, j] = pd.Index(categories).get_indexer(col)
                unseen = (out[:, j] < 0) & col.notna().to_numpy()
            if unseen.any() and self.unseen == "error":
                value = col.to_numpy()[unseen][0]
                self._unseen_error(j, value.item() if isinstance(value, np.generic) else value)
        return out

    def _unseen_error(self, j: int, value):
        raise ValueError(
            f"Categorical feature {self._variable(j)!r} got the value {value!r}, which is not "
            f"among its categories {self.column_categories[j][:10]!r}. Declare it in "
            "`categories`, or use unseen='marginalize' to skip its factor."
        )

    def _range_check(self, dtype: np.dtype):
        """A check for blocks of integer codes of a block whose categories are ranges:
        one unsigned comparison per value (a negative code wraps to a huge one)."""
        sizes = np.asarray(self.column_sizes())
        unsigned = np.dtype(f"u{dtype.itemsize}")
        smallest = int(sizes.min())

        def check(block: np.ndarray) -> np.ndarray:
            u = block.view(unsigned)
            if not u.size or int(u.max()) < smallest:
                return block
            outside = u >= sizes
            if not outside.any():
                return block
            if self.unseen == "error":
                row, j = np.argwhere(outside)[0]
                self._unseen_error(int(j), block[row, j].item())
            return np.where(outside, -1, block.astype(np.int64))  # unsigned input too

        return check

    def encode(self, data):
        """Group codes, one (n,) array per group of columns: the one-hot design of every
        column in compressed form.

        ``count`` computes ``one_hot.T @ resp`` from them by weighted histograms and
        ``log_likelihood`` computes ``one_hot @ log_prob.T`` by table lookup: the same
        numbers as the (n, sum of categories) indicator matrix without building it. A
        missing value is an empty row of its column's indicators: it drops out of
        both. An integer array whose categories are ``0..V-1`` is read once, one block
        of rows at a time, without a per-column pass.
        """
        if isinstance(data, np.ndarray) and data.dtype.kind in "iu":
            arr = _as_2d(data)
            if all(_is_range(c) for c in self.column_categories):
                return _group_codes(arr, self._sizes(), self._range_check(arr.dtype))
        return _group_codes(self.codes(data), self._sizes())

    def count(self, enc, resp) -> dict:
        return {"counts": self._stored(_group_counts(enc, resp, self._sizes()))}

    def estimate_params(self, stats: dict, method: str) -> dict:
        counts = stats["counts"]
        alpha = self._concentration(counts.shape[0], counts.shape[1:])
        segments = None if self._shared() else self.segments()
        return {
            "log_prob": Dirichlet(alpha).point_estimate(
                counts, method, segments=segments, what=f"{self.kind} feature {self.name!r}"
            )
        }

    def log_prior(self, params: dict) -> float:
        """Log density of the prior at the estimated probabilities (for MAP-EM)."""
        logp = params["log_prob"]
        alpha = self._concentration(logp.shape[0], logp.shape[1:])
        if self._shared():
            return float(Dirichlet(alpha).logpdf(np.exp(logp)).sum())
        total = 0.0
        for start, size in zip(self.segments(), self.column_sizes(), strict=True):
            part = slice(start, start + size)
            total += float(Dirichlet(alpha[:, part]).logpdf(np.exp(logp[:, part])).sum())
        return total

    def _log_table(self, params: dict) -> np.ndarray:
        """Flat (K, sum of sizes) log-densities of every column's categories."""
        return self._flat(params["log_prob"])

    def log_likelihood(self, enc, params) -> np.ndarray:
        return _group_lookup(enc, self._log_table(params), self._sizes())

    def _draw_codes(self, params, components, rng) -> list[np.ndarray]:
        """A category index of every column for each of ``components``."""
        prob = np.exp(self._flat(params["log_prob"]))[components]
        out = []
        for start, size in zip(self.segments(), self.column_sizes(), strict=True):
            u = rng.random((len(components), 1))
            idx = (prob[:, start : start + size].cumsum(axis=1) < u).sum(axis=1)
            out.append(np.minimum(idx, size - 1))
        return out

    def sample(self, params, components, rng) -> np.ndarray:
        """Draws (n,) for a single column, (n, columns) for a block."""
        draws = [
            np.asarray(categories, dtype=object)[idx]
            for categories, idx in zip(
                self.column_categories, self._draw_codes(params, components, rng), strict=True
            )
        ]
        return draws[0] if self.n_columns == 1 else np.stack(draws, axis=1)

    def to_xarray(self, params: dict, stats: dict, label_dim: str, labels) -> dict:
        prob = np.exp(self._flat(params["log_prob"]))
        counts = self._flat(stats["counts"])
        out = {"params": {}, "counts": {}}
        for j, (start, size) in enumerate(zip(self.segments(), self.column_sizes(), strict=True)):
            var = self._variable(j)
            cat = f"{var}_category"
            dims = (label_dim, cat)
            coords = {label_dim: labels, cat: self.column_categories[j]}
            part = slice(start, start + size)
            out["params"][var] = xr.DataArray(prob[:, part], dims=dims, coords=coords)
            out["counts"][var] = xr.DataArray(counts[:, part], dims=dims, coords=coords)
        return out


class Binned(Categorical):
    """A continuous feature cut into ranges, uniform within each (the seeds' histogram).

    Parameters
    ----------
    edges : sequence of float
        Increasing, finite bin edges, shared by every column of a block. Bin ``j`` is
        ``[edges[j], edges[j+1])``; the last bin also holds its right edge. A value
        outside ``[edges[0], edges[-1]]`` raises an error.
    prior : Dirichlet, default Dirichlet(1.0)
        Prior over the bin probabilities.
    columns : list, optional
        Several columns cut by the same edges, as one block.

    Notes
    -----
    The density is :math:`p(x\\mid c) = \\theta_{c,j} / w_j` for ``x`` in bin ``j`` of
    width :math:`w_j`.
    """

    kind = "binned"

    def __init__(self, edges, prior=None, *, estimate=None, columns=None):
        edges = np.asarray(edges, dtype=float)
        if (
            edges.ndim != 1
            or len(edges) < 2
            or not np.all(np.isfinite(edges))
            or np.any(np.diff(edges) <= 0)
        ):
            raise ValueError(
                f"edges must be at least two finite, strictly increasing numbers; got "
                f"{edges.tolist()!r}."
            )
        super().__init__(prior, estimate=estimate, columns=columns)
        self.edges = edges
        self.categories = [f"[{a:g}, {b:g})" for a, b in itertools.pairwise(edges)]
        self.categories[-1] = self.categories[-1][:-1] + "]"

    def __repr__(self) -> str:
        return f"Binned(edges={self.edges.tolist()!r}, prior={self.prior!r})"

    def codes(self, data) -> np.ndarray:
        x = np.asarray(_as_float_matrix(data, f"Binned feature {self.name!r}"), dtype=float)
        missing = np.isnan(x)
        outside = ~missing & ((x < self.edges[0]) | (x > self.edges[-1]))
        if outside.any():
            row, j = np.argwhere(outside)[0]
            raise ValueError(
                f"Binned feature {self._variable(int(j))!r} has edges from {self.edges[0]:g} "
                f"to {self.edges[-1]:g}; got {float(x[row, j]):g}. Widen the edges to cover "
                "every value."
            )
        codes = np.searchsorted(self.edges, x, side="right") - 1
        codes = np.minimum(codes, len(self.edges) - 2)
        codes[missing] = -1
        return codes

    def _log_table(self, params) -> np.ndarray:
        widths = np.tile(np.log(np.diff(self.edges)), self.n_columns)
        return self._flat(params["log_prob"]) - widths

    def sample(self, params, components, rng) -> np.ndarray:
        """Draws (n,) for a single column, (n, columns) for a block."""
        prob = np.exp(self._flat(params["log_prob"]))[components]
        size = len(self.edges) - 1
        draws = []
        for start in self.segments():
            u = rng.random((len(components), 1))
            idx = (prob[:, start : start + size].cumsum(axis=1) < u).sum(axis=1)
            idx = np.minimum(idx, size - 1)
            lo, hi = self.edges[idx], self.edges[idx + 1]
            draws.append(lo + (hi - lo) * rng.random(len(idx)))
        return draws[0] if self.n_columns == 1 else np.stack(draws, axis=1)

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        out = super().to_xarray(params, stats, label_dim, labels)
        for j in range(self.n_columns):
            var = self._variable(j)
            cat = f"{var}_category"
            for group in out.values():
                group[var] = group[var].assign_coords(
                    {
                        f"{var}_lower": (cat, self.edges[:-1]),
                        f"{var}_upper": (cat, self.edges[1:]),
                    }
                )
        return out


class Multinomial(_Discrete):
    """A block of count columns (word counts), dense or scipy.sparse, Dirichlet prior.

    Parameters
    ----------
    prior : Dirichlet, default Dirichlet(1.0)
        ``Dirichlet(1)`` with ``estimate="mean"`` is Laplace's ``(n_k + 1)/(n + |V|)``.
    columns : list, optional
        The count columns of a DataFrame. With an array or sparse matrix the block
        takes every column.

    Notes
    -----
    The likelihood is that of the token sequence, :math:`\\prod_k \\theta_{c,k}^{x_k}`
    (the multinomial coefficient is the same for every class and is left out).
    With ``estimate="predictive"`` it is the exact Dirichlet-multinomial posterior
    predictive of the sequence,

    .. math:: \\log\\Gamma(A_c) - \\log\\Gamma(A_c + L)
              + \\sum_k [\\log\\Gamma(a_{ck} + x_k) - \\log\\Gamma(a_{ck})],

    with :math:`a_{ck}` the posterior concentration, :math:`A_c = \\sum_k a_{ck}` and
    :math:`L = \\sum_k x_k`.
    """

    kind = "multinomial"
    multi_column = True

    def __init__(self, prior=None, *, estimate=None, columns=None):
        super().__init__(
            Dirichlet(1.0) if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, Dirichlet):
            raise TypeError(f"Multinomial prior must be a Dirichlet; got {self.prior!r}.")

    def _lead_dims(self, label_dim):
        return (label_dim,)

    def _coords(self):
        return {}

    def category_labels(self) -> list:
        return list(self.columns)

    def n_free_parameters(self, n_labels: int) -> int:
        return n_labels * (self.n_columns - 1)

    def encode(self, data):
        if sparse.issparse(data):
            x = sparse.csr_array(data, dtype=float)
            values = x.data
        else:
            x = _as_float_matrix(data, f"Multinomial block {self.name!r}").astype(float)
            values = x
        if values.size and not _finite_nonnegative(values):
            raise ValueError(
                f"Multinomial block {self.name!r} needs finite non-negative counts with no "
                "missing value (a missing count cannot be marginalized without the "
                "document length); got NaN, inf or a negative value. Fill or drop those rows."
            )
        return x

    def count(self, enc, resp) -> dict:
        return {"counts": _column_sums(enc, resp)}

    def estimate_params(self, stats, method):
        params = super().estimate_params(stats, method)
        if method == "predictive":
            counts = stats["counts"]
            params["concentration"] = counts + self._alpha(counts.shape[0], counts.shape[1:])
        return params

    def log_likelihood(self, enc, params) -> np.ndarray:
        if "concentration" not in params:
            return _guarded_dot(enc, params["log_prob"])
        a = params["concentration"]  # (K, V)
        x = sparse.csr_array(enc)
        lengths = np.asarray(x.sum(axis=1)).ravel()
        rows = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
        out = special.gammaln(a.sum(axis=1)) - special.gammaln(
            a.sum(axis=1)[None, :] + lengths[:, None]
        )
        for k in range(a.shape[0]):
            ak = a[k, x.indices]
            terms = special.gammaln(ak + x.data) - special.gammaln(ak)
            out[:, k] += np.bincount(rows, weights=terms, minlength=x.shape[0])
        return out


# ----------------------------------------------------------------------------------------
# Gaussian
# ----------------------------------------------------------------------------------------


class Gaussian(Family):
    """A continuous feature (or block, ``columns=[...]``) with a Gaussian likelihood.

    Parameters
    ----------
    prior : NormalInverseGamma, optional
        Conjugate prior; the default is weak and scaled to the pooled data.
    ddof : {0, 1}
        For ``estimate="ml"``: 0 divides the sum of squares by N (the maximum
        likelihood variance), 1 by N - 1 (the unbiased variance).

    Notes
    -----
    ``estimate="predictive"`` replaces the Gaussian by the Student-t posterior
    predictive of the Normal-Inverse-Gamma posterior.

    The statistics are sums over rows of the values centred on ``shift`` (a value
    inside the data, taken from its first rows, only to keep round-off small) and of
    their squares: :math:`n_c`, the mean and :math:`S_c = \\sum (x - \\bar x_c)^2`
    per class. A classifier reads the data once to count them: the default prior's
    pooled mean and variance are then merged from the classes' statistics,
    :math:`\\bar x = \\sum_c n_c \\bar x_c / N` and
    :math:`S = \\sum_c [S_c + n_c (\\bar x_c - \\bar x)^2]` (Chan, Golub and LeVeque),
    and a missing value is found from sums that are not finite: only then are the
    rows read again with the missing entries left out.
    """

    kind = "gaussian"
    multi_column = True

    def __init__(self, prior=None, *, ddof: int = 0, estimate=None, columns=None):
        super().__init__(
            NormalInverseGamma() if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, NormalInverseGamma):
            raise TypeError(f"Gaussian prior must be a NormalInverseGamma; got {self.prior!r}.")
        if ddof not in (0, 1):
            raise ValueError(
                f"ddof must be 0 (1/N, maximum likelihood) or 1 (1/(N-1), unbiased); got {ddof!r}."
            )
        self.ddof = ddof
        self.shift: np.ndarray | None = None

    def bind(self, name, columns, data, sample_weight=None, *, counted=False) -> Gaussian:
        bound = super().bind(name, columns, data, sample_weight, counted=counted)
        if bound._pending() and not counted:  # e.g. EM: the counts come later, reweighted
            x = np.asarray(_as_float_matrix(data, f"Gaussian feature {name!r}"), dtype=float)
            bound._resolve(*_pooled_moments(x, bound.shift, sample_weight, bound._inf_error))
        return bound

    def _learn(self, data, sample_weight=None) -> None:
        x = np.asarray(_as_float_matrix(data, f"Gaussian feature {self.name!r}"), dtype=float)
        self.shift = _cheap_centre(x)
        if not self._pending():  # nothing to learn from the data
            self.prior = self.prior.resolve(None, None)

    def _pending(self) -> bool:
        """Whether the prior still has data-dependent defaults (pooled mean or variance)."""
        return self.prior.mu is None or self.prior.beta is None

    def _resolve(self, mean: np.ndarray, var: np.ndarray) -> None:
        if np.any(np.isnan(mean)):
            raise ValueError(
                f"Gaussian feature {self.name!r} has a column with no observed value "
                "(of positive weight). Drop it."
            )
        self.prior = self.prior.resolve(mean, var)

    def _inf_error(self):
        raise ValueError(
            f"Gaussian feature {self.name!r} has an infinite value. Use NaN for a missing "
            "value, or remove the row."
        )

    def encode(self, data):
        """The values as a float matrix, unchecked.

        A missing value (NaN) is found where it matters: ``count`` and
        ``log_likelihood`` work one block of rows at a time, in cache, and a block whose
        sums are not finite is done again with its missing values left out (an
        infinite value raises there). Complete data is thus read once per product.
        """
        return np.asarray(_as_float_matrix(data, f"Gaussian feature {self.name!r}"), dtype=float)

    def _drop_missing(self, xc: np.ndarray) -> np.ndarray | None:
        """Zero the missing entries of a centred block, in place.

        Returns the float mask of the missing entries (None when there are none: the
        block's sums overflowed instead). An infinite value raises.
        """
        missing = np.isnan(xc)
        if np.isinf(xc).any():
            self._inf_error()
        if not missing.any():
            return None
        xc[missing] = 0.0
        return missing.astype(float)

    def _sums(self, x: np.ndarray, resp: np.ndarray, masked: bool):
        """``resp.T @ (x - shift)``, ``resp.T @ (x - shift)**2`` and (``masked``) the
        weight of the missing entries ``resp.T @ isnan(x)``, which are left out.

        The hot loop: each block of rows is centred into one buffer, in cache, which
        is squared in place between the two products.
        """
        n_labels, d = resp.shape[1], x.shape[1]
        s1, s2 = np.zeros((n_labels, d)), np.zeros((n_labels, d))
        part = np.empty((n_labels, d))
        unseen = np.zeros((n_labels, d)) if masked else None
        by_label = resp.T
        for rows, xc in _centred_blocks(x, self.shift):
            r = by_label[:, rows]
            if masked:
                missing = self._drop_missing(xc)
                if missing is not None:
                    unseen += r @ missing
            s1 += np.matmul(r, xc, out=part)
            s2 += np.matmul(r, np.multiply(xc, xc, out=xc), out=part)
        return s1, s2, unseen

    def count(self, enc, resp) -> dict:
        x = enc
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf: checked just below
            s1, s2, unseen = self._sums(x, resp, masked=False)
        if not np.isfinite(s1.sum() + s2.sum()):  # a value missing (or infinite): again
            s1, s2, unseen = self._sums(x, resp, masked=True)
        n = np.broadcast_to(resp.sum(axis=0)[:, None], s1.shape).copy()
        if unseen is not None:
            n -= unseen
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_c = np.where(n > 0, s1 / n, 0.0)
        ss = s2 - n * mean_c**2
        # The difference carries a round-off of a few ulps of s2; below that it is 0.
        ss[ss <= 64 * np.finfo(float).eps * s2] = 0.0
        return {"n": n, "mean": mean_c + self.shift, "ss": ss}

    def estimate_params(self, stats, method) -> dict:
        if self._pending():  # bound with counted=True: the pooled moments of these counts
            self._resolve(*_merged_moments(stats["n"], stats["mean"], stats["ss"], self.shift))
        est = self.prior.point_estimate(
            stats["n"],
            stats["mean"],
            stats["ss"],
            method,
            ddof=self.ddof,
            what=f"Gaussian feature {self.name!r}",
        )
        if method == "predictive":
            df, loc, scale2 = (np.asarray(v, float) for v in est)
            return {"df": df, "mu": loc, "scale2": scale2}
        mu, var = (np.asarray(v, float) for v in est)
        return {"mu": mu, "var": var}

    def log_prior(self, params) -> float:
        return float(self.prior.logpdf(params["mu"], params["var"]).sum())

    def n_free_parameters(self, n_labels: int) -> int:
        return 2 * n_labels * self.n_columns

    def log_likelihood(self, enc, params) -> np.ndarray:
        x = enc
        mu = params["mu"] - self.shift
        if "df" in params:
            return self._student_t(x, params["df"], mu, params["scale2"])
        # -0.5 * [(x - mu)**2 / var + log var + log 2 pi], summed over the columns, with
        # x - mu = xc - (mu - shift): a quadratic in the centred values xc.
        half_prec = -0.5 / params["var"]
        const = half_prec * mu * mu - 0.5 * (np.log(params["var"]) + LOG_2PI)
        linear = -2.0 * mu * half_prec
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf: checked just below
            out = self._quadratic(x, half_prec, linear, const, masked=False)
        if not np.isfinite(out.sum()):  # a value missing (or infinite): again
            out = self._quadratic(x, half_prec, linear, const, masked=True)
        return out.T

    def _quadratic(self, x, quad, linear, const, masked: bool) -> np.ndarray:
        """``quad @ xc2.T + linear @ xc.T + const.sum(1)`` (K, n), components first, with
        ``xc`` the centred values; ``masked``: a missing entry adds nothing."""
        out = np.empty((quad.shape[0], x.shape[0]))
        total = const.sum(axis=1)[:, None]
        for rows, xc in _centred_blocks(x, self.shift):  # squared in place, as in _sums
            missing = self._drop_missing(xc) if masked else None
            block = out[:, rows]
            np.matmul(linear, xc.T, out=block)
            block += quad @ np.multiply(xc, xc, out=xc).T
            block += total
            if missing is not None:
                block -= const @ missing.T
        return out

    def _student_t(self, x, df, loc, scale2) -> np.ndarray:
        missing = np.isnan(x)
        if np.isinf(x).any():
            self._inf_error()
        xc = np.where(missing, 0.0, x - self.shift)
        norm = (
            special.gammaln((df + 1) / 2)
            - special.gammaln(df / 2)
            - 0.5 * np.log(df * np.pi * scale2)
        )
        out = np.empty((xc.shape[0], df.shape[0]))
        for k in range(df.shape[0]):
            z = (xc - loc[k]) ** 2 / (df[k] * scale2[k])
            term = norm[k] - 0.5 * (df[k] + 1) * np.log1p(z)
            term[missing] = 0.0
            out[:, k] = term.sum(axis=1)
        return out

    def sample(self, params, components, rng) -> np.ndarray:
        return rng.normal(params["mu"][components], np.sqrt(params["var"][components]))

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        dims = self._lead_dims(label_dim)
        coords = {label_dim: labels, **self._coords()}

        def arr(v):
            v = np.asarray(v)
            return v if self.n_columns > 1 else v[:, 0]

        if self.n_columns == 1:
            dims, coords = (label_dim,), {label_dim: labels}
        out = {"params": {}, "counts": {}}
        for key, value in params.items():
            out["params"][f"{self.name}_{key}"] = xr.DataArray(arr(value), dims=dims, coords=coords)
        if "var" in params:
            out["params"][f"{self.name}_sigma"] = xr.DataArray(
                np.sqrt(arr(params["var"])), dims=dims, coords=coords
            )
        for key, value in stats.items():
            out["counts"][f"{self.name}_{key}"] = xr.DataArray(arr(value), dims=dims, coords=coords)
        return out


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------


def _centred_blocks(x: np.ndarray, centre: np.ndarray):
    """Blocks ``(rows, x[rows] - centre)`` of about ``_BLOCK_ENTRIES`` entries.

    The blocks share one buffer (use each before taking the next). ``centre`` is
    tiled to a block's shape once, so the subtraction runs over whole blocks rather
    than row by row.
    """
    n, d = x.shape
    step = max(1, _BLOCK_ENTRIES // max(1, d))
    tiled = np.tile(centre, (min(n, step), 1))
    buf = np.empty_like(tiled)
    for start in range(0, n, step):
        rows = slice(start, min(n, start + step))
        m = rows.stop - rows.start
        yield rows, np.subtract(x[rows], tiled[:m], out=buf[:m])


def _cheap_centre(x: np.ndarray) -> np.ndarray:
    """A value inside the data of every column, to centre on against round-off.

    The median of the finite values among the first rows (robust to an outlier
    there); a column with none there takes its first finite value, or 0. One small
    read, not a pass over the data.
    """
    head = x[: min(len(x), 1024)]
    with warnings.catch_warnings():  # a column with no finite value: handled below
        warnings.simplefilter("ignore", RuntimeWarning)
        centre = np.nanmedian(np.where(np.isfinite(head), head, np.nan), axis=0)
    centre = np.atleast_1d(centre)
    for j in np.flatnonzero(np.isnan(centre)):
        found = np.flatnonzero(np.isfinite(x[:, j]))
        centre[j] = x[found[0], j] if found.size else 0.0
    return centre


def _merged_moments(n, mean, ss, centre) -> tuple[np.ndarray, np.ndarray]:
    """Pooled mean and 1/N variance of the rows behind per-class ``(n, mean, ss)`` (K, d).

    The pairwise merge of Chan, Golub and LeVeque, about ``centre``: the pooled sum
    of squares adds every class's own and ``n_k (mean_k - pooled mean)**2``, so no
    large sums of squares are subtracted. A column with no observed row gets NaN.
    """
    total = n.sum(axis=0)
    dev = np.where(n > 0, mean - centre, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        offset = (n * dev).sum(axis=0) / total
        var = (ss + n * (dev - offset) ** 2).sum(axis=0) / total
    return np.where(total > 0, offset + centre, np.nan), var


def _pooled_moments(x: np.ndarray, centre: np.ndarray, weights, on_inf):
    """Pooled (weighted) mean and 1/N variance of every column of ``x``, missing values
    (NaN) left out, in one read by blocks of rows; ``on_inf()`` raises on an infinite
    value. A column with no observed value (of positive weight) gets a NaN mean."""
    n, d = x.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    total = np.zeros(d)
    s1 = np.zeros(d)
    s2 = np.zeros(d)
    unseen = None
    for rows, xc in _centred_blocks(x, centre):
        wb = w[rows]
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/inf: checked just below
            xc2 = xc * xc
            a, b = wb @ xc, wb @ xc2
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            missing = np.isnan(xc)
            if np.isinf(xc).any():
                on_inf()
            if missing.any():
                xc[missing] = 0.0
                xc2[missing] = 0.0
                a, b = wb @ xc, wb @ xc2
                unseen = wb @ missing if unseen is None else unseen + wb @ missing
        s1 += a
        s2 += b
    total += w.sum()
    if unseen is not None:
        total -= unseen
    with np.errstate(invalid="ignore", divide="ignore"):
        offset = s1 / total
        var = np.maximum(s2 / total - offset**2, 0.0)
    return np.where(total > 0, offset + centre, np.nan), var


def _as_2d(data) -> np.ndarray:
    arr = np.asarray(data)
    return arr[:, None] if arr.ndim == 1 else arr


def _observed_categories(data, n_columns: int) -> list[list]:
    """The sorted values seen in every column (a pandas categorical: its categories)."""
    if isinstance(data, pd.Series):
        data = data.to_frame()
    if isinstance(data, pd.DataFrame):
        out = []
        for j in range(data.shape[1]):
            col = data.iloc[:, j]
            if isinstance(col.dtype, pd.CategoricalDtype):
                out.append(list(col.cat.categories))
            else:
                out.append(sorted(pd.unique(col.dropna()).tolist()))
        return out
    arr = _as_2d(data)
    if arr.dtype.kind in "iu" and arr.size:
        return _integer_categories(arr)
    return [sorted(pd.unique(pd.Series(arr[:, j]).dropna()).tolist()) for j in range(n_columns)]


def _integer_categories(x: np.ndarray) -> list[list[int]]:
    """The sorted distinct values of every column of a non-empty integer matrix.

    Read by blocks of rows: the columns' ranges first, then the values seen, marked
    in one table over the ranges (or sorted column by column when the ranges are too
    wide for a table).
    """
    n, d = x.shape
    lo, hi = x[:1].min(axis=0), x[:1].max(axis=0)
    for rows in _row_blocks(n, d):
        block = x[rows]
        np.minimum(lo, block.min(axis=0), out=lo)
        np.maximum(hi, block.max(axis=0), out=hi)
    lo, hi = [int(v) for v in lo], [int(v) for v in hi]
    spans = [b - a + 1 for a, b in zip(lo, hi, strict=True)]
    limit = np.iinfo(np.int64).max // 4
    if sum(spans) > 4 * n * d + 1024 or max(map(abs, lo + hi)) > limit:
        return [np.unique(x[:, j]).tolist() for j in range(d)]
    offsets = np.concatenate([[0], np.cumsum(spans)[:-1]]).astype(np.int64)
    shift = offsets - np.asarray(lo, dtype=np.int64)
    seen = np.zeros(sum(spans), dtype=bool)
    for rows in _row_blocks(n, d):
        seen[(x[rows].astype(np.int64) + shift).ravel()] = True
    return [
        (np.flatnonzero(seen[o : o + s]) + a).tolist()
        for o, s, a in zip(offsets.tolist(), spans, lo, strict=True)
    ]


def _is_range(categories: list) -> bool:
    return all(isinstance(c, int | np.integer) and c == i for i, c in enumerate(categories))


FAMILIES = {cls.kind: cls for cls in (Bernoulli, Categorical, Binned, Multinomial, Gaussian)}
