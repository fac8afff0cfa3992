"""Pins for behaviours a mutation probe found unpinned: the scale of Gaussian draws,
the class prior inside Cheeseman-Stutz, the Gaussian free-parameter count in AIC/BIC,
the floors below which a Gaussian variance is refused, and stored zeros in a sparse
matrix given to the Bernoulli text model.

Every expected value is computed here without the package: the sampling distribution
of a normal sample's standard deviation, the Normal-Inverse-Gamma and
Dirichlet-multinomial marginal likelihoods written out with ``scipy.special.gammaln``,
mixture log-likelihoods from ``scipy.stats.norm``, exact rational moments
(``fractions.Fraction``) and scikit-learn's ``BernoulliNB``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import sparse, stats
from scipy.special import gammaln, logsumexp
from sklearn.naive_bayes import BernoulliNB

import bayesnb as bnb
from bayesnb.text import TextNaiveBayes

EPS = np.finfo(float).eps
TINY = np.finfo(float).tiny


def _sd_bound(sigma: float, n: int) -> float:
    """Four standard errors of the sample sd of ``n`` normal draws of sd ``sigma``:
    asymptotically sd(s) = sigma / sqrt(2 (n - 1)). A correct sampler falls outside
    once in about 16 000 seeds; drawing with the variance in place of the sd moves
    s by |sigma**2 - sigma|, hundreds of these bounds for the sizes used here."""
    return 4.0 * sigma / math.sqrt(2.0 * (n - 1))


def _exact_moments(values) -> tuple[Fraction, Fraction]:
    """The mean and the 1/N variance of the floats ``values`` in exact rational
    arithmetic (every float is a rational, so nothing rounds)."""
    xs = [Fraction(float(v)) for v in values]
    mean = sum(xs, Fraction(0)) / len(xs)
    return mean, sum(((v - mean) ** 2 for v in xs), Fraction(0)) / len(xs)


# -- 1. the scale of Gaussian draws ----------------------------------------------------------


def test_density_gaussian_draws_have_the_fitted_standard_deviation():
    # Under estimate="ml" the density's Gaussian has the sample mean and the 1/N
    # variance (numpy's, ddof=0); its draws must have that sd, 3 here, not 9.
    rng = np.random.default_rng(11)
    x = rng.normal(-4.0, 3.0, 2000)
    fit = bnb.NaiveBayes({"g": bnb.Gaussian()}).density(pd.DataFrame({"g": x}), estimate="ml")
    sigma = float(np.std(x))
    assert float(fit.params["g_var"]) == pytest.approx(sigma**2, rel=1e-12)
    n = 200_000
    draws = fit.sample(n, random_state=2)["g"].to_numpy()
    assert abs(draws.std(ddof=1) - sigma) < _sd_bound(sigma, n)
    assert abs(draws.mean() - x.mean()) < 4.0 * sigma / math.sqrt(n)


def test_mixture_gaussian_draws_have_each_components_standard_deviation():
    # Two far-apart components of sd 3 and 0.5: the draws of each component have its
    # fitted sd (and mean), whichever side of 1 the sd lies (a variance in place of the
    # sd makes a sd of 0.5 smaller, 0.25, and a sd of 3 larger, 9).
    rng = np.random.default_rng(12)
    x = np.r_[rng.normal(0.0, 3.0, 3000), rng.normal(100.0, 0.5, 3000)]
    fit = bnb.NaiveBayes({"g": bnb.Gaussian()}).cluster(
        pd.DataFrame({"g": x}), 2, estimate="ml", random_state=0
    )
    draws = fit.sample(200_000, random_state=3)
    mu = fit.params["g_mu"].to_numpy()
    sigma = np.sqrt(fit.params["g_var"].to_numpy())
    assert sigma.min() == pytest.approx(0.5, rel=0.05) and sigma.max() == pytest.approx(3, rel=0.05)
    for k in range(2):
        g = draws.loc[draws["component"] == k, "g"].to_numpy()
        assert len(g) > 50_000
        assert abs(g.std(ddof=1) - sigma[k]) < _sd_bound(sigma[k], len(g))
        assert abs(g.mean() - mu[k]) < 4.0 * sigma[k] / math.sqrt(len(g))


# -- 2. Cheeseman-Stutz under a declared class prior ----------------------------------------

FAITHFUL_PRIORS = {
    "eruptions": bnb.NormalInverseGamma(mu=3.5, kappa=0.05, alpha=2.0, beta=0.5),
    "waiting": bnb.NormalInverseGamma(mu=70.0, kappa=0.05, alpha=2.0, beta=40.0),
}


def _nig_log_marginal(n, xbar, ss, mu0, kappa0, alpha0, beta0):
    """log p(x) of n normal values with mean xbar and centred sum of squares ss under
    the Normal-Inverse-Gamma prior (mu0, kappa0, alpha0, beta0), mean and variance
    integrated out: the posterior kappa_n = kappa0 + n, alpha_n = alpha0 + n/2,
    beta_n = beta0 + ss/2 + kappa0 n (xbar - mu0)^2 / (2 kappa_n), and
    Gamma(alpha_n)/Gamma(alpha0) beta0^alpha0 / beta_n^alpha_n sqrt(kappa0/kappa_n)
    (2 pi)^(-n/2)."""
    kappa_n = kappa0 + n
    alpha_n = alpha0 + n / 2
    beta_n = beta0 + ss / 2 + kappa0 * n * (xbar - mu0) ** 2 / (2 * kappa_n)
    return (
        gammaln(alpha_n)
        - gammaln(alpha0)
        + alpha0 * np.log(beta0)
        - alpha_n * np.log(beta_n)
        + 0.5 * np.log(kappa0 / kappa_n)
        - 0.5 * n * np.log(2 * np.pi)
    )


def _dirichlet_multinomial_class_term(a, counts):
    """log of the Dirichlet(a) marginal probability of one labelled sequence with the
    (soft) class counts ``counts``: Gamma(A)/Gamma(A + N) prod Gamma(a_k + N_k)/Gamma(a_k)."""
    a = np.broadcast_to(np.asarray(a, dtype=float), np.shape(counts))
    return (
        gammaln(a.sum())
        - gammaln(a.sum() + np.sum(counts))
        + np.sum(gammaln(a + counts) - gammaln(a))
    )


def _gaussian_mixture_by_hand(fit, X: pd.DataFrame):
    """A fitted diagonal Gaussian mixture's weights, means and variances (K, d) read
    from its parameters, and from them by scipy's normal density every row's
    log-likelihood and responsibilities (n, K)."""
    pi = fit.params["class_prob"].to_numpy()
    mu = np.stack([fit.params[f"{c}_mu"].to_numpy() for c in X.columns], axis=1)
    var = np.stack([fit.params[f"{c}_var"].to_numpy() for c in X.columns], axis=1)
    x = X.to_numpy()
    log_joint = np.log(pi)[None, :] + np.stack(
        [stats.norm.logpdf(x, mu[k], np.sqrt(var[k])).sum(axis=1) for k in range(len(pi))],
        axis=1,
    )
    row_ll = logsumexp(log_joint, axis=1)
    return pi, mu, var, row_ll, np.exp(log_joint - row_ll[:, None])


@pytest.mark.parametrize("class_alpha", [5.0, [2.0, 7.5]])
def test_cheeseman_stutz_of_a_gaussian_mixture_written_out(class_alpha):
    # AutoClass's approximation, as bayesnb.model_choice.cheeseman_stutz states it:
    #   CS = log p(X' | K) - log p(X' | theta) + log p(X | theta) + log K!,
    # X' the data completed by the responsibilities r at the fitted theta. Here every
    # term comes from the fitted parameters alone: r from scipy's normal densities,
    # the soft counts, means and sums of squares from r, and log p(X' | K) the
    # Dirichlet(class_alpha) class term plus a Normal-Inverse-Gamma marginal per
    # component and column.
    X = bnb.datasets.old_faithful()
    features = {c: bnb.Gaussian(p) for c, p in FAITHFUL_PRIORS.items()}
    model = bnb.NaiveBayes(features, class_prior=bnb.Dirichlet(class_alpha))
    fit = model.cluster(X, 2, random_state=0)
    pi, mu, var, row_ll, r = _gaussian_mixture_by_hand(fit, X)
    x = X.to_numpy()  # (n, d)
    N = r.sum(axis=0)  # (K,)
    xbar = (r.T @ x) / N[:, None]  # (K, d)
    ss = np.stack([(r[:, [k]] * (x - xbar[k]) ** 2).sum(axis=0) for k in range(2)])
    marginal = _dirichlet_multinomial_class_term(class_alpha, N)
    complete = float(N @ np.log(pi))
    for j, column in enumerate(X.columns):
        p = FAITHFUL_PRIORS[column]
        marginal += _nig_log_marginal(N, xbar[:, j], ss[:, j], p.mu, p.kappa, p.alpha, p.beta).sum()
        complete += np.sum(
            -0.5 * N * np.log(2 * np.pi * var[:, j])
            - (ss[:, j] + N * (xbar[:, j] - mu[:, j]) ** 2) / (2 * var[:, j])
        )
    expected = marginal - complete + row_ll.sum() + math.log(2)
    assert fit.cheeseman_stutz(X) == pytest.approx(expected, rel=1e-10)


def test_cheeseman_stutz_moves_by_exactly_the_class_prior_term():
    # With maximum-likelihood class weights the class prior plays no part in EM, so
    # the default Dirichlet(1) and Dirichlet(5) give the same fit; their Cheeseman-
    # Stutz values then differ by the difference of the two Dirichlet-multinomial
    # class terms alone, at the soft counts N_k (summed responsibilities).
    X = bnb.datasets.old_faithful()
    features = {c: bnb.Gaussian(p) for c, p in FAITHFUL_PRIORS.items()}
    fits = {
        a: bnb.NaiveBayes(features, class_prior=bnb.Dirichlet(a)).cluster(
            X, 2, class_estimate="ml", random_state=0
        )
        for a in (1.0, 5.0)
    }
    for name in fits[1.0].params.data_vars:
        np.testing.assert_array_equal(fits[1.0].params[name], fits[5.0].params[name])
    N = _gaussian_mixture_by_hand(fits[1.0], X)[-1].sum(axis=0)
    gap = _dirichlet_multinomial_class_term(5.0, N) - _dirichlet_multinomial_class_term(1.0, N)
    assert abs(gap) > 0.1  # far above the tolerance below: the priors differ here
    got = fits[5.0].cheeseman_stutz(X) - fits[1.0].cheeseman_stutz(X)
    assert got == pytest.approx(gap, rel=1e-9, abs=1e-9)


# -- 3. the Gaussian free parameters in AIC and BIC ------------------------------------------


def _mixed_frame() -> pd.DataFrame:
    rng = np.random.default_rng(31)
    z = rng.random(400) < 0.4
    return pd.DataFrame(
        {
            "g1": np.where(z, rng.normal(0.0, 1.0, 400), rng.normal(4.0, 1.5, 400)),
            "g2": rng.normal(10.0, 2.0, 400),
            "g3": np.where(z, rng.normal(-3.0, 0.5, 400), rng.normal(0.0, 0.5, 400)),
            "b": np.where(z, rng.random(400) < 0.8, rng.random(400) < 0.2),
        }
    )


@pytest.mark.parametrize("K", [1, 2, 3])
def test_aic_and_bic_count_a_mean_and_a_variance_per_gaussian_column(K):
    # K - 1 free weights; per component a mean and a variance for each of the d = 3
    # Gaussian columns and one probability for the Bernoulli column:
    # p = K - 1 + K (2 d + 1). The log-likelihood is written out from the fitted
    # parameters with scipy's normal density.
    X = _mixed_frame()
    features = {"g1": bnb.Gaussian(), "g2": bnb.Gaussian(), "g3": bnb.Gaussian()}
    fit = bnb.NaiveBayes({**features, "b": bnb.Bernoulli()}).cluster(X, K, random_state=0)
    p = (K - 1) + K * (2 * 3 + 1)
    params = fit.params
    log_joint = np.tile(np.log(params["class_prob"].to_numpy()), (len(X), 1))
    for column in ("g1", "g2", "g3"):
        mu, var = params[f"{column}_mu"].to_numpy(), params[f"{column}_var"].to_numpy()
        log_joint += stats.norm.logpdf(X[[column]].to_numpy(), mu, np.sqrt(var))
    theta = params["b"].to_numpy()  # P(b = True) per component
    b = X[["b"]].to_numpy()
    log_joint += np.where(b, np.log(theta), np.log1p(-theta))
    loglik = float(logsumexp(log_joint, axis=1).sum())
    assert fit.log_likelihood == pytest.approx(loglik, rel=1e-10)
    n = len(X)
    assert fit.aic == pytest.approx(-2 * loglik + 2 * p, rel=1e-10)
    assert fit.bic == pytest.approx(-2 * loglik + p * math.log(n), rel=1e-10)


@pytest.mark.parametrize("K", [1, 2, 4])
def test_bic_of_a_gaussian_block_counts_every_column(K):
    # A block of three Gaussian columns (columns=[...]) is still diagonal: 2 d = 6 free
    # parameters per component besides the K - 1 weights.
    X = _mixed_frame()[["g1", "g2", "g3"]]
    fit = bnb.NaiveBayes({"g": bnb.Gaussian(columns=["g1", "g2", "g3"])}).cluster(
        X, K, random_state=0
    )
    p = (K - 1) + K * 2 * 3
    assert fit.n_parameters() == p
    assert fit.bic == pytest.approx(-2 * fit.log_likelihood + p * math.log(len(X)), rel=1e-12)
    assert fit.aic == pytest.approx(-2 * fit.log_likelihood + 2 * p, rel=1e-12)


# -- 4. the floors below which a Gaussian variance is refused ---------------------------------
#
# A classifier refuses a class whose values differ while their variance lies below the
# smallest normal float (TINY, about 2.2e-308), and under estimate="ml" a class whose
# variance is exactly 0; a mixture refuses a component whose standard deviation lies
# below the spacing of floats at its mean. Just above either floor the variance is a
# variance, and must be fitted.


@pytest.mark.parametrize(
    ("centre", "sd"),
    [(1.0, 1e-6), (1e3, 1e-8), (0.0, 3e-153)],  # the last: variances near 1e2 * TINY
)
def test_classifier_fits_a_small_real_variance(centre, sd):
    rng = np.random.default_rng(41)
    small = centre + sd * rng.normal(size=40)
    X = np.r_[small, 50.0 + rng.normal(size=40)][:, None]
    y = [0] * 40 + [1] * 40
    mean, var = _exact_moments(small)
    assert float(var) > 50 * TINY and np.ptp(small) > 0
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    got = fit.params["X_var"].sel(class_label=0).item()
    assert got == pytest.approx(float(var), rel=1e-9)
    assert fit.params["X_mu"].sel(class_label=0).item() == pytest.approx(float(mean), rel=1e-15)
    # the class of small spread claims its own rows
    np.testing.assert_array_equal(fit.predict(small[:, None]), np.zeros(40, int))
    # under the default MAP prior too: a finite, positive variance
    mapped = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y).params["X_var"].sel(class_label=0).item()
    assert 0 < mapped < math.inf


def test_classifier_refuses_a_truly_constant_class_under_ml_but_not_map():
    X = np.r_[np.full(10, 1e3), 50.0 + np.arange(10.0)][:, None]
    y = [0] * 10 + [1] * 10
    with pytest.raises(bnb.InputError, match=r"zero variance.*class 0"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="map")
    assert fit.params["X_mu"].sel(class_label=0).item() == 1e3
    assert fit.params["X_var"].sel(class_label=0).item() > 0


@pytest.mark.parametrize("estimate", ["ml", "map"])
def test_mixture_fits_a_spread_of_about_one_spacing_of_floats(estimate):
    # 1, 1 + eps, 1 + 2 eps, 1 + 3 eps, ten times each: exact sd sqrt(5/4) eps, where
    # the spacing of floats at the mean (between 1 and 2) is eps. One component: ML
    # gives that variance; MAP under the default prior (mu0 the mean, kappa0 = 0.01,
    # alpha0 = 3/2, beta0 half the 1/N variance v) gives the Normal-Inverse-Gamma mode
    # (v/2 + n v/2) / (alpha0 + n/2 + 3/2) = v (n + 1) / (n + 6), still above the
    # spacing (sd 1.056 eps at n = 40).
    x = 1.0 + EPS * np.tile(np.arange(4.0), 10)
    mean, v = _exact_moments(x)
    assert v == Fraction(5, 4) * Fraction(EPS) ** 2
    expected = v if estimate == "ml" else v * 41 / 46
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(x[:, None], 1, estimate=estimate, random_state=0)
    got = fit.params["X_var"].item()
    assert math.sqrt(got) > np.spacing(float(mean))
    assert got == pytest.approx(float(expected), rel=1e-9)


@pytest.mark.parametrize(("centre", "sd"), [(1.0, 1e-6), (1e3, 1e-8)])
def test_mixture_fits_two_components_of_small_real_spread(centre, sd):
    # Two groups, each of sd `sd`, 40 sds apart: two components recover each group's
    # mean and 1/N variance (exact rational moments) under ML.
    rng = np.random.default_rng(43)
    a = centre + sd * rng.normal(size=200)
    b = centre + 40 * sd + sd * rng.normal(size=200)
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(
        np.r_[a, b][:, None], 2, estimate="ml", random_state=0
    )
    order = np.argsort(fit.params["X_mu"].to_numpy())
    var = fit.params["X_var"].to_numpy()[order]
    for got, group in zip(var, (a, b), strict=True):
        assert got == pytest.approx(float(_exact_moments(group)[1]), rel=1e-6)


# -- 5. stored zeros in a sparse matrix given to the Bernoulli text model --------------------


def _counts_with_stored_zeros():
    """30 messages x 12 words of random counts as CSR, with about a third of the
    stored entries set to explicit zeros (so some rows and columns hold stored zeros
    only), and the labels."""
    rng = np.random.default_rng(51)
    dense = rng.poisson(0.6, size=(30, 12)).astype(float)
    stored = (dense > 0) | (rng.random(dense.shape) < 0.4)  # where an entry is stored
    rows, cols = np.nonzero(stored)
    X = sparse.csr_array((dense[rows, cols], (rows, cols)), shape=dense.shape)
    assert X.nnz == stored.sum() > np.count_nonzero(dense)  # explicit zeros are there
    y = np.where(rng.random(30) < 0.5, "ham", "spam")
    y[:2] = ["ham", "spam"]
    return X, dense, y


def test_bernoulli_text_model_reads_stored_zeros_as_absent_words():
    X, dense, y = _counts_with_stored_zeros()
    clean = X.copy()
    clean.eliminate_zeros()
    assert clean.nnz == np.count_nonzero(dense)
    # scikit-learn's BernoulliNB with alpha = 1 is the Beta(1, 1) posterior mean of the
    # presence probabilities and the ML class prior, the model's defaults here.
    ref = BernoulliNB(alpha=1.0, binarize=0.0).fit(dense, y)
    words = [f"w{j}" for j in range(dense.shape[1])]
    with_zeros = TextNaiveBayes("bernoulli").fit_matrix(X, y, words=words)
    without = TextNaiveBayes("bernoulli").fit_matrix(clean, y, words=words)
    assert with_zeros.labels == ref.classes_.tolist()
    theta = with_zeros.params["word"].transpose("class_label", "word_feature").to_numpy()
    np.testing.assert_allclose(np.log(theta), ref.feature_log_prob_, rtol=1e-12, atol=1e-12)
    for query in (X, clean, dense):
        expected = ref.predict_joint_log_proba(dense)
        for fit in (with_zeros, without):
            got = fit.joint_log_likelihood(query)
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(
                fit.predict_proba(query), ref.predict_proba(dense), rtol=1e-12, atol=1e-12
            )
