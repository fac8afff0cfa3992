"""Conjugate priors: updates, moments, densities and sampling against closed forms
and scipy.stats; smoothing schemes as priors in disguise."""

import re

import numpy as np
import pytest
from scipy import integrate, stats

import bayesnb as bnb

RNG = np.random.default_rng(20261122)


# -- smoothing identities -------------------------------------------------------------------


@pytest.mark.parametrize("k", [0.3, 1.0, 2.5, 17.0])
def test_laplace_is_posterior_mean_and_shifted_map(k):
    counts = RNG.integers(0, 12, size=(3, 5)).astype(float)
    laplace = (counts + k) / (counts.sum(axis=1, keepdims=True) + 5 * k)
    mean = np.exp(bnb.laplace(k).point_estimate(counts, "mean"))
    map_ = np.exp(bnb.Dirichlet(k + 1).point_estimate(counts, "map"))
    np.testing.assert_allclose(mean, laplace, rtol=1e-14)
    np.testing.assert_allclose(map_, laplace, rtol=1e-14)


@pytest.mark.parametrize(("m", "p"), [(1.0, 1 / 3), (4.0, [0.5, 0.3, 0.2]), (10.0, 1 / 3)])
def test_m_estimate_is_posterior_mean(m, p):
    counts = RNG.integers(0, 9, size=(2, 3)).astype(float)
    pk = np.broadcast_to(p, (3,))
    expected = (counts + m * pk) / (counts.sum(axis=1, keepdims=True) + m)
    got = np.exp(bnb.m_estimate(m, p).point_estimate(counts, "mean"))
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_ml_is_map_under_uniform_prior():
    counts = RNG.integers(1, 20, size=(4, 6)).astype(float)
    np.testing.assert_array_equal(
        bnb.Dirichlet(1.0).point_estimate(counts, "ml"),
        bnb.Dirichlet(1.0).point_estimate(counts, "map"),
    )
    np.testing.assert_allclose(
        np.exp(bnb.Beta(1, 1).point_estimate([[2.0, 1.0]], "map")), [[2 / 3, 1 / 3]]
    )


def test_laplace_infinite_strength_tends_to_uniform():
    counts = np.array([[0.0, 3.0, 9.0, 100.0]])
    for k, tol in ((1e6, 1e-3), (1e12, 1e-9)):
        got = np.exp(bnb.laplace(k).point_estimate(counts, "mean"))
        np.testing.assert_allclose(got, 0.25, atol=tol)


def test_laplace_rejects_nonpositive_strength():
    with pytest.raises(ValueError, match="estimate='ml'"):
        bnb.laplace(0)


# -- estimator edge cases ---------------------------------------------------------------------


def test_map_with_small_alpha_and_zero_count_names_the_fix():
    with pytest.raises(ValueError, match=r"concentration >= 1.*got alpha=0.5.*estimate=.mean."):
        bnb.Dirichlet(0.5).point_estimate([[0.0, 4.0]], "map")
    # With every count positive the mode is interior, so MAP is fine.
    got = np.exp(bnb.Dirichlet(0.5).point_estimate([[1.0, 4.0]], "map"))
    np.testing.assert_allclose(got, [[0.5 / 4, 3.5 / 4]])


def test_ml_zero_probability_warns_and_stays_minus_infinity():
    with pytest.warns(bnb.ZeroProbabilityWarning, match="probability 0"):
        logp = bnb.Dirichlet(1.0).point_estimate([[0.0, 5.0]], "ml")
    assert logp[0, 0] == -np.inf and logp[0, 1] == 0.0
    assert not np.isnan(logp).any()


def test_ml_without_observations_is_an_error():
    with pytest.raises(ValueError, match="no observations"):
        bnb.Dirichlet(1.0).point_estimate([[0.0, 0.0]], "ml")


def test_unknown_estimate_is_an_error():
    with pytest.raises(ValueError, match="'posterior'"):
        bnb.Dirichlet(1.0).point_estimate([[1.0, 1.0]], "posterior")


