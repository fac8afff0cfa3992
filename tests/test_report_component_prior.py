"""Cluster reports of mixtures whose features declare one prior per component.

The whole data's distribution is estimated under the components' priors pooled into
one: a Dirichlet's rows averaged, a Normal-Inverse-Gamma's pseudo-data merged and
weighed as one component's. Oracles: the conjugate posteriors written out here by
formula from the raw data (value counts, the column's mean and sum of squares), the
pooled priors computed by hand, and the Kullback-Leibler divergences by their
closed forms.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import cluster_reports
from bayesnb.errors import InputError

ALPHA_C = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # Categorical, one row per component
BETA_A, BETA_B = np.array([2.0, 4.0]), np.array([1.0, 3.0])  # Beta(a, b) per component
NIG = {"mu": np.array([[0.0], [5.0]]), "kappa": np.array([[1.0], [3.0]]), "alpha": 2.0}
NIG_BETA = np.array([[1.0], [2.0]])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 200
    return pd.DataFrame(
        {
            "x": np.r_[rng.normal(0, 1, n // 2), rng.normal(5, 1, n // 2)],
            "c": rng.choice(list("abc"), n),
            "b": rng.choice(["n", "y"], n),
        }
    )


def _features():
    return {
        "x": bnb.Gaussian(bnb.NormalInverseGamma(**NIG, beta=NIG_BETA)),
        "c": bnb.Categorical(bnb.Dirichlet(ALPHA_C)),
        "b": bnb.Bernoulli(bnb.Beta(BETA_A, BETA_B), values=("n", "y")),
    }


@pytest.fixture(scope="module")
def mix(data):
    return bnb.NaiveBayes(_features()).cluster(data, 2, n_init=1, random_state=0)


def _whole(mix):
    return dict(zip([b.name for b in mix.blocks], cluster_reports.pooled_params(mix), strict=True))


def test_the_fit_uses_the_estimators_the_oracles_below_assume(mix):
    assert mix.estimates["features"] == {"x": "map", "c": "mean", "b": "mean"}


def test_categorical_whole_data_is_the_posterior_mean_under_the_mean_row(mix, data):
    counts = data["c"].value_counts().reindex(["a", "b", "c"]).to_numpy(float)
    alpha = (ALPHA_C[0] + ALPHA_C[1]) / 2.0  # (2.5, 3.5, 4.5)
    expected = (counts + alpha) / (counts.sum() + alpha.sum())
    got = np.exp(_whole(mix)["c"]["log_prob"])
    assert got.shape == (1, 3)
    np.testing.assert_allclose(got[0], expected, rtol=1e-10)


def test_bernoulli_whole_data_is_the_posterior_mean_under_the_mean_beta(mix, data):
    yes = float((data["b"] == "y").sum())
    n = float(len(data))
    a, b = BETA_A.mean(), BETA_B.mean()  # Beta(3, 2)
    got = np.exp(_whole(mix)["b"]["log_prob"])  # (1, 1, [false, true])
    np.testing.assert_allclose(got[0, 0], [(n - yes + b) / (n + a + b), (yes + a) / (n + a + b)])


def test_gaussian_whole_data_is_the_map_under_the_pooled_pseudo_data(mix, data):
    x = data["x"].to_numpy()
    n, xbar = len(x), x.mean()
    ss = float(((x - xbar) ** 2).sum())
    # the pooled prior by hand: kappa-weighted mean, mean kappa and alpha, and beta
    # with half the kappa-weighted spread of the prior means, all over K = 2
    kap, mus, betas = NIG["kappa"][:, 0], NIG["mu"][:, 0], NIG_BETA[:, 0]
    mu0 = (1.0 * 0.0 + 3.0 * 5.0) / 4.0
    kappa0 = kap.mean()
    alpha0 = 2.0
    beta0 = (betas.sum() + 0.5 * float((kap * (mus - mu0) ** 2).sum())) / 2.0
    assert (mu0, kappa0, beta0) == (3.75, 2.0, 6.1875)  # (3 + (14.0625 + 4.6875) / 2) / 2
    # the Normal-Inverse-Gamma update and its joint mode, written out
    kappa_n = kappa0 + n
    mu_n = (kappa0 * mu0 + n * xbar) / kappa_n
    alpha_n = alpha0 + n / 2.0
    beta_n = beta0 + ss / 2.0 + kappa0 * n * (xbar - mu0) ** 2 / (2.0 * kappa_n)
    whole = _whole(mix)["x"]
    assert float(whole["mu"][0, 0]) == pytest.approx(mu_n, rel=1e-12)
    assert float(whole["var"][0, 0]) == pytest.approx(beta_n / (alpha_n + 1.5), rel=1e-12)


def test_influence_is_the_kl_divergence_from_the_pooled_estimate(mix, data):
    infl = mix.influence()
    # Categorical: sum_v p_kv log(p_kv / q_v), q the posterior mean under the mean row
    counts = data["c"].value_counts().reindex(["a", "b", "c"]).to_numpy(float)
    alpha = ALPHA_C.mean(axis=0)
    q = (counts + alpha) / (counts.sum() + alpha.sum())
    p = mix.params["c"].sel(c_category=["a", "b", "c"]).to_numpy()
    np.testing.assert_allclose(
        infl.sel(feature="c").to_numpy(), (p * np.log(p / q)).sum(axis=1), rtol=1e-9
    )
    # Gaussian: log(s / s_k) + (s_k^2 + (m_k - m)^2) / (2 s^2) - 1/2
    whole = _whole(mix)["x"]
    m, v = float(whole["mu"][0, 0]), float(whole["var"][0, 0])
    mk, vk = mix.params["x_mu"].to_numpy(), mix.params["x_var"].to_numpy()
    kl = 0.5 * np.log(v / vk) + (vk + (mk - m) ** 2) / (2 * v) - 0.5
    np.testing.assert_allclose(infl.sel(feature="x").to_numpy(), kl, rtol=1e-9)


def test_report_runs_and_summarizes_against_the_pooled_estimate(mix, data):
    report = mix.report(top=None)
    assert len(report) == 6
    yes = float((data["b"] == "y").sum())
    q = (yes + BETA_A.mean()) / (len(data) + BETA_A.mean() + BETA_B.mean())
    for k in (0, 1):
        p = float(mix.params["b"].sel(component=k))
        assert report.loc[(k, "b"), "summary"] == f"P(y) = {p:.3f} (all: {q:.3f})"


def test_equal_rows_report_as_the_shared_prior(data):
    rows = bnb.Dirichlet([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    mix = bnb.NaiveBayes({"c": bnb.Categorical(rows)}).cluster(
        data[["c"]], 2, n_init=1, random_state=0
    )
    counts = data["c"].value_counts().reindex(["a", "b", "c"]).to_numpy(float)
    expected = (counts + np.array([1.0, 2.0, 3.0])) / (counts.sum() + 6.0)
    np.testing.assert_allclose(
        np.exp(cluster_reports.pooled_params(mix)[0]["log_prob"][0]), expected
    )


def test_the_fit_keeps_its_per_component_prior(mix):
    mix.report()
    block = {b.name: b for b in mix.blocks}
    np.testing.assert_array_equal(block["c"].prior.alpha, ALPHA_C)
    np.testing.assert_array_equal(block["x"].prior.kappa, NIG["kappa"])


def test_multicolumn_gaussian_and_multinomial_blocks(data):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "x": data["x"],
            "y": rng.normal(size=len(data)),
            "w1": rng.poisson(3, len(data)),
            "w2": rng.poisson(5, len(data)),
        }
    )
    mu = np.array([[0.0, 1.0], [4.0, -1.0]])
    features = {
        "xy": bnb.Gaussian(
            bnb.NormalInverseGamma(mu=mu, kappa=1.0, alpha=2.0, beta=1.0), columns=["x", "y"]
        ),
        "w": bnb.Multinomial(bnb.Dirichlet([[1.0, 1.0], [3.0, 5.0]]), columns=["w1", "w2"]),
    }
    mix = bnb.NaiveBayes(features).cluster(frame, 2, n_init=1, random_state=0)
    gauss, words = cluster_reports.pooled_params(mix)
    for j, col in enumerate(["x", "y"]):
        v = frame[col].to_numpy()
        n, xbar, ss = len(v), v.mean(), float(((v - v.mean()) ** 2).sum())
        mu0 = mu[:, j].mean()  # equal kappas
        beta0 = (2.0 + 0.5 * float(((mu[:, j] - mu0) ** 2).sum())) / 2.0
        kappa_n = 1.0 + n
        beta_n = beta0 + ss / 2.0 + n * (xbar - mu0) ** 2 / (2.0 * kappa_n)
        assert gauss["mu"][0, j] == pytest.approx((mu0 + n * xbar) / kappa_n, rel=1e-12)
        assert gauss["var"][0, j] == pytest.approx(beta_n / (2.0 + n / 2.0 + 1.5), rel=1e-12)
    totals = frame[["w1", "w2"]].sum().to_numpy(float) + np.array([2.0, 3.0])  # mean row (2, 3)
    np.testing.assert_allclose(np.exp(words["log_prob"][0]), totals / totals.sum(), rtol=1e-12)
    assert len(mix.report(top=None)) == 6


# -- the priors' pooling, by hand -----------------------------------------------------------


def test_dirichlet_pooled_is_the_mean_row():
    pooled = bnb.Dirichlet([[1.0, 3.0, 2.0], [5.0, 1.0, 4.0]]).pooled()
    np.testing.assert_array_equal(pooled.alpha, [[3.0, 2.0, 3.0]])
    shared = bnb.Dirichlet([1.0, 2.0])
    assert shared.pooled() is shared
    beta = bnb.Beta([2.0, 4.0], [1.0, 5.0]).pooled()
    assert isinstance(beta, bnb.Beta)
    assert (beta.a.tolist(), beta.b.tolist()) == ([3.0], [3.0])


def test_normal_inverse_gamma_pooled_by_hand():
    prior = bnb.NormalInverseGamma(
        mu=[[1.0], [2.0], [6.0]], kappa=[[1.0], [2.0], [1.0]], alpha=[[1.0], [2.0], [6.0]], beta=3.0
    )
    pooled = prior.pooled()
    mu0 = (1.0 + 4.0 + 6.0) / 4.0  # kappa-weighted: 2.75
    spread = 1.0 * (1.0 - mu0) ** 2 + 2.0 * (2.0 - mu0) ** 2 + 1.0 * (6.0 - mu0) ** 2
    assert float(pooled.mu[0, 0]) == pytest.approx(mu0, rel=1e-15)
    assert float(pooled.kappa[0, 0]) == pytest.approx(4.0 / 3.0, rel=1e-15)
    assert float(pooled.alpha[0, 0]) == pytest.approx(3.0, rel=1e-15)
    assert float(pooled.beta[0, 0]) == pytest.approx((9.0 + spread / 2.0) / 3.0, rel=1e-14)
    shared = bnb.NormalInverseGamma(mu=[0.0, 1.0], kappa=1.0, alpha=2.0, beta=1.0)
    assert shared.pooled() is shared


def test_normal_inverse_gamma_pooled_with_a_default_left_is_a_clear_error():
    prior = bnb.NormalInverseGamma(mu=[[0.0], [1.0]], kappa=1.0, alpha=2.0)  # beta=None
    with pytest.raises(InputError, match=r"one row per component.*None.*\.resolve\("):
        prior.pooled()
