"""Every worked number of the lecture notes (seeds 000-004) on the supervised side,
reproduced through the public API. Where a note has an arithmetic slip, the test
asserts the correct value and a comment says what the note printed."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats

import bayesnb as bnb

TENNIS_QUERY = pd.DataFrame(
    [["Sunny", "Cool", "High", "Strong"]],
    columns=["outlook", "temperature", "humidity", "wind"],
)


@pytest.fixture
def tennis_ml():
    with pytest.warns(bnb.ZeroProbabilityWarning, match="outlook"):
        return bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play", estimate="ml")


# -- seed 003: the soccer team, Beta updating, ML / MAP / mean ----------------------------


def soccer_fit(estimate, prior):
    games = bnb.datasets.soccer_games()  # t, f, f
    # A single feature model: the "class" is a constant, so the Bernoulli parameter of
    # feature `win` under the one label is the probability of a win.
    games = games.assign(team="ours")
    return bnb.NaiveBayes({"win": bnb.Bernoulli(prior)}).fit(
        games, target="team", estimate=estimate
    )


def test_soccer_ml_is_one_third():
    fit = soccer_fit("ml", bnb.Beta(1, 1))
    assert fit.params["win"].item() == pytest.approx(1 / 3, abs=1e-15)


def test_soccer_map_and_mean_under_beta_5_3():
    # Prior Beta(5,3), observations t, f, f -> posterior Beta(6,5).
    post = bnb.Beta(5, 3).update(successes=1, failures=2)
    assert (post.a, post.b) == (6, 5)
    # MAP (1+5-1)/(3+5+3-2) = 5/9 ; posterior mean 6/11.
    assert soccer_fit("map", bnb.Beta(5, 3)).params["win"].item() == pytest.approx(5 / 9)
    assert soccer_fit("mean", bnb.Beta(5, 3)).params["win"].item() == pytest.approx(6 / 11)
    assert float(post.beta_mode()) == pytest.approx(5 / 9)
    assert float(post.beta_mean()) == pytest.approx(6 / 11)


def test_beta_updating_slide():
    # Prior Beta(4,7); 1 positive and 4 negative -> Beta(5,11).
    post = bnb.Beta(4, 7).update(successes=1, failures=4)
    assert (float(post.a), float(post.b)) == (5.0, 11.0)


def test_beta_mode_and_mean_examples():
    assert float(bnb.Beta(2, 3).beta_mode()) == pytest.approx(1 / 3)
    assert float(bnb.Beta(2, 3).beta_mean()) == pytest.approx(2 / 5)


def test_ml_equals_map_under_uniform_beta():
    # Beta(1, 1): the MAP (1 + 1 - 1) / (3 + 1 + 1 - 2) = 1/3 is the ML estimate.
    ml = soccer_fit("ml", bnb.Beta(1, 1)).params["win"].item()
    map_ = soccer_fit("map", bnb.Beta(1, 1)).params["win"].item()
    assert map_ == pytest.approx(1 / 3, abs=1e-15)
    assert ml == map_


# Seed 003's MAP slides, on nine Boolean rows with the class T six times. Per class,
# x1 is true 4 of 6 times given T and 1 of 3 times given F.
BOOLEAN_ROWS = pd.DataFrame(
    {
        "x1": [1, 1, 1, 1, 0, 0, 1, 0, 0],
        "x2": [1, 0, 1, 0, 1, 1, 0, 0, 1],
        "C": ["T"] * 6 + ["F"] * 3,
    }
).astype({"x1": bool, "x2": bool})


def test_map_of_the_class_probability_under_a_beta_prior():
    # theta_C ~ Beta(3, 2) on P(C = T): MAP (N_T + a - 1) / (N + a + b - 2)
    # = (6 + 2) / (9 + 3) = 2/3; the mean (6 + 3) / (9 + 5) = 9/14; ML 6/9.
    model = bnb.NaiveBayes(class_prior=bnb.Beta(3, 2))
    for estimate, expected in (("map", 2 / 3), ("mean", 9 / 14), ("ml", 6 / 9)):
        fit = model.fit(BOOLEAN_ROWS[["x1", "C"]], target="C", estimate=estimate)
        assert fit.params["class_prob"].sel(class_label="T").item() == pytest.approx(
            expected, rel=1e-14
        )


def test_map_of_a_feature_with_a_different_beta_prior_per_class():
    # theta_1^T ~ Beta(4, 2) and theta_1^F ~ Beta(2, 3) (labels in the order F, T):
    # MAP (N + a - 1) / (N_c + a + b - 2) gives (4 + 3) / (6 + 4) = 7/10 given T and
    # (1 + 1) / (3 + 3) = 1/3 given F. (The seed writes the denominator's count as
    # N_i^T; it is N_T, the rows of class T.)
    prior = bnb.Beta(a=[2, 4], b=[3, 2])
    fit = bnb.NaiveBayes({"x1": bnb.Bernoulli(prior)}).fit(
        BOOLEAN_ROWS[["x1", "C"]], target="C", estimate="map"
    )
    np.testing.assert_allclose(fit.params["x1"].sel(class_label=["T", "F"]), [7 / 10, 1 / 3])


def test_seed002_red_red_blue():
    # ML of theta from red, red, blue is 2/3 and L(2/3) = 4/27.
    balls = pd.DataFrame({"red": [True, True, False], "bag": "b"})
    fit = bnb.NaiveBayes().fit(balls, target="bag", estimate="ml")
    theta = fit.params["red"].item()
    assert theta == pytest.approx(2 / 3)
    log_lik = fit.log_likelihood_rows(balls.drop(columns="bag")).sum()
    assert np.exp(log_lik) == pytest.approx(4 / 27)


# -- seed 001 / 004: PlayTennis ------------------------------------------------------------


def test_play_tennis_tables(tennis_ml):
    p = tennis_ml.params
    expected = {
        ("outlook", "Sunny"): (2 / 9, 3 / 5),
        ("outlook", "Overcast"): (4 / 9, 0 / 5),
        ("outlook", "Rain"): (3 / 9, 2 / 5),
        ("temperature", "Hot"): (2 / 9, 2 / 5),
        ("temperature", "Mild"): (4 / 9, 2 / 5),
        ("temperature", "Cool"): (3 / 9, 1 / 5),
        ("humidity", "High"): (3 / 9, 4 / 5),
        ("humidity", "Normal"): (6 / 9, 1 / 5),
        ("wind", "Strong"): (3 / 9, 3 / 5),
        ("wind", "Weak"): (6 / 9, 2 / 5),
    }
    for (feature, value), (yes, no) in expected.items():
        table = p[feature]
        sel = {f"{feature}_category": value}
        assert table.sel(class_label="Yes", **sel).item() == pytest.approx(yes, abs=1e-15)
        assert table.sel(class_label="No", **sel).item() == pytest.approx(no, abs=1e-15)
    assert p["class_prob"].sel(class_label="Yes").item() == pytest.approx(9 / 14)
    assert p["class_prob"].sel(class_label="No").item() == pytest.approx(5 / 14)
    counts = tennis_ml.counts
    assert counts["outlook"].sel(class_label="No", outlook_category="Sunny").item() == 3
    assert counts["class_count"].sel(class_label="Yes").item() == 9


def test_play_tennis_decision(tennis_ml):
    joint = np.exp(tennis_ml.joint_log_likelihood(TENNIS_QUERY))[0]
    yes = 2 / 9 * 3 / 9 * 3 / 9 * 3 / 9 * 9 / 14
    no = 3 / 5 * 1 / 5 * 4 / 5 * 3 / 5 * 5 / 14
    assert joint[tennis_ml.labels.index("Yes")] == pytest.approx(yes, rel=1e-12)
    assert joint[tennis_ml.labels.index("No")] == pytest.approx(no, rel=1e-12)
    # Seed 001 prints 0.0053 and 0.0206; seed 004 rounds to 0.005 and 0.021.
    assert round(yes, 4) == 0.0053 and round(no, 4) == 0.0206
    assert round(yes, 3) == 0.005 and round(no, 3) == 0.021
    assert tennis_ml.predict(TENNIS_QUERY)[0] == "No"
    # Seed 001 writes "P(Yes | x') ≈ ... = 0.0053": that number is the joint
    # P(x', Yes), proportional to the posterior; the posteriors are 0.205 and 0.795.
    proba = tennis_ml.predict_proba(TENNIS_QUERY)[0]
    assert proba[tennis_ml.labels.index("No")] == pytest.approx(no / (yes + no))
    assert round(proba[tennis_ml.labels.index("Yes")], 3) == 0.205
    assert round(proba[tennis_ml.labels.index("No")], 3) == 0.795


def test_zero_conditional_probability_rules_out_a_class(tennis_ml):
    # P(Overcast | No) = 0 under ML: any overcast day is "Yes" with certainty.
    overcast = TENNIS_QUERY.assign(outlook="Overcast")
    proba = tennis_ml.predict_proba(overcast)[0]
    assert proba[tennis_ml.labels.index("No")] == 0.0
    assert np.isneginf(tennis_ml.predict_log_proba(overcast)[0, tennis_ml.labels.index("No")])


def test_m_estimate_outlook_given_no():
    # m = 1 virtual example, p = 1/3. The seed prints 1/6, 5/6 and 5/6, which are
    # slips: (0 + 1/3)/6 = 1/18, (3 + 1/3)/6 = 5/9 and (2 + 1/3)/6 = 7/18 (they sum to 1).
    fit = bnb.NaiveBayes({"outlook": bnb.Categorical(bnb.m_estimate(1, 1 / 3))}).fit(
        bnb.datasets.play_tennis()[["outlook", "play"]], target="play", estimate="mean"
    )
    no = fit.params["outlook"].sel(class_label="No")
    assert no.sel(outlook_category="Overcast").item() == pytest.approx(1 / 18)
    assert no.sel(outlook_category="Sunny").item() == pytest.approx(5 / 9)
    assert no.sel(outlook_category="Rain").item() == pytest.approx(7 / 18)
    assert no.sum().item() == pytest.approx(1.0)


def test_m_estimate_with_m_equal_vocabulary_is_laplace():
    # Seed 004: p_k = 1/|V|, m = |V| gives (n_k + 1)/(n + |V|).
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 9, size=(2, 7)).astype(float)
    m_est = bnb.m_estimate(7, 1 / 7).point_estimate(counts, "mean")
    lap = (counts + 1) / (counts.sum(axis=1, keepdims=True) + 7)
    np.testing.assert_allclose(np.exp(m_est), lap, rtol=1e-14)


# -- seed 001: the continuous temperature example ------------------------------------------


def test_temperature_gaussian_both_variances():
    data = bnb.datasets.temperature()
    unbiased = bnb.NaiveBayes({"temperature": bnb.Gaussian(ddof=1)}).fit(
        data, target="play", estimate="ml"
    )
    ml = bnb.NaiveBayes({"temperature": bnb.Gaussian(ddof=0)}).fit(
        data, target="play", estimate="ml"
    )
    mu = unbiased.params["temperature_mu"]
    assert mu.sel(class_label="Yes").item() == pytest.approx(194.8 / 9)
    assert round(mu.sel(class_label="Yes").item(), 2) == 21.64
    assert round(mu.sel(class_label="No").item(), 2) == 23.88
    # The printed sigmas 2.35 and 7.09 come from the N-1 variance (ddof=1) ...
    sigma = unbiased.params["temperature_sigma"]
    assert round(sigma.sel(class_label="Yes").item(), 2) == 2.35
    assert round(sigma.sel(class_label="No").item(), 2) == 7.09
    # ... while the printed formula is the 1/N one, which gives 2.22 and 6.34.
    sigma_ml = ml.params["temperature_sigma"]
    assert round(sigma_ml.sel(class_label="Yes").item(), 2) == 2.22
    assert round(sigma_ml.sel(class_label="No").item(), 2) == 6.34
    # The slide's denominators 2*sigma^2 are printed as 11.09 and 50.25; with the
    # N-1 sigmas they are 11.08 and 100.52 (50.25 is sigma^2, not 2 sigma^2).
    var = unbiased.params["temperature_var"]
    assert round(2 * var.sel(class_label="Yes").item(), 2) == 11.08
    assert round(2 * var.sel(class_label="No").item(), 2) == 100.52


def test_temperature_density_matches_formula():
    data = bnb.datasets.temperature()
    fit = bnb.NaiveBayes({"temperature": bnb.Gaussian(ddof=1)}).fit(
        data, target="play", estimate="ml"
    )
    x = pd.DataFrame({"temperature": [22.0]})
    joint = fit.joint_log_likelihood(x)[0] - np.log(fit.params["class_prob"].values)
    yes = data.temperature[data.play == "Yes"]
    mu, sd = yes.mean(), yes.std(ddof=1)
    density = np.exp(-((22.0 - mu) ** 2) / (2 * sd**2)) / (sd * np.sqrt(2 * np.pi))
    assert np.exp(joint[fit.labels.index("Yes")]) == pytest.approx(density, rel=1e-12)


# -- seed 002: Laplace smoothing -------------------------------------------------------------


def test_laplace_k_formula_and_limits():
    df = bnb.datasets.play_tennis()[["outlook", "play"]]
    counts = {"Sunny": 3, "Overcast": 0, "Rain": 2}  # given No, N = 5, |X| = 3
    for k in (0.5, 1, 2, 10):
        fit = bnb.NaiveBayes({"outlook": bnb.Categorical(bnb.laplace(k))}).fit(
            df, target="play", estimate="mean"
        )
        no = fit.params["outlook"].sel(class_label="No")
        for value, c in counts.items():
            expected = (c + k) / (5 + 3 * k)
            assert no.sel(outlook_category=value).item() == pytest.approx(expected, rel=1e-14)
    # Seed 002: "k = 0 gives P_MLE". laplace(0) itself refuses (it names
    # estimate="ml"); as k -> 0 the estimates reach the ML fractions 3/5, 0, 2/5.
    tiny = bnb.NaiveBayes({"outlook": bnb.Categorical(bnb.laplace(1e-12))}).fit(
        df, target="play", estimate="mean"
    )
    no = tiny.params["outlook"].sel(class_label="No")
    np.testing.assert_allclose(
        no.sel(outlook_category=["Sunny", "Overcast", "Rain"]), [3 / 5, 0, 2 / 5], atol=1e-12
    )
    # k -> infinity: uniform.
    huge = bnb.NaiveBayes({"outlook": bnb.Categorical(bnb.laplace(1e15))}).fit(
        df, target="play", estimate="mean"
    )
    np.testing.assert_allclose(huge.params["outlook"].values, 1 / 3, rtol=1e-12)


# -- seeds 000 / 002 / 003: parameter counts ---------------------------------------------------


@pytest.mark.parametrize("n", [1, 3, 10])
def test_parameter_counts(n):
    # Seed 000: a general distribution over n Boolean attributes has 2^n - 1 free
    # parameters; naive Bayes has n. (Seed 003 prints "2n-1" for the first: a slip
    # for 2^n - 1.)
    assert bnb.count_parameters([2] * n) == {"naive_bayes": n, "full_joint": 2**n - 1}
    # Seed 003: with a Boolean class, naive Bayes has 2n + 1 parameters.
    assert bnb.count_parameters([2] * n, n_labels=2)["naive_bayes"] == 2 * n + 1


def test_parameter_counts_of_a_fit():
    # Seed 002: a joint table over n Boolean features and the label has 2^(n+1) entries;
    # naive Bayes tables have 4n + 2 entries.
    n = 5
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 2, size=(40, n)).astype(bool), columns=list("abcde"))
    fit = bnb.NaiveBayes().fit(X, y=rng.integers(0, 2, 40), estimate="mean")
    counts = fit.parameter_counts()
    assert counts["full_joint_entries"] == 2 ** (n + 1)
    assert counts["naive_bayes_entries"] == 4 * n + 2
    assert counts["naive_bayes"] == 2 * n + 1
    assert counts["full_joint"] == 2 ** (n + 1) - 1
    assert fit.n_parameters() == 2 * n + 1  # the int AIC/BIC count
    # Seed 003, multi-valued: k classes, n attributes of m values. The seed's
    # "k*m*n + k - 1" parameters is a slip: it counts every feature entry but only the
    # free class probabilities. The tables have k*m*n + k entries; the free parameters
    # are k*(m-1)*n + k - 1.
    k, m = 3, 4
    assert bnb.count_parameters([m] * n, n_labels=k)["naive_bayes"] == k * (m - 1) * n + k - 1


def test_sufficient_statistics_counts():
    """Seed 003: Boolean class and n Boolean attributes need 4n + 3 counts (N, N_T,
    N_F and four per attribute); k classes and n attributes of m values need
    k*m*n + k + 1 (N, k class counts, k*m per attribute). ``fit.counts`` holds all
    but N, which is the class counts' sum."""
    fit = bnb.NaiveBayes().fit(BOOLEAN_ROWS, target="C", estimate="ml")
    counts = fit.counts
    n = 2
    assert sum(counts[v].size for v in counts.data_vars) + 1 == 4 * n + 3
    assert counts["class_count"].sel(class_label=["T", "F"]).values.tolist() == [6, 3]
    assert counts["x1"].sel(class_label="T").values.tolist() == [2, 4]  # N_{1,F}^T, N_{1,T}^T
    assert counts["x1"].sel(class_label="F").values.tolist() == [2, 1]
    for column in ("x1", "x2"):  # each attribute's four counts add up to N
        assert counts[column].sum().item() == counts["class_count"].sum().item() == 9
    k, m, n = 3, 4, 5
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.integers(0, m, size=(60, n)), columns=list("abcde"))
    fit = bnb.NaiveBayes(bnb.Categorical(categories=range(m))).fit(X, y=rng.integers(0, k, 60))
    counts = fit.counts
    assert sum(counts[v].size for v in counts.data_vars) + 1 == k * m * n + k + 1


