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


TWO = [0, 0, 1, 1]


def test_missing_label_names_y_and_the_remedy():
    X = pd.DataFrame({"g": np.arange(4.0)})
    with pytest.raises(errors.InputError, match=r"y has 1 missing label.*row\(s\) \[3\].*cluster"):
        bnb.NaiveBayes().fit(X, ["a", "b", "a", np.nan])


def test_missing_label_in_a_target_column_names_it():
    X = pd.DataFrame({"g": np.arange(4.0), "play": ["yes", None, "no", "yes"]})
    with pytest.raises(errors.InputError, match=r"y \('play'\) has 1 missing label"):
        bnb.NaiveBayes().fit(X, target="play")


def test_mixed_type_labels_name_y_and_the_types():
    X = pd.DataFrame({"g": np.arange(4.0)})
    with pytest.raises(errors.InputError, match=r"y mixes labels of the types \['int', 'str'\]"):
        bnb.NaiveBayes().fit(X, ["a", 1, "a", 2])


def test_label_count_must_match_the_rows():
    with pytest.raises(errors.InputError, match="y has 3 entries for 4 rows"):
        bnb.NaiveBayes().fit(pd.DataFrame({"g": np.arange(4.0)}), [0, 1, 0])


def test_text_classifier_missing_label_names_y():
    from bayesnb.text import TextNaiveBayes

    with pytest.raises(errors.InputError, match="y has 1 missing label"):
        TextNaiveBayes().fit(["a b", "b c", "c d", "d a"], ["x", "y", None, "x"])


def test_mixed_type_column_names_the_column_and_types():
    X = pd.DataFrame({"g": np.arange(4.0), "c": ["a", 1, "b", 2]})
    with pytest.raises(errors.InputError, match=r"column 'c' mixes values of the types"):
        bnb.NaiveBayes().fit(X, TWO)


def test_string_column_declared_gaussian_names_column_and_value():
    X = pd.DataFrame({"g": ["1.5", "x", "2", "3"]})
    with pytest.raises(errors.InputTypeError, match=r"column 'g' \(dtype \w+\) holds the value"):
        bnb.NaiveBayes({"g": bnb.Gaussian()}).fit(X, TWO)


def test_string_column_declared_zero_one_bernoulli_names_the_column():
    X = pd.DataFrame({"b": ["yes", "no", "no", "yes"]})
    with pytest.raises(errors.InputTypeError, match=r"column 'b' .*holds the value 'yes'"):
        bnb.NaiveBayes({"b": bnb.Bernoulli(values=(0, 1))}).fit(X, TWO)


def test_infinite_value_in_a_bernoulli_column():
    X = pd.DataFrame({"a": [0.0, 1.0, 1.0, 0.0], "b": [0.0, np.inf, 1.0, 0.0]})
    with pytest.raises(errors.InputError, match=r"column 'b' has a non-finite value, inf"):
        bnb.NaiveBayes(bnb.Bernoulli()).fit(X, TWO)


def test_infinite_value_in_a_categorical_column():
    X = pd.DataFrame({"c": [1.0, -np.inf, 2.0, 1.0]})
    with pytest.raises(errors.InputError, match=r"column 'c' has the non-finite value -inf"):
        bnb.NaiveBayes({"c": bnb.Categorical()}).fit(X, TWO)


def test_infinite_value_in_a_binned_column():
    X = pd.DataFrame({"h": [0.5, np.inf, 1.5, 0.2]})
    with pytest.raises(errors.InputError, match=r"column 'h' has the non-finite value inf"):
        bnb.NaiveBayes({"h": bnb.Binned([0, 1, 2])}).fit(X, TWO)


def test_bernoulli_value_other_than_zero_one_names_the_column():
    X = np.array([[0, 1], [1, 2], [0, 0], [1, 1]])
    with pytest.raises(errors.InputError, match=r"column 'x1' has a value other than 0/1, 2"):
        bnb.NaiveBayes(bnb.Bernoulli()).fit(X, TWO)


