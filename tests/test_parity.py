"""Parity with scikit-learn (same smoothing, class priors set equal) and the exact
marginalization of missing votes."""

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets as skdata
from sklearn import naive_bayes as sknb

import bayesnb as bnb

TOL = 1e-10


@pytest.fixture(scope="module")
def votes():
    return bnb.datasets.house_votes_84()


@pytest.fixture(scope="module")
def complete_votes(votes):
    return votes.dropna().reset_index(drop=True)


def vote_matrix(df):
    return (df.drop(columns="party") == "y").astype(int).to_numpy()


@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_categorical_parity_on_complete_votes(complete_votes, alpha):
    assert len(complete_votes) == 232
    fit = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(alpha))).fit(
        complete_votes, target="party", estimate="mean"
    )
    X = vote_matrix(complete_votes)  # n -> 0, y -> 1, the categories' sorted order
    sk = sknb.CategoricalNB(alpha=alpha, class_prior=fit.params["class_prob"].values)
    sk.fit(X, complete_votes.party)
    assert list(sk.classes_) == fit.labels
    for j, name in enumerate(complete_votes.columns.drop("party")):
        ours = np.log(fit.params[name].values)
        np.testing.assert_allclose(ours, sk.feature_log_prob_[j], rtol=0, atol=TOL)
    np.testing.assert_allclose(
        fit.predict_proba(complete_votes.drop(columns="party")),
        sk.predict_proba(X),
        rtol=0,
        atol=TOL,
    )


@pytest.mark.parametrize("alpha", [0.5, 1.0, 3.0])
def test_bernoulli_parity_on_complete_votes(complete_votes, alpha):
    block = bnb.Bernoulli(bnb.Beta(alpha, alpha), columns=[f"V{i}" for i in range(1, 17)])
    fit = bnb.NaiveBayes({"votes": block}).fit(complete_votes, target="party", estimate="mean")
    X = vote_matrix(complete_votes)
    sk = sknb.BernoulliNB(alpha=alpha, class_prior=fit.params["class_prob"].values)
    sk.fit(X, complete_votes.party)
    theta = fit.params["votes"].transpose("class_label", "votes_feature").values
    np.testing.assert_allclose(np.log(theta), sk.feature_log_prob_, rtol=0, atol=TOL)
    np.testing.assert_allclose(
        fit.predict_proba(complete_votes.drop(columns="party")),
        sk.predict_proba(X),
        rtol=0,
        atol=TOL,
    )


def test_bernoulli_parity_on_binarized_digits():
    X, y = skdata.load_digits(return_X_y=True)
    Xb = (X > 7).astype(float)
    fit = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(1, 1))).fit(Xb, y, estimate="mean")
    sk = sknb.BernoulliNB(alpha=1.0, class_prior=fit.params["class_prob"].values).fit(Xb, y)
    theta = fit.params["X"].transpose("class_label", "X_feature").values
    np.testing.assert_allclose(np.log(theta), sk.feature_log_prob_, rtol=0, atol=TOL)
    np.testing.assert_allclose(fit.predict_proba(Xb), sk.predict_proba(Xb), rtol=0, atol=TOL)
    np.testing.assert_array_equal(fit.predict(Xb), sk.predict(Xb))


def test_gaussian_parity_on_iris():
    X, y = skdata.load_iris(return_X_y=True)
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml")
    sk = sknb.GaussianNB(var_smoothing=0.0).fit(X, y)
    # scikit-learn's class prior is the ML one, as is ours under estimate="ml".
    np.testing.assert_allclose(fit.params["class_prob"].values, sk.class_prior_, atol=1e-15)
    np.testing.assert_allclose(fit.params["X_mu"].values, sk.theta_, rtol=1e-13)
    np.testing.assert_allclose(fit.params["X_var"].values, sk.var_, rtol=1e-11)
    np.testing.assert_allclose(fit.predict_proba(X), sk.predict_proba(X), rtol=0, atol=TOL)
    # Log-probabilities agree to 1e-9 in absolute terms (a relative error on the
    # probabilities), down to the smallest ones (about e^-60).
    np.testing.assert_allclose(fit.predict_log_proba(X), sk.predict_log_proba(X), rtol=0, atol=1e-9)


