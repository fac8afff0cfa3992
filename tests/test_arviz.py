"""ArviZ reads the exact posterior (``NaiveBayesFit.posterior``) unchanged.

Every expected value is computed here from its definition: the conjugate mean from
the counts, the per-row log joint from the drawn parameters and the raw rows (with
scipy's normal density for a Gaussian), the diagnostics of independent draws; ArviZ
(arviz-stats, arviz-plots) is the peer that reads the DataTree.
"""

import matplotlib

matplotlib.use("Agg")  # before any figure: the tests write PNG files, no display

import arviz as az
import arviz_plots as azp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnb as bnb

DRAWS, CHAINS = 1000, 4


@pytest.fixture(scope="module")
def votes():
    return bnb.datasets.house_votes_84()


@pytest.fixture(scope="module")
def votes_fit(votes):
    return bnb.NaiveBayes().fit(votes, target="party", estimate="mean")


@pytest.fixture(scope="module")
def votes_tree(votes_fit):
    return votes_fit.posterior(draws=DRAWS, chains=CHAINS, random_state=0)


# -- the means: every posterior variable against its exact conjugate mean ------------------
def exact_means(fit) -> dict:
    """(count + 1) / (N + V) of every variable under Dirichlet(1) priors, from the
    counts: N the variable's total over its categories (rows with the value missing
    are not counted), V its number of categories."""
    out = {}
    for name, counts in fit.counts.data_vars.items():
        if name == "class_count":
            out["class_prob"] = (counts + 1.0) / (counts.sum() + counts.sizes["class_label"])
        else:
            cat = f"{name}_category"
            out[name] = (counts + 1.0) / (counts.sum(cat) + counts.sizes[cat])
    return out


def test_exact_mean_is_the_fit_under_estimate_mean(votes_fit):
    means = exact_means(votes_fit)
    assert set(means) == set(votes_fit.params.data_vars)
    assert len(means) == 17  # the class and the 16 votes
    for name, mean in means.items():
        fitted = votes_fit.params[name]
        assert mean.dims == fitted.dims
        np.testing.assert_allclose(mean.values, fitted.values, rtol=0, atol=1e-12)


def test_posterior_means_within_four_monte_carlo_errors(votes_fit, votes_tree):
    post = votes_tree["posterior"]
    means = exact_means(votes_fit)
    assert set(post.data_vars) == set(means)
    size = DRAWS * CHAINS
    for name, exact in means.items():
        draws = post[name]
        assert draws.sizes["chain"] == CHAINS and draws.sizes["draw"] == DRAWS
        mean = draws.mean(("chain", "draw"))
        sd = draws.std(("chain", "draw"), ddof=1)
        mcse = sd / np.sqrt(size)  # independent draws
        z = np.abs(mean - exact) / mcse
        assert float(z.max()) < 4.0, (name, float(z.max()))


def test_posterior_spread_is_the_beta_marginal(votes_fit, votes_tree):
    # a coordinate of Dirichlet(a) is Beta(a_v, a_0 - a_v): sd sqrt(m (1 - m) / (a_0 + 1))
    post = votes_tree["posterior"]
    for name, exact in exact_means(votes_fit).items():
        counts = votes_fit.counts["class_count" if name == "class_prob" else name]
        cat = "class_label" if name == "class_prob" else f"{name}_category"
        a0 = counts.sum(cat) + counts.sizes[cat]
        exact_sd = np.sqrt(exact * (1.0 - exact) / (a0 + 1.0))
        sd = post[name].std(("chain", "draw"), ddof=1)
        np.testing.assert_allclose(sd.values, exact_sd.values, rtol=0.08)


# -- az.summary --------------------------------------------------------------------------------
def test_summary_diagnostics_of_independent_draws(votes_tree):
    summary = az.summary(votes_tree, fmt="xarray", round_to="none")
    size = DRAWS * CHAINS
    assert set(summary.data_vars) == set(votes_tree["posterior"].data_vars)
    for name, values in summary.data_vars.items():
        ess_bulk = values.sel(summary="ess_bulk")
        ess_tail = values.sel(summary="ess_tail")
        r_hat = values.sel(summary="r_hat")
        assert float(ess_bulk.min()) > 0.7 * size, name
        assert float(ess_tail.min()) > 0.7 * size, name
        assert float(r_hat.max()) < 1.01, name
        assert float(np.abs(r_hat - 1.0).max()) < 0.01, name
    # the summary's mean is the draws' mean
    np.testing.assert_allclose(
        summary["V4"].sel(summary="mean").values,
        votes_tree["posterior"]["V4"].mean(("chain", "draw")).values,
        rtol=0,
        atol=1e-12,
    )


def test_summary_default_wide_table(votes_tree):
    # ArviZ stacks the variables on a dim of its own named "label": the class dim is
    # class_label so that the two never meet.
    table = az.summary(votes_tree)
    assert table.loc["class_prob[democrat]", "r_hat"] < 1.01


# -- az.loo and the pointwise log-likelihood --------------------------------------------------
def test_loo_is_finite(votes_tree, votes):
    loo = az.loo(votes_tree)
    assert np.isfinite(loo.elpd)
    assert loo.n_data_points == len(votes)
    assert np.isfinite(loo.se) and loo.se > 0
    # log p(x_i, y_i) of discrete values is at most 0; a model that learned nothing
    # (every vote and party a fair coin) scores log(1/2) per observed value
    observed = votes.notna().to_numpy().sum()
    assert observed * np.log(0.5) < loo.elpd < 0.0


