"""Binned features that learn their own edges, and a Categorical feature's cell for values
never seen in training (``unseen="predictive"``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayesnb as bnb
from bayesnb import errors

RULES = ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]


def _column(seed: int = 0, n: int = 200) -> np.ndarray:
    """A skewed training column with missing values."""
    rng = np.random.default_rng(seed)
    x = rng.gamma(2.0, 3.0, n)
    x[rng.choice(n, 15, replace=False)] = np.nan
    return x


def _fit(binned, x, y=None, **kw):
    y = np.arange(len(x)) % 2 if y is None else y
    return bnb.NaiveBayes({"x": binned}).fit(pd.DataFrame({"x": x}), y, **kw)


# -- learnt edges equal numpy's on the observed training values --------------------------------


@pytest.mark.parametrize("bins", [1, 7, 30])
def test_int_bins_are_numpys_equal_width_edges(bins):
    x = _column()
    fit = _fit(bnb.Binned(bins=bins), x)
    expected = np.histogram_bin_edges(x[~np.isnan(x)], bins=bins)
    assert len(expected) == bins + 1
    np.testing.assert_array_equal(fit.blocks[0].column_edges[0], expected)
    np.testing.assert_array_equal(fit.params["x_lower"].values, expected[:-1])
    np.testing.assert_array_equal(fit.params["x_upper"].values, expected[1:])


@pytest.mark.parametrize("rule", RULES)
def test_rule_bins_are_numpys_edges(rule):
    x = _column(1)
    fit = _fit(bnb.Binned(bins=rule), x)
    expected = np.histogram_bin_edges(x[~np.isnan(x)], bins=rule)
    np.testing.assert_array_equal(fit.blocks[0].column_edges[0], expected)
    np.testing.assert_array_equal(fit.params["x_upper"].values, expected[1:])


def test_quantile_bins_are_numpys_quantiles():
    x = _column(2)
    fit = _fit(bnb.Binned(bins="quantile", n_bins=5), x)
    observed = x[~np.isnan(x)]
    expected = np.quantile(observed, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    np.testing.assert_array_equal(fit.blocks[0].column_edges[0], expected)
    # every quantile bin holds about a fifth of the rows (ties aside): 37 each of 185
    counts = fit.counts["x"].sum("class_label").values
    assert counts.sum() == len(observed) == 185
    assert np.all(np.abs(counts - 37) <= 1)


def test_tied_quantiles_are_merged():
    # 60 of 100 values are 0: the quantiles 0, .1, ..., .5 all sit at 0 and merge.
    x = np.concatenate([np.zeros(60), np.arange(1.0, 41.0)])
    fit = _fit(bnb.Binned(bins="quantile", n_bins=10), x)
    expected = np.unique(np.quantile(x, np.linspace(0, 1, 11)))
    np.testing.assert_array_equal(fit.blocks[0].column_edges[0], expected)
    assert len(expected) == 6  # 0 once, then the quantiles .6 .. 1
    assert fit.params["x"].sizes["x_category"] == 5


def test_a_block_learns_edges_per_column():
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(0, 1, 120), rng.uniform(10, 50, 120)])
    X[5, 1] = np.nan
    fit = bnb.NaiveBayes(bnb.Binned(bins=4)).fit(X, np.arange(120) % 2)
    block = fit.blocks[0]
    for j, var in enumerate(["x0", "x1"]):
        col = X[:, j][~np.isnan(X[:, j])]
        expected = np.histogram_bin_edges(col, bins=4)
        np.testing.assert_array_equal(block.column_edges[j], expected)
        np.testing.assert_array_equal(fit.params[f"{var}_lower"].values, expected[:-1])
    assert block.categories is None  # the columns' edges differ: a flat layout


# -- the density is uniform within a bin ---------------------------------------------------------


def test_density_is_the_bins_probability_over_its_width():
    x = np.array([0.0, 1.0, 2.5, 3.0, 4.0, 7.0, 8.0, 10.0, np.nan, 6.0])
    y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    fit = _fit(bnb.Binned(bins=4), x, y, estimate="mean")
    edges = np.histogram_bin_edges(x[~np.isnan(x)], bins=4)  # 0, 2.5, 5, 7.5, 10
    np.testing.assert_array_equal(edges, [0.0, 2.5, 5.0, 7.5, 10.0])
    # class 0: bins hold 2, 3, 0, 0 of 5 values; class 1: 0, 0, 2, 2 of 4 (one missing)
    p0 = (np.array([2, 3, 0, 0]) + 1) / (5 + 4)
    p1 = (np.array([0, 0, 2, 2]) + 1) / (4 + 4)
    prior = np.log(np.array([5 + 1, 5 + 1]) / (10 + 2))
    rows = pd.DataFrame({"x": [2.6, 4.9, 10.0, 0.0]})
    jll = fit.joint_log_likelihood(rows)
    np.testing.assert_allclose(jll[0], jll[1], rtol=0, atol=0)  # same bin, same density
    bins = [1, 1, 3, 0]
    expected = prior + np.log(np.column_stack([p0[bins], p1[bins]]) / 2.5)
    np.testing.assert_allclose(jll, expected, rtol=1e-12)


def test_a_value_outside_the_learnt_range_names_the_column():
    x = np.linspace(0.0, 10.0, 21)
    fit = _fit(bnb.Binned(bins=5), x)
    with pytest.raises(errors.InputError, match=r"column 'x'.*outside the edges.*bins=5"):
        fit.predict(pd.DataFrame({"x": [10.5]}))
    with pytest.raises(errors.InputError, match=r"column 'x'"):
        fit.predict(pd.DataFrame({"x": [-0.1]}))


def test_open_outer_bins_score_a_value_beyond_in_the_end_bin():
    x = np.linspace(0.0, 10.0, 21)  # edges 0, 2, ..., 10
    y = (x > 5).astype(int)
    fit = _fit(bnb.Binned(bins=5, outside="open"), x, y, estimate="mean")
    rows = pd.DataFrame({"x": [9.0, 1e6, 1.0, -50.0]})
    jll = fit.joint_log_likelihood(rows)
    np.testing.assert_array_equal(jll[1], jll[0])
    np.testing.assert_array_equal(jll[3], jll[2])
    # class 1 holds the 10 values 5.5 .. 10, of which 5 (8 .. 10) lie in the last bin [8, 10]
    n1 = int(y.sum())
    last1 = (5 + 1) / (n1 + 5)
    log_prior1 = np.log((n1 + 1) / (len(x) + 2))
    np.testing.assert_allclose(jll[1, 1], log_prior1 + np.log(last1 / 2.0), rtol=1e-12)
    labels = list(fit.params["x_category"].values)
    assert labels[0] == "(-inf, 2)" and labels[-1] == "[8, inf)"


# -- save and load keep learnt edges exactly -------------------------------------------------------


@pytest.mark.parametrize(
    "binned",
    [
        bnb.Binned(bins="fd"),
        bnb.Binned(bins="quantile", n_bins=6, outside="open"),
        bnb.Binned(bins=9),
    ],
    ids=["fd", "quantile-open", "int"],
)
def test_save_and_load_keep_learnt_edges(tmp_path, binned):
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.normal(0.1, 1 / 3, 150), "b": rng.exponential(0.7, 150)})
    features = {"a": binned, "b": bnb.Binned(bins=7)}
    fit = bnb.NaiveBayes(features).fit(X, rng.integers(0, 2, 150))
    path = tmp_path / "binned.nc"
    fit.save(path)
    back = bnb.load(path)
    for a, b in zip(fit.blocks, back.blocks, strict=True):
        for ea, eb in zip(a.column_edges, b.column_edges, strict=True):
            np.testing.assert_array_equal(ea, eb)
        assert (b.bins, b.n_bins, b.outside) == (a.bins, a.n_bins, a.outside)
    assert back.params.identical(fit.params)
    np.testing.assert_array_equal(back.joint_log_likelihood(X), fit.joint_log_likelihood(X))


# -- bad declarations name the parameter ----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"edges": [0, 1, 2], "bins": 3}, r"exactly one of edges= .* and bins="),
        ({}, r"exactly one of edges="),
        ({"bins": 0}, r"bins must be a positive number of bins.*bins=0"),
        ({"bins": -3}, r"bins=-3"),
        ({"bins": "magic"}, r"bins must be a positive int, 'quantile' or one of .*'fd'.*'magic'"),
        ({"bins": 2.5}, r"bins=2.5"),
        ({"bins": True}, r"bins=True"),
        ({"bins": "quantile"}, r"bins='quantile' needs n_bins.*n_bins=None"),
        ({"bins": "quantile", "n_bins": 0}, r"n_bins=0"),
        ({"bins": 5, "n_bins": 3}, r"n_bins=3 is the number of quantile bins"),
        ({"edges": [0, 1], "n_bins": 3}, r"n_bins=3"),
        ({"bins": 5, "outside": "closed"}, r"outside must be 'error' or 'open'; got 'closed'"),
        ({"edges": [0, 2, 1]}, r"Binned edges must be .* strictly increasing"),
    ],
)
def test_bad_binned_declarations(kwargs, pattern):
    with pytest.raises(errors.InputError, match=pattern):
        bnb.Binned(**kwargs)


def test_quantile_edges_of_a_constant_column_collapse():
    with pytest.raises(errors.InputError, match=r"column 'x' takes the single value 3.*collapse"):
        _fit(bnb.Binned(bins="quantile", n_bins=4), np.full(10, 3.0))


def test_learnt_edges_of_a_column_with_no_value():
    X = pd.DataFrame({"x": [np.nan] * 4, "z": [1.0, 2, 3, 4]})
    with pytest.raises(errors.InputError, match=r"column 'x' has no observed value.*bins=3"):
        bnb.NaiveBayes({"x": bnb.Binned(bins=3), "z": bnb.Gaussian()}).fit(X, [0, 1, 0, 1])


def test_learnt_edges_refuse_an_infinite_training_value():
    with pytest.raises(errors.InputError, match=r"column 'x' has the non-finite value inf"):
        _fit(bnb.Binned(bins=3), np.array([0.0, 1.0, np.inf, 2.0]))


# -- unseen="predictive": a cell for a value never seen ------------------------------------------

WEATHER = pd.DataFrame(
    {
        "outlook": ["sun", "sun", "rain", "cloud", "rain", "sun", "cloud", "rain", "sun"],
        "wind": ["lo", "hi", "lo", "lo", "hi", "hi", "lo", "lo", "hi"],
    }
)
PLAY = np.array([1, 0, 1, 1, 0, 0, 1, 1, 0])


def _weather(alpha_new=0.5, **kw):
    features = {
        "outlook": bnb.Categorical(bnb.Dirichlet(2.0), unseen="predictive", alpha_new=alpha_new),
        "wind": bnb.Categorical(),
    }
    return bnb.NaiveBayes(features).fit(WEATHER, PLAY, **kw)


def _outlook_by_hand(alpha_new=0.5, alpha=2.0):
    """{class: (probabilities of cloud, rain, sun, new)} by the closed form."""
    out = {}
    for c in (0, 1):
        values = WEATHER["outlook"][c == PLAY]
        n = np.array([(values == v).sum() for v in ("cloud", "rain", "sun")], dtype=float)
        total = n.sum() + 3 * alpha + alpha_new
        out[c] = np.append((n + alpha) / total, alpha_new / total)
    return out


def test_new_value_gets_alpha_new_over_the_posterior_total():
    fit = _weather()
    prob = fit.params["outlook"]
    assert list(prob["outlook_category"].values) == ["cloud", "rain", "sun", "<new>"]
    hand = _outlook_by_hand()
    # class 1: cloud 2, rain 2, sun 1 of N = 5: new = 0.5 / (5 + 3 * 2 + 0.5)
    np.testing.assert_allclose(hand[1][-1], 0.5 / 11.5, rtol=1e-15)
    for c in (0, 1):
        np.testing.assert_allclose(prob.sel(class_label=c).values, hand[c], rtol=1e-12)
        np.testing.assert_allclose(float(prob.sel(class_label=c).sum()), 1.0, rtol=1e-14)
    counts = fit.counts["outlook"]
    assert counts.sel(outlook_category="<new>").values.tolist() == [0.0, 0.0]


def test_a_row_with_a_new_value_is_scored_with_the_new_cell():
    fit = _weather()
    rows = pd.DataFrame({"outlook": ["snow", "fog", "rain"], "wind": ["hi", "lo", "hi"]})
    hand = _outlook_by_hand()
    log_prior = np.log((np.array([4, 5]) + 1) / (9 + 2))
    wind = {
        c: {
            v: ((WEATHER["wind"][c == PLAY] == v).sum() + 1) / ((c == PLAY).sum() + 2)
            for v in ("hi", "lo")
        }
        for c in (0, 1)
    }
    expected = np.array(
        [
            [log_prior[c] + np.log(hand[c][idx]) + np.log(wind[c][w]) for c in (0, 1)]
            for idx, w in [(3, "hi"), (3, "lo"), (1, "hi")]
        ]
    )
    np.testing.assert_allclose(fit.joint_log_likelihood(rows), expected, rtol=1e-12)
    posterior = np.exp(expected - np.logaddexp.reduce(expected, axis=1, keepdims=True))
    np.testing.assert_allclose(fit.predict_proba(rows), posterior, rtol=1e-12)


def test_predictive_estimate_gives_the_same_cell():
    fit = _weather(estimate="predictive")
    hand = _outlook_by_hand()
    for c in (0, 1):
        np.testing.assert_allclose(fit.params["outlook"].sel(class_label=c).values, hand[c])


def test_a_block_with_a_new_cell_per_column():
    X = np.array([[0, 5], [1, 5], [0, 6], [1, 7], [2, 6], [0, 5]])
    y = np.array([0, 0, 0, 1, 1, 1])
    fit = bnb.NaiveBayes(bnb.Categorical(unseen="predictive", alpha_new=2.0)).fit(X, y)
    # column x0 takes 0, 1, 2 and x1 takes 5, 6, 7: class 0 of x0: 2, 1, 0 of N = 3
    x0 = fit.params["x0"].sel(class_label=0).values
    np.testing.assert_allclose(x0, np.array([3.0, 2.0, 1.0, 2.0]) / (3 + 3 + 2), rtol=1e-14)
    assert list(fit.params["x1_category"].values) == [5, 6, 7, "<new>"]
    for var in ("x0", "x1"):
        np.testing.assert_allclose(fit.params[var].sum(f"{var}_category").values, 1.0)
    # an integer value outside the categories (9, -1) is new, not an error or a skip
    jll = fit.joint_log_likelihood(np.array([[9, 5], [-1, 5], [2, 5]]))
    np.testing.assert_array_equal(jll[0], jll[1])
    new0, cat2 = 2.0 / 8, 1.0 / 8  # class 0: "<new>" and the value 2 (count 0, alpha 1)
    np.testing.assert_allclose(jll[0, 0] - jll[2, 0], np.log(new0 / cat2), rtol=1e-12)


def test_save_and_load_keep_the_new_cell(tmp_path):
    fit = _weather(alpha_new=0.25)
    path = tmp_path / "weather.nc"
    fit.save(path)
    back = bnb.load(path)
    assert back.blocks[0].unseen == "predictive" and back.blocks[0].alpha_new == 0.25
    assert back.params.identical(fit.params)
    rows = pd.DataFrame({"outlook": ["snow", "sun"], "wind": ["hi", "lo"]})
    np.testing.assert_array_equal(back.joint_log_likelihood(rows), fit.joint_log_likelihood(rows))
    np.testing.assert_allclose(
        back.params["outlook"].sel(outlook_category="<new>", class_label=0).values,
        0.25 / (4 + 6 + 0.25),
        rtol=1e-14,
    )


def test_predictive_cell_with_ml_or_map_is_refused():
    with pytest.raises(errors.InputError, match=r"'outlook' has unseen='predictive'.*'ml'"):
        _weather(estimate="ml")
    with pytest.raises(errors.InputError, match=r"unseen='predictive'.*estimate='map'"):
        bnb.Categorical(unseen="predictive", estimate="map")


@pytest.mark.parametrize("alpha_new", [0, -1.0, np.inf, "one", True])
def test_bad_alpha_new(alpha_new):
    with pytest.raises(errors.InputError, match=r"alpha_new must be a finite number > 0"):
        bnb.Categorical(unseen="predictive", alpha_new=alpha_new)


def test_alpha_new_needs_the_predictive_policy():
    with pytest.raises(errors.InputError, match=r"alpha_new=1.0 .*unseen='marginalize'"):
        bnb.Categorical(alpha_new=1.0)


def test_a_category_called_new_is_refused():
    X = pd.DataFrame({"c": ["a", "<new>", "a", "b"]})
    with pytest.raises(errors.InputError, match=r"column 'c' holds the value '<new>'"):
        bnb.NaiveBayes({"c": bnb.Categorical(unseen="predictive")}).fit(X, [0, 1, 0, 1])


def test_an_update_keeps_the_learnt_edges():
    x = np.linspace(0.0, 10.0, 21)
    fit = _fit(bnb.Binned(bins=5), x)
    later = fit.update(pd.DataFrame({"x": [0.5, 9.5]}), [0, 1])
    np.testing.assert_array_equal(later.blocks[0].column_edges[0], [0.0, 2, 4, 6, 8, 10])
    # the batch's two values land in the first and last bins of the first fit's edges
    added = later.counts["x"].values - fit.counts["x"].values
    np.testing.assert_array_equal(added, [[1, 0, 0, 0, 0], [0, 0, 0, 0, 1]])
    with pytest.raises(errors.InputError, match=r"column 'x'.*learnt by bins=5"):
        fit.update(pd.DataFrame({"x": [11.0]}), [0])


def test_draws_of_the_new_cell_are_labelled_new():
    fit = _weather(alpha_new=3.0)
    hand = _outlook_by_hand(alpha_new=3.0)
    n = 20000
    draws = fit.blocks[0].sample(
        fit.block_params[0], np.zeros(n, dtype=np.intp), np.random.default_rng(5)
    )
    share = np.mean(draws == "<new>")
    p = hand[0][-1]  # 3 / (4 + 6 + 3)
    assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / n)


# -- saved files: learnt edges checked on load, and files written before them still load ---------


def _edited(tmp_path, fit, edit):
    import json

    import xarray as xr

    path = tmp_path / "model.nc"
    fit.save(path)
    with xr.open_dataset(path, engine="scipy") as ds:
        ds = ds.load()
    config = json.loads(ds.attrs["bayesnb_config"])
    edit(config["blocks"][0]["state"])
    ds.attrs["bayesnb_config"] = json.dumps(config)
    out = tmp_path / "edited.nc"
    ds.to_netcdf(out, engine="scipy")
    return out


def test_a_block_with_learnt_edges_per_column_survives_save_and_load(tmp_path):
    rng = np.random.default_rng(6)
    X = np.column_stack([rng.normal(0, 1, 80), rng.uniform(3, 4, 80)])
    fit = bnb.NaiveBayes(bnb.Binned(bins="sturges")).fit(X, np.arange(80) % 2)
    path = tmp_path / "block.nc"
    fit.save(path)
    back = bnb.load(path)
    for j in range(2):
        np.testing.assert_array_equal(
            back.blocks[0].column_edges[j], np.histogram_bin_edges(X[:, j], "sturges")
        )
    assert back.params.identical(fit.params)


def test_a_file_without_the_new_state_entries_loads(tmp_path):
    x = np.array([0.5, 1.5, 2.5, 0.2])
    fit = _fit(bnb.Binned([0.0, 1.0, 2.0, 3.0]), x)

    def old(state):  # a file written before learnt edges and the "<new>" cell
        for key in ("bins", "n_bins", "outside", "column_edges", "alpha_new"):
            del state[key]

    back = bnb.load(_edited(tmp_path, fit, old))
    np.testing.assert_array_equal(back.blocks[0].column_edges[0], [0.0, 1.0, 2.0, 3.0])
    assert back.blocks[0].outside == "error"
    assert back.params.identical(fit.params)


def test_load_refuses_learnt_edges_that_do_not_increase(tmp_path):
    fit = _fit(bnb.Binned(bins=3), np.array([0.0, 1.0, 2.0, 3.0]))

    def tamper(state):
        state["column_edges"][0] = [0.0, 2.0, 1.0, 3.0]

    with pytest.raises(errors.ModelFileError, match=r"column_edges\[0\] must be .*increasing"):
        bnb.load(_edited(tmp_path, fit, tamper))


def test_load_refuses_a_bad_alpha_new(tmp_path):
    fit = _weather()

    def tamper(state):
        state["alpha_new"] = -1.0

    with pytest.raises(errors.ModelFileError, match=r"'outlook'.*alpha_new must be a finite"):
        bnb.load(_edited(tmp_path, fit, tamper))


def test_declared_categories_with_a_new_cell():
    X = pd.DataFrame({"c": ["a", "a", "b", "a"]})
    model = bnb.NaiveBayes({"c": bnb.Categorical(categories=["a", "b", "d"], unseen="predictive")})
    fit = model.fit(X, [0, 0, 0, 1])
    # class 0: a 2, b 1, d 0 (declared, unseen) of N = 3, then "<new>" with alpha_new = 1
    np.testing.assert_allclose(
        fit.params["c"].sel(class_label=0).values, np.array([3, 2, 1, 1]) / 7, rtol=1e-14
    )
    with pytest.raises(errors.InputError, match=r"column 'c' has 1 training value\(s\) outside"):
        model.fit(pd.DataFrame({"c": ["a", "z"]}), [0, 1])


# -- property: the '<new>' cell's closed form for any counts and concentrations ---------------


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.sampled_from("abcde"), min_size=1, max_size=30),
    alpha=st.floats(0.05, 5.0),
    alpha_new=st.floats(0.01, 10.0),
)
def test_new_cell_closed_form_for_any_data(values, alpha, alpha_new):
    X = pd.DataFrame({"c": values})
    features = {
        "c": bnb.Categorical(bnb.Dirichlet(alpha), unseen="predictive", alpha_new=alpha_new)
    }
    fit = bnb.NaiveBayes(features).fit(X, np.zeros(len(values), dtype=int))
    seen = sorted(set(values))
    counts = np.array([values.count(v) for v in seen], dtype=float)
    total = len(values) + alpha * len(seen) + alpha_new
    prob = fit.params["c"].sel(class_label=0).values
    np.testing.assert_allclose(prob[:-1], (counts + alpha) / total, rtol=1e-12)
    np.testing.assert_allclose(prob[-1], alpha_new / total, rtol=1e-12)
    np.testing.assert_allclose(prob.sum(), 1.0, rtol=1e-12)
    jll = fit.joint_log_likelihood(pd.DataFrame({"c": ["never seen"]}))
    np.testing.assert_allclose(jll[0, 0], np.log(alpha_new / total), rtol=1e-12, atol=1e-12)


# -- the flat design (the PyMC model's reading of the rows) agrees with the kernels ------------


@pytest.mark.parametrize(
    ("family", "X"),
    [
        (
            bnb.Binned(bins=5, outside="open"),
            np.column_stack([np.linspace(0, 1, 12), np.linspace(-9, 40, 12) ** 2]),
        ),
        (
            bnb.Categorical(unseen="predictive", alpha_new=0.3),
            np.array([[0, 5], [1, 5], [0, 6], [2, 7], [1, 6], [0, 5]] * 2),
        ),
    ],
    ids=["binned-per-column", "categorical-new"],
)
def test_design_reads_the_rows_as_the_kernel_does(family, X):
    y = np.arange(len(X)) % 2
    fit = bnb.NaiveBayes(family).fit(X, y)
    block, params = fit.blocks[0], fit.block_params[0]
    rows = X.astype(float).copy()
    rows[0, 0] = np.nan
    rows[1, 1] = 99.0  # beyond the learnt range (open end bin) or a new category
    rows[2, 0] = -5.0
    if family.kind == "categorical":
        rows = rows.astype(object)
        rows[0, 0] = None
    index, value = block.design(rows)
    table = np.asarray(params["log_prob"]).reshape(2, -1) + block.log_offset()
    padded = np.concatenate([table, np.zeros((2, 1))], axis=1)
    by_design = (value[:, None, :] * padded[:, index].transpose(1, 0, 2)).sum(axis=2)
    np.testing.assert_allclose(
        by_design, block.log_likelihood(block.encode(rows), params), rtol=1e-12
    )
