"""The exact conjugate posterior: its intervals against scipy's quantiles of the closed-form
marginals, its evidence against numerical integration, its pointwise log-likelihood against
a hand computation, and its DataTree's groups for every family."""

import math

import arviz as az
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import integrate, sparse, stats

import bayesnb as bnb
from bayesnb import errors


def mixed_frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "g": rng.normal(2.0, 1.5, n),
            "c": rng.choice(["a", "b", "c"], n),
            "b": rng.random(n) < 0.3,
            "x": rng.uniform(0.0, 3.0, n),
        }
    )
    df.loc[::7, "g"] = np.nan
    df.loc[::5, "c"] = None
    df["b"] = df["b"].astype(float)
    df.loc[::6, "b"] = np.nan
    y = rng.choice(["u", "v"], n)
    return df, y


NIG = dict(mu=1.0, kappa=0.5, alpha=3.0, beta=2.0)


def mixed_model():
    return bnb.NaiveBayes(
        {
            "g": bnb.Gaussian(bnb.NormalInverseGamma(**NIG)),
            "c": bnb.Categorical(bnb.Dirichlet([1.0, 2.0, 0.5])),
            "b": bnb.Bernoulli(bnb.Beta(2.0, 3.0)),
            "x": bnb.Binned([0.0, 1.0, 2.0, 3.0]),
        },
        class_prior=bnb.Dirichlet([2.0, 1.0]),
    )


@pytest.fixture(scope="module")
def mixed():
    df, y = mixed_frame()
    return df, y, mixed_model().fit(df, y)


def gaussian_posterior(values):
    """The Normal-Inverse-Gamma update of NIG on ``values`` (NaN left out), by hand."""
    v = values[~np.isnan(values)]
    n, mean = len(v), v.mean()
    ss = ((v - mean) ** 2).sum()
    kappa = NIG["kappa"] + n
    mu = (NIG["kappa"] * NIG["mu"] + n * mean) / kappa
    alpha = NIG["alpha"] + n / 2
    beta = NIG["beta"] + ss / 2 + NIG["kappa"] * n * (mean - NIG["mu"]) ** 2 / (2 * kappa)
    return mu, kappa, alpha, beta


# -- exact intervals -----------------------------------------------------------------------


def test_intervals_are_scipy_quantiles_of_the_exact_marginals(mixed):
    df, y, fit = mixed
    prob = 0.9
    ci = fit.credible_interval(prob=prob)
    q = [(1 - prob) / 2, (1 + prob) / 2]
    for label in ["u", "v"]:
        rows = y == label
        # class probabilities: Dirichlet([2, 1]) + counts -> a Beta marginal
        n_u, n_v = (y == "u").sum(), (y == "v").sum()
        a = {"u": 2 + n_u, "v": 1 + n_v}
        expected = stats.beta(a[label], a["u"] + a["v"] - a[label]).ppf(q)
        np.testing.assert_allclose(
            ci["class_prob"].sel(class_label=label).values, expected, rtol=0, atol=1e-12
        )
        # Bernoulli b: Beta(2 + trues, 3 + falses), missing values left out
        b = df["b"][rows]
        ones, zeros = (b == 1).sum(), (b == 0).sum()
        expected = stats.beta(2 + ones, 3 + zeros).ppf(q)
        np.testing.assert_allclose(ci["b"].sel(class_label=label).values, expected, atol=1e-12)
        # Categorical c: Dirichlet([1, 2, .5]) + counts; each coordinate a Beta
        counts = df["c"][rows].value_counts().reindex(["a", "b", "c"], fill_value=0).to_numpy()
        post = np.array([1.0, 2.0, 0.5]) + counts
        for v, cat in enumerate(["a", "b", "c"]):
            expected = stats.beta(post[v], post.sum() - post[v]).ppf(q)
            got = ci["c"].sel(class_label=label, c_category=cat).values
            np.testing.assert_allclose(got, expected, atol=1e-12)
        # Gaussian g: Student-t mean, inverse-gamma variance, its root for sigma
        mu, kappa, alpha, beta = gaussian_posterior(df["g"][rows].to_numpy())
        t = stats.t(2 * alpha, loc=mu, scale=math.sqrt(beta / (alpha * kappa)))
        np.testing.assert_allclose(ci["g_mu"].sel(class_label=label).values, t.ppf(q), atol=1e-12)
        ig = stats.invgamma(alpha, scale=beta)
        np.testing.assert_allclose(ci["g_var"].sel(class_label=label).values, ig.ppf(q), rtol=1e-12)
        np.testing.assert_allclose(
            ci["g_sigma"].sel(class_label=label).values, np.sqrt(ig.ppf(q)), rtol=1e-12
        )
    assert ci["c"].dims == ("class_label", "c_category", "ci_bound")
    assert list(ci["ci_bound"].values) == ["lower", "upper"]
    assert ci.attrs["method"] == "exact conjugate"


