"""Plots of fits and comparisons, with matplotlib (imported when a plot is drawn).

Every function draws on ``ax`` (a new figure's axes when None; for
:func:`mcmc_traces`, a pair of axes) and returns the axes, so that users can place the
plots in figures of their own:

* :func:`beta_estimates`: a Beta prior and its posterior, with the ML, MAP and
  posterior-mean estimates marked (the soccer example);
* :func:`learning_curves`: a score of every estimator over the training size
  (from :func:`bayesnb.compare`);
* :func:`reliability`: a calibration diagram of predicted class probabilities;
* :func:`em_traces`: EM's objective over the iterations of every restart;
* :func:`cluster_ellipses`: two columns of the data by component, with every
  component's covariance ellipse;
* :func:`mcmc_traces`: a parameter's MCMC draws per chain, as sampled and as
  relabelled (label switching), and :func:`mcmc_ranks`, arviz-plots' rank plot of
  either;
* :func:`class_intervals`: the credible intervals of :math:`P(c \\mid x)` of a few
  rows;
* :func:`naive_assumption_heatmap`: every feature pair's conditional mutual
  information given the class.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from bayesnb.errors import InputError

__all__ = [
    "beta_estimates",
    "class_intervals",
    "cluster_ellipses",
    "em_traces",
    "learning_curves",
    "mcmc_ranks",
    "mcmc_traces",
    "naive_assumption_heatmap",
    "reliability",
]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.0, 4.0))
    return ax


def beta_estimates(successes: float, trials: float, a: float = 2.0, b: float = 2.0, ax=None):
    """The Beta(a, b) prior and its posterior Beta(a + m, b + N - m) after ``successes``
    m of ``trials`` N, with the maximum-likelihood m/N, the MAP
    (m + a - 1)/(N + a + b - 2) and the posterior mean (m + a)/(N + a + b) marked.

    An estimate that does not exist is left out: the ML one without trials (0/0), the
    MAP one when the posterior has no single mode inside [0, 1] by that formula (a
    posterior parameter below 1, or both equal to 1).

    Examples
    --------
    Seven successes in ten trials under a Beta(2, 2) prior: the legend gives the
    three estimates 7/10, (7 + 1)/(10 + 2) and (7 + 2)/(10 + 4).

    >>> import matplotlib.pyplot as plt
    >>> from bayesnb.plots import beta_estimates
    >>> ax = beta_estimates(7, 10, a=2, b=2)
    >>> ax.get_legend_handles_labels()[1]
    ['prior Beta(2, 2)', 'posterior', 'ML 0.700', 'MAP 0.667', 'posterior mean 0.643']
    >>> plt.close(ax.figure)

    No trials yet: the posterior is the prior, and only its mode and mean are marked.

    >>> ax = beta_estimates(0, 0)
    >>> ax.get_legend_handles_labels()[1]
    ['prior Beta(2, 2)', 'posterior', 'MAP 0.500', 'posterior mean 0.500']
    >>> plt.close(ax.figure)
    """
    from scipy import stats

    if not (a > 0 and b > 0):
        raise InputError(
            f"a and b must be > 0 (the Beta prior's parameters); got a={a!r}, b={b!r}. "
            "Give positive values, e.g. a=1, b=1 for a uniform prior."
        )
    if not 0 <= successes <= trials:
        raise InputError(
            f"successes must lie between 0 and trials; got successes={successes!r} and "
            f"trials={trials!r}. Give the number of successes m and the number of trials "
            "N >= m."
        )
    ax = _axes(ax)
    p = np.linspace(0.0, 1.0, 501)
    post_a, post_b = a + successes, b + trials - successes
    ax.plot(p, stats.beta(a, b).pdf(p), color="0.6", ls="--", label=f"prior Beta({a:g}, {b:g})")
    ax.plot(p, stats.beta(post_a, post_b).pdf(p), color="C0", label="posterior")
    marks = {
        "ML": successes / trials if trials > 0 else None,
        "MAP": (
            (post_a - 1) / (post_a + post_b - 2)
            if post_a >= 1 and post_b >= 1 and post_a + post_b > 2
            else None
        ),
        "posterior mean": post_a / (post_a + post_b),
    }
    for (name, value), colour in zip(marks.items(), ("C3", "C2", "C1"), strict=True):
        if value is not None:
            ax.axvline(value, color=colour, lw=1.2, label=f"{name} {value:.3f}")
    ax.set_xlabel("θ")
    ax.set_ylabel("density")
    ax.set_title(f"{successes:g} of {trials:g}: prior, posterior and estimates")
    ax.legend(fontsize=8)
    return ax


def learning_curves(table, metric: str = "log_loss", strength=None, ax=None):
    """``metric`` of every estimator over the training size, from the table of
    :func:`bayesnb.compare` (one prior strength: ``strength``, default the first).

    The maximum-likelihood rows have no prior strength and are drawn under every one;
    a table of them alone (``compare(..., strengths=())``) draws them only.

    Examples
    --------
    Three votes of the house-votes data, cross-validated on two folds at a quarter
    and at all of each training fold: one line per estimator.

    >>> import matplotlib.pyplot as plt
    >>> import bayesnb as bnb
    >>> from bayesnb.plots import learning_curves
    >>> votes = bnb.datasets.house_votes_84()[["party", "V4", "V5", "V8"]]
    >>> table = bnb.compare(
    ...     votes, "party", strengths=(1.0,), train_sizes=(0.25, 1.0), n_splits=2
    ... )
    >>> ax = learning_curves(table, metric="log_loss")
    >>> [line.get_label() for line in ax.get_lines()]
    ['ml', 'map', 'mean', 'predictive', 'm-estimate']
    >>> ax.get_lines()[1].get_xdata().tolist()  # training rows of each point
    [54, 218]
    >>> plt.close(ax.figure)
    """
    strengths = table["prior_strength"].dropna().unique()
    if strength is None:
        chosen = strengths[0] if len(strengths) else None
    elif np.isclose(strengths.astype(float), float(strength)).any():
        chosen = strength
    else:
        raise InputError(
            f"strength={strength!r} is not a prior strength of the table, which holds "
            f"{sorted(strengths.tolist())!r}. Pass one of them, or leave strength=None "
            "for the first."
        )
    ax = _axes(ax)
    keep = table["prior_strength"].isna()  # the ML rows, drawn under every strength
    if chosen is not None:
        keep |= np.isclose(table["prior_strength"], float(chosen))
    rows = table[keep]
    for estimator, part in rows.groupby("estimator", sort=False):
        part = part.sort_values("n_train")
        ax.plot(part["n_train"], part[metric], marker="o", label=estimator)
    ax.set_xscale("log")
    ax.set_xlabel("training rows")
    ax.set_ylabel(metric.replace("_", " "))
    at = "" if chosen is None else f" (prior strength {chosen:g})"
    ax.set_title(f"{metric.replace('_', ' ')} by training size{at}")
    ax.legend(fontsize=8)
    return ax


def reliability(truth, proba, bins: int = 10, ax=None, label: str | None = None, classes=None):
    """Calibration: the observed frequency of the predicted class against its
    predicted probability, in ``bins`` equal-width bins (the diagonal is perfect).

    ``truth`` holds each row's true class as a column index of ``proba``, or as a
    label when ``classes`` names the columns of ``proba`` in order (a fit's
    ``labels``).

    Examples
    --------
    Naive Bayes fitted on half of the house votes and checked on the other half:
    the points are each bin's mean predicted probability and observed accuracy.

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> import bayesnb as bnb
    >>> from bayesnb.plots import reliability
    >>> votes = bnb.datasets.house_votes_84()
    >>> train, test = votes.iloc[::2], votes.iloc[1::2]
    >>> fit = bnb.NaiveBayes().fit(train, target="party")
    >>> proba = fit.predict_proba(test.drop(columns="party"))
    >>> ax = reliability(test["party"], proba, bins=5, label="house votes", classes=fit.labels)
    >>> predicted, observed = ax.get_lines()[1].get_data()
    >>> np.round(predicted, 2).tolist(), np.round(observed, 2).tolist()
    ([0.58, 0.72, 1.0], [0.0, 0.57, 0.9])
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    proba = np.asarray(proba, dtype=float)
    truth = _class_positions(truth, proba.shape[1], classes)
    top = proba.max(axis=1)
    hit = proba.argmax(axis=1) == truth
    edges = np.linspace(0.0, 1.0, bins + 1)
    where = np.clip(np.digitize(top, edges) - 1, 0, bins - 1)
    centres, freqs = [], []
    for b in range(bins):
        mask = where == b
        if mask.any():
            centres.append(top[mask].mean())
            freqs.append(hit[mask].mean())
    ax.plot([0, 1], [0, 1], color="0.6", ls="--", lw=1)
    ax.plot(centres, freqs, marker="o", label=label)
    ax.set_xlabel("predicted probability of the predicted class")
    ax.set_ylabel("observed accuracy")
    ax.set_title("reliability diagram")
    if label:
        ax.legend(fontsize=8)
    return ax


