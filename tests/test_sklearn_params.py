"""scikit-learn's constructor parameters on the drop-ins (fit_prior, class_prior as
probabilities, priors, var_smoothing, alpha arrays, force_alpha), against scikit-learn's
own classes on the same data, and partial_fit against fit for every class."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import naive_bayes as sk
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.model_selection import cross_val_score

import bayesnb as bnb
from bayesnb import sklearn as ours

RNG = np.random.default_rng(7)
N = 240
Y = RNG.choice([0, 1, 2], N)
DATA = {
    "BernoulliNB": (RNG.random((N, 6)) < 0.3).astype(float),
    "MultinomialNB": RNG.poisson(2.0, (N, 8)).astype(float),
    "CategoricalNB": np.column_stack([RNG.integers(0, 3, N), RNG.integers(0, 5, N)]),
    "GaussianNB": RNG.normal(size=(N, 4)) + Y[:, None],
}
DISCRETE = ("BernoulliNB", "MultinomialNB", "CategoricalNB")
TIGHT = {"rtol": 1e-12, "atol": 1e-12}


def pair(name, **params):
    return getattr(ours, name)(**params), getattr(sk, name)(**params)


def assert_same(a, b, X):
    theirs = b.class_log_prior_ if hasattr(b, "class_log_prior_") else np.log(b.class_prior_)
    np.testing.assert_allclose(a.class_log_prior_, theirs, **TIGHT)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), **TIGHT)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize(
    "params",
    [{"fit_prior": False}, {"class_prior": [0.2, 0.5, 0.3]}, {"class_prior": np.array([1, 0, 0])}],
)
def test_fixed_class_probabilities_are_scikit_learns(name, params):
    X = DATA[name]
    a, b = pair(name, **params)
    with np.errstate(divide="ignore"):  # scikit-learn's log(0) of a class prior of 0
        b.fit(X, Y)
    a.fit(X, Y)
    assert_same(a, b, X)
    expected = params.get("class_prior", np.full(3, 1 / 3))
    np.testing.assert_allclose(np.exp(a.class_log_prior_), expected, rtol=1e-15)
    assert isinstance(a.fit_.class_prior, bnb.PointMass)


def test_gaussian_priors_are_scikit_learns():
    X = DATA["GaussianNB"]
    a, b = pair("GaussianNB", priors=[0.6, 0.3, 0.1])
    assert_same(a.fit(X, Y), b.fit(X, Y), X)
    np.testing.assert_allclose(a.class_prior_, [0.6, 0.3, 0.1], rtol=1e-15)
    # class counts are still counted, but do not move the fixed probabilities
    np.testing.assert_array_equal(a.class_count_, np.bincount(Y))


@pytest.mark.parametrize("var_smoothing", [0.0, 1e-9, 1e-3, 0.1])
def test_var_smoothing_is_scikit_learns_epsilon(var_smoothing):
    X, y = load_digits(return_X_y=True)
    X, y = X[:400], y[:400]  # many pixels constant within a class
    a, b = pair("GaussianNB", var_smoothing=var_smoothing)
    if var_smoothing == 0.0:
        with pytest.raises(ValueError, match="zero variance"):
            a.fit(X, y)
        return
    a.fit(X, y)
    b.fit(X, y)
    assert a.epsilon_ == pytest.approx(b.epsilon_, rel=1e-14)
    assert a.epsilon_ == pytest.approx(var_smoothing * X.var(axis=0).max(), rel=1e-14)
    for attr in ("theta_", "var_", "class_prior_"):
        np.testing.assert_allclose(getattr(a, attr), getattr(b, attr), rtol=1e-12, atol=0)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_gaussian_default_cross_validates_on_digits_as_scikit_learn():
    """The issue's case: GaussianNB() raised on digits (pixels constant within a class).
    With var_smoothing=1e-9 it scores what scikit-learn scores, fold by fold; the
    posterior mode does better (0.859 against 0.811)."""
    X, y = load_digits(return_X_y=True)
    mine = cross_val_score(ours.GaussianNB(), X, y, cv=10)
    theirs = cross_val_score(sk.GaussianNB(), X, y, cv=10)
    np.testing.assert_array_equal(mine, theirs)
    assert theirs.mean() == pytest.approx(0.8114, abs=5e-5)
    assert cross_val_score(ours.GaussianNB(estimate="map"), X, y, cv=10).mean() == pytest.approx(
        0.8592, abs=5e-5
    )


def test_gaussian_class_with_no_weight_fits_and_is_never_predicted():
    """scikit-learn accepts a class whose every weight is 0; so does GaussianNB(),
    whose ML estimate gives that class its prior's mode (no data, no likelihood)."""
    X = DATA["GaussianNB"]
    w = (Y != 2).astype(float)
    a, b = pair("GaussianNB")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a.fit(X, Y, sample_weight=w)
    with np.errstate(divide="ignore"):
        b.fit(X, Y, sample_weight=w)
    np.testing.assert_array_equal(a.class_count_, b.class_count_)
    np.testing.assert_allclose(a.theta_[:2], b.theta_[:2], **TIGHT)
    np.testing.assert_allclose(a.var_[:2], b.var_[:2], **TIGHT)
    with np.errstate(divide="ignore"):  # scikit-learn's log of the class prior 0
        np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.predict_proba(X)[:, 2].max() == 0.0
    # the prior's mode: mu0 = the pooled mean (no own rows), sigma2 = beta / (alpha + 1.5),
    # where a class without rows has the default alpha 3/2 (the others 1)
    prior = a.fit_.blocks[0].prior
    np.testing.assert_array_equal(prior.alpha[:, 0], [1.0, 1.0, 1.5])
    np.testing.assert_allclose(a.theta_[2], prior.mu[2], **TIGHT)
    np.testing.assert_allclose(a.var_[2], prior.beta[2] / (1.5 + 1.5) + a.epsilon_, **TIGHT)
    # so the posterior mean of its variance exists: beta / (alpha - 1) = 2 beta; the
    # class is still never predicted (its probability, from a count of 0, is 0)
    mean = ours.GaussianNB(estimate="mean").fit(X, Y, sample_weight=w)
    np.testing.assert_allclose(mean.var_[2], prior.beta[2] / 0.5 + mean.epsilon_, **TIGHT)
    assert mean.predict_proba(X)[:, 2].max() == 0.0


