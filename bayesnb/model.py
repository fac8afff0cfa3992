"""What every fitted model shares: blocks of families, the joint log-likelihood kernel,
prediction, xarray export and netCDF persistence.

A fitted model is a value: a list of bound families, their sufficient statistics
and parameters, and the class (or component) log-probabilities. The classifier
(:class:`bayesnb.NaiveBayesFit`) and the mixture share this class.
"""

from __future__ import annotations

import contextlib
import datetime
import importlib
import io
import json
import math
import os
import tempfile
import warnings

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb._data import Table
from bayesnb.dask import is_dask
from bayesnb.dask import predict as dask_predict
from bayesnb.errors import InputError, InputTypeError, ModelFileError, ZeroLikelihoodError
from bayesnb.families import FAMILIES, Family
from bayesnb.families._kernels import value_array
from bayesnb.families.base import FusedScorer, estimate_blocks, estimate_groups, expand
from bayesnb.families.discrete import NEW_CATEGORY, UNSEEN_POLICIES
from bayesnb.families.multivariate import DIAGONAL_COVARIANCES
from bayesnb.priors import (
    ESTIMATES,
    Beta,
    Dirichlet,
    NormalInverseGamma,
    NormalInverseWishart,
    PointMass,
    ZeroProbabilityWarning,
)


def log_normalize(jll: np.ndarray, *, estimate=None) -> np.ndarray:
    """Subtract the log-sum-exp of every row: log-probabilities that sum to one.

    A row without a posterior raises :class:`bayesnb.errors.ZeroLikelihoodError` naming
    it and its cause: every entry ``-inf`` (every class ruled out by a probability 0)
    or a score that is not a number or ``+inf`` (values too large for the densities, or
    parameters that are not finite). ``estimate`` (the fit's estimator, a name or the
    ``estimates`` dict of a fitted model) only sharpens the remedy the message gives.

    The work runs components first, on a (K, n) copy, so that every reduction over
    the few classes is an elementwise operation on long rows; the result is the
    (n, K) transpose of that copy.
    """
    out = _shifted_components_first(jll, estimate)
    total = np.exp(out).sum(axis=0)
    out -= np.log(total, out=total)
    return out.T


def normalize(jll: np.ndarray, *, estimate=None) -> np.ndarray:
    """Posterior probabilities ``exp(log_normalize(jll))``, without the logarithms.

    Each row is shifted by its maximum, exponentiated and divided by its sum; a row
    without a posterior raises as in :func:`log_normalize`.
    """
    out = _shifted_components_first(jll, estimate)
    np.exp(out, out=out)
    out /= out.sum(axis=0)
    return out.T


def _shifted_components_first(jll: np.ndarray, estimate=None) -> np.ndarray:
    """A (K, n) copy of ``jll`` minus the maximum of every row (a finite one)."""
    out = np.array(jll.T, dtype=float, order="C")
    with np.errstate(invalid="ignore"):
        top = out.max(axis=0)
    bad = ~np.isfinite(top)
    if bad.any():
        raise no_posterior_error(out.T, bad, estimate)
    out -= top
    return out


def _estimate_names(estimate) -> list:
    """The estimators named by ``estimate``: a name, or a fitted model's ``estimates``."""
    if estimate is None:
        return []
    if isinstance(estimate, dict):
        names = list(estimate.get("features", {}).values())
        names.append(estimate.get("class"))
        return sorted({str(e) for e in names if e is not None})
    return [str(estimate)]


def no_posterior_error(
    jll: np.ndarray,
    bad: np.ndarray,
    estimate=None,
    *,
    what: str = "class",
    detail: str = "",
    cause: str | None = None,
) -> ZeroLikelihoodError:
    """The error for rows ``bad`` (a boolean mask) of ``jll`` (n, K) that have no
    posterior: which rows, why (every score ``-inf``, or a score NaN or ``+inf``) and
    the remedy that fits that cause and the fit's ``estimate``. ``cause`` (``"zero"``:
    a probability 0 from counts; ``"overflow"``: a density that is 0 or not a number),
    when the caller knows it, overrides the guess from the scores and ``estimate``."""
    rows = np.flatnonzero(bad)
    row = int(rows[0])
    listed = ", ".join(str(int(r)) for r in rows[:10]) + (", ..." if len(rows) > 10 else "")
    where = f"row {row}" if len(rows) == 1 else f"rows {listed} ({len(rows)} rows)"
    has, it = ("has", "it") if len(rows) == 1 else ("have", "they")
    scores = np.asarray(jll, dtype=float)[rows]
    names = _estimate_names(estimate)
    fit_is = (
        f"the fit's estimate is {names[0]!r}"
        if len(names) == 1
        else (f"the fit's estimates are {names!r}" if names else "")
    )
    if cause is None:
        nonfinite = np.isnan(scores).any() or np.isposinf(scores).any()
        zeros_possible = any(n in ("ml", "map") for n in names) or not names
        cause = "overflow" if nonfinite or not zeros_possible else "zero"
    if np.isnan(scores).any() or np.isposinf(scores).any():
        text = (
            f"{where} {has} a log-likelihood that is not a number (or +inf) under some "
            f"{what}, so {it} {has} no posterior: a value too large in magnitude for the "
            "densities to represent (overflow), or a model whose parameters are not "
            "finite (a damaged or edited file)."
        )
        remedy = (
            "Check that row's values (rescale features with huge magnitudes before "
            "fitting), or refit and save the model again."
        )
    else:
        text = f"{where} {has} likelihood 0 under every {what}, so {it} {has} no posterior."
        if cause == "zero":
            remedy = (
                "Under estimate='ml' (or 'map' with a prior alpha <= 1) a value never seen "
                f"with a {what} in training gets probability 0, which rules that {what} out. "
                "Fit with estimate='mean' (or a prior with alpha > 1) to smooth the zeros."
            )
        else:
            remedy = (
                "No zero count is the cause: a value too large in magnitude for the "
                "densities (underflow to -inf) or a damaged model file is. Check that row's "
                "values (rescale features with huge magnitudes before fitting), or refit "
                "and save the model again."
            )
    parts = [text, detail, f"{fit_is[0].upper()}{fit_is[1:]}." if fit_is else "", remedy]
    return ZeroLikelihoodError(" ".join(p for p in parts if p))


def log_sum_exp_rows(jll: np.ndarray) -> np.ndarray:
    """Row-wise log-sum-exp (the log marginal likelihood of each row)."""
    lead = np.array(jll.T, dtype=float, order="C")  # (K, n): reduce over long rows
    top = lead.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    lead -= safe
    with np.errstate(divide="ignore"):
        return np.log(np.exp(lead, out=lead).sum(axis=0)) + safe