def test_segments_estimate_each_variable_separately():
    counts = np.array([[1.0, 3.0, 2.0, 2.0, 4.0]])
    got = np.exp(bnb.Dirichlet(1.0).point_estimate(counts, "mean", segments=[0, 2]))
    np.testing.assert_allclose(got, [[2 / 6, 4 / 6, 3 / 11, 3 / 11, 5 / 11]])


@pytest.mark.parametrize("alpha", [0, -1.0, np.nan, [1.0, 0.0]])
def test_invalid_concentration(alpha):
    with pytest.raises(ValueError, match="alpha must be finite and > 0"):
        bnb.Dirichlet(alpha)


@pytest.mark.parametrize("alpha", [True, "1", None, [1.0, "a"]])
def test_concentration_that_is_not_a_number(alpha):
    with pytest.raises(TypeError, match="alpha must be a positive number"):
        bnb.Dirichlet(alpha)
    with pytest.raises(TypeError, match="a must be a positive number"):
        bnb.Beta(alpha, 1.0)


# -- Dirichlet / Beta distributions against scipy -------------------------------------------


def test_dirichlet_moments_and_density_match_scipy():
    alpha = np.array([2.0, 3.5, 0.7])
    prior = bnb.Dirichlet(alpha)
    ref = stats.dirichlet(alpha)
    np.testing.assert_allclose(prior.mean(), ref.mean(), rtol=1e-14)
    np.testing.assert_allclose(prior.var(), ref.var(), rtol=1e-14)
    p = np.array([0.2, 0.5, 0.3])
    assert prior.logpdf(p) == pytest.approx(ref.logpdf(p), rel=1e-13)


def test_dirichlet_mode_and_posterior():
    prior = bnb.Dirichlet([2.0, 3.0, 4.0])
    np.testing.assert_allclose(prior.mode(), [1 / 6, 2 / 6, 3 / 6])
    np.testing.assert_allclose(prior.posterior([1, 0, 2]).alpha, [3.0, 3.0, 6.0])


def test_dirichlet_logpdf_at_boundary_with_unit_alpha_is_finite():
    # (alpha - 1) * log p with alpha = 1 and p = 0 must be 0, not 0 * -inf.
    assert bnb.Dirichlet([1.0, 2.0]).logpdf([0.0, 1.0]) == pytest.approx(np.log(2.0))


def test_dirichlet_sampling_moments():
    prior = bnb.Dirichlet([2.0, 5.0, 3.0])
    draws = prior.sample(np.random.default_rng(0), size=200_000)
    assert draws.shape == (200_000, 3)
    np.testing.assert_allclose(draws.sum(axis=1), 1.0)
    np.testing.assert_allclose(draws.mean(axis=0), prior.mean(), atol=3e-3)
    np.testing.assert_allclose(draws.var(axis=0), prior.var(), rtol=3e-2)


def test_beta_matches_scipy():
    b = bnb.Beta(2.5, 4.0)
    ref = stats.beta(2.5, 4.0)
    assert float(b.beta_mean()) == pytest.approx(ref.mean())
    assert float(b.beta_var()) == pytest.approx(ref.var())
    assert float(b.beta_mode()) == pytest.approx(1.5 / 4.5)
    assert float(b.beta_logpdf(0.3)) == pytest.approx(ref.logpdf(0.3), rel=1e-13)
    draws = b.sample(np.random.default_rng(1), size=100_000)[:, 1]
    assert draws.mean() == pytest.approx(ref.mean(), abs=3e-3)


def test_beta_is_dirichlet_in_false_true_order():
    np.testing.assert_array_equal(bnb.Beta(4, 7).alpha, [7.0, 4.0])
    assert repr(bnb.Beta(4, 7)) == "Beta(4.0, 7.0)"


def test_scalar_dirichlet_needs_categories_for_moments():
    with pytest.raises(ValueError, match="with_categories"):
        bnb.Dirichlet(2.0).mean()
    np.testing.assert_allclose(bnb.Dirichlet(2.0).with_categories(4).mean(), 0.25)


# -- Normal-Inverse-Gamma ---------------------------------------------------------------------


@pytest.fixture
def nig():
    return bnb.NormalInverseGamma(mu=1.0, kappa=2.0, alpha=3.0, beta=4.0)


