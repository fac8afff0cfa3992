"""Plots of fits and comparisons, with matplotlib (imported when a plot is drawn).

Every function draws on ``ax`` (a new figure's axes when None) and returns the axes,
so that users can place the plots in figures of their own:

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
    """
    from scipy import stats

    ax = _axes(ax)
    p = np.linspace(0.0, 1.0, 501)
    post_a, post_b = a + successes, b + trials - successes
    ax.plot(p, stats.beta(a, b).pdf(p), color="0.6", ls="--", label=f"prior Beta({a:g}, {b:g})")
    ax.plot(p, stats.beta(post_a, post_b).pdf(p), color="C0", label="posterior")
    marks = {
        "ML": successes / trials,
        "MAP": (successes + a - 1) / (trials + a + b - 2),
        "posterior mean": post_a / (post_a + post_b),
    }
    for (name, value), colour in zip(marks.items(), ("C3", "C2", "C1"), strict=True):
        ax.axvline(value, color=colour, lw=1.2, label=f"{name} {value:.3f}")
    ax.set_xlabel("θ")
    ax.set_ylabel("density")
    ax.set_title(f"{successes:g} of {trials:g}: prior, posterior and estimates")
    ax.legend(fontsize=8)
    return ax


def learning_curves(table, metric: str = "log_loss", strength=None, ax=None):
    """``metric`` of every estimator over the training size, from the table of
    :func:`bayesnb.compare` (one prior strength: ``strength``, default the first).

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
    ax = _axes(ax)
    strengths = table["prior_strength"].dropna().unique()
    chosen = strengths[0] if strength is None and len(strengths) else strength
    rows = table[(table["prior_strength"] == chosen) | table["prior_strength"].isna()]
    for estimator, part in rows.groupby("estimator", sort=False):
        part = part.sort_values("n_train")
        ax.plot(part["n_train"], part[metric], marker="o", label=estimator)
    ax.set_xscale("log")
    ax.set_xlabel("training rows")
    ax.set_ylabel(metric.replace("_", " "))
    ax.set_title(f"{metric.replace('_', ' ')} by training size (prior strength {chosen:g})")
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

    ax = _axes(ax)
    columns = list(X.columns[:2]) if columns is None else list(columns)
    points = X[columns].to_numpy(dtype=float)
    labels = fit.responsibilities.argmax(axis=1)
    means, covs = _component_gaussians(fit, columns)
    for k in range(len(means)):
        colour = f"C{k}"
        ax.scatter(*points[labels == k].T, s=8, color=colour, alpha=0.6)
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


def _component_gaussians(fit, columns):
    """Every component's mean (2,) and covariance (2, 2) over two ``columns``."""
    for block, params in zip(fit.blocks, fit.block_params, strict=True):
        if "cov" in params and all(c in block.columns for c in columns):
            at = [list(block.columns).index(c) for c in columns]
            return params["mu"][:, at], params["cov"][:, at][:, :, at]
    means, variances = [], []
    for c in columns:
        for block, params in zip(fit.blocks, fit.block_params, strict=True):
            if "var" in params and c in block.columns:
                j = list(block.columns).index(c)
                means.append(params["mu"][:, j])
                variances.append(params["var"][:, j])
    if len(means) != 2:
        raise ValueError(f"no Gaussian parameters of the columns {columns!r} in this fit")
    K = len(means[0])
    covs = np.zeros((K, 2, 2))
    covs[:, 0, 0], covs[:, 1, 1] = variances
    return np.stack(means, axis=1), covs


def mcmc_traces(fit, variable: str = "class_prob", ax=None):
    """The draws of ``variable``'s first entry per chain of an MCMC mixture fit
    (``fit.trace``), as sampled (``posterior_raw``:
    chains started in different labellings, switching) and relabelled
    (``posterior``), side by side on two axes.

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

    if ax is None:
        _, ax = plt.subplots(1, 2, figsize=(10.0, 3.5), sharey=True)
    tree = fit.trace
    for axis, group in zip(ax, ("posterior_raw", "posterior"), strict=True):
        values = tree[group].to_dataset()[variable]
        first = values.isel({d: 0 for d in values.dims if d not in ("chain", "draw")})
        for c in range(first.sizes["chain"]):
            axis.plot(first.isel(chain=c).values, lw=0.6, label=f"chain {c}")
        axis.set_title(f"{variable} of component 0: {group}")
        axis.set_xlabel("draw")
    ax[0].legend(fontsize=7)
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
    rows (``intervals`` from :meth:`bayesnb.NaiveBayesFit.predictive_interval`).

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
    ax = _axes(ax)
    mean, lower, upper = (intervals[v] for v in ("mean", "lower", "upper"))
    row_dim, label_dim = mean.dims
    n = mean.sizes[row_dim] if rows is None else rows
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
