"""The scikit-learn estimators: the estimator contract (scikit-learn's own checks),
Pipeline / GridSearchCV / cross_val_score, and agreement with the bayesnb fit they wrap."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn import naive_bayes as sknb
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayesnb as bnb
from bayesnb.sklearn import (
    BernoulliNB,
    CategoricalNB,
    GaussianNB,
    MultinomialNB,
    NaiveBayesClassifier,
)

# -- scikit-learn's estimator checks ---------------------------------------------------------

CHECKED = [
    NaiveBayesClassifier(),
    NaiveBayesClassifier(estimate="map"),
    NaiveBayesClassifier(estimate="predictive"),
    BernoulliNB(),
    CategoricalNB(),
    GaussianNB(),
    GaussianNB(estimate="map"),
    MultinomialNB(),
    MultinomialNB(estimate="predictive"),
]


# The checks fit integer data (inferred Categorical) and classes whose rows all have
# weight 0. With estimate "map" under Dirichlet(1) or "ml", some probabilities are then 0
# and bayesnb warns (ZeroProbabilityWarning) by design; the suite's filterwarnings=error
# would turn that documented warning into a failure of an API check. The warning itself
# is tested in test_zero_weight_class_warns_and_is_never_predicted.
@pytest.mark.filterwarnings("ignore::bayesnb.ZeroProbabilityWarning")
@parametrize_with_checks(CHECKED)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# -- data ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.fixture(scope="module")
def votes():
    return bnb.datasets.house_votes_84()


@pytest.fixture(scope="module")
def sms():
    df = bnb.datasets.sms_spam()
    return df["text"].iloc[:1500].to_numpy(), df["label"].iloc[:1500].to_numpy()


# -- the wrapper is the bayesnb fit ----------------------------------------------------------


def test_predict_proba_is_the_wrapped_fit(votes):
    X, y = votes.drop(columns="party"), votes["party"]
    clf = NaiveBayesClassifier(estimate="mean").fit(X, y)
    direct = bnb.NaiveBayes().fit(X, y, estimate="mean")
    assert list(clf.classes_) == direct.labels == ["democrat", "republican"]
    np.testing.assert_allclose(clf.predict_proba(X), clf.fit_.predict_proba(X), rtol=0, atol=0)
    np.testing.assert_allclose(clf.predict_proba(X), direct.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(clf.predict_log_proba(X), direct.predict_log_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(clf.predict(X), direct.predict(X))
    assert clf.score(X, y) == pytest.approx(np.mean(direct.predict(X) == y.to_numpy()))
    # the missing votes (NaN) are marginalized, not imputed
    assert X.isna().to_numpy().sum() == 392
    assert clf.n_features_in_ == 16
    assert list(clf.feature_names_in_) == list(X.columns)


@pytest.mark.parametrize(
    ("ours", "theirs", "make_X"),
    [
        (BernoulliNB(alpha=0.5), sknb.BernoulliNB(alpha=0.5), lambda r: r.normal(size=(60, 5))),
        (MultinomialNB(alpha=2.0), sknb.MultinomialNB(alpha=2.0), lambda r: r.poisson(2, (60, 7))),
        (
            CategoricalNB(alpha=0.7),
            sknb.CategoricalNB(alpha=0.7),
            lambda r: r.integers(0, 4, (60, 3)),
        ),
        (GaussianNB(), sknb.GaussianNB(), lambda r: r.normal(size=(60, 4))),
    ],
)
def test_defaults_are_scikit_learn_defaults(ours, theirs, make_X):
    """alpha is the symmetric Dirichlet concentration, estimate='mean' the smoothing and
    class_estimate='ml' the class frequencies (scikit-learn's fit_prior=True)."""
    rng = np.random.default_rng(3)
    X, y = make_X(rng), rng.integers(0, 3, 60)
    np.testing.assert_allclose(
        ours.fit(X, y).predict_proba(X), theirs.fit(X, y).predict_proba(X), rtol=1e-9
    )


def test_categorical_nb_domain_is_zero_to_max_or_min_categories():
    X = np.array([[0, 1], [2, 1], [0, 0], [1, 0]])
    y = np.array([0, 0, 1, 1])
    fit = CategoricalNB(alpha=1.0).fit(X, y).fit_
    # class 0 saw x0 = 0 and 2 among {0, 1, 2}: (1+1, 0+1, 1+1) / (2+3)
    np.testing.assert_allclose(fit.params["x0"].sel(class_label=0).values, [0.4, 0.2, 0.4])
    wide = CategoricalNB(alpha=1.0, min_categories=[5, 2]).fit(X, y).fit_
    np.testing.assert_allclose(
        wide.params["x0"].sel(class_label=0).values, [2 / 7, 1 / 7, 2 / 7, 1 / 7, 1 / 7]
    )
    # a code beyond the domain at prediction is skipped like a missing value
    clf = CategoricalNB().fit(X, y)
    np.testing.assert_allclose(clf.predict_proba([[9, 1]]), clf.predict_proba([[np.nan, 1]]))


def test_bernoulli_nb_binarizes_dense_and_sparse_alike():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 6)) * (rng.random((40, 6)) < 0.5)
    y = rng.integers(0, 2, 40)
    dense = BernoulliNB(binarize=0.3).fit(X, y)
    spars = BernoulliNB(binarize=0.3).fit(sparse.csr_array(X), y)
    ready = BernoulliNB(binarize=None).fit((X > 0.3).astype(int), y)
    np.testing.assert_allclose(dense.predict_proba(X), spars.predict_proba(sparse.csr_matrix(X)))
    np.testing.assert_allclose(dense.predict_proba(X), ready.predict_proba((X > 0.3).astype(int)))
    with pytest.raises(ValueError, match=r"binarize=-1 .* sparse"):
        BernoulliNB(binarize=-1).fit(sparse.csr_array(X), y)


