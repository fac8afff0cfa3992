"""The plots at their edges: rows other than the training rows, fits without training
responsibilities, tables without prior strengths or feature pairs, and the misuses
refused with an :class:`~bayesnb.errors.InputError`.

Every expected value is computed here: each row's component from the fit's
parameters with scipy's normal density, the ellipses' axes from the variances, the
conditional mutual information from the counts with numpy, the estimates of a Beta
posterior by their formulas, and the plotted values from the tables and traces the
plots were given.
"""

import warnings

import matplotlib

matplotlib.use("Agg")  # before any figure: no display

import dask.dataframe as dd
import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.exceptions import ConvergenceWarning

import bayesnb as bnb
from bayesnb import plots
from bayesnb.bayesnet import naive_assumption_diagnostic
from bayesnb.errors import InputError


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _two_groups(n: int, seed: int) -> pd.DataFrame:
    """Two Gaussian columns: ``g`` from two groups (means 0 and 4), ``h`` from one."""
    rng = np.random.default_rng(seed)
    half = n // 2
    g = np.r_[rng.normal(0.0, 1.0, half), rng.normal(4.0, 1.0, n - half)]
    return pd.DataFrame({"g": g, "h": rng.normal(10.0, 2.0, n)})


@pytest.fixture(scope="module")
def data():
    return _two_groups(80, 0)


@pytest.fixture(scope="module")
def mix(data):
    return bnb.NaiveBayes(bnb.Gaussian()).cluster(data, 2, random_state=0)


def _gaussians(fit, columns):
    """``(weights (K,), means (K, d), sds (K, d))`` of ``columns``, read from the fit's
    parameter dataset: one Gaussian per column (``g_mu``, ``g_var``), a block over an
    array (``X_mu`` over ``X_feature``) or a one-column MultivariateGaussian
    (``g_mu``, ``g_cov``)."""
    ps = fit.params
    means, sds = [], []
    for c in columns:
        if f"{c}_var" in ps:
            mu, var = ps[f"{c}_mu"].values, ps[f"{c}_var"].values
        elif f"{c}_cov" in ps:
            mu, var = ps[f"{c}_mu"].values[:, 0], ps[f"{c}_cov"].values[:, 0, 0]
        else:
            mu = ps["X_mu"].sel(X_feature=c).values
            var = ps["X_var"].sel(X_feature=c).values
        means.append(mu)
        sds.append(np.sqrt(var))
    return ps["class_prob"].values, np.stack(means, axis=1), np.stack(sds, axis=1)


def _most_probable(fit, X, columns):
    """Every row's most probable component: argmax of log w_k + sum_j log N(x_j; mu, sd)."""
    weights, means, sds = _gaussians(fit, columns)
    x = np.asarray(X, dtype=float)
    log_joint = np.log(weights)[None, :] + stats.norm.logpdf(
        x[:, None, :], means[None, :, :], sds[None, :, :]
    ).sum(axis=2)
    return log_joint.argmax(axis=1)


def _drawn(ax):
    """``[(colour, set of drawn points)]`` of every scatter on ``ax``."""
    return [
        (
            mcolors.to_hex(coll.get_facecolor()[0]) if len(coll.get_offsets()) else None,
            {tuple(p) for p in np.round(np.asarray(coll.get_offsets(), dtype=float), 9)},
        )
        for coll in ax.collections
    ]


def _check_assignment(ax, fit_for_params, X, columns):
    """Every row of ``X`` is drawn once, in the colour of the component scipy's
    densities make most probable for it, and that colour's ellipses are centred on
    that component's means."""
    rows = np.asarray(X, dtype=float)
    expected = _most_probable(fit_for_params, rows, columns)
    _, means, _ = _gaussians(fit_for_params, columns)
    drawn = _drawn(ax)
    assert sum(len(points) for _, points in drawn) == len(rows)
    assert len(drawn) == len(means)
    for k, (colour, points) in enumerate(drawn):
        want = {tuple(p) for p in np.round(rows[expected == k], 9)}
        assert points == want
        if colour is not None:
            assert colour == mcolors.to_hex(f"C{k}")
        centres = [
            patch.center
            for patch in ax.patches
            if mcolors.to_hex(patch.get_edgecolor()) == mcolors.to_hex(f"C{k}")
        ]
        assert len(centres) == 2
        np.testing.assert_allclose(centres, [means[k], means[k]], rtol=1e-12)
    return expected


# -- 1. cluster_ellipses colours the rows it is given --------------------------------------


def test_cluster_ellipses_colours_shuffled_and_held_out_rows_by_their_own_component(data, mix):
    shuffled = data.sample(frac=1, random_state=1)
    ax = plots.cluster_ellipses(mix, shuffled)
    expected = _check_assignment(ax, mix, shuffled[["g", "h"]], ["g", "h"])
    assert 0 < expected.sum() < len(expected)  # both components hold rows
    # rows the fit never saw, fewer than the training rows
    held_out = _two_groups(30, 7)
    ax = plots.cluster_ellipses(mix, held_out)
    expected = _check_assignment(ax, mix, held_out[["g", "h"]], ["g", "h"])
    assert 0 < expected.sum() < len(expected)