def test_categorical_reads_a_non_integer_value_as_its_integer_part():
    X = DATA["CategoricalNB"]
    for shift in (0.0, 0.25, 0.999):
        a, b = pair("CategoricalNB")
        assert_same(a.fit(X + shift, Y), b.fit(X + shift, Y), X + shift)
        np.testing.assert_allclose(a.predict_proba(X + shift), a.predict_proba(X), rtol=0)


def test_alpha_per_feature_is_scikit_learns():
    X = DATA["MultinomialNB"]
    alpha = np.linspace(0.1, 3.0, X.shape[1])
    a, b = pair("MultinomialNB", alpha=alpha)
    a.fit(X, Y)
    b.fit(X, Y)
    np.testing.assert_allclose(a.feature_log_prob_, b.feature_log_prob_, **TIGHT)
    assert_same(a, b, X)
    np.testing.assert_array_equal(a._check_alpha(), alpha)


def test_bernoulli_alpha_per_feature_is_its_own_beta():
    """(n_cj + alpha_j) / (n_c + 2 alpha_j). scikit-learn's BernoulliNB adds the
    per-feature alpha to its class counts (shape (n_classes,)), so it cannot fit this
    case unless there are as many features as classes: a closed form is the reference."""
    X = DATA["BernoulliNB"]
    alpha = np.linspace(0.1, 3.0, X.shape[1])
    a = ours.BernoulliNB(alpha=alpha).fit(X, Y)
    ones = np.stack([X[k == Y].sum(axis=0) for k in range(3)])
    n = np.bincount(Y)[:, None]
    np.testing.assert_allclose(
        a.feature_log_prob_, np.log((ones + alpha) / (n + 2 * alpha)), **TIGHT
    )


@pytest.mark.parametrize("name", DISCRETE)
def test_force_alpha_false_raises_a_tiny_alpha_as_scikit_learn(name):
    X = DATA[name]
    a, b = pair(name, alpha=0.0, force_alpha=False)
    with pytest.warns(UserWarning, match=r"setting alpha = 1\.0e-10"):
        a.fit(X, Y)
    with pytest.warns(UserWarning, match=r"setting alpha = 1\.0e-10"):
        b.fit(X, Y)
    assert_same(a, b, X)


