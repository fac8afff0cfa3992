"""Naive Bayes as a density estimator (seed 000, section 1): ``p(x) = prod_i p(x_i)``
fitted without labels, its log density by hand, its draws, its parameter counts
against the full joint table, its exact posterior and its file round trip; and the
seed's argument (naive Bayes against the full joint histogram) from the benchmark."""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnb as bnb
from bayesnb.density import DensityFit

EDGES = [0.0, 1.0, 3.0, 6.0]


def _mixed_frame() -> pd.DataFrame:
    """Boolean, discrete, binned and Gaussian columns, each with a missing value."""
    return pd.DataFrame(
        {
            "b": [True, True, False, None, True, False, True, True],
            "c": ["r", "g", "g", "b", None, "r", "g", "g"],
            "h": [0.5, 2.0, 2.5, 5.0, 1.0, np.nan, 0.2, 4.0],
            "g": [1.0, 2.5, np.nan, 0.5, 3.0, 2.0, 1.5, 4.5],
        }
    )


def _mixed_model(gaussian=None) -> bnb.NaiveBayes:
    return bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(),
            "c": bnb.Categorical(),
            "h": bnb.Binned(EDGES),
            "g": bnb.Gaussian() if gaussian is None else gaussian,
        }
    )


def _hand_log_density(df: pd.DataFrame, rows: pd.DataFrame, mu: float, sigma: float):
    """Add-one probabilities counted from ``df``'s observed values; the Gaussian's
    log pdf by scipy at ``mu``, ``sigma``; a missing value contributes nothing."""
    b = df["b"].dropna().astype(bool)
    p_true = (b.sum() + 1) / (len(b) + 2)
    c = df["c"].dropna()
    cats = sorted(c.unique())
    p_c = {v: ((c == v).sum() + 1) / (len(c) + len(cats)) for v in cats}
    h = df["h"].dropna().to_numpy()
    bins = np.clip(np.searchsorted(EDGES, h, side="right") - 1, 0, len(EDGES) - 2)
    n_bins = len(EDGES) - 1
    out = []
    for _, row in rows.iterrows():
        total = 0.0
        if pd.notna(row["b"]):
            total += math.log(p_true if row["b"] else 1 - p_true)
        if pd.notna(row["c"]):
            total += math.log(p_c[row["c"]])
        if pd.notna(row["h"]):
            j = min(int(np.searchsorted(EDGES, row["h"], side="right") - 1), n_bins - 1)
            prob = ((bins == j).sum() + 1) / (len(h) + n_bins)
            total += math.log(prob / (EDGES[j + 1] - EDGES[j]))
        if pd.notna(row["g"]):
            total += stats.norm.logpdf(row["g"], mu, sigma)
        out.append(total)
    return np.array(out)


def test_log_density_is_the_sum_of_per_feature_log_probabilities_ml_gaussian():
    df = _mixed_frame()
    fit = _mixed_model(bnb.Gaussian(estimate="ml")).density(df)
    assert isinstance(fit, DensityFit)
    g = df["g"].dropna().to_numpy()
    mu, sigma = g.mean(), g.std()  # maximum likelihood: 1/N
    expected = _hand_log_density(df, df, mu, sigma)
    np.testing.assert_allclose(fit.log_density(df), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fit.score_samples(df), expected, rtol=0, atol=1e-12)
    assert fit.score(df) == pytest.approx(expected.mean(), abs=1e-12)


def test_log_density_with_the_default_gaussian_uses_its_fitted_mean_and_sd():
    df = _mixed_frame()
    fit = _mixed_model().density(df)
    mu, sigma = float(fit.params["g_mu"]), float(fit.params["g_sigma"])
    expected = _hand_log_density(df, df, mu, sigma)
    np.testing.assert_allclose(fit.log_density(df), expected, rtol=0, atol=1e-12)


def test_a_row_all_missing_has_log_density_zero_and_one_missing_value_is_marginalized():
    df = _mixed_frame()
    fit = _mixed_model(bnb.Gaussian(estimate="ml")).density(df)
    rows = pd.DataFrame(
        {"b": [None, True], "c": [None, "r"], "h": [np.nan, 5.5], "g": [np.nan, np.nan]}
    )
    got = fit.log_density(rows)
    assert got[0] == 0.0
    g = df["g"].dropna().to_numpy()
    np.testing.assert_allclose(got, _hand_log_density(df, rows, g.mean(), g.std()), atol=1e-12)


