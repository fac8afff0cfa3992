"""The exact conjugate posterior of the multivariate Gaussian family: its update against
scipy's densities (Chib's identity), its draws against scipy's Inverse-Wishart, the
covariances' marginal laws against scipy's moments and Monte Carlo quantiles, and the
Gibbs sampler against the exact posterior where every membership is known."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import bayesnb as bnb
from bayesnb.families.multivariate import COVARIANCES, _inverse_wishart_factors
from bayesnb.marginals import CovarianceEntries, interval
from tests.test_mcmc import mcse_ok


def _faithful_fit(covariance: str, **prior):
    X = bnb.datasets.old_faithful()
    y = np.where(X["eruptions"] > 3, "long", "short")
    model = bnb.NaiveBayes(
        bnb.MultivariateGaussian(bnb.NormalInverseWishart(**prior), covariance=covariance)
    )
    return model, X, y, model.fit(X, y)


def _log_posterior_scipy(covariance: str, hyper: dict, mu: np.ndarray, cov: np.ndarray) -> float:
    """The posterior density at (mu, cov) from scipy's distributions, given the
    hyperparameters in the family's layout."""
    K = len(mu)
    total = 0.0
    kappa = hyper["kappa"]
    for k in range(K):
        if covariance in ("full", "tied"):
            total += stats.multivariate_normal.logpdf(mu[k], hyper["mu"][k], cov[k] / kappa[k])
        else:
            var = np.diagonal(cov[k])
            total += stats.norm.logpdf(mu[k], hyper["mu"][k], np.sqrt(var / kappa[k])).sum()
    if covariance == "full":
        for k in range(K):
            total += stats.invwishart.logpdf(cov[k], hyper["nu"][k], hyper["psi"][k])
    elif covariance == "tied":
        total += stats.invwishart.logpdf(cov[0], float(hyper["nu"]), hyper["psi"])
    else:
        var = np.diagonal(cov, axis1=1, axis2=2)
        alpha, beta = hyper["alpha"], hyper["beta"]
        if covariance == "spherical":
            var = var[:, 0]
        elif covariance == "tied-spherical":
            var = var[0, 0]
        total += stats.invgamma.logpdf(var, alpha, scale=beta).sum()
    return float(total)


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_evidence_satisfies_chibs_identity_at_every_point(covariance):
    """log p(D) = log p(D | theta) + log p(theta) - log p(theta | D) at any theta: the
    likelihood and the prior are the family's own (the EM code), the posterior density
    scipy's at the family's hyperparameters, so the update and the evidence are both
    checked, at three different points."""
    _, _, _, fit = _faithful_fit(covariance, kappa=0.3, nu=5.0)
    block, st = fit.blocks[0], fit.stats[0]
    hyper = block.posterior_hyper(st)
    evidence = block.log_marginal(st, 2)
    points = [block.estimate_params(st, method) for method in ("map", "mean")]
    shifted = {"mu": points[0]["mu"] + [[0.1, -2.0], [-0.2, 1.5]], "cov": points[1]["cov"] * 1.3}
    for point in [*points, shifted]:
        chib = (
            block.complete_log_likelihood(st, point)
            + block.log_prior(point)
            - _log_posterior_scipy(covariance, hyper, point["mu"], point["cov"])
        )
        assert chib == pytest.approx(evidence, abs=1e-8)


def test_the_full_evidence_is_the_normal_inverse_wisharts_marginal():
    _, _, _, fit = _faithful_fit("full", kappa=0.3, nu=5.0)
    block, st = fit.blocks[0], fit.stats[0]
    prior = block.resolved_prior(2)
    expected = sum(
        prior.log_marginal_likelihood(st["n"][k], st["mean"][k], st["scatter"][k]) for k in range(2)
    )
    assert block.log_marginal(st, 2) == pytest.approx(expected, rel=1e-13)
    # and the classifier's evidence adds the class counts' Dirichlet-multinomial
    counts = fit.class_counts
    dm = float(bnb.Dirichlet(1.0).with_categories(2).log_marginal_likelihood(counts))
    assert fit.log_evidence() == pytest.approx(expected + dm, rel=1e-13)


def test_the_update_is_the_normal_inverse_wishart_posterior_class_by_class():
    _, _, _, fit = _faithful_fit("full", kappa=0.3, nu=5.0)
    block, st = fit.blocks[0], fit.stats[0]
    hyper = block.posterior_hyper(st)
    prior = block.resolved_prior(2)
    for k in range(2):
        post = prior.posterior(st["n"][k], st["mean"][k], st["scatter"][k])
        np.testing.assert_allclose(hyper["mu"][k], post.mu, rtol=1e-13)
        np.testing.assert_allclose(hyper["psi"][k], post.psi, rtol=1e-13)
        assert hyper["nu"][k] == post.nu and hyper["kappa"][k] == post.kappa


