"""Gaussian features: exact statistics whatever the offset and row order, huge values,
the default Normal-Inverse-Gamma prior, sampling and the parameter count.

Every expected value comes from numpy's two-pass moments, exact rational arithmetic,
scikit-learn, or a closed form written out here.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import GaussianNB

import bayesnb as bnb
from bayesnb.families._kernels import Labels


def exact_moments(values, weights=None):
    """(n, mean, ss) of ``values`` in exact rational arithmetic, rounded once."""
    weights = [1] * len(values) if weights is None else weights
    w = [Fraction(float(v)) for v in weights]
    x = [Fraction(float(v)) for v in values]
    n = sum(w)
    mean = sum(wi * xi for wi, xi in zip(w, x, strict=True)) / n
    ss = sum(wi * (xi - mean) ** 2 for wi, xi in zip(w, x, strict=True))
    return float(n), float(mean), float(ss)


def bound_gaussian(d: int, **kwargs):
    """A Gaussian block over ``d`` columns with a fixed prior (no data-dependent default)."""
    prior = bnb.NormalInverseGamma(mu=0.0, beta=1.0)
    return bnb.Gaussian(prior, **kwargs).bind("g", [f"g{j}" for j in range(d)], None)


# -- §1.1: statistics exact whatever the offset ------------------------------------------------


def test_two_classes_far_apart_fit_ml_with_numpy_variances():
    r = np.random.default_rng(0)
    X = np.r_[r.normal(size=1500), 1e4 + 1e-3 * r.normal(size=1500)][:, None]
    y = [0] * 1500 + [1] * 1500
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    for k, rows in ((0, slice(0, 1500)), (1, slice(1500, 3000))):
        assert fit.params.X_var.sel(class_label=k).item() == pytest.approx(
            np.var(X[rows, 0]), rel=1e-12
        )
        assert fit.params.X_mu.sel(class_label=k).item() == pytest.approx(
            np.mean(X[rows, 0]), rel=1e-14
        )


@pytest.mark.parametrize("offset", [1e6, -3e9, 1e12])
def test_ml_variances_at_large_offsets_are_exact(offset):
    r = np.random.default_rng(3)
    n = 6000  # several blocks of rows
    X = offset + r.normal(size=(n, 3)) * [1.0, 0.5, 2.0]
    y = r.integers(0, 3, n)
    X[y == 1] += 7.0
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    for k in range(3):
        rows = X[y == k]
        exact = [exact_moments(rows[:, j]) for j in range(3)]
        var = [ss / m for m, _, ss in exact]
        np.testing.assert_allclose(fit.params.X_var.sel(class_label=k).values, var, rtol=1e-13)
        mean = [mu for _, mu, _ in exact]
        np.testing.assert_allclose(fit.params.X_mu.sel(class_label=k).values, mean, rtol=1e-15)
        if offset == 1e6:  # numpy's two-pass variance (and scikit-learn's) is exact here
            expected = rows.var(axis=0)
            np.testing.assert_allclose(
                fit.params.X_var.sel(class_label=k).values, expected, rtol=1e-12
            )
    if offset == 1e6:
        sk = GaussianNB(var_smoothing=0.0).fit(X, y)
        np.testing.assert_allclose(fit.params.X_var.values, sk.var_, rtol=1e-12)
    # the rows in another order: the same numbers to round-off
    perm = r.permutation(n)
    again = bnb.NaiveBayes(bnb.Gaussian()).fit(X[perm], y[perm], estimate="ml")
    np.testing.assert_allclose(again.params.X_var.values, fit.params.X_var.values, rtol=1e-12)
    np.testing.assert_allclose(again.params.X_mu.values, fit.params.X_mu.values, rtol=1e-15)


def test_statistics_equal_exact_rational_arithmetic_sorted_and_shuffled():
    r = np.random.default_rng(11)
    x = 1e8 + r.normal(0.0, 1e-2, 5000)
    for order in (np.arange(5000), np.argsort(x), np.argsort(-x), r.permutation(5000)):
        g = bound_gaussian(1)
        got = g.count(x[order][:, None], Labels(np.zeros(5000, dtype=np.intp), 1))
        n, mean, ss = exact_moments(x)
        assert got["n"][0, 0] == n
        assert got["mean"][0, 0] == pytest.approx(mean, rel=1e-16)
        assert got["ss"][0, 0] == pytest.approx(ss, rel=1e-12)


def test_an_outlier_as_first_value_keeps_the_statistics_exact():
    r = np.random.default_rng(12)
    x = 5.0 + 1e-3 * r.normal(size=3000)
    x[0] = 1e9  # the class's first value, far from the rest
    g = bound_gaussian(1)
    got = g.count(x[:, None], Labels(np.zeros(3000, dtype=np.intp), 1))
    _, mean, ss = exact_moments(x)
    assert got["mean"][0, 0] == pytest.approx(mean, rel=1e-14)
    assert got["ss"][0, 0] == pytest.approx(ss, rel=1e-12)
    rest = g.count(x[1:, None], Labels(np.zeros(2999, dtype=np.intp), 1))
    assert rest["ss"][0, 0] == pytest.approx(exact_moments(x[1:])[2], rel=1e-12)


def test_em_with_a_tight_far_component_is_monotone():
    r = np.random.default_rng(1)
    z = r.integers(0, 2, 6)
    X = pd.DataFrame(
        {
            "g": np.where(z == 1, 100 + 1e-4 * r.normal(size=6), r.normal(size=6)),
            "c": r.choice(["a", "b", "c"], 6),
        }
    )
    model = bnb.NaiveBayes({"g": bnb.Gaussian(), "c": bnb.Categorical(bnb.Dirichlet(1.5))})
    with warnings.catch_warnings():  # ML gives some category probability 0: not the point
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        mix = model.cluster(X, 2, estimate="ml", n_init=2, random_state=1)  # no MonotonicityError
    assert np.all(np.diff(mix.history) >= -1e-9 * (np.abs(mix.history[:-1]) + 6))


def test_soft_responsibilities_give_weighted_two_pass_moments():
    r = np.random.default_rng(5)
    n, K = 5000, 3
    X = np.c_[1e7 + r.normal(size=n), -4e5 + 1e-3 * r.normal(size=n)]
    X[::13, 0] = np.nan  # missing values: left out of their column only
    X[5::17, 1] = np.nan
    R = r.dirichlet(np.ones(K), size=n)
    got = bound_gaussian(2).count(X, R)
    for k in range(K):
        for j in range(2):
            seen = ~np.isnan(X[:, j])
            x, w = X[seen, j], R[seen, k]
            total = w.sum()
            mean = (w @ x) / total
            ss = w @ (x - mean) ** 2  # the direct weighted two-pass sums
            assert got["n"][k, j] == pytest.approx(total, rel=1e-13)
            assert got["mean"][k, j] == pytest.approx(mean, rel=1e-15)
            assert got["ss"][k, j] == pytest.approx(ss, rel=1e-11)


def test_soft_path_with_one_hot_rows_equals_the_label_path():
    r = np.random.default_rng(6)
    n = 4000
    X = 3e5 + r.normal(size=(n, 4))
    X[::7, 2] = np.nan
    y = r.integers(0, 3, n)
    w = r.uniform(0.5, 2.0, n)
    g = bound_gaussian(4)
    by_label = g.count(X, Labels(y, 3, w))
    one_hot = np.zeros((n, 3))
    one_hot[np.arange(n), y] = w
    soft = g.count(X, one_hot)
    for key in ("n", "mean", "ss"):
        np.testing.assert_allclose(soft[key], by_label[key], rtol=1e-13)


@settings(max_examples=25, deadline=None)
@given(
    offset=st.floats(-1e12, 1e12, allow_nan=False),
    log_scale=st.floats(-6, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_statistics_do_not_depend_on_offset_or_row_order(offset, log_scale, seed):
    r = np.random.default_rng(seed)
    n = 1200
    sd = 10.0**log_scale
    y = r.integers(0, 2, n)
    x = offset + sd * r.normal(size=n) + 5 * sd * y
    g = bound_gaussian(1)
    got = g.count(x[:, None], Labels(y, 2))
    perm = r.permutation(n)
    shuffled = g.count(x[perm][:, None], Labels(y[perm], 2))
    for k in range(2):
        m, mean, ss = exact_moments(x[y == k])
        assert got["n"][k, 0] == m
        assert got["ss"][k, 0] == pytest.approx(ss, rel=1e-12)
        assert got["mean"][k, 0] == pytest.approx(mean, rel=1e-15, abs=1e-15 * sd)
        assert shuffled["ss"][k, 0] == pytest.approx(got["ss"][k, 0], rel=1e-12)
        assert shuffled["mean"][k, 0] == pytest.approx(got["mean"][k, 0], rel=1e-15, abs=1e-15 * sd)


# -- the rounding floor: a tiny real variance is a variance ------------------------------------


def test_tiny_real_variance_is_not_zero_variance():
    base = 1.0 + np.arange(8) * np.finfo(float).eps  # a spread of a few ulps
    X = np.r_[base, 50.0 + np.arange(8.0)][:, None]
    y = [0] * 8 + [1] * 8
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    assert fit.params.X_var.sel(class_label=0).item() == pytest.approx(
        exact_moments(base)[2] / 8, rel=1e-12
    )
    assert fit.params.X_var.sel(class_label=0).item() > 0


def test_an_exactly_constant_class_has_exactly_zero_spread():
    X = np.r_[np.full(5000, 0.1), np.linspace(0, 1, 5000)][:, None]  # > one block each
    y = np.r_[np.zeros(5000, int), np.ones(5000, int)]
    r = np.random.default_rng(0).permutation(10_000)
    stats = bound_gaussian(1).count(X[r], Labels(y[r], 2))
    assert stats["ss"][0, 0] == 0.0 and stats["mean"][0, 0] == 0.1
    with pytest.raises(bnb.errors.InputError, match=r"zero variance.*class 0\b"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(X[r], y[r], estimate="ml")


# -- §1.7: huge values ------------------------------------------------------------------------


@pytest.mark.parametrize("estimate", ["ml", "map", "mean", "predictive"])
def test_huge_values_fit_and_predict_as_their_scaled_copy(estimate):
    r = np.random.default_rng(2)
    X = np.r_[r.normal(size=(300, 2)), 3 + r.normal(size=(300, 2))]
    y = [0] * 300 + [1] * 300
    scale = 2.0**500  # exact: the posterior is invariant to the units
    small = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate=estimate)
    huge = bnb.NaiveBayes(bnb.Gaussian()).fit(X * scale, y, estimate=estimate)
    np.testing.assert_allclose(
        huge.params.X_mu.values / scale, small.params.X_mu.values, rtol=1e-13
    )
    proba = huge.predict_proba(X * scale)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba, small.predict_proba(X), rtol=1e-10, atol=1e-14)
    if estimate != "predictive":
        ratio = huge.params.X_var.values / scale / scale
        np.testing.assert_allclose(ratio, small.params.X_var.values, rtol=1e-13)


def test_values_beyond_1e154_at_an_offset_have_exact_variance():
    r = np.random.default_rng(4)
    x = 1e160 + 1e150 * r.normal(size=400)
    y = np.arange(400) % 2
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(x[:, None], y, estimate="ml")
    for k in (0, 1):
        n, mean, ss = exact_moments(x[y == k])
        assert fit.params.X_var.sel(class_label=k).item() == pytest.approx(ss / n, rel=1e-12)
        assert fit.params.X_mu.sel(class_label=k).item() == pytest.approx(mean, rel=1e-15)
    proba = fit.predict_proba(x[:5, None])
    assert np.all(np.isfinite(proba)) and np.allclose(proba.sum(axis=1), 1.0)


def test_a_spread_beyond_the_largest_float_is_a_clear_error_not_nan():
    x = np.array([[-1e300], [1e300], [0.0], [2e300]])
    with pytest.raises(bnb.errors.InputError, match=r"column 'x'.*Rescale"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(
            pd.DataFrame({"x": x[:, 0]}), [0, 0, 1, 1], estimate="ml"
        )


# -- §3: the default prior is weak relative to each class's own spread -------------------------


def test_default_prior_map_variance_follows_each_class_spread():
    r = np.random.default_rng(7)
    a, b = r.normal(0.0, 1.0, 200), r.normal(100.0, 0.01, 200)
    X, y = np.r_[a, b][:, None], [0] * 200 + [1] * 200
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="map")
    for k, x in ((0, a), (1, b)):
        # default: mu0 = the class mean, kappa = 1, alpha = 1, beta = alpha * var_k (1/N)
        n, xbar = len(x), x.mean()
        ss = ((x - xbar) ** 2).sum()
        alpha0, beta0 = 1.0, ss / n
        alpha_n = alpha0 + n / 2
        beta_n = beta0 + ss / 2  # kappa n (xbar - mu0)^2 / (2 kappa_n) = 0 at mu0 = xbar
        map_var = beta_n / (alpha_n + 1.5)
        assert fit.params.X_var.sel(class_label=k).item() == pytest.approx(map_var, rel=1e-12)
        assert fit.params.X_mu.sel(class_label=k).item() == pytest.approx(xbar, rel=1e-13)
        assert map_var / x.var() <= 1.5 and x.var() / map_var <= 1.5
    mean = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="mean")
    n, ss = 200, ((b - b.mean()) ** 2).sum()
    expected = (ss / n + ss / 2) / (1 + n / 2 - 1)  # beta_n / (alpha_n - 1)
    assert mean.params.X_var.sel(class_label=1).item() == pytest.approx(expected, rel=1e-12)


def test_default_prior_of_a_single_row_class_takes_the_pooled_within_class_variance():
    X = np.array([[0.0], [2.0], [4.0], [10.0], [11.0], [50.0]])
    y = [0, 0, 0, 1, 1, 2]  # class 2: one row, own variance 0
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="mean")
    # pooled within-class 1/N variance: (S_0 + S_1 + S_2) / N = (8 + 0.5 + 0) / 6
    within = (8.0 + 0.5) / 6
    # class 2: alpha_n = 1 + 1/2, beta_n = within + 0, E[sigma2] = beta_n / (alpha_n - 1)
    assert fit.params.X_var.sel(class_label=2).item() == pytest.approx(within / 0.5, rel=1e-12)
    assert fit.params.X_mu.sel(class_label=2).item() == pytest.approx(50.0, rel=1e-15)
    # class 0: beta = 8/3, alpha_n = 2.5, beta_n = 8/3 + 4
    assert fit.params.X_var.sel(class_label=0).item() == pytest.approx((8 / 3 + 4) / 1.5, rel=1e-12)


def test_given_prior_parameters_are_used_as_given():
    X = np.array([[0.0], [2.0], [4.0], [10.0], [11.0]])
    y = [0, 0, 0, 1, 1]
    prior = bnb.NormalInverseGamma(mu=5.0, kappa=2.0, alpha=3.0, beta=[[1.0], [2.0]])
    fit = bnb.NaiveBayes(bnb.Gaussian(prior)).fit(X, y, estimate="map")
    # class 1: n = 2, mean 10.5, S = 0.5; kappa_n = 4, alpha_n = 4
    beta_n = 2.0 + 0.25 + 2.0 * 2 * (10.5 - 5.0) ** 2 / (2 * 4)
    assert fit.params.X_var.sel(class_label=1).item() == pytest.approx(beta_n / 5.5, rel=1e-12)
    assert fit.params.X_mu.sel(class_label=1).item() == pytest.approx((10 + 21) / 4, rel=1e-12)


def test_em_default_prior_is_pooled_and_fixed_before_em():
    r = np.random.default_rng(9)
    x = np.r_[r.normal(0, 1, 100), r.normal(20, 1, 100)]
    mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(
        x[:, None], 2, estimate="map", random_state=0, n_init=2
    )
    prior = mix.blocks[0].prior
    assert np.asarray(prior.mu).item() == pytest.approx(x.mean(), rel=1e-13)
    # Fraley and Raftery's: kappa 0.01, alpha 3/2, beta half the variance over K^2
    assert (float(prior.kappa), float(prior.alpha)) == (0.01, 1.5)
    assert np.asarray(prior.beta).item() == pytest.approx(x.var() / 8, rel=1e-12)


# -- sampling and the parameter count ----------------------------------------------------------


def test_samples_have_the_fitted_standard_deviation():
    r = np.random.default_rng(10)
    x = r.normal(4.0, 3.0, 5000)
    mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(x[:, None], 1, estimate="ml", random_state=0)
    sd = math.sqrt(mix.params["X_var"].values.item())
    assert sd == pytest.approx(x.std(), rel=1e-12)
    draws = mix.sample(40_000, random_state=1).iloc[:, 1].to_numpy(dtype=float)
    # the sample sd of m normal draws has standard error sd / sqrt(2 m)
    assert abs(draws.std() - sd) < 5 * sd / math.sqrt(2 * 40_000)
    assert abs(draws.mean() - mix.params["X_mu"].values.item()) < 5 * sd / math.sqrt(40_000)


def test_gaussian_mixture_aic_bic_count_two_parameters_per_column_and_component():
    r = np.random.default_rng(13)
    X = np.r_[r.normal(0, 1, (150, 3)), r.normal(5, 2, (150, 3))]
    mix = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 2, estimate="ml", random_state=0)
    K, d, n = 2, 3, 300
    p = 2 * K * d + (K - 1)  # a mean and a variance per column and component, K-1 weights
    loglik = mix.log_likelihood
    aic = mix.aic() if callable(mix.aic) else mix.aic
    bic = mix.bic() if callable(mix.bic) else mix.bic
    assert aic == pytest.approx(-2 * loglik + 2 * p, rel=1e-14)
    assert bic == pytest.approx(-2 * loglik + p * math.log(n), rel=1e-14)
    # the log-likelihood itself, from the fitted parameters by hand
    mu, var = mix.params["X_mu"].values, mix.params["X_var"].values
    weights = np.exp(np.asarray(mix.class_log_prob))
    dens = np.stack(
        [
            weights[k]
            * np.prod(
                np.exp(-((X - mu[k]) ** 2) / (2 * var[k])) / np.sqrt(2 * np.pi * var[k]), axis=1
            )
            for k in range(K)
        ]
    )
    assert loglik == pytest.approx(np.log(dens.sum(axis=0)).sum(), rel=1e-10)


# -- a spread below the smallest normal float is an error, not a silent wrong fit -------------


@pytest.mark.parametrize("estimate", ["ml", "map", "mean", "predictive"])
def test_values_whose_variance_underflows_are_refused_not_fitted_as_constant(estimate):
    r = np.random.default_rng(0)
    X = np.r_[1e-300 * (1 + r.normal(size=10)), 2e-300 * (1 + r.normal(size=10))][:, None]
    y = [0] * 10 + [1] * 10
    # the variances (~1e-600) are not floats: before, "ml" called the class constant and
    # "map" fitted unit variances that predicted 0.5 / 0.5 everywhere
    with pytest.raises(bnb.InputError, match="smallest normal float"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate=estimate)
    scaled = bnb.NaiveBayes(bnb.Gaussian()).fit(X * 1e300, y, estimate=estimate)
    means = [np.mean(X[:10] * 1e300), np.mean(X[10:] * 1e300)]  # the rescaled data fits
    np.testing.assert_allclose(scaled.params.X_mu.values, means, rtol=1e-12)


def test_clustering_values_whose_variance_underflows_is_refused():
    X = 1e-300 * np.random.default_rng(1).normal(size=(50, 1))
    with pytest.raises(bnb.InputError, match="smallest normal float"):
        bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 2, random_state=0)


def test_a_constant_class_of_tiny_values_is_still_constant():
    X = np.r_[np.full(4, 3e-320), np.arange(4.0)][:, None]
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, [0] * 4 + [1] * 4, estimate="map")
    assert fit.params.X_mu.sel(class_label=0).item() == 3e-320


@pytest.mark.parametrize("offset", [0.0, 1e9, -3e14])
def test_soft_statistics_by_column_are_exact_over_several_blocks_in_any_order(offset):
    r = np.random.default_rng(21)
    n, K = 9000, 3  # more rows than one block of the compiled loop
    x = offset + 1e-2 * r.normal(size=n) + np.repeat([0.0, 5.0, -2.0], n // 3)
    R = r.dirichlet(np.ones(K), size=n)
    R[::5, 1] = 0.0  # rows outside a component
    got = bound_gaussian(1).count(x[:, None], R)
    perm = r.permutation(n)
    again = bound_gaussian(1).count(x[perm][:, None], R[perm])
    for k in range(K):
        m, mean, ss = exact_moments(x, R[:, k])
        assert got["n"][k, 0] == pytest.approx(m, rel=1e-13)
        assert got["mean"][k, 0] == pytest.approx(mean, rel=1e-15, abs=1e-14)  # spread 5
        assert got["ss"][k, 0] == pytest.approx(ss, rel=1e-12)
        assert again["ss"][k, 0] == pytest.approx(ss, rel=1e-12)
