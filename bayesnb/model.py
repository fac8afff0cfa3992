"""What every fitted model shares: blocks of families, the joint log-likelihood kernel,
prediction, xarray export and netCDF persistence.

A fitted model is a value: a list of bound families, their sufficient statistics
and parameters, and the class (or component) log-probabilities. The classifier
(:class:`bayesnb.NaiveBayesFit`) and the mixture share this class.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import xarray as xr

from bayesnb._data import Table
from bayesnb.families import FAMILIES, Family
from bayesnb.families.base import FusedScorer, estimate_blocks
from bayesnb.priors import Beta, Dirichlet, NormalInverseGamma, ZeroProbabilityWarning


def log_normalize(jll: np.ndarray) -> np.ndarray:
    """Subtract the log-sum-exp of every row: log-probabilities that sum to one.

    A row where every entry is ``-inf`` (every class ruled out by a zero probability)
    has no posterior and raises a ``ValueError`` that names it.

    The work runs components first, on a (K, n) copy, so that every reduction over
    the few classes is an elementwise operation on long rows; the result is the
    (n, K) transpose of that copy.
    """
    out = _shifted_components_first(jll)
    total = np.exp(out).sum(axis=0)
    out -= np.log(total, out=total)
    return out.T


def normalize(jll: np.ndarray) -> np.ndarray:
    """Posterior probabilities ``exp(log_normalize(jll))``, without the logarithms.

    Each row is shifted by its maximum, exponentiated and divided by its sum; a row
    that is ``-inf`` everywhere raises as in :func:`log_normalize`.
    """
    out = _shifted_components_first(jll)
    np.exp(out, out=out)
    out /= out.sum(axis=0)
    return out.T


def _shifted_components_first(jll: np.ndarray) -> np.ndarray:
    """A (K, n) copy of ``jll`` minus the maximum of every row (a finite one)."""
    out = np.array(jll.T, dtype=float, order="C")
    top = out.max(axis=0)
    bad = ~np.isfinite(top)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"row {row} has likelihood 0 under every class ({int(bad.sum())} such row(s)): "
            "each class gives probability 0 to one of its values. Fit with "
            "estimate='mean' or 'map' under a prior with alpha > 1 to smooth the zeros."
        )
    out -= top
    return out


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

    label_dim = "label"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        register_loader(cls.__name__, lambda ds, config: _read_fitted(cls, ds, config))

    def __init__(
        self,
        *,
        labels,
        blocks,
        stats,
        block_params,
        class_counts,
        class_log_prob,
        class_prior,
        estimates,
        feature_names,
        is_frame,
        target="label",
    ):
        self.labels = list(labels)
        self.blocks: list[Family] = blocks
        self.stats = stats
        self.block_params = block_params
        self.class_counts = np.asarray(class_counts, float)
        self.class_log_prob = np.asarray(class_log_prob, float)
        self.class_prior = class_prior
        self.estimates = estimates
        self.feature_names = (
            feature_names if isinstance(feature_names, list) else list(feature_names)
        )
        self.is_frame = is_frame
        self.target = target

    @classmethod
    def from_statistics(
        cls, *, labels, blocks, stats, class_counts, class_prior, estimates, **kwargs
    ):
        """Estimate every parameter from sufficient statistics and build the fitted model."""
        block_params, class_log_prob = estimate_all(
            blocks, stats, class_counts, class_prior, estimates
        )
        return cls(
            labels=labels,
            blocks=blocks,
            stats=stats,
            block_params=block_params,
            class_counts=class_counts,
            class_log_prob=class_log_prob,
            class_prior=class_prior,
            estimates=estimates,
            **kwargs,
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
            kind = "a DataFrame" if self.is_frame else "an array"
            raise TypeError(f"the model was fit on {kind}; give X in the same form.")
        if not table.is_frame:
            if len(table.names) != len(self.feature_names):
                raise ValueError(
                    f"X has {len(table.names)} columns; the model was fit on "
                    f"{len(self.feature_names)}."
                )
            if not isinstance(X, Table):  # an array's columns are the model's, in order
                table.names = self.feature_names
        if table.names is not self.feature_names:
            present = set(table.names)
            missing = [c for c in self.feature_names if c not in present]
            if missing:
                raise ValueError(
                    f"X lacks the feature column(s) {missing[:10]!r} the model was fit on. "
                    "Give every feature; put NaN where a value is missing."
                )
        if not table.is_frame and table.names != self.feature_names:
            raise ValueError(
                f"X has columns {table.names[:5]!r}...; the model was fit on "
                f"{self.feature_names[:5]!r}... in that order."
            )
        return table

    def _scores(self, X, *, posterior: bool = False) -> np.ndarray:
        """:meth:`_joint` of ``X``, adjacent single-column features scored as one block
        (:class:`bayesnb.families.base.FusedScorer`, made once per fitted model)."""
        scorer = self.__dict__.get("_scorer")
        if scorer is None or scorer.block_params is not self.block_params:
            scorer = self._scorer = FusedScorer(self.blocks, self.block_params)
        jll = scorer.scores(self._table(X), posterior=posterior)
        jll += self.class_log_prob
        return jll

    def _joint(self, encoded: list, *, posterior: bool = False) -> np.ndarray:
        jll = feature_log_likelihood(
            self.blocks, encoded, self.block_params, posterior=posterior
        )
        jll += self.class_log_prob
        return jll

    def _posterior_scores(self, X) -> np.ndarray:
        """The joint log-likelihood up to a constant of every row: what the posterior
        over the classes, and so every prediction, depends on."""
        return self._scores(X, posterior=True)

    def joint_log_likelihood(self, X) -> np.ndarray:
        """``log P(c) + sum_i log p(x_i | c)`` for every row and class, shape (n, K).

        A missing value contributes nothing: its factor is marginalized exactly.
        """
        return self._scores(X)

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior class probabilities, shape (n, K), columns in ``labels`` order."""
        return log_normalize(self._posterior_scores(X))

    def predict_proba(self, X) -> np.ndarray:
        """Posterior class probabilities, shape (n, K), columns in ``labels`` order."""
        return normalize(self._posterior_scores(X))

    def predict(self, X) -> np.ndarray:
        """The class with the largest posterior probability (the MAP decision rule)."""
        jll = self._posterior_scores(X)
        return np.asarray(self.labels, dtype=object if self._object_labels() else None)[
            jll.argmax(axis=1)
        ]

    def _object_labels(self) -> bool:
        return any(isinstance(v, str) for v in self.labels)

    def log_likelihood_rows(self, X) -> np.ndarray:
        """``log p(x)`` of every row, summing over the classes."""
        return log_sum_exp_rows(self.joint_log_likelihood(X))

    # -- parameter counting ----------------------------------------------------------------
    def n_free_parameters(self) -> int:
        k = len(self.labels)
        return (k - 1) + sum(b.n_free_parameters(k) for b in self.blocks)

    # -- xarray export ---------------------------------------------------------------------
    def _export(self) -> tuple[dict, dict]:
        dim = self.label_dim
        params = {
            "class_prob": xr.DataArray(
                np.exp(self.class_log_prob), dims=(dim,), coords={dim: self.labels}
            )
        }
        counts = {
            "class_count": xr.DataArray(self.class_counts, dims=(dim,), coords={dim: self.labels})
        }
        for block, st, pr in zip(self.blocks, self.stats, self.block_params, strict=True):
            out = block.to_xarray(pr, st, dim, self.labels)
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

    # -- persistence -------------------------------------------------------------------------
    def _config(self) -> dict:
        return {
            "model": type(self).__name__,
            "labels": _jsonable(self.labels),
            "blocks": [_family_config(b) for b in self.blocks],
            "estimates": self.estimates,
            "class_prior": _prior_config(self.class_prior),
            "feature_names": self.feature_names,
            "is_frame": self.is_frame,
            "target": self.target,
        }

    def _to_dataset(self) -> xr.Dataset:
        data = {"class_counts": (("class_",), self.class_counts)}
        for i, st in enumerate(self.stats):
            for key, value in st.items():
                value = np.asarray(value)
                dims = tuple(f"stat_{i}_{key}_{j}" for j in range(value.ndim))
                data[f"stat_{i}_{key}"] = (dims, value)
        ds = xr.Dataset(data)
        ds.attrs["bayesnb_config"] = json.dumps(self._config())
        return ds

    def _restore(self, config: dict) -> None:
        """Put back what a subclass saved in its configuration beyond the statistics
        (called by :func:`load`; nothing by default)."""

    def save(self, path) -> None:
        """Write the model to a netCDF-3 file (statistics plus declaration; no pickle).

        Loading re-estimates the parameters from the saved statistics with the same
        code, so the round trip is exact.
        """
        self._to_dataset().to_netcdf(path, engine="scipy")


