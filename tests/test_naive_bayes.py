"""The classifier through its public API: mixed families, missing and unseen values,
dtype inference, persistence and input errors."""

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import sparse, stats

import bayesnb as bnb


@pytest.fixture
def mixed():
    rng = np.random.default_rng(7)
    n = 200
    y = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    shift = pd.Series(y).map({"a": 0.0, "b": 2.0, "c": -1.0}).to_numpy()
    df = pd.DataFrame(
        {
            "color": rng.choice(["red", "green", "blue"], size=n),
            "size": rng.normal(10 + shift, 1.5),
            "windy": rng.random(n) < 0.4 + 0.1 * shift,
            "humidity": rng.uniform(0, 100, size=n),
            "w1": rng.poisson(2 + shift.clip(0), size=n),
            "w2": rng.poisson(3, size=n),
            "label": y,
        }
    )
    features = {
        "color": bnb.Categorical(bnb.Dirichlet(2.0)),
        "size": bnb.Gaussian(),
        "windy": bnb.Bernoulli(bnb.Beta(2, 3)),
        "humidity": bnb.Binned(edges=[0, 70, 85, 100]),
        "words": bnb.Multinomial(bnb.Dirichlet(0.5), columns=["w1", "w2"]),
    }
    return df, features


def hand_joint(df, fit):
    """The joint log-likelihood of a mixed model, computed from the parameters with
    scipy densities and plain indexing."""
    p = fit.params
    out = np.zeros((len(df), len(fit.labels)))
    for k, c in enumerate(fit.labels):
        out[:, k] += np.log(p.class_prob.sel(class_label=c).item())
        table = p.color.sel(class_label=c)
        out[:, k] += np.log(table.sel(color_category=df.color.to_numpy()).values)
        out[:, k] += stats.norm(
            p.size_mu.sel(class_label=c).item(), p.size_sigma.sel(class_label=c).item()
        ).logpdf(df["size"])
        theta = p.windy.sel(class_label=c).item()
        out[:, k] += np.where(df.windy, np.log(theta), np.log1p(-theta))
        bins = np.digitize(df.humidity, [70, 85])
        width = np.array([70.0, 15.0, 15.0])
        out[:, k] += np.log(p.humidity.sel(class_label=c).values[bins] / width[bins])
        words = p.words.sel(class_label=c)
        out[:, k] += df.w1 * np.log(words.sel(words_category="w1").item())
        out[:, k] += df.w2 * np.log(words.sel(words_category="w2").item())
    return out


@pytest.mark.parametrize("estimate", ["map", "mean"])
def test_mixed_families_joint_log_likelihood(mixed, estimate):
    df, features = mixed
    fit = bnb.NaiveBayes(features).fit(df, target="label", estimate=estimate)
    X = df.drop(columns="label")
    np.testing.assert_allclose(fit.joint_log_likelihood(X), hand_joint(X, fit), rtol=1e-11)
    proba = fit.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-14)
    assert fit.labels == ["a", "b", "c"]


def test_mixed_model_params_have_named_dims(mixed):
    df, features = mixed
    p = bnb.NaiveBayes(features).fit(df, target="label").params
    assert isinstance(p, xr.Dataset)
    assert p.color.dims == ("class_label", "color_category")
    assert list(p.color_category.values) == ["blue", "green", "red"]
    assert p.size_mu.dims == ("class_label",)
    assert p.windy.dims == ("class_label",)
    assert p.words.dims == ("class_label", "words_category")
    assert list(p.humidity_lower.values) == [0, 70, 85]
    np.testing.assert_allclose(p.color.sum("color_category"), 1.0)


def test_map_estimates_follow_the_formula(mixed):
    df, features = mixed
    fit = bnb.NaiveBayes(features).fit(df, target="label", estimate="map")
    counts = fit.counts
    n = counts.color.sel(class_label="b")
    expected = (n + 2.0 - 1) / (n.sum() + 3 * 2.0 - 3)
    np.testing.assert_allclose(fit.params.color.sel(class_label="b"), expected, rtol=1e-14)
    # Beta(2, 3) on windy: (m + 2 - 1) / (N + 2 + 3 - 2)
    w = counts.windy.sel(class_label="a").values  # [false, true]
    assert fit.params.windy.sel(class_label="a").item() == pytest.approx((w[1] + 1) / (w.sum() + 3))


