"""``bnb.compare`` at its edges: rows with no posterior, folds whose fit fails, ties,
the seed, the folds' messages, and ``cluster_report``'s rows against K.

The oracles are worked by hand: a row with no posterior is the uniform guess over
the K classes of its training fold (accuracy 1/K, log loss log K, Brier 1 - 1/K)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import errors
from bayesnb.workflow import _scores, _stratified_folds


def _all_dead(first: str, second: str) -> pd.DataFrame:
    """Two rows of class ``first`` and four of ``second``, every row unlike every other
    under maximum likelihood, in any two folds: ``own`` is the class (so each class's
    training rows rule out the other class's test rows), and each row has a private
    column, 1 in that row only (so its class's training rows, all 0 there, rule it
    out of its own class too)."""
    y = [first] * 2 + [second] * 4
    data = {"y": y, "own": ["0"] * 2 + ["1"] * 4}
    for i in range(6):
        data[f"r{i}"] = ["1" if j == i else "0" for j in range(6)]
    return pd.DataFrame(data)


@pytest.mark.parametrize("first, second", [("A", "B"), ("Z", "B")])
def test_rows_with_no_posterior_score_one_over_k_whatever_the_labels(first, second):
    """Each of the two folds tests one row of the small class and two of the large one,
    all with no posterior under ML. Scored as the uniform guess over the 2 classes:
    accuracy 1/2, log loss log 2, Brier (1/2)² + (1/2)² = 1/2, no_posterior 1. (Giving
    them to the first label in sorted order scored 1/3 with "A" first and 2/3 with
    "B" first.)"""
    table = bnb.compare(
        _all_dead(first, second),
        "y",
        features=bnb.Categorical(categories=["0", "1"]),
        strengths=(1.0,),
        train_sizes=(1.0,),
        n_splits=2,
    )
    ml = table[table.estimator == "ml"].iloc[0]
    assert ml["no_posterior"] == 1.0
    assert ml["accuracy"] == 0.5
    assert ml["log_loss"] == pytest.approx(math.log(2), rel=1e-12)
    assert ml["brier"] == pytest.approx(0.5, rel=1e-12)
    assert ml["calibration_error"] == pytest.approx(0.0, abs=1e-12)  # top 1/2, hit 1/2


def test_ties_for_the_top_are_split_evenly():
    """Row 1: classes 0 and 1 tie at 0.4, truth 0: half a hit. Row 2: the same tie,
    truth 2 (0.2): a miss. Row 3: the uniform guess over 3, truth 1: a third. Row 4:
    no tie, truth 2 at 0.7: a hit. Accuracy (1/2 + 0 + 1/3 + 1)/4 = 11/24."""
    proba = np.array([[0.4, 0.4, 0.2], [0.4, 0.4, 0.2], [1 / 3, 1 / 3, 1 / 3], [0.1, 0.2, 0.7]])
    proba[2] = 1.0 / 3.0  # exactly equal
    scores = _scores(np.array([0, 2, 1, 2]), proba)
    assert scores["accuracy"] == pytest.approx(11 / 24, rel=1e-12)


CHILDREN = pd.DataFrame(
    {"y": list("aaaabbbb"), "children": [0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]}
)


def test_a_fold_where_ml_meets_zero_variance_is_scored_not_fatal():
    """Class b has no children in every row, so every training fold has variance 0 in
    b and ML cannot be fitted (its density would be infinite): both folds score the
    uniform guess (accuracy 1/2, log loss log 2, Brier 1/2, no_posterior 1) and a
    warning says why; MAP (the prior keeps the variance positive) reports as usual."""
    with pytest.warns(UserWarning) as caught:
        table = bnb.compare(CHILDREN, "y", strengths=(1.0,), train_sizes=(1.0,), n_splits=2)
    messages = [str(w.message) for w in caught]
    assert messages == [
        "compare: the 'ml' estimator could not be fitted on 2 of its 2 training folds "
        "(estimate='ml' found zero variance of Gaussian feature 'children' in class 'b', "
        "column 'children' (2 sample(s) there, all equal), so its density is infinite "
        "there); their test rows are scored as the uniform guess and counted in "
        "no_posterior."
    ]
    ml = table[table.estimator == "ml"].iloc[0]
    assert (ml["accuracy"], ml["brier"], ml["no_posterior"]) == (0.5, 0.5, 1.0)
    assert ml["log_loss"] == pytest.approx(math.log(2), rel=1e-12)
    others = table[table.estimator != "ml"]
    assert len(others) == 4
    assert (others["no_posterior"] == 0).all() and np.isfinite(others["log_loss"]).all()


def test_when_every_fit_fails_the_first_failure_is_raised():
    """Column x is declared Bernoulli over p and q but holds r in three of class a's
    four rows, so every training fold (two rows of a) holds an r: no estimator can be
    fitted anywhere, which is the data's fault, and raised as such."""
    data = pd.DataFrame({"y": list("aaaabbbb"), "x": list("rrrppqpq")})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no "could not be fitted" warning first
        with pytest.raises(errors.InputError, match=r"Bernoulli feature 'x' .* has 'r'"):
            bnb.compare(
                data,
                "y",
                features={"x": bnb.Bernoulli(values=("p", "q"))},
                strengths=(1.0,),
                train_sizes=(1.0,),
                n_splits=2,
            )


def test_a_negative_seed_is_an_input_error_before_any_fit():
    """numpy's own "expected non-negative integer" used to escape; the check is the
    one every seed of the package gets."""
    with pytest.raises(
        errors.InputError,
        match=r"^random_state must be an int >= 0; got -1\. Give a seed >= 0, e\.g\. "
        r"random_state=0\.$",
    ):
        bnb.compare(CHILDREN, "y", n_splits=2, random_state=-1)


def test_the_folds_messages_show_labels_as_plain_values():
    """Float labels 1.0 (four rows) and 2.0 (one row): the warning names 2.0, not
    np.float64(2.0), and since one row cannot be tested in every fold it does not say
    "Give n_splits <= 1" (fewer than 2 folds is an error)."""
    labels = [np.float64(1.0), np.float64(2.0)]
    codes = np.array([0, 0, 0, 0, 1])
    with pytest.warns(UserWarning) as caught:
        _stratified_folds(codes, 2, np.random.default_rng(0), labels, "y")
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(
        "The least populated class of 'y', 2.0, has only 1 row(s), fewer than n_splits=2"
    )
    assert "1 of the 2 classes have a single row" in message
    assert "np.float64" not in message and "n_splits <= 1" not in message
    with pytest.raises(errors.InputError, match=r"largest class of 'y' \(1.0\)"):
        _stratified_folds(codes, 5, np.random.default_rng(0), labels, "y")
