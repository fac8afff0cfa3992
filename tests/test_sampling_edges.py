"""Edges of drawing rows and of the Student-t densities: draws under
``estimate="predictive"`` (Gaussian and MultivariateGaussian, every covariance),
Student-t log densities of values beyond 1e154 scales, categories that are tuples,
and a mixture's per-component prior of the wrong shape.

Every oracle is independent of the package: the posterior predictive written out from
the conjugate update, scipy's Student-t and F distributions (Kolmogorov-Smirnov tests at
fixed seeds, whose p-values a correct sampler puts anywhere in (0, 1) and a Gaussian in
place of the Student-t puts below 1e-9), the Student-t log density evaluated in 50-digit
decimal arithmetic, and frequencies against Dirichlet posterior means within four
binomial standard errors.
"""

import math
from decimal import Decimal, localcontext

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesnb as bnb

#: Draws for a Kolmogorov-Smirnov test: its statistic's sd is about 0.5/sqrt(N) = 0.0035,
#: and a normal in place of a Student-t with <= 9 degrees of freedom is >= 0.015 off.
N_DRAWS = 20_000
#: Below this p-value a sampler is wrong: a correct one falls there once in 10^4 seeds.
P_MIN = 1e-4


def _t_logpdf_decimal(x: float, df: float, loc: float, scale2: float) -> float:
    """The Student-t log density in 50-digit decimal arithmetic: ``(x - loc)**2`` has
    no overflow there, whatever the size of x. ``lgamma`` comes from math (the
    normalizing constant is O(1), its float error 1e-16 absolute)."""
    with localcontext() as ctx:
        ctx.prec = 50
        dev = Decimal(x) - Decimal(loc)
        log_term = (Decimal(1) + dev * dev / (Decimal(df) * Decimal(scale2))).ln()
        const = (
            math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi * scale2)
        )
        return float(Decimal(const) - Decimal((df + 1) / 2) * log_term)


def _nig_predictive(x, mu0, kappa, alpha, beta):
    """The Normal-Inverse-Gamma posterior predictive by hand: Student-t with 2 alpha_n
    degrees of freedom, location mu_n and squared scale beta_n (kappa_n + 1) /
    (alpha_n kappa_n)."""
    n, xbar = len(x), float(np.mean(x))
    ss = float(np.sum((x - xbar) ** 2))
    kappa_n, alpha_n = kappa + n, alpha + n / 2
    mu_n = (kappa * mu0 + n * xbar) / kappa_n
    beta_n = beta + ss / 2 + kappa * n * (xbar - mu0) ** 2 / (2 * kappa_n)
    return 2 * alpha_n, mu_n, beta_n * (kappa_n + 1) / (alpha_n * kappa_n)


def _mahalanobis_f(draws, mu, scale) -> np.ndarray:
    """``(x - mu)' S^-1 (x - mu) / d`` of every draw: F(d, df) under a multivariate
    Student-t with df degrees of freedom, location mu and scale matrix S."""
    dev = draws - mu
    return np.einsum("ni,ij,nj->n", dev, np.linalg.inv(scale), dev) / len(mu)


# -- drawing from the posterior predictive ------------------------------------------------
def test_gaussian_predictive_draws_are_the_hand_derived_student_t():
    x = np.array([0.3, -1.2, 2.0, 0.7])
    prior = bnb.NormalInverseGamma(mu=1.0, kappa=2.0, alpha=1.5, beta=2.0)
    fit = bnb.NaiveBayes(bnb.Gaussian(prior)).density(pd.DataFrame({"g": x}), estimate="predictive")
    df, loc, scale2 = _nig_predictive(x, 1.0, 2.0, 1.5, 2.0)
    assert df == 7.0  # few degrees of freedom: tails a normal would miss
    draws = fit.sample(N_DRAWS, random_state=0)["g"].to_numpy()
    predictive = stats.t(df, loc, math.sqrt(scale2))
    assert stats.kstest(draws, predictive.cdf).pvalue > P_MIN
    # the test has the power to tell: a normal of that scale is rejected
    assert stats.kstest(draws, stats.norm(loc, math.sqrt(scale2)).cdf).pvalue < 1e-6
    # beyond 3 scales: 1.97% of a t7's mass (0.27% of a normal's), 4 binomial sds
    tail = np.mean(np.abs(draws - loc) > 3 * math.sqrt(scale2))
    p = 2 * stats.t.sf(3, df)
    assert abs(tail - p) < 4 * math.sqrt(p * (1 - p) / N_DRAWS)