class FittedModel:
    """Blocks of bound families with statistics and parameters over ``label_dim``.

    Attributes
    ----------
    labels : list
        Coordinates of the class (or component) dimension.
    blocks : list of Family
        The bound feature families, in declaration order.
    stats, block_params : list of dict
        Sufficient statistics and estimated parameters of each block.
    class_counts : ndarray (K,)
    class_log_prob : ndarray (K,)
    """

    label_dim = "class_label"
    #: Whether the class's own K probabilities are table entries (parameter_counts).
    class_entries = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        register_loader(cls.__name__, lambda ds, config: _read_fitted(cls, ds, config))

    def __init__(
        self,
        *,
        labels,
        blocks=None,
        stats=None,
        block_params=None,
        class_counts,
        class_log_prob,
        class_prior,
        estimates,
        feature_names,
        is_frame,
        target="label",
        groups=None,
        column_dtypes=None,
        column_labels=None,
    ):
        self.labels = list(labels)
        if groups is None:
            self.blocks: list[Family] = blocks
            self.stats = stats
            self.block_params = block_params
        else:
            # (groups, their statistics, their parameters): the blocks, statistics and
            # parameters of one feature each are split out when first read
            self._groups = groups
        self.class_counts = np.asarray(class_counts, float)
        self.class_log_prob = np.asarray(class_log_prob, float)
        self.class_prior = class_prior
        self.estimates = estimates
        self.feature_names = (
            feature_names if isinstance(feature_names, list) else list(feature_names)
        )
        self.is_frame = is_frame
        self.target = target
        column_dtypes, own = _by_feature_name(column_dtypes)
        #: ``{column: dtype}`` of a training frame (else None): drawn values of a
        #: discrete feature are given back in it (:meth:`_draw_features`). Given keyed
        #: by the frame's own column labels (:meth:`bayesnb._data.Table.frame_dtypes`)
        #: or by feature name; kept by feature name.
        self.column_dtypes = column_dtypes
        own.update(column_labels or {})
        names = set(self.feature_names) if own else ()
        #: ``{feature name: the training frame's own column label}`` where the two
        #: differ (a label that is not a str, e.g. the int 0 of the feature ``"0"``),
        #: else None: drawn rows come back with the frame's labels
        #: (:meth:`_with_training_labels`).
        self.column_labels = {
            n: c for n, c in own.items() if n in names and type(c) is not str
        } or None

    @classmethod
    def from_statistics(
        cls, *, labels, blocks, stats, class_counts, class_prior, estimates, groups=None, **kwargs
    ):
        """Estimate every parameter from sufficient statistics and build the fitted model.

        ``groups`` (:class:`~bayesnb.families.base.Group`): the blocks as groups, each
        estimated as one block, with ``stats`` one dict per group (``blocks`` is then
        not used). The fit keeps the groups and scores them as they are; the blocks,
        statistics and parameters of one feature each are split out of them when
        first read.
        """
        if groups is None:
            block_params, class_log_prob = estimate_all(
                blocks, stats, class_counts, class_prior, estimates, labels
            )
        else:
            groups = estimate_groups(groups, stats, estimates["features"], labels)
            blocks = stats = block_params = None
            class_log_prob = estimate_class(class_counts, class_prior, estimates)
        return cls(
            labels=labels,
            blocks=blocks,
            stats=stats,
            block_params=block_params,
            groups=groups,
            class_counts=class_counts,
            class_log_prob=class_log_prob,
            class_prior=class_prior,
            estimates=estimates,
            **kwargs,
        )

    def __getattr__(self, name):
        # the per-feature blocks, statistics and parameters of a fit made by groups
        # (see __init__), split out on first read
        groups = self.__dict__.get("_groups")
        if groups is None or name not in ("blocks", "stats", "block_params"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        n_blocks = sum(len(g.index) for g in groups[0])
        self.blocks, self.stats, self.block_params = expand(groups[0], n_blocks, *groups[1:])
        return self.__dict__[name]

    def with_statistics(self, *, stats, class_counts, blocks=None):
        """A fit of the same kind, declaration, priors and estimators from other
        statistics (``blocks``: bound families replacing this fit's, e.g. with wider
        domains), its parameters estimated anew."""
        return type(self).from_statistics(
            labels=self.labels,
            blocks=list(self.blocks if blocks is None else blocks),
            stats=stats,
            class_counts=class_counts,
            class_prior=self.class_prior,
            estimates={**self.estimates, "features": dict(self.estimates["features"])},
            feature_names=self.feature_names,
            is_frame=self.is_frame,
            target=self.target,
            column_dtypes=self.column_dtypes,
            column_labels=self.column_labels,
        )

    # -- the kernel --------------------------------------------------------------------
    def encode(self, X) -> list:
        """Encode ``X`` for every block (reuse it to score the same rows repeatedly)."""
        table = self._table(X)
        return [block.encode(table.take(block.columns)) for block in self.blocks]

    def _table(self, X) -> Table:
        """``X`` as a :class:`Table` of the columns the model was fit on (checked)."""
        table = X if isinstance(X, Table) else Table(X, feature_names=None)
        if table.is_frame != self.is_frame:
            kind, other = (
                ("a DataFrame", "an array") if self.is_frame else ("an array", "a DataFrame")
            )
            raise InputTypeError(
                f"X must be {kind}, the form the model was fit on; got {other} "
                f"({type(X).__name__}). Give X in the same form"
                + (
                    " (a DataFrame with the feature columns)."
                    if self.is_frame
                    else " (e.g. X.to_numpy(), columns in the training order)."
                )
            )
        if not table.is_frame:
            if len(table.names) != len(self.feature_names):
                raise InputError(
                    f"X has {len(table.names)} column(s); the model was fit on "
                    f"{len(self.feature_names)} ({self.feature_names[:5]!r}"
                    f"{'...' if len(self.feature_names) > 5 else ''}). Give every feature "
                    "column, in the training order; put NaN where a value is missing."
                )
            if not isinstance(X, Table):  # an array's columns are the model's, in order
                table.names = self.feature_names
        if table.names is not self.feature_names:
            present = set(table.names)
            missing = [c for c in self.feature_names if c not in present]
            if missing:
                raise InputError(
                    f"X lacks the feature column(s) {missing[:10]!r} the model was fit on "
                    f"(X has {list(table.names)[:10]!r}). Give every feature column; put NaN "
                    "where a value is missing."
                )
        if not table.is_frame and table.names != self.feature_names:
            raise InputError(
                f"X has columns {table.names[:5]!r}...; the model was fit on "
                f"{self.feature_names[:5]!r}... in that order. Give the columns in the "
                "training order."
            )
        return table

    def _scores(self, X, *, posterior: bool = False) -> np.ndarray:
        """:meth:`_joint` of ``X``, like single-column features scored as one block
        (:class:`bayesnb.families.base.FusedScorer`, made once per fitted model)."""
        scorer = self.__dict__.get("_scorer")
        if scorer is None:
            groups = self.__dict__.get("_groups")
            scorer = self._scorer = (
                FusedScorer.of_blocks(self.blocks, self.block_params, self._scoring_index())
                if groups is None
                else FusedScorer(groups[0], groups[2])
            )
        jll = scorer.scores(self._table(X), posterior=posterior)
        jll += self.class_log_prob
        return jll

    def _joint(self, encoded: list, *, posterior: bool = False) -> np.ndarray:
        jll = feature_log_likelihood(self.blocks, encoded, self.block_params, posterior=posterior)
        jll += self.class_log_prob
        return jll

    def _posterior_scores(self, X) -> np.ndarray:
        """The joint log-likelihood up to a constant of every row: what the posterior
        over the classes, and so every prediction, depends on.

        A row without a posterior (every class ruled out, or a score that is not a
        number) raises :class:`bayesnb.errors.ZeroLikelihoodError`, naming the row, the
        features responsible and the remedy (so no overflow passes silently)."""
        with np.errstate(over="ignore", invalid="ignore"):  # non-finite: checked below
            jll = self._scores(X, posterior=True)
            top = jll.max(axis=1)
        bad = ~np.isfinite(top)
        if bad.any():
            detail, cause = self._explain(self.encode(X), int(np.flatnonzero(bad)[0]))
            raise no_posterior_error(
                jll, bad, self.estimates, what=self._what(), detail=detail, cause=cause
            )
        return jll

    def _what(self) -> str:
        return "component" if self.label_dim == "component" else "class"

    def _explain(self, encoded: list, row: int) -> tuple[str, str | None]:
        """Which factor rules out every class (or gives a non-finite score) on ``row``,
        and the cause: ``"zero"`` (a probability 0 of a discrete value, or of the class
        itself), ``"overflow"`` (a density that is 0 or not a number), or None."""
        with np.errstate(over="ignore", invalid="ignore"):
            terms = [
                np.asarray(block.posterior_scores(enc, params))[row]
                for block, enc, params in zip(self.blocks, encoded, self.block_params, strict=True)
            ]
        said, causes = [], set()
        for k, label in enumerate(self.labels):
            culprits = []
            if not np.isfinite(self.class_log_prob[k]):
                culprits.append(f"the {self._what()} itself has probability 0")
                causes.add("zero")
            for block, term in zip(self.blocks, terms, strict=True):
                value = term[k]
                if np.isnan(value) or np.isposinf(value):
                    culprits.append(f"feature {block.name!r} ({block.kind}) scores {value}")
                    causes.add("overflow")
                elif np.isneginf(value) and block.kind == "gaussian":
                    culprits.append(
                        f"feature {block.name!r} (gaussian) gives it density 0 (a value too "
                        "far out for the densities)"
                    )
                    causes.add("overflow")
                elif np.isneginf(value):
                    culprits.append(
                        f"feature {block.name!r} ({block.kind}) gives its value probability 0"
                    )
                    causes.add("zero")
            if culprits and len(said) < 4:
                said.append(f"under {self._what()} {label!r}, " + "; ".join(culprits[:3]))
        if not said:
            return "", None
        detail = f"On row {row}: " + "; ".join(said) + ("; ..." if len(self.labels) > 4 else ".")
        return detail, "overflow" if "overflow" in causes else "zero"

    def joint_log_likelihood(self, X) -> np.ndarray:
        """``log P(c) + sum_i log p(x_i | c)`` for every row and class, shape (n, K).

        A missing value contributes nothing: its factor is marginalized exactly. A Dask
        collection gives a Dask collection (:func:`bayesnb.dask.predict`), here and in
        the other ``predict`` methods.
        """
        if is_dask(X):
            return dask_predict(self, X, "joint_log_likelihood")
        return self._scores(X)

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior class probabilities, shape (n, K), columns in ``labels`` order.

        A row whose likelihood is 0 under every class raises
        :class:`bayesnb.errors.ZeroLikelihoodError` (as do :meth:`predict_proba` and
        :meth:`predict`)."""
        if is_dask(X):
            return dask_predict(self, X, "predict_log_proba")
        return log_normalize(self._posterior_scores(X))

    def predict_proba(self, X) -> np.ndarray:
        """Posterior class probabilities, shape (n, K), columns in ``labels`` order."""
        if is_dask(X):
            return dask_predict(self, X, "predict_proba")
        return normalize(self._posterior_scores(X))

    def predict_index(self, X) -> np.ndarray:
        """The position in ``labels`` of every row's most probable class."""
        return self._posterior_scores(X).argmax(axis=1)

    def predict(self, X) -> np.ndarray:
        """The class with the largest posterior probability (the MAP decision rule).

        A row whose likelihood is 0 under every class has no such class: it raises
        :class:`bayesnb.errors.ZeroLikelihoodError`, as :meth:`predict_proba` does."""
        if is_dask(X):
            return dask_predict(self, X, "predict")
        return value_array(self.labels, object_strings=True)[self.predict_index(X)]

    def log_likelihood_rows(self, X) -> np.ndarray:
        """``log p(x)`` of every row, summing over the classes."""
        return log_sum_exp_rows(self.joint_log_likelihood(X))

    # -- drawing rows ------------------------------------------------------------------------
    def _with_training_labels(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with every feature column (named by its feature name) relabelled
        with the training frame's own column label (e.g. the int ``0`` for ``"0"``); its
        other columns (a ``component``) as they are."""
        if not self.column_labels:
            return frame
        return frame.rename(columns=self.column_labels)

    def _draw_features(self, components, rng) -> dict:
        """``{column: draws}`` of every feature for rows of the classes (components)
        ``components``, each block drawn by its family."""
        columns = {}
        for block, params in zip(self.blocks, self.block_params, strict=True):
            draws = np.asarray(block.sample(params, components, rng))
            draws = draws.reshape(len(components), len(block.columns))
            for j, col in enumerate(block.columns):
                columns[col] = draws[:, j]
                if self.column_dtypes and block.kind in _DRAWN_IN_DATA_TYPE:
                    columns[col] = _in_training_type(draws[:, j], self.column_dtypes[col], block, j)
                elif (
                    self.column_dtypes
                    and block.kind != "binned"  # rounded to float32, a draw may cross an edge
                    and _other_float(self.column_dtypes[col])
                ):
                    columns[col] = (
                        pd.Series(draws[:, j], copy=False).astype(self.column_dtypes[col]).array
                    )
        return columns

    # -- parameter counting ----------------------------------------------------------------
    def n_free_parameters(self) -> int:
        k = len(self.labels)
        weights = 0 if isinstance(self.class_prior, PointMass) else k - 1  # fixed: none
        return weights + sum(b.n_free_parameters(k) for b in self.blocks)

    def n_parameters(self) -> int:
        """Free parameters: ``K - 1`` class (or component) weights plus every family's
        free parameters (what AIC and BIC count)."""
        return int(self.n_free_parameters())

    def parameter_counts(self) -> dict:
        """Free parameters of this naive Bayes model against the full joint table.

        Returns a dict with ``naive_bayes`` (free parameters, :meth:`n_parameters`),
        ``full_joint`` (free parameters of an unrestricted table over the class and
        every discrete feature, ``None`` when a feature is continuous or a block of
        counts) and ``naive_bayes_entries`` / ``full_joint_entries`` (table entries,
        without the sum-to-one constraints; the class's own K entries count unless
        :attr:`class_entries` is False, as for a density's single class).
        """
        k = len(self.labels)
        tables = all(b.kind in ("bernoulli", "categorical", "binned") for b in self.blocks)
        if not tables:
            return {
                "naive_bayes": self.n_parameters(),
                "full_joint": None,
                "naive_bayes_entries": None,
                "full_joint_entries": None,
            }
        sizes = [size for b in self.blocks for size in b.column_sizes()]
        return {
            "naive_bayes": self.n_parameters(),
            "full_joint": k * math.prod(sizes) - 1,
            "naive_bayes_entries": (k if self.class_entries else 0) + k * sum(sizes),
            "full_joint_entries": k * math.prod(sizes),
        }

    # -- xarray export ---------------------------------------------------------------------
    def _export(self) -> tuple[dict, dict]:
        dim = self.label_dim
        labels = value_array(self.labels)
        params = {
            "class_prob": xr.DataArray(
                np.exp(self.class_log_prob), dims=(dim,), coords={dim: labels}
            )
        }
        counts = {"class_count": xr.DataArray(self.class_counts, dims=(dim,), coords={dim: labels})}
        for block, st, pr in zip(self.blocks, self.stats, self.block_params, strict=True):
            out = block.to_xarray(pr, st, dim, labels)
            params.update(out["params"])
            counts.update(out["counts"])
        return params, counts

    @property
    def params(self) -> xr.Dataset:
        """Estimated parameters, as probabilities, means and variances with named dims."""
        params, _ = self._export()
        ds = xr.Dataset(params)
        ds.attrs["estimates"] = json.dumps(self.estimates)
        return ds

    @property
    def counts(self) -> xr.Dataset:
        """The sufficient statistics the parameters were estimated from."""
        _, counts = self._export()
        return xr.Dataset(counts)

    def _scoring_index(self) -> list[list[int]] | None:
        """The positions of the blocks this fit scores together, one list per group:
        the groups it was fitted in, or those a saved file gave back (None: the blocks
        fused by key, :func:`~bayesnb.families.base.fused_groups`)."""
        groups = self.__dict__.get("_groups")
        if groups is not None:
            return [list(map(int, g.index)) for g in groups[0]]
        return self.__dict__.get("_saved_scoring")

    # -- persistence -------------------------------------------------------------------------
    def _config(self) -> dict:
        scoring = self._scoring_index()
        return {
            **({} if scoring is None else {"scoring": scoring}),
            "model": type(self).__name__,
            "labels": _encode_values(self.labels, "labels"),
            "blocks": [_family_config(b) for b in self.blocks],
            "estimates": self.estimates,
            "class_prior": _prior_config(self.class_prior),
            "feature_names": _encode_values(self.feature_names, "feature_names"),
            "is_frame": self.is_frame,
            "target": _encode_values(self.target, "target"),
            **(
                {}
                if self.column_dtypes is None
                else {"column_dtypes": _dtypes_config(self.column_dtypes)}
            ),
            **(
                {}
                if not self.column_labels
                else {
                    "column_labels": _encode_values(
                        [self.column_labels.get(n, n) for n in self.feature_names],
                        "column_labels",
                    )
                }
            ),
        }

    def _to_dataset(self) -> xr.Dataset:
        data = {"class_counts": (("class_",), self.class_counts)}
        for i, st in enumerate(self.stats):
            for key, value in st.items():
                value = np.asarray(value)
                dims = tuple(f"stat_{i}_{key}_{j}" for j in range(value.ndim))
                data[f"stat_{i}_{key}"] = (dims, value)
        for i, (block, params) in enumerate(zip(self.blocks, self.block_params, strict=True)):
            if block.generalized:  # its parameters are EM's last step, not the stats' optimum
                for key, value in params.items():
                    value = np.asarray(value)
                    dims = tuple(f"param_{i}_{key}_{j}" for j in range(value.ndim))
                    data[f"param_{i}_{key}"] = (dims, value)
        ds = xr.Dataset(data)
        ds.attrs[CONFIG_ATTR] = json.dumps(self._config())
        return ds

    @classmethod
    def _check_saved_labels(cls, labels: list) -> None:
        """Refuse (:class:`~bayesnb.errors.ModelFileError`) the ``labels`` a file gives
        a model of this kind when the kind cannot have them (called by :func:`load`;
        every list of distinct labels is allowed by default)."""

    def _restore(self, config: dict) -> None:
        """Put back what a subclass saved in its configuration beyond the statistics
        (called by :func:`load`; nothing by default)."""

    def save(self, path) -> None:
        """Write the model to a netCDF-3 file (statistics plus declaration; no pickle).

        Loading re-estimates the parameters from the saved statistics with the same
        code, so the round trip is exact. Labels and categories may be strings,
        numbers, booleans (Python or NumPy scalars) and dates or times (``datetime``,
        ``pandas.Timestamp``, ``numpy.datetime64`` and their durations); each comes
        back as the type it was, and a frame's column dtypes (a string column's
        storage, a categorical's categories) too.

        ``path`` is used as given: no suffix is added (``.nc`` is the custom). A file
        already there is replaced once the new one is written whole, so a save that
        fails leaves it as it was; a read-only file is not replaced (an error).
        """
        for block in self.blocks:
            if block.kind not in SAVED_KINDS:
                raise ModelFileError(
                    f"saving a model with a {type(block).__name__} feature ({block.name!r}, "
                    f"kind {block.kind!r}) is not built: the saved file has a schema for "
                    f"the package's own families only ({', '.join(SAVED_KINDS)}). Keep the "
                    "fitted object (or its params) instead."
                )
        write_dataset(self._to_dataset(), path)


def check_draw_count(n) -> int:
    """``n``, the number of rows to draw: an int >= 0 (an error naming ``n`` else)."""
    if not isinstance(n, int | np.integer) or isinstance(n, bool | np.bool_):
        raise InputTypeError(
            f"n must be an int >= 0 (the number of rows to draw); got {n!r} "
            f"({type(n).__name__}). Give a whole number, e.g. n=100."
        )
    if n < 0:
        raise InputError(f"n must be an int >= 0 (the number of rows to draw); got {n!r}.")
    return int(n)


def write_dataset(dataset: xr.Dataset, path) -> None:
    """Write a saved model's ``dataset`` to ``path`` (netCDF-3), checking the path first:
    a directory, a missing folder or a read-only file is an error naming ``path``.

    ``path`` is used as given (no suffix is added). An existing file there is replaced,
    and only once the new file is written whole: the model goes to a temporary file in
    the same folder, which then takes the place of ``path``, so a save that fails leaves
    the old file as it was.
    """
    name = _file_name(path, "save")
    if os.path.isdir(name):
        raise InputError(
            f"save: path {name!r} is a directory; give a file name, e.g. "
            f"{os.path.join(name, 'model.nc')!r}."
        )
    target = os.path.realpath(name)  # a link: the file it points to is written
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise InputError(
            f"save: the folder {folder!r} of path {name!r} does not exist. Create it "
            "first (os.makedirs), or save elsewhere."
        )
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise InputError(
            f"save: the file at path {name!r} is read-only, so it is not replaced. Make it "
            "writable (os.chmod), or save under another name."
        )
    try:
        fd, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder
        )
    except OSError as exc:
        raise InputError(
            f"save: cannot write path {name!r}: no file can be made in its folder {folder!r} "
            f"({exc.strerror or exc}). Save in a folder you may write to."
        ) from exc
    try:
        os.close(fd)
        dataset.to_netcdf(temporary, engine="scipy")
        mode = os.stat(target).st_mode if os.path.exists(target) else _new_mode()
        os.chmod(temporary, mode)  # the replaced file's mode, or a new file's
        os.replace(temporary, target)
    except OSError as exc:
        raise InputError(f"save: cannot write path {name!r} ({exc.strerror or exc}).") from exc
    finally:
        with contextlib.suppress(OSError):
            os.remove(temporary)


def _new_mode() -> int:
    """The mode a new file gets under the process's umask (a temporary file gets 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _file_name(path, verb: str) -> str:
    """``path`` (str, bytes or os.PathLike) as a str; an
    :class:`~bayesnb.errors.InputTypeError` naming ``path`` otherwise."""
    try:
        return os.fsdecode(os.fspath(path))
    except TypeError:
        raise InputTypeError(
            f"{verb}: path must be a file name (str or os.PathLike); got "
            f"{type(path).__name__} {path!r}. Give a path such as 'model.nc'."
        ) from None


#: The first bytes of an HDF5 file, which a netCDF-4 file is.
_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"

#: The attribute of a saved file that holds the model's declaration (JSON).
CONFIG_ATTR = "bayesnb_config"

#: Readers of saved files by the kind of object they hold (the ``model`` entry of the
#: saved configuration): every :class:`FittedModel` subclass registers itself, and a
#: module holding another savable kind registers its reader with
#: :func:`register_loader`. ``load`` needs no import of the modules that define them.
_LOADERS: dict = {}


def register_loader(kind: str, reader) -> None:
    """Make :func:`load` read files whose configuration names ``kind`` with ``reader``.

    ``reader(dataset, config)`` gets the file's ``xarray.Dataset`` (loaded in memory)
    and its decoded ``bayesnb_config`` and returns the object. A reader raises
    :class:`bayesnb.errors.ModelFileError` (or any ``ValueError``, ``TypeError`` or
    ``KeyError``, which ``load`` reports as one) when the file is inconsistent.
    ``reader`` may also be the name of the module that defines the kind: ``load``
    imports it when it first meets such a file, and the module registers its reader
    then (so the module need not be imported before it is used).
    """
    if isinstance(reader, str) and callable(_LOADERS.get(kind)):
        return  # the module is imported already: keep its reader
    _LOADERS[kind] = reader


def load(path):
    """Read a model written by ``save``. Returns the fitted object.

    What the file holds is checked against what the model declares: the kind of
    model, every feature's family and its settings, and the statistics' shapes and
    values. A missing, foreign, damaged or inconsistent file raises
    :class:`bayesnb.errors.ModelFileError` naming the path and what is wrong.

    Examples
    --------
    The parameters are estimated again from the saved statistics, so the loaded
    model predicts exactly as the saved one:

    >>> import tempfile
    >>> from pathlib import Path
    >>> import bayesnb as bnb
    >>> tennis = bnb.datasets.play_tennis()
    >>> days = tennis.drop(columns="play")
    >>> fit = bnb.NaiveBayes().fit(tennis, target="play")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     fit.save(Path(folder) / "tennis.nc")
    ...     loaded = bnb.load(Path(folder) / "tennis.nc")
    >>> type(loaded).__name__, loaded.labels
    ('NaiveBayesFit', ['No', 'Yes'])
    >>> bool((loaded.predict_proba(days) == fit.predict_proba(days)).all())
    True
    """
    name = _file_name(path, "load")
    if not os.path.exists(name):
        raise ModelFileError(
            f"load: no file at path {name!r}. Check the path (the current directory is "
            f"{os.getcwd()!r}); a model is written by fit.save(path)."
        )
    if os.path.isdir(name):
        raise ModelFileError(f"load: path {name!r} is a directory, not a saved model file.")
    try:  # read whole: a reader failing on a damaged file then leaves no file open
        with open(name, "rb") as file:
            content = file.read()
    except OSError as exc:
        raise ModelFileError(
            f"load: cannot read path {name!r} ({exc.strerror or exc}). Check the file's "
            "permissions."
        ) from exc
    netcdf4 = content.startswith(_HDF5_SIGNATURE)
    try:
        # fit.save writes netCDF-3; a model file written again by xarray (whose default
        # is netCDF-4, an HDF5 file) is read too
        engine = "h5netcdf" if netcdf4 else "scipy"
        with xr.open_dataset(io.BytesIO(content), engine=engine) as ds:
            ds = ds.load()
    except Exception as exc:  # scipy, h5py and xarray raise many kinds on a foreign file
        reason = (str(exc).strip().splitlines() or [""])[0].removeprefix("Error: ")
        what = "a netCDF-4 file xarray reads" if netcdf4 else "a netCDF-3 file"
        raise ModelFileError(
            f"load: {name!r} is not {what} (it could not be read: "
            f"{type(exc).__name__}: {reason}). bnb.load reads the files fit.save writes; "
            "if this is one, it is cut short or damaged: save the model again."
        ) from exc
    if CONFIG_ATTR not in ds.attrs:
        raise ModelFileError(
            f"load: {name!r} is a netCDF file but not a bayesnb model: it has no "
            f"{CONFIG_ATTR!r} attribute (it has {sorted(ds.attrs)[:10]!r}). bnb.load reads "
            "the files fit.save writes."
        )
    try:
        config = json.loads(ds.attrs[CONFIG_ATTR])
    except (TypeError, ValueError) as exc:
        raise ModelFileError(
            f"load: the {CONFIG_ATTR!r} attribute of {name!r} is not valid JSON ({exc}); the "
            "file is damaged. Save the model again."
        ) from exc
    if not isinstance(config, dict):
        raise ModelFileError(
            f"load: the {CONFIG_ATTR!r} attribute of {name!r} must hold a JSON object; got "
            f"{type(config).__name__}. The file is damaged; save the model again."
        )
    kind = config.get("model")
    if isinstance(kind, str) and isinstance(_LOADERS.get(kind), str):
        importlib.import_module(_LOADERS[kind])  # its module registers the reader
    if not isinstance(kind, str) or not callable(_LOADERS.get(kind)):
        known = sorted(_LOADERS)
        raise ModelFileError(
            f"load: {name!r} holds a model of kind {kind!r}, which is not one bayesnb knows "
            f"(known: {known!r}). A kind defined in a module registers itself on import: "
            "import that module first, or save the model again."
        )
    try:
        return _LOADERS[kind](ds, config)
    except ModelFileError as exc:
        raise ModelFileError(f"load: {name!r}: {exc}") from exc
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        detail = f"missing entry {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelFileError(
            f"load: {name!r} is inconsistent ({type(exc).__name__}: {detail}); the file is "
            "damaged or was edited. Save the model again."
        ) from exc


def _read_fitted(cls, ds: xr.Dataset, config: dict):
    """The fitted model of class ``cls`` saved in ``ds`` (see :meth:`FittedModel.save`),
    checked against the schema every family declares (:func:`_family_from_config`)."""
    for key in ("labels", "blocks", "estimates", "class_prior", "feature_names", "is_frame"):
        if key not in config:
            raise ModelFileError(f"the model's configuration lacks the entry {key!r}.")
    if "diagnostics" in config and cls._restore is FittedModel._restore:
        # only a mixture writes EM's diagnostics; another kind would take its expected
        # (soft) counts for observed ones (an exact posterior, an update by new rows)
        raise ModelFileError(
            f"the file's 'model' entry says {cls.__name__}, but the file holds EM's "
            "diagnostics ('diagnostics'), which only a mixture (MixtureFit) saves: it is "
            "a mixture file whose 'model' entry was changed, and a mixture's expected "
            "counts are no classifier's observed ones. Save the mixture again (its "
            "'model' is then 'MixtureFit'), or fit a classifier on labelled rows "
            "(NaiveBayes().fit(X, y)) and save that."
        )
    labels = _decode_values(config["labels"], "labels")
    if not isinstance(labels, list) or not labels:
        raise ModelFileError(f"'labels' must be a non-empty list; got {config['labels']!r}.")
    if len(set(map(_hashable, labels))) != len(labels):
        raise ModelFileError(f"'labels' must be distinct; got {labels!r}.")
    cls._check_saved_labels(labels)
    k = len(labels)
    if not isinstance(config["blocks"], list) or not config["blocks"]:
        raise ModelFileError(f"'blocks' must be a non-empty list; got {config['blocks']!r}.")
    blocks = [_family_from_config(c, i) for i, c in enumerate(config["blocks"])]
    names = [b.name for b in blocks]
    if len(set(names)) != len(names):
        raise ModelFileError(f"the features' names must be distinct; got {names!r}.")
    feature_names = _decode_values(config["feature_names"], "feature_names")
    columns = [c for b in blocks for c in b.columns]
    if not isinstance(feature_names, list) or sorted(map(repr, feature_names)) != sorted(
        map(repr, columns)
    ):
        raise ModelFileError(
            f"'feature_names' {feature_names!r} must list the features' columns {columns!r}."
        )
    if not isinstance(config["is_frame"], bool):
        raise ModelFileError(f"'is_frame' must be true or false; got {config['is_frame']!r}.")
    estimates = _check_estimates(config["estimates"], names)
    class_prior = _prior_from_config(config["class_prior"], "class_prior")
    if not isinstance(class_prior, Dirichlet | PointMass):
        raise ModelFileError(
            f"'class_prior' must be a Dirichlet or a PointMass; got {class_prior!r}."
        )
    class_counts = _stat_array(ds, "class_counts", (k,), "class_counts")
    stats, saved_params = [], {}
    expected_keys = set()
    for i, block in enumerate(blocks):
        stats.append(_saved_arrays(ds, f"stat_{i}_", _stat_shapes(block, k), block, "statistics"))
        expected_keys |= {f"stat_{i}_{key}" for key in stats[-1]}
        if block.generalized:
            saved_params[i] = _saved_arrays(
                ds, f"param_{i}_", _param_shapes(block, k), block, "parameters"
            )
            expected_keys |= {f"param_{i}_{key}" for key in saved_params[i]}
    extra = sorted(set(ds.data_vars) - expected_keys - {"class_counts"})
    if extra:
        raise ModelFileError(f"the file holds variables no feature declares: {extra[:10]!r}.")
    _check_counts_within_classes(blocks, stats, class_counts, labels)
    with warnings.catch_warnings():  # the fit already warned about any zero probability
        warnings.simplefilter("ignore", ZeroProbabilityWarning)
        fit = cls.from_statistics(
            labels=labels,
            blocks=blocks,
            stats=stats,
            class_counts=class_counts,
            class_prior=class_prior,
            estimates=estimates,
            feature_names=feature_names,
            is_frame=config["is_frame"],
            target=_decode_values(config.get("target", "label"), "target"),
            column_dtypes=_saved_dtypes(config, feature_names),
            column_labels=_labels_from_config(config.get("column_labels"), feature_names),
        )
    for i, params in saved_params.items():  # EM's last generalized step, as it was
        fit.block_params[i] = params
    if "scoring" in config:  # the fit's own groups: its sums, in the same order
        fit._saved_scoring = _scoring_from_config(config["scoring"], len(blocks))
    fit._restore(config)
    return fit


def _saved_dtypes(config: dict, feature_names: list) -> dict | None:
    """The training frame's dtypes the file saved (None for an array), checked to
    give one to every feature: a drawn feature's values are cast to its column's."""
    if "column_dtypes" not in config:
        return None
    dtypes = _dtypes_from_config(config["column_dtypes"])
    missing = [name for name in feature_names if str(name) not in dtypes]
    if missing:
        raise ModelFileError(
            f"'column_dtypes' must give the training frame's dtype of every feature; it "
            f"lacks {missing[:10]!r} (it has the columns {list(dtypes)[:10]!r}). The file is "
            "damaged or was edited; save the model again."
        )
    return dtypes


#: How far (relative to the class's count) a feature's counts of one class may exceed
#: the class's count: the round-off of sums of weights, never a row's weight.
_COUNT_SLACK = 1e-6


def _observed_by_class(block: Family, stats: dict) -> np.ndarray | None:
    """The weight of every class's rows that ``block`` saw a value of, per column
    (K, columns), from its statistics; None for a Multinomial (its counts are words,
    not rows)."""
    if block.kind == "bernoulli":
        return stats["counts"].sum(axis=-1)
    if block.kind in ("categorical", "binned"):
        flat = stats["counts"].reshape(len(stats["counts"]), -1)
        starts = np.concatenate([[0], np.cumsum(block.column_sizes())[:-1]]).astype(np.intp)
        return np.add.reduceat(flat, starts, axis=1)
    if block.kind in ("gaussian", "gamma"):
        return stats["n"]
    if block.kind == "multivariate_gaussian":
        return stats["n"][:, None]
    return None


def _check_counts_within_classes(blocks, stats, class_counts, labels) -> None:
    """Every feature's statistics count at most the rows of each class: a row with
    the feature's value missing counts in the class and not in the feature, so the
    feature's counts of a class sum to its count or less (with weights, the same of
    the weights), never to more. More is a file whose statistics and class counts do
    not come from the same rows."""
    for block, st in zip(blocks, stats, strict=True):
        seen = _observed_by_class(block, st)
        if seen is None:
            continue
        limit = class_counts[:, None] * (1.0 + _COUNT_SLACK) + _COUNT_SLACK
        over = np.argwhere(seen > limit)
        if over.size:
            k, j = over[0]
            column = f" column {block.columns[j]!r}" if block.n_columns > 1 else ""
            raise ModelFileError(
                f"feature {block.name!r} ({block.kind}){column} counts "
                f"{float(seen[k, j]):.10g} observed values in class {labels[k]!r}, whose "
                f"count (class_counts) is {float(class_counts[k]):.10g}: a feature's "
                "counts of a class sum to at most the class's count (less where values "
                "are missing). The statistics and the class counts do not come from the "
                "same rows, so the file is damaged or was edited. Save the model again "
                "from the fitted object, or refit it."
            )


def _scoring_from_config(value, n_blocks: int) -> list[list[int]]:
    """The saved ``scoring`` groups, checked: lists of block positions that hold every
    position once."""
    ok = isinstance(value, list) and all(
        isinstance(g, list) and g and all(type(i) is int for i in g) for g in value
    )
    if not ok or sorted(i for g in value for i in g) != list(range(n_blocks)):
        raise ModelFileError(
            f"'scoring' must list every block position 0..{n_blocks - 1} once, in groups; "
            f"got {value!r}."
        )
    return value


def _saved_arrays(ds, prefix: str, shapes: dict, block: Family, what: str) -> dict:
    """The arrays ``prefix + key`` of ``ds`` for every key of ``shapes``, checked: no
    other array has the prefix, and each has its shape and finite values."""
    present = {v[len(prefix) :] for v in ds.data_vars if v.startswith(prefix)}
    if present != set(shapes):
        raise ModelFileError(
            f"feature {block.name!r} ({block.kind}) needs the {what} {sorted(shapes)!r}; "
            f"the file has {sorted(present)!r}."
        )
    return {
        key: _stat_array(
            ds,
            prefix + key,
            shape,
            f"{key} of feature {block.name!r}",
            signed=(block.kind, key) in SIGNED_STATS,
        )
        for key, shape in shapes.items()
    }


def _stat_array(ds, var: str, shape: tuple, what: str, *, signed: bool = False) -> np.ndarray:
    """The statistic ``var`` of ``ds``: present, of ``shape``, finite (and >= 0 unless
    ``signed``)."""
    if var not in ds.data_vars:
        raise ModelFileError(f"the statistic {var!r} ({what}) is missing.")
    values = ds[var].values
    if values.dtype.kind not in "iuf":
        raise ModelFileError(f"the statistic {var!r} ({what}) must be numbers; got {values.dtype}.")
    if values.shape != tuple(shape):
        raise ModelFileError(
            f"the statistic {var!r} ({what}) has shape {values.shape}; the model's labels and "
            f"feature declare {tuple(shape)}."
        )
    values = values.astype(float, copy=False)
    if not np.all(np.isfinite(values)):
        raise ModelFileError(f"the statistic {var!r} ({what}) has non-finite values.")
    if not signed and np.any(values < 0):
        raise ModelFileError(
            f"the statistic {var!r} ({what}) has negative values (minimum {values.min()!r}); "
            "counts are >= 0."
        )
    return values


def _stat_shapes(block: Family, k: int) -> dict:
    """The statistics a bound family keeps and their shapes, for ``k`` labels."""
    d = block.n_columns
    if block.kind == "bernoulli":
        return {"counts": (k, d, 2)}
    if block.kind == "multinomial":
        return {"counts": (k, d)}
    if block.kind in ("categorical", "binned"):
        sizes = block.column_sizes()  # categories, and a "<new>" cell when predictive
        if block.categories is not None and d > 1:
            return {"counts": (k, d, sizes[0])}
        return {"counts": (k, sum(sizes))}
    if block.kind == "gaussian":
        return {key: (k, d) for key in GAUSSIAN_STATS}
    if block.kind == "gamma":
        return {key: (k, d) for key in ("n", "sum", "sum_log")}
    if block.kind == "multivariate_gaussian":
        diagonal = block.covariance in DIAGONAL_COVARIANCES
        return {"n": (k,), "mean": (k, d), "scatter": (k, d) if diagonal else (k, d, d)}
    raise ModelFileError(f"no schema for the family kind {block.kind!r}.")  # pragma: no cover


def _param_shapes(block: Family, k: int) -> dict:
    """The parameters a generalized family's fit keeps beside its statistics."""
    if block.kind == "gamma":
        return {key: (k, block.n_columns) for key in ("shape", "rate")}
    raise ModelFileError(f"no schema for the family kind {block.kind!r}.")  # pragma: no cover


#: The statistics of a Gaussian block, each (labels, columns).
GAUSSIAN_STATS = ("n", "mean", "ss")
#: The family kinds a saved file has a schema for (:func:`_stat_shapes`).
SAVED_KINDS = (
    "bernoulli",
    "multinomial",
    "categorical",
    "binned",
    "gaussian",
    "multivariate_gaussian",
    "gamma",
)
#: The statistics that may be negative: means, a scatter matrix's off-diagonal
#: entries, a sum of logarithms.
SIGNED_STATS = {
    ("gaussian", "mean"),
    ("multivariate_gaussian", "mean"),
    ("multivariate_gaussian", "scatter"),
    ("gamma", "sum_log"),
}


def _check_estimates(estimates, names: list) -> dict:
    if (
        not isinstance(estimates, dict)
        or set(estimates) != {"class", "features"}
        or not isinstance(estimates["features"], dict)
    ):
        raise ModelFileError(
            f"'estimates' must be {{'class': ..., 'features': {{name: ...}}}}; got {estimates!r}."
        )
    if set(estimates["features"]) != set(names):
        raise ModelFileError(
            f"'estimates' names the features {sorted(estimates['features'])!r}; the blocks are "
            f"{sorted(names)!r}."
        )
    for what, value in [("class", estimates["class"]), *estimates["features"].items()]:
        if value not in ESTIMATES:
            raise ModelFileError(
                f"the estimate of {what!r} is {value!r}; it must be one of {ESTIMATES}."
            )
    return estimates


def feature_log_likelihood(
    blocks, encoded: list, block_params: list, *, posterior: bool = False
) -> np.ndarray:
    """``sum_i log p(x_i | c)`` over every block, shape (n, K): the classifier's and the
    E-step's kernel (without the class log-probabilities). ``posterior=True``: up to a
    constant of every row, all that the posterior over the classes depends on (see
    :meth:`bayesnb.families.Family.posterior_scores`)."""
    jll = None
    for block, enc, params in zip(blocks, encoded, block_params, strict=True):
        if posterior:
            term = block.posterior_scores(enc, params)
        else:
            term = block.log_likelihood(enc, params)
        jll = term if jll is None else jll.__iadd__(term)
    if jll is None:
        raise InputError("the model has no feature to score: declare at least one feature.")
    return jll


def estimate_all(
    blocks, stats, class_counts, class_prior, estimates, labels=None, current=None
) -> tuple[list, np.ndarray]:
    """Parameters of every block and the class log-probabilities from statistics
    (``labels`` names the classes in error messages; ``current``, every block's
    parameters now, lets a generalized family step from them)."""
    params = estimate_blocks(blocks, stats, estimates["features"], labels, current)
    return params, estimate_class(class_counts, class_prior, estimates)


def estimate_class(class_counts, class_prior, estimates) -> np.ndarray:
    """The class log-probabilities from the class counts, by ``estimates["class"]``."""
    return class_prior.with_categories(len(class_counts)).point_estimate(
        class_counts, estimates["class"], what="the class prior"
    )


# -- the saved configuration: values and families ---------------------------------------------
#
# Labels, categories and column names go to JSON as themselves when JSON holds them
# (str, int, float, bool, None) and otherwise as a one-key object naming their type, so
# that every one comes back as the type it was: ``{"__numpy__": [dtype, value]}`` for a
# NumPy scalar, ``{"__datetime64__": iso}``, ``{"__timestamp__": [iso, tz]}``,
# ``{"__datetime__": iso}``, ``{"__date__": iso}``, ``{"__timedelta64__": [n, unit]}``,
# ``{"__timedelta__": microseconds}`` (``{"__pd_timedelta__": nanoseconds}`` for
# pandas'), ``{"__tuple__": [...]}`` and ``{"__list__": [...]}`` (a list that is a
# value, inside a list of values).

_TAGS = (
    "__numpy__",
    "__datetime64__",
    "__timedelta64__",
    "__timestamp__",
    "__pd_timedelta__",
    "__datetime__",
    "__date__",
    "__timedelta__",
    "__tuple__",
    "__list__",
)


def _encode_value(value, where: str):
    """One label, category or column name as JSON (see the tags above)."""
    import pandas as pd

    if value is None or (
        isinstance(value, str | bool | int | float) and not isinstance(value, np.generic)
    ):
        return value
    if isinstance(value, np.datetime64):
        return {
            "__datetime64__": str(value)
            if not np.isnat(value)
            else ["NaT", np.datetime_data(value.dtype)[0]]
        }
    if isinstance(value, np.timedelta64):
        unit, _ = np.datetime_data(value.dtype)
        return {"__timedelta64__": [None if np.isnat(value) else int(value.astype(np.int64)), unit]}
    if isinstance(value, np.generic) and value.dtype.kind in "biufU":
        return {"__numpy__": [value.dtype.str, value.item()]}
    if isinstance(value, pd.Timestamp):
        return {"__timestamp__": [value.isoformat(), None if value.tz is None else str(value.tz)]}
    if isinstance(value, pd.Timedelta):
        return {"__pd_timedelta__": int(value.value)}
    if isinstance(value, datetime.datetime):
        return {"__datetime__": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"__date__": value.isoformat()}
    if isinstance(value, datetime.timedelta):
        return {"__timedelta__": (value.days * 86400 + value.seconds) * 10**6 + value.microseconds}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode_value(v, where) for v in value]}
    raise InputTypeError(
        f"save: {where} holds the value {value!r} of type {type(value).__name__}, which a saved "
        "model cannot hold. Labels, categories and column names may be str, numbers, bools, "
        "dates and times (datetime, pandas.Timestamp, numpy.datetime64) and tuples of them; "
        "convert the others (e.g. with str) before fitting."
    )


