"""compare_fits and the exact marginals' moments."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

import bayesnb as bnb
from bayesnb import errors
from bayesnb.marginals import BetaMarginal, InverseGammaMarginal, SqrtOf, StudentTMarginal


def test_marginal_moments_against_scipy():
    a, b = np.array([2.0, 0.7]), np.array([5.0, 3.0])
    m = BetaMarginal(a, b)
    np.testing.assert_allclose(m.mean(), stats.beta(a, b).mean(), rtol=1e-14)
    np.testing.assert_allclose(m.std(), stats.beta(a, b).std(), rtol=1e-14)
    t = StudentTMarginal(7.0, 1.5, 0.3)
    assert float(t.std()) == pytest.approx(stats.t(7.0, 1.5, 0.3).std(), rel=1e-14)
    ig = InverseGammaMarginal(4.5, 2.0)
    assert float(ig.mean()) == pytest.approx(stats.invgamma(4.5, scale=2.0).mean(), rel=1e-14)
    assert float(ig.std()) == pytest.approx(stats.invgamma(4.5, scale=2.0).std(), rel=1e-14)
    # E[sigma] and sd[sigma] by quadrature over the variance's density
    first = integrate.quad(
        lambda v: math.sqrt(v) * stats.invgamma.pdf(v, 4.5, scale=2.0),
        0,
        np.inf,
        epsabs=0,
        epsrel=1e-12,
    )[0]
    sigma = SqrtOf(ig)
    assert float(sigma.mean()) == pytest.approx(first, rel=1e-9)
    assert float(sigma.std()) == pytest.approx(math.sqrt(ig.mean() - first**2), rel=1e-9)


def test_exact_rows_are_the_conjugate_marginals():
    df = bnb.datasets.play_tennis()
    fit = bnb.NaiveBayes().fit(df, target="play")
    table = bnb.compare_fits({"exact": fit}, prob=0.9)
    row = table[(table.parameter == "outlook") & (table.entry == "No, Sunny")].iloc[0]
    # No: 5 days, Sunny 3 of them, Dirichlet(1) over 3 outlooks: Beta(4, 4)
    beta = stats.beta(4, 4)
    assert row["mean"] == pytest.approx(0.5, abs=1e-14)
    assert row["sd"] == pytest.approx(beta.std(), rel=1e-12)
    assert (row["lower"], row["upper"]) == pytest.approx(tuple(beta.ppf([0.05, 0.95])), abs=1e-12)


def test_mixtures_are_aligned_to_the_first():
    votes = bnb.datasets.house_votes_84().drop(columns="party")
    model = bnb.NaiveBayes()
    em = model.cluster(votes, 2, random_state=0)
    # the same optimum with its components swapped
    swapped = em.params.isel(component=[1, 0]).assign_coords(component=[0, 1])
    other = model.cluster(votes, 2, init=swapped, n_init=1)
    assert other.params["class_prob"].values[0] == pytest.approx(em.params["class_prob"].values[1])
    table = bnb.compare_fits({"a": em, "b": other})
    wide = table.pivot(index=["parameter", "entry"], columns="fit", values="mean")
    np.testing.assert_allclose(wide["a"].values, wide["b"].values, atol=1e-6)
    assert table["sd"].isna().all()  # EM gives point estimates only


def test_compare_fits_bad_input():
    with pytest.raises(errors.InputTypeError, match="fits"):
        bnb.compare_fits([1, 2])
    with pytest.raises(errors.InputTypeError, match="fits\\['x'\\]"):
        bnb.compare_fits({"x": 3})


def test_every_estimator_is_scored_on_the_same_stratified_subsample():
    """Below train_size=1 every estimator trains on one subsample per fold, drawn
    class by class: each class keeps a row, so no smoothed estimator meets an unseen
    class (log loss finite), and the predictive equals the mean (one categorical draw)
    exactly, as they share their rows. They used to draw their own rows."""
    table = bnb.compare(
        bnb.datasets.play_tennis(), "play", strengths=(1.0,), train_sizes=(0.5,), n_splits=2
    )
    smoothed = table[table.estimator != "ml"]
    assert np.isfinite(smoothed.log_loss).all()
    assert table.n_train.nunique() == 1
    mean, predictive = (table[table.estimator == e].iloc[0] for e in ("mean", "predictive"))
    for column in ("accuracy", "log_loss", "brier", "calibration_error"):
        assert mean[column] == predictive[column]