def _nig_posterior_by_hand(x, mu0, kappa0, alpha0, beta0):
    """The Normal-Inverse-Gamma update written out: (kappa_n, mu_n, alpha_n, beta_n)."""
    n, xbar = len(x), sum(x) / len(x)
    ss = sum((v - xbar) ** 2 for v in x)
    kappa_n = kappa0 + n
    mu_n = (kappa0 * mu0 + n * xbar) / kappa_n
    alpha_n = alpha0 + n / 2
    beta_n = beta0 + ss / 2 + kappa0 * n * (xbar - mu0) ** 2 / (2 * kappa_n)
    return kappa_n, mu_n, alpha_n, beta_n


def test_gaussian_map_and_mean_match_the_conjugate_posterior():
    x = np.array([1.0, 2.5, 0.3, 4.1, 2.2, 3.3])
    y = np.array([0, 0, 0, 1, 1, 1])
    prior = bnb.NormalInverseGamma(mu=0.0, kappa=0.5, alpha=2.0, beta=1.5)
    # class 0: n = 3, mean 3.8/3, S = 2.52667; class 1: n = 3, mean 3.2, S = 1.82
    # "map" is the joint mode of the Normal-Inverse-Gamma posterior density,
    # (sigma2)^-(alpha_n + 1) e^(-beta_n / sigma2) times the mean's normal
    # (sigma2)^(-1/2) e^(-kappa_n (mu - mu_n)^2 / (2 sigma2)): mu = mu_n and
    # sigma2 = beta_n / (alpha_n + 3/2). "mean" is the posterior means: E[mu] = mu_n
    # and E[sigma2] = beta_n / (alpha_n - 1).
    for estimate in ("map", "mean"):
        fit = bnb.NaiveBayes(bnb.Gaussian(prior)).fit(x[:, None], y, estimate=estimate)
        for label in (0, 1):
            _, mu_n, alpha_n, beta_n = _nig_posterior_by_hand(
                list(x[y == label]), 0.0, 0.5, 2.0, 1.5
            )
            var = beta_n / (alpha_n + 1.5) if estimate == "map" else beta_n / (alpha_n - 1)
            assert fit.params.X_mu.sel(class_label=label).item() == pytest.approx(mu_n, rel=1e-12)
            assert fit.params.X_var.sel(class_label=label).item() == pytest.approx(var, rel=1e-12)
    # the numbers of class 0 by hand: kappa_n = 3.5, mu_n = 3.8/3.5, alpha_n = 3.5,
    # beta_n = 1.5 + 2.52666.../2 + 0.5*3*(3.8/3)**2/7
    fit = bnb.NaiveBayes(bnb.Gaussian(prior)).fit(x[:, None], y, estimate="map")
    beta_n = 1.5 + (2.52666666666666667 / 2) + 0.5 * 3 * (3.8 / 3) ** 2 / 7
    assert fit.params.X_mu.sel(class_label=0).item() == pytest.approx(3.8 / 3.5, rel=1e-12)
    assert fit.params.X_var.sel(class_label=0).item() == pytest.approx(beta_n / 5.0, rel=1e-12)


def test_gaussian_predictive_is_student_t():
    t = bnb.datasets.temperature()
    prior = bnb.NormalInverseGamma(mu=20.0, kappa=1.0, alpha=2.0, beta=10.0)
    fit = bnb.NaiveBayes({"temperature": bnb.Gaussian(prior)}).fit(
        t, target="play", estimate="predictive", class_estimate="ml"
    )
    x = pd.DataFrame({"temperature": [14.0, 22.0, 31.5]})
    joint = fit.joint_log_likelihood(x)
    for k, c in enumerate(fit.labels):
        kappa_n, mu_n, alpha_n, beta_n = _nig_posterior_by_hand(
            list(t.temperature[t.play == c]), 20.0, 1.0, 2.0, 10.0
        )
        # Student-t with 2 alpha_n degrees of freedom, location mu_n and squared scale
        # beta_n (kappa_n + 1) / (alpha_n kappa_n)
        scale = np.sqrt(beta_n * (kappa_n + 1) / (alpha_n * kappa_n))
        predictive = stats.t(df=2 * alpha_n, loc=mu_n, scale=scale)
        expected = predictive.logpdf(x.temperature) + np.log((t.play == c).mean())
        np.testing.assert_allclose(joint[:, k], expected, rtol=1e-12)