@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_marginal_means_are_the_posterior_mean_estimate(covariance):
    """Every parameter's exact marginal mean is the fit's estimate="mean" (computed by
    the point estimate's own formulas)."""
    _, _, _, fit = _faithful_fit(covariance)
    block, st = fit.blocks[0], fit.stats[0]
    marginals = block.marginals(block.posterior_hyper(st))
    mean = block.estimate_params(st, "mean")
    np.testing.assert_allclose(marginals["mu"].mean(), mean["mu"], rtol=1e-13)
    np.testing.assert_allclose(marginals["cov"].mean(), mean["cov"], rtol=1e-13, atol=0)


def test_bartletts_draws_have_the_inverse_wisharts_moments():
    """scipy's Inverse-Wishart mean and variance, entry by entry, within 4 Monte-Carlo
    standard errors of 200 000 draws (the variance's error from the draws' fourth
    moments)."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 3))
    psi = a @ a.T + np.eye(3)
    nu, size = 12.0, 200_000
    m = _inverse_wishart_factors(nu, psi, size, np.random.default_rng(1))
    draws = m @ np.swapaxes(m, -1, -2)
    mean = stats.invwishart.mean(nu, psi)
    var = stats.invwishart.var(nu, psi)
    assert np.all(np.abs(draws.mean(0) - mean) < 4 * np.sqrt(var / size))
    dev2 = (draws - draws.mean(0)) ** 2
    assert np.all(np.abs(dev2.mean(0) - var) < 4 * dev2.std(0) / np.sqrt(size))
    # the draws are symmetric and definite
    np.testing.assert_allclose(draws, np.swapaxes(draws, -1, -2), rtol=1e-12)
    assert np.all(np.linalg.eigvalsh(draws[:1000]) > 0)


@pytest.mark.parametrize("covariance", ["tied", "tied-spherical"])
def test_a_tied_covariance_is_drawn_once_per_draw(covariance):
    _, _, _, fit = _faithful_fit(covariance)
    block = fit.blocks[0]
    draws = block.draw_params(block.posterior_hyper(fit.stats[0]), 50, np.random.default_rng(0))
    cov = draws["cov"].reshape(50, 2, 2, 2)
    np.testing.assert_array_equal(cov[:, 0], cov[:, 1])
    assert np.unique(cov[:, 0, 0, 0]).size == 50


# -- the covariances' marginal laws ----------------------------------------------------------
def _psi(d=3, seed=3):
    a = np.random.default_rng(seed).normal(size=(d, d))
    return a @ a.T + 0.5 * np.eye(d)


@pytest.mark.parametrize("nu", [4.5, 9.0, 60.0])
def test_covariance_entries_match_scipys_inverse_wishart(nu):
    """Moments from scipy's invwishart (where they exist); quantiles within 4 Monte-Carlo
    standard errors of 400 000 of scipy's draws (the error of a sample quantile:
    sqrt(q (1 - q) / n) / density)."""
    psi, d = _psi(), 3
    entries = CovarianceEntries.inverse_wishart(nu, psi)
    if nu > d + 1:
        np.testing.assert_allclose(entries.mean(), stats.invwishart.mean(nu, psi), rtol=1e-12)
    if nu > d + 3:
        np.testing.assert_allclose(entries.std() ** 2, stats.invwishart.var(nu, psi), rtol=1e-12)
    else:
        assert np.all(np.isinf(entries.std()))
    size = 400_000
    sample = stats.invwishart.rvs(df=nu, scale=psi, size=size, random_state=2)
    for q in (0.03, 0.5, 0.97):
        x = entries.ppf(np.full((d, d), q))
        se = np.sqrt(q * (1 - q) / size) / entries.pdf(x)
        assert np.all(np.abs(np.quantile(sample, q, axis=0) - x) < 4 * se)


def test_covariance_entries_agree_with_adaptive_quadrature():
    """P(Sigma_01 <= x) as a double integral by scipy's quad over the regression
    coefficient's t and the variance's inverse gamma, against the entries' quantiles;
    and the two parametrizations of one covariance (through Sigma_00 or Sigma_11) give
    one law."""
    psi = np.array([[2.0, 0.6], [0.6, 1.0]])
    nu = 7.0
    entries = CovarianceEntries.inverse_wishart(nu, psi)
    # Sigma_01 = B s: s ~ InvGamma((nu - 1) / 2, psi_11 / 2), B ~ t_nu(...)
    variance = stats.invgamma((nu - 1) / 2, scale=psi[1, 1] / 2)
    slope = stats.t(nu, loc=0.6, scale=np.sqrt((2.0 - 0.36) / nu))
    for q in (0.1, 0.5, 0.9):
        x = entries.ppf(np.full((2, 2), q))
        np.testing.assert_allclose(x[0, 1], x[1, 0], rtol=1e-9)
        p, _ = integrate.quad(
            lambda v, at=x[0, 1]: variance.pdf(v) * slope.cdf(at / v), 0, np.inf, epsabs=1e-13
        )
        assert p == pytest.approx(q, abs=1e-11)


def test_covariance_entries_highest_density_holds_its_mass():
    psi, d = _psi(), 3
    entries = CovarianceEntries.inverse_wishart(9.0, psi)
    lower, upper = interval(entries, 0.9, kind="hdi")
    eti = interval(entries, 0.9)
    assert np.all(upper - lower <= eti[1] - eti[0] + 1e-12)
    off = ~np.eye(d, dtype=bool)
    mass = entries._off.cdf(upper[off]) - entries._off.cdf(lower[off])
    np.testing.assert_allclose(mass, 0.9, atol=1e-9)
    np.testing.assert_allclose(entries.pdf(lower)[off], entries.pdf(upper)[off], rtol=1e-5)


def test_a_diagonal_covariance_has_point_masses_off_the_diagonal():
    entries = CovarianceEntries.diagonal([[3.0, 4.0]], [[2.0, 1.0]])
    assert entries.shape == (1, 2, 2)
    lower, upper = interval(entries, 0.9)
    assert lower[0, 0, 1] == upper[0, 0, 1] == 0.0
    assert entries.std()[0, 1, 0] == 0.0
    assert lower[0, 1, 1] == pytest.approx(stats.invgamma.ppf(0.05, 4.0, scale=1.0), rel=1e-12)
    # the docstring's median of InvGamma(2.5, 1)
    assert stats.invgamma.median(2.5, scale=1.0) == pytest.approx(0.4596, abs=5e-5)


# -- the exact posterior and MCMC ------------------------------------------------------------
def test_the_classifiers_exact_posterior_tree_and_intervals():
    _, X, _, fit = _faithful_fit("full")
    tree = fit.posterior(draws=200, chains=2, random_state=0)
    post = tree["posterior"].ds
    assert post["X_cov"].dims == ("chain", "draw", "class_label", "X_feature", "X_feature_2")
    assert tree["observed_data"].ds["X"].shape == (len(X), 2)
    eti = fit.credible_interval(prob=0.9)
    table = bnb.compare_fits({"exact": fit}, prob=0.9)
    rows = table[table.parameter == "X_cov"]
    lower = eti["X_cov"].sel(ci_bound="lower").values.ravel()
    np.testing.assert_allclose(np.sort(rows["lower"].to_numpy()), np.sort(lower), rtol=1e-12)
    np.testing.assert_allclose(
        np.sort(rows["mean"].to_numpy()), np.sort(fit.params["X_cov"].values.ravel()), rtol=1e-12
    )
    # the interval of a covariance: the quantiles of its exact law
    hyper = fit.blocks[0].posterior_hyper(fit.stats[0])
    entries = CovarianceEntries.inverse_wishart(hyper["nu"], hyper["psi"])
    np.testing.assert_allclose(
        eti["X_cov"].sel(ci_bound="upper").values, entries.ppf(np.full((2, 2, 2), 0.95))
    )


@pytest.mark.parametrize("covariance", ["full", "tied"])
def test_gibbs_with_every_membership_known_draws_the_exact_posterior(covariance):
    """Every row's component known: the Gibbs draws of the means and covariances are
    draws of the classifier's exact posterior, whose means are estimate="mean"; with
    two chains, a tied covariance is pooled within each chain only."""
    model, X, y, _ = _faithful_fit(covariance)
    assert_known_memberships_draw_the_exact_posterior(
        model, X, y, draws=1000, chains=2, tune=10, random_state=1
    )


def assert_known_memberships_draw_the_exact_posterior(model, X, y, **options) -> None:
    """MCMC clustering (``options``: the sampler's) of ``X`` with every row's component
    ``y`` known draws the classifier's exact posterior: the means of the draws of
    ``X_mu`` and ``X_cov`` lie within 4 Monte-Carlo standard errors of
    ``estimate="mean"``."""
    labels = sorted(set(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = model.cluster(X, labels, y=y, method="mcmc", **options)
    exact = model.fit(X, y, estimate="mean")
    post = fit.trace["posterior"].ds
    for name in ("X_mu", "X_cov"):
        expected = exact.params[name].sel(class_label=labels).values
        assert mcse_ok(post[name].transpose("chain", "draw", ...).values, expected), name


# -- the posterior predictive ---------------------------------------------------------------
@pytest.mark.parametrize("covariance", COVARIANCES)
def test_the_predictive_is_the_ratio_of_evidences(covariance):
    """log p(x | D, class k) = log p(D with x in class k) - log p(D): the predictive
    density of estimate="predictive" against the evidence (itself checked against
    scipy by Chib's identity above), for five rows and both classes."""
    model, X, y, _ = _faithful_fit(covariance, kappa=0.3, nu=5.0)
    fit = model.fit(X, y, estimate="predictive")
    block, st = fit.blocks[0], fit.stats[0]
    rows = X.iloc[[0, 1, 50, 100, 271]].to_numpy()
    scores = fit.joint_log_likelihood(pd.DataFrame(rows, columns=X.columns)) - fit.class_log_prob
    base = block.log_marginal(st, 2)
    for i, x in enumerate(rows):
        for k in range(2):
            n, mean, scatter = (st[key].copy() for key in ("n", "mean", "scatter"))
            n[k] += 1.0
            moved = mean[k] + (x - mean[k]) / n[k]  # Welford's update of the class
            grown = np.outer(x - mean[k], x - moved)
            scatter[k] += grown if scatter.ndim == 3 else np.diag(grown)
            mean[k] = moved
            grown_evidence = block.log_marginal({"n": n, "mean": mean, "scatter": scatter}, 2)
            assert scores[i, k] == pytest.approx(grown_evidence - base, abs=1e-9)


def test_the_full_predictive_is_scipys_multivariate_t():
    """Each class's Student-t from the Normal-Inverse-Wishart update by hand: nu_n - d + 1
    degrees of freedom, location mu_n, scale Psi_n (kappa_n + 1) / (kappa_n (nu_n - d +
    1)); and the diagonal type's product of scipy's univariate t's, 2 alpha_n degrees of
    freedom and squared scale beta_n (kappa_n + 1) / (alpha_n kappa_n)."""
    mu0, kappa, nu, psi = np.array([3.0, 70.0]), 0.3, 5.0, np.array([[1.0, 2.0], [2.0, 90.0]])
    X = bnb.datasets.old_faithful()
    y = np.where(X["eruptions"] > 3, "long", "short")
    rows = X.iloc[[3, 30, 200]].to_numpy()
    for covariance in ("full", "diag"):
        prior = bnb.NormalInverseWishart(mu=mu0, kappa=kappa, nu=nu, psi=psi)
        model = bnb.NaiveBayes(bnb.MultivariateGaussian(prior, covariance=covariance))
        fit = model.fit(X, y, estimate="predictive")
        scores = fit.joint_log_likelihood(pd.DataFrame(rows, columns=X.columns))
        scores = scores - fit.class_log_prob
        for k, label in enumerate(fit.labels):
            x = X[y == label].to_numpy()
            n, mean = len(x), x.mean(axis=0)
            scatter = (x - mean).T @ (x - mean)
            kappa_n, nu_n = kappa + n, nu + n
            mu_n = (kappa * mu0 + n * mean) / kappa_n
            psi_n = psi + scatter + kappa * n / kappa_n * np.outer(mean - mu0, mean - mu0)
            if covariance == "full":
                df = nu_n - 1.0
                shape = psi_n * (kappa_n + 1.0) / (kappa_n * df)
                expected = stats.multivariate_t(mu_n, shape, df=df).logpdf(rows)
            else:  # alpha = (nu - d + 1) / 2 per variance, beta = Psi_jj / 2
                alpha_n = (nu - 1.0) / 2.0 + n / 2.0
                beta_n = np.diag(psi_n) / 2.0
                scale = np.sqrt(beta_n * (kappa_n + 1.0) / (alpha_n * kappa_n))
                expected = stats.t(2.0 * alpha_n, mu_n, scale).logpdf(rows).sum(axis=1)
            np.testing.assert_allclose(scores[:, k], expected, rtol=1e-12)


def test_the_diagonal_evidence_of_proportions_is_each_columns_marginal():
    """Proportions summing to 1 (a singular covariance) under a diagonal covariance:
    the default prior takes the columns' variances, psi_jj = var_j / K^(2/d), so the
    evidence is every class's and column's Normal-Inverse-Gamma marginal likelihood by
    hand (alpha = (nu - d + 1)/2, beta = psi_jj / 2, kappa 0.01, mu_0 the mean), plus
    the class counts' Dirichlet-multinomial."""
    from scipy.special import gammaln

    rng = np.random.default_rng(0)
    P = pd.DataFrame(rng.dirichlet([2.0, 3.0, 4.0], 120), columns=["a", "b", "c"])
    y = np.where(P["b"] > P["b"].median(), "hi", "lo")
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="diag")).fit(P, y)
    x = P.to_numpy()
    K, d, kappa = 2, 3, 0.01
    alpha, beta = (d + 2.0 - d + 1.0) / 2.0, x.var(axis=0) / K ** (2.0 / d) / 2.0
    m0 = x.mean(axis=0)
    expected = 0.0
    for label in ("hi", "lo"):
        rows = x[y == label]
        n, mean = len(rows), rows.mean(axis=0)
        kappa_n, alpha_n = kappa + n, alpha + n / 2.0
        beta_n = beta + ((rows - mean) ** 2).sum(axis=0) / 2.0
        beta_n = beta_n + kappa * n * (mean - m0) ** 2 / (2.0 * kappa_n)
        expected += np.sum(
            gammaln(alpha_n)
            - gammaln(alpha)
            + alpha * np.log(beta)
            - alpha_n * np.log(beta_n)
            + 0.5 * np.log(kappa / kappa_n)
            - 0.5 * n * np.log(2.0 * np.pi)
        )
    counts = np.array([(y == "hi").sum(), (y == "lo").sum()], dtype=float)
    expected += gammaln(2.0) - gammaln(2.0 + counts.sum()) + np.sum(gammaln(1.0 + counts))
    assert fit.log_evidence() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("covariance", ["full", "tied"])