def test_default_prob_is_arviz_rcparams():
    from arviz_base import rcParams

    fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
    ci = fit.credible_interval()
    assert ci.attrs["prob"] == rcParams["stats.ci_prob"]
    # PlayTennis: 9 Yes and 5 No under Dirichlet(1): the class probability is Beta(10, 6).
    q = [(1 - rcParams["stats.ci_prob"]) / 2, (1 + rcParams["stats.ci_prob"]) / 2]
    np.testing.assert_allclose(
        ci["class_prob"].sel(class_label="Yes").values, stats.beta(10, 6).ppf(q), atol=1e-12
    )


def test_hdi_is_the_shortest_interval_of_its_mass(mixed):
    _, _, fit = mixed
    prob = 0.8
    hdi = fit.credible_interval(prob=prob, kind="hdi")
    eti = fit.credible_interval(prob=prob, kind="eti")
    # For the Gaussian variance (skewed): equal density at both ends, mass prob, shorter.
    df, y = mixed_frame()
    for label in ["u", "v"]:
        _, _, alpha, beta = gaussian_posterior(df["g"][y == label].to_numpy())
        ig = stats.invgamma(alpha, scale=beta)
        lo, hi = hdi["g_var"].sel(class_label=label).values
        assert ig.cdf(hi) - ig.cdf(lo) == pytest.approx(prob, abs=1e-9)
        assert ig.pdf(lo) == pytest.approx(ig.pdf(hi), rel=1e-6)
        e_lo, e_hi = eti["g_var"].sel(class_label=label).values
        assert hi - lo < e_hi - e_lo
    # A symmetric marginal (Student-t mean): the HDI is the equal-tailed interval.
    np.testing.assert_allclose(hdi["g_mu"].values, eti["g_mu"].values, rtol=1e-7)


def test_hdi_of_a_monotone_density_starts_at_the_boundary():
    # Beta(1, 5) (no success in 4 trials under Beta(1, 1)): density decreasing, so the
    # shortest interval of mass p is [0, ppf(p)].
    games = pd.DataFrame({"win": [False] * 4, "team": "ours"})
    fit = bnb.NaiveBayes({"win": bnb.Bernoulli()}).fit(games, target="team")
    lo, hi = fit.credible_interval(prob=0.9, kind="hdi")["win"].sel(class_label="ours").values
    assert lo == pytest.approx(0.0, abs=1e-12)
    assert hi == pytest.approx(stats.beta(1, 5).ppf(0.9), abs=1e-9)


# -- the evidence against numerical integration ----------------------------------------------


def test_log_evidence_beta_bernoulli_by_quadrature():
    # One feature, two classes, Beta(2, 3) on P(true) and Dirichlet([1.5, 1]) on the classes.
    X = pd.DataFrame({"f": [1, 0, 1, 1, 0, 0, 1, 0, 1]})
    y = ["a", "a", "a", "a", "b", "b", "b", "b", "b"]
    model = bnb.NaiveBayes(
        {"f": bnb.Bernoulli(bnb.Beta(2, 3))}, class_prior=bnb.Dirichlet([1.5, 1])
    )
    fit = model.fit(X, y)

    def beta_integral(ones, zeros, a, b):
        return integrate.quad(
            lambda t: t**ones * (1 - t) ** zeros * stats.beta(a, b).pdf(t), 0, 1, epsabs=0
        )[0]

    classes = beta_integral(4, 5, 1.5, 1)  # P(class a) = pi, 4 rows of a, 5 of b
    a_part = beta_integral(3, 1, 2, 3)  # class a: f = 1, 0, 1, 1
    b_part = beta_integral(2, 3, 2, 3)  # class b: f = 0, 0, 1, 0, 1
    expected = math.log(classes * a_part * b_part)
    assert fit.log_evidence() == pytest.approx(expected, abs=1e-9)