@pytest.mark.parametrize(("chain", "draw"), [(0, 0), (1, 417), (3, 999)])
def test_log_likelihood_is_the_log_joint_of_every_row(votes, votes_tree, chain, draw):
    post = votes_tree["posterior"]
    loglik = votes_tree["log_likelihood"]["party"]
    assert loglik.dims == ("chain", "draw", "row")
    np.testing.assert_array_equal(loglik["row"].values, np.arange(len(votes)))
    labels = post["class_label"].values
    y = pd.Index(labels).get_indexer(votes["party"])
    assert (y >= 0).all()
    expected = np.log(post["class_prob"].values[chain, draw])[y]
    for column in votes.columns.drop("party"):
        prob = post[column].values[chain, draw]  # (label, category)
        categories = pd.Index(post[f"{column}_category"].values)
        seen = votes[column].notna().to_numpy()
        x = categories.get_indexer(votes[column][seen])
        assert (x >= 0).all()
        expected[seen] += np.log(prob[y[seen], x])  # a missing vote contributes nothing
    np.testing.assert_allclose(loglik.values[chain, draw], expected, rtol=0, atol=1e-10)


def test_log_likelihood_of_a_mixed_model_with_missing_values():
    rng = np.random.default_rng(7)
    n = 60
    y = rng.choice(["a", "b", "c"], n)
    k = pd.Index(["a", "b", "c"]).get_indexer(y)
    b = (rng.random(n) < np.array([0.2, 0.5, 0.9])[k]).astype(float)
    g = rng.normal(np.array([-1.0, 0.0, 2.0])[k], 1.5)
    b[rng.random(n) < 0.15] = np.nan
    g[rng.random(n) < 0.15] = np.nan
    X = pd.DataFrame({"b": b, "g": g})
    nig = bnb.NormalInverseGamma(mu=0.0, kappa=1.0, alpha=2.0, beta=2.0)
    model = bnb.NaiveBayes({"b": bnb.Bernoulli(bnb.Beta(2.0, 2.0)), "g": bnb.Gaussian(nig)})
    fit = model.fit(X, y)
    tree = fit.posterior(draws=50, chains=2, random_state=3)
    post, loglik = tree["posterior"], tree["log_likelihood"][fit.target]
    assert list(post["class_label"].values) == ["a", "b", "c"]
    for chain, draw in [(0, 3), (1, 49)]:
        at = {name: post[name].values[chain, draw] for name in post.data_vars}
        expected = np.log(at["class_prob"])[k]
        seen = ~np.isnan(b)
        p1 = at["b"][k[seen]]  # P(b = 1 | class)
        expected[seen] += np.where(b[seen] == 1.0, np.log(p1), np.log1p(-p1))
        seen = ~np.isnan(g)
        mu, var = at["g_mu"][k[seen]], at["g_var"][k[seen]]
        expected[seen] += stats.norm.logpdf(g[seen], mu, np.sqrt(var))
        np.testing.assert_allclose(loglik.values[chain, draw], expected, rtol=0, atol=1e-10)


# -- az.compare ---------------------------------------------------------------------------------
def test_compare_ranks_the_informative_feature_first():
    # Both features are Bernoulli(1/2) marginally; one depends on the class (0.8 vs 0.2),
    # the other not. The log-likelihood is the joint log p(x, y) = log p(x) + log p(y | x):
    # the first term is the same in expectation for the two, so the difference of the
    # elpds is the information the feature carries about the class.
    rng = np.random.default_rng(11)
    n = 400
    y = rng.integers(0, 2, n)
    columns = {
        "informative": (rng.random(n) < np.where(y == 1, 0.8, 0.2)).astype(float),
        "noise": (rng.random(n) < 0.5).astype(float),
    }
    trees = {}
    for name, x in columns.items():
        fit = bnb.NaiveBayes({name: bnb.Bernoulli(bnb.Beta(1.0, 1.0))}).fit(
            pd.DataFrame({name: x}), y
        )
        trees[name] = fit.posterior(draws=500, chains=2, random_state=1)
    table = az.compare(trees)
    assert table.index.tolist() == ["informative", "noise"]
    assert table.loc["informative", "rank"] == 0 and table.loc["noise", "rank"] == 1
    # expected gap: n * I(x; y) = 400 * (log 2 - H(0.8)) = 77 nats, with dse about 12
    gap = -table.loc["noise", "elpd_diff"]
    assert gap > 3 * table.loc["noise", "dse"]
    assert 40 < gap < 120


# -- arviz-plots ----------------------------------------------------------------------------------
@pytest.fixture
def small_tree():
    fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
    yield fit.posterior(draws=200, chains=2, random_state=0, data=False)
    plt.close("all")


PLOTS = {
    "dist": lambda tree: azp.plot_dist(tree, var_names=["class_prob"], backend="matplotlib"),
    "prior_posterior": lambda tree: azp.plot_prior_posterior(
        tree, var_names=["class_prob"], backend="matplotlib"
    ),
    "forest": lambda tree: azp.plot_forest(
        tree, var_names=["outlook", "humidity"], backend="matplotlib"
    ),
}


@pytest.mark.parametrize("kind", list(PLOTS))
def test_arviz_plots_save_a_png(small_tree, tmp_path, kind):
    collection = PLOTS[kind](small_tree)
    path = tmp_path / f"{kind}.png"
    collection.savefig(path)
    data = path.read_bytes()
    assert len(data) > 1000
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
