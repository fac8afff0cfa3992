"""compare_fits and the exact marginals' moments."""

import math

import numpy as np
import pandas as pd
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


def test_a_density_shows_its_features_without_its_one_class():
    df = bnb.datasets.play_tennis()
    table = bnb.compare_fits({"density": bnb.NaiveBayes().density(df)}, prob=0.9)
    assert "class_prob" not in set(table.parameter)
    row = table[(table.parameter == "outlook") & (table.entry == "Sunny")].iloc[0]
    # 14 days, Sunny 5 of them, Dirichlet(1) over 3 outlooks: Beta(6, 11)
    beta = stats.beta(6, 11)
    assert row["mean"] == pytest.approx(6 / 17, abs=1e-14)
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


# -- bnb.compare: the folds and the m-estimate --------------------------------------------


def test_compare_refuses_data_with_no_rows():
    header_only = pd.DataFrame(columns=["a", "b", "c"])
    with pytest.raises(errors.InputError, match=r"data has no rows .*\['a', 'b', 'c'\]"):
        bnb.compare(header_only, "a")


def test_more_folds_than_the_largest_class_is_an_error_and_than_the_smallest_a_warning():
    """scikit-learn's StratifiedKFold rule: PlayTennis has 9 Yes and 5 No, so 10 folds
    or more would leave a test fold empty (20 folds: 11 of them), and 6 to 9 folds
    leave some test folds without a No."""
    tennis = bnb.datasets.play_tennis()
    with pytest.raises(errors.InputError, match=r"n_splits=20 .* 9 rows .*'Yes'.* 11 test fold"):
        bnb.compare(tennis, "play", n_splits=20)
    with pytest.raises(errors.InputError, match=r"Give n_splits <= 9"):
        bnb.compare(tennis, "play", n_splits=10)
    with pytest.warns(UserWarning, match=r"'No', has only 5 row\(s\), fewer than n_splits=6"):
        table = bnb.compare(tennis, "play", strengths=(1.0,), train_sizes=(1.0,), n_splits=6)
    assert table[["accuracy", "log_loss", "brier"]].notna().all().all()
    with pytest.raises(errors.InputError, match="n_splits must be an int >= 2"):
        bnb.compare(tennis, "play", n_splits=1)


# Three classes of two rows each, on two folds: every fold tests one row of each class
# and trains on the other. a takes 3 values, b 2 and c 2 (over all the rows); c's
# second value "v" is in one row of class A only, so one fold trains without it.
SMALL = pd.DataFrame(
    {
        "y": list("AABBCC"),
        "a": list("xxyyzz"),
        "b": list("ppppqq"),
        "c": list("uvuuuu"),
    }
)


def _hand_m_estimate_scores() -> dict:
    """The m-estimate with m = 1, worked by hand: P(value | class) = (n + 1/t)/(N + 1)
    with N = 1 training row per class, t = 3 for a and t = 2 for b and c; uniform
    class probabilities (one training row each).

    Fold 1 trains on A's row with c = u: c has one category, P(u | class) = 1, and the
    test row with c = v is unseen (skipped). P(own a) = 4/3 / 2 = 2/3, P(other a) =
    1/6; P(own b) = 3/4, P(other b) = 1/4. Row A (x, p): 2/3*3/4 : 1/6*3/4 : 1/6*1/4
    = 12 : 3 : 1; row B alike; row C (z, q): 1/6*1/4 : 1/6*1/4 : 2/3*3/4 = 1 : 1 : 12.

    Fold 2 trains on A's row with c = v: P(u | A) = (0 + 1/2)/2 = 1/4, P(u | B) =
    P(u | C) = 3/4. Row A (x, p, u): 12*1 : 3*3 : 1*3 (in 1/96) = 4 : 3 : 1; row B
    (y, p, u): 3*1 : 12*3 : 1*3 = 1 : 12 : 1; row C (z, q, u): 1*1 : 1*3 : 12*3 =
    1 : 3 : 36.
    """
    folds = [
        np.array([[12, 3, 1], [3, 12, 1], [1, 1, 12]], dtype=float),
        np.array([[4, 3, 1], [1, 12, 1], [1, 3, 36]], dtype=float),
    ]
    log_loss, brier = [], []
    for weights in folds:
        proba = weights / weights.sum(axis=1, keepdims=True)
        log_loss.append(-np.mean(np.log(np.diag(proba))))
        brier.append(np.mean(np.sum((proba - np.eye(3)) ** 2, axis=1)))
    return {"accuracy": 1.0, "log_loss": np.mean(log_loss), "brier": np.mean(brier)}


@pytest.mark.parametrize(
    "features",
    [
        None,
        # one block of a and b, whose columns take 3 and 2 values: each its own p
        {"ab": bnb.Categorical(columns=["a", "b"]), "c": bnb.Categorical()},
    ],
)
def test_the_m_estimate_is_uniform_over_each_features_own_values(features):
    """p = 1/t_j for feature j, t_j its values over all the rows. It used to be 1/the
    most values of any column in the training fold (1/3 for every feature here)."""
    table = bnb.compare(
        SMALL, "y", features=features, strengths=(1.0,), train_sizes=(1.0,), n_splits=2
    )
    row = table[table.estimator == "m-estimate"].iloc[0]
    expected = _hand_m_estimate_scores()
    assert row["accuracy"] == expected["accuracy"]
    assert row["log_loss"] == pytest.approx(expected["log_loss"], rel=1e-12)
    assert row["brier"] == pytest.approx(expected["brier"], rel=1e-12)
    assert row["log_loss"] == pytest.approx(0.2803622001293084, rel=1e-12)