def test_multinomial_parity_dense_and_sparse():
    from scipy import sparse

    rng = np.random.default_rng(0)
    X = rng.poisson(rng.gamma(0.3, 2.0, size=(1, 40)), size=(300, 40))
    y = rng.integers(0, 3, 300)
    for data in (X, sparse.csr_array(X)):
        fit = bnb.NaiveBayes(bnb.Multinomial(bnb.Dirichlet(0.7))).fit(data, y, estimate="mean")
        sk = sknb.MultinomialNB(alpha=0.7, class_prior=fit.params["class_prob"].values)
        sk.fit(X, y)
        np.testing.assert_allclose(
            np.log(fit.params["X"].values), sk.feature_log_prob_, rtol=0, atol=TOL
        )
        np.testing.assert_allclose(fit.predict_proba(data), sk.predict_proba(X), atol=TOL)


# -- missing votes ----------------------------------------------------------------------------


def hand_fit_observed(votes, alpha=1.0):
    """Naive Bayes by hand on the observed entries: counts skip missing votes, and the
    likelihood of a row multiplies only the factors of its observed votes."""
    labels = sorted(votes.party.unique())
    features = [c for c in votes.columns if c != "party"]
    prior = {c: (votes.party == c).mean() for c in labels}
    theta = {}
    for c in labels:
        rows = votes[votes.party == c]
        for f in features:
            seen = rows[f].dropna()
            theta[c, f] = ((seen == "y").sum() + alpha) / (len(seen) + 2 * alpha)
    joint = np.zeros((len(votes), len(labels)))
    for k, c in enumerate(labels):
        joint[:, k] = np.log(prior[c])
        for f in features:
            vote = votes[f]
            term = np.where(vote == "y", np.log(theta[c, f]), np.log(1 - theta[c, f]))
            joint[:, k] += np.where(vote.isna(), 0.0, term)
    return labels, theta, joint


def test_missing_votes_are_marginalized_exactly(votes):
    assert len(votes) == 435 and votes.isna().sum().sum() == 392
    fit = bnb.NaiveBayes(bnb.Bernoulli(bnb.Beta(1, 1))).fit(
        votes, target="party", estimate="mean", class_estimate="ml"
    )
    labels, theta, joint = hand_fit_observed(votes)
    assert fit.labels == labels
    for (c, f), value in theta.items():
        assert fit.params[f].sel(class_label=c).item() == pytest.approx(value, rel=1e-13)
    X = votes.drop(columns="party")
    ours = fit.joint_log_likelihood(X)
    assert ours.shape == (435, 2)  # no row dropped
    np.testing.assert_allclose(ours, joint, rtol=1e-12)
    expected = np.exp(joint - np.logaddexp(joint[:, :1], joint[:, 1:]))
    np.testing.assert_allclose(fit.predict_proba(X), expected, rtol=1e-12)
    assert len(fit.predict(X)) == 435


def test_missing_votes_as_categorical_and_block_agree(votes):
    features = [f"V{i}" for i in range(1, 17)]
    per_column = bnb.NaiveBayes(bnb.Categorical()).fit(votes, target="party", estimate="mean")
    block = bnb.NaiveBayes({"votes": bnb.Bernoulli(columns=features)}).fit(
        votes, target="party", estimate="mean"
    )
    X = votes.drop(columns="party")
    np.testing.assert_allclose(per_column.predict_proba(X), block.predict_proba(X), rtol=1e-12)


def test_row_with_every_vote_missing_gets_the_class_prior(votes):
    fit = bnb.NaiveBayes(bnb.Bernoulli()).fit(votes, target="party", estimate="mean")
    empty = pd.DataFrame([[np.nan] * 16], columns=votes.columns.drop("party"), dtype=object)
    np.testing.assert_allclose(
        fit.predict_proba(empty)[0], fit.params["class_prob"].values, rtol=1e-15
    )