def _encode_values(value, where: str):
    """``value`` (a value, or a list of values or of lists of values) as JSON."""
    if isinstance(value, np.ndarray):
        value = list(value)
    if isinstance(value, list):
        return [_encode_values(v, where) for v in value]
    return _encode_value(value, where)


def _decode_value(value, where: str):
    import pandas as pd

    if not isinstance(value, dict):
        if isinstance(value, list):
            return [_decode_value(v, where) for v in value]
        if value is None or isinstance(value, str | bool | int | float):
            return value
        raise ModelFileError(f"{where}: {value!r} is not a value a saved model holds.")
    if len(value) != 1 or next(iter(value)) not in _TAGS:
        raise ModelFileError(
            f"{where}: {value!r} is not a tagged value (one of the keys {list(_TAGS)!r})."
        )
    ((tag, body),) = value.items()
    try:
        if tag == "__numpy__":
            dtype, item = body
            if np.dtype(dtype).kind not in "biufU":
                raise ValueError(f"dtype {dtype!r}")
            return np.dtype(dtype).type(item)
        if tag == "__datetime64__":
            if isinstance(body, list):  # NaT with its unit
                return np.datetime64(body[0], body[1])
            return np.datetime64(body)
        if tag == "__timedelta64__":
            n, unit = body
            return np.timedelta64("NaT", unit) if n is None else np.timedelta64(int(n), unit)
        if tag == "__timestamp__":
            iso, tz = body
            stamp = pd.Timestamp(iso)
            if tz is not None:
                # a fixed offset has no zone name: the ISO string keeps it already
                with contextlib.suppress(Exception):
                    stamp = stamp.tz_convert(tz)
            return stamp
        if tag == "__pd_timedelta__":
            return pd.Timedelta(int(body), unit="ns")
        if tag == "__datetime__":
            return datetime.datetime.fromisoformat(body)
        if tag == "__date__":
            return datetime.date.fromisoformat(body)
        if tag == "__timedelta__":
            return datetime.timedelta(microseconds=int(body))
        if tag == "__tuple__":
            return tuple(_decode_value(v, where) for v in body)
        if not isinstance(body, list):
            raise TypeError(f"a list value is a JSON list, not {type(body).__name__}")
    except (TypeError, ValueError, OverflowError) as exc:
        raise ModelFileError(f"{where}: the value {value!r} cannot be read ({exc}).") from exc
    return [_decode_value(v, where) for v in body]  # "__list__"