def test_log_evidence_normal_inverse_gamma_by_quadrature():
    x = np.array([0.3, 1.9, 1.2, -0.4, 0.8])
    prior = dict(mu=0.5, kappa=2.0, alpha=2.5, beta=1.5)
    fit = bnb.NaiveBayes({"x": bnb.Gaussian(bnb.NormalInverseGamma(**prior))}).fit(
        pd.DataFrame({"x": x}), ["one"] * len(x)
    )
    a, b, k, m = prior["alpha"], prior["beta"], prior["kappa"], prior["mu"]
    values = x.tolist()

    def integrand(mu, s2):  # prior density times likelihood, written out
        log_ig = a * math.log(b) - math.lgamma(a) - (a + 1) * math.log(s2) - b / s2
        log_mean = -0.5 * math.log(2 * math.pi * s2 / k) - k * (mu - m) ** 2 / (2 * s2)
        log_lik = sum(-0.5 * math.log(2 * math.pi * s2) - (v - mu) ** 2 / (2 * s2) for v in values)
        return math.exp(log_ig + log_mean + log_lik)

    value, _ = integrate.dblquad(integrand, 0, 60, -12, 12, epsabs=1e-14, epsrel=1e-10)
    # One class: the labels' Dirichlet-multinomial is 1 (log 0).
    assert fit.log_evidence() == pytest.approx(math.log(value), abs=1e-7)


def test_log_evidence_of_a_binned_feature_is_a_density():
    # Bins of width 0.5 and 2: the evidence of values is that of their bins less
    # count * log(width), so rescaling the edges (and the values) by 10 moves it by
    # -n * log(10).
    x = np.array([0.1, 0.2, 0.7, 1.9, 2.4, 0.4])
    edges = np.array([0.0, 0.5, 2.5])
    y = ["k"] * len(x)
    small = bnb.NaiveBayes({"x": bnb.Binned(edges)}).fit(pd.DataFrame({"x": x}), y)
    large = bnb.NaiveBayes({"x": bnb.Binned(edges * 10)}).fit(pd.DataFrame({"x": x * 10}), y)
    assert large.log_evidence() - small.log_evidence() == pytest.approx(-6 * math.log(10))
    # Bin counts (3, 3) under Dirichlet(1, 1): 3! 3! / 7! ; widths 0.5 (3 rows) and 2 (3 rows).
    expected = math.log(6 * 6 / 5040) - 3 * math.log(0.5) - 3 * math.log(2.0)
    assert small.log_evidence() == pytest.approx(expected, abs=1e-12)


# -- the DataTree ----------------------------------------------------------------------------


def test_tree_groups_dims_and_attrs(mixed):
    _, _, fit = mixed
    tree = fit.posterior(draws=50, chains=3, random_state=0)
    assert set(tree.children) == {
        "posterior",
        "prior",
        "observed_data",
        "posterior_predictive",
        "log_likelihood",
    }
    params = fit.params
    for group in ("posterior", "prior"):
        ds = tree[group].ds
        assert set(ds.data_vars) == set(params.data_vars)
        for name, da in params.data_vars.items():
            assert ds[name].dims == ("chain", "draw", *da.dims)
            for dim in da.dims:
                np.testing.assert_array_equal(ds[name][dim].values, da[dim].values)
        assert ds.attrs["inference_library"] == "bayesnb"
        assert ds.attrs["method"] == "exact conjugate"
    assert tree["log_likelihood"]["label"].dims == ("chain", "draw", "row")
    assert tree["posterior_predictive"]["c"].shape == (3, 50, 60)


