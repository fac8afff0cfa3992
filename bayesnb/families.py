"""Feature families: the likelihood of one declared feature (or block of columns).

Every family follows the same four-step kernel, shared by the classifier and by EM:

``encode(data)``
    Raw columns to a numeric design: 0/1 values, one-hot indicators (stored as
    category codes), counts or floats (centred block by block in the products). A
    missing value becomes a zero row (discrete) or a zero with a mask (Gaussian), so
    it drops out of both the counts and the likelihood.
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


def _code_sums(codes: np.ndarray, resp: np.ndarray, n_categories: int) -> np.ndarray:
    """``resp.T @ one_hot(codes)`` without the one-hot matrix: (K, n_categories).

    A negative code (missing) is an empty row of the one-hot design and adds nothing.
    """
    codes = codes.astype(np.intp, copy=False)
    if codes.size and codes.min() < 0:
        codes = np.where(codes < 0, n_categories, codes)  # an extra bin, dropped below
    out = np.empty((resp.shape[1], n_categories))
    for k in range(resp.shape[1]):
        sums = np.bincount(codes, weights=resp[:, k], minlength=n_categories + 1)
        out[k] = sums[:n_categories]
    return out


def _code_lookup(codes: np.ndarray, logp: np.ndarray) -> np.ndarray:
    """``one_hot(codes) @ logp.T`` by table lookup: (n, K), components first.

    A negative code (missing) reads an appended column of zeros, so its factor drops
    out; a ``-inf`` entry reaches exactly the rows showing that category, and no
    ``0 * -inf`` is ever formed.
    """
    codes = codes.astype(np.intp, copy=False)
    n_labels, n_categories = logp.shape
    table = np.zeros((n_labels, n_categories + 1))
    table[:, :n_categories] = logp
    out = np.empty((n_labels, len(codes)))
    for k in range(n_labels):
        np.take(table[k], codes, out=out[k], mode="wrap")  # code -1: the last column, 0
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
    def bind(self, name: str, columns: list, data, sample_weight=None) -> Family:
        """A copy of this declaration bound to training ``data`` (its columns).

        ``sample_weight`` (one non-negative number per row) weighs the rows in any
        data-dependent default the family learns.
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
    """A discrete feature with any number of values, with a Dirichlet prior.

    Parameters
    ----------
    prior : Dirichlet, default Dirichlet(1.0)
    categories : sequence, optional
        The feature's domain. Default: the values seen in training, sorted. A value
        declared here but never seen still gets its smoothed probability.
    unseen : {"marginalize", "error"}
        What a value outside the domain does at prediction time. ``"marginalize"``
        (default) treats it like a missing value: its factor is skipped, exactly as
        the text model skips words outside its vocabulary. ``"error"`` raises.
    """

    kind = "categorical"

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

    def _learn(self, data, sample_weight=None) -> None:
        if self.categories is not None:
            return
        col = _single_column(data)
        if isinstance(col.dtype, pd.CategoricalDtype):
            self.categories = list(col.cat.categories)
        else:
            self.categories = sorted(pd.unique(col.dropna()).tolist())
        if not self.categories:
            raise ValueError(
                f"Categorical feature {self.name!r} has no observed value in training. "
                "Drop it, or declare its categories."
            )

    def category_labels(self) -> list:
        return list(self.categories)

    def codes(self, data) -> np.ndarray:
        """Integer codes into ``categories``; -1 for missing (and marginalized unseen)."""
        if isinstance(data, np.ndarray) and data.dtype.kind in "iu" and _is_range(self.categories):
            codes = data[:, 0] if data.ndim == 2 else data
            codes = np.ascontiguousarray(codes, dtype=np.intp)  # a column of X: one copy
            if not codes.size or (codes.min() >= 0 and codes.max() < len(self.categories)):
                return codes
        col = _single_column(data)
        if col.dtype.kind in "iu" and _is_range(self.categories):
            codes = col.to_numpy()
            bad = (codes < 0) | (codes >= len(self.categories))
            codes = np.where(bad, -1, codes)
            unseen = bad
        else:
            # get_indexer gives -1 for a missing or unseen value (pd.Categorical with a
            # value outside its categories is deprecated in pandas 3 and warns).
            codes = pd.Index(self.categories).get_indexer(col).astype(np.intp)
            unseen = (codes < 0) & col.notna().to_numpy()
        if unseen.any() and self.unseen == "error":
            value = col.to_numpy()[unseen][0]
            raise ValueError(
                f"Categorical feature {self.name!r} got the value {value!r}, which is not "
                f"among its categories {self.categories[:10]!r}. Declare it in "
                "`categories`, or use unseen='marginalize' to skip its factor."
            )
        return codes

    def encode(self, data):
        """The codes (n,), -1 where missing: the one-hot design in compressed form.

        ``count`` computes ``one_hot.T @ resp`` from them by weighted bincounts and
        ``log_likelihood`` computes ``one_hot @ log_prob.T`` by table lookup, the same
        numbers as the (n, n_categories) indicator matrix without building it. A
        missing value is an empty row: it drops out of both. The codes are stored in
        the smallest integer type that holds them (they are kept for every block while
        a model scores its rows).
        """
        codes = self.codes(data)
        small = np.min_scalar_type(-max(len(self.categories), 1))
        return codes.astype(small) if small.itemsize < codes.itemsize else codes

    def count(self, enc, resp) -> dict:
        return {"counts": _code_sums(enc, resp, len(self.categories))}

    def log_likelihood(self, enc, params) -> np.ndarray:
        return _code_lookup(enc, params["log_prob"])

    def sample(self, params, components, rng) -> np.ndarray:
        prob = np.exp(params["log_prob"])[components]
        u = rng.random((len(components), 1))
        idx = (prob.cumsum(axis=1) < u).sum(axis=1)
        return np.asarray(self.categories, dtype=object)[np.minimum(idx, prob.shape[1] - 1)]