def test_nig_update_equals_batchwise_updates(nig):
    x = RNG.normal(3.0, 2.0, size=40)
    whole = nig.posterior_from_data(x)
    halves = nig.posterior_from_data(x[:15]).posterior_from_data(x[15:])
    for name in ("mu", "kappa", "alpha", "beta"):
        assert float(getattr(whole, name)) == pytest.approx(float(getattr(halves, name)))


def test_nig_logpdf_matches_scipy(nig):
    mu, s2 = 0.4, 2.2
    expected = stats.invgamma(3.0, scale=4.0).logpdf(s2) + stats.norm(
        1.0, np.sqrt(s2 / 2.0)
    ).logpdf(mu)
    assert float(nig.logpdf(mu, s2)) == pytest.approx(expected, rel=1e-13)


def test_nig_mode_is_the_density_maximum(nig):
    mu, s2 = nig.mode()
    best = float(nig.logpdf(mu, s2))
    for dm, ds in ((1e-3, 0), (-1e-3, 0), (0, 1e-3), (0, -1e-3)):
        assert float(nig.logpdf(mu + dm, s2 + ds)) < best


def test_nig_mean_and_variance_match_scipy(nig):
    mean_mu, mean_s2 = nig.mean()
    assert float(mean_mu) == 1.0
    assert float(mean_s2) == pytest.approx(stats.invgamma(3.0, scale=4.0).mean())
    var_mu, var_s2 = nig.var()
    assert float(var_s2) == pytest.approx(stats.invgamma(3.0, scale=4.0).var())
    # Var[mu] = E[sigma2] / kappa
    assert float(var_mu) == pytest.approx(float(mean_s2) / 2.0)


def test_nig_predictive_is_the_integral_of_the_posterior(nig):
    post = nig.posterior_from_data([0.5, 2.0, 1.3, 3.1])
    a, b, k, m = (float(getattr(post, n)) for n in ("alpha", "beta", "kappa", "mu"))
    x = 1.7
    # Integrating mu out analytically leaves N(x; mu_n, sigma2 (k+1)/k) under the
    # Inverse-Gamma posterior of sigma2; integrate that numerically.
    ig = stats.invgamma(a, scale=b)

    def integrand(s2):
        return ig.pdf(s2) * stats.norm(m, np.sqrt(s2 * (k + 1) / k)).pdf(x)

    value, _ = integrate.quad(integrand, 0.0, np.inf, epsabs=1e-13, epsrel=1e-12)
    assert post.predictive().pdf(x) == pytest.approx(value, rel=1e-9)


def test_nig_sampling_moments(nig):
    mu, s2 = nig.sample(np.random.default_rng(2), size=400_000)
    assert mu.mean() == pytest.approx(1.0, abs=0.01)
    assert s2.mean() == pytest.approx(float(nig.mean()[1]), rel=0.02)


def test_nig_mean_needs_alpha_above_one():
    with pytest.raises(ValueError, match="alpha > 1"):
        bnb.NormalInverseGamma(mu=0.0, kappa=1.0, alpha=0.5, beta=1.0).mean()


def test_nig_unresolved_defaults_are_reported():
    with pytest.raises(ValueError, match="resolve"):
        bnb.NormalInverseGamma().mode()


# -- Normal-Inverse-Gamma: the classifier's default, shapes, messages ---------------------------


def test_nig_default_by_class_centres_each_class_on_its_own_moments():
    n = np.array([[4.0, 3.0], [2.0, 3.0]])
    mean = np.array([[1.0, -2.0], [10.0, 5.0]])
    ss = np.array([[8.0, 0.0], [1.0, 6.0]])
    prior = bnb.NormalInverseGamma(alpha=2.0).resolve_by_class(n, mean, ss)
    np.testing.assert_array_equal(prior.mu, mean)
    # column 0: own variances 8/4 and 1/2; column 1: class 0 is constant, so it takes
    # the pooled within-class variance (0 + 6) / (3 + 3) = 1
    np.testing.assert_allclose(prior.beta, 2.0 * np.array([[2.0, 1.0], [0.5, 2.0]]), rtol=1e-15)


