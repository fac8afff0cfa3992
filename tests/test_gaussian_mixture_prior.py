"""The Gaussian's default prior in a mixture: Fraley and Raftery's, the one-column case
of the Normal-Inverse-Wishart default, resolved for the number of components.

Every value is checked against a closed form, against ``MultivariateGaussian`` over
the same column (a separate family, kernel and prior class), or against a MAP-EM
written out here with mclust's univariate M-step.
"""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnb as bnb
from bayesnb.pymc_model import log_density, mixture_model


def _far_apart() -> pd.DataFrame:
    """Two components of 50 rows each, sd 1, 100 apart (the models guide's example)."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": np.r_[rng.normal(0, 1, 50), rng.normal(100, 1, 50)]})


def _map_em(x, weights, mu, var, prior, n_iter):
    """MAP-EM of a univariate Gaussian mixture, mclust's M-step for the conjugate prior
    (shrinkage kappa, mean mu0, dof 2 alpha, scale 2 beta): the means
    (n xbar + kappa mu0) / (n + kappa), the variances (2 beta + S + kappa n / (kappa +
    n) (xbar - mu0)^2) / (2 alpha + n + 3), and the weights the posterior mean under
    Dirichlet(1), (n + 1) / (N + K)."""
    mu0, kappa, alpha, beta = prior
    for _ in range(n_iter):
        logp = np.log(weights) - 0.5 * np.log(2 * np.pi * var) - (x[:, None] - mu) ** 2 / (2 * var)
        r = np.exp(logp - logp.max(axis=1, keepdims=True))
        r /= r.sum(axis=1, keepdims=True)
        n = r.sum(axis=0)
        xbar = (r * x[:, None]).sum(axis=0) / n
        ss = (r * (x[:, None] - xbar) ** 2).sum(axis=0)
        mu = (n * xbar + kappa * mu0) / (n + kappa)
        var = (2 * beta + ss + kappa * n / (kappa + n) * (xbar - mu0) ** 2) / (2 * alpha + n + 3)
        weights = (n + 1) / (len(x) + len(n))
    return weights, mu, var


@pytest.mark.parametrize("k", [2, 3, 5])
def test_the_resolved_prior_is_fraley_and_rafterys(k):
    x = bnb.datasets.old_faithful()[["waiting"]]
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(x, k, n_init=1, random_state=0)
    prior = fit.blocks[0].prior
    w = x["waiting"].to_numpy()
    assert float(prior.mu[0]) == pytest.approx(w.mean(), rel=1e-14)
    assert float(prior.kappa) == 0.01
    assert float(prior.alpha) == 1.5
    assert float(prior.beta[0]) == pytest.approx(np.var(w) / k**2 / 2, rel=1e-12)


def test_a_column_without_spread_gets_half_a_unit_of_scale_and_a_warning():
    X = pd.DataFrame({"c": [3.0] * 6, "x": [0.0, 0.1, 0.2, 5.0, 5.1, 5.3]})
    with pytest.warns(UserWarning, match=r"Gaussian feature 'c' holds one value, 3\.0"):
        fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 2, n_init=1, random_state=0)
    betas = {b.name: float(np.ravel(b.prior.beta)[0]) for b in fit.blocks}
    assert betas["c"] == 0.5  # psi = 1 for a column without spread, as the NIW default
    assert betas["x"] == pytest.approx(np.var(X["x"]) / 8, rel=1e-12)


def _with_constant_column():
    """Two components, 150 and 50 rows (the larger on the left), and a column of 7s."""
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0, 1, 150), rng.normal(2.5, 1, 50)]
    return pd.DataFrame({"a": x, "c": 7.0})


@pytest.mark.parametrize(
    "family",
    [bnb.Gaussian(), bnb.MultivariateGaussian(covariance="diag")],
    ids=["Gaussian", "MultivariateGaussian"],
)
def test_a_constant_column_in_a_mixture_is_warned_of(family):
    """Its MAP variance is beta / (alpha + n_k/2 + 3/2) with beta = 1/2 (the prior's
    unit of scale), smaller the larger the component: a pull the warning names."""
    X = _with_constant_column()
    model = bnb.NaiveBayes(family)
    with pytest.warns(UserWarning, match=r"one value, 7\.0, in every row of column 'c'"):
        mix = model.cluster(X, 2, random_state=0, n_init=2)
    if isinstance(family, bnb.Gaussian):
        n = mix.counts["c_n"].values
        np.testing.assert_allclose(mix.params["c_var"], 0.5 / (1.5 + n / 2 + 1.5), rtol=1e-10)


def test_no_constant_column_warning_where_it_does_not_bias():
    """One component, a classifier, and a column with two values: no warning (warnings
    are errors in this suite)."""
    X = _with_constant_column()
    bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 1)
    bnb.NaiveBayes(bnb.Gaussian()).fit(X, (X["a"] > 1).map({True: "r", False: "l"}))
    X2 = X.assign(c=np.r_[7.0, [8.0] * (len(X) - 1)])
    bnb.NaiveBayes(bnb.Gaussian()).cluster(X2, 2, random_state=0, n_init=1)


def test_the_classifiers_default_is_unchanged():
    """kappa = alpha = 1 and beta = the class's own 1/N variance (seed 001's
    temperatures, class No: 40.2096)."""
    fit = bnb.NaiveBayes({"temperature": bnb.Gaussian()}).fit(
        bnb.datasets.temperature(), target="play"
    )
    prior = fit.blocks[0].prior
    assert np.all(prior.kappa == 1.0) and np.all(prior.alpha == 1.0)
    no = fit.labels.index("No")
    assert float(np.ravel(prior.beta[no])[0]) == pytest.approx(40.2096, rel=1e-12)


def test_a_declared_kappa_and_alpha_are_kept_and_beta_still_scales_with_k():
    x = bnb.datasets.old_faithful()[["eruptions"]]
    declared = bnb.NormalInverseGamma(kappa=2.0, alpha=3.0)
    fit = bnb.NaiveBayes(bnb.Gaussian(declared)).cluster(x, 3, n_init=1, random_state=0)
    prior = fit.blocks[0].prior
    assert (float(prior.kappa), float(prior.alpha)) == (2.0, 3.0)
    assert float(prior.beta[0]) == pytest.approx(np.var(x["eruptions"]) / 18, rel=1e-12)


@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_one_column_equals_the_multivariate_gaussians_default(covariance):
    """The NIW default with d = 1 (kappa 0.01, nu 3, psi = var / K^2) is the NIG with
    alpha = nu / 2 and beta = psi / 2: both families reach the same mixture."""
    x = bnb.datasets.old_faithful()[["eruptions"]]
    start = xr.Dataset(
        {
            "class_prob": ("component", [0.4, 0.6]),
            "eruptions_mu": ("component", [2.0, 4.0]),
            "eruptions_var": ("component", [0.5, 0.5]),
        }
    )
    uni = bnb.NaiveBayes(bnb.Gaussian()).cluster(x, 2, init=start, tol=1e-12)
    mvn_start = xr.Dataset(
        {
            "class_prob": ("component", [0.4, 0.6]),
            "E_mu": (("component", "E_feature"), [[2.0], [4.0]]),
            "E_cov": (("component", "E_feature", "E_feature_2"), [[[0.5]], [[0.5]]]),
        }
    )
    multi = bnb.NaiveBayes(
        {"E": bnb.MultivariateGaussian(columns=["eruptions"], covariance=covariance)}
    ).cluster(x, 2, init=mvn_start, tol=1e-12)
    assert uni.objective == pytest.approx(multi.objective, rel=1e-10)
    np.testing.assert_allclose(uni.params["eruptions_mu"], multi.params["E_mu"][:, 0], rtol=1e-8)
    np.testing.assert_allclose(
        uni.params["eruptions_var"], multi.params["E_cov"][:, 0, 0], rtol=1e-7
    )


def test_the_optimum_is_mclusts_map_em():
    """From the same start, the package's MAP-EM ends where mclust's M-step, written
    out above, ends (Old Faithful's waiting times, K = 2)."""
    w = bnb.datasets.old_faithful()["waiting"].to_numpy(dtype=float)
    start = {"p": np.array([0.5, 0.5]), "mu": np.array([50.0, 80.0]), "var": np.array([30.0, 30.0])}
    prior = (w.mean(), 0.01, 1.5, np.var(w) / 4 / 2)
    p, mu, var = _map_em(w, start["p"], start["mu"], start["var"], prior, 2000)
    init = xr.Dataset(
        {
            "class_prob": ("component", start["p"]),
            "waiting_mu": ("component", start["mu"]),
            "waiting_var": ("component", start["var"]),
        }
    )
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(
        pd.DataFrame({"waiting": w}), 2, init=init, tol=1e-13, max_iter=5000
    )
    # EM stops on the objective, flat to second order at the optimum: the parameters
    # are fixed to about the square root of its round-off (the reference's 2000 steps
    # reach its fixed point to the last digit)
    np.testing.assert_allclose(fit.params["class_prob"], p, rtol=1e-6)
    np.testing.assert_allclose(fit.params["waiting_mu"], mu, rtol=1e-6)
    np.testing.assert_allclose(fit.params["waiting_var"], var, rtol=1e-6)
    assert fit.params["waiting_var"].values == pytest.approx([32.628388, 33.510664], rel=1e-6)


def test_far_apart_components_keep_a_variance_near_their_own():
    """The models guide's example: the default gives variances of about 12 (the
    old kappa = alpha = 1, beta = var default gave about 136), a declared
    beta = 0.5 about 1.2 and 1.4; each checked against the EM written out here."""
    X = _far_apart()
    x = X["x"].to_numpy()
    for declared, prior, about in [
        (None, (x.mean(), 0.01, 1.5, np.var(x) / 8), (12.3, 12.5)),
        (
            bnb.NormalInverseGamma(kappa=0.01, alpha=1.5, beta=0.5),
            (x.mean(), 0.01, 1.5, 0.5),
            (1.2, 1.4),
        ),
        (bnb.NormalInverseGamma(beta=np.var(x)), (x.mean(), 1.0, 1.0, np.var(x)), (136, 136)),
    ]:
        fit = bnb.NaiveBayes(bnb.Gaussian(declared)).cluster(X, 2, random_state=0, tol=1e-12)
        order = np.argsort(fit.params["x_mu"].values)
        var = fit.params["x_var"].values[order]
        mu = fit.params["x_mu"].values[order]
        weights = fit.params["class_prob"].values[order]
        _, mu_ref, var_ref = _map_em(x, weights, mu, var, prior, 50)
        np.testing.assert_allclose(mu, mu_ref, rtol=1e-9)  # a fixed point of that EM
        np.testing.assert_allclose(var, var_ref, rtol=1e-9)
        np.testing.assert_allclose(var, about, rtol=0.05)  # the guide's rounded values


def test_the_pymc_model_takes_the_same_prior():
    """The PyMC mixture model's log density at the EM fit equals the EM's objective
    terms: its Gaussian priors are resolved for K as EM resolves them."""
    x = bnb.datasets.old_faithful()[["eruptions"]]
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(x, 3, random_state=0, n_init=2)
    model = mixture_model(bnb.NaiveBayes(bnb.Gaussian()), x, 3)
    prior = fit.blocks[0].prior
    mu, var = fit.params["eruptions_mu"].values, fit.params["eruptions_var"].values
    # the NIG log density written out: InvGamma(alpha, beta) on var, N(mu0, var/kappa) on mu
    from scipy import stats

    mu0, kappa, alpha, beta = (
        float(np.ravel(v)[0]) for v in (prior.mu, prior.kappa, prior.alpha, prior.beta)
    )
    assert (mu0, kappa, alpha) == (pytest.approx(x["eruptions"].mean()), 0.01, 1.5)
    log_prior = (
        stats.invgamma.logpdf(var, alpha, scale=beta).sum()
        + stats.norm.logpdf(mu, mu0, np.sqrt(var / kappa)).sum()
    )
    weights = fit.params["class_prob"].values
    log_lik = np.log((weights * stats.norm.pdf(x.to_numpy(), mu, np.sqrt(var))).sum(axis=1)).sum()
    dirichlet = stats.dirichlet.logpdf(weights, np.ones(3))
    expected = log_lik + log_prior + dirichlet
    assert log_density(model, fit.params) == pytest.approx(expected, rel=1e-10)


def test_every_label_known_is_the_classifier_under_the_same_prior_and_estimator():
    """The clustering guide's statement: equal under a declared prior and "map"; the
    variances checked against the Normal-Inverse-Gamma mode by hand."""
    faithful = bnb.datasets.old_faithful()
    y = pd.Series(np.where(faithful["eruptions"] > 3, "L", "S"))
    prior = bnb.NormalInverseGamma(mu=0.0, kappa=0.5, alpha=2.0, beta=1.0)
    model = bnb.NaiveBayes(bnb.Gaussian(prior))
    fit = model.fit(faithful, y, estimate="map")
    mix = model.cluster(faithful, ["L", "S"], y=y, estimate="map")
    for name in ("class_prob", "eruptions_mu", "eruptions_var", "waiting_var"):
        np.testing.assert_allclose(mix.params[name], fit.params[name], rtol=1e-12)
    short = faithful["eruptions"][y == "S"].to_numpy()
    n, m = len(short), short.mean()
    beta_n = 1.0 + ((short - m) ** 2).sum() / 2 + 0.5 * n * m**2 / (2 * (0.5 + n))
    assert float(mix.params["eruptions_var"].sel(component="S")) == pytest.approx(
        beta_n / (2.0 + n / 2 + 1.5), rel=1e-12
    )
