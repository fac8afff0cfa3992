"""Large weights and counts: the log-gamma differences of the Student-t and
Dirichlet-multinomial predictives stay exact, sums beyond the largest float and
ranges too wide to bin are errors naming the column, and a few estimator messages.

Expected values come from exact sums of logarithms (``math.fsum``), ratios of big
integers taken to 60 digits with :mod:`decimal`, or scipy's normal density where the
Student-t's degrees of freedom make it a normal to 1e-15.
"""

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnb as bnb
from bayesnb._special import log_rising
from bayesnb.errors import InputError


@pytest.mark.parametrize("a", [0.1, 0.5, 3.0, 14.9, 15.0, 15.1, 100.0, 1e6, 1e12, 1e15, 2.0**52])
@pytest.mark.parametrize("n", [0, 1, 3, 10, 1000])
def test_log_rising_is_the_log_of_the_rising_factorial(a, n):
    exact = math.fsum(math.log(a + i) for i in range(n))
    assert float(log_rising(a, n)) == pytest.approx(exact, rel=4e-15, abs=4e-16)


@pytest.mark.parametrize("m", [15, 16, 40, 299, 5000])
def test_log_rising_by_a_half_against_exact_factorials(m):
    """Gamma(m + 1/2) / Gamma(m) = (2m)! sqrt(pi) / (4^m m! (m - 1)!), to 60 digits."""
    getcontext().prec = 60
    ratio = Fraction(math.factorial(2 * m), 4**m * math.factorial(m) * math.factorial(m - 1))
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
    exact = Decimal(ratio.numerator).ln() - Decimal(ratio.denominator).ln() + pi.ln() / 2
    assert float(log_rising(float(m), 0.5)) == pytest.approx(float(exact), rel=1e-15)


def test_gaussian_predictive_with_huge_weights_is_the_normal_it_tends_to():
    """Rows of weight 1e15 make the Student-t's degrees of freedom 5e15: its density
    is the normal of the predictive's location and scale (to about 1/df). The
    textbook normalizer, a difference of two log-gammas near 8.7e16, was off by
    whole nats (+44.6 here)."""
    x = np.array([0.3, -1.2, 0.8, 1.5, -0.4])
    w = 1e15
    prior = bnb.NormalInverseGamma(mu=0.0, kappa=1.0, alpha=2.0, beta=1.0)
    fit = bnb.NaiveBayes({"x": bnb.Gaussian(prior)}).fit(
        pd.DataFrame({"x": x}), ["a"] * 5, estimate="predictive", sample_weight=np.full(5, w)
    )
    n, mean = 5 * w, x.mean()
    ss = w * np.sum((x - mean) ** 2)
    kappa_n, alpha_n = 1.0 + n, 2.0 + n / 2
    mu_n = mean * n / kappa_n
    beta_n = 1.0 + ss / 2 + n * mean**2 / (2 * kappa_n)
    scale = math.sqrt(beta_n * (kappa_n + 1) / (alpha_n * kappa_n))
    got = fit.joint_log_likelihood(pd.DataFrame({"x": [0.0, 2.0]}))[:, 0]
    np.testing.assert_allclose(got, stats.norm.logpdf([0.0, 2.0], mu_n, scale), rtol=0, atol=1e-12)


def test_dirichlet_multinomial_predictive_with_huge_counts_is_exact():
    """Counts of 1e15 make the concentrations 1e15 + 1: the row (3, 1) has the
    coefficient-free Dirichlet-multinomial a(a+1)(a+2) a' / (A (A+1) (A+2) (A+3)),
    about 1/16, beside the class probability 1/2. The log-gamma differences gave
    +7.3, a log-probability above 0."""
    counts = pd.DataFrame({"p": [10**15, 1], "q": [10**15, 10**15]})
    fit = bnb.NaiveBayes({"w": bnb.Multinomial(columns=["p", "q"])}).fit(
        counts, ["a", "b"], estimate="predictive"
    )
    got = fit.joint_log_likelihood(pd.DataFrame({"p": [3], "q": [1]}))[0]

    def log_dm(a_p, a_q, x_p, x_q):
        total = a_p + a_q
        up = math.fsum(math.log(a_p + i) for i in range(x_p))
        up += math.fsum(math.log(a_q + i) for i in range(x_q))
        return up - math.fsum(math.log(total + i) for i in range(x_p + x_q))

    class_log = math.log(0.5)  # the class counts 1, 1 under Dirichlet(1): both 1/2
    expected = [
        class_log + log_dm(1e15 + 1, 1e15 + 1, 3, 1),
        class_log + log_dm(2.0, 1e15 + 1, 3, 1),
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    assert expected[0] == pytest.approx(math.log(1 / 32), abs=1e-14)


def test_word_counts_summing_beyond_the_largest_float_are_named():
    X = pd.DataFrame({"p": [1e308, 1e308, 1.0], "q": [1.0, 1.0, 2.0]})
    model = bnb.NaiveBayes({"w": bnb.Multinomial(columns=["p", "q"])})
    with pytest.raises(InputError, match=r"'w' has counts as large as 1e\+308 in column 'p'"):
        model.fit(X, ["a", "a", "b"])


def test_a_range_too_wide_to_bin_is_named():
    X = pd.DataFrame({"t": [-1e308, 1e308, 0.0, 1.0]})
    for bins in (4, "auto"):
        with pytest.raises(InputError, match=r"column 't' spans .* beyond the largest float"):
            bnb.NaiveBayes({"t": bnb.Binned(bins=bins)}).fit(X, ["a", "a", "b", "b"])


def test_m_estimate_p_must_be_a_distribution():
    assert bnb.m_estimate(2, [0.25, 0.75]).alpha.tolist() == [0.5, 1.5]
    assert bnb.m_estimate(4, [[0.5, 0.5], [0.25, 0.75]]).alpha.tolist() == [[2, 2], [1, 3]]
    with pytest.raises(InputError, match=r"p=\[0.5, 0.75\], which sums to 1.25"):
        bnb.m_estimate(2, [0.5, 0.75])
    with pytest.raises(InputError, match="sums to"):
        bnb.m_estimate(2, [[0.5, 0.5], [0.5, 0.6]])


@pytest.mark.parametrize("estimate", ["ml", "map"])
def test_an_undefined_estimate_names_the_class(estimate):
    X = pd.DataFrame({"c": list("xyxy")})
    with pytest.raises(InputError, match=rf"estimate='{estimate}' is undefined .* in class 'c'"):
        bnb.NaiveBayes().fit(X, list("aabb"), estimate=estimate, classes=["a", "b", "c"])
