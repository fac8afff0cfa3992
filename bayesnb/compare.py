"""EM beside MCMC beside the exact posterior: one tidy table of every parameter."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesnb.errors import InputError, InputTypeError

STATS = ["mean", "sd", "lower", "upper"]


def compare_fits(fits: dict, prob: float | None = None) -> pd.DataFrame:
    """Every parameter under several fits of one declaration, in one tidy table.

    Parameters
    ----------
    fits : dict of {name: fit}
        Fits of the same declaration: EM mixtures (``model.cluster``; their point
        estimate is the ``mean`` column), MCMC mixtures (``method="mcmc"``: the
        relabelled draws' mean, sd and equal-tailed interval) and supervised fits
        (``model.fit``: the exact conjugate posterior's mean, sd and interval;
        ``model.density`` the same, without its one class).
        Mixtures are aligned to the first one: every other mixture's components are
        permuted to the first's by a linear assignment on their parameters (an MCMC
        fit's by its posterior means).
    prob : float, optional
        The intervals' mass (default ArviZ's ``rcParams["stats.ci_prob"]``).

    Returns
    -------
    pandas.DataFrame
        One row per fit, parameter and entry: columns ``fit``, ``parameter``,
        ``entry`` (the class or component and, where there is one, the category or
        column), ``mean``, ``sd``, ``lower``, ``upper`` (NaN where a fit has no
        such summary: an EM fit has a point estimate only). Pivot it to put the fits
        side by side: ``table.pivot(index=["parameter", "entry"], columns="fit",
        values="mean")``.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> df = bnb.datasets.play_tennis()
    >>> exact = bnb.NaiveBayes().fit(df, target="play")
    >>> table = bnb.compare_fits({"exact": exact}, prob=0.9)
    >>> row = table[(table.parameter == "class_prob") & (table.entry == "Yes")]
    >>> row[["mean", "sd"]].round(4).values.tolist()     # Beta(10, 6)
    [[0.625, 0.1174]]
    """
    from bayesnb.density import DensityFit, drop_class
    from bayesnb.mcmc import MCMCMixtureFit
    from bayesnb.mixture import MixtureFit
    from bayesnb.naive_bayes import NaiveBayesFit
    from bayesnb.posterior import check_prob, exact_summary

    if not isinstance(fits, dict) or not fits:
        raise InputTypeError(
            f"fits must be a non-empty dict of {{name: fit}}; got {type(fits).__name__}. "
            "Give e.g. compare_fits({'EM': em_fit, 'Gibbs': mcmc_fit})."
        )
    prob = check_prob(prob)
    frames, reference = [], None
    for name, fit in fits.items():
        if isinstance(fit, MCMCMixtureFit):
            post = fit.trace["posterior"].ds
            tail = (1.0 - prob) / 2.0
            summary = {
                "mean": post.mean(("chain", "draw")),
                "sd": post.std(("chain", "draw")),
                "lower": post.quantile(tail, ("chain", "draw")).drop_vars("quantile"),
                "upper": post.quantile(1.0 - tail, ("chain", "draw")).drop_vars("quantile"),
            }
        elif isinstance(fit, MixtureFit):
            summary = {"mean": fit.params}
        elif isinstance(fit, NaiveBayesFit):
            ds = exact_summary(fit, prob)
            if isinstance(fit, DensityFit):  # its one class says nothing: hidden
                ds = drop_class(ds, fit.label_dim)
            summary = {stat: ds.sel(stat=stat, drop=True) for stat in STATS}
        else:
            raise InputTypeError(
                f"fits[{name!r}] must be a fit of bayesnb (NaiveBayesFit, MixtureFit or "
                f"MCMCMixtureFit); got {type(fit).__name__}."
            )
        if isinstance(fit, MixtureFit):
            if reference is None:
                reference = summary["mean"]
            else:
                order = _alignment(summary["mean"], reference)
                summary = {k: v.isel(component=order) for k, v in summary.items()}
                summary = {
                    k: v.assign_coords(component=reference["component"].values)
                    for k, v in summary.items()
                }
        frames.append(_tidy(name, summary))
    return pd.concat(frames, ignore_index=True)


def _tidy(name: str, summary: dict) -> pd.DataFrame:
    """Long rows of every variable of the Datasets in ``summary`` (one per statistic)."""
    first = summary["mean"]
    rows = []
    for var in first.data_vars:
        da = first[var]
        stats = {k: v[var].transpose(*da.dims).values.ravel() for k, v in summary.items()}
        index = pd.MultiIndex.from_product([da[d].values for d in da.dims]) if da.dims else [()]
        entries = [
            ", ".join(str(v) for v in (key if isinstance(key, tuple) else (key,))) for key in index
        ]
        frame = pd.DataFrame({"fit": name, "parameter": var, "entry": entries})
        for stat in STATS:
            frame[stat] = stats.get(stat, np.full(len(entries), np.nan))
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def _alignment(params, reference) -> np.ndarray:
    """The order of ``params``' components that best matches ``reference``'s: a
    linear assignment on the summed relative differences of every variable."""
    k = reference.sizes["component"]
    if params.sizes.get("component") != k:
        raise InputError(
            f"compare_fits: the mixtures have {params.sizes.get('component')} and {k} "
            "components; compare fits with the same number of components."
        )
    cost = np.zeros((k, k))
    for var in reference.data_vars:
        ours = params[var].transpose("component", ...).values.reshape(k, -1)
        theirs = reference[var].transpose("component", ...).values.reshape(k, -1)
        scale = np.abs(theirs).mean() + 1e-12
        cost += np.abs(ours[:, None, :] - theirs[None, :, :]).sum(axis=2) / scale
    from scipy.optimize import linear_sum_assignment  # imported on use: slow to import

    rows, columns = linear_sum_assignment(cost)
    return rows[np.argsort(columns)]