def test_fit_without_labels_is_the_density():
    df = _mixed_frame()
    by_fit = _mixed_model().fit(df)
    by_density = _mixed_model().density(df)
    assert isinstance(by_fit, DensityFit)
    np.testing.assert_array_equal(by_fit.log_density(df), by_density.log_density(df))


def test_density_is_the_classifier_with_one_constant_class():
    df = _mixed_frame()
    density = _mixed_model().density(df)
    classifier = _mixed_model().fit(df, y=np.zeros(len(df), dtype=int))
    np.testing.assert_allclose(
        density.log_density(df), classifier.joint_log_likelihood(df)[:, 0], atol=1e-12
    )


def test_params_have_no_class_dim_and_boolean_params_are_add_one():
    X = pd.DataFrame({"a": [1, 1, 0, 1, 1], "z": [0, 0, 0, 1, 0]}).astype(bool)
    fit = bnb.NaiveBayes().density(X)
    assert "class_prob" not in fit.params
    assert all("class_label" not in v.dims for v in fit.params.values())
    assert float(fit.params["a"]) == pytest.approx(5 / 7, abs=1e-15)  # (4 + 1) / (5 + 2)
    assert float(fit.params["z"]) == pytest.approx(2 / 7, abs=1e-15)


def test_parameter_counts_against_the_full_joint():
    for n in (1, 3, 10):
        X = pd.DataFrame(np.arange(4 * n).reshape(4, n) % 2 == 0, columns=range(n)).astype(bool)
        X.columns = [f"x{i}" for i in range(n)]
        fit = bnb.NaiveBayes().density(X)
        counts = fit.parameter_counts()
        assert fit.n_parameters() == n
        assert counts["naive_bayes"] == n
        assert counts["full_joint"] == 2**n - 1
        assert counts["naive_bayes_entries"] == 2 * n
        assert counts["full_joint_entries"] == 2**n
    df = bnb.datasets.play_tennis().drop(columns="play")  # 3, 3, 2, 2 values
    counts = bnb.NaiveBayes().density(df).parameter_counts()
    assert counts["naive_bayes"] == 2 + 2 + 1 + 1
    assert counts["full_joint"] == 3 * 3 * 2 * 2 - 1
    gaussian = _mixed_model().density(_mixed_frame())
    assert gaussian.n_parameters() == 1 + 2 + 2 + 2  # b, c (3 values), h (3 bins), mu+var
    assert gaussian.parameter_counts()["full_joint"] is None


def test_sample_reproduces_every_marginal_within_four_standard_errors():
    n = 100_000
    df = pd.DataFrame(
        {
            "b": [True, False, True, True, False, True, True, False, True, True],
            "c": ["x", "y", "z", "x", "x", "y", "x", "z", "x", "y"],
            "h": [0.5, 2.0, 2.5, 5.0, 1.0, 3.5, 0.2, 4.0, 1.5, 2.2],
            "g": [1.0, 2.5, 3.0, 0.5, 3.0, 2.0, 1.5, 4.5, 2.2, 1.1],
        }
    )
    fit = _mixed_model().density(df)
    draws = fit.sample(n, random_state=1)
    assert list(draws.columns) == ["b", "c", "h", "g"] and len(draws) == n
    params = fit.params

    def within(freq, p):
        assert abs(freq - p) <= 4 * math.sqrt(p * (1 - p) / n), (freq, p)

    within(np.mean(draws["b"].astype(bool)), float(params["b"]))
    for cat in params["c_category"].values:
        within(np.mean(draws["c"] == cat), float(params["c"].sel(c_category=cat)))
    h = draws["h"].to_numpy(dtype=float)
    assert np.all((h >= EDGES[0]) & (h <= EDGES[-1]))
    bins = np.clip(np.searchsorted(EDGES, h, side="right") - 1, 0, len(EDGES) - 2)
    for j in range(len(EDGES) - 1):
        within(np.mean(bins == j), float(params["h"].values[j]))
    mu, sigma = float(params["g_mu"]), float(params["g_sigma"])
    g = draws["g"].to_numpy(dtype=float)
    assert abs(g.mean() - mu) <= 4 * sigma / math.sqrt(n)


