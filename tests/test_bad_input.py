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


def _two_classes(**columns):
    return pd.DataFrame(columns), [0, 0, 1, 1]


def test_gaussian_infinite_value_at_fit_names_the_column():
    X, y = _two_classes(a=[0.0, 1.0, 2.0, 3.0], b=[1.0, 2.0, np.inf, 0.5])
    model = bnb.NaiveBayes({"ab": bnb.Gaussian(columns=["a", "b"])})
    with pytest.raises(errors.InputError, match=r"infinite value .*column 'b'.*NaN"):
        model.fit(X, y)


@pytest.mark.parametrize("estimate", ["map", "predictive"])
def test_gaussian_infinite_value_at_predict_names_the_column(estimate):
    X, y = _two_classes(a=[0.0, 1.0, 2.0, 3.0], b=[1.0, 2.0, 2.5, 0.5])
    fit = bnb.NaiveBayes({"ab": bnb.Gaussian(columns=["a", "b"])}).fit(X, y, estimate=estimate)
    bad = pd.DataFrame({"a": [-np.inf, 1.0], "b": [1.0, 2.0]})
    with pytest.raises(errors.InputError, match=r"infinite value .*column 'a'"):
        fit.predict_proba(bad)


@pytest.mark.parametrize("value", [np.nan, np.inf, [0.0, np.nan]])
def test_nig_non_finite_mu_is_refused_at_construction(value):
    with pytest.raises(errors.InputError, match=r"NormalInverseGamma mu must be finite"):
        bnb.NormalInverseGamma(mu=value)


@pytest.mark.parametrize("name", ["kappa", "alpha", "beta"])
@pytest.mark.parametrize("value", [0.0, -1.0, np.nan])
def test_nig_nonpositive_parameter_names_it(name, value):
    with pytest.raises(
        errors.InputError, match=rf"NormalInverseGamma {name} must be finite and > 0"
    ):
        bnb.NormalInverseGamma(**{name: value})


def test_nig_non_numeric_parameter_is_a_type_error():
    with pytest.raises(errors.InputTypeError, match=r"NormalInverseGamma kappa must be a number"):
        bnb.NormalInverseGamma(kappa="1")


@pytest.mark.parametrize("name", ["mu", "kappa", "alpha", "beta"])
def test_nig_shape_that_does_not_fit_the_block_names_feature_and_parameter(name):
    X, y = _two_classes(g=[0.0, 1.0, 2.0, 3.5])
    prior = bnb.NormalInverseGamma(**{"mu": 0.0, "beta": 1.0, name: [1.0, 2.0]})
    with pytest.raises(
        errors.InputError,
        match=rf"NormalInverseGamma {name} of Gaussian feature 'g' has shape \(2,\); "
        r"expected a scalar, \(1,\)",
    ):
        bnb.NaiveBayes({"g": bnb.Gaussian(prior)}).fit(X, y)


def test_nig_rows_that_do_not_match_the_classes_name_the_parameter():
    X, y = _two_classes(g=[0.0, 1.0, 2.0, 3.5])
    prior = bnb.NormalInverseGamma(mu=[[0.0], [1.0], [2.0]], beta=1.0)  # 3 rows, 2 classes
    with pytest.raises(
        errors.InputError, match=r"NormalInverseGamma mu of Gaussian feature 'g'.*\(2, 1\)"
    ):
        bnb.NaiveBayes({"g": bnb.Gaussian(prior)}).fit(X, y)


def test_gaussian_posterior_mean_variance_needs_alpha_above_one_names_feature_and_class():
    X = pd.DataFrame({"g": [0.0, 1.0, 2.0, 7.0]})
    prior = bnb.NormalInverseGamma(alpha=0.5)
    with pytest.raises(
        errors.InputError,
        match=r"E\[sigma2\] of Gaussian feature 'g' in class (#1|'b'), column 'g'",
    ):
        bnb.NaiveBayes({"g": bnb.Gaussian(prior)}).fit(X, ["a", "a", "a", "b"], estimate="mean")


def test_gaussian_ml_with_too_few_rows_names_class_and_column():
    X = pd.DataFrame({"g": [0.0, 1.0, 2.0, 7.0]})
    with pytest.raises(
        errors.InputError, match=r"ddof=1 .*Gaussian feature 'g'.*class (#1|'b'), column 'g'"
    ):
        bnb.NaiveBayes({"g": bnb.Gaussian(ddof=1)}).fit(X, ["a", "a", "a", "b"], estimate="ml")


def test_gaussian_spread_beyond_the_largest_float_names_the_column():
    X, y = _two_classes(small=[0.0, 1.0, 2.0, 3.0], big=[-1e300, 1e300, 0.0, 1.5e300])
    with pytest.raises(errors.InputError, match=r"column 'big'.*largest float.*Rescale"):
        bnb.NaiveBayes({"gb": bnb.Gaussian(columns=["small", "big"])}).fit(X, y, estimate="ml")


def test_gaussian_column_without_any_observed_value_names_it():
    X, y = _two_classes(a=[0.0, 1.0, 2.0, 3.0], b=[np.nan] * 4)
    with pytest.raises(errors.InputError, match=r"no observed value.*'b'"):
        bnb.NaiveBayes({"ab": bnb.Gaussian(columns=["a", "b"])}).fit(X, y)


@pytest.mark.parametrize("ddof", [2, -1, 0.5, True, "1"])
def test_gaussian_invalid_ddof_names_it(ddof):
    with pytest.raises(
        errors.InputError, match=rf"Gaussian ddof must be 0 .* or 1 .*got ddof={ddof!r}"
    ):
        bnb.Gaussian(ddof=ddof)


@pytest.mark.parametrize("prior", [bnb.Dirichlet(1.0), 1.0, "nig"])
def test_gaussian_prior_that_is_not_an_nig_names_it(prior):
    with pytest.raises(errors.InputTypeError, match=r"Gaussian prior must be a NormalInverseGamma"):
        bnb.Gaussian(prior)


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


# (end of the fitted-model section)


def test_errors_are_builtin_exceptions_too():
    assert issubclass(errors.InputError, ValueError)
    assert issubclass(errors.InputTypeError, TypeError)
    assert issubclass(errors.ModelFileError, ValueError)
    assert issubclass(errors.ZeroLikelihoodError, ValueError)
    assert bnb.NaiveBayes is not None and np is not None and pd is not None and pytest