def test_binned_density_and_range_error():
    df = pd.DataFrame({"h": [10.0, 75.0, 90.0, 100.0, 50.0], "y": list("aabba")})
    with pytest.warns(bnb.ZeroProbabilityWarning, match="binned feature 'h'"):
        fit = bnb.NaiveBayes({"h": bnb.Binned([0, 70, 85, 100])}).fit(df, target="y", estimate="ml")
    np.testing.assert_allclose(fit.counts.h.sel(class_label="b").values, [0, 0, 2])  # 100 is in
    with pytest.raises(ValueError, match=r"Binned feature 'h' has edges from 0 to 100; got 101"):
        fit.predict(pd.DataFrame({"h": [101.0]}))
    with pytest.raises(ValueError, match="strictly increasing"):
        bnb.Binned([0, 5, 5])


def test_unseen_category_policies():
    train = pd.DataFrame({"c": ["x", "y", "x", "y"], "d": ["u", "u", "v", "v"]})
    y = [0, 1, 0, 1]
    fit = bnb.NaiveBayes().fit(train, y=y, estimate="mean")
    unseen = pd.DataFrame({"c": ["z"], "d": ["u"]})
    missing = pd.DataFrame({"c": [None], "d": ["u"]})
    # "marginalize": an unseen value is skipped, exactly like a missing one.
    np.testing.assert_array_equal(fit.predict_proba(unseen), fit.predict_proba(missing))
    strict = bnb.NaiveBayes({"c": bnb.Categorical(unseen="error"), "d": bnb.Categorical()})
    with pytest.raises(ValueError, match=r"'z', which is not among its categories"):
        strict.fit(train, y=y, estimate="mean").predict(unseen)


def test_declared_category_never_seen_gets_smoothed_probability():
    train = pd.DataFrame({"c": ["x", "y", "x", "x"]})
    model = bnb.NaiveBayes({"c": bnb.Categorical(categories=["x", "y", "z"])})
    fit = model.fit(train, y=[0, 0, 1, 1], estimate="mean")
    assert fit.params.c.sel(class_label=1, c_category="z").item() == pytest.approx(1 / 5)


def test_per_class_asymmetric_prior():
    train = pd.DataFrame({"c": ["x", "y", "x", "x"]})
    alpha = np.array([[1.0, 3.0], [5.0, 1.0]])  # one row per class
    fit = bnb.NaiveBayes({"c": bnb.Categorical(bnb.Dirichlet(alpha))}).fit(
        train, y=[0, 0, 1, 1], estimate="mean"
    )
    np.testing.assert_allclose(fit.params.c.sel(class_label=0), [2 / 6, 4 / 6])
    np.testing.assert_allclose(fit.params.c.sel(class_label=1), [7 / 8, 1 / 8])


def test_dtype_inference():
    df = pd.DataFrame(
        {
            "b": [True, False, True, False],
            "i01": [0, 1, 1, 0],
            "f": [0.5, 1.5, 2.5, 3.0],
            "s": ["p", "q", "p", "r"],
            "cat": pd.Categorical(["u", "v", "u", "v"], categories=["v", "u", "w"]),
            "i": [3, 7, 3, 9],
        }
    )
    fit = bnb.NaiveBayes().fit(df, y=[0, 1, 0, 1], estimate="mean")
    kinds = {b.name: b.kind for b in fit.blocks}
    assert kinds == {
        "b": "bernoulli",
        "i01": "bernoulli",
        "f": "gaussian",
        "s": "categorical",
        "cat": "categorical",
        "i": "categorical",
    }
    # A pandas categorical keeps its declared categories (in their order).
    assert list(fit.params.cat_category.values) == ["v", "u", "w"]


def test_sample_weight_equals_repeated_rows():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = rng.integers(0, 2, 30)
    w = rng.integers(1, 4, 30)
    weighted = bnb.NaiveBayes(bnb.Gaussian()).fit(X, y, estimate="ml", sample_weight=w)
    repeated = bnb.NaiveBayes(bnb.Gaussian()).fit(
        np.repeat(X, w, axis=0), np.repeat(y, w), estimate="ml"
    )
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-10)