class Binned(Categorical):
    """A continuous feature cut into ranges, uniform within each (the seeds' histogram).

    Parameters
    ----------
    edges : sequence of float
        Increasing, finite bin edges. Bin ``j`` is ``[edges[j], edges[j+1])``; the last
        bin also holds its right edge. A value outside ``[edges[0], edges[-1]]``
        raises an error.
    prior : Dirichlet, default Dirichlet(1.0)
        Prior over the bin probabilities.

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

    def _learn(self, data, sample_weight=None) -> None:
        pass

    def codes(self, data) -> np.ndarray:
        x = _as_float_matrix(data, f"Binned feature {self.name!r}")[:, 0].astype(float)
        missing = np.isnan(x)
        outside = ~missing & ((x < self.edges[0]) | (x > self.edges[-1]))
        if outside.any():
            raise ValueError(
                f"Binned feature {self.name!r} has edges from {self.edges[0]:g} to "
                f"{self.edges[-1]:g}; got {float(x[outside][0]):g}. Widen the edges to cover "
                "every value."
            )
        codes = np.searchsorted(self.edges, x, side="right") - 1
        codes = np.minimum(codes, len(self.edges) - 2)
        codes[missing] = -1
        return codes

    def log_likelihood(self, enc, params) -> np.ndarray:
        return _code_lookup(enc, params["log_prob"] - np.log(np.diff(self.edges)))

    def sample(self, params, components, rng) -> np.ndarray:
        prob = np.exp(params["log_prob"])[components]
        u = rng.random((len(components), 1))
        idx = np.minimum((prob.cumsum(axis=1) < u).sum(axis=1), prob.shape[1] - 1)
        lo, hi = self.edges[idx], self.edges[idx + 1]
        return lo + (hi - lo) * rng.random(len(idx))

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        out = super().to_xarray(params, stats, label_dim, labels)
        cat = f"{self.name}_category"
        for group in out.values():
            group[self.name] = group[self.name].assign_coords(
                {
                    f"{self.name}_lower": (cat, self.edges[:-1]),
                    f"{self.name}_upper": (cat, self.edges[1:]),
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

    def _learn(self, data, sample_weight=None) -> None:
        x = np.asarray(_as_float_matrix(data, f"Gaussian feature {self.name!r}"), dtype=float)
        moments = _complete_moments(x) if sample_weight is None else None
        if moments is None:  # a value missing or infinite, or weighted rows: check them all
            x = self._matrix(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if moments is not None:
                mean, var = moments
            elif sample_weight is None:
                mean = np.nanmean(x, axis=0)
                var = np.nanvar(x, axis=0)
            else:  # the pooled moments of the weighted rows (a weight w repeats a row w times)
                observed = ~np.isnan(x)
                w = np.where(observed, np.asarray(sample_weight, float)[:, None], 0.0)
                x0 = np.where(observed, x, 0.0)
                total = w.sum(axis=0)
                mean = np.where(total > 0, (w * x0).sum(axis=0) / total, np.nan)
                var = (w * (x0 - mean) ** 2).sum(axis=0) / total
        if np.any(np.isnan(mean)):
            raise ValueError(
                f"Gaussian feature {self.name!r} has a column with no observed value "
                "(of positive weight). Drop it."
            )
        self.shift = mean
        self.prior = self.prior.resolve(mean, var)

    def _matrix(self, data) -> np.ndarray:
        return self._checked(data)[0]

    def _checked(self, data) -> tuple[np.ndarray, bool]:
        """Float values and whether any is missing (NaN); an infinite value raises.

        Checked block by block, so the values are read once and no mask is made.
        """
        x = np.asarray(_as_float_matrix(data, f"Gaussian feature {self.name!r}"), dtype=float)
        has_nan = False
        for rows in _row_blocks(*x.shape):
            block = x[rows]
            if not np.isfinite(block).all():
                if np.isinf(block).any():
                    raise ValueError(
                        f"Gaussian feature {self.name!r} has an infinite value. Use NaN for "
                        "a missing value, or remove the row."
                    )
                has_nan = True
        return x, has_nan

    def encode(self, data):
        """The values, a missing one replaced by ``shift``, and the observed mask (None
        when complete).

        The products centre the values on ``shift`` (a missing one becomes 0) and square
        them one block of rows at a time, in cache, rather than storing both.
        """
        x, has_nan = self._checked(data)
        if not has_nan:
            return x, None
        missing = np.isnan(x)
        return np.where(missing, self.shift, x), (~missing).astype(float)

    def _centred(self, x: np.ndarray):
        """Blocks ``(rows, x - shift, (x - shift)**2)`` of rows of ``x``, reusing buffers."""
        squares = None
        for rows, xc in _centred_blocks(x, self.shift):
            if squares is None:  # the first block is the largest
                squares = np.empty_like(xc)
            yield rows, xc, np.multiply(xc, xc, out=squares[: len(xc)])

    def count(self, enc, resp) -> dict:
        x, observed = enc
        d = x.shape[1]
        n = (
            np.broadcast_to(resp.sum(axis=0)[:, None], (resp.shape[1], d)).copy()
            if observed is None
            else _column_sums(observed, resp)
        )
        s1 = np.zeros((resp.shape[1], d))  # resp.T @ (x - shift)
        s2 = np.zeros((resp.shape[1], d))  # resp.T @ (x - shift)**2
        for rows, xc, xc2 in self._centred(x):
            r = resp[rows].T
            s1 += r @ xc
            s2 += r @ xc2
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_c = np.where(n > 0, s1 / n, 0.0)
        ss = s2 - n * mean_c**2
        # The difference carries a round-off of a few ulps of s2; below that it is 0.
        ss[ss <= 64 * np.finfo(float).eps * s2] = 0.0
        return {"n": n, "mean": mean_c + self.shift, "ss": ss}

    def estimate_params(self, stats, method) -> dict:
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
        x, observed = enc
        mu = params["mu"] - self.shift
        if "df" in params:
            xc = x - self.shift
            return self._student_t(xc, observed, params["df"], mu, params["scale2"])
        prec = 1.0 / params["var"]
        const = mu * mu * prec + np.log(params["var"]) + LOG_2PI
        linear = -2.0 * mu * prec
        out = np.empty((prec.shape[0], x.shape[0]))  # components first
        for rows, xc, xc2 in self._centred(x):
            out[:, rows] = prec @ xc2.T
            out[:, rows] += linear @ xc.T
        out = out.T
        out += const.sum(axis=1) if observed is None else _product(observed, const)
        out *= -0.5
        return out

    @staticmethod
    def _student_t(xc, observed, df, loc, scale2) -> np.ndarray:
        norm = (
            special.gammaln((df + 1) / 2)
            - special.gammaln(df / 2)
            - 0.5 * np.log(df * np.pi * scale2)
        )
        out = np.empty((xc.shape[0], df.shape[0]))
        for k in range(df.shape[0]):
            z = (xc - loc[k]) ** 2 / (df[k] * scale2[k])
            term = norm[k] - 0.5 * (df[k] + 1) * np.log1p(z)
            if observed is not None:
                term *= observed
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
    for rows in _row_blocks(n, d):
        m = rows.stop - rows.start
        yield rows, np.subtract(x[rows], tiled[:m], out=buf[:m])


def _complete_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Column means and 1/N variances of ``x`` when every value is finite, else None.

    Two reads: the column sums (a non-finite sum means a missing or infinite value,
    and the caller checks the values), then the centred squares block by block, in
    cache.
    """
    n, d = x.shape
    total = x.T @ np.ones(n)
    if not (n and np.isfinite(total).all()):
        return None
    mean = total / n
    squares = np.zeros(d)
    ones = np.ones(min(n, max(1, _BLOCK_ENTRIES // max(1, d))))
    for _rows, block in _centred_blocks(x, mean):
        np.multiply(block, block, out=block)
        squares += ones[: len(block)] @ block
    return mean, squares / n


def _single_column(data) -> pd.Series:
    if isinstance(data, pd.DataFrame):
        return data.iloc[:, 0]
    if isinstance(data, pd.Series):
        return data
    arr = np.asarray(data)
    return pd.Series(arr[:, 0] if arr.ndim == 2 else arr)


def _is_range(categories: list) -> bool:
    return all(isinstance(c, int | np.integer) and c == i for i, c in enumerate(categories))


FAMILIES = {cls.kind: cls for cls in (Bernoulli, Categorical, Binned, Multinomial, Gaussian)}