def test_nig_default_by_class_falls_back_to_all_rows_then_unit_scale():
    # every class constant: the variance of all the rows, sum n_c (xbar_c - xbar)^2 / N
    prior = bnb.NormalInverseGamma().resolve_by_class(
        [[1.0], [3.0]], [[0.0], [4.0]], [[0.0], [0.0]]
    )
    assert prior.beta.ravel().tolist() == pytest.approx([3.0, 3.0], rel=1e-15)  # (9 + 3)/4
    # one value in the whole column: unit scale (beta = alpha)
    prior = bnb.NormalInverseGamma(alpha=1.5).resolve_by_class(
        [[1.0], [0.0]], [[7.0], [0.0]], [[0.0], [0.0]]
    )
    assert prior.beta.ravel().tolist() == [1.5, 1.5]
    assert prior.mu.ravel().tolist() == [7.0, 7.0]  # a class without rows: the overall mean


def test_nig_default_by_class_keeps_what_the_user_gave():
    prior = bnb.NormalInverseGamma(mu=3.0).resolve_by_class([[2.0]], [[1.0]], [[2.0]])
    assert np.asarray(prior.mu).item() == 3.0 and prior.beta.item() == 1.0
    prior = bnb.NormalInverseGamma(beta=5.0).resolve_by_class([[2.0]], [[1.0]], [[2.0]])
    assert np.asarray(prior.beta).item() == 5.0 and prior.mu.item() == 1.0


@pytest.mark.parametrize("shape", [(), (1,), (3,), (1, 3), (2, 3), (2, 1), (1, 1)])
def test_nig_shapes_that_fit_a_block_of_three_columns_and_two_classes(shape):
    prior = bnb.NormalInverseGamma(mu=np.zeros(shape), beta=1.0)
    prior.check_shape(3, 2, what="Gaussian feature 'g'")  # no error
    prior.check_shape(3, what="Gaussian feature 'g'")


@pytest.mark.parametrize(
    ("shape", "n_labels"), [((2,), 2), ((4, 3), 2), ((2, 2), 2), ((1, 1, 3), 2)]
)
def test_nig_shapes_that_do_not_fit_are_named(shape, n_labels):
    prior = bnb.NormalInverseGamma(mu=0.0, kappa=np.ones(shape), beta=1.0)
    with pytest.raises(
        bnb.errors.InputError,
        match=rf"kappa of Gaussian feature 'g' has shape {re.escape(str(shape))}",
    ):
        prior.check_shape(3, n_labels, what="Gaussian feature 'g'")


def test_nig_point_estimate_names_class_and_column():
    prior = bnb.NormalInverseGamma(mu=0.0, alpha=0.5, beta=1.0)
    n = np.array([[3.0, 3.0], [3.0, 1.0]])
    with pytest.raises(
        bnb.errors.InputError, match=r"feature 'g' in class 'b', column 'v'.*got 1\b"
    ):
        prior.point_estimate(
            n,
            np.zeros((2, 2)),
            np.ones((2, 2)),
            "mean",
            what="feature 'g'",
            labels=["a", "b"],
            columns=["u", "v"],
        )
    # alpha_n = 0.5 + 3/2 = 2 elsewhere: E[sigma2] = beta_n / (alpha_n - 1), beta_n = 1 + 1/2
    est = prior.point_estimate(n[:1], np.zeros((1, 2)), np.ones((1, 2)), "mean")
    np.testing.assert_allclose(est[1], 1.5 / 1.0, rtol=1e-15)


# -- the priors' own API against scipy and closed forms ----------------------------------------


def test_dirichlet_logpdf_is_minus_inf_outside_the_simplex():
    from scipy import stats

    d = bnb.Dirichlet([2.0, 3.0, 5.0])
    assert d.logpdf([0.2, 0.3, 0.5]) == pytest.approx(
        stats.dirichlet([2, 3, 5]).logpdf([0.2, 0.3, 0.5])
    )
    assert d.logpdf([0.5, 0.5, 0.5]) == -np.inf  # sums to 1.5: density 0, not a number
    assert d.logpdf([-0.1, 0.6, 0.5]) == -np.inf
    assert bnb.Beta(2.0, 5.0).beta_logpdf(1.5) == -np.inf
    assert bnb.Beta(2.0, 5.0).beta_logpdf(0.3) == pytest.approx(stats.beta(2, 5).logpdf(0.3))