def test_sparse_and_dense_bernoulli_agree():
    rng = np.random.default_rng(5)
    X = (rng.random((100, 12)) < 0.2).astype(float)
    y = rng.integers(0, 3, 100)
    dense = bnb.NaiveBayes(bnb.Bernoulli()).fit(X, y, estimate="mean")
    sp = bnb.NaiveBayes(bnb.Bernoulli()).fit(sparse.csr_array(X), y, estimate="mean")
    np.testing.assert_allclose(dense.predict_proba(X), sp.predict_proba(sparse.csr_matrix(X)))


def test_gaussian_missing_values_are_marginalized():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(60, 2))
    y = rng.integers(0, 2, 60)
    X_missing = X.copy()
    X_missing[::5, 1] = np.nan
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(X_missing, y, estimate="ml")
    # The statistics of feature 1 use only its observed entries.
    obs = ~np.isnan(X_missing[:, 1])
    for label in (0, 1):
        rows = obs & (y == label)
        assert fit.params.X_mu.sel(class_label=label, X_feature="x1").item() == pytest.approx(
            X[rows, 1].mean()
        )
        assert fit.params.X_var.sel(class_label=label, X_feature="x1").item() == pytest.approx(
            X[rows, 1].var()
        )
    # A row missing x1 scores like a model of x0 alone (plus the class prior).
    only0 = bnb.NaiveBayes(bnb.Gaussian()).fit(X_missing[:, :1], y, estimate="ml")
    np.testing.assert_allclose(
        fit.predict_proba(X_missing[~obs]), only0.predict_proba(X_missing[~obs, :1]), rtol=1e-12
    )


def test_every_class_ruled_out_is_a_clear_error():
    train = pd.DataFrame({"c": ["x", "y"]})
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = bnb.NaiveBayes({"c": bnb.Categorical(categories=["x", "y", "z"])}).fit(
            train, y=[0, 1], estimate="ml"
        )
    with pytest.raises(ValueError, match="row 0 has likelihood 0 under every class"):
        fit.predict_proba(pd.DataFrame({"c": ["z"]}))


# -- persistence ------------------------------------------------------------------------------


@pytest.mark.parametrize("estimate", ["ml", "map", "mean", "predictive"])
def test_save_load_round_trip_is_exact(mixed, estimate, tmp_path):
    df, features = mixed
    fit = bnb.NaiveBayes(features).fit(df, target="label", estimate=estimate)
    path = tmp_path / "model.nc"
    fit.save(path)
    assert isinstance(xr.open_dataset(path, engine="scipy"), xr.Dataset)
    back = bnb.load(path)
    X = df.drop(columns="label")
    np.testing.assert_array_equal(back.joint_log_likelihood(X), fit.joint_log_likelihood(X))
    xr.testing.assert_identical(back.params, fit.params)
    xr.testing.assert_identical(back.counts, fit.counts)
    assert back.labels == fit.labels


def test_save_load_keeps_votes_and_missing(tmp_path):
    votes = bnb.datasets.house_votes_84()
    fit = bnb.NaiveBayes(bnb.Bernoulli()).fit(votes, target="party", estimate="map")
    fit.save(tmp_path / "votes.nc")
    back = bnb.load(tmp_path / "votes.nc")
    X = votes.drop(columns="party")
    np.testing.assert_array_equal(back.predict_proba(X), fit.predict_proba(X))
    np.testing.assert_array_equal(back.predict(X), fit.predict(X))


# -- input errors -------------------------------------------------------------------------------


