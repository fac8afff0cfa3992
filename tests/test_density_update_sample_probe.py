"""Densities, sequential updates, draws and the Binned family against independent
oracles: numerical integration (scipy), exact enumeration, hand counts, scipy's
distributions and the invariant that an update equals one fit on every row."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import bayesnb as bnb
from bayesnb import errors
from bayesnb.families.discrete import _uniform_within

ESTIMATES = ("ml", "map", "mean", "predictive")
EDGES = [0.0, 1.0, 3.0, 6.0, 10.0]


def _mixed(n: int, seed: int, *, missing: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "g": rng.normal(3.0, 2.0, n),
            "b": rng.uniform(0.0, 10.0, n),
            "c": rng.choice(list("xyz"), n).astype(object),
            "t": pd.Series(rng.random(n) < 0.3, dtype=object),
        }
    )
    if missing:
        for col in frame.columns:
            frame.loc[rng.random(n) < 0.15, col] = np.nan if col in ("g", "b") else None
    return frame


def _mixed_model(gaussian=None) -> bnb.NaiveBayes:
    return bnb.NaiveBayes(
        {
            "g": gaussian or bnb.Gaussian(bnb.NormalInverseGamma(0.0, 1.0, 2.0, 3.0)),
            "b": bnb.Binned(edges=EDGES),
            "c": bnb.Categorical(categories=list("xyz")),
            "t": bnb.Bernoulli(),
        }
    )


def _alone(column: str, values) -> pd.DataFrame:
    """Rows holding ``values`` in ``column`` and nothing (missing) elsewhere."""
    frame = pd.DataFrame({c: pd.Series([None] * len(values), dtype=object) for c in "gbct"})
    frame["g"] = frame["g"].astype(float)
    frame["b"] = frame["b"].astype(float)
    frame[column] = pd.Series(list(values), dtype=float if column in "gb" else object)
    return frame


# -- the density: it integrates / sums to one, a missing value is marginalized ------------
@pytest.mark.parametrize("estimate", ESTIMATES)
def test_every_marginal_integrates_and_sums_to_one(estimate):
    density = _mixed_model(bnb.Gaussian()).density(_mixed(60, 1), estimate=estimate)

    def at(column, v):
        return math.exp(density.log_density(_alone(column, [v]))[0])

    gaussian = integrate.quad(lambda v: at("g", v), -np.inf, np.inf, epsabs=1e-12)[0]
    binned = sum(
        integrate.quad(lambda v: at("b", v), lo, hi, epsabs=1e-12)[0]
        for lo, hi in itertools.pairwise(EDGES)
    )
    categorical = np.exp(density.log_density(_alone("c", "xyz"))).sum()
    boolean = np.exp(density.log_density(_alone("t", [False, True]))).sum()
    np.testing.assert_allclose([gaussian, binned, categorical, boolean], 1.0, atol=1e-9)


def test_the_joint_of_two_discrete_features_sums_to_one_and_missing_is_their_margin():
    X = _mixed(40, 2)[["c", "t"]]
    density = bnb.NaiveBayes({"c": bnb.Categorical(), "t": bnb.Bernoulli()}).density(X)
    grid = pd.DataFrame(
        [(c, t) for c in "xyz" for t in (False, True)], columns=["c", "t"], dtype=object
    )
    joint = np.exp(density.log_density(grid))
    assert joint.sum() == pytest.approx(1.0, abs=1e-12)
    # a missing t gives P(c), the joint summed over t
    margin = np.exp(density.log_density(pd.DataFrame({"c": list("xyz"), "t": [None] * 3})))
    np.testing.assert_allclose(margin, joint.reshape(3, 2).sum(axis=1), rtol=1e-12)


# -- Binned against a hand computation ------------------------------------------------------
def test_binned_log_density_is_the_add_one_bin_probability_over_its_width():
    x = [0.0, 1.0, 1.0, 3.0, 6.0, 10.0, 10.0, 2.5, 7.0, 0.5, np.nan]
    density = bnb.NaiveBayes({"v": bnb.Binned(edges=EDGES)}).density(pd.DataFrame({"v": x}))
    # bins [0, 1), [1, 3), [3, 6), [6, 10]: an edge opens the bin to its right, the
    # last edge closes the last bin; the NaN is not counted
    counts = np.array([2, 3, 1, 4])
    log_height = np.log((counts + 1) / (10 + 4)) - np.log(np.diff(EDGES))
    query = [0.0, 0.999, 1.0, 3.0, 5.99, 6.0, 10.0]
    got = density.log_density(pd.DataFrame({"v": query}))
    np.testing.assert_allclose(got, log_height[[0, 0, 1, 2, 2, 3, 3]], rtol=1e-13)
    assert density.log_density(pd.DataFrame({"v": [np.nan]}))[0] == 0.0


def test_binned_edges_whose_width_passes_the_largest_float_keep_a_finite_density():
    X = pd.DataFrame({"v": [-1e307, 0.0, 1e307]})
    density = bnb.NaiveBayes({"v": bnb.Binned(edges=[-1.5e308, 1.5e308])}).density(X)
    # one bin of probability 1 over a width of 3e308
    expected = -(math.log(3.0) + 308 * math.log(10.0))
    np.testing.assert_allclose(density.log_density(X), expected, rtol=1e-13)
    draws = density.sample(2000, random_state=0)["v"].to_numpy()
    assert np.isfinite(draws).all()
    assert (draws >= -1.5e308).all() and (draws < 1.5e308).all()
    assert (draws < 0).mean() == pytest.approx(0.5, abs=4 * 0.5 / math.sqrt(2000))


def test_binned_draws_of_a_narrow_bin_far_from_zero_stay_in_it():
    # at 1.6e18 the floats are 256 apart, so a bin 1024 wide holds five of them: drawn
    # as lo + width * u, an eighth of the draws would round onto the next bin's edge
    t0 = 1.6e18
    edges = [t0, t0 + 1024, t0 + 2048, t0 + 4096]
    X = pd.DataFrame({"t": [t0 + 100.0] * 8 + [t0 + 1500.0, t0 + 3000.0]})
    density = bnb.NaiveBayes({"t": bnb.Binned(edges=edges)}).density(X)
    n = 40_000
    drawn = density.sample(n, random_state=0)["t"].to_numpy()
    share = np.histogram(drawn, bins=edges)[0] / n
    p = np.array([9, 2, 2]) / 13  # (count + 1) / (10 + 3)
    np.testing.assert_allclose(share, p, atol=4 * np.sqrt(p * (1 - p) / n).max())


def test_a_uniform_draw_never_lands_on_its_bins_upper_edge():
    rng = np.random.default_rng(0)
    lo = rng.uniform(-10, 10, 10_000)
    hi = lo + rng.uniform(0, 10, 10_000)
    top = np.full(lo.shape, np.nextafter(1.0, 0.0))  # the largest u below 1
    assert (lo + (hi - lo) * top >= hi).any()  # what rounding does to the plain formula
    for u in (top, np.zeros(lo.shape), rng.random(lo.shape)):
        out = _uniform_within(lo, hi, u)
        assert ((out >= lo) & (out < hi)).all()


def test_binned_bins_too_many_for_a_narrow_range_is_a_clear_error():
    X = pd.DataFrame({"v": [1.0, 1.0 + 2e-16, 1.0 + 4.4e-16]})
    with pytest.raises(errors.InputError, match=r"'v'.*bins=3.*too narrow.*fewer bins"):
        bnb.NaiveBayes({"v": bnb.Binned(bins=3)}).density(X)


def test_quantile_bins_of_a_range_beyond_the_largest_float_is_a_clear_error():
    X = pd.DataFrame({"v": [-1.5e308, -1e308, 1e308, 1.5e308]})
    with pytest.raises(errors.InputError, match=r"'v' spans.*bins='quantile'.*Rescale"):
        bnb.NaiveBayes({"v": bnb.Binned(bins="quantile", n_bins=3)}).density(X)


def test_binned_learnt_edges_are_numpys_and_the_probabilities_its_histogram():
    x = np.random.default_rng(3).gamma(2.0, 1.5, 300)
    for bins in (1, 4, "sturges"):
        density = bnb.NaiveBayes({"v": bnb.Binned(bins=bins)}).density(pd.DataFrame({"v": x}))
        counts, edges = np.histogram(x, bins=bins)
        np.testing.assert_array_equal(density.blocks[0].column_edges[0], edges)
        np.testing.assert_allclose(
            density.params["v"].values, (counts + 1) / (len(x) + len(counts)), rtol=1e-13
        )


# -- sequential updating: A then B is one fit on A + B ----------------------------------
@pytest.mark.parametrize("estimate", ESTIMATES)
@pytest.mark.parametrize("weighted", [False, True])
def test_a_density_updated_is_the_density_of_all_rows(estimate, weighted):
    A, B = _mixed(50, 4), _mixed(30, 5)
    rng = np.random.default_rng(6)
    wA, wB = (rng.random(50), rng.random(30)) if weighted else (None, None)
    parts = _mixed_model().density(A, estimate=estimate, sample_weight=wA)
    parts = parts.update(B.iloc[:10], sample_weight=None if wB is None else wB[:10])
    parts = parts.update(B.iloc[10:], sample_weight=None if wB is None else wB[10:])
    whole = _mixed_model().density(
        pd.concat([A, B], ignore_index=True),
        estimate=estimate,
        sample_weight=None if wA is None else np.r_[wA, wB],
    )
    for name in whole.params.data_vars:
        np.testing.assert_allclose(parts.params[name], whole.params[name], rtol=1e-12, atol=1e-14)
    query = _mixed(20, 7)
    np.testing.assert_allclose(parts.log_density(query), whole.log_density(query), atol=1e-12)


@pytest.mark.parametrize("covariance", ["full", "diag", "spherical", "tied"])
@pytest.mark.parametrize("estimate", ESTIMATES)
def test_a_multivariate_update_is_one_fit_under_the_prior_the_first_fit_resolved(
    covariance, estimate
):
    rng = np.random.default_rng(8)
    A = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    B = pd.DataFrame(rng.normal(size=(25, 2)) + 1.0, columns=["a", "b"])
    yA, yB = rng.choice(["p", "q"], 40), rng.choice(["p", "q"], 25)
    model = bnb.NaiveBayes(bnb.MultivariateGaussian(covariance=covariance))
    first = model.fit(A, yA, estimate=estimate)
    prior = first.blocks[0].resolved_prior(2)
    whole = bnb.NaiveBayes(bnb.MultivariateGaussian(prior, covariance=covariance)).fit(
        pd.concat([A, B]), np.r_[yA, yB], estimate=estimate
    )
    parts = first.update(B, yB)
    for name in whole.params.data_vars:
        np.testing.assert_allclose(parts.params[name], whole.params[name], rtol=1e-12, atol=1e-14)


def test_an_update_whose_merged_gaussian_spread_overflows_names_the_column():
    first = bnb.NaiveBayes({"a": bnb.Gaussian(), "b": bnb.Gaussian()}).density(
        pd.DataFrame({"a": [1e154, 1.1e154, 0.9e154], "b": [1.0, 2.0, 3.0]})
    )
    batch = pd.DataFrame({"a": [-1e154, -1.1e154], "b": [1.0, 2.0]})
    # each batch's sum of squares is finite; the merged one, about 1.3e308 * 2.4, is not
    with pytest.raises(errors.InputError, match=r"Gaussian feature 'a'.*column 'a'.*Rescale"):
        first.update(batch)
    with pytest.raises(errors.InputError, match=r"Gaussian feature 'a'.*Rescale"):
        first.update(pd.DataFrame({"a": [1e300], "b": [1.0]}))


@pytest.mark.parametrize("covariance", ["full", "diag", "spherical", "tied"])
def test_a_multivariate_update_whose_spread_overflows_names_the_column(covariance):
    A = pd.DataFrame({"a": [1e154, 1.1e154, 0.9e154], "b": [1.2e154, 0.8e154, 1.05e154]})
    first = bnb.NaiveBayes(
        {"m": bnb.MultivariateGaussian(columns=["a", "b"], covariance=covariance)}
    ).fit(A, ["p", "q", "p"])
    with pytest.raises(errors.InputError, match=r"'m'.*column 'a'.*Rescale"):
        first.update(-A.iloc[:2], ["p", "q"])


def test_an_update_with_bad_rows_is_a_clear_error():
    density = _mixed_model().density(_mixed(30, 9))
    with pytest.raises(errors.InputError, match=r"'c'.*\['q'\].*categories="):
        density.update(_alone("c", ["q"]))
    with pytest.raises(errors.InputError, match=r"lacks the feature column\(s\) \['t'\]"):
        density.update(_mixed(5, 10).drop(columns="t"))
    with pytest.raises(errors.InputTypeError, match=r"'g' needs numbers.*'x'"):
        density.update(_mixed(3, 11, missing=False).astype({"g": object}).assign(g="x"))
    with pytest.raises(errors.InputError, match="empty batch"):
        density.update(_mixed(5, 12).iloc[:0])
    with pytest.raises(errors.InputError, match="takes no labels"):
        density.update(_mixed(5, 12), y=[0] * 5)


# -- draws ------------------------------------------------------------------------------
def test_draws_follow_the_fitted_gaussian_and_keep_a_float32_column():
    rng = np.random.default_rng(13)
    X = pd.DataFrame(
        {
            "a": rng.normal(2.0, 3.0, 80).astype(np.float32),
            "n": pd.array(rng.normal(size=80), dtype="Float64"),
            "i": rng.integers(0, 100, 80),
            "v": rng.uniform(0.0, 1.0, 80).astype(np.float32),
        }
    )
    model = bnb.NaiveBayes(
        {"a": bnb.Gaussian(), "n": bnb.Gaussian(), "i": bnb.Gaussian(), "v": bnb.Binned(bins=3)}
    )
    density = model.density(X, estimate="ml")
    drawn = density.sample(20_000, random_state=1)
    assert drawn.dtypes.to_dict() == {
        "a": np.dtype(np.float32),
        "n": pd.Float64Dtype(),
        "i": np.dtype(float),  # an integer column's Gaussian draws are not rounded
        "v": np.dtype(float),  # a Binned draw keeps the precision that puts it in its bin
    }
    values = X["a"].to_numpy(dtype=float)
    normal = stats.norm(values.mean(), values.std())  # the ML fit, by hand
    assert stats.kstest(drawn["a"].to_numpy(dtype=float), normal.cdf).pvalue > 1e-3
    mixture = model.cluster(X, 2, random_state=0)
    assert mixture.sample(5, random_state=0).dtypes["a"] == np.float32
    np.testing.assert_array_equal(
        density.sample(7, random_state=3)["a"], density.sample(7, random_state=3)["a"]
    )


def test_a_density_of_an_array_draws_a_numeric_array_when_its_values_are_numbers():
    """An array holds one type: draws from a density fitted on a numeric array come
    back numeric (the common type of the drawn columns), with each Categorical
    column's values among the training array's; text categories stay objects."""
    rng = np.random.default_rng(3)
    floats = np.column_stack([rng.integers(0, 3, 80).astype(float), rng.normal(size=80)])
    fit = bnb.NaiveBayes({"x0": bnb.Categorical(), "x1": bnb.Gaussian()}).density(floats)
    drawn = fit.sample(500, random_state=0)
    assert drawn.dtype == np.float64 and drawn.shape == (500, 2)
    assert set(np.unique(drawn[:, 0])) <= {0.0, 1.0, 2.0}
    ints = rng.integers(0, 4, (80, 2))
    drawn = bnb.NaiveBayes(bnb.Categorical()).density(ints).sample(300, random_state=0)
    assert drawn.dtype == np.int64
    assert set(np.unique(drawn)) <= set(np.unique(ints))
    text = np.array([["a", "b"], ["b", "a"], ["a", "a"]])
    drawn = bnb.NaiveBayes(bnb.Categorical()).density(text).sample(50, random_state=0)
    assert drawn.dtype == object and set(drawn.ravel()) <= {"a", "b"}