def _decode_values(value, where: str):
    if isinstance(value, list):
        return [_decode_values(v, where) for v in value]
    return _decode_value(value, where)


#: Kept under its old name for modules that save configurations of their own.
_jsonable = _encode_values


def _hashable(value):
    return tuple(map(_hashable, value)) if isinstance(value, list) else value


def _prior_config(prior) -> dict:
    if prior is None:  # a family without a conjugate prior (Gamma)
        return {"type": "none"}
    if isinstance(prior, NormalInverseWishart):  # None: the data's default, kept as null
        return {
            "type": "NormalInverseWishart",
            **{
                k: None if getattr(prior, k) is None else np.asarray(getattr(prior, k)).tolist()
                for k in ("mu", "kappa", "nu", "psi")
            },
        }
    if isinstance(prior, PointMass):
        return {"type": "PointMass", "probs": prior.probs.tolist()}
    if isinstance(prior, Dirichlet):
        return {"type": type(prior).__name__, "alpha": np.asarray(prior.alpha, float).tolist()}
    return {
        "type": "NormalInverseGamma",
        **{
            k: np.asarray(getattr(prior, k), float).tolist()
            for k in ("mu", "kappa", "alpha", "beta")
        },
    }


def _numbers(value, what: str, *, positive: bool = False) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelFileError(f"{what} must be numbers; got {value!r}.") from None
    if not np.all(np.isfinite(arr)) or (positive and np.any(arr <= 0)):
        raise ModelFileError(
            f"{what} must be finite{' and > 0' if positive else ''}; got {arr.tolist()!r}."
        )
    return arr