def test_sample_from_an_array_fit_is_an_array_and_reproducible():
    rng = np.random.default_rng(0)
    X = (rng.random((200, 3)) < [0.2, 0.5, 0.9]).astype(np.int64)
    fit = bnb.NaiveBayes(bnb.Bernoulli()).density(X)
    a = fit.sample(1000, random_state=3)
    assert isinstance(a, np.ndarray) and a.shape == (1000, 3)
    np.testing.assert_array_equal(a, fit.sample(1000, random_state=3))
    assert set(np.unique(a.astype(int))) <= {0, 1}


def test_save_and_load_round_trip(tmp_path):
    df = _mixed_frame()
    fit = _mixed_model().density(df)
    path = tmp_path / "density.nc"
    fit.save(path)
    back = bnb.load(path)
    assert isinstance(back, DensityFit)
    np.testing.assert_array_equal(back.log_density(df), fit.log_density(df))
    assert back.parameter_counts() == fit.parameter_counts()
    assert back.params.equals(fit.params)


def test_exact_posterior_without_the_class():
    X = pd.DataFrame({"a": [True, True, False, True], "k": ["u", "v", "v", "v"]})
    fit = bnb.NaiveBayes().density(X)
    # Beta(1 + 3, 1 + 1) on P(a): its 90% equal-tailed interval by scipy
    ci = fit.credible_interval(prob=0.9)
    assert "class_prob" not in ci and "class_label" not in ci.dims
    np.testing.assert_allclose(
        ci["a"].values, stats.beta(4, 2).ppf([0.05, 0.95]), rtol=1e-10, atol=1e-12
    )
    # evidence: Beta-binomial sequence 4!... = B(4, 2) / B(1, 1) and Dirichlet(1, 1)
    # on k with counts (1, 3): B(2, 4) / B(1, 1)
    expected = math.log(math.gamma(4) * math.gamma(2) / math.gamma(6)) + math.log(
        math.gamma(2) * math.gamma(4) / math.gamma(6)
    )
    assert fit.log_evidence() == pytest.approx(expected, abs=1e-12)
    tree = fit.posterior(draws=2000, chains=2, random_state=0)
    post = tree["posterior"]
    assert "class_prob" not in post and "class_label" not in post.dims
    assert post["a"].dims == ("chain", "draw")
    assert float(post["a"].mean()) == pytest.approx(4 / 6, abs=4 * math.sqrt(8 / 252 / 4000))
    assert tree["log_likelihood"]["density"].dims == ("chain", "draw", "row")


def test_update_equals_one_fit():
    df = _mixed_frame()
    model = _mixed_model(bnb.Gaussian(bnb.NormalInverseGamma(0.0, 1.0, 2.0, 2.0)))
    whole = model.density(df)
    parts = model.density(df.iloc[:5]).update(df.iloc[5:])
    np.testing.assert_allclose(parts.log_density(df), whole.log_density(df), atol=1e-12)


# -- the seed's argument (benchmarks/bench_density.py) ------------------------------------
@pytest.fixture(scope="module")
def bench(repo_script):
    with repo_script("benchmarks/bench_density.py") as module:
        yield module


def test_naive_bayes_beats_the_histogram_on_independent_data_at_eight_and_more(bench):
    for n in (8, 12, 16):
        rng = np.random.default_rng(n)
        p = rng.uniform(0.1, 0.9, size=n)
        train = bench.independent_data(n, 1000, rng, p)
        test = bench.independent_data(n, 5000, rng, p)
        nb = bench.naive_bayes_log_density(train, test)
        hist = bench.histogram_log_density(train, test)
        assert nb > hist, (n, nb, hist)
        # the true log probability per row is the bound both approach
        truth = np.mean(np.log(np.where(test == 1, p, 1 - p)).sum(axis=1))
        assert nb == pytest.approx(truth, abs=0.05)