def test_gaussian_block_predictive_draws_every_column_its_own_t():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"g": rng.normal(5, 2, 6), "h": rng.normal(-1, 0.1, 6)})
    prior = bnb.NormalInverseGamma(mu=0.0, kappa=1.0, alpha=1.0, beta=1.0)
    fit = bnb.NaiveBayes(bnb.Gaussian(prior)).density(frame, estimate="predictive")
    draws = fit.sample(N_DRAWS, random_state=1)
    for col in ("g", "h"):
        df, loc, scale2 = _nig_predictive(frame[col].to_numpy(), 0.0, 1.0, 1.0, 1.0)
        predictive = stats.t(df, loc, math.sqrt(scale2))
        assert stats.kstest(draws[col].to_numpy(), predictive.cdf).pvalue > P_MIN


def test_multivariate_predictive_draws_match_the_hand_derived_student_t():
    rng = np.random.default_rng(5)
    x = rng.multivariate_normal([10.0, -3.0], [[2.0, 1.2], [1.2, 1.5]], size=6)
    mu0, kappa, nu = np.array([9.0, -2.0]), 0.5, 4.0
    psi = np.array([[1.0, 0.3], [0.3, 2.0]])
    prior = bnb.NormalInverseWishart(mu=mu0, kappa=kappa, nu=nu, psi=psi)
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(prior)).density(
        pd.DataFrame(x, columns=["u", "v"]), estimate="predictive"
    )
    # the conjugate update and its predictive (Murphy 2007, eq. 232), by hand
    n, xbar = len(x), x.mean(axis=0)
    scatter = (x - xbar).T @ (x - xbar)
    kappa_n, nu_n = kappa + n, nu + n
    mu_n = (kappa * mu0 + n * xbar) / kappa_n
    psi_n = psi + scatter + kappa * n / kappa_n * np.outer(xbar - mu0, xbar - mu0)
    df = nu_n - 2 + 1
    scale = psi_n * (kappa_n + 1) / (kappa_n * df)
    draws = fit.sample(N_DRAWS, random_state=2)[["u", "v"]].to_numpy()
    # jointly: the squared Mahalanobis distance over d is F(d, df)
    f = _mahalanobis_f(draws, mu_n, scale)
    assert stats.kstest(f, stats.f(2, df).cdf).pvalue > P_MIN
    # every projection a'x is a univariate t(df, a'mu, sqrt(a'Sa))
    for a in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([1.0, -2.0])):
        t = stats.t(df, a @ mu_n, math.sqrt(a @ scale @ a))
        assert stats.kstest(draws @ a, t.cdf).pvalue > P_MIN
    # a Gaussian of that covariance would fail the joint test
    gauss = stats.chi2(2).cdf(2 * f)
    assert stats.kstest(gauss, "uniform").pvalue < 1e-6