def _prior_from_config(config, what: str):
    if not isinstance(config, dict) or "type" not in config:
        raise ModelFileError(
            f"the prior of {what} must be an object with a 'type'; got {config!r}."
        )
    kind = config["type"]
    keys = {
        "Beta": {"type", "alpha"},
        "Dirichlet": {"type", "alpha"},
        "NormalInverseGamma": {"type", "mu", "kappa", "alpha", "beta"},
        "NormalInverseWishart": {"type", "mu", "kappa", "nu", "psi"},
        "PointMass": {"type", "probs"},
        "none": {"type"},
    }
    if kind not in keys:
        raise ModelFileError(
            f"the prior of {what} has type {kind!r}; it must be one of {sorted(keys)!r}."
        )
    if set(config) != keys[kind]:
        raise ModelFileError(
            f"the {kind} prior of {what} must have the entries {sorted(keys[kind])!r}; got "
            f"{sorted(config)!r}."
        )
    if kind in ("Beta", "Dirichlet"):
        alpha = _numbers(
            config["alpha"], f"the concentration of the prior of {what}", positive=True
        )
        if kind == "Beta":  # stored in Dirichlet form, [false, true]
            if alpha.ndim < 1 or alpha.shape[-1] != 2:
                raise ModelFileError(
                    f"the Beta prior of {what} must be stored as [b, a] pairs; got shape "
                    f"{alpha.shape}."
                )
            return Beta(alpha[..., 1], alpha[..., 0])
        return Dirichlet(alpha)
    if kind == "PointMass":
        try:
            return PointMass(config["probs"])
        except (InputError, InputTypeError) as exc:
            raise ModelFileError(f"the PointMass prior of {what}: {exc}") from None
    if kind == "none":
        return None
    if kind == "NormalInverseWishart":
        values = {
            k: None if config[k] is None else _numbers(config[k], f"{k} of the prior of {what}")
            for k in ("mu", "kappa", "nu", "psi")
        }
        try:
            return NormalInverseWishart(**values)
        except (InputError, InputTypeError) as exc:
            raise ModelFileError(f"the NormalInverseWishart prior of {what}: {exc}") from None
    values = {
        k: _numbers(config[k], f"{k} of the prior of {what}", positive=k != "mu")
        for k in ("mu", "kappa", "alpha", "beta")
    }
    return NormalInverseGamma(**values)