def test_pointwise_log_likelihood_by_hand(mixed):
    df, y, fit = mixed
    tree = fit.posterior(draws=20, chains=2, random_state=3)
    post = tree["posterior"]
    for chain, draw_ in [(0, 0), (1, 7), (1, 19)]:
        p = post.ds.isel(chain=chain, draw=draw_)
        expected = np.zeros(len(df))
        for i in range(len(df)):
            k = y[i]
            total = math.log(p["class_prob"].sel(class_label=k))
            g = df["g"].iloc[i]
            if not np.isnan(g):
                total += stats.norm(
                    float(p["g_mu"].sel(class_label=k)), float(p["g_sigma"].sel(class_label=k))
                ).logpdf(g)
            c = df["c"].iloc[i]
            if not pd.isna(c):
                total += math.log(float(p["c"].sel(class_label=k, c_category=c)))
            b = df["b"].iloc[i]
            if not np.isnan(b):
                pb = float(p["b"].sel(class_label=k))
                total += math.log(pb if b == 1 else 1 - pb)
            x = df["x"].iloc[i]
            j = min(int(x), 2)  # bins of width 1
            total += math.log(float(p["x"].sel(class_label=k).isel(x_category=j)))
            expected[i] = total
        got = tree["log_likelihood"]["label"].isel(chain=chain, draw=draw_).values
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_posterior_means_match_the_conjugate_means(mixed):
    df, y, fit = mixed
    tree = fit.posterior(draws=2000, chains=2, random_state=11)
    post = tree["posterior"].ds
    size = 4000
    for label in ["u", "v"]:
        mu, kappa, alpha, beta = gaussian_posterior(df["g"][y == label].to_numpy())
        draws_mu = post["g_mu"].sel(class_label=label).values.ravel()
        draws_var = post["g_var"].sel(class_label=label).values.ravel()
        sd_mu = math.sqrt(beta / ((alpha - 1) * kappa))
        assert abs(draws_mu.mean() - mu) < 4 * sd_mu / math.sqrt(size)
        mean_var, sd_var = beta / (alpha - 1), beta / ((alpha - 1) * math.sqrt(alpha - 2))
        assert abs(draws_var.mean() - mean_var) < 4 * sd_var / math.sqrt(size)
    # The prior group: draws from Dirichlet([1, 2, .5]) have mean [1, 2, .5] / 3.5.
    prior_c = tree["prior"]["c"].mean(("chain", "draw")).values
    sd = np.sqrt(np.array([1, 2, 0.5]) / 3.5 * (1 - np.array([1, 2, 0.5]) / 3.5) / 4.5)
    assert np.all(np.abs(prior_c - np.array([1, 2, 0.5]) / 3.5) < 4 * sd / math.sqrt(size))


def test_posterior_predictive_codes_and_observed_data(mixed):
    df, y, fit = mixed
    tree = fit.posterior(draws=400, chains=2, random_state=5)
    observed = tree["observed_data"]
    np.testing.assert_array_equal(observed["label"].values, (np.asarray(y) == "v").astype(int))
    codes = observed["c"].values
    expected = df["c"].map({"a": 0, "b": 1, "c": 2}).to_numpy(dtype=float)
    np.testing.assert_array_equal(codes, expected)  # NaN where missing
    np.testing.assert_array_equal(observed["b"].values, df["b"].to_numpy())
    pp = tree["posterior_predictive"]
    # The drawn classes' frequency is the class probability's posterior mean
    # (Dirichlet([2, 1]) + counts), to Monte-Carlo error.
    share_v = float((pp["label"] == 1).mean())
    mean_v = (1 + (np.asarray(y) == "v").sum()) / (3 + len(y))
    assert abs(share_v - mean_v) < 4 * math.sqrt(mean_v * (1 - mean_v) / pp["label"].size) + 0.02
    assert set(np.unique(pp["c"].values)) <= {0, 1, 2}
    x = pp["x"].values
    assert x.min() >= 0.0 and x.max() <= 3.0


def test_rows_are_labelled_by_the_frame_index_and_loo_pit_takes_the_target(mixed):
    df, y, _ = mixed
    named = df.set_axis([f"p{i:02d}" for i in range(len(df))])
    fit = mixed_model().fit(named, y)
    later = named.iloc[:4].set_axis(["q0", "q1", "q2", "q3"])
    updated = fit.update(later, y[:4])
    tree = updated.posterior(draws=50, chains=2, random_state=2)
    index = [*named.index, *later.index]
    for group in ("observed_data", "posterior_predictive", "log_likelihood"):
        assert tree[group]["row"].values.tolist() == index
    # a row found by its label holds that row's values
    assert float(tree["observed_data"]["g"].sel(row="p03")) == df["g"].iloc[3]
    assert float(tree["observed_data"]["x"].sel(row="q2")) == df["x"].iloc[2]
    pit = az.loo_pit(tree, var_names="label")["label"]
    assert pit["row"].values.tolist() == index
    assert np.all((pit.values >= 0.0) & (pit.values <= 1.0))
    arrays = bnb.NaiveBayes({"g": bnb.Gaussian()}).fit(df[["g"]].to_numpy(), y, feature_names=["g"])
    assert arrays.posterior(draws=5, random_state=0)["log_likelihood"]["row"].values.tolist() == (
        list(range(len(df)))
    )