@pytest.mark.parametrize("covariance", ["full", "spherical", "tied", "tied-spherical"])
def test_multivariate_predictive_draws_are_one_multivariate_t(covariance):
    """df (K,): one multivariate t, its parameters read from ``params`` (the sampler is
    what is tested); the Mahalanobis F test tells it from independent columns."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        rng.multivariate_normal([0, 0, 0], [[1, 0.5, 0], [0.5, 2, 0.3], [0, 0.3, 1]], size=5),
        columns=["a", "b", "c"],
    )
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance)).density(
        frame, estimate="predictive"
    )
    df = float(fit.params["X_df"])
    mu, scale = fit.params["X_mu"].to_numpy(), fit.params["X_scale"].to_numpy()
    draws = fit.sample(N_DRAWS, random_state=4)[["a", "b", "c"]].to_numpy()
    assert stats.kstest(_mahalanobis_f(draws, mu, scale), stats.f(3, df).cdf).pvalue > P_MIN
    a = np.array([1.0, 2.0, -1.0])
    t = stats.t(df, a @ mu, math.sqrt(a @ scale @ a))
    assert stats.kstest(draws @ a, t.cdf).pvalue > P_MIN


def test_multivariate_diag_predictive_draws_independent_columns():
    """df (K, d): a product of univariate t's, so the columns' tails are independent
    (a multivariate t's are not: its one chi-square scales every column at once)."""
    rng = np.random.default_rng(8)
    frame = pd.DataFrame(rng.normal(size=(4, 2)) * [1.0, 3.0], columns=["a", "b"])
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="diag")).density(
        frame, estimate="predictive"
    )
    df = fit.params["X_df"].to_numpy()
    mu = fit.params["X_mu"].to_numpy()
    sd = np.sqrt(np.diagonal(fit.params["X_scale"].to_numpy()))
    assert df.shape == (2,)
    n = 2 * N_DRAWS
    draws = fit.sample(n, random_state=5)[["a", "b"]].to_numpy()
    z = (draws - mu) / sd
    for j in range(2):
        assert stats.kstest(z[:, j], stats.t(df[j]).cdf).pvalue > P_MIN
    c = 1.5
    p = 4 * stats.t.sf(c, df[0]) * stats.t.sf(c, df[1])  # both beyond c, independently
    both = np.mean((np.abs(z[:, 0]) > c) & (np.abs(z[:, 1]) > c))
    assert abs(both - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_predictive_draws_follow_each_rows_component():
    """Two components' Student-t parameters, drawn for interleaved rows: each row from
    its own component's t (``sample_codes`` without ``observed``/``rows``, as the
    Gaussian's, and ``sample``)."""
    rng = np.random.default_rng(9)
    frame = pd.DataFrame(rng.normal(size=(10, 2)), columns=["a", "b"])
    mv = bnb.NaiveBayes(bnb.MultivariateGaussian()).density(frame, estimate="predictive")
    uni = bnb.NaiveBayes(bnb.Gaussian(columns=["a", "b"])).density(frame, estimate="predictive")
    components = np.tile([0, 1], N_DRAWS)
    mv_params = {
        "df": np.array([3.0, 40.0]),
        "mu": np.array([[0.0, 0.0], [100.0, -50.0]]),
        "scale": np.array([[[1.0, 0.6], [0.6, 2.0]], [[4.0, 0.0], [0.0, 0.25]]]),
    }
    uni_params = {
        "df": np.array([[3.0, 5.0], [40.0, 2.5]]),
        "mu": np.array([[0.0, 1.0], [100.0, -50.0]]),
        "scale2": np.array([[1.0, 2.0], [4.0, 0.25]]),
    }
    mv_block, uni_block = mv.blocks[0], uni.blocks[0]
    mv_draws = mv_block.sample_codes(mv_params, components, np.random.default_rng(0))
    uni_draws = uni_block.sample_codes(uni_params, components, np.random.default_rng(0))
    assert mv_draws.shape == uni_draws.shape == (2 * N_DRAWS, 2)
    for k in (0, 1):
        rows = components == k
        dev = mv_draws[rows] - mv_params["mu"][k]
        q = np.einsum("ni,ij,nj->n", dev, np.linalg.inv(mv_params["scale"][k]), dev) / 2
        assert stats.kstest(q, stats.f(2, mv_params["df"][k]).cdf).pvalue > P_MIN
        for j in range(2):
            t = stats.t(
                uni_params["df"][k, j],
                uni_params["mu"][k, j],
                math.sqrt(uni_params["scale2"][k, j]),
            )
            assert stats.kstest(uni_draws[rows, j], t.cdf).pvalue > P_MIN


# -- Student-t log densities far out --------------------------------------------------------
FAR = [1e150, 1.3e154, 1.35e154, 1e155, 1e200, 1e300, -1e300]


def test_gaussian_predictive_log_density_stays_finite_far_out():
    x = np.array([0.3, -1.2, 2.0, 0.7, 1.1])
    fit = bnb.NaiveBayes().density(pd.DataFrame({"g": x}), estimate="predictive")
    df, loc, scale2 = (float(fit.params[f"g_{k}"]) for k in ("df", "mu", "scale2"))
    got = fit.log_density(pd.DataFrame({"g": FAR}))
    want = np.array([_t_logpdf_decimal(v, df, loc, scale2) for v in FAR])
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    # ordinary values: scipy's Student-t
    near = np.array([-40.0, -2.0, 0.0, 0.5, 3.0, 1e5, 1e100])
    ours = fit.log_density(pd.DataFrame({"g": near}))
    np.testing.assert_allclose(
        ours, stats.t.logpdf(near, df, loc, math.sqrt(scale2)), rtol=1e-12, atol=1e-13
    )


def test_multivariate_diag_predictive_log_density_stays_finite_far_out():
    rng = np.random.default_rng(11)
    frame = pd.DataFrame(rng.normal(size=(8, 2)), columns=["a", "b"])
    fit = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance="diag")).density(
        frame, estimate="predictive"
    )
    df, mu = fit.params["X_df"].to_numpy(), fit.params["X_mu"].to_numpy()
    scale2 = np.diagonal(fit.params["X_scale"].to_numpy())
    rows = [(1e155, 0.5), (-1e300, 1e300), (2.0, 1e200), (np.nan, 1e300)]
    got = fit.log_density(pd.DataFrame(rows, columns=["a", "b"]))
    want = [
        sum(
            _t_logpdf_decimal(v, df[j], mu[j], scale2[j])
            for j, v in enumerate(row)
            if not np.isnan(v)
        )
        for row in rows
    ]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_classifier_posterior_far_out_is_the_ratio_of_student_t_tails():
    """Far out, both classes' densities are finite, and the posterior is their ratio
    times the class probabilities, from the decimal log densities."""
    rng = np.random.default_rng(12)
    X = pd.DataFrame({"g": np.r_[rng.normal(0, 1, 8), rng.normal(3, 2, 5)]})
    y = np.array(["a"] * 8 + ["b"] * 5)
    fit = bnb.NaiveBayes().fit(X, y, estimate="predictive")
    params = fit.params
    for value in (1e200, -1e300):
        logs = np.array(
            [
                math.log(float(params["class_prob"].sel(class_label=c)))
                + _t_logpdf_decimal(
                    value,
                    *(float(params[f"g_{k}"].sel(class_label=c)) for k in ("df", "mu", "scale2")),
                )
                for c in ("a", "b")
            ]
        )
        want = np.exp(logs - logs.max())
        want /= want.sum()
        got = fit.predict_proba(pd.DataFrame({"g": [value]}))[0]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-300)