def test_errors_name_the_problem():
    df = pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0], "y": [0, 1]})
    with pytest.raises(ValueError, match=r"column\(s\) \['b'\] that no feature declares"):
        bnb.NaiveBayes({"a": bnb.Categorical()}).fit(df, target="y")
    with pytest.raises(ValueError, match="target='z' is not a column"):
        bnb.NaiveBayes().fit(df, target="z")
    with pytest.raises(ValueError, match="missing label"):
        bnb.NaiveBayes().fit(df.drop(columns="y"), y=[0, None])
    with pytest.raises(ValueError, match="pass y= or target="):  # without labels: a density
        bnb.NaiveBayes().fit(df.drop(columns="y"), classes=[0, 1])
    with pytest.raises(TypeError, match="Dirichlet"):
        bnb.NaiveBayes(class_prior=0.5)
    with pytest.raises(ValueError, match="must be one of"):
        bnb.NaiveBayes().fit(df, target="y", estimate="bayes")
    fit = bnb.NaiveBayes().fit(df, target="y", estimate="mean")
    with pytest.raises(ValueError, match=r"lacks the feature column\(s\) \['b'\]"):
        fit.predict(df[["a"]])
    with pytest.raises(ValueError, match="takes 2 values; got 3"):
        bnb.NaiveBayes({"a": bnb.Bernoulli()}).fit(pd.DataFrame({"a": list("pqr")}), y=[0, 1, 0])
    with pytest.raises(ValueError, match="non-negative counts"):
        bnb.NaiveBayes(bnb.Multinomial()).fit(np.array([[1, -1], [2, 0]]), y=[0, 1])
    with pytest.raises(ValueError, match="0/1 values"):
        bnb.NaiveBayes(bnb.Bernoulli()).fit(np.array([[0.5], [1.0]]), y=[0, 1])
    with pytest.raises(ValueError, match="zero variance of Gaussian feature 'X'"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(
            np.array([[1.0], [1.0], [2.0]]), [0, 0, 1], estimate="ml"
        )
    with pytest.raises(ValueError, match="2-D"):
        bnb.NaiveBayes().fit(np.zeros(3), y=[0, 1, 0])


def test_bernoulli_zero_probabilities_rule_out_exactly_the_rows_that_use_them():
    # Feature 0 is always 1 in class 0 and always 0 in class 1 (ML: probabilities 1/0).
    X = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 1]], dtype=float)
    y = [0, 0, 1, 1]
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = bnb.NaiveBayes(bnb.Bernoulli()).fit(X, y, estimate="ml")
    theta = fit.params.X.transpose("class_label", "X_feature").values
    query = np.array([[1, 1, 1], [0, 0, 0], [np.nan, 1, 0]])
    with np.errstate(divide="ignore"):
        expected = np.log(fit.params.class_prob.values) + np.array(
            [
                [
                    np.nansum(np.where(q == 1, np.log(t), np.where(q == 0, np.log1p(-t), 0)))
                    for t in theta
                ]
                for q in query
            ]
        )
    got = fit.joint_log_likelihood(query)
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    np.testing.assert_allclose(got[np.isfinite(got)], expected[np.isfinite(expected)])
    assert not np.isnan(got).any()
    # The same model scored on sparse input gives the same answer (complete rows).
    np.testing.assert_array_equal(fit.joint_log_likelihood(sparse.csr_array(query[:2])), got[:2])


def test_per_class_beta_prior_on_a_block_with_as_many_columns_as_classes():
    # A 2-D concentration is one row per class, even when the block has as many
    # columns as there are classes (the shapes would otherwise be ambiguous).
    X = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 1]], dtype=float)
    y = [0, 0, 0, 1, 1]
    prior = bnb.Dirichlet([[1.0, 3.0], [2.0, 2.0]])  # class 0: Beta(3, 1); class 1: Beta(2, 2)
    fit = bnb.NaiveBayes(bnb.Bernoulli(prior)).fit(X, y, estimate="mean")
    theta = fit.params.X.transpose("class_label", "X_feature").values
    np.testing.assert_allclose(theta[0], [(2 + 3) / (3 + 4), (2 + 3) / (3 + 4)])
    np.testing.assert_allclose(theta[1], [(1 + 2) / (2 + 4), (1 + 2) / (2 + 4)])


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_sparse_counts_are_checked_wherever_they_are_read(bad):
    X = sparse.csr_array(np.array([[1.0, 2.0], [0.0, 3.0], [4.0, 0.0], [1.0, 1.0]]))
    y = [0, 1, 0, 1]
    wrong = X.copy()
    wrong.data[2] = bad
    model = bnb.NaiveBayes(bnb.Multinomial())
    for weights in (None, [1.0, 2.0, 0.5, 1.0]):  # the label loop
        with pytest.raises(ValueError, match="finite non-negative counts"):
            model.fit(wrong, y, sample_weight=weights)
    fit = model.fit(X, y, estimate="mean")
    for predict in (fit.predict, fit.predict_proba, fit.joint_log_likelihood):
        with pytest.raises(ValueError, match="finite non-negative counts"):
            predict(wrong)
    with pytest.raises(ValueError, match="finite non-negative counts"):
        model.cluster(wrong, 2, random_state=0)


