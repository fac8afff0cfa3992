"""scikit-learn's fitted attributes on the bayesnb drop-ins, against scikit-learn's own
classes fitted to the same data with the same smoothing."""

import numpy as np
import pytest
from sklearn import naive_bayes as sk
from sklearn.exceptions import NotFittedError

from bayesnb import sklearn as ours

RNG = np.random.default_rng(0)
Y = RNG.choice([0, 1, 2], 300)
W = RNG.uniform(0.5, 2.0, 300)


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_bernoulli_attributes():
    X = (RNG.random((300, 7)) < 0.3).astype(float)
    a = ours.BernoulliNB(alpha=1.0).fit(X, Y, sample_weight=W)
    b = sk.BernoulliNB(alpha=1.0).fit(X, Y, sample_weight=W)
    for name in ("class_count_", "class_log_prior_", "feature_count_", "feature_log_prob_"):
        close(getattr(a, name), getattr(b, name))
    assert a.feature_log_prob_.shape == (3, 7)


def test_multinomial_attributes():
    X = RNG.poisson(2.0, (300, 9)).astype(float)
    a = ours.MultinomialNB(alpha=0.5).fit(X, Y)
    b = sk.MultinomialNB(alpha=0.5).fit(X, Y)
    for name in ("class_count_", "class_log_prior_", "feature_count_", "feature_log_prob_"):
        close(getattr(a, name), getattr(b, name))


def test_categorical_attributes():
    X = np.column_stack([RNG.integers(0, 3, 300), RNG.integers(0, 5, 300)])
    a = ours.CategoricalNB(alpha=1.0).fit(X, Y)
    b = sk.CategoricalNB(alpha=1.0).fit(X, Y)
    close(a.class_count_, b.class_count_)
    close(a.class_log_prior_, b.class_log_prior_)
    np.testing.assert_array_equal(a.n_categories_, b.n_categories_)
    for ours_j, theirs_j in zip(a.category_count_, b.category_count_, strict=True):
        close(ours_j, theirs_j)
    for ours_j, theirs_j in zip(a.feature_log_prob_, b.feature_log_prob_, strict=True):
        close(ours_j, theirs_j)


def test_gaussian_attributes():
    X = RNG.normal(size=(300, 4)) + Y[:, None]
    a = ours.GaussianNB().fit(X, Y)  # estimate="ml", ddof=0, var_smoothing=1e-9
    b = sk.GaussianNB().fit(X, Y)
    for name in ("class_count_", "theta_", "var_", "class_prior_", "epsilon_"):
        close(getattr(a, name), getattr(b, name))
    assert a.epsilon_ == pytest.approx(1e-9 * X.var(axis=0).max(), rel=1e-14)
    with pytest.raises(AttributeError, match="Student-t"):
        _ = ours.GaussianNB(estimate="predictive").fit(X, Y).var_


def test_attributes_before_fit_are_not_fitted_errors():
    with pytest.raises(NotFittedError):
        _ = ours.BernoulliNB().feature_log_prob_
    assert not hasattr(ours.GaussianNB(), "theta_")