# -- categories that are tuples -------------------------------------------------------------
def test_tuple_categories_are_drawn_as_tuples_at_their_probabilities():
    values = [(1, 2)] * 6 + [(3, 4)] * 3 + [(5,)]
    frame = pd.DataFrame({"a": pd.Series(values, dtype=object)})
    fit = bnb.NaiveBayes().density(frame)
    drawn = fit.sample(N_DRAWS, random_state=0)["a"]
    assert drawn.shape == (N_DRAWS,)
    assert all(type(v) is tuple for v in drawn)
    # the Dirichlet(1) posterior mean, (count + 1) / (n + K)
    for value, count in (((1, 2), 6), ((3, 4), 3), ((5,), 1)):
        p = (count + 1) / (len(values) + 3)
        freq = float(np.mean([v == value for v in drawn]))
        assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / N_DRAWS)


def test_tuple_categories_in_a_block_with_other_columns():
    """A Categorical block of two tuple-valued columns (one of 1-tuples, which NumPy
    would spread into a column of ints) beside a Gaussian: each column keeps its own
    tuples, and a plain integer column stays integers."""
    frame = pd.DataFrame(
        {
            "a": pd.Series([(1, 2), (3, 4)] * 5, dtype=object),
            "b": pd.Series([(7,), (8,)] * 5, dtype=object),
            "n": [1, 2] * 5,
            "g": np.linspace(0, 1, 10),
        }
    )
    features = {"ab": bnb.Categorical(columns=["a", "b"]), "n": bnb.Categorical()}
    fit = bnb.NaiveBayes({**features, "g": bnb.Gaussian()}).density(frame)
    drawn = fit.sample(500, random_state=1)
    assert list(drawn.columns) == ["a", "b", "n", "g"]
    assert set(drawn["a"]) == {(1, 2), (3, 4)}
    assert set(drawn["b"]) == {(7,), (8,)}
    assert set(drawn["n"]) == {1, 2}
    assert drawn["g"].dtype == float


