"""Drawn rows keep the training frame's column labels and
a Boolean Bernoulli's dtype; load refuses statistics that count more rows than their
class has, and a mixture file relabelled as a classifier; an MCMC fit's cluster report
describes the whole data by the posterior mean, as its clusters."""

import json
import re

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnb as bnb
from bayesnb.errors import ModelFileError

CONVERGENCE = "ignore::sklearn.exceptions.ConvergenceWarning"  # few draws: r_hat is rough


def _edit(path, out, *, config=None, variables=None):
    """Copy the saved model ``path`` to ``out``, its configuration changed by
    ``config(dict)`` and its variables by ``variables(dataset)``."""
    with xr.open_dataset(path, engine="scipy") as ds:
        ds = ds.load()
    if config is not None:
        cfg = json.loads(ds.attrs["bayesnb_config"])
        config(cfg)
        ds.attrs["bayesnb_config"] = json.dumps(cfg)
    if variables is not None:
        variables(ds)
    ds.to_netcdf(out, engine="scipy")


def _two_groups(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return np.r_[rng.normal(0, 1, n // 2), rng.normal(6, 1, n - n // 2)]


# -- a frame's own column labels --------------------------------------------------
def test_density_sample_has_the_training_frames_integer_column_labels(tmp_path):
    x = _two_groups()
    df = pd.DataFrame({0: x, 1: -x})
    fit = bnb.NaiveBayes().density(df)
    drawn = fit.sample(5, random_state=0)
    assert drawn.columns.tolist() == [0, 1]
    assert all(type(c) is int for c in drawn.columns)
    fit.save(tmp_path / "d.nc")
    loaded = bnb.load(tmp_path / "d.nc")
    assert loaded.sample(5, random_state=0).columns.tolist() == [0, 1]
    # the frame still scores as before: log N(x; mean, ML variance) summed over columns
    var = x.var()
    expected = 2 * (-0.5 * np.log(2 * np.pi * var) - (x[:1] - x.mean()) ** 2 / (2 * var))
    fit_ml = bnb.NaiveBayes().density(df, estimate="ml")
    assert fit_ml.log_density(df.iloc[:1])[0] == pytest.approx(expected[0], rel=1e-10)


def test_density_sample_keeps_mixed_column_labels_in_order(tmp_path):
    n = 40
    df = pd.DataFrame(
        {0: _two_groups(n), "b": np.arange(n) % 3 == 0, (1, "x"): np.arange(n, dtype=float)}
    )
    fit = bnb.NaiveBayes().density(df)
    assert fit.sample(3, random_state=1).columns.tolist() == [0, "b", (1, "x")]
    fit.save(tmp_path / "m.nc")
    drawn = bnb.load(tmp_path / "m.nc").sample(3, random_state=1)
    assert drawn.columns.tolist() == [0, "b", (1, "x")]
    assert drawn["b"].dtype == np.dtype(bool)  # the training column's dtype


def test_a_string_labelled_frame_saves_no_column_labels(tmp_path):
    df = pd.DataFrame({"a": _two_groups(), "b": _two_groups(seed=1)})
    bnb.NaiveBayes().density(df).save(tmp_path / "s.nc")
    with xr.open_dataset(tmp_path / "s.nc", engine="scipy") as ds:
        assert "column_labels" not in json.loads(ds.attrs["bayesnb_config"])
    assert bnb.load(tmp_path / "s.nc").sample(2).columns.tolist() == ["a", "b"]


def test_load_refuses_column_labels_that_are_not_the_features(tmp_path):
    df = pd.DataFrame({0: _two_groups(), 1: _two_groups(seed=1)})
    bnb.NaiveBayes().density(df).save(tmp_path / "d.nc")
    _edit(tmp_path / "d.nc", tmp_path / "bad.nc", config=lambda c: c.update(column_labels=[5, 1]))
    with pytest.raises(ModelFileError, match=r"'column_labels'.*\[5, 1\].*save the model again"):
        bnb.load(tmp_path / "bad.nc")


def test_mixture_sample_has_the_training_frames_integer_column_labels():
    df = pd.DataFrame({0: _two_groups(), 1: _two_groups(seed=1)})
    mix = bnb.NaiveBayes().cluster(df, 2, random_state=0)
    assert mix.sample(4, random_state=0).columns.tolist() == ["component", 0, 1]


def test_mixture_keeps_the_column_labels_through_a_file(tmp_path):
    df = pd.DataFrame({0: _two_groups(), "b": _two_groups(seed=1)})
    mix = bnb.NaiveBayes().cluster(df, 2, random_state=0)
    mix.save(tmp_path / "mix.nc")
    assert bnb.load(tmp_path / "mix.nc").column_labels == {"0": 0}


# -- a Boolean Bernoulli draws Booleans ----------------------------------------------
VOTES = [True, False, True, True, False, True] * 5


@pytest.mark.parametrize(
    "column",
    [
        pd.Categorical(VOTES),
        pd.Categorical(VOTES, categories=[True, False]),
        pd.Series(VOTES, dtype=bool),
        pd.array(VOTES, dtype="boolean"),
    ],
    ids=["categorical", "categorical-reversed", "bool", "boolean"],
)
def test_bernoulli_draws_come_back_in_the_training_dtype(tmp_path, column):
    df = pd.DataFrame({"a": column})
    model = bnb.NaiveBayes({"a": bnb.Bernoulli()})
    fit = model.density(df)
    fit.save(tmp_path / "b.nc")
    for f in (fit, bnb.load(tmp_path / "b.nc")):
        drawn = f.sample(40, random_state=0)["a"]
        assert drawn.dtype == df["a"].dtype
        assert set(drawn.tolist()) == {False, True}
        assert all(type(v) is bool for v in drawn.tolist())
    drawn = model.cluster(df, 2, random_state=0).sample(40, random_state=0)["a"]
    assert drawn.dtype == df["a"].dtype
    assert set(drawn.tolist()) == {False, True}


def test_bernoulli_on_an_object_column_of_booleans_draws_booleans_not_integers():
    df = pd.DataFrame({"a": pd.Series([*VOTES, None], dtype=object)})
    drawn = bnb.NaiveBayes({"a": bnb.Bernoulli()}).density(df).sample(40, random_state=0)["a"]
    assert {type(v) for v in drawn.tolist()} == {bool}
    assert set(drawn.tolist()) == {False, True}


def test_bernoulli_draws_on_numbers_stay_numbers():
    df = pd.DataFrame({"a": pd.Categorical([int(v) for v in VOTES]), "b": [int(v) for v in VOTES]})
    drawn = bnb.NaiveBayes({"a": bnb.Bernoulli(), "b": bnb.Bernoulli()}).density(df).sample(40)
    assert drawn["a"].dtype == df["a"].dtype and set(drawn["a"].tolist()) == {0, 1}
    assert drawn["b"].dtype == np.dtype("int64") and set(drawn["b"].tolist()) == {0, 1}


# -- statistics out of step with the class counts ---------------------------------
def test_load_refuses_counts_that_exceed_their_class(tmp_path):
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().fit(tennis, target="play").save(tmp_path / "t.nc")

    def triple(ds):  # outlook's counts of class 'No' (5 rows) summed to 15
        ds["stat_0_counts"].values[0] *= 3

    _edit(tmp_path / "t.nc", tmp_path / "bad.nc", variables=triple)
    with pytest.raises(ModelFileError) as err:
        bnb.load(tmp_path / "bad.nc")
    text = str(err.value)
    assert "bad.nc" in text and "'outlook'" in text and "'No'" in text
    assert re.search(r"counts 15 observed values .* is 5", text)
    assert "Save the model again" in text


def test_load_refuses_a_gaussian_n_above_its_class_count(tmp_path):
    df = pd.DataFrame({"g": _two_groups(), "y": ["a", "b"] * 30})
    bnb.NaiveBayes().fit(df, target="y").save(tmp_path / "g.nc")

    def grow(ds):
        ds["stat_0_n"].values[1, 0] = 31.0  # class 'b' has 30 rows

    _edit(tmp_path / "g.nc", tmp_path / "bad.nc", variables=grow)
    with pytest.raises(ModelFileError, match=r"'g' \(gaussian\) counts 31 .*'b'.* is 30"):
        bnb.load(tmp_path / "bad.nc")


def test_load_accepts_fewer_counts_than_the_class_as_missing_values(tmp_path):
    tennis = bnb.datasets.play_tennis()
    bnb.NaiveBayes().fit(tennis, target="play", estimate="mean").save(tmp_path / "t.nc")

    def drop_one(ds):  # class 'No': outlook (Overcast, Rain, Sunny) 0, 2, 3 -> 0, 2, 2
        ds["stat_0_counts"].values[0, 2] = 2.0

    _edit(tmp_path / "t.nc", tmp_path / "missing.nc", variables=drop_one)
    loaded = bnb.load(tmp_path / "missing.nc")
    p = loaded.params["outlook"].sel(class_label="No").values
    np.testing.assert_allclose(p, [1 / 7, 3 / 7, 3 / 7])  # (count + 1) / (4 seen + 3)


def test_load_accepts_weighted_fits_with_missing_values(tmp_path):
    rng = np.random.default_rng(7)
    n = 400
    df = pd.DataFrame(
        {
            "c": rng.choice(["u", "v", "w"], n).astype(object),
            "b": rng.random(n) < 0.3,
            "g": rng.normal(size=n),
        }
    )
    df.loc[rng.random(n) < 0.2, "c"] = None
    df.loc[rng.random(n) < 0.2, "g"] = np.nan
    y = rng.choice(["p", "q"], n)
    w = rng.random(n) * 3
    bnb.NaiveBayes().fit(df, y, sample_weight=w).save(tmp_path / "clf.nc")
    loaded = bnb.load(tmp_path / "clf.nc")
    np.testing.assert_allclose(loaded.class_counts, [w[y == "p"].sum(), w[y == "q"].sum()])
    mix = bnb.NaiveBayes().cluster(df, 3, random_state=0, sample_weight=w)
    mix.save(tmp_path / "mix.nc")
    assert bnb.load(tmp_path / "mix.nc").class_counts.sum() == pytest.approx(w.sum(), rel=1e-12)


def test_load_refuses_a_mixture_file_relabelled_as_a_classifier(tmp_path):
    df = pd.DataFrame({"g": _two_groups()})
    bnb.NaiveBayes().cluster(df, 2, random_state=0).save(tmp_path / "mix.nc")
    _edit(
        tmp_path / "mix.nc",
        tmp_path / "as_classifier.nc",
        config=lambda c: c.update(model="NaiveBayesFit"),
    )
    with pytest.raises(ModelFileError, match=r"NaiveBayesFit.*'diagnostics'.*MixtureFit"):
        bnb.load(tmp_path / "as_classifier.nc")


# -- the cluster report's "(all: ...)" --------------------------------------------
def _one_category_frame(n=60):
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {"c": rng.choice(list("abc"), n, p=[0.5, 0.3, 0.2]), "g": _two_groups(n, seed=2)}
    )


NIG = dict(mu=1.0, kappa=0.5, alpha=3.0, beta=2.0)


def _model():
    return bnb.NaiveBayes(
        {"c": bnb.Categorical(bnb.Dirichlet(2.0)), "g": bnb.Gaussian(bnb.NormalInverseGamma(**NIG))}
    )


def _all_text(summary: str) -> str:
    return summary[summary.index("(all: ") :]


def test_em_report_describes_the_whole_data_with_the_fits_estimator():
    df = _one_category_frame()
    n = len(df)
    mix = _model().cluster(df, 2, random_state=0, estimate="map")
    report = mix.report(top=None)
    # MAP under Dirichlet(2): (n_v + 1) / (n + 3), for the cluster's top category
    for k in mix.labels:
        top = report.loc[(k, "c"), "summary"].split(":")[0]
        q = ((df["c"] == top).sum() + 1) / (n + 3)
        assert _all_text(report.loc[(k, "c"), "summary"]) == f"(all: {q:.3f})"
    # MAP (joint mode) of the Normal-Inverse-Gamma: mean and variance by hand
    mu, beta_n = _nig_posterior(df["g"].to_numpy())
    var = beta_n / (NIG["alpha"] + n / 2 + 1.5)
    assert _all_text(report.loc[(0, "g"), "summary"]) == f"(all: {mu:.4g} ± {np.sqrt(var):.3g})"


def _nig_posterior(x):
    """The Normal-Inverse-Gamma posterior's mean mu_n and beta_n of the values ``x``
    under the prior ``NIG``, by their formulas."""
    n, m, ss = len(x), x.mean(), ((x - x.mean()) ** 2).sum()
    kappa_n = NIG["kappa"] + n
    mu = (NIG["kappa"] * NIG["mu"] + n * m) / kappa_n
    return mu, NIG["beta"] + ss / 2 + NIG["kappa"] * n * (m - NIG["mu"]) ** 2 / (2 * kappa_n)


@pytest.mark.slow
@pytest.mark.filterwarnings(CONVERGENCE)
def test_mcmc_report_describes_the_whole_data_by_the_posterior_mean():
    # The clusters of an MCMC fit are at the posterior mean of its draws, whatever
    # estimator its EM start used; the whole data is described by the posterior mean
    # too (not the MAP of fit.estimates).
    df = _one_category_frame()
    n = len(df)
    mix = _model().cluster(
        df, 2, random_state=0, estimate="map", method="mcmc", sampler="gibbs", draws=150, tune=50
    )
    assert mix.estimates["features"] == {"c": "map", "g": "map"}
    report = mix.report(top=None)
    for k in mix.labels:
        top = report.loc[(k, "c"), "summary"].split(":")[0]
        q = ((df["c"] == top).sum() + 2) / (n + 6)  # posterior mean under Dirichlet(2)
        assert _all_text(report.loc[(k, "c"), "summary"]) == f"(all: {q:.3f})"
    mu, beta_n = _nig_posterior(df["g"].to_numpy())
    var = beta_n / (NIG["alpha"] + n / 2 - 1)  # E[sigma^2] of the Inverse-Gamma
    for k in mix.labels:
        assert _all_text(report.loc[(k, "g"), "summary"]) == (
            f"(all: {mu:.4g} ± {np.sqrt(var):.3g})"
        )
