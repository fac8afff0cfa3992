"""The Dirichlet evidence (log marginal likelihood, no multinomial coefficient) when
one count dwarfs the rest.

Oracle: the evidence is a ratio of Gamma functions,

    Gamma(A) / Gamma(A + N) * prod_v Gamma(alpha_v + n_v) / Gamma(alpha_v),

and with j the huge category, r the other concentrations' sum and m the other counts'
sum, Gamma(alpha_j + n_j) / Gamma(A + N) is 1 / [alpha_j + n_j]^(r + m), a rising
factorial with r + m factors. The cases below make r + m a small integer, so that
factor is an exact product of Fractions (the huge count enters exactly), and every
other factor is either an exact rising factorial too or a log-gamma of small
arguments (``math.lgamma``, accurate there). ``math.log`` of an exact integer of any
size is accurate to the last bit, so the oracle is good to about 1e-16 relative.
Ordinary counts are checked against ``scipy.special.gammaln`` written out.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import special

import bayesnb as bnb
from bayesnb._special import log_dirichlet_evidence, log_rising
from bayesnb.errors import InputError


def _log(x: Fraction) -> float:
    """The natural log of an exact positive rational, accurate to the last bit."""
    return math.log(x.numerator) - math.log(x.denominator)


def _rising(a: Fraction, k: int) -> Fraction:
    """a (a + 1) ... (a + k - 1), exactly."""
    out = Fraction(1)
    for i in range(k):
        out *= a + i
    return out


def _exact(alpha, counts) -> float:
    """The evidence of ``counts`` under Dirichlet(``alpha``), for a largest category j
    whose others' concentrations and counts sum to a small integer r + m."""
    a = [Fraction(x) for x in alpha]  # Fractions of the floats: the inputs exactly
    n = [Fraction(x) for x in counts]
    j = max(range(len(a)), key=lambda v: a[v] + n[v])
    rest = sum(a[v] + n[v] for v in range(len(a)) if v != j)
    assert rest.denominator == 1, "the oracle needs r + m to be an integer"
    r = sum(a[v] for v in range(len(a)) if v != j)
    # ln Gamma(A) - ln Gamma(alpha_j): small arguments (the huge count is not in it)
    head = math.lgamma(float(a[j] + r)) - math.lgamma(float(a[j]))
    # ln Gamma(alpha_j + n_j) - ln Gamma(A + N) = -ln [alpha_j + n_j]^(r + m), exactly
    tail = -_log(_rising(a[j] + n[j], int(rest)))
    others = 0.0
    for v in range(len(a)):
        if v == j:
            continue
        if n[v].denominator == 1:
            others += _log(_rising(a[v], int(n[v])))
        else:
            others += math.lgamma(float(a[v] + n[v])) - math.lgamma(float(a[v]))
    return math.fsum([head, tail, others])


HUGE = [
    ([1.0, 1.0], [3.0, 1e15]),  # the reported case: about -136.36
    ([1.0, 1.0], [1e15, 3.0]),  # the same, the huge count first
    ([0.5, 2.0], [1e15, 2.0]),
    ([1.0, 1.0, 1.0], [0.0, 5.0, 1e14]),
    ([2.5, 1.0, 3.0], [float(2**52), 4.0, 1.0]),
    ([0.75, 1.0], [1e16, 7.0]),  # alpha_j + n_j is not a float: rounded in the sum
    ([1.5, 1.0], [2.5, 1e15 + 0.5]),  # fractional counts (EM's expected counts)
    ([3.0, 1.0, 0.5], [0.0, 0.0, 1e18]),
    ([1.0, 2.0, 1.0, 1.0], [1.0, 1e12, 2.0, 0.0]),
]


def test_the_reported_case_is_about_minus_136_36():
    exact = math.log(6) - math.log(math.prod(10**15 + k for k in range(1, 5)))
    assert exact == pytest.approx(-136.36334611041470, abs=1e-12)
    got = bnb.Dirichlet([1.0, 1.0]).log_marginal_likelihood([3, 1e15])
    assert got == pytest.approx(exact, rel=1e-14)


@pytest.mark.parametrize(("alpha", "counts"), HUGE)
def test_huge_count_matches_the_exact_ratio(alpha, counts):
    exact = _exact(alpha, counts)
    got = bnb.Dirichlet(alpha).log_marginal_likelihood(counts)
    assert got == pytest.approx(exact, rel=1e-13, abs=1e-13)