def test_the_histogram_wins_on_two_correlated_attributes(bench):
    rng = np.random.default_rng(2)
    train = bench.chain_data(2, 1000, rng)
    test = bench.chain_data(2, 5000, rng)
    assert bench.histogram_log_density(train, test) > bench.naive_bayes_log_density(train, test)


def test_histogram_and_gaussian_baselines_by_hand(bench):
    train = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    test = np.array([[1, 1], [1, 0]])
    # patterns coded x0 + 2 x1: (1,1) -> 3 seen twice, (1,0) -> 1 never: (c + 1) / (4 + 4)
    expected = (math.log(3 / 8) + math.log(1 / 8)) / 2
    assert bench.histogram_log_density(train, test) == pytest.approx(expected, abs=1e-12)
    mu = train.mean(axis=0)
    cov = np.cov(train.T, bias=True) + bench.RIDGE * np.eye(2)
    want = stats.multivariate_normal(mu, cov).logpdf(test).mean()
    assert bench.gaussian_log_density(train, test) == pytest.approx(want, abs=1e-10)


def test_benchmark_table(bench):
    table = bench.run(dimensions=(2, 8), n_train=1000, n_test=2000)
    assert list(table["n"]) == [2, 8, 2, 8]
    assert list(table["params_hist"]) == [3, 255, 3, 255]
    assert list(table["params_gauss"]) == [5, 44, 5, 44]
    independent = table[table["data"] == "independent"].set_index("n")
    assert independent.loc[8, "naive_bayes"] > independent.loc[8, "histogram"]


def test_a_saved_density_loads_in_a_fresh_interpreter(tmp_path):
    path = tmp_path / "density.nc"
    bnb.NaiveBayes().density(pd.DataFrame({"a": [True, False, True]})).save(path)
    code = (
        "import bayesnb as bnb, pandas as pd; "
        f"fit = bnb.load({str(path)!r}); "
        "print(type(fit).__name__, fit.log_density(pd.DataFrame({'a': [True]}))[0])"
    )
    root = str(Path(__file__).resolve().parent.parent)
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
    ).stdout.split()
    assert out[0] == "DensityFit"
    assert float(out[1]) == pytest.approx(math.log(3 / 5), abs=1e-12)  # (2 + 1) / (3 + 2)


def test_an_unseen_category_follows_the_family_policy():
    X = pd.DataFrame({"k": ["u", "v", "v"], "a": [True, False, True]})
    skip = bnb.NaiveBayes({"k": bnb.Categorical(), "a": bnb.Bernoulli()}).density(X)
    row = pd.DataFrame({"k": ["w"], "a": [True]})
    assert skip.log_density(row)[0] == pytest.approx(math.log(3 / 5), abs=1e-12)
    strict = bnb.NaiveBayes({"k": bnb.Categorical(unseen="error"), "a": bnb.Bernoulli()})
    with pytest.raises(bnb.InputError, match="'k'"):
        strict.density(X).log_density(row)


def test_an_integer_weight_counts_as_repeated_rows():
    df = _mixed_frame()
    model = _mixed_model(bnb.Gaussian(bnb.NormalInverseGamma(0.0, 1.0, 2.0, 2.0)))
    weights = np.array([1, 2, 1, 3, 1, 1, 2, 1])
    weighted = model.density(df, sample_weight=weights)
    repeated = model.density(df.loc[df.index.repeat(weights)].reset_index(drop=True))
    np.testing.assert_allclose(weighted.log_density(df), repeated.log_density(df), atol=1e-12)


def test_score_of_no_rows_is_an_error_and_of_rows_their_mean_log_density():
    """score is the mean of log_density, by hand from the Categorical frequencies under
    Dirichlet(1): P(outlook = Sunny) = (5 + 1)/(14 + 3), and so on."""
    X = bnb.datasets.play_tennis().drop(columns="play")
    fit = bnb.NaiveBayes().density(X)
    with pytest.raises(bnb.InputError, match="X has no rows"):
        fit.score(X.iloc[:0])
    row = X.iloc[[0]]  # Sunny, Hot, High, Weak
    by_hand = math.log(6 / 17) + math.log(5 / 17) + math.log(8 / 16) + math.log(9 / 16)
    assert fit.score(row) == pytest.approx(by_hand, rel=1e-12)