#: Readers of saved files by the kind of object they hold (the ``model`` entry of the
#: saved configuration): every :class:`FittedModel` subclass registers itself, and a
#: module holding another savable kind registers its reader with
#: :func:`register_loader`. ``load`` needs no import of the modules that define them.
_LOADERS: dict = {}


def register_loader(kind: str, reader) -> None:
    """Make :func:`load` read files whose configuration names ``kind`` with ``reader``.

    ``reader(dataset, config)`` gets the file's ``xarray.Dataset`` (loaded in memory)
    and its decoded ``bayesnb_config`` and returns the object.
    """
    _LOADERS[kind] = reader


def load(path):
    """Read a model written by ``save``. Returns the fitted object."""
    with xr.open_dataset(path, engine="scipy") as ds:
        ds = ds.load()
    config = json.loads(ds.attrs["bayesnb_config"])
    return _LOADERS[config["model"]](ds, config)


def _read_fitted(cls, ds: xr.Dataset, config: dict):
    """The fitted model of class ``cls`` saved in ``ds`` (see :meth:`FittedModel.save`)."""
    blocks = [_family_from_config(c) for c in config["blocks"]]
    stats = []
    for i, block in enumerate(blocks):
        prefix = f"stat_{i}_"
        stats.append({k[len(prefix) :]: ds[k].values for k in ds.data_vars if k.startswith(prefix)})
        block.name = config["blocks"][i]["state"]["name"]
    with warnings.catch_warnings():  # the fit already warned about any zero probability
        warnings.simplefilter("ignore", ZeroProbabilityWarning)
        fit = cls.from_statistics(
            labels=config["labels"],
            blocks=blocks,
            stats=stats,
            class_counts=ds["class_counts"].values,
            class_prior=_prior_from_config(config["class_prior"]),
            estimates=config["estimates"],
            feature_names=config["feature_names"],
            is_frame=config["is_frame"],
            target=config["target"],
        )
    fit._restore(config)
    return fit


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
        raise ValueError("the model has no feature to score.")
    return jll