@pytest.mark.parametrize(
    "index",
    [
        pd.MultiIndex.from_arrays([["a", "b"] * 30, range(60)]),
        pd.date_range("2024-01-01", periods=60, tz="UTC"),
        pd.Index([(i, "x") for i in range(60)], tupleize_cols=False),
    ],
)
def test_rows_of_other_indexes_are_positions_and_the_groups_save(mixed, index, tmp_path):
    df, y, _ = mixed
    fit = mixed_model().fit(df.set_axis(index), y)
    tree = fit.posterior(draws=5, chains=2, random_state=0)
    assert tree["log_likelihood"]["row"].values.tolist() == list(range(len(df)))
    for name, group in tree.children.items():  # each group stores (netCDF3: no groups)
        group.to_dataset().to_netcdf(tmp_path / f"{name}.nc", engine="scipy")
    # batches whose labels are of different kinds: positions too
    later = df.iloc[:4].set_axis(pd.date_range("2024-01-01", periods=4))
    mixed_kinds = mixed_model().fit(df, y).update(later, y[:4]).posterior(draws=5)
    assert mixed_kinds["observed_data"]["row"].values.tolist() == list(range(len(df) + 4))


def test_every_family_and_sparse_counts():
    rng = np.random.default_rng(2)
    n = 40
    counts = rng.poisson(2.0, size=(n, 6))
    y = rng.choice([0, 1], n)
    for X in (counts, sparse.csr_array(counts)):
        fit = bnb.NaiveBayes(bnb.Multinomial()).fit(X, y)
        tree = fit.posterior(draws=30, chains=2, random_state=0)
        assert tree["posterior"]["X"].dims == ("chain", "draw", "class_label", "X_category")
        np.testing.assert_allclose(tree["posterior"]["X"].sum("X_category").values, 1.0)
        drawn = tree["posterior_predictive"]["X"].values
        # every drawn document has its training row's length
        np.testing.assert_array_equal(
            drawn.sum(axis=-1), np.broadcast_to(counts.sum(1), (2, 30, n))
        )
        assert np.isfinite(tree["log_likelihood"]["label"].values).all()
    ragged = np.column_stack([rng.choice([0, 1], n), rng.choice([0, 1, 2, 3], n)])
    fit = bnb.NaiveBayes(bnb.Categorical()).fit(ragged, y)
    tree = fit.posterior(draws=30, chains=2, random_state=0)
    assert tree["posterior"]["x1"].shape == (2, 30, 2, 4)
    np.testing.assert_allclose(tree["posterior"]["x0"].sum("x0_category").values, 1.0)
    assert tree["observed_data"]["X"].dims == ("row", "X_feature")
    gauss = bnb.NaiveBayes(bnb.Gaussian()).fit(rng.normal(size=(n, 3)), y)
    tree = gauss.posterior(draws=30, chains=2, random_state=0)
    assert tree["posterior"]["X_mu"].dims == ("chain", "draw", "class_label", "X_feature")


def test_a_wide_block_is_left_out_of_the_data_groups_and_says_so(monkeypatch):
    from bayesnb import posterior

    monkeypatch.setattr(posterior, "MAX_DRAWN_VALUES", 1000)
    rng = np.random.default_rng(0)
    fit = bnb.NaiveBayes(bnb.Multinomial()).fit(rng.poisson(1.0, (30, 5)), rng.choice([0, 1], 30))
    tree = fit.posterior(draws=10, chains=1, random_state=0)
    assert "X" not in tree["observed_data"]
    assert "'X'" in tree["observed_data"].attrs["omitted"]
    assert "label" in tree["posterior_predictive"]
    assert np.isfinite(tree["log_likelihood"]["label"].values).all()