def test_cluster_ellipses_draws_a_loaded_fit_and_a_dask_fit(data, mix, tmp_path):
    mix.save(tmp_path / "mix.nc")
    loaded = bnb.load(tmp_path / "mix.nc")
    assert loaded.responsibilities is None
    ax = plots.cluster_ellipses(loaded, data)
    # the parameters of the fit before saving decide the colours of the loaded one
    _check_assignment(ax, mix, data[["g", "h"]], ["g", "h"])

    by_dask = bnb.NaiveBayes(bnb.Gaussian()).cluster(
        dd.from_pandas(data, npartitions=3), 2, random_state=0
    )
    assert by_dask.responsibilities is None
    ax = plots.cluster_ellipses(by_dask, data)
    _check_assignment(ax, by_dask, data[["g", "h"]], ["g", "h"])


def test_cluster_ellipses_of_a_fit_on_an_array(data):
    X = data.to_numpy()
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 2, random_state=0)
    ax = plots.cluster_ellipses(fit, X)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x0", "x1")
    _check_assignment(ax, fit, X, ["x0", "x1"])


def test_cluster_ellipses_of_a_one_column_multivariate_gaussian_beside_a_gaussian(data):
    fit = bnb.NaiveBayes(
        {"g": bnb.MultivariateGaussian(columns=["g"]), "h": bnb.Gaussian()}
    ).cluster(data, 2, random_state=0)
    ax = plots.cluster_ellipses(fit, data)
    _check_assignment(ax, fit, data[["g", "h"]], ["g", "h"])
    # the features are independent given the component: the ellipses' axes are the
    # columns' own standard deviations, 1 and 2 of them either side of the mean
    _, _, sds = _gaussians(fit, ["g", "h"])
    for k in range(2):
        ellipses = [
            p for p in ax.patches if mcolors.to_hex(p.get_edgecolor()) == mcolors.to_hex(f"C{k}")
        ]
        sizes = sorted(sorted([p.width, p.height]) for p in ellipses)
        want = sorted(sorted(2.0 * scale * sds[k]) for scale in (1.0, 2.0))
        np.testing.assert_allclose(sizes, want, rtol=1e-9)


def test_cluster_ellipses_refuses_a_fit_with_one_gaussian_column(data):
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(data[["g"]], 2, random_state=0)
    with pytest.raises(InputError, match=r"draws two columns .* this fit has 1: \['g'\]"):
        plots.cluster_ellipses(fit, data[["g"]])


def test_cluster_ellipses_names_a_column_without_gaussian_parameters(data, mix):
    with pytest.raises(InputError, match=r"columns names 'z', which is not a column of the fit"):
        plots.cluster_ellipses(mix, data, columns=["g", "z"])
    with pytest.raises(InputError, match=r"columns must name two different columns"):
        plots.cluster_ellipses(mix, data, columns=["g", "g"])


# -- 2. the naive-assumption diagnostic of one feature -------------------------------------


def test_naive_assumption_diagnostic_of_one_feature_is_an_empty_table():
    tennis = bnb.datasets.play_tennis()
    table = naive_assumption_diagnostic(tennis[["outlook", "play"]], "play")
    assert list(table.columns) == ["a", "b", "cmi", "g2", "df", "p_value"]
    assert len(table) == 0
    with pytest.raises(InputError, match=r"table holds no pair of features"):
        plots.naive_assumption_heatmap(table)


def test_naive_assumption_heatmap_of_two_features_holds_their_cmi():
    """The smallest table with a pair: its one cell is I(outlook; wind | play) from the
    counts, sum p(a, b, c) log p(a, b, c) p(c) / (p(a, c) p(b, c))."""
    tennis = bnb.datasets.play_tennis()[["outlook", "wind", "play"]]
    ax = plots.naive_assumption_heatmap(naive_assumption_diagnostic(tennis, "play"))
    p_abc = tennis.value_counts(normalize=True)
    p_ac = tennis.groupby(["outlook", "play"]).size() / len(tennis)
    p_bc = tennis.groupby(["wind", "play"]).size() / len(tennis)
    p_c = tennis.groupby("play").size() / len(tennis)
    cmi = sum(
        p * np.log(p * p_c[c] / (p_ac[(a, c)] * p_bc[(b, c)])) for (a, b, c), p in p_abc.items()
    )
    grid = ax.images[0].get_array()
    np.testing.assert_allclose(grid, [[0.0, cmi], [cmi, 0.0]], rtol=1e-12)


# -- 3. learning curves without a prior strength -------------------------------------------