def test_dirichlet_mode_of_a_flat_prior_is_an_error_not_nan():
    with pytest.raises(bnb.InputError, match="not unique"):
        bnb.Beta(1.0, 1.0).beta_mode()


def test_beta_posterior_is_a_beta():
    post = bnb.Beta(2.0, 5.0).posterior([1, 3])  # 1 false, 3 trues
    assert isinstance(post, bnb.Beta)
    assert (float(post.a), float(post.b)) == (5.0, 6.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: bnb.Dirichlet([2.0, 3.0]).posterior([-1.0, 2.0]),
        lambda: bnb.Dirichlet([2.0, 3.0]).posterior([np.nan, 2.0]),
        lambda: bnb.Dirichlet([2.0, 3.0]).posterior([1.0, 2.0, 3.0]),
        lambda: bnb.Beta(2.0, 3.0).update(-3, 1),
        lambda: bnb.Beta([1.0, 2.0], [3.0, 4.0, 5.0]),
        lambda: bnb.Dirichlet([]),
        lambda: bnb.Dirichlet([2.0, 3.0]).logpdf([0.5, 0.25, 0.25]),
    ],
)
def test_bad_prior_arguments_raise_the_package_error(call):
    with pytest.raises(bnb.InputError):
        call()


def test_ragged_or_textual_parameters_are_type_errors():
    for call in (
        lambda: bnb.Dirichlet([[1.0], [1.0, 2.0]]),
        lambda: bnb.NormalInverseGamma(mu=[[0.0], [0.0, 1.0]]),
        lambda: bnb.laplace("1"),
        lambda: bnb.m_estimate("1", 0.5),
    ):
        with pytest.raises(bnb.InputTypeError):
            call()


def test_priors_sample_from_an_integer_seed():
    a = bnb.Dirichlet([2.0, 3.0]).sample(7, 3)
    b = bnb.Dirichlet([2.0, 3.0]).sample(np.random.default_rng(7), 3)
    np.testing.assert_array_equal(a, b)
    _, s2 = bnb.NormalInverseGamma(mu=1.0, kappa=2.0, alpha=3.0, beta=4.0).sample(0, 20000)
    assert np.mean(s2) == pytest.approx(4.0 / 2.0, rel=3e-2)  # E[sigma2] = beta/(alpha-1)


def test_priors_compare_by_value():
    assert bnb.Dirichlet([1.0, 2.0]) == bnb.Dirichlet([1.0, 2.0])
    assert bnb.Dirichlet([1.0, 2.0]) != bnb.Dirichlet([1.0, 3.0])
    a = bnb.NormalInverseGamma(mu=np.zeros(2), beta=1.0)
    assert a == bnb.NormalInverseGamma(mu=np.zeros(2), beta=1.0)
    assert hash(a) == hash(bnb.NormalInverseGamma(mu=np.zeros(2), beta=1.0))


def test_nig_logpdf_against_scipy_and_outside_the_support():
    from scipy import stats

    nig = bnb.NormalInverseGamma(mu=1.0, kappa=2.0, alpha=3.0, beta=4.0)
    want = stats.invgamma(3, scale=4).logpdf(1.3) + stats.norm(1, np.sqrt(1.3 / 2)).logpdf(0.5)
    assert nig.logpdf(0.5, 1.3) == pytest.approx(want, rel=1e-12)
    assert nig.logpdf(0.5, 0.0) == -np.inf
    assert nig.logpdf(0.5, -1.0) == -np.inf


def test_nig_log_marginal_likelihood_is_the_multivariate_t():
    from scipy import stats

    nig = bnb.NormalInverseGamma(mu=1.0, kappa=2.0, alpha=3.0, beta=4.0)
    x = np.array([0.5, 1.7, 2.2])
    shape = 4.0 / 3.0 * (np.eye(3) + np.ones((3, 3)) / 2.0)  # beta/alpha (I + 11'/kappa)
    want = stats.multivariate_t(loc=np.ones(3), shape=shape, df=6).logpdf(x)
    got = nig.log_marginal_likelihood(3, x.mean(), ((x - x.mean()) ** 2).sum())
    assert got == pytest.approx(want, rel=1e-12)


