"""The posterior's and the MCMC trace's groups as ArviZ and netCDF take them: a
Binned feature's bin edges in attributes (so ``az.summary`` stacks every variable),
signed integer codes (which arviz-plots reads as discrete), a target that would name
a dimension refused, weights in ``constant_data``, and the DataTree saved with
``to_netcdf`` and read back unchanged. A weighted joint Gaussian's file loads."""

import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnb as bnb
from bayesnb.errors import InputError


def test_az_summary_reads_a_binned_posterior_and_the_edges_stay():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.uniform(0, 10, 30), "y": rng.choice(["p", "q"], 30)})
    fit = bnb.NaiveBayes({"x": bnb.Binned(bins=4)}).fit(df, target="y")
    tree = fit.posterior(draws=200, chains=2, random_state=0)
    table = az.summary(tree)
    assert len(table) == 2 + 2 * 4  # class_prob, then x for each class and bin
    edges = np.linspace(df["x"].min(), df["x"].max(), 5)
    np.testing.assert_allclose(tree.posterior["x"].attrs["x_lower"], edges[:-1], rtol=1e-15)
    np.testing.assert_allclose(tree.posterior["x"].attrs["x_upper"], edges[1:], rtol=1e-15)


@pytest.mark.parametrize("name", ["row", "chain", "draw"])
def test_a_target_named_as_a_dimension_is_refused_with_the_remedy(name):
    df = bnb.datasets.play_tennis().rename(columns={"play": name})
    fit = bnb.NaiveBayes().fit(df, target=name)
    with pytest.raises(InputError, match=rf"target is named '{name}'.*rename\(columns="):
        fit.posterior(draws=10, chains=2)


def test_drawn_codes_are_signed_integers():
    tennis = bnb.datasets.play_tennis()
    tree = bnb.NaiveBayes().fit(tennis, target="play").posterior(draws=50, random_state=0)
    for group in ("observed_data", "posterior_predictive"):
        for name, da in tree[group].ds.data_vars.items():
            assert da.dtype.kind == "i", (group, name, da.dtype)


def test_the_posterior_tree_saves_and_reads_back(tmp_path):
    tennis = bnb.datasets.play_tennis()
    tree = bnb.NaiveBayes().fit(tennis, target="play").posterior(draws=50, random_state=0)
    tree.to_netcdf(tmp_path / "post.nc")
    back = xr.open_datatree(tmp_path / "post.nc")
    assert set(back.children) == set(tree.children)
    for name in tree.children:
        xr.testing.assert_identical(back[name].to_dataset(), tree[name].to_dataset())


def test_a_weighted_joint_gaussian_saves_and_loads(tmp_path):
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    y, w = rng.choice(["p", "q"], 50), rng.uniform(0.1, 3.0, 50)
    model = bnb.NaiveBayes({"M": bnb.MultivariateGaussian(columns=["a", "b"])})
    fit = model.fit(df, y, sample_weight=w)
    cov = fit.blocks[0].data_cov
    np.testing.assert_array_equal(cov, cov.T)
    fit.save(tmp_path / "w.nc")
    np.testing.assert_array_equal(
        bnb.load(tmp_path / "w.nc").predict_proba(df), fit.predict_proba(df)
    )


@pytest.mark.slow
def test_a_weighted_mcmc_trace_keeps_its_weights_and_warns(tmp_path):
    votes = bnb.datasets.house_votes_84().drop(columns="party").iloc[:120, :4]
    w = np.r_[np.zeros(20), np.full(100, 2.0)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # (r_hat of so short a run warns too)
        fit = bnb.NaiveBayes().cluster(
            votes,
            2,
            method="mcmc",
            draws=100,
            tune=100,
            chains=2,
            random_state=0,
            sample_weight=w,
        )
    assert any("az.loo and az.compare" in str(c.message) for c in caught)
    np.testing.assert_array_equal(fit.trace["constant_data"]["sample_weight"].values, w)
    fit.trace.to_netcdf(tmp_path / "trace.nc")
    back = xr.open_datatree(tmp_path / "trace.nc")
    np.testing.assert_array_equal(back["constant_data"]["sample_weight"].values, w)