#: Families whose draws are the data's own values (categories, 0/1, counts), given back
#: in the training column's dtype; the others draw floats (a Binned value in its bin).
_DRAWN_IN_DATA_TYPE = ("bernoulli", "categorical", "multinomial")


def _in_training_type(draws: np.ndarray, dtype, block: Family, j: int):
    """Column ``j``'s ``draws`` in the training column's ``dtype``: a Boolean column's
    0/1 as Booleans, a pandas categorical's values as that categorical (its own
    categories, in their order; a Dask frame's unknown ones are the block's), a
    nullable or string column in its own dtype. An object column's draws stay as they
    are, and so do draws that hold the ``"<new>"`` cell of ``unseen="predictive"``,
    which is no value of the column's type."""
    if dtype == np.dtype(object) or _holds_new_cell(draws, block):
        return draws
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        if cats is None or "__UNKNOWN_CATEGORIES__" in cats:
            cats = getattr(block, "column_categories", None)
            cats = list(cats[j]) if cats is not None else block.category_labels()
            dtype = pd.CategoricalDtype(cats, dtype.ordered)
        codes = dtype.categories.get_indexer(draws)
        return draws if (codes < 0).any() else pd.Categorical.from_codes(codes, dtype=dtype)
    return pd.Series(draws, copy=False).astype(dtype).array