def estimate_all(blocks, stats, class_counts, class_prior, estimates) -> tuple[list, np.ndarray]:
    """Parameters of every block and the class log-probabilities from statistics."""
    params = estimate_blocks(blocks, stats, estimates["features"])
    k = len(class_counts)
    class_log_prob = Dirichlet(class_prior.resolve(k)).point_estimate(
        class_counts, estimates["class"], what="the class prior"
    )
    return params, class_log_prob


# -- JSON helpers ---------------------------------------------------------------------------


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def _prior_config(prior) -> dict:
    if isinstance(prior, Dirichlet):
        return {"type": type(prior).__name__, "alpha": _jsonable(prior.alpha)}
    return {
        "type": "NormalInverseGamma",
        **{k: _jsonable(np.asarray(getattr(prior, k))) for k in ("mu", "kappa", "alpha", "beta")},
    }


def _prior_from_config(config: dict):
    kind = config["type"]
    if kind == "Beta":  # stored in Dirichlet form, [false, true]
        alpha = np.asarray(config["alpha"], dtype=float)
        return Beta(alpha[..., 1], alpha[..., 0])
    if kind == "Dirichlet":
        return Dirichlet(config["alpha"])
    return NormalInverseGamma(
        **{k: np.asarray(config[k], dtype=float) for k in ("mu", "kappa", "alpha", "beta")}
    )


_ARRAY_STATE = ("shift", "edges")


def _family_config(block: Family) -> dict:
    state = {}
    for key, value in vars(block).items():
        if key == "prior":
            state[key] = _prior_config(value)
        else:
            state[key] = _jsonable(value)
    return {"kind": block.kind, "state": state}


def _family_from_config(config: dict) -> Family:
    cls = FAMILIES[config["kind"]]
    block = cls.__new__(cls)
    state = dict(config["state"])
    state["prior"] = _prior_from_config(state["prior"])
    for key in _ARRAY_STATE:
        if state.get(key) is not None:
            state[key] = np.asarray(state[key], dtype=float)
    if state.get("values") is not None:
        state["values"] = tuple(state["values"])
    vars(block).update(state)
    return block