def _class_positions(truth, n_classes: int, classes) -> np.ndarray:
    """Every row's class as a column index of the probabilities: ``truth`` looked up
    in ``classes``, or ``truth`` itself when it already holds indices."""
    truth = np.asarray(truth)
    if classes is not None:
        index = pd.Index(list(classes)).get_indexer(truth)
        if (index < 0).any():
            raise InputError(
                f"truth holds {truth[index < 0][0]!r}, which is not among classes "
                f"{list(classes)[:10]!r}. Give classes= as the labels of proba's columns, "
                "in order (a fit's .labels)."
            )
        return index
    if truth.dtype.kind not in "iu" or (
        truth.size and not 0 <= truth.min() <= truth.max() < n_classes
    ):
        raise InputError(
            f"truth must hold column indices of proba (integers 0..{n_classes - 1}); got "
            f"values of dtype {truth.dtype} such as {truth.flat[0]!r}. Pass classes= (a "
            "fit's .labels) to give truth as labels."
        )
    return truth


def em_traces(fit, ax=None):
    """EM's objective at every accepted point of every restart of a mixture fit (the
    best restart drawn thicker): different optima, and a saddle's plateau.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bayesnb as bnb
    >>> from bayesnb.plots import em_traces
    >>> faithful = bnb.datasets.old_faithful()
    >>> mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(faithful, 2, n_init=3, random_state=0)
    >>> ax = em_traces(mix)
    >>> len(ax.get_lines())  # one line per restart
    3
    >>> plt.close(ax.figure)
    """
    if getattr(fit, "history", None) is None:
        raise InputError(
            "em_traces needs a mixture fitted by EM, whose history holds its objective; got "
            f"a fit of type {type(fit).__name__} without one. Draw an MCMC fit's chains with "
            "mcmc_traces(fit) or mcmc_ranks(fit), or fit with cluster(..., method='em')."
        )
    ax = _axes(ax)
    for i, run in enumerate(fit.restarts or [fit]):
        best = i == fit.best_restart
        ax.plot(run.history, lw=2.0 if best else 1.0, alpha=1.0 if best else 0.6, label=f"{i}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("objective")
    ax.set_title("EM objective by restart")
    if len(fit.restarts or []) <= 10:
        ax.legend(title="restart", fontsize=7)
    return ax


def cluster_ellipses(fit, X, columns=None, ax=None):
    """Two columns of ``X`` coloured by each row's most probable component, with every
    component's 1 and 2 standard-deviation ellipses (a ``MultivariateGaussian`` block
    over the columns, or Gaussian features: their variances).

    The component of a row is the one the fit predicts for it
    (:meth:`~bayesnb.model.FittedModel.predict_index`), so ``X`` may hold any rows in
    any order, training rows or new ones, and the fit may be a loaded or Dask-made one,
    which keeps no responsibilities.
    ``columns`` names two columns the fit models as Gaussian (``Gaussian`` or
    ``MultivariateGaussian`` features), by default the first two; ``X`` is a data
    frame, or an array whose columns are the fit's (named ``x0``, ``x1``, ... when it
    was fitted on an array).

    Examples
    --------
    Old Faithful's eruption times and waiting times as a mixture of two Gaussian
    components: two ellipses (1 and 2 sd) per component.

    >>> import matplotlib.pyplot as plt
    >>> import bayesnb as bnb
    >>> from bayesnb.plots import cluster_ellipses
    >>> faithful = bnb.datasets.old_faithful()
    >>> mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(faithful, 2, n_init=2, random_state=0)
    >>> ax = cluster_ellipses(mix, faithful, columns=["eruptions", "waiting"])
    >>> len(ax.patches), ax.get_xlabel(), ax.get_ylabel()
    (4, 'eruptions', 'waiting')
    >>> plt.close(ax.figure)
    """
    from matplotlib.patches import Ellipse

    found = _gaussian_columns(fit)
    columns = _ellipse_columns(fit, columns, found)
    means, covs = _component_gaussians(columns, found)
    # the fit's own assignment of these rows, in labels order as the parameters are (the
    # training responsibilities belong to other rows, or are not kept at all)
    component = fit.predict_index(X)
    points = _two_columns(fit, X, columns)
    ax = _axes(ax)
    for k in range(len(means)):
        colour = f"C{k}"
        ax.scatter(*points[component == k].T, s=8, color=colour, alpha=0.6)
        values, vectors = np.linalg.eigh(covs[k])
        angle = np.degrees(np.arctan2(vectors[1, -1], vectors[0, -1]))
        for scale in (1.0, 2.0):
            width, height = 2.0 * scale * np.sqrt(values[::-1])
            ax.add_patch(
                Ellipse(means[k], width, height, angle=angle, fill=False, color=colour, lw=1.2)
            )
        ax.plot(*means[k], marker="x", color="k")
    ax.set_xlabel(columns[0])
    ax.set_ylabel(columns[1])
    ax.set_title("components and their 1 and 2 sd ellipses")
    return ax


def _gaussian_columns(fit) -> dict:
    """``{column: (params, j)}`` of every column the fit gives a mean and a variance:
    its block's parameters (``mu`` with ``var``, or ``cov`` for a
    ``MultivariateGaussian``) and its position in the block, in the fit's column order."""
    found = {}
    for block, params in zip(fit.blocks, fit.block_params, strict=True):
        if "mu" in params and ("var" in params or "cov" in params):
            for j, c in enumerate(block.columns):
                found[c] = (params, j)
    order = {c: i for i, c in enumerate(fit.feature_names)}
    return dict(sorted(found.items(), key=lambda item: order.get(item[0], len(order))))


def _ellipse_columns(fit, columns, found) -> list:
    """The two columns to draw: ``columns``, checked, or the fit's first two Gaussian ones."""
    gaussian = list(found)
    if columns is None:
        if len(gaussian) < 2:
            raise InputError(
                "cluster_ellipses draws two columns the fit models as Gaussian (Gaussian or "
                f"MultivariateGaussian features); this fit has {len(gaussian)}: {gaussian!r}. "
                "Cluster at least two Gaussian columns to draw ellipses, or plot the column's "
                "values by fit.predict(X) instead."
            )
        return gaussian[:2]
    columns = [columns] if isinstance(columns, str) else list(columns)
    if len(columns) != 2 or columns[0] == columns[1]:
        raise InputError(
            f"columns must name two different columns of the fit; got {columns!r}. Pick two "
            f"of its Gaussian columns {gaussian!r}."
        )
    for c in columns:
        if c not in found:
            what = (
                "has no mean and variance in the fit"
                if c in fit.feature_names
                else "is not a column of the fit"
            )
            raise InputError(
                f"columns names {c!r}, which {what}; cluster_ellipses needs columns the fit "
                f"models as Gaussian, here {gaussian!r}. Pick two of them."
            )
    return columns


def _component_gaussians(columns, found):
    """Every component's means (K, 2) and covariances (K, 2, 2) over two ``columns``:
    the covariance of two columns of one ``MultivariateGaussian`` block, 0 otherwise
    (naive Bayes takes the features as independent given the component)."""
    means = np.stack([found[c][0]["mu"][:, found[c][1]] for c in columns], axis=1)
    covs = np.zeros((len(means), 2, 2))
    for a, (pa, ja) in enumerate(found[c] for c in columns):
        for b, (pb, jb) in enumerate(found[c] for c in columns):
            if "cov" in pa and pa is pb:
                covs[:, a, b] = pa["cov"][:, ja, jb]
            elif a == b:
                covs[:, a, a] = pa["var"][:, ja]
    return means, covs


def _two_columns(fit, X, columns) -> np.ndarray:
    """The values (n, 2) of ``columns`` in the rows of ``X``, a frame or an array
    whose columns are the fit's."""
    if isinstance(X, pd.DataFrame):
        return X[columns].to_numpy(dtype=float)
    at = [list(fit.feature_names).index(c) for c in columns]
    return np.asarray(X, dtype=float)[:, at]


def mcmc_traces(fit, variable: str = "class_prob", ax=None):
    """The draws of ``variable``'s first entry per chain of an MCMC mixture fit
    (``fit.trace``), as sampled (``posterior_raw``:
    chains started in different labellings, switching) and relabelled
    (``posterior``), side by side on two axes: ``ax`` is a pair of them (a new
    figure's when None), such as ``plt.subplots(1, 2)[1]``.

    Examples
    --------
    Three votes clustered by the Gibbs sampler; this seed starts the second chain
    with its components swapped, so its raw draws of ``class_prob`` sit on the other
    label until relabelling.

    >>> import matplotlib.pyplot as plt
    >>> import bayesnb as bnb
    >>> from bayesnb.plots import mcmc_traces
    >>> votes = bnb.datasets.house_votes_84()[["V4", "V5", "V8"]]
    >>> gibbs = bnb.NaiveBayes().cluster(
    ...     votes, 2, method="mcmc", draws=500, chains=2, tune=50, random_state=1
    ... )
    >>> gibbs.diagnostics["n_permuted"]  # the draws relabelled
    500
    >>> axes = mcmc_traces(gibbs)
    >>> [len(axis.get_lines()) for axis in axes]  # one line per chain
    [2, 2]
    >>> plt.close(axes[0].figure)
    """
    import matplotlib.pyplot as plt

    tree = getattr(fit, "trace", None)
    if tree is None:
        raise InputError(
            "mcmc_traces needs a mixture fitted by MCMC, whose trace holds the draws; got "
            f"a fit of type {type(fit).__name__} without one. Fit with "
            "cluster(..., method='mcmc'), or draw an EM fit's objective with em_traces(fit)."
        )
    names = list(tree["posterior"].to_dataset().data_vars)
    if variable not in names:
        raise InputError(
            f"variable={variable!r} is not among the fit's sampled variables {names!r}. "
            "Pass one of them."
        )
    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(10.0, 3.5), sharey=True)
    axes = np.ravel(np.asarray(ax, dtype=object))
    if len(axes) != 2:
        raise InputError(
            "ax must be two axes, for the draws as sampled and as relabelled; got "
            f"{len(axes)} ({type(ax).__name__}). Pass a pair, e.g. plt.subplots(1, 2)[1], "
            "or leave ax=None for a new figure."
        )
    for axis, group in zip(axes, ("posterior_raw", "posterior"), strict=True):
        values = tree[group].to_dataset()[variable]
        first = values.isel({d: 0 for d in values.dims if d not in ("chain", "draw")})
        for c in range(first.sizes["chain"]):
            axis.plot(first.isel(chain=c).values, lw=0.6, label=f"chain {c}")
        axis.set_title(f"{variable} of component 0: {group}")
        axis.set_xlabel("draw")
    axes[0].legend(fontsize=7)
    return ax


