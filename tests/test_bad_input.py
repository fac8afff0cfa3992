"""Bad input gets a clear error: the package's own exception, naming the column or
parameter, what was expected and what was received, and the remedy.

Every test asserts the error type and that the message names the column or
parameter. The sections follow the parts of the package that raise.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import errors

# ======================================================================================
# Gaussian features and the Normal-Inverse-Gamma prior
# ======================================================================================


# (end of the Gaussian section)
#
#
#
#
#
# ======================================================================================
# Data, labels and discrete families
# ======================================================================================


# (end of the data section)
#
#
#
#
#
# ======================================================================================
# Text classification
# ======================================================================================


# (end of the text section)
#
#
#
#
#
# ======================================================================================
# Mixtures and EM
# ======================================================================================


# (end of the EM section)
#
#
#
#
#
# ======================================================================================
# Fitted models: prediction, persistence
# ======================================================================================


def _tennis_fit():
    return bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), target="play")


def _saved(tmp_path):
    path = tmp_path / "tennis.nc"
    _tennis_fit().save(path)
    return path


def _rewrite(path, edit):
    """Load the file as a plain netCDF dataset, apply ``edit`` and write it back."""
    import xarray as xr

    with xr.open_dataset(path, engine="scipy") as ds:
        ds = ds.load()
    ds = edit(ds)
    out = path.with_name("edited.nc")
    ds.to_netcdf(out, engine="scipy")
    return out


def test_predict_without_a_feature_column():
    fit = _tennis_fit()
    X = bnb.datasets.play_tennis().drop(columns=["play", "wind"])
    with pytest.raises(errors.InputError, match=r"X lacks the feature column\(s\) \['wind'\]"):
        fit.predict(X)


def test_predict_with_an_array_on_a_frame_model():
    fit = _tennis_fit()
    X = bnb.datasets.play_tennis().drop(columns="play").to_numpy()
    with pytest.raises(errors.InputTypeError, match=r"X must be a DataFrame.*got an array"):
        fit.predict_proba(X)


def test_predict_with_a_frame_on_an_array_model():
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(np.arange(8.0).reshape(4, 2), [0, 0, 1, 1])
    with pytest.raises(errors.InputTypeError, match=r"X must be an array.*got a DataFrame"):
        fit.predict(pd.DataFrame({"x0": [1.0], "x1": [2.0]}))


def test_predict_with_the_wrong_number_of_columns():
    fit = bnb.NaiveBayes(bnb.Gaussian()).fit(np.arange(8.0).reshape(4, 2), [0, 0, 1, 1])
    with pytest.raises(errors.InputError, match=r"X has 3 column\(s\).*fit on 2"):
        fit.predict(np.zeros((1, 3)))


def test_predict_with_a_string():
    with pytest.raises(errors.InputTypeError, match=r"X must be a DataFrame or a 2-D array"):
        _tennis_fit().predict("Sunny")


def test_class_prior_of_the_wrong_type():
    with pytest.raises(errors.InputTypeError, match=r"class_prior must be a bnb\.Dirichlet.*list"):
        bnb.NaiveBayes(class_prior=[1.0, 2.0])


def test_sklearn_class_prior_of_the_wrong_type():
    from bayesnb.sklearn import NaiveBayesClassifier

    clf = NaiveBayesClassifier(class_prior=2.0)
    with pytest.raises(errors.InputTypeError, match=r"class_prior must be a bnb.Dirichlet"):
        clf.fit(np.arange(4.0)[:, None], [0, 0, 1, 1])


def test_features_of_the_wrong_type():
    with pytest.raises(errors.InputTypeError, match=r"features must be a dict.*got list"):
        bnb.NaiveBayes(features=[bnb.Categorical()])


def test_a_feature_that_is_a_class_not_a_family():
    with pytest.raises(errors.InputTypeError, match=r"features\['outlook'\].*call it"):
        bnb.NaiveBayes(features={"outlook": bnb.Categorical})


@pytest.mark.parametrize("value", ["laplace", None, 1])
def test_estimate_invalid(value):
    df = bnb.datasets.play_tennis()
    with pytest.raises(errors.InputError, match=f"estimate must be one of .*got {value!r}"):
        bnb.NaiveBayes().fit(df, target="play", estimate=value)


def test_class_estimate_invalid():
    df = bnb.datasets.play_tennis()
    with pytest.raises(errors.InputError, match=r"class_estimate must be one of .*'MAP'"):
        bnb.NaiveBayes().fit(df, target="play", class_estimate="MAP")


def test_sklearn_estimate_invalid():
    from bayesnb.sklearn import NaiveBayesClassifier

    with pytest.raises(errors.InputError, match=r"estimate must be one of .*'posterior'"):
        NaiveBayesClassifier(estimate="posterior").fit(np.arange(4.0)[:, None], [0, 0, 1, 1])


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (
            [1.0, 2.0],
            r"sample_weight must hold one weight per row of X, shape \(4,\); got shape \(2,\)",
        ),
        (3.0, r"sample_weight must hold one weight per row.*got shape \(\)"),
        ([1.0, -1.0, 1.0, 1.0], "sample_weight must be >= 0; got -1.0 at row 1"),
        ([0.0, 0.0, 0.0, 0.0], "sample_weight is zero for every row"),
        ([1.0, np.nan, 1.0, 1.0], "sample_weight must be finite; got nan at row 1"),
        ([1.0, np.inf, 1.0, 1.0], "sample_weight must be finite; got inf at row 1"),
        (["a", "b", "c", "d"], "sample_weight must be 4 numbers"),
    ],
)
def test_sample_weight_invalid(weights, message):
    X = np.arange(8.0).reshape(4, 2)
    error = errors.InputError
    if isinstance(weights, list) and isinstance(weights[0], str):
        error = errors.InputTypeError
    with pytest.raises(error, match=message):
        bnb.NaiveBayes(bnb.Gaussian()).fit(X, [0, 0, 1, 1], sample_weight=weights)


def test_y_and_target_both():
    df = bnb.datasets.play_tennis()
    with pytest.raises(errors.InputError, match=r"fit got both y and target='play'"):
        bnb.NaiveBayes().fit(df, df["play"], target="play")


def test_target_not_a_column():
    df = bnb.datasets.play_tennis()
    with pytest.raises(errors.InputError, match=r"target='Play' is not a column of X"):
        bnb.NaiveBayes().fit(df, target="Play")


def test_neither_y_nor_target():
    with pytest.raises(errors.InputError, match=r"pass y= or target="):
        bnb.NaiveBayes().fit(bnb.datasets.play_tennis())


def test_linear_weights_on_non_bernoulli_features():
    with pytest.raises(errors.InputError, match=r"linear_weights needs Boolean.*'outlook'"):
        _tennis_fit().linear_weights()


def test_linear_weights_with_a_probability_zero():
    X = pd.DataFrame({"a": [True, True, False, False], "b": [True, False, True, False]})
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1], estimate="ml")
    with pytest.raises(errors.InputError, match=r"linear_weights needs every probability.*'ml'"):
        fit.linear_weights()


def test_predict_on_a_row_every_class_rules_out():
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = bnb.NaiveBayes({"c": bnb.Categorical(categories=["x", "y", "z"])}).fit(
            pd.DataFrame({"c": ["x", "y"]}), [0, 1], estimate="ml"
        )
    with pytest.raises(errors.ZeroLikelihoodError, match=r"row 0 .*feature 'c'"):
        fit.predict(pd.DataFrame({"c": ["z"]}))


def test_load_a_missing_file(tmp_path):
    path = tmp_path / "nowhere.nc"
    with pytest.raises(errors.ModelFileError, match=r"no file at path .*nowhere.nc"):
        bnb.load(path)


def test_load_a_file_that_is_not_netcdf(tmp_path):
    path = tmp_path / "notes.nc"
    path.write_text("just some text, not a model\n")
    with pytest.raises(errors.ModelFileError, match=r"notes.nc' is not a netCDF-3 file"):
        bnb.load(path)


def test_load_a_netcdf_without_the_model_attribute(tmp_path):
    import xarray as xr

    path = tmp_path / "data.nc"
    xr.Dataset({"t": ("x", np.arange(3.0))}).to_netcdf(path, engine="scipy")
    with pytest.raises(errors.ModelFileError, match=r"data.nc' .*no 'bayesnb_config' attribute"):
        bnb.load(path)


def test_load_garbage_json(tmp_path):
    def edit(ds):
        ds.attrs["bayesnb_config"] = '{"model": "NaiveBayesFit", "labels": [No'
        return ds

    with pytest.raises(errors.ModelFileError, match=r"'bayesnb_config' attribute of .* not valid"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_an_unknown_model_kind(tmp_path):
    def edit(ds):
        config = json.loads(ds.attrs["bayesnb_config"])
        config["model"] = "ForestFit"
        ds.attrs["bayesnb_config"] = json.dumps(config)
        return ds

    with pytest.raises(errors.ModelFileError, match=r"model of kind 'ForestFit'"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_an_unknown_family_kind(tmp_path):
    def edit(ds):
        config = json.loads(ds.attrs["bayesnb_config"])
        config["blocks"][1]["kind"] = "poisson"
        ds.attrs["bayesnb_config"] = json.dumps(config)
        return ds

    with pytest.raises(errors.ModelFileError, match=r"blocks\[1\] has the family kind 'poisson'"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_a_family_state_with_an_unknown_entry(tmp_path):
    def edit(ds):
        config = json.loads(ds.attrs["bayesnb_config"])
        config["blocks"][0]["state"]["smoothing"] = 3
        ds.attrs["bayesnb_config"] = json.dumps(config)
        return ds

    with pytest.raises(errors.ModelFileError, match=r"blocks\[0\].*unknown \['smoothing'\]"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_a_statistic_of_the_wrong_shape(tmp_path):
    def edit(ds):
        counts = ds["stat_0_counts"].values
        return ds.drop_vars("stat_0_counts").assign(stat_0_counts=(("a", "b"), counts[:, :2]))

    with pytest.raises(errors.ModelFileError, match=r"stat_0_counts.*shape \(2, 2\).*\(2, 3\)"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_a_negative_count(tmp_path):
    def edit(ds):
        ds["stat_2_counts"].values[0, 0] = -1.0
        return ds

    with pytest.raises(errors.ModelFileError, match=r"stat_2_counts.*humidity.*negative"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_a_missing_statistic(tmp_path):
    with pytest.raises(errors.ModelFileError, match=r"feature 'wind'.*needs the statistics"):
        bnb.load(_rewrite(_saved(tmp_path), lambda ds: ds.drop_vars("stat_3_counts")))


def test_load_duplicate_labels(tmp_path):
    def edit(ds):
        config = json.loads(ds.attrs["bayesnb_config"])
        config["labels"] = ["No", "No"]
        ds.attrs["bayesnb_config"] = json.dumps(config)
        return ds

    with pytest.raises(errors.ModelFileError, match=r"'labels' must be distinct"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_categories_that_disagree_with_the_counts(tmp_path):
    def edit(ds):
        config = json.loads(ds.attrs["bayesnb_config"])
        state = config["blocks"][0]["state"]
        state["categories"] = state["column_categories"][0] = ["Overcast", "Rain"]
        ds.attrs["bayesnb_config"] = json.dumps(config)
        return ds

    with pytest.raises(errors.ModelFileError, match=r"stat_0_counts.*outlook.*\(2, 3\).*\(2, 2\)"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_an_invalid_estimate(tmp_path):
    def edit(ds):
        config = json.loads(ds.attrs["bayesnb_config"])
        config["estimates"]["features"]["wind"] = "median"
        ds.attrs["bayesnb_config"] = json.dumps(config)
        return ds

    with pytest.raises(errors.ModelFileError, match=r"estimate of 'wind' is 'median'"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_a_prior_with_a_negative_concentration(tmp_path):
    def edit(ds):
        config = json.loads(ds.attrs["bayesnb_config"])
        config["blocks"][0]["state"]["prior"]["alpha"] = -1.0
        ds.attrs["bayesnb_config"] = json.dumps(config)
        return ds

    with pytest.raises(
        errors.ModelFileError, match=r"concentration of the prior of feature 'outlook'.*> 0"
    ):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_with_a_path_of_the_wrong_type():
    with pytest.raises(errors.InputTypeError, match=r"path must be a file name"):
        bnb.load(3.5)


# (end of the fitted-model section)


def test_errors_are_builtin_exceptions_too():
    assert issubclass(errors.InputError, ValueError)
    assert issubclass(errors.InputTypeError, TypeError)
    assert issubclass(errors.ModelFileError, ValueError)
    assert issubclass(errors.ZeroLikelihoodError, ValueError)
    assert bnb.NaiveBayes is not None and np is not None and pd is not None and pytest