# -- Pipeline, GridSearchCV, cross_val_score -------------------------------------------------


def test_pipeline_gaussian_ml_is_invariant_to_standard_scaling(iris):
    X, y = iris
    pipe = make_pipeline(StandardScaler(), GaussianNB(var_smoothing=0.0)).fit(X, y)
    bare = GaussianNB(var_smoothing=0.0).fit(X, y)
    # ML Gaussian naive Bayes is equivariant under per-feature affine maps, so the
    # posterior is unchanged by the scaler (without var_smoothing's floor, a fraction
    # of the largest column variance, which the scaler changes)
    np.testing.assert_allclose(pipe.predict_proba(X), bare.predict_proba(X), rtol=1e-9, atol=1e-12)
    assert pipe.score(X, y) == bare.score(X, y) == pytest.approx(0.96)


def test_pipeline_text(sms):
    text, label = sms
    pipe = make_pipeline(CountVectorizer(), MultinomialNB()).fit(text, label)
    counts = CountVectorizer().fit(text)
    manual = bnb.NaiveBayes(bnb.Multinomial()).fit(
        counts.transform(text), label, estimate="mean", class_estimate="ml"
    )
    np.testing.assert_allclose(
        pipe.predict_proba(text[:50]), manual.predict_proba(counts.transform(text[:50])), rtol=1e-10
    )
    assert pipe.named_steps["multinomialnb"].fit_.counts["X"].shape == (2, len(counts.vocabulary_))


def test_grid_search_picks_estimate_and_its_score_is_cross_val_score(sms):
    text, label = sms
    X = CountVectorizer(min_df=2).fit_transform(text)
    cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
    grid = {"alpha": [0.01, 0.3, 3.0], "estimate": ["mean", "predictive"]}
    search = GridSearchCV(MultinomialNB(), grid, cv=cv).fit(X, label)
    assert search.best_params_["alpha"] in grid["alpha"]
    assert search.best_params_["estimate"] in grid["estimate"]
    for params, score in zip(
        search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
    ):
        hand = cross_val_score(MultinomialNB(**params), X, label, cv=cv).mean()
        assert score == pytest.approx(hand, abs=1e-15)
    scores = search.cv_results_["mean_test_score"]
    assert search.best_score_ == scores.max()
    assert len(set(np.round(scores, 12))) > 1  # the grid matters: not a tie everywhere
    # the refit estimator is a fresh fit with the chosen parameters on all the data
    best = MultinomialNB(**search.best_params_).fit(X, label)
    np.testing.assert_allclose(search.predict_proba(X[:20]), best.predict_proba(X[:20]))


def test_grid_search_over_gaussian_estimates(iris):
    X, y = iris
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=1)
    search = GridSearchCV(
        GaussianNB(), {"estimate": ["ml", "map", "mean", "predictive"]}, cv=cv
    ).fit(X, y)
    hand = cross_val_score(GaussianNB(estimate=search.best_params_["estimate"]), X, y, cv=cv)
    assert search.best_score_ == pytest.approx(hand.mean(), abs=1e-15)
    assert search.best_score_ > 0.9


def test_cross_val_score_on_a_dataframe_with_missing_values_is_the_manual_loop(votes):
    X, y = votes.drop(columns="party"), votes["party"]
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=2)
    scores = cross_val_score(NaiveBayesClassifier(estimate="mean"), X, y, cv=cv)
    manual = []
    for train, test in cv.split(X, y):
        fit = bnb.NaiveBayes().fit(X.iloc[train], y.iloc[train], estimate="mean")
        manual.append(np.mean(fit.predict(X.iloc[test]) == y.iloc[test].to_numpy()))
    np.testing.assert_allclose(scores, manual, rtol=0, atol=0)
    assert scores.mean() > 0.85


