"""The k-means start of the mixture (init="kmeans", the default, and "k-means++"): the
rows' features each family gives k-means, the start's responsibilities against
scikit-learn's KMeans from the same seed, and the default fit against scikit-learn's
GaussianMixture."""

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.mixture import GaussianMixture

import bayesnb as bnb
from bayesnb import mixture
from bayesnb._data import Table


def bound(family, X):
    table = Table(X)
    return bnb.NaiveBayes(family).bind(table)[0], table


def test_gaussian_seed_features_are_standardized_columns():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [np.nan, 5.0], [5.0, 5.0]])
    block, table = bound(bnb.Gaussian(), X)
    z = block.seed_features(table.take(block.columns))
    # column 0: mean 3, sd sqrt(8/3) over the observed values; the missing one at 0;
    # column 1 is constant: centred only
    np.testing.assert_allclose(z[:, 0], [-2, 0, 0, 2] / np.sqrt(8 / 3), rtol=1e-15)
    np.testing.assert_array_equal(z[:, 1], 0.0)


def test_gaussian_seed_features_without_a_missing_value():
    """No value missing: each column minus its mean over its standard deviation (a
    constant column centred only), and an infinite value still a clear error."""
    X = np.array([[1.0, 5.0], [3.0, 5.0], [8.0, 5.0], [4.0, 5.0]])
    block, table = bound(bnb.Gaussian(), X)
    z = block.seed_features(table.take(block.columns))
    # column 0: mean 4, population variance (9 + 1 + 16 + 0) / 4 = 6.5
    np.testing.assert_allclose(z[:, 0], [-3, -1, 4, 0] / np.sqrt(6.5), rtol=1e-15)
    np.testing.assert_array_equal(z[:, 1], 0.0)
    X[2, 0] = np.inf
    with pytest.raises(bnb.errors.InputError, match="infinite"):
        block.seed_features(X)


def test_bernoulli_seed_features_put_a_missing_value_at_its_column_frequency():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [np.nan, 1.0], [1.0, 1.0]])
    block, table = bound(bnb.Bernoulli(), X)
    z = block.seed_features(table.take(block.columns))
    np.testing.assert_allclose(z, [[1, 0], [0, 1], [2 / 3, 1], [1, 1]])


def test_categorical_seed_features_are_one_hot_over_root_two():
    X = pd.DataFrame({"a": ["x", "y", None, "x"], "b": ["p", "p", "q", "r"]})
    block, table = bound({"c": bnb.Categorical(columns=["a", "b"])}, X)
    z = block.seed_features(table.take(block.columns))
    assert sparse.issparse(z)
    expected = np.array(
        [[1, 0, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 1, 0], [1, 0, 0, 0, 1]]
    ) / np.sqrt(2)
    np.testing.assert_allclose(z.toarray(), expected, rtol=1e-15)
    # rows differing in one value are 1 apart
    assert np.linalg.norm(z.toarray()[0] - z.toarray()[3]) == pytest.approx(1.0)


def test_multinomial_seed_features_are_proportions():
    X = sparse.csr_array(np.array([[2, 0, 2], [0, 0, 0], [1, 3, 0]]))
    block, table = bound(bnb.Multinomial(), X)
    z = block.seed_features(table.take(block.columns))
    np.testing.assert_allclose(z.toarray(), [[0.5, 0, 0.5], [0, 0, 0], [0.25, 0.75, 0]])


def blobs(n=3000, d=4, k=3, seed=5):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 4, (k, d))
    z = rng.integers(0, k, n)
    return centres[z] + rng.normal(size=(n, d)), z