def _other_float(dtype) -> bool:
    """Whether ``dtype`` is a floating dtype other than NumPy's float64 (float32, or
    pandas' nullable ``Float64``): a continuous family's draws, float64, are given back
    in it. An integer column's continuous draws stay float64 (rounding them would change
    their distribution), and so do a Binned column's (rounding may move a draw across
    an edge into the next bin)."""
    if isinstance(dtype, np.dtype):
        return dtype.kind == "f" and dtype != np.float64
    return isinstance(dtype, pd.api.extensions.ExtensionDtype) and pd.api.types.is_float_dtype(
        dtype
    )


def _holds_new_cell(draws: np.ndarray, block: Family) -> bool:
    """Whether a block under ``unseen="predictive"`` drew its ``"<new>"`` cell."""
    if getattr(block, "unseen", None) != "predictive":
        return False
    return any(isinstance(v, str) and v == NEW_CATEGORY for v in pd.unique(draws))


def _column_name(label) -> str:
    """A frame's column label as the feature name a :class:`~bayesnb._data.Table` gives
    it: a str as it is, anything else (an int, a tuple) as its ``str``."""
    return label if type(label) is str else str(label)


def _by_feature_name(dtypes: dict | None) -> tuple[dict | None, dict]:
    """``dtypes`` (keyed by a frame's own column labels, or by feature name) keyed by
    feature name, and ``{feature name: label}`` of the labels that are no str."""
    if dtypes is None:
        return None, {}
    own = {_column_name(c): c for c in dtypes if type(c) is not str}
    if not own:
        return dtypes, own
    return {_column_name(c): d for c, d in dtypes.items()}, own


def _labels_from_config(value, feature_names: list) -> dict | None:
    """The saved ``column_labels`` (the training frame's own label of every feature, in
    the order of ``feature_names``) as ``{feature name: label}``, checked: one label per
    feature, each the one its name is the string of."""
    if value is None:
        return None
    labels = _decode_values(value, "column_labels")
    if (
        not isinstance(labels, list)
        or len(labels) != len(feature_names)
        or any(isinstance(c, list) for c in labels)
        or [_column_name(c) for c in labels] != list(feature_names)
    ):
        raise ModelFileError(
            f"'column_labels' must give the training frame's own column label of every "
            f"feature, in the order of 'feature_names' {feature_names[:10]!r} (each label's "
            f"str its feature's name); got {labels!r}. The file is damaged or was edited; "
            "save the model again."
        )
    return dict(zip(feature_names, labels, strict=True))


def _dtypes_config(dtypes: dict) -> dict:
    """``column_dtypes`` as JSON, one entry per column (see :func:`_dtype_config`)."""
    return {str(col): _dtype_config(d, f"column {col!r}") for col, d in dtypes.items()}


def _dtype_config(d, where: str):
    """One column's dtype as JSON, so that :func:`_dtype_from_config` gives back an
    equal dtype: its name when pandas reads the name back as the same dtype; for a
    pandas string dtype its storage and missing value (``{"string": storage,
    "na_value": "NA" | "nan"}``, the name ``"string"`` saying neither); for a pyarrow
    dtype the pyarrow type (``{"arrow": type}``); for a categorical its categories (in
    their order), whether they are ordered and the categories' own dtype."""
    if isinstance(d, pd.CategoricalDtype):
        cats = None if d.categories is None else list(d.categories)
        known = cats is not None and "__UNKNOWN_CATEGORIES__" not in cats
        out = {
            "categories": _encode_values(cats, where) if known else None,
            "ordered": bool(d.ordered),
        }
        if known:
            out["dtype"] = _dtype_config(d.categories.dtype, f"{where} (categories)")
        return out
    name = str(d)
    with contextlib.suppress(TypeError, ValueError, ImportError):
        if pd.api.types.pandas_dtype(name) == d:
            return name
    if isinstance(d, pd.StringDtype):
        return {"string": d.storage, "na_value": "NA" if d.na_value is pd.NA else "nan"}
    if isinstance(d, pd.ArrowDtype):
        return {"arrow": str(d.pyarrow_dtype)}
    return name


def _dtypes_from_config(value) -> dict:
    if not isinstance(value, dict):
        raise ModelFileError(f"'column_dtypes' must map columns to dtypes; got {value!r}.")
    return {col: _dtype_from_config(spec, col) for col, spec in value.items()}


def _dtype_from_config(spec, col: str):
    """The dtype :func:`_dtype_config` saved as ``spec`` for column ``col``."""

    def bad(why: str):
        return ModelFileError(
            f"'column_dtypes' gives column {col!r} the dtype {spec!r}, which {why}. The "
            "file is damaged or was edited; save the model again."
        )

    if isinstance(spec, dict) and set(spec) in ({"categories", "ordered"}, CATEGORICAL_SPEC):
        cats = spec["categories"]
        if cats is not None:
            cats = _decode_values(cats, f"column {col!r}")
            if not isinstance(cats, list):
                raise bad("is not a categorical: its categories are no list")
            if "dtype" in spec:  # the categories' own dtype (int8, timedelta64[us], ...)
                try:
                    cats = pd.Index(cats, dtype=_dtype_from_config(spec["dtype"], col))
                except (TypeError, ValueError, OverflowError) as err:
                    raise bad(f"does not hold its categories ({err})") from None
        if not isinstance(spec["ordered"], bool):
            raise bad("is not a categorical: 'ordered' must be true or false")
        try:
            return pd.CategoricalDtype(cats, ordered=spec["ordered"])
        except (TypeError, ValueError) as err:
            raise bad(f"is not a categorical pandas makes ({err})") from None
    if isinstance(spec, dict) and set(spec) == {"string", "na_value"}:
        if spec["string"] not in ("python", "pyarrow") or spec["na_value"] not in ("NA", "nan"):
            raise bad(
                "is not a string dtype (storage 'python' or 'pyarrow', na_value 'NA' or 'nan')"
            )
        na_value = pd.NA if spec["na_value"] == "NA" else np.nan
        try:
            return pd.StringDtype(spec["string"], na_value=na_value)
        except ImportError as err:
            raise bad(f"needs a package that is not installed ({err}); install pyarrow") from None
    if isinstance(spec, dict) and set(spec) == {"arrow"} and isinstance(spec["arrow"], str):
        try:
            import pyarrow as pa

            return pd.ArrowDtype(pa.type_for_alias(spec["arrow"]))
        except ImportError as err:
            raise bad(f"needs a package that is not installed ({err}); install pyarrow") from None
        except (TypeError, ValueError, KeyError):
            pass
        try:  # a type with parameters (a time zone, a precision) pandas parses itself
            return pd.api.types.pandas_dtype(f"{spec['arrow']}[pyarrow]")
        except (TypeError, ValueError):
            raise bad("pyarrow does not know") from None
    if not isinstance(spec, str):
        raise bad("pandas does not know")
    try:
        return pd.api.types.pandas_dtype(spec)
    except (TypeError, ValueError):
        raise bad("pandas does not know") from None


#: The entries of a saved categorical dtype (files written before its categories'
#: dtype was kept lack ``dtype``).
CATEGORICAL_SPEC = {"categories", "ordered", "dtype"}


def _family_config(block: Family) -> dict:
    state = {}
    for key, value in vars(block).items():
        if key == "prior":
            state[key] = _prior_config(value)
        elif key in _ARRAY_STATE:
            state[key] = None if value is None else np.asarray(value, float).tolist()
        elif key == "column_edges":  # a Binned block's edges, one array per column
            state[key] = None if value is None else [np.asarray(e, float).tolist() for e in value]
        elif key == "values" and isinstance(value, tuple):  # Bernoulli's (false, true)
            state[key] = _encode_values(list(value), f"feature {block.name!r} ({key})")
        else:
            state[key] = _encode_values(value, f"feature {block.name!r} ({key})")
    return {"kind": block.kind, "state": state}


#: State that is an array of floats (the rest are values, lists of values or names).
_ARRAY_STATE = ("edges", "data_mean", "data_cov")