def test_sample_weight_goes_to_constant_data():
    df = bnb.datasets.play_tennis()
    w = np.arange(1, len(df) + 1, dtype=float)
    fit = bnb.NaiveBayes().fit(df, target="play", sample_weight=w)
    # az.loo takes no weights: one unweighted entry per row would misstate the elpd
    with pytest.warns(UserWarning, match=r"sample weights.*az\.loo and az\.compare"):
        tree = fit.posterior(draws=10, chains=1, random_state=0)
    np.testing.assert_array_equal(tree["constant_data"]["sample_weight"].values, w)
    unweighted = bnb.NaiveBayes().fit(df, target="play").posterior(draws=5, chains=1)
    assert "constant_data" not in unweighted.children


def test_a_loaded_model_has_the_posterior_without_the_data_groups(tmp_path, mixed):
    _, _, fit = mixed
    fit.save(tmp_path / "m.nc")
    loaded = bnb.load(tmp_path / "m.nc")
    with pytest.warns(UserWarning, match="no training rows .*data=False"):
        tree = loaded.posterior(draws=10, chains=2, random_state=4)
    assert set(tree.children) == {"posterior", "prior"}
    same = fit.posterior(draws=10, chains=2, random_state=4, data=False)
    xr.testing.assert_identical(
        tree["posterior"].ds.drop_attrs(), same["posterior"].ds.drop_attrs()
    )


def test_random_state_makes_draws_repeatable(mixed):
    _, _, fit = mixed
    a = fit.posterior(draws=10, chains=2, random_state=9)
    b = fit.posterior(draws=10, chains=2, random_state=9)
    xr.testing.assert_equal(a["posterior"].ds, b["posterior"].ds)
    xr.testing.assert_equal(a["posterior_predictive"].ds, b["posterior_predictive"].ds)


# -- predictions -------------------------------------------------------------------------------


def test_posterior_predict_and_its_interval():
    df = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().fit(df, target="play")
    X = df.drop(columns="play").iloc[:3]
    p = fit.posterior_predict(X, draws=500, chains=2, random_state=0)
    assert p.dims == ("chain", "draw", "row", "class_label")
    np.testing.assert_allclose(p.sum("class_label").values, 1.0, rtol=1e-12)
    ci = fit.predictive_interval(X, prob=0.9, random_state=0)
    assert (ci["lower"] <= ci["mean"]).all() and (ci["mean"] <= ci["upper"]).all()
    assert ci["lower"].dims == ("row", "class_label")
    samples = fit.posterior_predict(X, random_state=0).values.reshape(-1, 3, 2)
    np.testing.assert_allclose(ci["mean"].values, samples.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(ci["upper"].values, np.quantile(samples, 0.95, axis=0), rtol=1e-12)
    # More of the same data: narrower intervals (PlayTennis repeated 20 times).
    big = bnb.NaiveBayes().fit(pd.concat([df] * 20), target="play")
    wide = (ci["upper"] - ci["lower"]).values
    big_ci = big.predictive_interval(X, prob=0.9, random_state=0)
    narrow = (big_ci["upper"] - big_ci["lower"]).values
    assert np.all(narrow < wide)


def test_posterior_predict_probabilities_by_hand():
    # One Bernoulli feature: P(c | x, theta) = pi_c theta_c^x (1-theta_c)^(1-x) / sum.
    X = pd.DataFrame({"f": [1, 0, 1, 1, 0, 0]})
    y = ["a", "a", "a", "b", "b", "b"]
    fit = bnb.NaiveBayes({"f": bnb.Bernoulli()}).fit(X, y)
    p = fit.posterior_predict(pd.DataFrame({"f": [1]}), draws=200, chains=1, random_state=1)
    # The same seed gives the same parameter draws: the posterior group's are drawn first.
    tree = fit.posterior(draws=200, chains=1, random_state=1, data=False)["posterior"]
    pi = tree["class_prob"].values[0]
    theta = tree["f"].values[0]
    joint = pi * theta
    np.testing.assert_allclose(p.values[0, :, 0, :], joint / joint.sum(axis=1, keepdims=True))


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"draws": 0}, errors.InputError, "draws"),
        ({"draws": 2.5}, errors.InputTypeError, "draws"),
        ({"chains": "4"}, errors.InputTypeError, "chains"),
        ({"random_state": -1}, errors.InputError, "random_state"),
        ({"random_state": "seed"}, errors.InputTypeError, "random_state"),
        ({"data": "yes"}, errors.InputTypeError, "data"),
    ],
)
def test_posterior_bad_arguments(kwargs, error, match):
    fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
    with pytest.raises(error, match=match):
        fit.posterior(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"prob": 94}, errors.InputError, "prob"),
        ({"prob": 0.0}, errors.InputError, "prob"),
        ({"prob": "0.9"}, errors.InputTypeError, "prob"),
        ({"kind": "central"}, errors.InputError, "kind"),
    ],
)
def test_interval_bad_arguments(kwargs, error, match):
    fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
    with pytest.raises(error, match=match):
        fit.credible_interval(**kwargs)
    X = bnb.datasets.play_tennis().drop(columns="play")
    with pytest.raises(error, match=match):
        fit.predictive_interval(X, draws=5, **kwargs)