def test_mixture_draws_tuple_categories_at_the_mixed_probabilities():
    rng = np.random.default_rng(2)
    values = pd.Series([(0, "x")] * 30 + [(1, "y")] * 30, dtype=object)
    frame = pd.DataFrame({"t": values, "g": np.r_[rng.normal(0, 1, 30), rng.normal(8, 1, 30)]})
    fit = bnb.NaiveBayes().cluster(frame, 2, random_state=0)
    drawn = fit.sample(N_DRAWS, random_state=3)
    assert all(type(v) is tuple for v in drawn["t"])
    weights = fit.params["class_prob"].to_numpy()
    probs = fit.params["t"].sel(t_category=(0, "x")).to_numpy()  # per component
    p = float(weights @ probs)
    freq = float(np.mean([v == (0, "x") for v in drawn["t"]]))
    assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / N_DRAWS)


# -- a mixture's per-component prior of the wrong shape -----------------------------------
def _two_groups() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"a": np.r_[rng.normal(0, 1, 30), rng.normal(5, 1, 30)]})


@pytest.mark.parametrize("method", ["em", "mcmc"])
def test_mixture_prior_with_wrong_rows_names_feature_and_parameter(method):
    prior = bnb.NormalInverseGamma(mu=0.0, beta=np.ones((3, 1)))
    model = bnb.NaiveBayes({"a": bnb.Gaussian(prior)})
    options = {"draws": 20, "tune": 20, "chains": 2} if method == "mcmc" else {}
    with pytest.raises(bnb.errors.InputError) as info:
        model.cluster(_two_groups(), 2, method=method, random_state=0, **options)
    message = str(info.value)
    assert "NormalInverseGamma beta of Gaussian feature 'a' has shape (3, 1)" in message
    assert "(2, 1)" in message  # the expected rows: one per component


def test_mixture_prior_with_one_row_per_component_is_accepted():
    """The positive control: beta (2, 1) for two components fits, and EM's components
    land on the two groups' means."""
    prior = bnb.NormalInverseGamma(mu=2.5, kappa=0.01, alpha=1.5, beta=np.array([[1.0], [2.0]]))
    fit = bnb.NaiveBayes({"a": bnb.Gaussian(prior)}).cluster(_two_groups(), 2, random_state=0)
    means = np.sort(fit.params["a_mu"].to_numpy())
    np.testing.assert_allclose(means, [0.0, 5.0], atol=0.6)


# -- draws in the training columns' dtypes -------------------------------------------------


def _typed_frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "b": rng.random(n) < 0.3,
            "c": pd.Categorical(
                rng.choice(["lo", "mid", "hi"], n),
                categories=["lo", "mid", "hi", "unused"],
                ordered=True,
            ),
            "s": pd.array(rng.choice(["p", "q"], n), dtype="string"),
            "i": pd.array(rng.integers(1, 4, n), dtype="Int64"),
            "k": rng.integers(0, 3, n),
            "f": np.where(rng.random(n) < 0.5, 1.0, 0.0),
            "g": rng.normal(size=n),
        }
    )


