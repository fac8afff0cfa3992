"""Properties of fitted models that hold for every input (hypothesis): posteriors are
finite distributions, parameters do not depend on row order, saving is exact, and a
weight of 2 is a duplicated row."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import bayesnb as bnb
from bayesnb.sklearn import NaiveBayesClassifier

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ESTIMATES = ("ml", "map", "mean", "predictive")


def _mixed(rng: np.random.Generator, n: int, missing: float = 0.1) -> pd.DataFrame:
    """Bernoulli (0/1 floats), Categorical (strings) and Gaussian columns whose
    distributions depend on a hidden class, each with missing values."""
    z = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "b": (rng.random(n) < np.where(z == 1, 0.8, 0.3)).astype(float),
            "c": np.where(z == 1, rng.choice(list("abc"), n), rng.choice(list("abcd"), n)),
            "g": rng.normal(3.0 * z, 1.0 + z, n),
            "h": rng.normal(-1.0, 0.5, n),
        }
    )
    frame["c"] = frame["c"].astype(object)
    for col in frame.columns:
        gone = rng.random(n) < missing
        gone[:3] = False  # every class observes every feature (see _labels)
        frame.loc[gone, col] = None if col == "c" else np.nan
    return frame


MIXED = {
    "b": bnb.Bernoulli(),
    "c": bnb.Categorical(),
    "g": bnb.Gaussian(),
    "h": bnb.Gaussian(),
}


def _labels(rng: np.random.Generator, frame: pd.DataFrame) -> np.ndarray:
    """Labels correlated with the features; every class present."""
    y = np.where(frame["g"].fillna(0).to_numpy() > 1.5, "hi", "lo").astype(object)
    y[:3] = ["hi", "lo", "mid"]
    y[3:] = np.where(rng.random(len(y) - 3) < 0.1, "mid", y[3:])
    return y


_value = st.one_of(st.floats(-1e100, 1e100), st.just(np.nan))
_row = st.tuples(
    st.sampled_from([0.0, 1.0, np.nan]),
    st.sampled_from(["a", "b", "c", "d", "never seen", None]),
    _value,
    _value,
)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(10, 200),
    rows=st.lists(_row, min_size=1, max_size=20),
)
@example(seed=0, n=10, rows=[(0.0, "d", np.nan, np.nan)] * 2)  # every 'c' unseen: warned
def test_predict_proba_is_a_finite_distribution_for_any_finite_input(seed, n, rows):
    rng = np.random.default_rng(seed)
    train = _mixed(rng, n)
    fit = bnb.NaiveBayes(MIXED).fit(train, _labels(rng, train))  # the default estimate
    X = pd.DataFrame(rows, columns=["b", "c", "g", "h"])
    X["c"] = X["c"].astype(object)
    with warnings.catch_warnings():  # rows whose every 'c' is unseen: warned, marginalized
        warnings.simplefilter("ignore", bnb.errors.UnseenValuesWarning)
        proba = fit.predict_proba(X)
        log_proba = fit.predict_log_proba(X)
        predicted = fit.predict(X)
    assert proba.shape == (len(rows), len(fit.labels))
    assert np.all(np.isfinite(proba))
    assert np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert not np.any(np.isnan(log_proba))
    assert predicted.tolist() == [fit.labels[k] for k in proba.argmax(axis=1)]


def _every_family(rng: np.random.Generator, n: int):
    """A frame with one column (or block) of every family, and labels."""
    y = rng.integers(0, 3, n)
    y[:6] = [0, 1, 2, 0, 1, 2]  # every class has two rows (an ML variance > 0)
    counts = rng.poisson(np.where(y[:, None] == 1, 3.0, 1.0), size=(n, 4))
    frame = pd.DataFrame(
        {
            "b": rng.random(n) < 0.3 + 0.2 * y,
            "c": rng.choice(["u", "v", "w"], n),
            "g": rng.normal(y * 0.5, 1.0, n),
            "binned": rng.uniform(0.0, 3.0, n),
            **{f"m{j}": counts[:, j] for j in range(4)},
        }
    )
    gone = rng.random(n) < 0.05
    gone[:6] = False  # every class observes g twice
    frame.loc[gone, "g"] = np.nan
    features = {
        "b": bnb.Bernoulli(),
        "c": bnb.Categorical(),
        "g": bnb.Gaussian(),
        "binned": bnb.Binned([0.0, 1.0, 2.0, 3.0]),
        "m": bnb.Multinomial(columns=[f"m{j}" for j in range(4)]),
    }
    return frame, y, features


def _assert_params_close(a, b, rtol):
    """Every variable equal to ``rtol`` relative to its largest entry: a Gaussian mean
    near 0 is a difference of sums of numbers of order 1, so its own relative error can
    be far above round-off (e.g. 5.2e-6 computed two ways differs by 1.4e-17, a
    relative 3e-12), while its error relative to the data's scale stays ~1e-16."""
    assert set(a.data_vars) == set(b.data_vars)
    for name in a.data_vars:
        scale = float(np.nanmax(np.abs(np.where(np.isinf(b[name].values), 0, b[name].values))))
        np.testing.assert_allclose(
            a[name].values, b[name].values, rtol=rtol, atol=rtol * scale, err_msg=name
        )


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1000, 1500),
    estimate=st.sampled_from(ESTIMATES),
)
def test_permuting_rows_leaves_every_parameter_unchanged(seed, n, estimate):
    rng = np.random.default_rng(seed)
    frame, y, features = _every_family(rng, n)
    order = rng.permutation(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        fit = bnb.NaiveBayes(features).fit(frame, y, estimate=estimate)
        shuffled = bnb.NaiveBayes(features).fit(
            frame.iloc[order].reset_index(drop=True), y[order], estimate=estimate
        )
    _assert_params_close(fit.params, shuffled.params, rtol=1e-9)
    _assert_params_close(fit.counts, shuffled.counts, rtol=1e-9)


def _round_trip(fit):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.nc"
        fit.save(path)
        return bnb.load(path)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(20, 300),
    estimate=st.sampled_from(ESTIMATES),
    family=st.sampled_from(["b", "c", "g", "binned", "m", "all"]),
)
def test_save_and_load_are_exact_for_every_family_and_estimate(seed, n, estimate, family):
    rng = np.random.default_rng(seed)
    frame, y, features = _every_family(rng, n)
    if family != "all":
        features = {family: features[family]}
        columns = features[family].columns or [family]
        frame = frame[columns]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        fit = bnb.NaiveBayes(features).fit(frame, y, estimate=estimate)
        back = _round_trip(fit)
    assert type(back) is bnb.NaiveBayesFit
    assert back.params.identical(fit.params)
    assert back.counts.identical(fit.counts)
    assert back.labels == fit.labels and back.estimates == fit.estimates
    np.testing.assert_array_equal(back.joint_log_likelihood(frame), fit.joint_log_likelihood(frame))
    try:
        expected = fit.predict_proba(frame)
    except bnb.ZeroLikelihoodError:  # an ML fit may rule out every class on a row
        with pytest.raises(bnb.ZeroLikelihoodError):
            back.predict_proba(frame)
    else:
        np.testing.assert_array_equal(back.predict_proba(frame), expected)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(30, 120), k=st.integers(2, 3))