def test_the_predictive_scores_a_row_far_out(covariance):
    """A row 1e200 out: its squared distance overflows, but the Student-t needs only
    its logarithm, log q = 2 log s + log(u' S^-1 u) for the deviation s u (s its
    largest entry), solved by hand; log(1 + q/nu) = log q - log nu + log(1 + nu/q)."""
    from scipy.special import gammaln

    mu0, kappa, nu, psi = np.array([3.0, 70.0]), 0.3, 5.0, np.array([[1.0, 2.0], [2.0, 90.0]])
    X = bnb.datasets.old_faithful()
    y = np.where(X["eruptions"] > 3, "long", "short")
    prior = bnb.NormalInverseWishart(mu=mu0, kappa=kappa, nu=nu, psi=psi)
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(prior, covariance=covariance))
    fit = model.fit(X, y, estimate="predictive")
    row = np.array([1e200, -3e199])
    scores = fit.joint_log_likelihood(pd.DataFrame([row], columns=X.columns))[0]
    scores = scores - fit.class_log_prob
    psi_n, nus = {}, {}
    for label in fit.labels:
        x = X[y == label].to_numpy()
        n, mean = len(x), x.mean(axis=0)
        scatter = (x - mean).T @ (x - mean)
        pull = kappa * n / (kappa + n) * np.outer(mean - mu0, mean - mu0)
        psi_n[label], nus[label] = scatter + pull, n
    for k, label in enumerate(fit.labels):
        x = X[y == label].to_numpy()
        n, mean = len(x), x.mean(axis=0)
        kappa_n = kappa + n
        mu_n = (kappa * mu0 + n * mean) / kappa_n
        if covariance == "full":
            nu_n, shape_n = nu + n, psi + psi_n[label]
        else:  # one Inverse-Wishart, every class's quadratic terms pooled
            nu_n, shape_n = nu + len(X), psi + sum(psi_n.values())
        df = nu_n - 1.0
        shape = shape_n * (kappa_n + 1.0) / (kappa_n * df)
        dev = row - mu_n
        s = np.abs(dev).max()
        u = dev / s
        log_q = 2.0 * np.log(s) + np.log(u @ np.linalg.solve(shape, u))
        expected = (
            gammaln((df + 2) / 2)
            - gammaln(df / 2)
            - np.log(df * np.pi)
            - 0.5 * np.linalg.slogdet(shape)[1]
            - (df + 2) / 2 * (log_q - np.log(df) + np.log1p(np.exp(np.log(df) - log_q)))
        )
        assert scores[k] == pytest.approx(expected, rel=1e-12)