# -- the estimator contract -------------------------------------------------------------


def test_fit_does_not_touch_the_declaration():
    declaration = {"a": bnb.Gaussian(), "b": bnb.Categorical()}
    clf = NaiveBayesClassifier(features=declaration, estimate="mean")
    df = pd.DataFrame({"a": [0.1, 0.5, 2.0, 2.2], "b": ["u", "v", "v", "w"]})
    clf.fit(df, [0, 0, 1, 1])
    assert clf.features is declaration
    assert declaration["a"].prior.mu is None and declaration["a"].name is None
    assert declaration["b"].categories is None and declaration["b"].name is None
    assert clf.get_params()["features"] is declaration
    # the bound copies learned the data
    bound = {b.name: b for b in clf.fit_.blocks}
    assert bound["b"].categories == ["u", "v", "w"]
    assert clone(clf).features is not declaration


def test_frame_fit_then_array_predict_uses_the_columns_in_order():
    df = pd.DataFrame({"h": [1.0, 1.2, 3.0, 3.1], "c": ["x", "y", "y", "y"]})
    y = ["lo", "lo", "hi", "hi"]
    clf = NaiveBayesClassifier(estimate="mean").fit(df, y)
    with pytest.warns(UserWarning, match="valid feature names"):
        from_array = clf.predict_proba(df.to_numpy())
    np.testing.assert_allclose(from_array, clf.predict_proba(df))
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(df[["c", "h"]])


def test_sample_weight_is_repetition_also_for_the_pooled_gaussian_prior():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(12, 3)), np.arange(12) % 3
    w = np.array([0, 1, 2, 3, 1, 1, 2, 0, 4, 1, 2, 1])
    weighted = NaiveBayesClassifier().fit(X, y, sample_weight=w)
    repeated = NaiveBayesClassifier().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-10)
    # the default Normal-Inverse-Gamma prior is centred on every class's weighted mean
    prior = weighted.fit_.blocks[0].prior
    for k in range(3):
        np.testing.assert_allclose(prior.mu[k], np.average(X[y == k], axis=0, weights=w[y == k]))


def test_zero_weight_class_is_never_predicted_and_fits_quietly_as_in_scikit_learn():
    """fit_prior=True gives a class with no weight probability 0; scikit-learn allows it
    without a warning (a class of partial_fit's classes not seen yet), and so do the
    drop-ins, while bayesnb's own fit warns (test_naive_bayes)."""
    rng = np.random.default_rng(1)
    X, y = rng.random((10, 4)), np.arange(10) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = BernoulliNB().fit(X, y, sample_weight=y)
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    np.testing.assert_array_equal(clf.predict(X), np.ones(10))
    np.testing.assert_allclose(clf.predict_proba(X)[:, 0], 0.0)


def test_pickle_round_trip(votes):
    X, y = votes.drop(columns="party"), votes["party"]
    clf = NaiveBayesClassifier(estimate="mean").fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))


# -- errors -------------------------------------------------------------------------------


def test_clear_errors():
    X, y = np.array([[1, 0], [0, 2], [3, 1]]), [0, 1, 1]
    with pytest.raises(ValueError, match="Negative values in data passed to MultinomialNB"):
        MultinomialNB().fit(-np.asarray(X), y)
    with pytest.raises(ValueError, match="Negative values in data passed to CategoricalNB"):
        CategoricalNB().fit(-np.asarray(X), y)
    with pytest.raises(ValueError, match="'alpha' parameter of MultinomialNB must be a finite"):
        MultinomialNB(alpha=-1.0).fit(X, y)
    with pytest.raises(TypeError, match="'alpha' parameter of CategoricalNB must be a number"):
        CategoricalNB(alpha=[1.0, 2.0]).fit(X, y)
    with pytest.raises(ValueError, match="zero entries next to positive ones"):
        MultinomialNB(alpha=[0.0, 1.0]).fit(X, y)
    with pytest.raises(ValueError, match="alpha=0 is no prior, so estimate='map'"):
        MultinomialNB(alpha=0.0, estimate="map").fit(X, y)
    with pytest.raises(ValueError, match="estimate must be one of"):
        MultinomialNB(estimate="mode").fit(X, y)
    with pytest.raises(ValueError, match="The sum of the priors should be 1"):
        MultinomialNB(class_prior=[0.5, 0.6]).fit(X, y)
    with pytest.raises(ValueError, match="fit_prior=False fixes uniform class probabilities"):
        MultinomialNB(class_prior=bnb.Dirichlet(2.0), fit_prior=False).fit(X, y)
    with pytest.raises(TypeError, match="fit_prior must be True or False"):
        MultinomialNB(fit_prior="no").fit(X, y)
    with pytest.raises(ValueError, match=r"both priors=.* and class_prior="):
        GaussianNB(priors=[0.5, 0.5], class_prior=bnb.Dirichlet(1.0)).fit(X, y)
    with pytest.raises(ValueError, match="var_smoothing must be a finite number >= 0"):
        GaussianNB(var_smoothing=-1e-9).fit(X, y)
    with pytest.raises(ValueError, match=r"'min_categories' should have shape \(2,\)"):
        CategoricalNB(min_categories=[2, 2, 2]).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight is zero for every row"):
        GaussianNB(estimate="map").fit(X, y, sample_weight=[0, 0, 0])
    with pytest.raises(ValueError, match="1 sample"):
        GaussianNB().fit([[1.0, 2.0]], [0])
    with pytest.raises(ValueError, match="Unknown label type"):
        GaussianNB().fit(np.ones((3, 1)), [0.5, 1.5, 2.25])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GaussianNB(estimate="map").fit([[1.0, 2.0]], [0])  # the prior makes one sample enough


