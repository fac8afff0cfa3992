"""Cluster reports: how each attribute sets each cluster apart from the whole data.

AutoClass describes a cluster by its weight and by the influence of each attribute:
the Kullback-Leibler divergence of the cluster's distribution of the attribute from
the whole data's. The whole data's distribution is estimated, with the fit's own
family and estimator, from the expected statistics of every component merged into one
(:func:`bayesnb.sufficient.pool_stats`). An MCMC fit's clusters are at the posterior
mean of its draws, so its whole data's is the posterior mean too (``"mean"``).

A feature whose prior differs by component (one row per component) has no one prior
for the merged component: it takes the components' priors pooled as pseudo-data and
weighed as one component's (:meth:`bayesnb.Dirichlet.pooled`,
:meth:`bayesnb.NormalInverseGamma.pooled`), which is the shared prior itself when
every row is the same.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb.errors import InputError, InputTypeError
from bayesnb.priors import ZeroProbabilityWarning
from bayesnb.sufficient import pool_stats

__all__ = ["influence", "pooled_params", "report"]


def pooled_params(fit) -> list[dict]:
    """Parameters of the whole data: every component's statistics merged into one, then
    the fit's own estimator (one component holding every row): the estimator of every
    feature's parameters, or for an MCMC fit (whose clusters' parameters are the
    posterior means of its draws, whatever ``fit.estimates`` names) the posterior mean.

    Returns one dict per block of ``fit.blocks``, in the layout of
    ``fit.block_params`` with a single component.

    A feature declared with one prior per component is estimated under those priors
    pooled into one (the prior's ``pooled()``: the components' pseudo-data merged
    and weighed as one component's); one prior shared by the components is used as
    it is.

    Examples
    --------
    Pooling the components of an Old Faithful mixture gives back the mean of all
    the eruption times:

    >>> import bayesnb as bnb
    >>> from bayesnb import cluster_reports
    >>> faithful = bnb.datasets.old_faithful()
    >>> mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(faithful, 2, n_init=2, random_state=0)
    >>> eruptions = cluster_reports.pooled_params(mix)[0]
    >>> round(float(eruptions["mu"][0, 0]), 4), round(float(faithful["eruptions"].mean()), 4)
    (3.4878, 3.4878)
    """
    pooled = getattr(fit, "pooled_estimate", None)  # (a classifier has none)
    out = []
    for block, st in zip(fit.blocks, fit.stats, strict=True):
        estimate = pooled or fit.estimates["features"][block.name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZeroProbabilityWarning)
            out.append(_whole_data_block(block).estimate_params(pool_stats(st), estimate))
    return out


def _whole_data_block(block):
    """``block`` as one component holding every row: a copy under its prior pooled
    over the components when that prior has one row per component, else itself."""
    prior = getattr(block, "prior", None)
    pool = getattr(prior, "pooled", None)
    pooled = prior if pool is None else pool()
    if pooled is prior:
        return block
    whole = copy.copy(block)  # the fit's own block keeps its per-component prior
    whole.prior = pooled
    return whole


def influence(fit) -> xr.DataArray:
    """How strongly each attribute sets each cluster apart from the whole data.

    AutoClass's attribute influence: the Kullback-Leibler divergence of the
    cluster's distribution of the attribute from the whole data's (the same
    family and estimator applied to the statistics of every row), in nats.

    Parameters
    ----------
    fit : MixtureFit

    Returns
    -------
    DataArray, dims (component, feature)
        One entry per column (a Multinomial block counts as one attribute; every
        column of a Categorical or Binned block is one, over its own categories).

    Notes
    -----
    Discrete: :math:`\\sum_v p_{kv} \\log(p_{kv}/q_v)`. Gaussian:
    :math:`\\log(\\sigma/\\sigma_k) + (\\sigma_k^2 + (\\mu_k - \\mu)^2)/(2\\sigma^2) - 1/2`.

    Examples
    --------
    The eruption time sets Old Faithful's short eruptions (component 1) further
    apart than the long ones; the Gaussian formula gives the same number.

    >>> import bayesnb as bnb
    >>> from bayesnb import cluster_reports
    >>> faithful = bnb.datasets.old_faithful()
    >>> mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(faithful, 2, n_init=2, random_state=0)
    >>> infl = cluster_reports.influence(mix)
    >>> infl.values.round(3)
    array([[0.841, 0.648],
           [1.806, 1.196]])
    >>> whole = cluster_reports.pooled_params(mix)[0]
    >>> mu, var = float(whole["mu"][0, 0]), float(whole["var"][0, 0])
    >>> mu_k = float(mix.params["eruptions_mu"][0])
    >>> var_k = float(mix.params["eruptions_var"][0])
    >>> kl = np.log(np.sqrt(var / var_k)) + (var_k + (mu_k - mu) ** 2) / (2 * var) - 0.5
    >>> round(float(kl), 3)
    0.841
    """
    return _influence(fit, pooled_params(fit))


def _influence(fit, pooled_all: list) -> xr.DataArray:
    """:func:`influence` against the whole data's parameters ``pooled_all``."""
    columns, values = [], []
    for block, params, pooled in zip(fit.blocks, fit.block_params, pooled_all, strict=True):
        columns.extend(block.attribute_names())
        values.append(block.divergence(params, pooled).reshape(len(fit.labels), -1))
    return xr.DataArray(
        np.concatenate(values, axis=1),
        dims=("component", "feature"),
        coords={"component": fit.labels, "feature": columns},
        attrs={
            "description": "KL divergence (nats) of the cluster's attribute "
            "distribution from the whole data's"
        },
    )


def report(fit, top: int | None = 5) -> pd.DataFrame:
    """One row per (cluster, attribute): weight, influence and a summary.

    Clusters come by decreasing weight and, within each, attributes by decreasing
    influence (``top`` per cluster; ``None`` for all).

    Parameters
    ----------
    fit : MixtureFit
    top : int >= 1 or None, default 5

    Returns
    -------
    DataFrame indexed by (component, feature)
        Columns ``weight``, ``size`` (expected number of rows), ``influence``
        (nats) and ``summary`` (the cluster's most probable value or mean against
        the whole data's).

    Examples
    --------
    The most influential attribute of each Old Faithful cluster, the heavier first:

    >>> import bayesnb as bnb
    >>> from bayesnb import cluster_reports
    >>> faithful = bnb.datasets.old_faithful()
    >>> mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(faithful, 2, n_init=2, random_state=0)
    >>> table = cluster_reports.report(mix, top=1)
    >>> table.index.tolist(), table["weight"].round(3).tolist()
    ([(0, 'eruptions'), (1, 'eruptions')], [0.642, 0.358])
    >>> table["summary"].tolist()
    ['mean 4.291 ± 0.405 (all: 3.488 ± 1.13)', 'mean 2.038 ± 0.264 (all: 3.488 ± 1.13)']
    """
    if top is not None and (
        isinstance(top, bool | np.bool_) or not isinstance(top, int | np.integer)
    ):
        raise InputTypeError(
            f"top must be None (every attribute) or an int >= 1 (attributes per cluster); "
            f"got {top!r} ({type(top).__name__})."
        )
    if top is not None and top < 1:
        raise InputError(
            f"top must be None (every attribute) or an int >= 1 (attributes per cluster); "
            f"got {top!r}."
        )
    pooled = pooled_params(fit)  # the whole data's parameters, once for both
    infl = _influence(fit, pooled)
    weights = np.exp(fit.class_log_prob)
    summaries = _summaries(fit, pooled)
    rows = []
    for k in np.argsort(-weights, kind="stable"):
        order = np.argsort(-infl.values[k], kind="stable")
        for j in order if top is None else order[:top]:
            feature = infl["feature"].values[j]
            rows.append(
                {
                    "component": fit.labels[k],
                    "feature": feature,
                    "weight": weights[k],
                    "size": fit.class_counts[k],
                    "influence": infl.values[k, j],
                    "summary": summaries[feature][k],
                }
            )
    return pd.DataFrame(rows).set_index(["component", "feature"])


def _summaries(fit, pooled_all: list) -> dict:
    out = {}
    for block, params, pooled in zip(fit.blocks, fit.block_params, pooled_all, strict=True):
        out.update(block.describe(params, pooled))
    return out