# -- seed 000: the linear separator ----------------------------------------------------------


def test_linear_weights_reproduce_predict_on_every_row():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.random((300, 8)) < rng.random(8), columns=[f"x{i}" for i in range(8)])
    y = np.where(X.x0 ^ (rng.random(300) < 0.2), "T", "F")
    fit = bnb.NaiveBayes().fit(X, y=y, estimate="mean")
    w0, w = fit.linear_weights()
    score = w0 + X.to_numpy(float) @ w.sel(feature=list(X.columns)).values
    predicted = np.where(score >= 0, "T", "F")
    np.testing.assert_array_equal(predicted, fit.predict(X))
    # w0 + w.x is the log posterior odds of T against F.
    log_proba = fit.predict_log_proba(X)
    np.testing.assert_allclose(score, log_proba[:, 1] - log_proba[:, 0], rtol=1e-10, atol=1e-10)


def test_linear_weights_formula():
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.random((50, 3)) < 0.5, columns=["a", "b", "c"])
    y = rng.integers(0, 2, 50)
    fit = bnb.NaiveBayes().fit(X, y=y, estimate="mean")
    theta_c = fit.params["class_prob"].values[1]
    t = np.array([fit.params[c].sel(class_label=1).item() for c in "abc"])
    f = np.array([fit.params[c].sel(class_label=0).item() for c in "abc"])
    w0, w = fit.linear_weights()
    expected_w0 = (
        np.log(theta_c) + np.log(1 - t).sum() - (np.log(1 - theta_c) + np.log(1 - f).sum())
    )
    expected_w = np.log(t) - np.log(1 - t) - (np.log(f) - np.log(1 - f))
    assert w0 == pytest.approx(expected_w0, rel=1e-12)
    np.testing.assert_allclose(w.values, expected_w, rtol=1e-12)