def test_save_and_load_are_exact_for_a_mixture(seed, n, k):
    rng = np.random.default_rng(seed)
    frame = _mixed(rng, n)
    with warnings.catch_warnings():  # an ML fit may warn of a probability 0 (documented)
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        mix = bnb.NaiveBayes(MIXED).cluster(frame, k, random_state=seed % 1000, n_init=1)
    back = _round_trip(mix)
    assert type(back) is type(mix)
    assert back.params.identical(mix.params)
    assert back.counts.identical(mix.counts)
    np.testing.assert_array_equal(back.predict_proba(frame), mix.predict_proba(frame))
    np.testing.assert_array_equal(back.history, mix.history)
    assert back.log_likelihood == mix.log_likelihood
    assert back.n_parameters() == mix.n_parameters()
    assert back.bic == mix.bic


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(10, 200),
    estimate=st.sampled_from(ESTIMATES),
)
def test_sample_weight_two_equals_a_duplicated_row(seed, n, estimate):
    rng = np.random.default_rng(seed)
    frame, y, features = _every_family(rng, n)
    twice = rng.random(n) < 0.3
    weights = np.where(twice, 2.0, 1.0)
    doubled = np.r_[np.arange(n), np.flatnonzero(twice)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        weighted = NaiveBayesClassifier(features, estimate=estimate).fit(
            frame, y, sample_weight=weights
        )
        duplicated = NaiveBayesClassifier(features, estimate=estimate).fit(
            frame.iloc[doubled].reset_index(drop=True), y[doubled]
        )
    _assert_params_close(weighted.fit_.params, duplicated.fit_.params, rtol=1e-12)
    _assert_params_close(weighted.fit_.counts, duplicated.fit_.counts, rtol=1e-12)


@SETTINGS
@given(x=hnp.arrays(float, st.integers(1, 30), elements=st.floats(-1e6, 1e6)))
def test_gaussian_posterior_is_finite_far_from_the_training_data(x):
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(
        np.r_[np.arange(5.0), np.arange(5.0) + 2.5][:, None], [0] * 5 + [1] * 5
    )
    proba = fit.predict_proba(x[:, None])
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