# -- where bayesnb differs from scikit-learn (docs/guide/sklearn.md, "What differs") ---------


def test_nan_is_marginalized_except_by_multinomial_nb_which_raises_as_scikit_learn():
    X = np.array([[1.0, np.nan], [1.0, 1.0], [0.0, 0.0], [0.0, 1.0]])
    y = ["a", "a", "b", "b"]
    # class a observes x2 once (a 1): (1 + 1)/(1 + 2) = 2/3; x1 twice (1s): 3/4
    prob = np.exp(BernoulliNB(alpha=1.0).fit(X, y).feature_log_prob_)
    np.testing.assert_allclose(prob[0], [3 / 4, 2 / 3], rtol=1e-12)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        sknb.BernoulliNB().fit(X, y)
    for theirs in (MultinomialNB(), sknb.MultinomialNB()):
        with pytest.raises(ValueError, match="Input X contains NaN"):
            theirs.fit(X, y)


def test_alpha_with_zeros_next_to_positive_ones_needs_force_alpha_false():
    """scikit-learn keeps alpha = 0 entries under force_alpha=True; the Dirichlet prior
    cannot, so bayesnb refuses with the remedy, and under force_alpha=False (zeros
    raised to 1e-10) gives scikit-learn's numbers."""
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 4, size=(10, 6)), np.repeat([0, 1], 5)
    alpha = np.r_[0.0, np.ones(5)]
    sknb.MultinomialNB(alpha=alpha).fit(X, y)  # scikit-learn fits it
    with pytest.raises(bnb.InputError, match=r"zero entries next to positive ones.*force_alpha"):
        MultinomialNB(alpha=alpha).fit(X, y)
    with pytest.warns(UserWarning, match="alpha too small"):
        ours = MultinomialNB(alpha=alpha, force_alpha=False).fit(X, y)
    with pytest.warns(UserWarning, match="alpha too small"):
        theirs = sknb.MultinomialNB(alpha=alpha, force_alpha=False).fit(X, y)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-9)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)


def test_bernoulli_nb_binarize_none_needs_zeros_and_ones():
    """scikit-learn takes counts above 1 as weights (probabilities above 1, NaN
    predictions); bayesnb refuses them. On 0/1 data both give the same numbers."""
    X = np.array([[3, 0], [1, 1], [0, 2], [0, 0]])
    y = [0, 0, 1, 1]
    theirs = sknb.BernoulliNB(binarize=None).fit(X, y)
    assert np.exp(theirs.feature_log_prob_[0, 0]) == pytest.approx((4 + 1) / (2 + 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log(1 - 5/4)
        assert np.isnan(theirs.predict_proba(X)).all()
    with pytest.raises(bnb.InputError, match=r"needs 0/1 values.*a value other than 0/1, 3"):
        BernoulliNB(binarize=None).fit(X, y)
    binary = (X > 0).astype(int)
    ours = BernoulliNB(binarize=None).fit(binary, y).predict_proba(binary)
    np.testing.assert_allclose(
        ours, sknb.BernoulliNB(binarize=None).fit(binary, y).predict_proba(binary), rtol=1e-12
    )


@pytest.mark.parametrize("dtype", [np.float16, np.float32, bool])
def test_categorical_nb_takes_float_and_boolean_codes_as_scikit_learn(dtype):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2 if dtype is bool else 4, size=(40, 3)).astype(dtype)
    y = np.repeat([0, 1], 20)
    ours = CategoricalNB().fit(X, y).predict_proba(X)
    theirs = sknb.CategoricalNB().fit(X, y).predict_proba(X)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)


def test_calibrated_classifier_cv_is_scikit_learns(iris):
    from sklearn.calibration import CalibratedClassifierCV

    X, y = iris
    ours = CalibratedClassifierCV(GaussianNB(), cv=3).fit(X, y)
    theirs = CalibratedClassifierCV(sknb.GaussianNB(), cv=3).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9)
