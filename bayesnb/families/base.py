"""The base class of every feature family."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterable
from typing import NamedTuple

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


def column_views(values) -> list[np.ndarray]:
    """``values[:, j : j + 1]`` for every ``j`` of the second axis (views)."""
    return list(np.asarray(values).swapaxes(0, 1)[:, :, None])


def per_column(values: dict, n_columns: int, views) -> list[dict]:
    """``values`` (a dict of arrays) as one dict per column: ``views(array)`` lists
    every column's part of an array."""
    out: list[dict] = [{} for _ in range(n_columns)]
    for key, value in values.items():
        for part, column in zip(views(value), out, strict=True):
            column[key] = part
    return out


class Family:
    """Base class of the feature families. Subclasses set ``kind`` and the kernel."""

    kind = "family"
    multi_column = False
    #: Whether the M-step may step from the current parameters (generalized EM) rather
    #: than maximize: ``estimate_params`` then takes ``current``.
    generalized = False
    #: EM's estimator of this family when none is given (see :meth:`check_em_estimate`).
    em_estimate = "mean"
    #: The ``<name>_<suffix>`` names a block adds to the outputs (``params``, ``counts``,
    #: the posterior's groups, the PyMC model's variables), besides ``<name>`` itself.
    suffixes: tuple[str, ...] = ()

    def output_names(self, name: str, columns: list) -> list[str]:
        """Every variable and dimension name the feature ``name`` over ``columns`` adds
        to the outputs, so that a declaration whose names would overwrite each other
        (or the package's own, :data:`bayesnb._data.RESERVED_NAMES`) is refused
        before fitting."""
        extra = ("feature", *self.suffixes) if self.multi_column else self.suffixes
        return [name, *(f"{name}_{suffix}" for suffix in extra)]

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
        self,
        name: str,
        columns: list,
        data,
        sample_weight=None,
        *,
        counted: bool = False,
        n_labels: int | None = None,
    ) -> Family:
        """A copy of this declaration bound to training ``data`` (its columns).

        ``sample_weight`` (one non-negative number per row) weighs the rows in any
        data-dependent default the family learns. ``counted=True`` promises that the
        caller counts these same rows next with responsibilities whose rows sum to
        ``sample_weight`` (a classifier's labels): a default that is a function of the
        pooled statistics (the Gaussian prior's pooled mean and variance) is then
        taken from those statistics at the first estimate, without a read here.
        ``n_labels``: the number of components of a mixture (``counted=False``),
        which a default may scale with (the Gaussian prior's scale).
        """
        bound = copy.copy(self)
        bound.name = name
        bound.columns = columns if isinstance(columns, list) else list(columns)
        bound._learn(data, sample_weight)
        if n_labels is not None and n_labels > 1:
            bound._check_mixture_data(data, sample_weight)
        return bound

    def _learn(self, data, sample_weight=None) -> None:  # pragma: no cover - overridden
        pass

    def _check_mixture_data(self, data, sample_weight=None) -> None:
        """Warn about training ``data`` that a mixture of several components would fit
        badly through this family (nothing by default; a Gaussian's constant column)."""

    def bind_each(
        self,
        columns: list,
        data,
        sample_weight=None,
        *,
        counted: bool = False,
        n_labels: int | None = None,
    ) -> Family | None:
        """This declaration bound to each of ``columns`` as its own feature, from
        ``data`` holding them all, learnt in one pass: one block over every column,
        whose :meth:`column_blocks` are the features :meth:`bind` gives each column
        alone, and which counts and estimates them as one block (its statistics
        and parameters :meth:`split` into theirs). None when this family cannot, or
        when the block raised or warned: the caller then binds column by column, whose
        messages name their own feature."""
        if not self.multi_column or not self._binds_each(data):
            return None
        return _quietly(
            lambda: self.bind(
                columns[0],
                columns,
                data,
                sample_weight=sample_weight,
                counted=counted,
                n_labels=n_labels,
            )
        )

    def _binds_each(self, data) -> bool:
        """Whether :meth:`bind_each` may bind ``data``'s columns at once (no by default)."""
        return False

    def column_blocks(self) -> list[Family]:
        """Every column of this bound block as a feature of its own, named by it (a
        family adds the state it keeps per column)."""
        state = self.__dict__
        out = []
        for column in self.columns:  # shallow copies: 10^5 of them for a wide frame
            block = object.__new__(type(self))
            block.__dict__.update(state)
            block.name = column if type(column) is str else str(column)
            block.columns = [column]
            out.append(block)
        return out

    def em_kernel(self, data, method: str, n_components: int):
        """This block's part of the compiled EM loop (:mod:`bayesnb._em_loop`), from
        its columns ``data`` (checked: :meth:`encode_repeated` has read them) under the
        estimator ``method``:
        a :class:`~bayesnb._em_loop.DiscreteKernel`,
        :class:`~bayesnb._em_loop.GaussianKernel`,
        :class:`~bayesnb._em_loop.MvnKernel` or
        :class:`~bayesnb._em_loop.CountsKernel`. None (the default): the family has
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
        return per_column(values, len(blocks), column_views)

    def join(self, values: list) -> dict:
        """The inverse of :meth:`split`: one dict per block joined for this fused one."""
        return {k: np.concatenate([v[k] for v in values], axis=1) for k in values[0]}

    def encode_repeated(self, data):
        """The encoding of ``data`` for a caller that reads it many times (EM's sweeps):
        a family may spend more here to make each later ``count`` and
        ``log_likelihood`` cheaper. By default :meth:`encode`."""
        return self.encode(data)

    def imputes(self, enc) -> bool:
        """Whether the statistics of ``enc`` are expectations given the current
        parameters: missing values the family fills in (a
        :class:`~bayesnb.MultivariateGaussian`'s), counted by :func:`count_at`."""
        return False

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
    #: Whether the conjugate update must see one labelling's K classes at a time, not
    #: the classes of several chains laid side by side: a parameter shared by the
    #: classes (a tied covariance), or a default prior that depends on K.
    classes_together = False

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

    def adopt_pooled(self, stats: dict, n_labels: int | None = None) -> None:
        """Set the defaults from the pooled statistics of every training row;
        ``n_labels``: a mixture's number of components, or None."""
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


class Group(NamedTuple):
    """Blocks processed as one: their positions ``index`` in a list of blocks, and
    ``block``, one block over all their columns (the block itself for a group of one).
    ``members`` are the blocks; None: ``block``'s columns, each its own feature
    (:meth:`Family.column_blocks`), made when they are needed (:func:`expand`), so
    that they take what estimating ``block`` resolved."""

    index: list[int]
    block: Family
    members: list[Family] | None = None

    def blocks(self) -> list[Family]:
        if self.members is not None:
            return self.members
        return self.block.column_blocks()

    def names(self) -> list[str]:
        if self.members is not None:
            return [b.name for b in self.members]
        return [str(c) for c in self.block.columns]

    def alone(self) -> list[Group]:
        """Every block of the group as a group of its own."""
        return [Group([i], b, [b]) for i, b in zip(self.index, self.blocks(), strict=True)]


def fused_groups(blocks, positions=None) -> list[Group]:
    """The :func:`fusion_groups` of ``blocks`` with each group's one block made;
    ``positions`` (one per block) are the places of ``blocks`` in a longer list, which
    the groups' ``index`` then refers to."""
    out = []
    for index in fusion_groups(blocks):
        group = [blocks[i] for i in index]
        block = group[0] if len(group) == 1 else group[0].fused(group)
        out.append(
            Group(index if positions is None else [positions[i] for i in index], block, group)
        )
    return out


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


def count_groups(groups: list[Group], table, resp) -> tuple[list[Group], list[dict]]:
    """The statistics of every group, counted as one block, and the groups they belong
    to: a group whose count raised or warned is counted block by block instead, its
    blocks groups of their own (so every message names its feature)."""
    out_groups, out_stats = [], []

    def count(block):
        return block.count(block.encode(table.take(block.columns)), resp)

    for group in groups:
        if len(group.index) > 1:
            stats = _quietly(lambda b=group.block: count(b))
            if stats is not None:
                out_groups.append(group)
                out_stats.append(stats)
                continue
        for single in group.alone() if len(group.index) > 1 else [group]:
            out_groups.append(single)
            out_stats.append(count(single.block))
    return out_groups, out_stats


def estimate_groups(
    groups: list[Group], stats: list[dict], methods: dict, labels=None, current=None
) -> tuple[list[Group], list[dict], list[dict]]:
    """The parameters of every group from its statistics, estimated as one block where
    its blocks' estimators (``methods``, by name) agree, with the groups and statistics
    they belong to: otherwise, or when the estimate raised or warned, block by block,
    as groups of their own (their statistics split). ``labels`` names the classes in
    error messages; a ``generalized`` block (an M-step without a closed form) gets its
    parameters in ``current`` (one dict per block, or None) to step from."""
    out_groups, out_stats, out_params = [], [], []
    for group, values in zip(groups, stats, strict=True):
        if len(group.index) > 1:
            names = group.names()
            method = methods[names[0]]
            if all(methods[n] == method for n in names):
                # a block whose columns become the features: kept as it was, should the
                # estimate fail (given members are the features already)
                before = copy.copy(group.block) if group.members is None else None
                params = _quietly(lambda b=group.block, v=values, m=method: b.estimate_params(v, m))
                if params is not None:
                    for j, block in enumerate(group.members or ()):
                        block.adopt(group.block, j)
                    out_groups.append(group)
                    out_stats.append(values)
                    out_params.append(params)
                    continue
                if before is not None:
                    group = group._replace(block=before)
            singles = group.alone()
            parts = group.block.split(values, [g.block for g in singles])
        else:
            singles, parts = [group], [values]
        for single, part in zip(singles, parts, strict=True):
            block, i = single.block, single.index[0]
            out_groups.append(single)
            out_stats.append(part)
            out_params.append(
                block.estimate_params(
                    part,
                    methods[block.name],
                    labels=labels,
                    **({"current": current[i]} if current and block.generalized else {}),
                )
            )
    return out_groups, out_stats, out_params


def expand(groups: list[Group], n_blocks: int, *values: list) -> tuple[list, ...]:
    """The blocks of ``groups`` in their order (``n_blocks`` of them), and each list of
    ``values`` (one dict per group: statistics, parameters) split into one per block."""
    blocks: list = [None] * n_blocks
    out = [[None] * n_blocks for _ in values]
    for k, group in enumerate(groups):
        members = group.blocks()
        for i, block in zip(group.index, members, strict=True):
            blocks[i] = block
        for per_block, per_group in zip(out, values, strict=True):
            parts = (
                [per_group[k]] if len(members) == 1 else group.block.split(per_group[k], members)
            )
            for i, part in zip(group.index, parts, strict=True):
                per_block[i] = part
    return (blocks, *out)


def joined(groups: list[Group], values: list[dict]) -> list[dict]:
    """Per-block ``values`` (statistics or parameters, by position) joined per group."""
    return [
        g.block.join([values[i] for i in g.index]) if len(g.index) > 1 else values[g.index[0]]
        for g in groups
    ]


def count_at(block: Family, enc, resp, params: dict | None = None, rng=None) -> dict:
    """``block``'s statistics of ``enc`` under ``resp`` (n, K). A block that fills
    missing values in (:meth:`Family.imputes`) fills them from ``params``, its current
    parameters (EM's E-step: their expectations; with ``rng``, a Gibbs sweep: a
    draw), or at a start (None) from its ``imputation_start``."""
    if not block.imputes(enc):
        return block.count(enc, resp)
    if params is None:
        params = block.imputation_start(resp.shape[1])
    return block.count(enc, resp, at=params, rng=rng)


def count_blocks(blocks, table, resp) -> list[dict]:
    """``block.count(block.encode(columns), resp)`` of every block, groups fused."""
    groups, stats = count_groups(fused_groups(blocks), table, resp)
    return expand(groups, len(blocks), stats)[1]


def estimate_blocks(blocks, stats, methods: dict, labels=None, current=None) -> list[dict]:
    """``block.estimate_params(stats, methods[block.name])`` of every block, groups fused
    where their estimators agree (see :func:`estimate_groups`)."""
    groups = fused_groups(blocks)
    groups, _, params = estimate_groups(groups, joined(groups, stats), methods, labels, current)
    return expand(groups, len(blocks), params)[1]


class FusedScorer:
    """The log-likelihood of rows under every block of a fitted model, runs fused: the
    fused blocks and their joined parameters are made once per fitted model."""

    def __init__(self, groups: list[Group], params: list[dict]):
        """The scorer of blocks estimated as ``groups``, each with its ``params``."""
        self.groups = list(zip(groups, params, strict=True))

    @classmethod
    def of_blocks(cls, blocks, block_params, index=None) -> FusedScorer:
        """The scorer of ``blocks``, each with its ``block_params``: like blocks fused
        (:func:`fused_groups`), their parameters joined. ``index``: the positions of
        the blocks to score together, one list per group (a fit's own grouping, as
        :func:`load` reads it back, so that the sums run in the same order); a list
        whose blocks cannot fuse is scored block by block."""
        if index is None:
            groups = fused_groups(blocks)
        else:
            groups = []
            for positions in index:
                members = [blocks[i] for i in positions]
                keys = {b.fusion_key() for b in members}
                if len(members) > 1 and len(keys) == 1 and None not in keys:
                    groups.append(Group(list(positions), members[0].fused(members), members))
                else:
                    groups += [Group([i], blocks[i], [blocks[i]]) for i in positions]
        return cls(groups, joined(groups, block_params))

    def scores(self, table, *, posterior: bool = False) -> np.ndarray:
        """``sum_i log p(x_i | c)``, (n, K) (up to a constant of every row when
        ``posterior``, see :meth:`Family.posterior_scores`)."""

        def score(block, params):
            enc = block.encode(table.take(block.columns))
            if posterior:
                return block.posterior_scores(enc, params)
            return block.log_likelihood(enc, params)

        jll = None
        for group, params in self.groups:
            if len(group.index) == 1:
                terms = [score(group.block, params)]
            else:
                term = _quietly(lambda b=group.block, p=params: score(b, p))
                if term is None:  # block by block, so a message names its feature
                    singles = [g.block for g in group.alone()]
                    parts = group.block.split(params, singles)
                    terms = [score(b, p) for b, p in zip(singles, parts, strict=True)]
                else:
                    terms = [term]
            for t in terms:
                jll = t if jll is None else jll.__iadd__(t)
        if jll is None:
            raise ValueError("the model has no feature to score.")
        return jll