# -- seed 001: the dice quiz ---------------------------------------------------------------


def test_dice_quiz():
    """Two fair dice; A: die 1 shows 3, B: die 2 shows 1, C: the sum is 8. By counting
    the 36 outcomes: P(A) = P(B) = 1/6, P(C) = 5/36, P(A | B) = P(C | A) = 1/6,
    P(A, B) = P(A, C) = 1/36; and P(A)P(C) = 5/216 is not P(A, C)."""
    from bayesnb import bayesnet as bn

    faces = range(1, 7)
    table = xr.DataArray(
        np.array([[[i + j != 8, i + j == 8] for j in faces] for i in faces]) / 36.0,
        dims=("die1", "die2", "eight"),
        coords={"die1": list(faces), "die2": list(faces), "eight": [False, True]},
    )
    p_a = bn.marginal(table, "die1").sel(die1=3).item()
    p_b = bn.marginal(table, "die2").sel(die2=1).item()
    p_c = bn.marginal(table, "eight").sel(eight=True).item()
    assert (p_a, p_b, p_c) == pytest.approx((1 / 6, 1 / 6, 5 / 36), rel=1e-14)
    assert bn.conditional(table, "die1", "die2").sel(die1=3, die2=1).item() == pytest.approx(
        1 / 6, rel=1e-14
    )
    assert bn.conditional(table, "eight", "die1").sel(eight=True, die1=3).item() == (
        pytest.approx(1 / 6, rel=1e-14)
    )
    p_ab = bn.marginal(table, ["die1", "die2"]).sel(die1=3, die2=1).item()
    p_ac = bn.marginal(table, ["die1", "eight"]).sel(die1=3, eight=True).item()
    assert (p_ab, p_ac) == pytest.approx((1 / 36, 1 / 36), rel=1e-14)
    assert p_a * p_c == pytest.approx(5 / 216, rel=1e-14)  # question 8: no
    assert p_ac != pytest.approx(p_a * p_c)
    # independence as variables: the dice are, die 1 and the sum are not
    assert bn.is_independent(table, "die1", "die2")
    assert not bn.is_independent(table, "die1", "eight")