#: What every bound family keeps beyond ``prior``, ``estimate``, ``columns`` and ``name``
#: (see :func:`_family_from_config`, which rebuilds each through its constructor).
FAMILY_STATE = {
    "bernoulli": ("values",),
    "categorical": ("categories", "unseen", "alpha_new", "column_categories"),
    "binned": (
        "categories",
        "unseen",
        "alpha_new",
        "column_categories",
        "edges",
        "bins",
        "n_bins",
        "outside",
        "column_edges",
    ),
    "multinomial": (),
    "gaussian": ("ddof", "var_floor"),
    "multivariate_gaussian": ("covariance", "data_mean", "data_cov"),
    "gamma": ("steps",),
}
_COMMON_STATE = ("prior", "estimate", "columns", "name")
#: The families without a conjugate prior: their saved prior is ``{"type": "none"}``.
_WITHOUT_PRIOR = ("gamma",)

#: State a file written before it existed may lack, and the value it then has.
_OPTIONAL_STATE = {
    "categorical": {"alpha_new": None},
    "gaussian": {"var_floor": 0.0},
    "binned": {
        "alpha_new": None,
        "bins": None,
        "n_bins": None,
        "outside": "error",
        "column_edges": None,
    },
}


def _family_from_config(config, index: int = 0) -> Family:
    """Rebuild the bound family of ``blocks[index]`` through its constructor, checking
    every entry of its saved state against :data:`FAMILY_STATE`."""

    where = f"blocks[{index}]"
    if not isinstance(config, dict) or not isinstance(config.get("state"), dict):
        raise ModelFileError(f"{where} must be {{'kind': ..., 'state': {{...}}}}; got {config!r}.")
    kind = config.get("kind")
    if kind not in FAMILIES or kind not in FAMILY_STATE:
        raise ModelFileError(
            f"{where} has the family kind {kind!r}; bayesnb knows {sorted(FAMILY_STATE)!r}."
        )
    state = {**_OPTIONAL_STATE.get(kind, {}), **config["state"]}
    expected = set(_COMMON_STATE) | set(FAMILY_STATE[kind])
    if set(state) != expected:
        raise ModelFileError(
            f"{where} ({kind}) must hold the state {sorted(expected)!r}; got {sorted(state)!r}"
            f" (missing {sorted(expected - set(state))!r}, unknown "
            f"{sorted(set(state) - expected)!r})."
        )
    name = state["name"]
    if not isinstance(name, str):
        raise ModelFileError(f"{where}: the feature's name must be a string; got {name!r}.")
    where = f"feature {name!r} ({kind})"
    estimate = state["estimate"]
    if estimate is not None and estimate not in ESTIMATES:
        raise ModelFileError(
            f"{where}: estimate must be None or one of {ESTIMATES}; got {estimate!r}."
        )
    columns = _decode_values(state["columns"], f"{where}: columns")
    if (
        not isinstance(columns, list)
        or not columns
        or len(set(map(_hashable, columns))) != len(columns)
    ):
        raise ModelFileError(
            f"{where}: columns must be a non-empty list of distinct names; got {columns!r}."
        )
    prior = _prior_from_config(state["prior"], where)
    if (prior is None) != (kind in _WITHOUT_PRIOR):
        raise ModelFileError(
            f"{where}: the prior must be "
            f"{'none' if kind in _WITHOUT_PRIOR else 'a conjugate prior'} for this family; "
            f"got {state['prior']!r}."
        )
    common = {"estimate": estimate, "columns": columns}
    d = len(columns)
    if kind == "bernoulli":
        values = _decode_values(state["values"], f"{where}: values")
        if not isinstance(values, list) or len(values) != 2 or values[0] == values[1]:
            raise ModelFileError(f"{where}: values must be two distinct values; got {values!r}.")
        block = FAMILIES[kind](prior, values=values, **common)
    elif kind == "multinomial":
        block = FAMILIES[kind](prior, **common)
    elif kind == "multivariate_gaussian":
        block = _multivariate_from_state(state, prior, common, d, where)
    elif kind == "gamma":
        steps = state["steps"]
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int)):
            raise ModelFileError(f"{where}: steps must be an int or null; got {steps!r}.")
        try:
            block = FAMILIES[kind](prior, steps=steps, **common)
        except (InputError, InputTypeError) as err:
            raise ModelFileError(f"{where}: {err}") from None
    elif kind == "gaussian":
        ddof = state["ddof"]
        if ddof not in (0, 1) or isinstance(ddof, bool):
            raise ModelFileError(f"{where}: ddof must be 0 or 1; got {ddof!r}.")
        var_floor = state["var_floor"]
        if isinstance(var_floor, bool) or not isinstance(var_floor, int | float):
            raise ModelFileError(f"{where}: var_floor must be a number; got {var_floor!r}.")
        try:
            block = FAMILIES[kind](prior, ddof=ddof, var_floor=var_floor, **common)
        except InputError as err:
            raise ModelFileError(f"{where}: {err}") from None
        try:
            prior.check_shape(d, what=where)
        except InputError as err:
            raise ModelFileError(f"{where}: {err}") from None
    else:  # categorical, binned
        categories = _decode_values(state["categories"], f"{where}: categories")
        per_column = _decode_values(state["column_categories"], f"{where}: column_categories")
        allowed = ("marginalize", "error") if kind == "binned" else UNSEEN_POLICIES
        if state["unseen"] not in allowed:
            raise ModelFileError(
                f"{where}: unseen must be one of {list(allowed)!r}; got {state['unseen']!r}."
            )
        if kind == "binned":
            block = _binned_from_state(state, prior, common, d, where)
            if categories != block.categories or per_column != block.column_categories:
                raise ModelFileError(
                    f"{where}: categories {categories!r} and column_categories "
                    f"{per_column!r} are not the bins of its edges "
                    f"{block.column_categories!r}."
                )
        else:
            try:
                block = FAMILIES[kind](
                    prior,
                    categories=categories,
                    unseen=state["unseen"],
                    alpha_new=state["alpha_new"],
                    **common,
                )
            except InputError as err:
                raise ModelFileError(f"{where}: {err}") from None
        if (
            not isinstance(per_column, list)
            or len(per_column) != d
            or any(not isinstance(c, list) or not c for c in per_column)
            or any(len(set(map(_hashable, c))) != len(c) for c in per_column)
        ):
            raise ModelFileError(
                f"{where}: column_categories must hold one non-empty list of distinct values "
                f"per column ({d}); got {per_column!r}."
            )
        if categories is not None and any(c != categories for c in per_column):
            raise ModelFileError(
                f"{where}: column_categories {per_column!r} differ from the shared categories "
                f"{categories!r}."
            )
        block.column_categories = per_column
    block.name = name
    return block


def _multivariate_from_state(state: dict, prior, common: dict, d: int, where: str):
    """A bound MultivariateGaussian rebuilt from its saved state: its covariance type,
    and the training rows' mean (d,) and covariance (d, d) that centre its encoding
    and resolve its default prior (checked to resolve for these columns)."""
    try:
        block = FAMILIES["multivariate_gaussian"](prior, covariance=state["covariance"], **common)
    except (InputError, InputTypeError) as err:
        raise ModelFileError(f"{where}: {err}") from None
    mean = _numbers(state["data_mean"], f"{where}: data_mean")
    cov = _numbers(state["data_cov"], f"{where}: data_cov")
    if mean.shape != (d,) or cov.shape != (d, d):
        raise ModelFileError(
            f"{where}: data_mean must be ({d},) and data_cov ({d}, {d}); got shapes "
            f"{mean.shape} and {cov.shape}."
        )
    # (files written before the scatter was made symmetric may differ in the last bits)
    if not np.allclose(cov, cov.T, rtol=1e-12, atol=0.0):
        raise ModelFileError(f"{where}: data_cov must be a symmetric matrix; got {cov.tolist()}.")
    block.data_mean, block.data_cov = mean, cov
    try:
        block.resolved_prior(2)
    except InputError as err:
        raise ModelFileError(f"{where}: {err}") from None
    return block


def _binned_from_state(state: dict, prior, common: dict, d: int, where: str):
    """A bound Binned block rebuilt from its saved state: its declaration (edges, or
    the rule it learnt them by) and every column's edges, exactly as saved."""
    if state["alpha_new"] is not None:
        raise ModelFileError(f"{where}: alpha_new must be null; got {state['alpha_new']!r}.")
    edges = None if state["edges"] is None else _numbers(state["edges"], f"{where}: edges")
    try:
        block = FAMILIES["binned"](
            edges,
            prior,
            bins=state["bins"],
            n_bins=state["n_bins"],
            outside=state["outside"],
            **common,
        )
    except InputError as err:
        raise ModelFileError(f"{where}: {err}") from None
    saved = state["column_edges"]
    if saved is None:
        if edges is None:
            raise ModelFileError(f"{where}: learnt edges (bins={state['bins']!r}) are missing.")
        saved = [edges] * d
    if not isinstance(saved, list) or len(saved) != d:
        raise ModelFileError(
            f"{where}: column_edges must hold one list of edges per column ({d}); got {saved!r}."
        )
    column_edges = [_numbers(e, f"{where}: column_edges[{j}]") for j, e in enumerate(saved)]
    for j, e in enumerate(column_edges):
        if e.ndim != 1 or len(e) < 2 or np.any(e[1:] <= e[:-1]):
            raise ModelFileError(
                f"{where}: column_edges[{j}] must be at least two strictly increasing "
                f"numbers; got {e.tolist()!r}."
            )
        if edges is not None and not np.array_equal(e, edges):
            raise ModelFileError(
                f"{where}: column_edges[{j}] {e.tolist()!r} differ from the declared edges "
                f"{edges.tolist()!r}."
            )
    block.unseen = state["unseen"]
    block.set_edges(column_edges)
    return block
