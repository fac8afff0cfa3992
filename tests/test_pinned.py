"""Behaviours that no test pinned before (the mutation probe's survivors), each
against an independent closed form."""

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb


def test_gaussian_sample_has_the_fitted_standard_deviation():
    # One component, sd 3: 10^5 draws have sample sd 3 within 4 standard errors (the
    # sd of a normal sample's sd is sigma / sqrt(2 (n - 1))).
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"g": rng.normal(5.0, 3.0, 4000)})
    fit = bnb.NaiveBayes().cluster(X, 1, random_state=0)
    sigma = float(fit.params["g_sigma"].item())
    draws = fit.sample(100_000, random_state=1)["g"].to_numpy()
    n = len(draws)
    assert abs(draws.std(ddof=1) - sigma) < 4 * sigma / np.sqrt(2 * (n - 1))
    assert abs(draws.mean() - float(fit.params["g_mu"].item())) < 4 * sigma / np.sqrt(n)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_gaussian_free_parameters_count_mean_and_variance(k):
    # K - 1 weights plus, per component, a mean and a variance for each of d columns.
    X = bnb.datasets.old_faithful()
    fit = bnb.NaiveBayes().cluster(X, k, random_state=0)
    d = X.shape[1]
    assert fit.n_parameters() == (k - 1) + 2 * k * d
    assert fit.bic == pytest.approx(-2 * fit.log_likelihood + fit.n_parameters() * np.log(len(X)))