# -- seed 003: logsumexp -------------------------------------------------------------------


def test_posteriors_of_scores_far_below_exp_range():
    """Seed 003's logsumexp slide writes log sum_i exp(-x_i) = -a + log sum_i
    exp(-x_i + a) with a = max_i x_i. The identity holds for any a, but that choice
    overflows: for x = (1, 1000) it gives inf where the value is -1 (to 1e-434). The
    safe shift is a = min_i x_i, the largest term. (The slides' responsibility
    gamma_{i,j} also writes pi_k, mu_k, Sigma_k in its numerator for the cluster j.)

    The package's posteriors on a row whose joint log-likelihoods are near -1e6 match
    scipy's densities normalized with the safe shift."""
    x = np.array([1.0, 1000.0])
    with np.errstate(over="ignore"):
        assert np.isinf(-x.max() + np.log(np.sum(np.exp(-x + x.max()))))
    assert -x.min() + np.log(np.sum(np.exp(-x + x.min()))) == -1.0
    rows = pd.DataFrame({"v": [0.0, 0.5, 1.0, 3.0, 3.5, 4.5], "c": list("aaabbb")})
    fit = bnb.NaiveBayes({"v": bnb.Gaussian()}).fit(rows, target="c", estimate="ml")
    far = pd.DataFrame({"v": [400.0]})
    joint = [
        np.log(0.5) + stats.norm.logpdf(400.0, m, np.sqrt(v))
        for m, v in ((0.5, 1 / 6), (11 / 3, 7 / 18))  # each class's ML mean and variance
    ]
    assert max(joint) < -1e5  # exp() of either is 0.0 in float64
    shift = max(joint)  # = -min_i x_i for x_i = -joint_i
    expected = np.array(joint) - (shift + np.log(np.sum(np.exp(np.array(joint) - shift))))
    np.testing.assert_allclose(fit.predict_log_proba(far)[0], expected, rtol=1e-12)
    assert np.isfinite(fit.predict_log_proba(far)).all()