def test_no_rows_names_x_and_its_shape():
    X = pd.DataFrame({"g": np.arange(4.0), "c": list("abab")}).iloc[:0]
    with pytest.raises(errors.InputError, match=r"X has no rows: its shape is \(0, 2\)"):
        bnb.NaiveBayes().fit(X, [])
    with pytest.raises(errors.InputError, match=r"X has no rows: its shape is \(0, 3\)"):
        bnb.NaiveBayes().fit(np.zeros((0, 3)), [])


def test_no_columns_names_x_and_its_shape():
    with pytest.raises(errors.InputError, match=r"X has no columns: its shape is \(4, 0\)"):
        bnb.NaiveBayes().fit(pd.DataFrame(index=range(4)), TWO)
    with pytest.raises(errors.InputError, match=r"X has no columns: its shape is \(4, 0\)"):
        bnb.NaiveBayes().fit(np.zeros((4, 0)), TWO)


def test_clustering_no_rows_names_x():
    with pytest.raises(errors.InputError, match=r"X has no rows: its shape is \(0, 2\)"):
        bnb.NaiveBayes().cluster(np.zeros((0, 2)), 2)


def test_all_missing_numeric_column_names_the_column():
    X = pd.DataFrame({"a": [0, 1, 1, 0], "g": [np.nan] * 4})
    with pytest.raises(errors.InputError, match=r"column 'g' \(float64\) has no observed value"):
        bnb.NaiveBayes().fit(X, TWO)


def test_declared_categories_must_hold_every_training_value():
    X = pd.DataFrame({"c": ["r", "g", "b", "b"]})
    model = bnb.NaiveBayes({"c": bnb.Categorical(categories=["r", "g"])})
    with pytest.raises(
        errors.InputError, match=r"column 'c' has 2 training value\(s\) outside .*\['b'\]"
    ):
        model.fit(X, TWO)


def test_unseen_error_policy_names_the_feature():
    X = pd.DataFrame({"c": ["r", "g", "r", "g"]})
    fit = bnb.NaiveBayes({"c": bnb.Categorical(unseen="error")}).fit(X, TWO, estimate="mean")
    with pytest.raises(errors.InputError, match=r"feature 'c' got the value 'b'"):
        fit.predict(pd.DataFrame({"c": ["b"]}))


def test_features_of_the_wrong_type():
    X = pd.DataFrame({"a": [0, 1, 1, 0]})
    with pytest.raises(errors.InputTypeError, match="features must be a dict"):
        bnb.NaiveBayes(features=3).fit(X, TWO)
    with pytest.raises(errors.InputTypeError, match=r"features\['a'\] must be a family"):
        bnb.NaiveBayes({"a": "bernoulli"}).fit(X, TWO)


def test_features_naming_a_column_x_lacks():
    X = pd.DataFrame({"a": [0, 1, 1, 0]})
    with pytest.raises(errors.InputError, match=r"features\['b'\] refers to column\(s\) \['b'\]"):
        bnb.NaiveBayes({"a": bnb.Bernoulli(), "b": bnb.Bernoulli()}).fit(X, TWO)


def test_undeclared_and_twice_declared_columns():
    X = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0]})
    with pytest.raises(errors.InputError, match=r"X has column\(s\) \['b'\] that no feature"):
        bnb.NaiveBayes({"a": bnb.Bernoulli()}).fit(X, TWO)
    twice = {"a": bnb.Bernoulli(), "ab": bnb.Bernoulli(columns=["a", "b"])}
    with pytest.raises(errors.InputError, match=r"column 'a' is declared twice"):
        bnb.NaiveBayes(twice).fit(X, TWO)


def test_duplicate_column_names_are_named():
    X = pd.DataFrame([[0, 1, 1], [1, 0, 1]], columns=["a", "b", "a"])
    with pytest.raises(errors.InputError, match=r"duplicate column names \['a'\]"):
        bnb.NaiveBayes().fit(X, [0, 1])


def test_bernoulli_values_must_be_two():
    with pytest.raises(errors.InputError, match=r"Bernoulli values must be the two raw values"):
        bnb.Bernoulli(values=("n", "y", "?"))


def test_unseen_policy_value_is_named():
    with pytest.raises(errors.InputError, match=r"unseen must be 'marginalize' or 'error'"):
        bnb.Categorical(unseen="skip")


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