def mcmc_ranks(fit, variable: str = "class_prob", group: str = "posterior"):
    """arviz-plots' rank plot of ``variable`` in an MCMC mixture fit's ``group``
    (``"posterior"``: relabelled; ``"posterior_raw"``: as sampled, where chains in
    different labellings disagree). Returns arviz-plots' ``PlotCollection``
    (``.savefig(path)``).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import bayesnb as bnb
    >>> from bayesnb.plots import mcmc_ranks
    >>> votes = bnb.datasets.house_votes_84()[["V4", "V5", "V8"]]
    >>> gibbs = bnb.NaiveBayes().cluster(
    ...     votes, 2, method="mcmc", draws=500, chains=2, tune=50, random_state=1
    ... )
    >>> ranks = mcmc_ranks(gibbs, "class_prob", group="posterior")
    >>> type(ranks).__name__
    'PlotCollection'
    >>> plt.close("all")
    """
    import arviz_plots

    return arviz_plots.plot_rank(fit.trace, var_names=[variable], group=group, backend="matplotlib")


def class_intervals(intervals, rows=None, ax=None):
    """The posterior mean of :math:`P(c \\mid x)` and its credible interval for a few
    rows (``intervals`` from :meth:`bayesnb.NaiveBayesFit.predictive_interval`): the
    first ``rows`` of them, or all when None or when there are fewer.

    Examples
    --------
    Fourteen rows leave the class probabilities of a day uncertain: the 90%
    intervals of the first three days, one error bar per class.

    >>> import matplotlib.pyplot as plt
    >>> import bayesnb as bnb
    >>> from bayesnb.plots import class_intervals
    >>> tennis = bnb.datasets.play_tennis()
    >>> fit = bnb.NaiveBayes().fit(tennis, target="play")
    >>> intervals = fit.predictive_interval(
    ...     tennis.drop(columns="play").head(3), prob=0.9, random_state=0
    ... )
    >>> ax = class_intervals(intervals)
    >>> [tick.get_text() for tick in ax.get_xticklabels()]
    ['D1', 'D2', 'D3']
    >>> ax.get_legend_handles_labels()[1]
    ['No', 'Yes']
    >>> plt.close(ax.figure)
    """
    if rows is not None and (
        isinstance(rows, bool) or not isinstance(rows, int | np.integer) or rows < 1
    ):
        raise InputError(
            "rows must be a whole number >= 1 (how many rows to draw), or None for all; "
            f"got {rows!r}. Pass e.g. rows=5."
        )
    ax = _axes(ax)
    mean, lower, upper = (intervals[v] for v in ("mean", "lower", "upper"))
    row_dim, label_dim = mean.dims
    n = mean.sizes[row_dim] if rows is None else min(int(rows), mean.sizes[row_dim])
    labels = mean[label_dim].values
    width = 0.8 / len(labels)
    x = np.arange(n)
    for j, label in enumerate(labels):
        m = mean.isel({label_dim: j}).values[:n]
        lo = lower.isel({label_dim: j}).values[:n]
        hi = upper.isel({label_dim: j}).values[:n]
        ax.errorbar(x + j * width, m, yerr=[m - lo, hi - m], fmt="o", capsize=3, label=str(label))
    names = mean[row_dim].values[:n] if row_dim in mean.coords else range(n)
    ax.set_xticks(x + 0.4 - width / 2, [str(i) for i in names])
    ax.set_xlabel("row")
    ax.set_ylabel("P(class | row)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("posterior mean and credible interval of P(class | row)")
    ax.legend(fontsize=8)
    return ax


def _natural(name) -> list:
    """A key ordering names as people read them: V2 before V10."""
    return [
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.split(r"(\d+)", str(name))
        if part
    ]


def naive_assumption_heatmap(table, ax=None):
    """The conditional mutual information of every pair of features given the class
    (from :func:`bayesnb.bayesnet.naive_assumption_diagnostic`), as a symmetric
    heatmap: the bright cells are the pairs naive Bayes treats as independent but are
    not.

    Examples
    --------
    The play-tennis features: the grid holds every pair's I(a; b | play), largest
    for outlook and temperature (0.291 nats).

    >>> import matplotlib.pyplot as plt
    >>> import bayesnb as bnb
    >>> from bayesnb.bayesnet import naive_assumption_diagnostic
    >>> from bayesnb.plots import naive_assumption_heatmap
    >>> table = naive_assumption_diagnostic(bnb.datasets.play_tennis(), "play")
    >>> ax = naive_assumption_heatmap(table)
    >>> grid = ax.images[0].get_array()
    >>> grid.shape, round(float(grid.max()), 3)
    ((4, 4), 0.291)
    >>> plt.close(ax.figure)
    """
    # A table without pairs comes from data with fewer than two features. An empty grid
    # would look like a finding ("no dependence"), so say instead that there is nothing
    # to check: with one feature, naive Bayes assumes no independence at all.
    if len(table) == 0:
        raise InputError(
            "table holds no pair of features (naive_assumption_diagnostic of data with "
            "fewer than two features besides the class); got an empty table. One feature "
            "makes no independence assumption to check: give data with two features or more."
        )
    ax = _axes(ax)
    names = sorted(set(table["a"]) | set(table["b"]), key=_natural)
    at = {name: i for i, name in enumerate(names)}
    grid = np.zeros((len(names), len(names)))
    for row in table.itertuples():
        grid[at[row.a], at[row.b]] = grid[at[row.b], at[row.a]] = row.cmi
    image = ax.imshow(grid, cmap="viridis")
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=7)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.figure.colorbar(image, ax=ax, label="I(a; b | class), nats")
    ax.set_title("dependence between features given the class")
    return ax