@pytest.mark.parametrize("sampled", [False, True])
def test_the_kmeans_start_is_scikit_learns_kmeans_from_the_same_seed(sampled, monkeypatch):
    X, _ = blobs()
    if sampled:  # more rows than k-means reads: its centres from a sample of them
        monkeypatch.setattr(mixture, "KMEANS_ROWS", 500)
    model = bnb.NaiveBayes(bnb.Gaussian())
    problem = mixture._Problem(model, Table(X), [0, 1, 2], None, None, None, None)
    start = problem.kmeans_weights(np.random.default_rng(11))
    seed = int(np.random.default_rng(11).integers(2**31 - 1))  # the draw it makes
    standardized = (X - X.mean(axis=0)) / X.std(axis=0)
    rows = np.arange(len(X))
    if sampled:
        rows = np.sort(np.random.default_rng(seed).choice(len(X), 500, False))
    kmeans = KMeans(3, init="k-means++", n_init=mixture.KMEANS_INITS, random_state=seed)
    labels = kmeans.fit(standardized[rows]).predict(standardized)
    share = mixture.KMEANS_SHARE
    expected = np.full((3, len(X)), share / 3)
    expected[labels, np.arange(len(X))] += 1 - share
    np.testing.assert_allclose(start, expected, rtol=1e-15)
    np.testing.assert_allclose(start.sum(axis=0), 1.0, rtol=1e-15)


def test_the_default_start_finds_the_clusters_and_scikit_learns_optimum():
    X, z = blobs()
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 3, random_state=0)
    assert len(fit.restarts) == 5 and fit.init == "'kmeans'" and fit.converged  # small X
    assert fit.n_iter <= 10
    found = fit.responsibilities.argmax(axis=1)
    assert pd.crosstab(found, z).to_numpy().max(axis=0).sum() >= 0.999 * len(z)
    theirs = GaussianMixture(3, covariance_type="diag", random_state=0).fit(X)
    # the same optimum: the same partition; the default is MAP-EM, whose prior pulls
    # the log-likelihood a little below the maximum; maximum likelihood from the same
    # start reaches at least scikit-learn's (which adds reg_covar to its variances)
    assert pd.crosstab(found, theirs.predict(X)).to_numpy().max(axis=0).sum() == len(z)
    assert np.mean(fit.log_likelihood_rows(X)) == pytest.approx(theirs.score(X), abs=2e-3)
    ml = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 3, random_state=0, estimate="ml")
    assert np.mean(ml.log_likelihood_rows(X)) >= theirs.score(X)


@pytest.mark.parametrize("init", ["kmeans", "k-means++", "random"])
def test_every_random_start_restarts_n_init_times(init, monkeypatch):
    X, _ = blobs(n=300)
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 3, init=init, n_init=3, random_state=1)
    assert len(fit.restarts) == 3
    # by default 5 restarts where they are cheap (X of at most 10^6 entries) ...
    default = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 3, init=init, random_state=1)
    assert len(default.restarts) == 5
    # ... and one k-means start beyond (X here counts as large)
    monkeypatch.setattr(mixture, "AUTO_RESTART_ENTRIES", X.size - 1)
    large = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 3, init=init, random_state=1)
    assert len(large.restarts) == (5 if init == "random" else 1)


def test_a_kmeans_start_with_fewer_distinct_rows_than_components_fits():
    X = np.repeat([[0.0, 1.0], [5.0, 2.0]], 10, axis=0)  # two distinct rows, K = 3
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 3, random_state=0)
    assert fit.converged
    assert np.isfinite(fit.objective)


def test_a_given_start_runs_once_by_default():
    """A deterministic start (responsibilities, parameters, "uniform") has nothing to
    restart from: n_init defaults to 1 there, where asking for more is an error."""
    X, _ = blobs(n=200)
    start = np.full((200, 3), 1 / 3)
    start[np.arange(200), np.arange(200) % 3] += 0.5
    start /= start.sum(axis=1, keepdims=True)
    fit = bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 3, init=start)
    assert len(fit.restarts) == 1
    with pytest.raises(ValueError, match="n_init=2 restarts need random starts"):
        bnb.NaiveBayes(bnb.Gaussian()).cluster(X, 3, init=start, n_init=2)