def test_nig_posterior_mean_is_exact_at_a_large_offset():
    # mu_n = mu0 + n (xbar - mu0) / kappa_n: rounded once, not after adding 1e13-sized terms
    post = bnb.NormalInverseGamma(mu=1e13, kappa=1.0, beta=1.0).posterior(300, 1e13 + 0.375, 1.0)
    assert post.mu == 1e13 + 0.375 * 300 / 301


def test_nig_posterior_refuses_impossible_statistics():
    nig = bnb.NormalInverseGamma(mu=0.0, beta=1.0)
    with pytest.raises(bnb.InputError, match="n >= 0"):
        nig.posterior(-1, 0.0, 0.0)
    with pytest.raises(bnb.InputError, match="ss >= 0"):
        nig.posterior(2, 0.0, -1.0)
    with pytest.raises(bnb.InputError, match="broadcast"):
        bnb.NormalInverseGamma(mu=np.zeros(2), kappa=np.ones(3), beta=1.0)


def test_nig_posterior_from_data_leaves_missing_values_out():
    nig = bnb.NormalInverseGamma(mu=1.0, kappa=2.0, alpha=3.0, beta=4.0)
    with_nan = nig.posterior_from_data([1.0, np.nan, 2.0, 4.0])
    # kappa_n = 5, mu_n = (2 + 7) / 5, alpha_n = 4.5, beta_n = 4 + (14/3)/2 + 2*3*(4/3)^2/10
    assert float(with_nan.kappa) == 5.0
    assert float(with_nan.mu) == pytest.approx(9 / 5)
    assert float(with_nan.beta) == pytest.approx(4 + 7 / 3 + 6 * (4 / 3) ** 2 / 10)
    assert nig.posterior_from_data([]) == nig


def test_nig_mode_has_the_shape_of_all_parameters():
    nig = bnb.NormalInverseGamma(mu=np.zeros((2, 3)), beta=np.ones(3), alpha=2.0)
    mu, var = nig.mode()
    assert mu.shape == var.shape == (2, 3)
    np.testing.assert_allclose(var, 1.0 / 3.5)


def test_em_map_with_an_offset_of_1e13_is_monotone():
    r = np.random.default_rng(0)
    X = 1e13 + np.r_[r.normal(size=300), 5 + r.normal(size=300)][:, None]
    mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 2, random_state=0, estimate="map")
    assert np.all(np.diff(mix.history) >= -1e-9 * np.abs(mix.history[:-1]))  # no error above
    np.testing.assert_allclose(np.sort(mix.params.X_mu.values.ravel()) - 1e13, [0, 5], atol=0.2)


def test_a_column_of_a_prior_given_as_lists():
    """One Normal-Inverse-Gamma parameter per column, given as plain lists: column j
    keeps the j-th entry of each (the shared entries as they are)."""
    prior = bnb.NormalInverseGamma(mu=[0.0, 1.0], kappa=1.0, alpha=2.0, beta=[1.0, 3.0])
    second = prior.column(1)
    assert np.asarray(second.mu).tolist() == [1.0]
    assert np.asarray(second.beta).tolist() == [3.0]
    assert second.kappa == 1.0 and second.alpha == 2.0


def test_nig_columns_are_each_columns_slice():
    """``columns(d)`` (every column's prior at once) holds, for column j, each
    per-column parameter's ``[..., j : j + 1]`` and each shared one as it is."""
    mu = np.arange(6.0).reshape(2, 3)
    beta = np.array([1.0, 2.0, 3.0])
    prior = bnb.NormalInverseGamma(mu=mu, kappa=2.0, alpha=np.array([[1.5]]), beta=beta)
    parts = prior.columns(3)
    assert len(parts) == 3
    for j, part in enumerate(parts):
        np.testing.assert_array_equal(part.mu, [[mu[0, j]], [mu[1, j]]])
        np.testing.assert_array_equal(part.beta, [beta[j]])
        assert part.kappa == 2.0
        np.testing.assert_array_equal(part.alpha, [[1.5]])
    shared = bnb.NormalInverseGamma(mu=0.0, kappa=1.0, alpha=2.0, beta=1.0)
    assert shared.columns(4) == [shared] * 4
