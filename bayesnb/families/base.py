"""The base class of every feature family."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterable

import numpy as np
import xarray as xr

from bayesnb.errors import InputError, InputTypeError
from bayesnb.priors import check_estimate


def declared_list(value, what: str, family: str, example: str | None = None) -> list:
    """``value`` (a declaration's ``columns``, ``categories`` or ``values``) as a list.

    A string is one name, not a sequence of its characters, and a scalar is not a
    list: both raise an :class:`~bayesnb.errors.InputTypeError` naming ``what``
    (``example`` shows a right value in the message). A set, which has no order of
    its own, is sorted.
    """
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise InputTypeError(
            f"{family} {what} must be a list; got {value!r} ({type(value).__name__}). Give "
            f"a list, e.g. {what}={example or f'[{value!r}]'}."
        )
    if isinstance(value, set | frozenset):
        try:
            return sorted(value)
        except TypeError:
            pass
    return list(value)


class Family:
    """Base class of the feature families. Subclasses set ``kind`` and the kernel."""

    kind = "family"
    multi_column = False
    #: Whether the M-step may step from the current parameters (generalized EM) rather
    #: than maximize: ``estimate_params`` then takes ``current``.
    generalized = False
    #: EM's estimator of this family when none is given (see :meth:`check_em_estimate`).
    em_estimate = "mean"

    def check_em_estimate(self, method: str) -> None:
        """Raise an :class:`~bayesnb.errors.InputError` unless EM's M-step can use
        ``method`` for this family: an estimator that maximizes the objective. ``"ml"``
        and ``"map"`` do; ``"mean"`` does where the posterior mean is the mode under the
        prior with every concentration raised by one (a Dirichlet's)."""
        if method not in ("ml", "map", "mean"):
            raise InputError(
                f"feature {self.name!r} declares estimate={method!r}; EM needs 'ml', 'map' "
                "or (for discrete features) 'mean', the estimators that maximize what "
                "the objective measures. Use estimate='map' or leave it unset."
            )

    def __init__(self, prior=None, *, estimate: str | None = None, columns=None):
        if estimate is not None:
            check_estimate(estimate)
        self.prior = prior
        self.estimate = estimate
        self.columns = (
            None if columns is None else declared_list(columns, "columns", type(self).__name__)
        )
        if self.columns is not None and not self.multi_column and len(self.columns) != 1:
            raise InputError(
                f"{type(self).__name__} describes one column; got columns={self.columns!r}. "
                "Declare one entry per column in `features`."
            )
        self.name: str | None = None

    def __copy__(self) -> Family:
        """A shallow copy (binding makes one per column, so it is kept cheap)."""
        out = object.__new__(type(self))
        out.__dict__.update(self.__dict__)
        return out

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
        bound.columns = columns if isinstance(columns, list) else list(columns)
        bound._learn(data, sample_weight)
        return bound

    def _learn(self, data, sample_weight=None) -> None:  # pragma: no cover - overridden
        pass

    def bind_each(
        self, columns: list, data, sample_weight=None, *, counted: bool = False
    ) -> list[Family] | None:
        """This declaration bound to each of ``columns`` as its own feature (named by
        its column), from ``data`` holding them all: the blocks :meth:`bind` gives
        column by column, learnt in one pass over the block. None when this family
        cannot (:meth:`_column_block`), or when the block raised or warned: the caller
        then binds column by column, whose messages name their own feature."""
        if not self.multi_column or not self._binds_each(data):
            return None
        block = _quietly(
            lambda: self.bind(
                columns[0], columns, data, sample_weight=sample_weight, counted=counted
            )
        )
        if block is None:
            return None
        return [block._column_block(j) for j in range(len(columns))]

    def _binds_each(self, data) -> bool:
        """Whether :meth:`bind_each` may bind ``data``'s columns at once (no by default)."""
        return False

    def _column_block(self, j: int) -> Family:
        """Column ``j`` of this bound block as a feature of its own, named by it (a
        family adds the state it keeps per column)."""
        out = copy.copy(self)
        out.name = str(self.columns[j])
        out.columns = [self.columns[j]]
        return out

    def em_kernel(self, data, method: str, n_components: int):
        """This block's part of the compiled EM loop (:mod:`bayesnb._em_loop`), from
        its columns ``data`` (checked: :meth:`encode_repeated` has read them) under the
        estimator ``method``:
        a :class:`~bayesnb._em_loop.DiscreteKernel` or
        :class:`~bayesnb._em_loop.GaussianKernel`. None (the default): the family has
        no compiled pieces for this encoding or estimator, and EM runs in Python."""
        return None

    def params_from(self, source, K: int) -> dict:  # pragma: no cover - overridden
        """This block's internal parameters from ``source``: parameters in the layout of
        :meth:`to_xarray` with a ``component`` axis of ``K`` entries (an
        ``xarray.Dataset`` or a dict), checked; EM starts from them."""
        raise NotImplementedError

    # -- fused groups (see fusion_groups) ---------------------------------------------------
    def fusion_key(self):
        """A hashable key shared by the single-column features that can be processed
        as one block, wherever they stand (:func:`fusion_groups`); None: this one
        cannot."""
        return None

    def fused(self, blocks) -> Family:  # pragma: no cover - with fusion_key
        """One block over the columns of ``blocks`` (this one first, equal keys)."""
        raise NotImplementedError

    def adopt(self, fused: Family, j: int) -> None:
        """Take what estimating the ``fused`` block (of which this block is column ``j``)
        resolved, as estimating this block alone would have (nothing by default)."""

    def split(self, values: dict, blocks) -> list[dict]:
        """Statistics or parameters of this fused block, one dict per block: by default
        column ``j`` of the second axis (classes first, then columns)."""
        return [{k: v[:, j : j + 1] for k, v in values.items()} for j in range(len(blocks))]

    def join(self, values: list) -> dict:
        """The inverse of :meth:`split`: one dict per block joined for this fused one."""
        return {k: np.concatenate([v[k] for v in values], axis=1) for k in values[0]}

    def encode_repeated(self, data):
        """The encoding of ``data`` for a caller that reads it many times (EM's sweeps):
        a family may spend more here to make each later ``count`` and
        ``log_likelihood`` cheaper. By default :meth:`encode`."""
        return self.encode(data)

    def seed_features(self, data):  # pragma: no cover - overridden by every family
        """The rows of ``data`` (this block's columns) as numbers (n, p), dense or CSR,
        for k-means to start a mixture from (:meth:`bayesnb.NaiveBayes.cluster`'s
        ``init="kmeans"``): two rows that differ in one value are about 1 apart."""
        raise NotImplementedError

    # -- cluster reports (see bayesnb.cluster_reports) --------------------------------------
    def attribute_names(self) -> list:
        """The attributes a cluster report describes: one per column by default."""
        return list(self.columns)

    def divergence(self, params: dict, reference: dict) -> np.ndarray:
        """(K, attributes): the Kullback-Leibler divergence, in nats, of every
        component's distribution of every attribute from ``reference``'s (the
        parameters of one component holding every row)."""
        raise NotImplementedError(f"{type(self).__name__} has no divergence")

    def describe(self, params: dict, reference: dict) -> dict:
        """``{attribute: [text per component]}``: a component's most telling value (or
        mean) against ``reference``'s."""
        raise NotImplementedError(f"{type(self).__name__} has no description")

    def value_domains(self) -> list[list] | None:
        """The raw values every column takes, when they are finitely many (so rows
        fall into a finite set of patterns); None for continuous or unbounded data."""
        return None

    def log_marginal(self, stats: dict, n_labels: int) -> float:
        """``log p(data)`` of complete-data statistics ``stats`` (one entry per class
        or component) with the parameters integrated out under the prior: the
        conjugate marginal likelihood (a Dirichlet-multinomial for counts, the
        Normal-Inverse-Gamma marginal for Gaussians)."""
        raise NotImplementedError(f"{type(self).__name__} has no marginal likelihood")

    def complete_log_likelihood(self, stats: dict, params: dict) -> float:
        """``log p(data | params)`` of complete-data statistics ``stats``, leaving out
        the constant :meth:`log_marginal` and :meth:`log_likelihood` leave out too (a
        Multinomial's multinomial coefficient)."""
        raise NotImplementedError(f"{type(self).__name__} has no complete-data likelihood")

    # -- the exact conjugate posterior (see bayesnb.posterior) ------------------------------
    def posterior_hyper(self, stats: dict) -> dict:
        """The hyperparameters of the exact conjugate posterior of this block's
        parameters given complete-data ``stats`` (one entry per class), in the layout
        of the statistics; zero statistics give the prior's own."""
        raise NotImplementedError(f"{type(self).__name__} has no conjugate posterior")

    def draw_params(self, hyper: dict, size: int, rng) -> dict:
        """``size`` independent draws of the parameters from the distribution with
        hyperparameters ``hyper`` (:meth:`posterior_hyper`), as one set of parameters
        whose class axis holds ``size * K`` entries, draw-major (entry ``s * K + k`` is
        class ``k`` of draw ``s``): every kernel then scores all the draws at once."""
        raise NotImplementedError(f"{type(self).__name__} has no conjugate posterior")

    def marginals(self, hyper: dict) -> dict:
        """The exact marginal distribution of every parameter under ``hyper``, one
        elementwise object per key of the values :meth:`to_xarray` exports (see
        :mod:`bayesnb.marginals`)."""
        raise NotImplementedError(f"{type(self).__name__} has no conjugate posterior")

    def row_dims(self) -> dict:
        """``{dim: coords}`` of one row's values of this block after the row axis: none
        for a single column, the columns for a block (see :meth:`observed_codes`)."""
        return {self._feature_dim(): list(self.columns)} if self.n_columns > 1 else {}

    def observed_codes(self, data) -> np.ndarray:
        """The block's values (n, columns) as numbers, in the coding of
        :meth:`sample_codes` (NaN where a value is missing): what the exact posterior's
        ``observed_data`` group holds."""
        raise NotImplementedError(f"{type(self).__name__} has no coded values")

    def sample_codes(self, params: dict, components, rng, observed=None, rows=None):
        """Draws (len(components), columns) of the block given each entry's class (an
        index into the class axis of ``params``), coded as :meth:`observed_codes`.
        ``observed`` (that coding of the training rows) and ``rows`` (the training row
        of every draw) serve a family whose draws depend on the row (a document's
        length)."""
        raise NotImplementedError(f"{type(self).__name__} has no coded values")

    def posterior_scores(self, enc, params: dict):
        """``log_likelihood(enc, params)`` up to a constant of every row (n, K): all
        that the posterior over the classes depends on, which a family may compute
        with less work. By default the log-likelihood itself."""
        return self.log_likelihood(enc, params)

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

    def _columns_to_xarray(self, params: dict, stats: dict | None, label_dim, labels) -> dict:
        """``{"params", "counts"}`` of entries laid out (classes, columns), each a
        DataArray named ``{name}_{key}`` over the label and feature dims (the label
        alone for a single column)."""
        dims = self._lead_dims(label_dim)
        coords = {label_dim: labels, **self._coords()}
        if self.n_columns == 1:
            dims, coords = (label_dim,), {label_dim: labels}

        def array(value):
            value = np.asarray(value)
            return xr.DataArray(
                value if self.n_columns > 1 else value[:, 0], dims=dims, coords=coords
            )

        return {
            "params": {f"{self.name}_{k}": array(v) for k, v in params.items()},
            "counts": {f"{self.name}_{k}": array(v) for k, v in (stats or {}).items()},
        }

    # -- sequential updating (see bayesnb.NaiveBayesFit.update) ---------------------------
    def merge_stats(self, a: dict, b: dict) -> dict:
        """The statistics of two disjoint batches of rows taken together: ``a`` and
        ``b`` as :meth:`count` returns them (same shapes), merged into new arrays."""
        raise NotImplementedError(f"{type(self).__name__} cannot merge statistics")

    # -- defaults learnt from the pooled rows (read in parts, e.g. Dask partitions) ----
    def needs_pooled(self, counted: bool) -> bool:
        """Whether :meth:`bind` learns a default from the pooled rows' statistics
        (``counted``: as in :meth:`bind`). No by default."""
        return False

    def pooled_stats(self, data, weights: np.ndarray) -> dict:
        """The statistics of ``data``'s rows as one class, each row of weight
        ``weights``; those of separate rows merge by
        :func:`bayesnb.sufficient.merge_stats`."""
        raise NotImplementedError(f"{type(self).__name__} learns nothing from pooled rows")

    def adopt_pooled(self, stats: dict) -> None:
        """Set the defaults from the pooled statistics of every training row."""
        raise NotImplementedError(f"{type(self).__name__} learns nothing from pooled rows")

    def check_update(self, data) -> None:
        """Raise an :class:`~bayesnb.errors.InputError` when a later batch ``data`` (this
        bound block's columns) holds a value the block cannot count without dropping
        it. Nothing by default: most families' encodings already raise on such a value
        (a Bernoulli's two values, a Binned feature's edges)."""


# ----------------------------------------------------------------------------------------
# Fused groups: single-column features processed as one block
# ----------------------------------------------------------------------------------------
#
# A DataFrame declared (or inferred) one feature per column has one block per column, and
# a block costs a few Python calls however small it is. Blocks whose family says they
# fuse (equal :meth:`Family.fusion_key`, wherever they stand among the columns) are
# counted, estimated and scored as one block over all their columns; the results are
# split back into one block each, so the blocks, their statistics and parameters (and so
# ``params``/``counts``) are exactly those of one feature per column. Whenever the fused
# call raises or warns, the group is done block by block instead, so every message names
# its own feature.


def fusion_groups(blocks) -> list[list[int]]:
    """The positions of every group of blocks with the same (not None)
    :meth:`Family.fusion_key`, in order of their first block; a block that fuses with
    nothing is a group alone."""
    groups: list[list[int]] = []
    by_key: dict = {}
    for i, block in enumerate(blocks):
        key = block.fusion_key()
        if key is None:
            groups.append([i])
        elif key in by_key:
            by_key[key].append(i)
        else:
            by_key[key] = [i]
            groups.append(by_key[key])
    return groups


def _quietly(call):
    """``call()``, or None when it raised a ValueError or TypeError or warned (the caller
    then goes block by block, whose messages name the feature)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = call()
        except (ValueError, TypeError):
            return None
    return None if caught else out


def count_blocks(blocks, table, resp) -> list[dict]:
    """``block.count(block.encode(columns), resp)`` of every block, groups fused."""
    stats: list = [None] * len(blocks)
    for index in fusion_groups(blocks):
        group = [blocks[i] for i in index]
        out = None
        if len(group) > 1:
            fused = group[0].fused(group)
            out = _quietly(lambda f=fused: f.count(f.encode(table.take(f.columns)), resp))
        parts = (
            fused.split(out, group)
            if out is not None
            else [b.count(b.encode(table.take(b.columns)), resp) for b in group]
        )
        for i, part in zip(index, parts, strict=True):
            stats[i] = part
    return stats


def estimate_blocks(blocks, stats, methods: dict, labels=None, current=None) -> list[dict]:
    """``block.estimate_params(stats, methods[block.name])`` of every block, groups fused
    where their estimators agree; ``labels`` names the classes in error messages, and a
    ``generalized`` block (an M-step without a closed form) gets its parameters in
    ``current`` (one dict per block, or None) to step from."""
    params: list = [None] * len(blocks)
    for index in fusion_groups(blocks):
        group = [blocks[i] for i in index]
        method = methods[group[0].name]
        out = None
        if len(group) > 1 and all(methods[b.name] == method for b in group):
            fused = group[0].fused(group)
            joined = fused.join([stats[i] for i in index])
            out = _quietly(lambda f=fused, st=joined, m=method: f.estimate_params(st, m))
        if out is not None:
            parts = fused.split(out, group)
            for j, block in enumerate(group):
                block.adopt(fused, j)
        else:
            parts = [
                blocks[i].estimate_params(
                    stats[i],
                    methods[blocks[i].name],
                    labels=labels,
                    **({"current": current[i]} if current and blocks[i].generalized else {}),
                )
                for i in index
            ]
        for i, part in zip(index, parts, strict=True):
            params[i] = part
    return params


class FusedScorer:
    """The log-likelihood of rows under every block of a fitted model, runs fused: the
    fused blocks and their joined parameters are made once per fitted model."""

    def __init__(self, blocks, block_params):
        self.blocks, self.block_params = blocks, block_params
        self.groups = []
        for index in fusion_groups(blocks):
            if len(index) > 1:
                fused = blocks[index[0]].fused([blocks[i] for i in index])
                joined = fused.join([block_params[i] for i in index])
                self.groups.append((index, fused, joined))
            else:
                self.groups.append((index, None, None))

    def scores(self, table, *, posterior: bool = False) -> np.ndarray:
        """``sum_i log p(x_i | c)``, (n, K) (up to a constant of every row when
        ``posterior``, see :meth:`Family.posterior_scores`)."""

        def score(block, params):
            enc = block.encode(table.take(block.columns))
            if posterior:
                return block.posterior_scores(enc, params)
            return block.log_likelihood(enc, params)

        jll = None
        for index, fused, joined in self.groups:
            term = None if fused is None else _quietly(lambda f=fused, p=joined: score(f, p))
            terms = (
                [term]
                if term is not None
                else [score(self.blocks[i], self.block_params[i]) for i in index]
            )
            for t in terms:
                jll = t if jll is None else jll.__iadd__(t)
        if jll is None:
            raise ValueError("the model has no feature to score.")
        return jll