@pytest.mark.parametrize("n_classes", [1, 2, 3, 4, 5, 6])
def test_sparse_multinomial_scores_equal_the_dense_product(n_classes):
    """Sparse counts are checked and multiplied in one compiled read for up to four
    rows of log-probabilities (a lone last one included), by scipy beyond: both give
    ``X @ logp.T``, with rows of every length (empty, shorter and longer than four
    entries), and both reject a bad count wherever it lies."""
    rng = np.random.default_rng(8)
    n, V = 300, 40
    lengths = np.arange(n) % 11  # 0..10 entries per row
    X = np.zeros((n, V))
    for i, m in enumerate(lengths):
        X[i, rng.choice(V, m, replace=False)] = rng.integers(1, 5, m)
    y = np.arange(n) % n_classes
    fit = bnb.NaiveBayes(bnb.Multinomial()).fit(X, y, estimate="mean")
    logp = fit.block_params[0]["log_prob"]
    expected = X @ logp.T + fit.class_log_prob
    sparse_X = sparse.csr_array(X)
    np.testing.assert_allclose(fit.joint_log_likelihood(sparse_X), expected, rtol=1e-13)
    scores = fit._posterior_scores(sparse_X)
    np.testing.assert_allclose(scores - scores[:, :1], expected - expected[:, :1], atol=1e-12)
    for where in (0, sparse_X.nnz // 2, sparse_X.nnz - 1):  # first, middle, last entry
        wrong = sparse_X.copy()
        wrong.data[where] = np.nan
        for score in (fit.joint_log_likelihood, fit.predict_proba):
            with pytest.raises(ValueError, match="finite non-negative counts"):
                score(wrong)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_multinomial_posterior_from_differences_equals_the_joint(n_classes):
    """Prediction takes K - 1 products with differences of log-probabilities; the
    posterior is that of the full joint log-likelihood, weighted or not, sparse or
    dense, and with a zero probability (ML) it falls back to the joint itself."""
    from bayesnb.model import normalize

    rng = np.random.default_rng(3)
    K = n_classes
    X = rng.poisson(0.7, size=(200, 30)).astype(float)
    X[:, 5] = 0.0  # never seen: probability 0 under ML
    y = rng.integers(0, n_classes, 200)
    weights = rng.uniform(0.1, 2.0, 200)
    for data in (X, sparse.csr_array(X)):
        for estimate in ("mean", "ml"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)  # ML's column 5
                fit = bnb.NaiveBayes(bnb.Multinomial()).fit(
                    data, y, estimate=estimate, sample_weight=weights
                )
            jll = fit.joint_log_likelihood(data)
            scores = fit._posterior_scores(data)
            if estimate == "mean":  # the joint up to a constant of every row
                np.testing.assert_allclose(
                    scores - scores[:, :1], jll - jll[:, :1], rtol=1e-12, atol=1e-9
                )
            else:  # a log-probability of -inf: the joint itself
                np.testing.assert_array_equal(scores, jll)
            np.testing.assert_allclose(fit.predict_proba(data), normalize(jll), atol=1e-12)
            np.testing.assert_array_equal(fit.predict(data), np.argmax(jll, axis=1))
        # The label loop counts like the one-hot product.
        counts = np.stack([(weights[y == k, None] * X[y == k]).sum(axis=0) for k in range(K)])
        np.testing.assert_allclose(fit.counts["X"].values, counts, rtol=1e-12)


@pytest.mark.parametrize("as_sparse", [False, True])
def test_a_bad_count_is_named_by_row_column_and_value(as_sparse):
    X = np.array([[1.0, 2.0], [0.0, 3.0], [4.0, -1.0]])
    data = sparse.csr_array(X) if as_sparse else X
    with pytest.raises(ValueError, match=r"got -1\.0 at row 2, column 'x1'"):
        bnb.NaiveBayes(bnb.Multinomial()).fit(data, [0, 1, 0])
    fit = bnb.NaiveBayes(bnb.Multinomial()).fit(np.abs(X), [0, 1, 0])
    with pytest.raises(ValueError, match=r"got -1\.0 at row 2, column 'x1'"):
        fit.predict(data)