@pytest.fixture(scope="module")
def votes():
    return bnb.datasets.house_votes_84()[["party", "V4", "V5", "V8"]]


def test_learning_curves_of_maximum_likelihood_rows_alone(votes):
    table = bnb.compare(votes, "party", strengths=(), train_sizes=(0.5, 1.0), n_splits=2)
    assert table["prior_strength"].isna().all()
    ax = plots.learning_curves(table, metric="log_loss")
    (line,) = ax.get_lines()
    ml = table[table.estimator == "ml"].sort_values("n_train")
    assert line.get_label() == "ml"
    assert line.get_xdata().tolist() == ml["n_train"].tolist()
    np.testing.assert_array_equal(line.get_ydata(), ml["log_loss"].to_numpy())
    assert "prior strength" not in ax.get_title()

    full = bnb.compare(votes, "party", strengths=(1.0,), train_sizes=(1.0,), n_splits=2)
    ax = plots.learning_curves(full[full.estimator == "ml"], metric="accuracy")
    (line,) = ax.get_lines()
    assert line.get_ydata().tolist() == full.loc[full.estimator == "ml", "accuracy"].tolist()


def test_learning_curves_refuses_a_strength_not_in_the_table(votes):
    table = bnb.compare(votes, "party", strengths=(1.0,), train_sizes=(1.0,), n_splits=2)
    with pytest.raises(InputError, match=r"strength=5\.0 is not a prior strength .* \[1\.0\]"):
        plots.learning_curves(table, strength=5.0)


# -- 4. the other edges ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def by_mcmc(data):
    # a short run: its chains need not agree for the plots' checks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return bnb.NaiveBayes(bnb.Gaussian()).cluster(
            data, 2, method="mcmc", draws=30, tune=30, chains=2, random_state=0
        )


def test_em_traces_refuses_an_mcmc_fit(by_mcmc):
    with pytest.raises(InputError, match=r"em_traces needs a mixture fitted by EM.*MCMCMixture"):
        plots.em_traces(by_mcmc)


def test_mcmc_traces_refuses_one_axes_and_draws_on_a_pair(by_mcmc, mix):
    _, one = plt.subplots()
    with pytest.raises(InputError, match=r"ax must be two axes.*got 1"):
        plots.mcmc_traces(by_mcmc, ax=one)
    with pytest.raises(InputError, match=r"mcmc_traces needs a mixture fitted by MCMC"):
        plots.mcmc_traces(mix)
    _, pair = plt.subplots(1, 2)
    axes = plots.mcmc_traces(by_mcmc, ax=list(pair))
    for axis, group in zip(pair, ("posterior_raw", "posterior"), strict=True):
        draws = by_mcmc.trace[group].to_dataset()["class_prob"].values  # (chain, draw, K)
        assert len(axis.get_lines()) == draws.shape[0]
        for c, line in enumerate(axis.get_lines()):
            np.testing.assert_array_equal(line.get_ydata(), draws[c, :, 0])
    assert list(axes) == list(pair)


def test_class_intervals_with_more_rows_asked_than_given():
    tennis = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().fit(tennis, target="play")
    intervals = fit.predictive_interval(
        tennis.drop(columns="play").head(3), random_state=0, draws=100, chains=2
    )
    ax = plots.class_intervals(intervals, rows=5)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["D1", "D2", "D3"]
    # one error bar per class over the three rows: the mean, from lower to upper
    assert len(ax.containers) == 2
    for j, bars in enumerate(ax.containers):
        data_line, _, (ranges,) = bars.lines
        np.testing.assert_allclose(
            data_line.get_ydata(), intervals["mean"].values[:, j], rtol=1e-12
        )
        ends = np.array([segment[:, 1] for segment in ranges.get_segments()])
        np.testing.assert_allclose(ends[:, 0], intervals["lower"].values[:, j], rtol=1e-12)
        np.testing.assert_allclose(ends[:, 1], intervals["upper"].values[:, j], rtol=1e-12)
    with pytest.raises(InputError, match=r"rows must be a whole number >= 1.*got 0"):
        plots.class_intervals(intervals, rows=0)


def test_beta_estimates_without_trials_marks_what_exists():
    ax = plots.beta_estimates(0, 0, a=3, b=2)
    # no trials: no ML estimate; the mode (a - 1)/(a + b - 2) and mean a/(a + b) of Beta(3, 2)
    assert ax.get_legend_handles_labels()[1] == [
        "prior Beta(3, 2)",
        "posterior",
        f"MAP {2 / 3:.3f}",
        f"posterior mean {3 / 5:.3f}",
    ]
    # a uniform prior and no data: no single mode either, only the mean 1/2
    ax = plots.beta_estimates(0, 0, a=1, b=1)
    assert ax.get_legend_handles_labels()[1][2:] == ["posterior mean 0.500"]
    with pytest.raises(InputError, match=r"successes must lie between 0 and trials.*=4"):
        plots.beta_estimates(5, 4)
