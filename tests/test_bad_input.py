"""Bad input gets a clear error: the package's own exception, naming the column or
parameter, what was expected and what was received, and the remedy.

Every test asserts the error type and that the message names the column or
parameter. The sections follow the parts of the package that raise.
"""

from __future__ import annotations

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


def _em_votes():
    return bnb.datasets.house_votes_84().drop(columns="party")


_EM_VOTES_MODEL = bnb.NaiveBayes(bnb.Bernoulli(values=("n", "y")))


@pytest.mark.parametrize("value", ["3", "abc", 2.0, True])
def test_cluster_n_components_of_the_wrong_type_is_named(value):
    # A string was read character by character: '3' gave the component '3', 'abc' three.
    with pytest.raises(errors.InputTypeError, match="n_components"):
        _EM_VOTES_MODEL.cluster(_em_votes(), value, random_state=0)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("1e-6", errors.InputTypeError),
        (None, errors.InputTypeError),
        (float("nan"), errors.InputError),
        (-1e-6, errors.InputError),
        (float("inf"), errors.InputError),
    ],
)
def test_cluster_bad_tol_is_named(value, error):
    with pytest.raises(error, match=r"tol must be a finite number >= 0"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, tol=value)


@pytest.mark.parametrize("value", ["0", 1.5, True, [1.0]])
def test_cluster_random_state_of_the_wrong_type_is_named(value):
    with pytest.raises(errors.InputTypeError, match="random_state"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, random_state=value)


def test_cluster_negative_random_state_is_named():
    with pytest.raises(errors.InputError, match="random_state must be an int >= 0"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, random_state=-1)


@pytest.mark.parametrize("name", ["n_init", "max_iter"])
@pytest.mark.parametrize(
    ("value", "error"),
    [
        (2.0, errors.InputTypeError),
        (True, errors.InputTypeError),
        ("5", errors.InputTypeError),
        (0, errors.InputError),
    ],
)
def test_cluster_counts_must_be_whole_numbers(name, value, error):
    with pytest.raises(error, match=f"{name} must be an int >= 1"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, **{name: value})


def test_cluster_mcmc_says_it_is_not_available():
    with pytest.raises(errors.InputError, match=r"method='mcmc'.*not available yet"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, method="mcmc")


def test_cluster_mean_estimate_of_a_gaussian_names_the_feature():
    X = bnb.datasets.old_faithful()
    with pytest.raises(errors.InputError, match=r"Gaussian feature 'eruptions'.*'map'"):
        bnb.NaiveBayes().cluster(X, 2, estimate="mean")
    declared = bnb.NaiveBayes(
        {"eruptions": bnb.Gaussian(estimate="map"), "waiting": bnb.Gaussian()}
    )
    with pytest.raises(errors.InputError, match="Gaussian feature 'waiting'"):
        declared.cluster(X, 2, estimate="mean")


def test_cluster_estimate_that_em_cannot_maximize_is_named():
    with pytest.raises(errors.InputError, match="estimate must be None, 'mean', 'map' or 'ml'"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, estimate="predictive")
    with pytest.raises(errors.InputError, match="class_estimate must be"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, class_estimate="median")


@pytest.mark.parametrize(
    ("weights", "error", "match"),
    [
        (-np.ones(435), errors.InputError, "sample_weight must be finite and >= 0; row 0"),
        (np.r_[np.ones(434), np.nan], errors.InputError, "sample_weight .* row 434"),
        (np.ones(10), errors.InputError, r"sample_weight must be 435 numbers"),
        (np.zeros(435), errors.InputError, "sample_weight is zero for every row"),
        (["a"] * 435, errors.InputTypeError, "sample_weight must be numbers"),
    ],
)
def test_cluster_bad_sample_weight_is_named(weights, error, match):
    with pytest.raises(error, match=match):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, sample_weight=weights)


def test_cluster_accelerate_must_be_a_bool():
    with pytest.raises(errors.InputTypeError, match="accelerate must be True or False"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, accelerate="yes")


def test_cluster_y_with_a_label_outside_the_components_is_named():
    y = ["democrat"] + [None] * 434
    with pytest.raises(errors.InputError, match=r"y has the label 'democrat'.*n_components"):
        _EM_VOTES_MODEL.cluster(_em_votes(), ["a", "b"], y=y)
    with pytest.raises(errors.InputError, match=r"y has 3 entries for 435 rows"):
        _EM_VOTES_MODEL.cluster(_em_votes(), ["a", "b"], y=["a", "b", None])


def test_cluster_init_responsibilities_of_the_wrong_shape_are_named():
    with pytest.raises(errors.InputError, match=r"init responsibilities must have shape"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, init=np.full((435, 3), 1 / 3), n_init=1)


def test_compare_components_refuses_sample_weight():
    with pytest.raises(errors.InputError, match="does not take sample_weight"):
        bnb.compare_components(_EM_VOTES_MODEL, _em_votes(), 2, sample_weight=np.ones(435))


# (end of the EM section)
#
#
#
#
#
# ======================================================================================
# Fitted models: prediction, persistence
# ======================================================================================


# (end of the fitted-model section)


def test_errors_are_builtin_exceptions_too():
    assert issubclass(errors.InputError, ValueError)
    assert issubclass(errors.InputTypeError, TypeError)
    assert issubclass(errors.ModelFileError, ValueError)
    assert issubclass(errors.ZeroLikelihoodError, ValueError)
    assert bnb.NaiveBayes is not None and np is not None and pd is not None and pytest