def test_posterior_predict_checks_x():
    fit = bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")
    with pytest.raises(errors.InputError, match="outlook"):
        fit.posterior_predict(pd.DataFrame({"wind": ["Weak"]}), draws=5)


def test_text_fit_posterior_and_its_evidence_by_formula():
    from scipy.special import gammaln

    sms = bnb.datasets.sms_spam().iloc[:200]
    fit = bnb.text.TextNaiveBayes().fit(sms["text"], sms["label"])
    tree = fit.posterior(draws=20, chains=2, random_state=0)
    assert tree["posterior"]["word"].dims == ("chain", "draw", "class_label", "word_category")
    # every drawn message has as many words as its training message
    lengths = tree["observed_data"]["word"].sum("word_category")
    drawn = tree["posterior_predictive"]["word"].sum("word_category")
    assert (drawn == lengths).all()
    assert np.isfinite(tree["log_likelihood"]["label"].values).all()
    # The sequence's Dirichlet-multinomial under Dirichlet(1) per class, and the labels'
    # under Dirichlet(1): log Gamma(A) - log Gamma(A + N) + sum log Gamma(a + n) - log Gamma(a).
    counts = fit.counts["word"].values  # (classes, words)
    v = counts.shape[1]
    words = (gammaln(v) - gammaln(v + counts.sum(axis=1))).sum() + gammaln(1 + counts).sum()
    n_class = fit.counts["class_count"].values
    classes = gammaln(2) - gammaln(2 + n_class.sum()) + gammaln(1 + n_class).sum()
    assert fit.log_evidence() == pytest.approx(words + classes, rel=1e-12)
    ci = fit.credible_interval(prob=0.5)
    assert ci["word"].dims == ("class_label", "word_category", "ci_bound")


def test_a_name_with_a_slash_is_named_by_the_posterior():
    """xarray's DataTree reads "/" as a path: the posterior names the column instead of
    raising xarray's own error; params keep working with it."""
    df = bnb.datasets.play_tennis().rename(columns={"wind": "km/h"})
    fit = bnb.NaiveBayes().fit(df, target="play")
    assert "km/h" in fit.params  # fitting and params are unaffected
    with pytest.raises(bnb.InputError, match=r"'km/h' holds '/'.*rename"):
        fit.posterior(draws=5, chains=1, random_state=0)
    with pytest.raises(bnb.InputError, match=r"'km/h' holds '/'"):
        bnb.NaiveBayes().density(df.drop(columns="play")).posterior(draws=5, chains=1)


def test_a_feature_named_stat_is_refused_as_compare_fits_uses_the_name():
    df = bnb.datasets.play_tennis().rename(columns={"wind": "stat"})
    with pytest.raises(bnb.InputError, match=r"'stat'.*compare_fits"):
        bnb.NaiveBayes().fit(df, target="play")


def test_weights_whose_sum_overflows_are_refused():
    """Each weight finite, their sum beyond the largest float: the counts would be inf,
    and a categorical's probabilities 0/0."""
    df = pd.DataFrame({"c": ["a", "b", "a"], "y": [0, 1, 0]})
    with pytest.raises(bnb.InputError, match=r"sample_weight sums beyond the largest float"):
        bnb.NaiveBayes().fit(df, target="y", sample_weight=[1e308, 1e308, 1.0])