def test_leading_axes_sum_every_row_exactly():
    alpha = np.array([1.0, 1.0])
    counts = np.array([[3.0, 1e15], [2.0, 1.0], [1e14, 0.0]])
    expected = math.fsum(_exact(alpha, row) for row in counts)
    got = bnb.Dirichlet(alpha).log_marginal_likelihood(counts)
    assert got == pytest.approx(expected, rel=1e-13)
    rows = log_dirichlet_evidence(alpha, counts)
    assert rows.shape == (3,)
    for value, row in zip(rows, counts, strict=True):
        assert value == pytest.approx(_exact(alpha, row), rel=1e-13)


def test_segments_give_each_variable_its_own_exact_evidence():
    # two variables side by side: 2 categories, then 3 (a Categorical block's layout)
    alpha = np.array([[1.0, 1.0, 0.5, 2.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    counts = np.array([[3.0, 1e15, 1e15, 1.0, 2.0], [2.0, 1.0, 0.0, 4.0, 1e13]])
    segments = [0, 2]
    out = log_dirichlet_evidence(alpha, counts, segments)
    assert out.shape == (2, 2)
    for i in range(2):
        for s, (lo, hi) in enumerate([(0, 2), (2, 5)]):
            expected = _exact(alpha[i, lo:hi], counts[i, lo:hi])
            assert out[i, s] == pytest.approx(expected, rel=1e-13)
    total = bnb.Dirichlet(alpha).log_marginal_likelihood(counts, segments=segments)
    assert total == pytest.approx(math.fsum(out.ravel()), rel=1e-15)


def _scipy(alpha, counts) -> float:
    alpha, counts = np.asarray(alpha, float), np.asarray(counts, float)
    return float(
        special.gammaln(alpha.sum())
        - special.gammaln(alpha.sum() + counts.sum())
        + np.sum(special.gammaln(alpha + counts) - special.gammaln(alpha))
    )


@pytest.mark.parametrize(
    ("alpha", "counts"),
    [
        ([1.0, 1.0], [2.0, 1.0]),
        ([0.5, 0.5, 0.5], [3.0, 0.0, 7.0]),
        ([2.0, 3.0, 4.0, 5.0], [10.0, 20.0, 30.0, 40.0]),
        ([0.1, 10.0], [0.3, 2.7]),
        ([1e3, 1e3], [5.0, 9.0]),
        ([1.0, 1.0, 1.0], [0.0, 0.0, 0.0]),
    ],
)
def test_ordinary_counts_match_scipy_gammaln(alpha, counts):
    got = bnb.Dirichlet(alpha).log_marginal_likelihood(counts)
    assert got == pytest.approx(_scipy(alpha, counts), rel=1e-12, abs=1e-13)


def test_ordinary_counts_match_the_exact_rational():
    # Dirichlet(1, 1) over (2, 1): 2! 1! / 4! = 1/12;
    # Dirichlet(2, 3) over (1, 2): 2 * (3 * 4) / (5 * 6 * 7)
    assert bnb.Dirichlet([1.0, 1.0]).log_marginal_likelihood([2, 1]) == pytest.approx(
        math.log(1 / 12), rel=1e-15
    )
    assert bnb.Dirichlet([2.0, 3.0]).log_marginal_likelihood([1, 2]) == pytest.approx(
        _log(Fraction(24, 210)), rel=1e-15
    )


def test_many_random_ordinary_counts_match_scipy():
    rng = np.random.default_rng(7)
    for _ in range(50):
        v = int(rng.integers(2, 7))
        alpha = 10 ** rng.uniform(-1, 2, v)
        counts = rng.integers(0, 50, v).astype(float)
        got = bnb.Dirichlet(alpha).log_marginal_likelihood(counts)
        assert got == pytest.approx(_scipy(alpha, counts), rel=1e-11, abs=1e-12)


def test_large_concentration_few_counts_keeps_its_accuracy():
    # alpha in the thousands over a handful of counts: the prior's mean, nearly
    # sum_v n_v log(alpha_v / A); here exactly [2000]^(2) [6000]^(3) / [8000]^(5)
    alpha, counts = [2000.0, 6000.0], [2.0, 3.0]
    exact = _log(
        _rising(Fraction(2000), 2) * _rising(Fraction(6000), 3) / _rising(Fraction(8000), 5)
    )
    got = bnb.Dirichlet(alpha).log_marginal_likelihood(counts)
    assert got == pytest.approx(exact, rel=1e-13)


def test_bad_counts_are_clear_errors():
    with pytest.raises(InputError, match=r"counts must be finite and >= 0.*-1"):
        bnb.Dirichlet([1.0, 1.0]).log_marginal_likelihood([3, -1])
    with pytest.raises(InputError, match=r"counts must have a last axis.*counts=\[3, 1\]"):
        bnb.Dirichlet(1.0).log_marginal_likelihood(3)
    with pytest.raises(InputError, match=r"counts of shape \(3,\) does not fit"):
        bnb.Dirichlet([1.0, 1.0]).log_marginal_likelihood([1, 2, 3])


def test_log_rising_at_enormous_arguments_does_not_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = float(log_rising(20.0, 1e300))
    expected = float(special.gammaln(1e300) - special.gammaln(20.0))
    assert got == pytest.approx(expected, rel=1e-14)


# -- every row of a sparse matrix of counts (the Multinomial predictive) -----------------


@pytest.mark.parametrize(("alpha", "counts"), HUGE)
def test_rows_of_sparse_counts_match_the_exact_evidence(alpha, counts):
    """:func:`log_dirichlet_evidence_rows` holds each row's counts as stored words,
    the others adding only their concentrations; every huge case, as a row beside an
    ordinary row and an empty one, and under a second concentration row."""
    from scipy import sparse

    from bayesnb._special import log_dirichlet_evidence_rows

    ordinary = [1.0] * len(counts)
    x = sparse.csr_array(np.array([counts, ordinary, [0.0] * len(counts)]))
    other = [a + 1.0 for a in alpha]
    got = log_dirichlet_evidence_rows(np.array([alpha, other]), x)
    assert got.shape == (3, 2)
    for k, conc in enumerate((alpha, other)):
        assert got[0, k] == pytest.approx(_exact(conc, counts), rel=1e-13)
        a, n = np.array(conc), np.array(ordinary)
        by_hand = (
            special.gammaln(a.sum())
            - special.gammaln(a.sum() + n.sum())
            + np.sum(special.gammaln(a + n) - special.gammaln(a))
        )
        assert got[1, k] == pytest.approx(by_hand, rel=1e-12)
        assert got[2, k] == 0.0


def test_rows_with_repeated_entries_sum_them_first():
    """A CSR matrix may hold a word twice in one row (unsummed duplicates): the
    evidence is that of their sum, not of each part."""
    from scipy import sparse

    from bayesnb._special import log_dirichlet_evidence_rows

    x = sparse.csr_array((np.array([2.0, 3.0, 1.0]), np.array([0, 0, 1]), np.array([0, 3])))
    got = log_dirichlet_evidence_rows([[1.0, 2.0]], x.copy())
    assert float(got[0, 0]) == pytest.approx(_exact([1.0, 2.0], [5.0, 1.0]), rel=1e-14)


def test_multinomial_predictive_of_a_document_with_one_huge_count():
    """The posterior predictive of word counts is the Dirichlet-multinomial under the
    class's posterior concentration: a document holding one word 1e15 times scores, in
    each class, the exact evidence plus the class's log prior (its log-odds was off by
    about a nat when the total's term was taken apart from the word's)."""
    X = np.array([[5, 1, 0], [1, 4, 2], [0, 2, 6], [3, 0, 1]], dtype=float)
    y = np.array([0, 0, 1, 1])
    fit = bnb.NaiveBayes(bnb.Multinomial()).fit(X, y, estimate="predictive")
    # posterior concentration: the class's word counts + 1 (Dirichlet(1) prior)
    conc = [[1.0 + 5 + 1, 1.0 + 1 + 4, 1.0 + 0 + 2], [1.0 + 0 + 3, 1.0 + 2 + 0, 1.0 + 6 + 1]]
    np.testing.assert_array_equal(fit.block_params[0]["concentration"], conc)
    doc = [3.0, 1e15, 0.0]
    jll = fit.joint_log_likelihood(np.array([doc]))[0]
    # the class prior's posterior mean under Dirichlet(1): (2 + 1) / (4 + 2) each
    log_prior = math.log(3 / 6)
    for k in range(2):
        assert jll[k] == pytest.approx(_exact(conc[k], doc) + log_prior, rel=1e-13)