@pytest.mark.parametrize("name", ["BernoulliNB", "MultinomialNB"])
def test_alpha_zero_is_the_unsmoothed_frequencies(name):
    X = DATA[name][:30].copy()
    X[Y[:30] == 0, 0] = 0  # feature 0 never seen in class 0: probability 0
    a, b = pair(name, alpha=0.0)
    with pytest.warns(bnb.ZeroProbabilityWarning):
        a.fit(X, Y[:30])
    with warnings.catch_warnings(), np.errstate(divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        b.fit(X, Y[:30])
    np.testing.assert_array_equal(np.isinf(a.feature_log_prob_), np.isinf(b.feature_log_prob_))
    finite = np.isfinite(b.feature_log_prob_)
    np.testing.assert_allclose(a.feature_log_prob_[finite], b.feature_log_prob_[finite], **TIGHT)
    assert a.fit_.estimates["features"]["X"] == "ml"


def test_update_mean_variance_is_the_pooled_moments():
    rng = np.random.default_rng(3)
    past, new = rng.normal(3.0, 2.0, (50, 3)), rng.normal(-1.0, 0.5, (20, 3))
    w = rng.uniform(0.5, 2.0, 20)
    mu, var = ours.GaussianNB._update_mean_variance(50, past.mean(0), past.var(0), new, w)
    rows = np.vstack([past, new])
    weights = np.concatenate([np.ones(50), w])
    mean = np.average(rows, axis=0, weights=weights)
    np.testing.assert_allclose(mu, mean, rtol=1e-13)
    np.testing.assert_allclose(var, np.average((rows - mean) ** 2, axis=0, weights=weights), 1e-13)
    same = ours.GaussianNB._update_mean_variance(50, past.mean(0), past.var(0), new[:0])
    np.testing.assert_array_equal(same[1], past.var(0))


# -- partial_fit in batches is fit on all the rows, for every class -------------------------

PARTIAL = [
    ("BernoulliNB", {}),
    ("BernoulliNB", {"fit_prior": False, "alpha": 0.3}),
    ("MultinomialNB", {"class_prior": [0.2, 0.3, 0.5]}),
    ("MultinomialNB", {"alpha": np.arange(1.0, 9.0)}),
    ("CategoricalNB", {}),
    ("CategoricalNB", {"fit_prior": False, "min_categories": 6}),
    ("GaussianNB", {}),
    ("GaussianNB", {"priors": [0.5, 0.25, 0.25], "var_smoothing": 1e-2}),
    # the default prior is data-dependent (resolved from the first batch), so MAP's
    # batches are one fit under a declared prior
    ("GaussianNB", {"estimate": "map", "prior": bnb.NormalInverseGamma(0.0, 1.0, 2.0, 2.0)}),
]


@pytest.mark.parametrize(("name", "params"), PARTIAL)
def test_partial_fit_in_batches_is_fit(name, params):
    X = DATA[name]
    batched = getattr(ours, name)(**params)
    for lo, hi in itertools.pairwise([0, 50, 51, 170, N]):
        batched.partial_fit(X[lo:hi], Y[lo:hi], classes=[0, 1, 2])
    once = clone(batched).fit(X, Y)
    np.testing.assert_allclose(batched.predict_proba(X), once.predict_proba(X), **TIGHT)
    np.testing.assert_allclose(batched.class_log_prior_, once.class_log_prior_, **TIGHT)
    np.testing.assert_array_equal(batched.class_count_, once.class_count_)
    if name == "GaussianNB":
        assert batched.epsilon_ == pytest.approx(once.epsilon_, rel=1e-13)
        np.testing.assert_allclose(batched.var_, once.var_, **TIGHT)


def test_bernoulli_nb_leaves_nan_of_a_sparse_x_out_as_of_a_dense_one():
    from scipy import sparse

    # raw values binarized at 0.5; NaN missing. Class 0 sees column 0 in its third row
    # only: under alpha = 1, P(1 | 0) = (1+1)/(1+2) there and (2+1)/(3+2) in column 1;
    # class 1: (1+1)/(3+2) and (1+1)/(3+2); the class prior is the shares, 1/2 each.
    X = np.array([[np.nan, 0.9], [np.nan, 0.1], [0.7, 0.8], [0.2, 0.0], [0.6, 0.3], [0.1, 0.9]])
    y = [0, 0, 0, 1, 1, 1]
    for given in (X, sparse.csr_matrix(X)):
        fit = ours.BernoulliNB(binarize=0.5).fit(given, y)
        np.testing.assert_array_equal(fit.fit_.stats[0]["counts"].sum(-1), [[1, 3], [3, 3]])
        proba = fit.predict_proba(given[:1])  # column 1 alone: 3/5 against 2/5
        np.testing.assert_allclose(proba, [[0.6, 0.4]], **TIGHT)


def test_rows_as_lists_keep_their_types_for_a_classifier_fitted_on_a_frame():
    X = pd.DataFrame({"s": list("uvuvuvuu"), "k": [1, 2, 3, 1, 2, 3, 3, 3]})
    y = ["a", "b", "a", "b", "a", "b", "b", "b"]
    clf = ours.NaiveBayesClassifier().fit(X, y)
    expected = clf.predict_proba(pd.DataFrame({"s": ["u", "v"], "k": [3, 1]}))
    # by hand: a has s = u u u, k = 1 3 2; b has s = v v v u u... (Dirichlet(1) means)
    counts = {
        "a": (3, {"u": 3, "v": 0}, {1: 1, 2: 1, 3: 1}),
        "b": (5, {"u": 2, "v": 3}, {1: 1, 2: 1, 3: 3}),
    }
    by_hand = []
    for s, k in (("u", 3), ("v", 1)):
        row = [
            (n + 1) / 10 * (cs[s] + 1) / (n + 2) * (ck[k] + 1) / (n + 3)
            for n, cs, ck in counts.values()
        ]
        by_hand.append(np.array(row) / sum(row))
    np.testing.assert_allclose(expected, by_hand, **TIGHT)
    with pytest.warns(UserWarning, match="does not have valid feature names"):  # as an array
        np.testing.assert_allclose(clf.predict_proba([["u", 3], ("v", 1)]), by_hand, **TIGHT)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (
            lambda: ours.CategoricalNB().fit(
                pd.DataFrame({"u": pd.Categorical(list("xyxy"))}),
                [0, 1, 0, 1],
            ),
            r"CategoricalNB needs numbers in X .* such as 'x'.*OrdinalEncoder",
        ),
        (
            lambda: ours.CategoricalNB().fit(np.array([[1.0], [1e19], [2.0], [0.0]]), [0, 1, 0, 1]),
            r"category code 1e\+19; its codes 0 \.\. 1e\+19 would be more than 1048576",
        ),
        (
            lambda: ours.CategoricalNB(min_categories=10**19).fit(np.array([[0], [1]]), [0, 1]),
            r"min_categories asks for up to 10000000000000000000 categories, more than 1048576",
        ),
        (
            lambda: ours.CategoricalNB(min_categories=2**40).fit(np.array([[0], [1]]), [0, 1]),
            r"min_categories asks for up to 1099511627776 categories",
        ),
    ],
)
def test_categorical_nb_refuses_what_is_no_category_code_naming_it(make, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow in a cast on the way
        with pytest.raises(bnb.errors.InputError, match=match):
            make()


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_gaussian_nb_names_the_frames_column_it_cannot_fit(scale):
    X = pd.DataFrame({"height": np.random.default_rng(0).normal(size=20) * scale})
    with pytest.raises(bnb.errors.InputError, match=r"feature 'X' .*column 'height'"):
        ours.GaussianNB().fit(X, [0, 1] * 10)


@pytest.mark.parametrize("name", ["GaussianNB", "BernoulliNB", "MultinomialNB", "CategoricalNB"])
def test_a_single_number_as_sample_weight_weighs_every_row_as_scikit_learn_does(name):
    X = DATA[name]
    a, b = pair(name)
    a.fit(X, Y, sample_weight=2.5)
    b.fit(X, Y, sample_weight=2.5)
    np.testing.assert_allclose(a.class_count_, b.class_count_, **TIGHT)
    np.testing.assert_allclose(a.class_count_, 2.5 * np.bincount(Y), **TIGHT)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["GaussianNB", "BernoulliNB", "MultinomialNB", "CategoricalNB"])
def test_a_frame_fits_and_updates_as_scikit_learn_does(name):
    X = pd.DataFrame(DATA[name], columns=[f"c{j}" for j in range(DATA[name].shape[1])])
    a, b = pair(name)
    half = N // 2
    a.partial_fit(X.iloc[:half], Y[:half], classes=[0, 1, 2])
    b.partial_fit(X.iloc[:half], Y[:half], classes=[0, 1, 2])
    a.partial_fit(X.iloc[half:], Y[half:])
    b.partial_fit(X.iloc[half:], Y[half:])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-7, atol=1e-12)
    assert a.fit_.feature_names == list(X.columns)  # the frame's names, in its messages too
    a.fit(X, Y)
    b.fit(X, Y)
    assert_same(a, b, X)
