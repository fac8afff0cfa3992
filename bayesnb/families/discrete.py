"""Discrete families: Bernoulli, Categorical, Binned and Multinomial (Dirichlet priors)."""

from __future__ import annotations

import copy
import datetime
import functools
import itertools
import warnings
from collections.abc import Hashable
from typing import NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb import _compiled
from bayesnb._lazy import sparse
from bayesnb._special import log_dirichlet_evidence_rows
from bayesnb.errors import InputError, InputTypeError, UnseenValuesWarning
from bayesnb.families import _given
from bayesnb.families._kernels import (
    _GROUP_CODES,
    Labels,
    _as_2d,
    _as_float_matrix,
    _column_sums,
    _finite_nonnegative,
    _group_codes,
    _group_counts,
    _group_lookup,
    _guarded_dot,
    _is_zero_one,
    _layout,
    _plain,
    _product,
    _row_blocks,
    _signed,
    _unsigned,
    _value_counts,
    _value_lookup,
    _xlogp_sum,
    column_arrays,
    dense,
    log_sum_exp_last,
    value_array,
)
from bayesnb.families.base import Family, declared_list, per_column
from bayesnb.marginals import BetaMarginal
from bayesnb.priors import Beta, Dirichlet, log_gamma_draws


class _Unchecked(NamedTuple):
    """A block's data as given, not yet checked (a Bernoulli block's dense 0/1 array,
    a Multinomial block's CSR counts): the compiled loop that first reads it checks
    it on the way, and any other reader takes the family's ``_checked`` form."""

    values: np.ndarray | sparse.csr_array


class _SparseObserved(NamedTuple):
    """The observed mask of a sparse 0/1 block, ``1 - missing``, kept as its few
    missing (NaN) entries: a dense mask would be as large as the dense block."""

    missing: sparse.csr_array

    def column_sums(self, resp: np.ndarray) -> np.ndarray:
        """``resp.T @ observed`` (K, d)."""
        return resp.sum(axis=0)[:, None] - _column_sums(self.missing, resp)

    def product(self, weights: np.ndarray) -> np.ndarray:
        """``observed @ weights.T`` (n, K)."""
        return weights.sum(axis=1) - _product(self.missing, weights)

    def toarray(self) -> np.ndarray:
        return 1.0 - self.missing.toarray()


def _observed_sums(observed, resp: np.ndarray, shape: tuple) -> np.ndarray:
    """The weight of the observed values of every (component, column), (K, d)."""
    if observed is None:
        return np.broadcast_to(resp.sum(axis=0)[:, None], shape)
    if isinstance(observed, _SparseObserved):
        return observed.column_sums(resp)
    return _column_sums(observed, resp)


def _observed_product(observed, weights: np.ndarray) -> np.ndarray:
    """``observed @ weights.T``: every row's sum of ``weights`` over its observed
    values, (n, K) (one row (K,) for every row when nothing is missing)."""
    if observed is None:
        return weights.sum(axis=1)
    if isinstance(observed, _SparseObserved):
        return observed.product(weights)
    return _product(observed, weights)


def _dense(observed) -> np.ndarray:
    """An observed mask as a dense array (for readers that make the block dense)."""
    return observed.toarray() if isinstance(observed, _SparseObserved) else observed


def _n_rows(enc) -> int:
    """The number of rows of an encoded block, checked or not."""
    return (enc.values if isinstance(enc, _Unchecked) else enc).shape[0]


#: Most rows of log-probabilities a Multinomial block multiplies its unchecked counts
#: with in one compiled read (see :meth:`Multinomial._dot`).
_FUSED_ROWS = 4


#: Most labels for which a column-major block is counted by
#: :func:`_compiled.column_label_counts` (one pass over each column per label).
_MASKED_LABELS = 32


def _label_counts(values: np.ndarray, labels: Labels, ones: np.ndarray) -> int:
    """Add the dense 0/1 ``values`` (n, d) by label into ``ones`` (K, d), in the
    order of their memory (a DataFrame's block is column-major); return how many
    entries are neither 0 nor 1."""
    binary = values.dtype == bool
    x = values.view(np.uint8) if binary else values
    if x.shape[0] > 1 and x.strides[0] == x.itemsize and labels.n_labels <= _MASKED_LABELS:
        whole = labels.weights is None and x.dtype.kind in "biu"
        masks = np.empty((labels.n_labels, _compiled._MASK_ROWS), np.uint8 if whole else float)
        return _compiled.column_label_counts(
            x, labels.codes, labels.weights, ones, masks, not binary
        )
    return _compiled.dense_label_counts(x, labels.codes, labels.weights, ones)


class _CategoryCodes(NamedTuple):
    """A Categorical block's encoding for one pass: category codes (n, columns).

    An entry outside its column's ``0..V-1`` is missing. ``checked``: the codes were
    made from the raw values, with every unseen value already handled by the family's
    ``unseen`` policy; otherwise they are the raw integers, checked as they are read.
    """

    values: np.ndarray
    checked: bool