def _typed_model():
    return bnb.NaiveBayes(
        {
            "b": bnb.Bernoulli(),
            "c": bnb.Categorical(),
            "s": bnb.Categorical(),
            "i": bnb.Categorical(),
            "k": bnb.Categorical(),
            "f": bnb.Bernoulli(),
            "g": bnb.Gaussian(),
        }
    )


def test_draws_come_back_in_the_training_columns_dtypes(tmp_path):
    X = _typed_frame()
    fit = _typed_model().density(X, estimate="mean")
    drawn = fit.sample(20_000, random_state=0)
    assert drawn.dtypes.to_dict() == X.dtypes.to_dict()
    assert drawn["c"].cat.categories.tolist() == ["lo", "mid", "hi", "unused"]
    assert drawn["c"].cat.ordered
    # the Booleans' share is the Beta(1, 1) posterior mean (m + 1) / (n + 2)
    p = (X["b"].sum() + 1) / (len(X) + 2)
    assert abs(drawn["b"].mean() - p) < 4 * math.sqrt(p * (1 - p) / len(drawn))
    # an ordered categorical's draws compare by its order
    assert ((drawn["c"] <= "mid") == drawn["c"].isin(["lo", "mid"])).all()
    # saved and read back: the same draws, in the same dtypes
    fit.save(tmp_path / "typed.nc")
    again = bnb.load(tmp_path / "typed.nc").sample(20_000, random_state=0)
    pd.testing.assert_frame_equal(again, drawn)


def test_a_mixture_draws_in_the_training_dtypes_after_its_component():
    X = _typed_frame(n=200, seed=1)
    fit = _typed_model().cluster(X, 2, random_state=0)
    drawn = fit.sample(50, random_state=0)
    assert drawn.dtypes.drop("component").to_dict() == X.dtypes.to_dict()


def test_a_draw_of_the_new_cell_keeps_the_categorical_column_as_values():
    X = pd.DataFrame({"c": pd.Categorical(["a", "b", "a", "b"])})
    model = bnb.NaiveBayes({"c": bnb.Categorical(unseen="predictive", alpha_new=50.0)})
    drawn = model.density(X).sample(200, random_state=0)["c"]
    # "<new>" is no category of the training column: the values stay plain labels
    assert not isinstance(drawn.dtype, pd.CategoricalDtype)
    assert set(drawn) == {"a", "b", "<new>"}


@pytest.mark.parametrize(
    "column",
    [pd.Series([True, False, True, True]), pd.Series([0, 1, 1, 1], dtype="uint8")],
)
def test_the_new_cell_is_drawn_as_itself_beside_a_typed_column(column):
    model = bnb.NaiveBayes({"c": bnb.Categorical(unseen="predictive", alpha_new=5.0)})
    drawn = model.density(pd.DataFrame({"c": column})).sample(20_000, random_state=0)["c"]
    # P(<new>) = alpha_new / (n + 2 + alpha_new) = 5/11 under the posterior mean
    share = float((drawn == "<new>").mean())
    assert abs(share - 5 / 11) < 4 * math.sqrt(5 / 11 * 6 / 11 / len(drawn))
    assert set(drawn) == {"<new>", *column.tolist()}


def test_a_bernoulli_on_a_categorical_keeps_its_categories_and_order(tmp_path):
    X = pd.DataFrame(
        {"c": pd.Categorical(["n", "y", "y", "n"], categories=["y", "n", "maybe"], ordered=True)}
    )
    fit = bnb.NaiveBayes({"c": bnb.Bernoulli()}).density(X)
    fit.save(tmp_path / "c.nc")
    for drawn in (fit.sample(50, random_state=0), bnb.load(tmp_path / "c.nc").sample(50)):
        assert drawn["c"].dtype == X["c"].dtype  # categories y < n < maybe, ordered
        assert set(drawn["c"]) == {"y", "n"}