class _Discrete(Family):
    """Shared estimate and export for families whose statistics are counts."""

    def output_names(self, name: str, columns: list) -> list[str]:
        """The block's own names (a block over shared categories: ``<name>`` over
        ``<name>_feature`` and ``<name>_category``), and every column's variable with
        its ``_category`` dimension (and a binned column's ``_lower``/``_upper``)."""
        variables = [name] if len(columns) == 1 else [str(c) for c in columns]
        per_variable = ("category", *self.suffixes)
        return [
            *super().output_names(name, columns),
            f"{name}_category",
            *(v for var in variables for v in (var, *(f"{var}_{s}" for s in per_variable))),
        ]

    def _alpha(self, n_labels: int, shape: tuple[int, ...]) -> np.ndarray:
        """The concentration in the stored layout, broadcastable to
        ``(n_labels, *shape)`` (left compact: arithmetic broadcasts it).

        A 2-D concentration is always one row per class, ``(n_labels, n_categories)``:
        over a block of columns it applies to every column of its class. When a
        block's columns have different categories they lie side by side on the last
        axis, and a Dirichlet is over each column's part (``segments()``).
        """
        given = self.prior.alpha  # a float array (checked by the prior)
        target = (n_labels, *shape)
        per_class = given.ndim == 2 and len(shape) == 2  # (K, categories) over a block
        alpha = given[:, None, :] if per_class else given
        try:
            fits = np.broadcast_shapes(alpha.shape, target) == target
        except ValueError:
            fits = False
        if not fits:
            raise InputError(
                f"the prior of feature {self.name!r} has concentration of shape "
                f"{given.shape}, which does not fit {target} (labels, ..., categories). Give "
                "a scalar, one value per category, or one row per class."
            )
        return alpha

    def _segments(self) -> np.ndarray | None:
        """Starts of the columns' categories on a flat last axis (None: an axis of
        categories of its own, so every Dirichlet is over the whole last axis)."""
        return None

    def _code_kernel(self, values: np.ndarray, method: str, n_components: int):
        """The compiled EM loop's part of a block of category codes ``values`` (n, d;
        outside a column's categories: missing): their group codes, in groups small
        enough that the tables the loop rebuilds every iteration stay below the rows'
        count, and the Dirichlet terms of ``method`` over its variables (see
        :class:`bayesnb._em_loop.DiscreteKernel`)."""
        from bayesnb import _em_loop

        sizes = tuple(self._sizes())
        max_codes = int(np.clip(len(values) // _em_loop.ROWS_PER_CODE, 4, _GROUP_CODES))
        codes = _group_codes(values, sizes, max_codes)[0]
        shape = self._counts_shape(n_components)
        add, coef, const = self._dirichlet_terms(shape, method, sizes)
        return _em_loop.DiscreteKernel(codes, sizes, max_codes, add, coef, const, shape)

    def _dirichlet_terms(self, shape: tuple, method: str, sizes: tuple) -> tuple:
        """:func:`bayesnb._em_loop.dirichlet_terms` of the prior's concentration laid
        out as counts of ``shape`` (components first), its variables of ``sizes``."""
        from bayesnb import _em_loop

        alpha = np.broadcast_to(self._alpha(shape[0], shape[1:]), shape)
        return _em_loop.dirichlet_terms(
            np.asarray(alpha, dtype=float).reshape(shape[0], -1), method, sizes
        )

    def estimate_params(self, stats: dict, method: str, *, labels=None) -> dict:
        counts = stats["counts"]
        alpha = self._alpha(counts.shape[0], counts.shape[1:])
        # The declared prior itself when its concentration is used as it is.
        prior = self.prior if alpha is self.prior.alpha else Dirichlet(alpha)
        return {
            "log_prob": prior.point_estimate(
                counts,
                method,
                segments=self._segments(),
                what=f"{self.kind} feature {self.name!r}",
                labels=labels,
            )
        }

    def _attribute_starts(self) -> np.ndarray:
        """Where every attribute's categories start on the flat (K, -1) layout."""
        return np.arange(self.n_columns) * len(self.category_labels())

    def divergence(self, params: dict, reference: dict) -> np.ndarray:
        """:math:`\\sum_v p_{kv} \\log(p_{kv}/q_v)` over every attribute's categories."""
        logp = params["log_prob"]
        p = np.exp(logp)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(p > 0, p * (logp - reference["log_prob"]), 0.0)
        return np.add.reduceat(terms.reshape(len(p), -1), self._attribute_starts(), axis=1)

    def log_marginal(self, stats: dict, n_labels: int) -> float:
        counts = stats["counts"]
        prior = Dirichlet(self._alpha(n_labels, counts.shape[1:]))
        return prior.log_marginal_likelihood(counts, segments=self._segments())

    def complete_log_likelihood(self, stats: dict, params: dict) -> float:
        return _xlogp_sum(stats["counts"], params["log_prob"])

    def log_prior(self, params: dict, shift: float = 0.0) -> float:
        """Log density of the prior at the estimated probabilities (for MAP-EM), with
        every concentration raised by ``shift``: 1 for a block EM estimates by the
        posterior mean, which is the posterior mode under the raised prior."""
        logp = params["log_prob"]
        alpha = np.broadcast_to(self._alpha(logp.shape[0], logp.shape[1:]), logp.shape) + shift
        segments = self._segments()
        if segments is None:
            return float(Dirichlet(alpha).logpdf(np.exp(logp)).sum())
        bounds = np.append(segments, logp.shape[-1])
        return sum(
            float(Dirichlet(alpha[..., a:b]).logpdf(np.exp(logp[..., a:b])).sum())
            for a, b in itertools.pairwise(bounds)
        )

    # -- the exact conjugate posterior: a Dirichlet over every variable -------------------
    def posterior_hyper(self, stats: dict) -> dict:
        """``{"concentration": prior alpha + counts}``, the posterior Dirichlet (one over
        each variable's categories, :meth:`_segments`)."""
        counts = stats["counts"]
        return {"concentration": counts + self._alpha(counts.shape[0], counts.shape[1:])}

    def draw_params(self, hyper: dict, size: int, rng) -> dict:
        """Dirichlet draws as normalized gamma variates, in log space throughout (a
        small concentration gives log-probabilities far below a float's range)."""
        alpha = hyper["concentration"]
        log_g = log_gamma_draws(np.broadcast_to(alpha, (size, *alpha.shape)), rng)
        log_prob = log_g - self._variable_totals(log_g, log=True)
        return {"log_prob": log_prob.reshape(size * alpha.shape[0], *alpha.shape[1:])}

    def marginals(self, hyper: dict) -> dict:
        """``{"prob": Beta(a_v, a_0 - a_v)}``, with ``a_0`` the total of the variable's
        concentrations."""
        alpha = hyper["concentration"]
        return {"prob": BetaMarginal(alpha, self._variable_totals(alpha) - alpha)}

    def _variable_totals(self, values: np.ndarray, *, log: bool = False) -> np.ndarray:
        """The total of every variable's entries on the last axis (its categories, or
        its segment of them), repeated to each entry; ``log``: the log-sum-exp."""
        segments = self._segments()
        if segments is None:
            if log:
                return log_sum_exp_last(values)
            return values.sum(axis=-1, keepdims=True)
        sizes = np.diff(np.append(segments, values.shape[-1]))
        if log:
            top = np.repeat(np.maximum.reduceat(values, segments, axis=-1), sizes, axis=-1)
            totals = np.add.reduceat(np.exp(values - top), segments, axis=-1)
            return np.log(np.repeat(totals, sizes, axis=-1)) + top
        return np.repeat(np.add.reduceat(values, segments, axis=-1), sizes, axis=-1)

    def category_labels(self) -> list:
        raise NotImplementedError

    def column_sizes(self) -> list[int]:
        """The number of values of every column."""
        return [len(self.category_labels())] * self.n_columns

    def n_free_parameters(self, n_labels: int) -> int:
        return n_labels * self.n_columns * (len(self.category_labels()) - 1)

    def params_from(self, source, K: int) -> dict:
        """One distribution over the block's categories (:meth:`Family.params_from`)."""
        prob = _given.probabilities(self, self.name, K, self.category_labels(), source)
        with np.errstate(divide="ignore"):
            return {"log_prob": np.log(prob)}

    def to_xarray(self, params: dict, stats: dict, label_dim: str, labels) -> dict:
        cat = f"{self.name}_category"
        dims = (*self._lead_dims(label_dim), cat)
        coords = {label_dim: labels, cat: value_array(self.category_labels()), **self._coords()}
        prob = _probabilities(params)
        out = {"params": {self.name: xr.DataArray(prob, dims=dims, coords=coords)}, "counts": {}}
        if stats is not None:
            out["counts"][self.name] = xr.DataArray(stats["counts"], dims=dims, coords=coords)
        return out

    # -- sequential updating (see bayesnb.NaiveBayesFit.update) ---------------------------
    def merge_stats(self, a: dict, b: dict) -> dict:
        """Counts of two disjoint batches add."""
        return {"counts": np.add(a["counts"], b["counts"])}

    # -- the rows as entries of the flat layout (see bayesnb.pymc_model) ------------------
    def flat_size(self) -> int:
        """The entries of one class's log-probabilities on the flat layout
        ``log_prob.reshape(K, -1)`` (which the statistics' counts share)."""
        raise NotImplementedError

    def log_offset(self) -> np.ndarray:
        """(flat_size,) constants added to the flat log-probabilities to give the log
        density of a value: none but for a Binned feature's bin widths."""
        return np.zeros(self.flat_size())

    def design(self, data) -> tuple[np.ndarray, np.ndarray]:
        """Every row's observed values as entries of the flat layout: ``(index,
        value)``, both (n, L), so that the row's log-likelihood under class ``k`` is
        ``sum_l value[i, l] * table[k, index[i, l]]`` with ``table`` the flat
        log-probabilities plus :meth:`log_offset`. A missing value has no entry: its
        place holds the padding index ``flat_size()`` with value 0 (a table padded
        with a column of zeros reads 0 there)."""
        raise NotImplementedError

    def _padded(self, entries: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(index, value)`` of :meth:`design` from flat entries (n, L) and where a
        value is present (n, L) for a family whose values are indicators."""
        index = np.where(present, entries, self.flat_size()).astype(np.intp)
        return index, present.astype(float)


#: The default prior of a Bernoulli, made once (priors are immutable; its array too).
_UNIFORM_BETA = Beta(1.0, 1.0)
_UNIFORM_BETA.alpha.flags.writeable = False


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
    from the counts, never from ``log(1 - exp(log theta))``. Counting and scoring
    are matrix products with the 0/1 design; for EM, which reads the block at every
    iteration, :meth:`encode_repeated` folds every eight columns into one code first.

    Examples
    --------
    The physician-fee-freeze vote by party under a Beta(2, 2) prior: the MAP of
    P(yes | democrat) is (m + 1)/(N + 2) with m yes votes of N cast.

    >>> import bayesnb as bnb
    >>> votes = bnb.datasets.house_votes_84()[["party", "V4"]]
    >>> model = bnb.NaiveBayes({"V4": bnb.Bernoulli(bnb.Beta(2, 2), values=("n", "y"))})
    >>> fit = model.fit(votes, target="party", estimate="map")
    >>> cast = votes.loc[votes["party"] == "democrat", "V4"].dropna()
    >>> m, N = int((cast == "y").sum()), len(cast)
    >>> m, N, round((m + 1) / (N + 2), 4)
    (14, 259, 0.0575)
    >>> round(float(fit.params["V4"].sel(class_label="democrat")), 4)
    0.0575
    """

    kind = "bernoulli"
    multi_column = True

    def __init__(self, prior=None, *, values=None, estimate=None, columns=None):
        super().__init__(
            _UNIFORM_BETA if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, Dirichlet):
            raise InputTypeError(
                f"Bernoulli prior must be a Beta or Dirichlet; got {self.prior!r}."
            )
        self.values = (
            None
            if values is None
            else tuple(declared_list(values, "values", "Bernoulli", "(false, true)"))
        )
        if self.values is not None and len(self.values) != 2:
            raise InputError(
                f"Bernoulli values must be the two raw values (false, true); got {values!r}."
            )

    def _learn(self, data, sample_weight=None) -> None:
        if self.values is not None:
            return
        if isinstance(data, pd.DataFrame):
            kinds = {data[c].dtype.kind for c in data.columns}
            if kinds <= {"b", "i", "u", "f"}:
                self.values = (0, 1)
                return
            seen = pd.unique(data.to_numpy().ravel())
            seen = _sorted_values([v for v in seen if not pd.isna(v)], self.columns)
            if len(seen) > 2:
                raise InputError(
                    f"Bernoulli feature {self.name!r} takes 2 values; got {len(seen)}: "
                    f"{seen[:5]!r}. Declare it Categorical, or pass values=(false, true)."
                )
            if len(seen) == 2:
                self.values = (seen[0], seen[1])
            else:
                raise InputError(
                    f"Bernoulli feature {self.name!r} shows {len(seen)} distinct value(s) "
                    f"{seen!r}, so which one is 'true' is unknown. Pass values=(false, true)."
                )
        else:
            self.values = (0, 1)

    def category_labels(self) -> list:
        return list(self.values)

    def seed_features(self, data):
        """The 0/1 values; a missing one at its column's frequency of 1."""
        x, observed = self._checked(self.encode(data))
        if sparse.issparse(x):
            return x
        x = np.asarray(x, dtype=float)
        if observed is None:
            return x
        seen = np.asarray(observed, dtype=bool)
        share = (x * seen).sum(axis=0) / np.maximum(seen.sum(axis=0), 1)
        return np.where(seen, x, share)

    def _binds_each(self, data) -> bool:
        """Numeric columns (read as an array): each takes the values 0 and 1."""
        return not isinstance(data, pd.DataFrame)

    # -- fused groups (see bayesnb.families.base.fusion_groups) -----------------------------
    def fusion_key(self):
        """Single 0/1 columns, each its own feature, under equal priors and estimators."""
        if self.n_columns != 1 or self.columns != [self.name] or self.values != (0, 1):
            return None
        alpha = self.prior.alpha
        return ("bernoulli", self.estimate, alpha.shape, alpha.tobytes())

    def fused(self, blocks) -> Bernoulli:
        out = copy.copy(self)
        out.columns = [b.columns[0] for b in blocks]
        return out

    def value_domains(self) -> list[list]:
        return [list(self.values) for _ in self.columns]

    def describe(self, params: dict, reference: dict) -> dict:
        p = np.exp(params["log_prob"][..., 1])  # (K, columns)
        q = np.exp(reference["log_prob"][0, :, 1])
        true = self.values[1]
        return {
            col: [f"P({true}) = {p[k, j]:.3f} (all: {q[j]:.3f})" for k in range(len(p))]
            for j, col in enumerate(self.columns)
        }

    def encode(self, data):
        """A dense array as it is (:class:`_Unchecked`: checked where it is first
        read), anything else as :meth:`_binary`'s checked form."""
        if (
            isinstance(data, np.ndarray)
            and data.ndim == 2
            and data.dtype.kind in "biuf"
            and self.values == (0, 1)
        ):
            return _Unchecked(data)
        return self._binary(data)

    def _checked(self, enc):
        """The (0/1 matrix, observed mask) of ``enc``."""
        return self._binary(enc.values) if isinstance(enc, _Unchecked) else enc

    def _binary(self, data):
        """0/1 matrix (NaN-free) and an observed mask (None when complete).

        Boolean and 0/1 integer input stays in its dtype (the products cast it block by
        block); float input is checked in one read and not copied when complete.
        """
        if sparse.issparse(data):
            x = sparse.csr_array(data, dtype=float)
            nan = np.isnan(x.data)
            observed = None
            if nan.any():  # missing entries: left out of the counts and the scores
                # each its own index arrays: eliminate_zeros rewrites them in place
                missing = sparse.csr_array(
                    (nan.astype(float), x.indices.copy(), x.indptr.copy()), shape=x.shape
                )
                missing.eliminate_zeros()
                observed = _SparseObserved(missing)
                x = sparse.csr_array(
                    (np.where(nan, 0.0, x.data), x.indices.copy(), x.indptr.copy()), x.shape
                )
                x.eliminate_zeros()
            if x.nnz and not ((x.data == 0) | (x.data == 1)).all():
                raise InputError(
                    f"Bernoulli feature {self.name!r} needs 0/1 entries (NaN for missing); "
                    "the sparse input has others. Binarize it first (e.g. X > 0)."
                )
            return x, observed
        if self.values != (0, 1):
            raw = _as_2d(data.to_numpy(dtype=object) if hasattr(data, "to_numpy") else data)
            x = np.full(raw.shape, np.nan)
            present = ~pd.isna(raw)  # compared only there: pd.NA == "y" is NA, no bool
            seen = raw[present]
            x[present] = np.where(seen == self.values[1], 1.0, np.nan)
            x[present] = np.where(seen == self.values[0], 0.0, x[present])
            bad = np.isnan(x) & present
            if bad.any():
                row, j = np.argwhere(bad)[0]
                raise InputError(
                    f"Bernoulli feature {self.name!r} takes the values {self.values!r}; column "
                    f"{self.columns[j]!r} has {_plain(raw[row, j])!r}. Clean the column, or "
                    "declare it Categorical."
                )
        else:
            x = _as_float_matrix(data, f"Bernoulli feature {self.name!r}", self.columns)
            if x.dtype.kind == "b":
                return x, None
            if x.dtype.kind in "iu":
                if x.size and (x.min() < 0 or x.max() > 1):
                    self._not_binary(x, (x < 0) | (x > 1))
                return x, None
            x = np.asarray(x, dtype=float)
            if _is_zero_one(x):
                return x, None
        missing = np.isnan(x)
        has_missing = missing.any()
        x0 = np.where(missing, 0.0, x) if has_missing else x
        bad = (x0 != 0.0) & (x0 != 1.0)
        if bad.any():
            self._not_binary(x0, bad)
        return x0, ((~missing).astype(float) if has_missing else None)

    def _not_binary(self, x: np.ndarray, bad: np.ndarray):
        """Raise the :class:`InputError` of the first entry of ``x`` flagged ``bad``."""
        row, j = np.argwhere(bad)[0]
        value = _plain(x[row, j])
        kind = "a non-finite value" if not np.isfinite(value) else "a value other than 0/1"
        raise InputError(
            f"Bernoulli feature {self.name!r} needs 0/1 values (NaN for missing); column "
            f"{self.columns[j]!r} has {kind}, {value!r}. Binarize it first (e.g. X > 0), or "
            "mark a missing value as NaN."
        )

    def _sizes(self) -> tuple[int, ...]:
        return (2,) * self.n_columns

    def encode_repeated(self, data):
        """Group codes (n, groups) of a dense block: the block as a Categorical block
        with two categories per column (eight columns to a code; the digit 0 for a
        missing value), read as one table entry per code instead of a row of floats
        by every E-step and M-step. A sparse matrix keeps :meth:`encode`'s form."""
        enc = self._binary(data)
        values = self._category_values(enc)
        return enc if values is None else _group_codes(values, self._sizes())[0]

    @staticmethod
    def _category_values(enc):
        """A dense block as category codes (0, 1, or -1 for missing), or None for a
        sparse one."""
        x, observed = enc
        if sparse.issparse(x):
            return None
        if observed is not None:
            x = np.where(observed > 0, x, -1).astype(np.int8)
        return x.view(np.uint8) if x.dtype == bool else x

    def em_kernel(self, data, method: str, n_components: int):
        """A dense block runs in the compiled EM loop; a sparse one does not (None)."""
        values = self._category_values(self._binary(data))
        return None if values is None else self._code_kernel(values, method, n_components)

    def _counts_shape(self, n_components: int) -> tuple:
        return (n_components, self.n_columns, 2)

    def count(self, enc, resp: np.ndarray) -> dict:
        if isinstance(enc, np.ndarray):  # group codes
            flat = _group_counts(enc, resp, self._sizes())
            return {"counts": flat.reshape(flat.shape[0], self.n_columns, 2)}
        if isinstance(enc, _Unchecked) and isinstance(resp, Labels):
            # One read counts the ones by label and checks the entries; a value missing
            # (or invalid) sends the block through the checked form instead.
            ones = np.zeros((resp.n_labels, self.n_columns))
            if not _label_counts(enc.values, resp, ones):
                seen = np.broadcast_to(resp.totals()[:, None], ones.shape)
                return {"counts": np.stack([seen - ones, ones], axis=-1)}
        x, observed = self._checked(enc)
        resp = dense(resp)
        ones = _column_sums(x, resp)  # (K, d)
        seen = _observed_sums(observed, resp, ones.shape)
        return {"counts": np.stack([seen - ones, ones], axis=-1)}

    def log_likelihood(self, enc, params: dict) -> np.ndarray:
        logp = params["log_prob"]  # (K, d, 2)
        if isinstance(enc, np.ndarray):  # group codes
            return _group_lookup(enc, logp.reshape(logp.shape[0], -1), self._sizes())
        x, observed = self._checked(enc)
        log0, log1 = logp[..., 0], logp[..., 1]

        def score(w1, w0):
            # x w1 + (observed - x) w0, without materializing (observed - x).
            out = _product(x, w1 - w0)
            out += _observed_product(observed, w0)
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

    def params_from(self, source, K: int) -> dict:
        """P(true) of every column, ``(K, columns)``, as :meth:`to_xarray` gives it."""
        name = self.name
        value = _given.required(self, name, source)
        arr = _given.ordered(value, self, name, K, f"{name}_category", self.category_labels())
        p = arr.reshape(K, -1)
        if p.shape[1] != self.n_columns:
            raise InputError(
                f"init[{name!r}] must give P(true) for {self.n_columns} column(s) per "
                f"component; got shape {arr.shape}."
            )
        if not np.all((p >= 0) & (p <= 1)):
            raise InputError(f"init[{name!r}] must hold probabilities in [0, 1]; got {p!r}.")
        with np.errstate(divide="ignore"):
            return {"log_prob": np.stack([np.log1p(-p), np.log(p)], axis=-1)}

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        out = super().to_xarray(params, stats, label_dim, labels)
        cat = f"{self.name}_category"
        da = out["params"][self.name].isel({cat: 1}, drop=True)
        if self.n_columns == 1:
            da = da.isel({self._feature_dim(): 0}, drop=True)
            if self.name in out["counts"]:
                out["counts"][self.name] = out["counts"][self.name].isel(
                    {self._feature_dim(): 0}, drop=True
                )
        da.attrs["description"] = f"P({self.name} = {self.values[1]!r} | {label_dim})"
        out["params"][self.name] = da
        return out

    def sample(self, params: dict, components: np.ndarray, rng) -> np.ndarray:
        """Draws (n, columns) in the data's own coding: 0/1 integers, Booleans when the
        two ``values`` are Booleans (a categorical column of ``False``/``True``), or the
        two values themselves (e.g. ``"n"``/``"y"``)."""
        p1 = np.exp(params["log_prob"][..., 1])[components]
        ones = rng.random(p1.shape) < p1
        booleans = all(isinstance(v, bool | np.bool_) for v in self.values)
        if booleans and self.values[0] != self.values[1]:
            return ones if self.values[1] else ~ones
        if self.values == (0, 1):  # (False, True) equals it too: tested first
            return ones.astype(np.int64)
        return np.where(ones, self.values[1], self.values[0]).astype(object)

    def observed_codes(self, data) -> np.ndarray:
        """1.0 for the true value, 0.0 for the false one, NaN where missing."""
        x, observed = self._checked(self.encode(data))
        x = np.asarray(x.toarray() if sparse.issparse(x) else x, dtype=float)
        return x if observed is None else np.where(_dense(observed) > 0, x, np.nan)

    def sample_codes(self, params, components, rng, observed=None, rows=None) -> np.ndarray:
        """0/1 draws (``int8``), 1 for the true value."""
        p1 = np.exp(params["log_prob"][..., 1])[components].astype(np.float32)
        return (rng.random(p1.shape, dtype=np.float32) < p1).astype(np.int8)

    def flat_size(self) -> int:
        return 2 * self.n_columns

    def design(self, data) -> tuple[np.ndarray, np.ndarray]:
        """Column ``j``'s value ``v`` (0 or 1) is entry ``2 j + v``."""
        x, observed = self._checked(self.encode(data))
        x = np.asarray(x.toarray() if sparse.issparse(x) else x, dtype=np.intp)
        present = np.ones(x.shape, dtype=bool) if observed is None else _dense(observed) > 0
        return self._padded(2 * np.arange(self.n_columns) + x, present)


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
    unseen : {"marginalize", "error", "predictive"}
        What a value outside the domain does at prediction time. ``"marginalize"``
        (default) treats it like a missing value: its factor is skipped, exactly as
        the text model skips words outside its vocabulary; when every observed value
        of a column (two or more) is unseen, the whole column is skipped and an
        :class:`~bayesnb.errors.UnseenValuesWarning` names it; one warns too for a
        value of another kind than every category (the text ``"1"`` among the
        numbers 1, 2, 3: a column coded otherwise than in training). ``"error"`` raises.
        ``"predictive"`` reserves prior mass for a value never seen in training:
        every column gets one more cell, labelled ``"<new>"`` (:data:`NEW_CATEGORY`),
        that every value outside its categories falls in (see Notes).
        In training, a value outside declared ``categories`` is an error (an
        :class:`~bayesnb.errors.InputError` naming the column and the values).
    alpha_new : float, default 1.0 under ``unseen="predictive"``
        The Dirichlet concentration of the ``"<new>"`` cell (only with
        ``unseen="predictive"``).
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
    single column and by the column in a block, with dims (class_label, <variable>_category).

    Under ``unseen="predictive"`` each column's Dirichlet has one more cell, the
    last of its categories, labelled ``"<new>"`` in ``params`` and ``counts``
    (training counts 0 there: every training value is a category). With counts
    :math:`n_{c,v}` over the :math:`V` categories, :math:`N_c = \\sum_v n_{c,v}`,
    concentrations :math:`\\alpha_v` and :math:`A = \\sum_v \\alpha_v`, the posterior
    mean (``estimate="mean"``, equal to the posterior predictive of one value) is

    .. math:: P(x = v \\mid c) = \\frac{n_{c,v} + \\alpha_v}{N_c + A + \\alpha_{new}},
              \\qquad P(x \\text{ new} \\mid c) = \\frac{\\alpha_{new}}{N_c + A + \\alpha_{new}},

    which sum to 1 over the categories and ``"<new>"``. Any value outside the
    categories is scored with the ``"<new>"`` probability (all new values share the
    cell: it is the probability that the value is *some* value not seen in
    training), and a draw from the model in that cell is the label ``"<new>"``.
    ``estimate="ml"`` would give the cell probability 0 and ``"map"`` a mode that
    depends on ``alpha_new - 1``; both raise an
    :class:`~bayesnb.errors.InputError`: use ``"mean"`` or ``"predictive"``. A
    later batch (:meth:`~bayesnb.NaiveBayesFit.update`) must still hold only the
    categories.

    A block is read as one mixed-radix code per group of adjacent columns (the digit
    of a column is its category code + 1, and 0 when the value is missing), so
    counting takes one weighted histogram per group, and scoring one table lookup
    per group, instead of one per column. A single count or score makes the codes
    block by block as it reads the data; EM makes them once
    (:meth:`encode_repeated`).

    Examples
    --------
    >>> import numpy as np, bayesnb as bnb
    >>> X = np.array([[0, 2], [1, 2], [0, 0], [1, 1]])
    >>> fit = bnb.NaiveBayes(bnb.Categorical()).fit(X, [0, 0, 1, 1], estimate="mean")
    >>> [b.name for b in fit.blocks], fit.blocks[0].column_categories
    (['X'], [[0, 1], [0, 1, 2]])
    >>> fit.params["x1"].sel(class_label=0).values          # (0+1)/5, (0+1)/5, (2+1)/5
    array([0.2, 0.2, 0.6])
    """

    kind = "categorical"
    multi_column = True

    def __init__(
        self,
        prior=None,
        *,
        categories=None,
        unseen="marginalize",
        alpha_new=None,
        estimate=None,
        columns=None,
    ):
        super().__init__(
            Dirichlet(1.0) if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, Dirichlet):
            raise InputTypeError(f"Categorical prior must be a Dirichlet; got {self.prior!r}.")
        if not isinstance(unseen, str) or unseen not in UNSEEN_POLICIES:
            raise InputError(
                "Categorical unseen must be 'marginalize' or 'error' (skip or refuse a value "
                "outside the categories), or 'predictive' (give it the mass of a new value); "
                f"got {unseen!r}."
            )
        self.alpha_new = _checked_alpha_new(alpha_new, unseen)
        if unseen == "predictive" and estimate in ("ml", "map"):
            _predictive_estimate_error(estimate, "this Categorical")
        self.categories = None if categories is None else _declared_categories(categories)
        if unseen == "predictive" and self.categories is not None:
            _check_new_label(self.categories, "categories")
        self.unseen = unseen
        self.column_categories: list[list] | None = None

    def _learn(self, data, sample_weight=None) -> None:
        if self.categories is not None:
            self.column_categories = [list(self.categories) for _ in self.columns]
            self._check_declared(data)
            return
        learned = _observed_categories(data, self.columns)
        for column, categories in zip(self.columns, learned, strict=True):
            if not categories:
                raise InputError(
                    f"Categorical feature {column!r} has no observed value in training. "
                    "Drop it, or declare its categories."
                )
        if self.unseen == "predictive":
            for column, categories in zip(self.columns, learned, strict=True):
                _check_new_label(categories, f"column {column!r}")
        self.column_categories = learned
        if all(c == learned[0] for c in learned):
            self.categories = list(learned[0])

    def seed_features(self, data) -> sparse.csr_array:
        """Every column's categories one-hot, scaled by 1/sqrt(2) (two different
        values 1 apart); a missing or unseen value all 0."""
        codes = self.codes(data, unseen="marginalize")
        n = codes.shape[0]
        starts = np.concatenate([[0], np.cumsum(self.column_sizes())[:-1]])
        rows, cols = np.nonzero(codes >= 0)
        return sparse.csr_array(
            (np.full(rows.size, np.sqrt(0.5)), (rows, starts[cols] + codes[rows, cols])),
            shape=(n, int(np.sum(self.column_sizes()))),
        )

    def _binds_each(self, data) -> bool:
        """A Categorical (not a Binned) learns every column's categories on its own."""
        return type(self) is Categorical

    def column_blocks(self) -> list[Categorical]:
        out = super().column_blocks()
        for block, categories in zip(out, self.column_categories, strict=True):
            block.column_categories = [categories]
            block.categories = list(categories)
        return out

    def _check_declared(self, data) -> None:
        """Raise when a training value lies outside the declared ``categories`` (it
        would otherwise be dropped from the counts without a word)."""
        codes = self.codes(data, unseen="error-declared")
        del codes

    # -- layout --------------------------------------------------------------------------
    def category_labels(self) -> list:
        """The categories, shared by every column of the block."""
        if self.categories is None:
            raise InputError(
                f"the columns of Categorical block {self.name!r} have different categories; "
                "see column_categories for each column's."
            )
        return list(self.categories)

    def value_domains(self) -> list[list]:
        return [list(c) for c in self.column_categories]

    # -- fused groups (see bayesnb.families.base.fusion_groups) -----------------------------
    def fusion_key(self):
        """Single columns, each its own feature, under equal scalar priors, estimators
        and ``unseen`` policies (a Binned feature does not fuse)."""
        if (
            type(self) is not Categorical
            or self.n_columns != 1
            or self.columns != [self.name]
            or self.prior.alpha.ndim != 0
        ):
            return None
        return ("categorical", self.estimate, self.unseen, self.alpha_new, float(self.prior.alpha))

    def fused(self, blocks) -> Categorical:
        out = copy.copy(self)
        out.columns = [b.columns[0] for b in blocks]
        out.column_categories = [b.column_categories[0] for b in blocks]
        first = out.column_categories[0]
        shared = all(c == first for c in out.column_categories)
        out.categories = list(first) if shared else None
        return out

    def split(self, values: dict, blocks) -> list[dict]:
        if self._shared():  # (classes, columns, categories): ``[:, j, :]``, views
            return per_column(values, len(blocks), lambda v: list(v.swapaxes(0, 1)))
        starts, sizes = self.segments(), self.column_sizes()
        bounds = [(int(a), int(a) + n) for a, n in zip(starts, sizes, strict=True)]
        return [{k: v[:, a:b] for k, v in values.items()} for a, b in bounds]

    def join(self, values: list) -> dict:
        glue = np.stack if self._shared() else np.concatenate
        return {k: glue([v[k] for v in values], axis=1) for k in values[0]}

    def _attribute_starts(self) -> np.ndarray:
        return self.segments()

    def describe(self, params: dict, reference: dict) -> dict:
        p = np.exp(self._flat(params["log_prob"]))
        q = np.exp(self._flat(reference["log_prob"]))[0]
        out = {}
        for j, (col, start) in enumerate(zip(self.columns, self.segments(), strict=True)):
            cats = self._cell_labels(j)
            top = p[:, start : start + len(cats)].argmax(axis=1) + start
            out[col] = [
                f"{cats[top[k] - start]}: {p[k, top[k]]:.3f} (all: {q[top[k]]:.3f})"
                for k in range(len(p))
            ]
        return out

    def column_sizes(self) -> list[int]:
        """The number of cells of every column: its categories (and the ``"<new>"``
        cell under ``unseen="predictive"``)."""
        extra = 1 if self.unseen == "predictive" else 0
        return [len(c) + extra for c in self.column_categories]

    def _cell_labels(self, j: int) -> list:
        """Column ``j``'s cells as ``params`` labels them: its categories, then
        ``"<new>"`` under ``unseen="predictive"``."""
        cats = list(self.column_categories[j])
        return [*cats, NEW_CATEGORY] if self.unseen == "predictive" else cats

    def _alpha(self, n_labels: int, shape: tuple[int, ...]) -> np.ndarray:
        """The declared concentration over the categories, with ``alpha_new`` on every
        column's ``"<new>"`` cell under ``unseen="predictive"``."""
        if self.unseen != "predictive":
            return super()._alpha(n_labels, shape)
        if len(shape) == 2:  # (columns, categories + 1): shared categories
            seen = (shape[0], shape[1] - 1)
            alpha = np.broadcast_to(super()._alpha(n_labels, seen), (n_labels, *seen))
            new = np.full((n_labels, shape[0], 1), self.alpha_new)
            return np.concatenate([alpha, new], axis=-1)
        seen = (shape[0] - self.n_columns,)
        alpha = np.broadcast_to(super()._alpha(n_labels, seen), (n_labels, *seen))
        ends = np.cumsum([size - 1 for size in self.column_sizes()])
        return np.insert(alpha, ends, self.alpha_new, axis=-1)

    def estimate_params(self, stats: dict, method: str, *, labels=None) -> dict:
        if self.unseen == "predictive" and method in ("ml", "map"):
            _predictive_estimate_error(method, f"Categorical feature {self.name!r}")
        return super().estimate_params(stats, method, labels=labels)

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
            return flat.reshape(flat.shape[0], self.n_columns, self.column_sizes()[0])
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

    # -- kernel ----------------------------------------------------------------------------
    def codes(self, data, unseen: str | None = None) -> np.ndarray:
        """Integer codes (n, columns) into every column's categories, in the smallest
        signed integer type that holds them; -1 for a missing (or marginalized unseen)
        value.

        ``unseen`` overrides the family's policy: ``"error-declared"`` (training with
        declared categories) raises on any value outside them.
        """
        policy = self.unseen if unseen is None else unseen
        frame = data if isinstance(data, pd.DataFrame) else None
        arr = None if frame is not None else _as_2d(data)
        n = len(frame) if frame is not None else arr.shape[0]
        # column-major: every column's codes written (and later read) in memory order,
        # in the smallest signed type that holds every code and the "<new>" cell
        dtype = np.min_scalar_type(-1 - max(self.column_sizes(), default=0))
        out = np.empty((n, self.n_columns), dtype=dtype, order="F")
        stored = column_arrays(frame) if frame is not None else None
        for j, categories in enumerate(self.column_categories):
            col = None
            if frame is None:
                values = arr[:, j]
            elif isinstance(stored[j], np.ndarray):
                values = stored[j]
            else:  # a pandas extension array (categorical, string, nullable, ...)
                values, col = None, stored[j]
            if isinstance(col, pd.Categorical):
                # a pandas categorical: its codes, mapped onto the categories once
                raw = col.codes
                own = col.categories
                if len(own) == len(categories) and own.equals(self._category_index(j)):
                    out[:, j] = raw  # the same categories in the same order: the codes,
                    continue  # none of them unseen
                mapping = np.append(self._category_index(j).get_indexer(own), -1)
                out[:, j] = mapping[raw]  # code -1 (missing) picks the appended -1
                observed = raw >= 0
                unseen_mask = (out[:, j] < 0) & observed
            elif values is not None and values.dtype.kind in "iu" and _is_range(categories):
                values = values.astype(np.int64)  # a huge unsigned one turns negative
                unseen_mask = (values < 0) | (values >= len(categories))
                out[:, j] = np.where(unseen_mask, -1, values)
                observed = None
            elif values is not None and values.dtype.kind == "f" and _is_whole_run(categories):
                # whole numbers as floats, categories c0, c0 + 1, ...: by arithmetic
                self._check_finite(values, j)
                offset = values - categories[0]
                inside = (offset >= 0) & (offset < len(categories)) & (offset == np.floor(offset))
                out[:, j] = np.where(inside, offset, -1)
                observed = ~np.isnan(values)
                unseen_mask = observed & ~inside
            else:
                if values is not None and values.dtype.kind == "f":
                    self._check_finite(values, j)
                col = pd.Series(values if col is None else col, copy=False)
                # get_indexer gives -1 for a missing or unseen value (pd.Categorical with
                # a value outside its categories is deprecated in pandas 3 and warns).
                out[:, j] = pd.Index(categories, tupleize_cols=False).get_indexer(col)
                observed = col.notna().to_numpy()
                unseen_mask = (out[:, j] < 0) & observed
            if policy == "predictive":
                out[unseen_mask, j] = len(categories)  # the "<new>" cell
                continue
            if unseen_mask.any():
                bad = (values if values is not None else col.to_numpy())[unseen_mask]
                if policy == "error-declared":
                    self._undeclared_error(j, bad)
                if policy == "error":
                    self._unseen_error(j, _plain(bad[0]))
                n_observed = n if observed is None else int(observed.sum())
                if len(bad) == n_observed > 1:
                    self._warn_all_unseen(j, bad)
                else:
                    self._warn_other_type(j, bad)
        return out

    def _category_index(self, j: int) -> pd.Index:
        """Column ``j``'s categories as a pandas Index."""
        return _category_index(tuple(self.column_categories[j]))

    def _check_finite(self, values: np.ndarray, j: int) -> None:
        """Raise on an infinite value (NaN is missing): a category must be a number."""
        if np.isinf(values).any():
            value = _plain(values[np.isinf(values)][0])
            raise InputError(
                f"{self.kind.capitalize()} feature {self.name!r}: column {self.columns[j]!r} "
                f"has the non-finite value {value!r}. Replace it with NaN (missing) or a "
                "finite value."
            )

    def _undeclared_error(self, j: int, bad) -> None:
        values = _sorted_values(pd.unique(np.asarray(bad, dtype=object)).tolist(), self.columns)
        raise InputError(
            f"Categorical feature {self._variable(j)!r}: column {self.columns[j]!r} has "
            f"{len(bad)} training value(s) outside the declared categories "
            f"{self.column_categories[j][:10]!r}: {[_plain(v) for v in values[:5]]!r}. Add "
            "them to `categories`, or drop or recode those rows."
        )

    def _warn_all_unseen(self, j: int, bad) -> None:
        values = pd.unique(np.asarray(bad, dtype=object)).tolist()[:5]
        warnings.warn(
            f"Categorical feature {self._variable(j)!r}: every observed value of column "
            f"{self.columns[j]!r} is outside the categories learnt in training "
            f"{self.column_categories[j][:10]!r} (e.g. {[_plain(v) for v in values]!r}), so "
            "the whole column is marginalized and adds nothing to the prediction. Check "
            "that the column is coded as in training.",
            UnseenValuesWarning,
            stacklevel=4,
        )

    def _warn_other_type(self, j: int, bad) -> None:
        """Warn when an unseen value is of another kind (text, number, Boolean) than
        every category of column ``j``: "1" against the numbers 1, 2, 3 is a column
        coded otherwise than in training, not a new value."""
        categories = {_value_kind(v) for v in self.column_categories[j]}
        odd = [
            v for v in pd.unique(np.asarray(bad, dtype=object)) if _value_kind(v) not in categories
        ]
        if not odd:
            return
        kinds = " or ".join(sorted(categories))
        warnings.warn(
            f"Categorical feature {self._variable(j)!r}: column {self.columns[j]!r} holds "
            f"{_plain(odd[0])!r} ({_value_kind(odd[0])}), while its categories learnt in "
            f"training are {kinds} ({self.column_categories[j][:10]!r}), so the value is "
            "unseen and its factor is marginalized. Convert the column to the training "
            "data's type (e.g. X[col].astype(int)) before predicting.",
            UnseenValuesWarning,
            stacklevel=4,
        )

    def _unseen_error(self, j: int, value):
        raise InputError(
            f"Categorical feature {self._variable(j)!r} got the value {value!r}, which is not "
            f"among its categories {self.column_categories[j][:10]!r}. Declare it in "
            "`categories`, or use unseen='marginalize' to skip its factor."
        )

    def encode(self, data) -> _CategoryCodes:
        """Category codes (n, columns) for one ``count`` or ``log_likelihood``.

        Both fold every group of adjacent columns into one mixed-radix code, block by
        block (see :func:`bayesnb.families._kernels._code_groups`): ``count``
        computes ``one_hot.T @ resp`` by one weighted histogram per group and
        ``log_likelihood`` computes ``one_hot @ log_prob.T`` by one table lookup per
        group, the same numbers as the (n, sum of categories) indicator matrix
        without building it. A missing value is an empty row of its column's
        indicators: it drops out of both. An integer array whose categories are
        ``0..V-1`` is read in place, and its values checked as the codes are made.
        """
        if isinstance(data, np.ndarray) and data.dtype.kind in "iu" and self.unseen != "predictive":
            arr = _as_2d(data)
            if all(_is_range(c) for c in self.column_categories):
                return _CategoryCodes(arr, checked=False)
        return _CategoryCodes(self.codes(data), checked=True)

    def encode_repeated(self, data):
        """Group codes (n, groups), made once, for a caller that counts and scores the
        same rows many times (EM). When the groups' tables would hold more codes than
        there are rows (few rows, many columns), the rows' (n, sum of sizes) indicator
        matrix instead (CSR): counting and scoring are then one sparse product each."""
        enc = self.encode(data)
        if _layout(self._sizes()).n_codes > len(enc.values):
            indicators, outside, first = self._indicators(enc)
            self._check_outside(enc, outside, first)
            return indicators
        codes, outside, first = _group_codes(enc.values, self._sizes())
        self._check_outside(enc, outside, first)
        return codes

    def em_kernel(self, data, method: str, n_components: int):
        """The category codes run in the compiled EM loop (their unseen values were
        handled when the block was encoded for EM: here they are missing)."""
        return self._code_kernel(self.encode(data).values, method, n_components)

    def _counts_shape(self, n_components: int) -> tuple:
        return self._stored(np.empty((n_components, int(sum(self.column_sizes()))))).shape

    def _check_outside(self, enc: _CategoryCodes, outside: int, first: int) -> None:
        """Apply ``unseen`` to the values of unchecked codes outside every domain (an
        integer value cannot be missing, so every such value is unseen)."""
        if not outside or enc.checked:
            return
        if self.unseen == "error":
            row, j = divmod(first, enc.values.shape[1])
            self._unseen_error(j, enc.values[row, j].item())
        n = enc.values.shape[0]
        if outside >= n > 1:  # perhaps a whole column is outside its domain
            values = _signed(enc.values)
            sizes = np.asarray(self.column_sizes())
            for j in np.flatnonzero(((values < 0) | (values >= sizes)).all(axis=0)):
                self._warn_all_unseen(int(j), values[:, j])

    def count(self, enc, resp) -> dict:
        if isinstance(enc, np.ndarray):  # group codes
            flat = _group_counts(enc, resp, self._sizes())
        elif sparse.issparse(enc):  # indicators
            flat = _column_sums(enc, dense(resp))
        else:
            flat, outside, first = _value_counts(enc.values, resp, self._sizes())
            self._check_outside(enc, outside, first)
        return {"counts": self._stored(flat)}

    def _segments(self) -> np.ndarray | None:
        return None if self._shared() else self.segments()

    def _log_table(self, params: dict) -> np.ndarray:
        """Flat (K, sum of sizes) log-densities of every column's categories."""
        return self._flat(params["log_prob"])

    def log_likelihood(self, enc, params) -> np.ndarray:
        table = self._log_table(params)
        if isinstance(enc, np.ndarray):  # group codes
            return _group_lookup(enc, table, self._sizes())
        if sparse.issparse(enc):  # indicators
            return _guarded_dot(enc, table)
        if _group_table_entries(self._sizes(), len(table)) > enc.values.size * len(table):
            # Many classes (every draw of a posterior): the groups' tables would hold
            # more entries than the rows; one product with the rows' indicators instead.
            indicators, outside, first = self._indicators(enc)
            self._check_outside(enc, outside, first)
            return _guarded_dot(indicators, table)
        out, outside, first = _value_lookup(enc.values, table, self._sizes())
        self._check_outside(enc, outside, first)
        return out

    def _indicators(self, enc: _CategoryCodes):
        """The rows' (n, sum of sizes) indicator matrix (CSR; a missing or outside value
        has none), the number of values outside their column's categories and the
        flat position of the first."""
        values = _signed(enc.values)
        sizes = np.asarray(self.column_sizes())
        inside = (values >= 0) & (values < sizes)
        outside = ~inside & (values >= 0) if enc.checked else ~inside
        rows, cols = np.nonzero(inside)
        matrix = sparse.csr_array(
            (np.ones(len(rows)), (rows, self.segments()[cols] + values[rows, cols])),
            shape=(len(values), int(sizes.sum())),
        )
        n_outside = int(outside.sum())
        first = int(np.flatnonzero(outside.ravel())[0]) if n_outside else -1
        return matrix, (0 if enc.checked else n_outside), first

    def _draw_codes(self, params, components, rng):
        """A category index of every column for each of ``components``, one column at
        a time (a generator: a caller may draw more for a column before the next).

        Every class's cumulative probabilities are made once; a draw reads its
        class's row of them."""
        prob = np.exp(self._flat(params["log_prob"]))
        for start, size in zip(self.segments(), self.column_sizes(), strict=True):
            cumulative = prob[:, start : start + size].cumsum(axis=1)
            cumulative /= cumulative[:, -1:]
            # Single-precision uniforms: half the cost, and a resolution (2**-24) far
            # below any sampling error of the draws.
            u = rng.random(len(components), dtype=np.float32)
            index = np.zeros(len(components), dtype=np.intp)
            for c in range(size - 1):  # past every category whose cumulative mass <= u
                index += u >= cumulative[:, c].astype(np.float32).take(components)
            yield index

    def sample(self, params, components, rng) -> np.ndarray:
        """Draws (n,) for a single column, (n, columns) for a block."""
        draws = [  # object arrays of the categories as given (a tuple stays one value)
            value_array(self._cell_labels(j)).astype(object)[idx]
            for j, idx in enumerate(self._draw_codes(params, components, rng))
        ]
        return draws[0] if self.n_columns == 1 else np.stack(draws, axis=1)

    def observed_codes(self, data) -> np.ndarray:
        """Every value's position among its column's categories (NaN where missing,
        or unseen and marginalized)."""
        codes = self.codes(data).astype(float)
        codes[codes < 0] = np.nan
        return codes

    def sample_codes(self, params, components, rng, observed=None, rows=None) -> np.ndarray:
        """Category positions, in the smallest signed integer type that holds them
        (signed: ArviZ's plots take unsigned integers for continuous values)."""
        dtype = np.min_scalar_type(-max(self.column_sizes()))
        return np.stack(list(self._draw_codes(params, components, rng)), axis=1).astype(dtype)

    def flat_size(self) -> int:
        return int(sum(self.column_sizes()))

    def design(self, data) -> tuple[np.ndarray, np.ndarray]:
        """Column ``j``'s category ``v`` is entry ``segments()[j] + v``; a missing value
        (or an unseen one, marginalized) has none."""
        codes = self.codes(data)
        return self._padded(self.segments() + codes, codes >= 0)

    def params_from(self, source, K: int) -> dict:
        """One variable per column (named by the column in a block), each over the
        column's own categories, laid side by side in the block's stored layout."""
        parts = [
            _given.probabilities(self, self._variable(j), K, self._cell_labels(j), source)
            for j in range(self.n_columns)
        ]
        with np.errstate(divide="ignore"):
            return {"log_prob": self._stored(np.log(np.concatenate(parts, axis=1)))}

    def to_xarray(self, params: dict, stats: dict, label_dim: str, labels) -> dict:
        prob = self._flat(_probabilities(params))
        counts = None if stats is None else self._flat(stats["counts"])
        out = {"params": {}, "counts": {}}
        for j, (start, size) in enumerate(zip(self.segments(), self.column_sizes(), strict=True)):
            var = self._variable(j)
            cat = f"{var}_category"
            dims = (label_dim, cat)
            coords = {label_dim: labels, cat: value_array(self._cell_labels(j))}
            part = slice(start, start + size)
            out["params"][var] = xr.DataArray(prob[:, part], dims=dims, coords=coords)
            if counts is not None:
                out["counts"][var] = xr.DataArray(counts[:, part], dims=dims, coords=coords)
        return out

    # -- sequential updating (see bayesnb.NaiveBayesFit.update) ---------------------------
    def check_update(self, data) -> None:
        """Raise an :class:`InputError` naming the column and the values when a later
        batch holds a value outside the categories this block was bound with (learnt
        or declared by the first fit): counting would drop it, as a prediction
        marginalizes it, and the statistics would no longer be those of every batch
        taken together."""
        frame = data if isinstance(data, pd.DataFrame) else None
        arr = None if frame is not None else _as_2d(data)
        inside = None  # integer codes: whether every value of a column is in 0 .. V-1
        ranges = all(map(_is_range, self.column_categories))
        if arr is not None and arr.dtype.kind in "iu" and ranges:
            sizes = np.asarray(self.column_sizes())
            if arr.min() >= 0 and arr.max() < sizes.min():  # one read of the block
                return
            inside = (arr.min(axis=0) >= 0) & (arr.max(axis=0) < sizes)
        for j, categories in enumerate(self.column_categories):
            if inside is not None and inside[j]:
                continue
            col = frame.iloc[:, j] if frame is not None else pd.Series(arr[:, j], copy=False)
            if isinstance(col.dtype, np.dtype) and col.dtype.kind == "f":
                self._check_finite(col.to_numpy(), j)
            index = pd.Index(categories, tupleize_cols=False).get_indexer(col)
            outside = (index < 0) & col.notna().to_numpy()
            if outside.any():
                bad = pd.unique(col.to_numpy(dtype=object)[outside]).tolist()
                raise InputError(
                    f"Categorical feature {self._variable(j)!r}: column {self.columns[j]!r} "
                    f"of the batch has {int(outside.sum())} value(s) outside the categories "
                    f"of the first fit {categories[:10]!r}"
                    f"{'...' if len(categories) > 10 else ''}: "
                    f"{[_plain(v) for v in bad[:5]]!r}. An update counts its rows in the "
                    "first fit's categories, where such a value has no place. Declare every "
                    "category of the column for the first fit (Categorical(categories=[...])) "
                    "and fit again."
                )


class Binned(Categorical):
    """A continuous feature cut into ranges, uniform within each (the seeds' histogram).

    Parameters
    ----------
    edges : sequence of float, optional
        Increasing, finite bin edges, shared by every column of a block. Bin ``j`` is
        ``[edges[j], edges[j+1])``; the last bin also holds its right edge. Nothing is
        learnt from the data.
    prior : Dirichlet, default Dirichlet(1.0)
        Prior over the bin probabilities.
    bins : int or str, optional
        Edges learnt from the training values instead (exactly one of ``edges`` and
        ``bins``): an int is that many equal-width bins over the column's training
        range; ``"auto"``, ``"fd"``, ``"doane"``, ``"scott"``, ``"stone"``, ``"rice"``,
        ``"sturges"`` or ``"sqrt"`` is that rule of :func:`numpy.histogram_bin_edges`;
        ``"quantile"`` puts the edges at the quantiles ``0, 1/n_bins, ..., 1`` of the
        column (:func:`numpy.quantile`, linear interpolation). Tied quantiles (a value
        repeated over more than a bin's share of the rows) are merged, so the column
        gets fewer than ``n_bins`` bins; a column whose quantiles all coincide (a
        single distinct value) is an error.
    n_bins : int, optional
        The number of quantile bins (``bins="quantile"`` only).
    outside : {"error", "open"}, default "error"
        A value outside ``[edges[0], edges[-1]]`` at prediction. ``"error"`` raises an
        :class:`~bayesnb.errors.InputError` naming the column. ``"open"`` extends the
        first bin to ``-inf`` and the last to ``+inf``: such a value falls in the end
        bin and gets the end bin's density, its probability over its finite width
        (see Notes).
    columns : list, optional
        Several columns, as one block.

    Notes
    -----
    The density is :math:`p(x\\mid c) = \\theta_{c,j} / w_j` for ``x`` in bin ``j`` of
    width :math:`w_j`.

    Learnt edges are learnt at bind time, from each column's observed values (a
    missing value is left out; sample weights are not used), so every column of a
    block has its own edges, bins and probabilities, laid side by side like a
    Categorical block's columns with different categories (a block whose columns'
    edges coincide keeps the shared layout). ``params`` holds them as each
    variable's ``<variable>_lower`` and ``<variable>_upper`` coordinates, and a
    saved model keeps them exactly.

    With ``outside="open"`` the density above holds within the edges; beyond them it
    continues at the end bin's height :math:`\\theta_{c,1} / w_1` (or
    :math:`\\theta_{c,m} / w_m`). This approximates an unbounded tail: the density
    then no longer integrates to one over the real line, so a value far outside the
    training range is scored as if it lay in the end bin. Draws (:meth:`sample`)
    stay within the edges. The end bins' labels show their open ends
    (``"(-inf, 1)"``, ``"[9, inf)"``); their ``_lower``/``_upper`` coordinates are the
    finite edges whose width the density uses.

    Examples
    --------
    Seed 001's temperatures in three ranges. The five "No" days fall 2, 0 and 3 in
    the bins, so the posterior mean under Dirichlet(1) is (2 + 1)/8, (0 + 1)/8 and
    (3 + 1)/8; the density within a bin is its probability over its width.

    >>> import bayesnb as bnb
    >>> temps = bnb.datasets.temperature()
    >>> model = bnb.NaiveBayes({"temperature": bnb.Binned(edges=[10, 20, 25, 35])})
    >>> fit = model.fit(temps, target="play")
    >>> fit.params["temperature_category"].values.tolist()
    ['[10, 20)', '[20, 25)', '[25, 35]']
    >>> fit.params["temperature"].sel(class_label="No").values
    array([0.375, 0.125, 0.5  ])
    """

    kind = "binned"
    suffixes = ("lower", "upper")

    def __init__(
        self,
        edges=None,
        prior=None,
        *,
        bins=None,
        n_bins=None,
        outside="error",
        estimate=None,
        columns=None,
    ):
        if (edges is None) == (bins is None):
            raise InputError(
                "Binned needs exactly one of edges= (bin edges you choose) and bins= (edges "
                f"learnt from the training data); got edges={edges!r} and bins={bins!r}. "
                "Pass e.g. Binned(edges=[0, 1, 2]) or Binned(bins=10)."
            )
        if edges is not None:
            edges = _checked_edges(edges, "Binned edges")
            if n_bins is not None:
                raise InputError(
                    f"Binned n_bins={n_bins!r} is the number of quantile bins, which only "
                    "bins='quantile' learns; edges are given. Leave n_bins out."
                )
        else:
            _check_bins(bins, n_bins)
        if not isinstance(outside, str) or outside not in ("error", "open"):
            raise InputError(
                f"Binned outside must be 'error' or 'open'; got {outside!r}. 'open' extends "
                "the end bins to -inf and +inf."
            )
        super().__init__(prior, estimate=estimate, columns=columns)
        self.edges = edges
        self.bins = int(bins) if isinstance(bins, np.integer) else bins
        self.n_bins = None if n_bins is None else int(n_bins)
        self.outside = outside
        self.column_edges: list[np.ndarray] | None = None
        self.categories = None if edges is None else self._bin_labels(edges)

    def __repr__(self) -> str:
        what = (
            f"edges={self.edges.tolist()!r}"
            if self.edges is not None
            else f"bins={self.bins!r}" + (f", n_bins={self.n_bins!r}" if self.n_bins else "")
        )
        extra = ", outside='open'" if self.outside == "open" else ""
        return f"Binned({what}, prior={self.prior!r}{extra})"

    def _bin_labels(self, edges: np.ndarray) -> list[str]:
        """``"[a, b)"`` for every bin (``"]"`` closing the last, and open ends under
        ``outside="open"``), in the fewest significant digits (6 at least) that keep
        the labels distinct."""
        for digits in (6, 10, 17):
            text = [f"{e:.{digits}g}" for e in edges]
            if len(set(text)) == len(text):
                break
        labels = [f"[{a}, {b})" for a, b in itertools.pairwise(text)]
        labels[-1] = labels[-1][:-1] + "]"
        if self.outside == "open":
            labels[0] = "(-inf" + labels[0][labels[0].index(",") :]
            labels[-1] = labels[-1][: labels[-1].index(",")] + ", inf)"
        return labels

    def _learn(self, data, sample_weight=None) -> None:
        if self.edges is not None:
            self.set_edges([self.edges] * self.n_columns)
            return
        x = np.asarray(
            _as_float_matrix(data, f"Binned feature {self.name!r}", self.columns), dtype=float
        )
        self.set_edges([self._learnt_edges(x[:, j], j) for j in range(self.n_columns)])

    def set_edges(self, column_edges: list) -> None:
        """Bind the block to every column's edges (the bins become its categories)."""
        self.column_edges = [np.asarray(e, dtype=float) for e in column_edges]
        first = self.column_edges[0]
        self.column_categories = [self._bin_labels(e) for e in self.column_edges]
        shared = all(np.array_equal(e, first) for e in self.column_edges)
        self.categories = list(self.column_categories[0]) if shared else None

    def _learnt_edges(self, values: np.ndarray, j: int) -> np.ndarray:
        """Column ``j``'s edges from its training ``values`` (NaN left out)."""
        self._check_finite(values, j)
        values = values[~np.isnan(values)]
        column = self.columns[j]
        if not len(values):
            raise InputError(
                f"Binned feature {self._variable(j)!r}: column {column!r} has no observed "
                f"value in training to learn bins={self.bins!r} from. Drop the column, or "
                "declare its edges."
            )
        with np.errstate(over="ignore"):
            span = values.max() - values.min()
        if not np.isfinite(span):  # numpy's rules and quantiles both take differences
            raise InputError(
                f"Binned feature {self._variable(j)!r}: column {column!r} spans "
                f"{values.min():g} .. {values.max():g}, a range beyond the largest float "
                f"(about 1.8e308), so bins={self.bins!r} cannot split it. Rescale the "
                "column (e.g. divide it by a power of ten), or declare edges."
            )
        if self.bins == "quantile":
            edges = np.unique(np.quantile(values, np.linspace(0.0, 1.0, self.n_bins + 1)))
            if len(edges) < 2:
                raise InputError(
                    f"Binned feature {self._variable(j)!r}: column {column!r} takes the single "
                    f"value {edges[0]:g} in training, so its quantile edges collapse to one "
                    "point. Use bins=<int> (a unit-wide bin around it) or declare edges."
                )
        else:
            try:
                edges = np.histogram_bin_edges(values, bins=self.bins)
            except ValueError as err:  # numpy: the range is too narrow for the bins
                raise InputError(
                    f"Binned feature {self._variable(j)!r}: bins={self.bins!r} cannot split "
                    f"column {column!r}, whose training range {values.min():.17g} .. "
                    f"{values.max():.17g} is too narrow for that many bins of positive "
                    f"width (numpy: {err}). Use fewer bins, or declare edges."
                ) from None
        if not np.all(edges[1:] > edges[:-1]):
            raise InputError(
                f"Binned feature {self._variable(j)!r}: the edges bins={self.bins!r} learns "
                f"from column {column!r} are not strictly increasing (its range "
                f"{values.min():g} .. {values.max():g} is too narrow for them). Use fewer bins "
                "or declare edges."
            )
        return edges

    def value_domains(self) -> None:
        return None  # the raw values are continuous: only their bins are finitely many

    def _check_declared(self, data) -> None:
        """Nothing: the bins are the categories, and :meth:`codes` checks the edges."""

    def codes(self, data, unseen: str | None = None) -> np.ndarray:
        x = np.asarray(
            _as_float_matrix(data, f"Binned feature {self.name!r}", self.columns), dtype=float
        )
        missing = np.isnan(x)
        for j in np.flatnonzero(np.isinf(x).any(axis=0)):
            self._check_finite(x[:, j], int(j))
        if self.categories is not None:  # one set of edges: every column at once
            return self._bin_codes(x, missing, self.column_edges[0], None)
        out = np.empty(x.shape, dtype=np.intp)
        for j, edges in enumerate(self.column_edges):
            out[:, j] = self._bin_codes(x[:, j], missing[:, j], edges, j)
        return out

    def _bin_codes(self, x, missing, edges, j) -> np.ndarray:
        """The bin of every value of ``x`` (-1 where ``missing``) among ``edges``; column
        ``j`` of the block (None: ``x`` holds every column)."""
        if self.outside == "error":
            outside = ~missing & ((x < edges[0]) | (x > edges[-1]))
            if outside.any():
                where = np.argwhere(outside)[0]
                jj = int(where[1]) if j is None else j
                how = "declared" if self.edges is not None else f"learnt by bins={self.bins!r}"
                raise InputError(
                    f"Binned feature {self._variable(jj)!r} has edges from {edges[0]:g} to "
                    f"{edges[-1]:g}; got {float(x[tuple(where)]):g} in column "
                    f"{self.columns[jj]!r}, outside the edges ({how}). Declare edges that "
                    "cover every value, or pass outside='open' to score it in the end bin."
                )
        codes = np.searchsorted(edges, x, side="right") - 1
        codes = np.clip(codes, 0, len(edges) - 2)
        codes[missing] = -1
        return codes

    def _log_widths(self) -> np.ndarray:
        """The log width of every bin, on the flat (K, -1) layout of the block."""
        return np.concatenate([_log_widths(e) for e in self.column_edges])

    def _log_table(self, params) -> np.ndarray:
        return self._flat(params["log_prob"]) - self._log_widths()

    def log_offset(self) -> np.ndarray:
        """Minus the log width of every bin: a bin's mass spread over its width."""
        return -self._log_widths()

    def _width_term(self, stats: dict) -> float:
        """``-sum(count * log width)``: what turns the bins' probabilities into the
        densities the values have (a bin's mass spread uniformly over its width)."""
        return -float(self._flat(stats["counts"]).sum(axis=0) @ self._log_widths())

    def log_marginal(self, stats: dict, n_labels: int) -> float:
        """The marginal density of the values (each bin's width included)."""
        return super().log_marginal(stats, n_labels) + self._width_term(stats)

    def complete_log_likelihood(self, stats: dict, params: dict) -> float:
        return super().complete_log_likelihood(stats, params) + self._width_term(stats)

    def sample(self, params, components, rng) -> np.ndarray:
        """Draws (n,) for a single column, (n, columns) for a block (within the edges)."""
        draws = []
        for edges, idx in zip(
            self.column_edges, self._draw_codes(params, components, rng), strict=True
        ):
            lo, hi = edges[idx], edges[idx + 1]
            draws.append(_uniform_within(lo, hi, rng.random(len(idx))))
        return draws[0] if self.n_columns == 1 else np.stack(draws, axis=1)

    def observed_codes(self, data) -> np.ndarray:
        """The values themselves (a bin's draws are uniform within it); NaN where missing."""
        self.codes(data)  # the values' checks: finite, within the edges
        return np.asarray(
            _as_float_matrix(data, f"Binned feature {self.name!r}", self.columns), dtype=float
        )

    def sample_codes(self, params, components, rng, observed=None, rows=None) -> np.ndarray:
        return np.reshape(self.sample(params, components, rng), (len(components), -1))

    def to_xarray(self, params, stats, label_dim, labels) -> dict:
        out = super().to_xarray(params, stats, label_dim, labels)
        for j, edges in enumerate(self.column_edges):
            var = self._variable(j)
            cat = f"{var}_category"
            for group in out.values():
                if var not in group:
                    continue
                group[var] = group[var].assign_coords(
                    {f"{var}_lower": (cat, edges[:-1]), f"{var}_upper": (cat, edges[1:])}
                )
        return out

    def check_update(self, data) -> None:
        """Nothing: the bins are the categories, and :meth:`codes` checks the edges."""


#: The rules of :func:`numpy.histogram_bin_edges` a Binned feature's ``bins`` may name.
BIN_RULES = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")


def _log_widths(edges: np.ndarray) -> np.ndarray:
    """``log(edges[j + 1] - edges[j])`` of every bin, also where the width itself passes
    the largest float (edges near -1.8e308 and +1.8e308): there the width's halves are
    taken, ``log(hi / 2 - lo / 2) + log 2``."""
    lo, hi = edges[:-1], edges[1:]
    with np.errstate(over="ignore"):
        width = hi - lo
    wide = np.isinf(width)
    if wide.any():
        width = np.where(wide, hi / 2 - lo / 2, width)
    return np.log(width) + np.where(wide, np.log(2.0), 0.0)


def _uniform_within(lo: np.ndarray, hi: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Points ``lo + (hi - lo) u`` for ``u`` in [0, 1), each within ``[lo, hi)``: written
    ``lo (1 - u) + hi u`` where the width passes the largest float, and kept below ``hi``
    where rounding would put it on the next bin's edge."""
    with np.errstate(over="ignore", invalid="ignore"):
        width = hi - lo
        out = lo + width * u
    wide = np.isinf(width)
    if wide.any():
        out = np.where(wide, lo * (1.0 - u) + hi * u, out)
    return np.clip(out, lo, np.nextafter(hi, lo))


def _checked_edges(edges, what: str) -> np.ndarray:
    """``edges`` as a float array: at least two finite, strictly increasing numbers."""
    try:
        arr = np.asarray(edges, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if (
        arr is None
        or arr.ndim != 1
        or len(arr) < 2
        or not np.all(np.isfinite(arr))
        or np.any(arr[1:] <= arr[:-1])  # no difference taken: it may pass the largest float
    ):
        shown = arr.tolist() if arr is not None else edges
        raise InputError(
            f"{what} must be at least two finite, strictly increasing numbers; got {shown!r}."
        )
    return arr


def _check_bins(bins, n_bins) -> None:
    """Raise an :class:`InputError` naming ``bins`` or ``n_bins`` unless they declare a
    rule Binned can learn edges by."""
    if isinstance(bins, int | np.integer) and not isinstance(bins, bool):
        if bins < 1:
            raise InputError(
                f"Binned bins must be a positive number of bins (or a rule name); got "
                f"bins={bins!r}. Pass e.g. bins=10."
            )
    elif isinstance(bins, str) and (bins in BIN_RULES or bins == "quantile"):
        pass
    else:
        raise InputError(
            f"Binned bins must be a positive int, 'quantile' or one of numpy's rules "
            f"{list(BIN_RULES)!r}; got bins={bins!r}."
        )
    if bins == "quantile":
        if not isinstance(n_bins, int | np.integer) or isinstance(n_bins, bool) or n_bins < 1:
            raise InputError(
                f"Binned bins='quantile' needs n_bins, a positive number of bins; got "
                f"n_bins={n_bins!r}. Pass e.g. Binned(bins='quantile', n_bins=10)."
            )
    elif n_bins is not None:
        raise InputError(
            f"Binned n_bins={n_bins!r} is the number of quantile bins, which only "
            f"bins='quantile' uses; got bins={bins!r}. Leave n_bins out, or pass bins=<int>."
        )


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

    Examples
    --------
    Word counts of four messages. The spam messages hold 5, 1 and 0 + 1 of the three
    words (7 in all), so Laplace's estimate is (5 + 1)/10, (1 + 1)/10, (1 + 1)/10.

    >>> import pandas as pd
    >>> import bayesnb as bnb
    >>> counts = pd.DataFrame(
    ...     {"free": [3, 2, 0, 1], "win": [1, 0, 0, 0], "meeting": [0, 1, 2, 3]}
    ... )
    >>> model = bnb.NaiveBayes({"words": bnb.Multinomial(columns=["free", "win", "meeting"])})
    >>> fit = model.fit(counts, ["spam", "spam", "ham", "ham"], estimate="mean")
    >>> fit.params["words"].sel(class_label="spam").values
    array([0.6, 0.2, 0.2])
    >>> fit.predict(pd.DataFrame({"free": [2], "win": [1], "meeting": [0]}))
    array(['spam'], dtype=object)
    """

    kind = "multinomial"
    multi_column = True
    columns_together = True  # word counts: one document per row, not one feature per word

    def output_names(self, name: str, columns: list) -> list[str]:
        """``<name>`` over ``<name>_category``, the columns (words) being categories."""
        return [name, f"{name}_category"]

    def __init__(self, prior=None, *, estimate=None, columns=None):
        super().__init__(
            Dirichlet(1.0) if prior is None else prior, estimate=estimate, columns=columns
        )
        if not isinstance(self.prior, Dirichlet):
            raise InputTypeError(f"Multinomial prior must be a Dirichlet; got {self.prior!r}.")

    def _lead_dims(self, label_dim):
        return (label_dim,)

    def _coords(self):
        return {}

    def category_labels(self) -> list:
        return list(self.columns)

    def n_free_parameters(self, n_labels: int) -> int:
        return n_labels * (self.n_columns - 1)

    def attribute_names(self) -> list:
        return [self.name]  # the block's columns are one distribution over the words

    def _attribute_starts(self) -> np.ndarray:
        return np.zeros(1, dtype=np.intp)

    def describe(self, params: dict, reference: dict) -> dict:
        """The word most over-represented in each component."""
        logp, logq = params["log_prob"], reference["log_prob"][0]
        with np.errstate(invalid="ignore"):  # a word of probability 0 everywhere: NaN
            ratio = logp - logq
        top = np.where(np.isnan(ratio), -np.inf, ratio).argmax(axis=1)
        p, q = np.exp(logp), np.exp(logq)
        return {
            self.name: [
                f"{self.columns[t]}: {p[k, t]:.3g} (all: {q[t]:.3g})" for k, t in enumerate(top)
            ]
        }

    def encode(self, data):
        """The counts: a checked dense float array, or a CSR matrix whose entries are
        checked where they are first read (:class:`_Unchecked`)."""
        if sparse.issparse(data):
            return _Unchecked(sparse.csr_array(data, dtype=float))
        x = _as_float_matrix(data, f"Multinomial block {self.name!r}", self.columns).astype(float)
        if x.size and not _finite_nonnegative(x):
            self._bad_counts(x)
        return x

    def _bad_counts(self, x):
        """Raise, naming the first entry of the counts ``x`` (dense, or CSR) that is
        NaN, infinite or negative: its row, column and value."""
        if sparse.issparse(x):
            at = int(np.flatnonzero(~(np.isfinite(x.data) & (x.data >= 0)))[0])
            row = int(np.searchsorted(x.indptr, at, side="right")) - 1
            col, value = int(x.indices[at]), x.data[at]
        else:
            row, col = (int(v) for v in np.argwhere(~(np.isfinite(x) & (x >= 0)))[0])
            value = x[row, col]
        raise InputError(
            f"Multinomial block {self.name!r} needs finite non-negative counts with no "
            "missing value (a missing count cannot be marginalized without the "
            f"document length); got {float(value)!r} at row {row}, column "
            f"{self.columns[col]!r}. Fill or drop those rows."
        )

    def _checked(self, enc):
        """The count matrix of ``enc``, its entries checked."""
        if not isinstance(enc, _Unchecked):
            return enc
        x = enc.values
        if x.nnz and not _finite_nonnegative(x.data):
            self._bad_counts(x)
        return x

    def encode_repeated(self, data):
        return self._checked(self.encode(data))

    def seed_features(self, data):
        """Every row's counts as proportions of its total (an empty row all 0)."""
        x = self._checked(self.encode(data))
        totals = np.asarray(x.sum(axis=1)).ravel()
        scale = 1.0 / np.where(totals > 0, totals, 1.0)
        if sparse.issparse(x):
            return sparse.csr_array(sparse.diags_array(scale) @ x)
        return x * scale[:, None]

    def count(self, enc, resp) -> dict:
        if isinstance(enc, _Unchecked) and isinstance(resp, Labels):
            x = enc.values
            counts = np.zeros((resp.n_labels, x.shape[1]))
            bad = _compiled.csr_label_counts(
                x.indptr,
                _unsigned(x.indices),
                x.data,
                resp.codes,
                resp.weights,
                counts,
            )
            if bad:
                self._bad_counts(x)
            return self._finite_sums(counts, x)
        x = self._checked(enc)
        with np.errstate(over="ignore", invalid="ignore"):  # (sums checked below)
            counts = _column_sums(x, dense(resp))
        return self._finite_sums(counts, x)

    def _finite_sums(self, counts, x) -> dict:
        """``{"counts": counts}`` once every class's sums are finite; else an error
        naming the column whose counts (in ``x``) sum beyond the largest float."""
        bad = ~np.isfinite(counts)
        if bad.any():
            col = int(np.argwhere(bad)[0][1])
            big = x[:, [col]].max() if sparse.issparse(x) else np.max(x[:, col])
            raise InputError(
                f"Multinomial block {self.name!r} has counts as large as {float(big):.3g} "
                f"in column {self.columns[col]!r}, which sum beyond the largest float "
                "(about 1.8e308) within a class, so its word probabilities cannot be "
                "estimated. Rescale the counts (e.g. divide the block by a power of ten) "
                "before fitting."
            )
        return {"counts": counts}

    def estimate_params(self, stats, method, *, labels=None):
        params = super().estimate_params(stats, method, labels=labels)
        if method == "predictive":
            counts = stats["counts"]
            params["concentration"] = counts + self._alpha(counts.shape[0], counts.shape[1:])
        return params

    def em_kernel(self, data, method: str, n_components: int):
        """The counts as CSR rows (a dense block converted) and the Dirichlet terms of
        ``method`` over the words: the compiled EM loop's part
        (:class:`bayesnb._em_loop.CountsKernel`)."""
        from bayesnb import _em_loop

        counts = sparse.csr_array(self._checked(self.encode(data)), dtype=float)
        shape = (n_components, self.n_columns)
        add, coef, const = self._dirichlet_terms(shape, method, (self.n_columns,))
        return _em_loop.CountsKernel(counts, add, coef, const, shape)

    def _dot(self, enc, logp, out) -> np.ndarray:
        """Add ``counts @ logp.T`` to ``out`` (n, K) and return it. A CSR matrix not yet
        checked, with at most :data:`_FUSED_ROWS` rows of finite log-probabilities (the
        usual prediction), is checked and multiplied in one compiled read; otherwise
        the counts are checked first and scipy's product, guarded against
        ``0 * -inf``, does the rest."""
        if isinstance(enc, _Unchecked) and len(logp) <= _FUSED_ROWS and np.isfinite(logp).all():
            x = enc.values
            table = np.ascontiguousarray(logp.T)
            if _compiled.csr_scores(x.indptr, _unsigned(x.indices), x.data, table, out):
                self._bad_counts(x)
            return out
        out += _guarded_dot(self._checked(enc), logp)
        return out

    def log_likelihood(self, enc, params) -> np.ndarray:
        if "concentration" not in params:
            logp = params["log_prob"]
            return self._dot(enc, logp, np.zeros((_n_rows(enc), len(logp))))
        # the Dirichlet-multinomial of every row (without its coefficient), exact also
        # when one word holds nearly all of a long document's count
        return log_dirichlet_evidence_rows(params["concentration"], self._checked(enc))

    def flat_size(self) -> int:
        return self.n_columns

    def design(self, data) -> tuple[np.ndarray, np.ndarray]:
        """Every row's non-zero counts, with their columns, padded to the longest row."""
        x = sparse.csr_array(self._checked(self.encode(data)), copy=True)
        x.sum_duplicates()
        x.eliminate_zeros()
        lengths = np.diff(x.indptr)
        width = max(1, int(lengths.max(initial=0)))
        index = np.full((x.shape[0], width), self.flat_size(), dtype=np.intp)
        value = np.zeros((x.shape[0], width))
        rows = np.repeat(np.arange(x.shape[0]), lengths)
        place = np.arange(x.nnz) - np.repeat(x.indptr[:-1], lengths)
        index[rows, place] = x.indices
        value[rows, place] = x.data
        return index, value

    def row_dims(self) -> dict:
        return {f"{self.name}_category": list(self.columns)}

    def observed_codes(self, data) -> np.ndarray:
        """The counts, dense."""
        x = self._checked(self.encode(data))
        return np.asarray(x.toarray() if sparse.issparse(x) else x, dtype=float)

    def sample_codes(self, params, components, rng, observed=None, rows=None) -> np.ndarray:
        """Counts of documents as long as the training rows ``rows`` of ``observed``."""
        lengths = observed.sum(axis=1)
        if not np.array_equal(lengths, np.round(lengths)):
            raise InputError(
                f"drawing documents for the Multinomial block {self.name!r} needs whole "
                "counts (a document's length is a number of words); the training rows hold "
                "fractional counts. Ask for the posterior without the data groups "
                "(data=False)."
            )
        prob = np.exp(params["log_prob"])[components]
        prob /= prob.sum(axis=1, keepdims=True)
        return rng.multinomial(lengths.astype(np.int64)[rows], prob)

    def sample(self, params, components, rng):
        raise TypeError(
            f"sampling the Multinomial block {self.name!r} needs document lengths, which "
            "the model does not describe. Sample the other features, or draw tokens "
            f"from params[{self.name!r}] with lengths of your own."
        )

    def posterior_scores(self, enc, params) -> np.ndarray:
        """The log-likelihood less that of the first class, (n, K): ``K - 1`` products
        with the differences of the log-probabilities instead of ``K`` (one for two
        classes). Falls back to :meth:`log_likelihood` when a probability is 0 (a
        difference of ``-inf``) or under the predictive estimate."""
        logp = params["log_prob"]
        if "concentration" in params or len(logp) < 2 or not np.isfinite(logp).all():
            return self.log_likelihood(enc, params)
        out = np.zeros((_n_rows(enc), len(logp)))
        self._dot(enc, logp[1:] - logp[0], out[:, 1:])
        return out


# ----------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------


#: What a Categorical feature does with a value outside its categories at prediction.
UNSEEN_POLICIES = ("marginalize", "error", "predictive")

#: The label of the cell every unseen value falls in under ``unseen="predictive"``.
NEW_CATEGORY = "<new>"


def _checked_alpha_new(alpha_new, unseen: str) -> float | None:
    """``alpha_new`` as a float (1.0 when not given) under ``unseen="predictive"``,
    None otherwise; an :class:`InputError` naming ``alpha_new`` when it is not a
    finite positive number or is given with another policy."""
    if unseen != "predictive":
        if alpha_new is not None:
            raise InputError(
                f"Categorical alpha_new={alpha_new!r} is the concentration of the cell of "
                f"unseen values, which only unseen='predictive' has; got unseen={unseen!r}. "
                "Pass unseen='predictive', or leave alpha_new out."
            )
        return None
    if alpha_new is None:
        return 1.0
    try:
        value = float(alpha_new)
    except (TypeError, ValueError):
        value = None
    if isinstance(alpha_new, bool) or value is None or not np.isfinite(value) or value <= 0:
        raise InputError(
            f"Categorical alpha_new must be a finite number > 0 (the concentration of the "
            f"cell of unseen values); got {alpha_new!r}. Pass e.g. alpha_new=1.0."
        )
    return value


def _predictive_estimate_error(method: str, what: str):
    raise InputError(
        f"{what} has unseen='predictive', whose '<new>' cell has no count: estimate="
        f"{method!r} would give it probability 0 (ml) or a mode that depends on "
        "alpha_new - 1 (map). Use estimate='mean' or 'predictive', or another `unseen`."
    )


def _check_new_label(categories: list, where: str) -> None:
    """Raise when ``"<new>"`` is itself one of ``categories`` (it labels the cell of
    unseen values under ``unseen="predictive"``)."""
    if any(isinstance(c, str) and c == NEW_CATEGORY for c in categories):
        raise InputError(
            f"Categorical {where} holds the value {NEW_CATEGORY!r}, which labels the cell "
            "of unseen values under unseen='predictive'. Recode that value."
        )


def _declared_categories(categories) -> list:
    """The ``categories`` of a Categorical declaration as a list: distinct, hashable
    values, none of them missing (an :class:`InputError` or :class:`InputTypeError`
    naming ``categories`` otherwise)."""
    out = declared_list(categories, "categories", "Categorical")
    try:
        missing = [v for v in out if np.ndim(v) == 0 and pd.isna(v)]
        distinct = len(set(out)) == len(out)
    except TypeError:
        bad = next(v for v in out if not isinstance(v, Hashable))
        raise InputTypeError(
            f"Categorical categories must be hashable values (str, numbers, tuples, ...); "
            f"got {bad!r} ({type(bad).__name__}). Convert them, e.g. to tuples or str."
        ) from None
    if missing:
        raise InputError(
            f"Categorical categories {out[:10]!r} hold the missing value {missing[0]!r}; a "
            "missing value is marginalized, never a category. Leave it out of `categories`."
        )
    if not distinct:
        twice = [v for i, v in enumerate(out) if v in out[:i]]
        raise InputError(
            f"Categorical categories must be distinct; got {twice[:5]!r} more than once in "
            f"{out[:10]!r}. List every category once."
        )
    return out


@functools.lru_cache(maxsize=256)
def _category_index(categories: tuple) -> pd.Index:
    """``categories`` as a pandas Index, made once for each list of categories."""
    return pd.Index(list(categories), dtype=object, tupleize_cols=False)


def _observed_categories(data, columns: list) -> list[list]:
    """The sorted values seen in every column (a pandas categorical: its categories).

    Values of types that cannot be ordered together (strings and numbers) raise an
    :class:`InputError` naming the column.
    """
    if isinstance(data, pd.Series):
        data = data.to_frame()
    if isinstance(data, pd.DataFrame):
        # a categorical's categories are its dtype's: no column is read for them
        return [
            list(dtype.categories)
            if isinstance(dtype, pd.CategoricalDtype)
            else _distinct_values(data.iloc[:, j], columns[j])
            for j, dtype in enumerate(data.dtypes)
        ]
    arr = _as_2d(data)
    if arr.dtype.kind in "iu" and arr.size:
        return _integer_categories(arr)
    if arr.dtype.kind == "f" and arr.size:
        whole = _whole_number_categories(arr)
        if whole is not None:
            return whole
    return [_distinct_values(pd.Series(arr[:, j]), columns[j]) for j in range(len(columns))]


def _distinct_values(col: pd.Series, column) -> list:
    """The sorted distinct observed values of ``col`` (named ``column`` in errors)."""
    try:
        distinct = pd.unique(col.dropna())
        # datetimes and durations as pandas' scalars: NumPy's tolist turns a
        # nanosecond datetime64 into an integer, which no value of the column equals
        values = pd.Index(distinct).tolist() if distinct.dtype.kind in "mM" else distinct.tolist()
    except TypeError:  # unhashable entries (lists, dicts, sets)
        bad = next(v for v in col if not isinstance(v, Hashable))
        raise InputTypeError(
            f"column {column!r} holds the value {bad!r} of type {type(bad).__name__}, which "
            "cannot be a category (it is not hashable). Convert the column's entries to "
            "str, numbers or tuples, e.g. X[col].map(tuple), or drop the column."
        ) from None
    return _sorted_values(values, [column])


def _value_kind(value) -> str:
    """The kind of a category value: "text", "bytes", "Boolean", "number", "date/time"
    or "duration" (of any of their Python, NumPy or pandas types); another type's
    name."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, bool | np.bool_):
        return "Boolean"
    if isinstance(value, datetime.datetime | datetime.date | np.datetime64):
        return "date/time"
    if isinstance(value, datetime.timedelta | np.timedelta64):
        return "duration"
    if isinstance(value, int | float | np.number):
        return "number"
    return type(value).__name__


def _sorted_values(values: list, columns: list) -> list:
    """``values`` sorted; an :class:`InputError` naming ``columns`` when their types
    cannot be ordered together (e.g. strings and numbers in one column)."""
    try:
        return sorted(values)
    except TypeError:
        types = sorted({type(v).__name__ for v in values})
        examples = [next(_plain(v) for v in values if type(v).__name__ == t) for t in types]
        where = f"column {columns[0]!r}" if len(columns) == 1 else f"columns {columns[:5]!r}"
        held = (
            f"holds values of type {types[0]} (e.g. {examples!r}), which have no order, so "
            "they cannot be sorted into categories. Convert them, e.g. X[col].astype(str)"
            if len(types) == 1
            else f"mixes values of the types {types} (e.g. {examples!r}), which cannot be "
            "ordered into categories. Convert the column to one type, e.g. "
            "X[col].astype(str)"
        )
        raise InputError(f"{where} {held}.") from None


def _group_table_entries(sizes: tuple[int, ...], n_classes: int) -> int:
    """Entries of the tables of summed log-probabilities a group lookup builds."""
    return _layout(sizes).n_codes * n_classes


def _probabilities(params: dict) -> np.ndarray:
    """The probabilities a discrete family exports: ``params["prob"]`` when given (an
    interval's ends), else ``exp(params["log_prob"])``."""
    return params["prob"] if "prob" in params else np.exp(params["log_prob"])


#: Values below which the categories of an integer block are marked in one read.
_MARKED_VALUES = 256


def _integer_categories(x: np.ndarray) -> list[list[int]]:
    """The sorted distinct values of every column of a non-empty integer matrix.

    Codes ``0..255`` (the common case) are marked in one compiled read. Otherwise read
    by blocks of rows: the columns' ranges first, then the values seen, marked in one
    table over the ranges (or sorted column by column when the ranges are too wide
    for a table).
    """
    n, d = x.shape
    seen = np.zeros((d, _MARKED_VALUES), dtype=bool)
    if _compiled.mark_values(_signed(x), seen) == 0:
        return [np.flatnonzero(column).tolist() for column in seen]
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


def _is_whole_run(categories: list) -> bool:
    """Whether ``categories`` are floats ``c0, c0 + 1, ...`` with ``c0`` a whole number
    (within 2^53, where every whole number is a float)."""
    if not categories or not isinstance(categories[0], float | np.floating):
        return False
    first = categories[0]
    return (
        first == np.floor(first)
        and abs(first) + len(categories) < 2.0**53
        and all(
            isinstance(c, float | np.floating) and c == first + i for i, c in enumerate(categories)
        )
    )


def _whole_number_categories(x: np.ndarray) -> list[list[float]] | None:
    """The sorted distinct values of every column of a float matrix whose observed
    values are all whole numbers (within 2^53) and which has some in every column, as
    floats; else None. Read as integers (:func:`_integer_categories`), each missing
    value standing in for its column's first observed one, so it adds no category."""
    missing = np.isnan(x)
    observed = ~missing
    if not observed.any(axis=0).all():
        return None
    values = x[observed]
    if not (np.all(np.abs(values) < 2.0**53) and np.all(values == np.floor(values))):
        return None
    if missing.any():
        first = x[observed.argmax(axis=0), np.arange(x.shape[1])]
        x = np.where(missing, first, x)
    return [[float(v) for v in column] for column in _integer_categories(x.astype(np.int64))]
