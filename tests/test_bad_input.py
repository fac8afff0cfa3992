"""Bad input gets a clear error: the package's own exception, naming the column or
parameter, what was expected and what was received, and the remedy.

Every test asserts the error type and that the message names the column or
parameter. The sections follow the parts of the package that raise.
"""

from __future__ import annotations

import json
import warnings

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
        match=r"E\[sigma2\] of Gaussian feature 'g' in class 'b', column 'g'",
    ):
        bnb.NaiveBayes({"g": bnb.Gaussian(prior)}).fit(X, ["a", "a", "a", "b"], estimate="mean")


def test_gaussian_ml_with_too_few_rows_names_class_and_column():
    X = pd.DataFrame({"g": [0.0, 1.0, 2.0, 7.0]})
    with pytest.raises(
        errors.InputError, match=r"ddof=1 .*Gaussian feature 'g'.*class 'b', column 'g'"
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


def test_gaussian_variance_below_the_smallest_float_names_the_column():
    X = np.r_[5e-324 * np.arange(1, 11), 5e-324 * np.arange(20, 30)][:, None]
    with pytest.raises(bnb.InputError, match=r"column 'x0'.*smallest normal float.*Rescale"):
        bnb.NaiveBayes(bnb.Gaussian()).fit(X, [0] * 10 + [1] * 10, estimate="map")


def test_nig_prior_of_ragged_values_names_the_parameter():
    with pytest.raises(bnb.InputTypeError, match="NormalInverseGamma mu"):
        bnb.NormalInverseGamma(mu=[[0.0], [0.0, 1.0]])


def test_nig_parameters_that_do_not_broadcast_name_them():
    with pytest.raises(bnb.InputError, match=r"mu \(2,\), kappa \(3,\)"):
        bnb.NormalInverseGamma(mu=[0.0, 1.0], kappa=[1.0, 2.0, 3.0])


def test_complex_values_in_a_gaussian_column_are_a_type_error_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning before the error
        with pytest.raises(errors.InputTypeError, match=r"Gaussian feature 'z'.*column 'z'"):
            bnb.NaiveBayes({"z": bnb.Gaussian()}).fit(
                pd.DataFrame({"z": np.array([1 + 1j, 2 + 0j], dtype=object)}), [0, 1]
            )


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


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda: bnb.Categorical(categories="red"), "categories"),
        (lambda: bnb.Categorical(categories=5), "categories"),
        (lambda: bnb.Gaussian(columns="ab"), "columns"),
        (lambda: bnb.Bernoulli(values="ny"), "values"),
    ],
)
def test_a_string_or_scalar_where_a_list_is_declared(make, what):
    # a string is never read as the sequence of its characters
    with pytest.raises(errors.InputTypeError, match=rf"{what} must be a list; got"):
        make()


def test_declared_categories_distinct_and_not_missing():
    with pytest.raises(errors.InputError, match=r"categories must be distinct; got \['a'\]"):
        bnb.Categorical(categories=["a", "a", "b"])
    with pytest.raises(errors.InputError, match=r"categories .* hold the missing value None"):
        bnb.Categorical(categories=["a", None])
    with pytest.raises(errors.InputError, match=r"categories .* hold the missing value nan"):
        bnb.Categorical(categories=[1.0, np.nan])
    with pytest.raises(errors.InputTypeError, match=r"categories must be hashable .* \[1\]"):
        bnb.Categorical(categories=[[1], [2]])


def test_declared_categories_from_a_set_are_sorted():
    assert bnb.Categorical(categories={"b", "c", "a"}).categories == ["a", "b", "c"]


def test_unhashable_values_in_a_categorical_column_name_it():
    X = pd.DataFrame({"g": [0.0, 1.0, 2.0, 3.0], "c": [[1], [2], [1], [2]]})
    match = r"column 'c' holds the value \[1\] of type list"
    with pytest.raises(errors.InputTypeError, match=match):
        bnb.NaiveBayes().fit(X, TWO)


@pytest.mark.parametrize("y", ["aabb", 3, {"a": 1}])
def test_labels_that_are_not_a_sequence_name_y(y):
    # a string is never read as one label per character
    X = pd.DataFrame({"g": [0.0, 1.0, 2.0, 3.0]})
    with pytest.raises(errors.InputTypeError, match=r"y must hold one label per row"):
        bnb.NaiveBayes().fit(X, y)


@pytest.mark.parametrize(
    ("X", "said"),
    [
        (None, "NoneType"),
        ({"g": [0.0, 1.0]}, r"dict .*pd.DataFrame\(X\)"),
        (3.0, "float"),
        (pd.Series([0.0, 1.0], name="g"), r"a Series \(name 'g'.*to_frame"),
    ],
)
def test_x_that_is_not_a_table_names_x(X, said):
    match = rf"X must be a DataFrame or a 2-D array.*{said}"
    with pytest.raises(errors.InputTypeError, match=match):
        bnb.NaiveBayes().fit(X, [0, 1])


def test_sklearn_labels_of_mixed_types_name_y():
    # never turned into the strings '1' and 'b' on the way
    from bayesnb.sklearn import NaiveBayesClassifier

    X = np.arange(4.0)[:, None]
    with pytest.raises(errors.InputError, match=r"y mixes labels of the types \['int', 'str'\]"):
        NaiveBayesClassifier().fit(X, [1, 1, "b", "b"])


def test_categorical_nb_code_too_large_names_the_feature():
    from bayesnb.sklearn import CategoricalNB

    X = np.array([[0, 0], [1, 0], [0, 10**9], [1, 10**9]])
    with pytest.raises(errors.InputError, match=r"feature 1 of X has the category code 1000000000"):
        CategoricalNB().fit(X, TWO)


def test_target_with_an_array_names_target():
    with pytest.raises(errors.InputTypeError, match=r"target=0 names a column, so X must be"):
        bnb.NaiveBayes().fit(np.zeros((4, 2)), target=0)


# (end of the data section)
#
#
#
#
#
# ======================================================================================
# Text classification
# ======================================================================================

_TEXTS = ["Win cash now", "Cash prize win win", "See you now", "Lunch now or later", "later"]
_LABELS = ["spam", "spam", "ham", "ham", "ham"]


def _text_fit(event_model="multinomial", **options):
    from bayesnb.text import TextNaiveBayes

    return TextNaiveBayes(event_model).fit(_TEXTS, _LABELS, **options)


def test_text_texts_a_single_string():
    from bayesnb.text import TextNaiveBayes

    with pytest.raises(errors.InputTypeError, match=r"^texts must be a sequence of strings"):
        TextNaiveBayes().fit("Win cash now", ["spam"])


def test_text_texts_not_strings():
    from bayesnb.text import TextNaiveBayes

    with pytest.raises(errors.InputTypeError, match=r"^texts\[1\] is float \(nan\)"):
        TextNaiveBayes().fit(["ok", float("nan")], ["a", "b"])
    with pytest.raises(errors.InputTypeError, match=r"^texts must be a sequence of strings"):
        TextNaiveBayes().fit(3, ["a"])
    with pytest.raises(errors.InputTypeError, match=r"^texts\[0\] is int"):
        _text_fit().predict([7])


def test_text_y_length_mismatch():
    from bayesnb.text import TextNaiveBayes

    with pytest.raises(errors.InputError, match=r"^y has 4 entries for 5 rows"):
        TextNaiveBayes().fit(_TEXTS, _LABELS[:4])
    with pytest.raises(errors.InputTypeError, match=r"^y must be a 1-D sequence"):
        TextNaiveBayes().fit(_TEXTS, "spam")


def test_text_event_model_not_known():
    from bayesnb.text import TextNaiveBayes

    with pytest.raises(errors.InputError, match=r"^event_model must be one of .* got 'poisson'"):
        TextNaiveBayes("poisson")
    with pytest.raises(errors.InputError, match=r"^event_model must be one of"):
        TextNaiveBayes(["bernoulli"])


def test_text_prior_and_vocabulary_wrong_type():
    from bayesnb.text import TextNaiveBayes

    with pytest.raises(errors.InputTypeError, match=r"^prior must be a Dirichlet .* got 1\.0"):
        TextNaiveBayes(prior=1.0)
    with pytest.raises(errors.InputTypeError, match=r"^class_prior must be a Dirichlet"):
        TextNaiveBayes(class_prior=bnb.NormalInverseGamma())
    with pytest.raises(errors.InputTypeError, match=r"^vocabulary must be a bnb\.text\.Vocabulary"):
        TextNaiveBayes(vocabulary={"min_count": 2})


def test_text_vocabulary_options():
    from bayesnb.text import Vocabulary

    with pytest.raises(errors.InputError, match=r"^min_count must be an integer >= 1; got 0"):
        Vocabulary(min_count=0)
    with pytest.raises(errors.InputTypeError, match=r"^min_count must be an integer >= 1; got str"):
        Vocabulary(min_count="3")
    with pytest.raises(errors.InputError, match=r"^drop_most_frequent must be an integer >= 0"):
        Vocabulary(drop_most_frequent=-1)
    with pytest.raises(errors.InputTypeError, match=r"^drop_most_frequent must be an integer"):
        Vocabulary(drop_most_frequent=2.5)


def test_text_vocabulary_empty():
    from bayesnb.text import TextNaiveBayes, Vocabulary

    with pytest.raises(errors.InputError, match=r"vocabulary is empty.*min_count=10"):
        TextNaiveBayes(vocabulary=Vocabulary(min_count=10)).fit(_TEXTS, _LABELS)
    with pytest.raises(errors.InputError, match=r"drop_most_frequent=100 removes"):
        Vocabulary(drop_most_frequent=100).fit(_TEXTS)
    with pytest.raises(errors.InputError, match=r"^texts contain no token matching token_pattern"):
        Vocabulary().fit(["", "  ", "\t"])
    with pytest.raises(errors.InputError, match=r"Vocabulary is not fitted"):
        Vocabulary().transform(["x"])


def test_text_fit_matrix_words_length_mismatch():
    from bayesnb.text import TextNaiveBayes

    X = np.array([[1.0, 0, 2], [0, 1, 0]])
    with pytest.raises(errors.InputError, match=r"^words must give one name per column of X \(3\)"):
        TextNaiveBayes().fit_matrix(X, ["a", "b"], words=["x", "y"])


def test_text_fit_matrix_not_a_count_matrix():
    from bayesnb.text import TextNaiveBayes

    with pytest.raises(errors.InputTypeError, match=r"^X must be a 2-D numeric matrix .*<U1"):
        TextNaiveBayes().fit_matrix(np.array([["a", "b"], ["c", "d"]]), [0, 1])
    with pytest.raises(errors.InputError, match=r"^X must be a 2-D matrix .* shape \(3,\)"):
        TextNaiveBayes().fit_matrix(np.array([1.0, 2.0, 3.0]), [0, 1, 0])


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_text_bernoulli_counts_negative_nan_infinite(bad):
    """Bernoulli word presence used to count -1 and NaN as "present"."""
    from scipy import sparse

    from bayesnb.text import TextNaiveBayes

    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    X[1, 0] = bad
    for data in (X, sparse.csr_array(X)):
        message = rf"^X must hold finite non-negative word counts; got {bad!r} at row 1, column 0"
        with pytest.raises(errors.InputError, match=message):
            TextNaiveBayes("bernoulli").fit_matrix(data, ["a", "b"])


def test_text_docs_bad_counts_at_predict():
    from scipy import sparse

    from bayesnb.text import TextNaiveBayes

    fit = TextNaiveBayes("bernoulli").fit_matrix(np.eye(3), ["a", "b", "c"])
    with pytest.raises(errors.InputError, match=r"^docs must hold .* got -2\.0 at row 0, column 2"):
        fit.predict(sparse.csr_array(np.array([[0.0, 1.0, -2.0]])))
    with pytest.raises(errors.InputError, match=r"^docs must hold .* got nan at row 1, column 0"):
        fit.predict_proba(np.array([[0.0, 1.0, 0.0], [np.nan, 0.0, 0.0]]))


def test_text_docs_wrong_number_of_columns():
    from scipy import sparse

    fit = _text_fit()
    with pytest.raises(errors.InputError, match=r"^docs has 2 columns; the vocabulary has 9 words"):
        fit.predict(sparse.csr_array(np.ones((1, 2))))
    with pytest.raises(errors.InputError, match=r"^docs has 10 columns"):
        fit.predict_proba(np.ones((2, 10)))


def test_text_matrix_fit_given_strings():
    from bayesnb.text import TextNaiveBayes

    fit = TextNaiveBayes().fit_matrix(np.eye(2), ["a", "b"])
    with pytest.raises(errors.InputTypeError, match=r"fit_matrix.*no tokenizer"):
        fit.predict(["w0 w1"])


def test_text_explain_label_not_a_class():
    fit = _text_fit()
    with pytest.raises(errors.InputError, match=r"^label='eggs' is not a class; the classes are"):
        fit.explain("win now", label="eggs")
    with pytest.raises(errors.InputError, match=r"^against=0 is not a class"):
        fit.explain("win now", against=0)
    with pytest.raises(errors.InputError, match=r"^label and against are the same class 'ham'"):
        fit.explain("win now", label="ham", against="ham")
    with pytest.raises(errors.InputTypeError, match=r"^explain takes one message .* got list"):
        fit.explain(["win", "now"])


def test_text_predict_every_class_ruled_out():
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = _text_fit(estimate="ml")
    ruled_out = r"^row 1 has likelihood 0 under every class.*estimate='mean'"
    with pytest.raises(errors.ZeroLikelihoodError, match=ruled_out):
        fit.predict(["win now", "prize lunch"])
    with pytest.raises(errors.ZeroLikelihoodError, match=r"estimate='ml'.*log-odds is undefined"):
        fit.explain("prize lunch")


def test_text_damaged_file(tmp_path):
    import json

    import xarray as xr

    path = tmp_path / "text.nc"
    _text_fit().save(path)
    with xr.open_dataset(path, engine="scipy") as ds:
        ds = ds.load()
    config = json.loads(ds.attrs["bayesnb_config"])
    del config["text"]
    ds.attrs["bayesnb_config"] = json.dumps(config)
    ds.to_netcdf(tmp_path / "no_text.nc", engine="scipy")
    with pytest.raises(errors.ModelFileError, match=r"TextFit configuration lacks 'text'"):
        bnb.load(tmp_path / "no_text.nc")
    ds = ds.isel(text_word_counts=slice(0, 3))
    config["text"] = json.loads(_load_config(path))["text"]
    ds.attrs["bayesnb_config"] = json.dumps(config)
    ds.to_netcdf(tmp_path / "short.nc", engine="scipy")
    with pytest.raises(errors.ModelFileError, match=r"vocabulary has \(3,\) word counts for 9"):
        bnb.load(tmp_path / "short.nc")


def _load_config(path) -> str:
    import xarray as xr

    with xr.open_dataset(path, engine="scipy") as ds:
        return ds.attrs["bayesnb_config"]


def test_text_spam_split_options():
    from bayesnb.text import spam_split

    with pytest.raises(errors.InputError, match=r"^test_size must be a fraction in \(0, 1\)"):
        spam_split(test_size=2)
    with pytest.raises(errors.InputTypeError, match=r"^test_size must be a fraction"):
        spam_split(test_size="0.2")
    with pytest.raises(errors.InputError, match=r"^random_state must be an integer in \[0, "):
        spam_split(random_state=-1)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--test-size", "2"], r"argument --test-size: must be a number in \(0, 1\)"),
        (["--test-size", "abc"], r"argument --test-size: must be a number in \(0, 1\).*'abc'"),
        (["--test-size", "0.9999"], r"argument --test-size: test_size=0\.9999 leaves too few"),
        (["--min-count", "-1"], r"argument --min-count: must be an integer >= 1; got '-1'"),
        (["--random-state", "x"], r"argument --random-state: must be an integer in \[0, 42949"),
        (["--drop-most-frequent", "-3"], r"argument --drop-most-frequent: must be an integer >= 0"),
        (
            ["--drop-most-frequent", "100000000"],
            r"argument --drop-most-frequent/--min-count: --drop-most-frequent 100000000 with "
            r"--min-count 1 leaves no word",
        ),
    ],
)
def test_text_command_line_bad_option(argv, message, capsys):
    import re

    from bayesnb.text import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    assert re.search(message, captured.err), captured.err


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"lowercase": "no"}, errors.InputTypeError, "lowercase"),
        ({"token_pattern": 5}, errors.InputTypeError, "token_pattern"),
        ({"token_pattern": "("}, errors.InputError, "token_pattern='\\('"),
        ({"token_pattern": "(a)(b)"}, errors.InputError, "token_pattern=.*2 capturing groups"),
    ],
)
def test_text_vocabulary_bad_lowercase_and_token_pattern(options, error, match):
    with pytest.raises(error, match=match):
        bnb.text.Vocabulary(**options)


@pytest.mark.parametrize("shape", [(6, 0), (0, 3)])
def test_text_fit_matrix_without_rows_or_columns_names_x(shape):
    with pytest.raises(errors.InputError, match=r"X has shape"):
        bnb.text.TextNaiveBayes().fit_matrix(np.zeros(shape), ["a", "b"] * (shape[0] // 2))


def test_text_fit_matrix_duplicate_words_are_named():
    with pytest.raises(errors.InputError, match=r"words .*\['a'\]"):
        bnb.text.TextNaiveBayes().fit_matrix(np.ones((2, 2)), ["x", "y"], words=["a", "a"])


def test_text_sample_weight_negative_names_the_row():
    with pytest.raises(errors.InputError, match=r"sample_weight must be >= 0; got -1.0 at row 0"):
        bnb.text.TextNaiveBayes().fit(["a b", "c d"], ["x", "y"], sample_weight=[-1.0, 1.0])


@pytest.mark.parametrize("method", ["explain", "informative_words"])
def test_text_one_class_fit_cannot_compare_classes(method):
    fit = bnb.text.TextNaiveBayes().fit(["win cash", "see you"], ["x", "x"])
    args = ("win",) if method == "explain" else ()
    with pytest.raises(errors.InputError, match=f"{method} .*one class only"):
        getattr(fit, method)(*args)


def test_text_save_to_a_directory_names_the_path(tmp_path):
    from bayesnb.text import TextNaiveBayes

    fit = TextNaiveBayes().fit(["win cash", "see you"], ["spam", "ham"])
    with pytest.raises(errors.InputError, match=r"save: path .* is a directory"):
        fit.save(tmp_path)
    with pytest.raises(errors.InputError, match=r"save: the folder .* does not exist"):
        fit.save(tmp_path / "missing" / "fit.nc")


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


def test_cluster_method_names_the_two_methods():
    with pytest.raises(errors.InputError, match=r"method must be 'em'.*or 'mcmc'.*'MCMC'"):
        _EM_VOTES_MODEL.cluster(_em_votes(), 2, method="MCMC")


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
        (-np.ones(435), errors.InputError, "sample_weight must be >= 0; got -1.0 at row 0"),
        (np.r_[np.ones(434), np.nan], errors.InputError, "sample_weight .* row 434"),
        (np.ones(10), errors.InputError, r"sample_weight must hold one weight per row of X"),
        (np.zeros(435), errors.InputError, "sample_weight is zero for every row"),
        (["a"] * 435, errors.InputTypeError, "sample_weight must be 435 numbers"),
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


_TENNIS = bnb.datasets.play_tennis()


def _tennis_x():
    return _TENNIS.drop(columns="play")


def test_cluster_y_of_mixed_label_types_is_named():
    y = ["a", 1, None] * 4 + ["a", 1]
    with pytest.raises(errors.InputTypeError, match=r"y mixes labels of types \['int', 'str'\]"):
        bnb.NaiveBayes().cluster(_tennis_x(), 3, y=y)


@pytest.mark.parametrize("y", [np.zeros((14, 2)), 1])
def test_cluster_y_that_is_not_one_label_per_row_is_named(y):
    with pytest.raises(errors.InputError, match=r"y must hold one label per row"):
        bnb.NaiveBayes().cluster(_tennis_x(), 2, y=y)


@pytest.mark.parametrize("names", [[None, 1], [np.nan, 1.0]])
def test_cluster_component_named_by_a_missing_value_is_refused(names):
    with pytest.raises(errors.InputError, match=r"n_components names a component .*missing"):
        bnb.NaiveBayes().cluster(_tennis_x(), names)


@pytest.mark.parametrize("init", [[[0.5, 0.5]] * 14, 3])
def test_cluster_init_of_an_unknown_kind_is_named(init):
    with pytest.raises(errors.InputTypeError, match=r"init must be .*got (list|int)"):
        bnb.NaiveBayes().cluster(_tennis_x(), 2, init=init, n_init=1)


def test_cluster_init_fitted_with_another_number_of_components_is_named():
    fit = bnb.NaiveBayes().cluster(_tennis_x(), 2, random_state=0)
    with pytest.raises(errors.InputError, match=r"init is a fitted model with 2 classes"):
        bnb.NaiveBayes().cluster(_tennis_x(), 3, init=fit, n_init=1)


def test_cluster_init_lacking_a_feature_names_it():
    params = bnb.NaiveBayes().cluster(_tennis_x(), 2, random_state=0).params
    with pytest.raises(errors.InputError, match=r"init lacks the parameters of feature 'outlook'"):
        bnb.NaiveBayes().cluster(_tennis_x(), None, init=params.drop_vars("outlook"), n_init=1)


def test_cluster_init_with_a_negative_variance_names_the_feature():
    faithful = bnb.datasets.old_faithful()
    params = bnb.NaiveBayes().cluster(faithful, 2, random_state=0).params
    params["eruptions_var"] = -params["eruptions_var"]
    with pytest.raises(errors.InputError, match=r"init for Gaussian 'eruptions'"):
        bnb.NaiveBayes().cluster(faithful, None, init=params, n_init=1)


def test_cluster_estimate_of_the_wrong_type_is_named():
    with pytest.raises(errors.InputTypeError, match=r"estimate must be None.*got 3 \(int\)"):
        bnb.NaiveBayes().cluster(_tennis_x(), 2, estimate=3)


def test_cluster_estimate_in_upper_case_is_named_without_blaming_the_predictive():
    with pytest.raises(errors.InputError, match=r"estimate must be .*got 'MAP'") as info:
        bnb.NaiveBayes().cluster(_tennis_x(), 2, estimate="MAP")
    assert "predictive" not in str(info.value)


def test_cluster_map_under_a_dirichlet_below_one_names_the_feature():
    model = bnb.NaiveBayes(bnb.Categorical(bnb.Dirichlet(0.5)))
    with pytest.raises(errors.InputError, match=r"feature 'outlook' declares the prior"):
        model.cluster(_tennis_x(), 2, estimate="map")


def test_cluster_map_class_weights_under_a_dirichlet_below_one_are_named():
    model = bnb.NaiveBayes(class_prior=bnb.Dirichlet(0.5))
    with pytest.raises(errors.InputError, match=r"class_estimate='map' with the class prior"):
        model.cluster(_tennis_x(), 2, class_estimate="map")


def test_cluster_gaussian_below_float_resolution_names_the_column():
    # Every value is 1e150 + N(0, 1) = 1e150: a spread far below the spacing of float64
    # at 1e150 (1.8e134), where no Gaussian density can be evaluated.
    # (so the column holds one value, which the constant-column warning says first)
    X = pd.DataFrame({"g": 1e150 + np.random.default_rng(0).normal(size=50)})
    with (
        pytest.warns(UserWarning, match=r"holds one value, 1e\+150"),
        pytest.raises(errors.InputError, match=r"Gaussian feature 'g', column 'g'.*spacing"),
    ):
        bnb.NaiveBayes().cluster(X, 2, random_state=0)


@pytest.mark.parametrize(
    ("top", "error"),
    [(0, errors.InputError), (-1, errors.InputError), ("a", errors.InputTypeError)],
)
def test_mixture_report_top_is_named(top, error):
    mix = bnb.NaiveBayes().cluster(_tennis_x(), 2, random_state=0)
    with pytest.raises(error, match=r"top must be None .*or an int >= 1"):
        mix.report(top=top)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n": -1}, errors.InputError, r"n must be an int >= 0"),
        ({"n": 2.0}, errors.InputTypeError, r"n must be an int >= 0"),
        ({"n": 2, "random_state": "x"}, errors.InputTypeError, r"random_state must be"),
    ],
)
def test_mixture_sample_arguments_are_named(kwargs, error, match):
    mix = bnb.NaiveBayes().cluster(_tennis_x(), 2, random_state=0)
    with pytest.raises(error, match=match):
        mix.sample(**kwargs)


def test_pattern_statistics_of_a_gaussian_mixture_are_refused_by_name():
    mix = bnb.NaiveBayes().cluster(bnb.datasets.old_faithful(), 2, random_state=0)
    with pytest.raises(errors.InputError, match=r"pattern statistics need discrete .*gaussian"):
        mix.pattern_statistics(bnb.datasets.old_faithful())


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"k_max": 0}, errors.InputError),
        ({"k_max": 2, "k_min": 3}, errors.InputError),
        ({"k_max": 2.0}, errors.InputTypeError),
    ],
)
def test_compare_components_range_is_named(kwargs, error):
    with pytest.raises(error, match=r"k_max"):
        bnb.compare_components(bnb.NaiveBayes(), _tennis_x(), **kwargs)


def test_enumerate_completions_limit_is_named():
    from bayesnb.completions import enumerate_completions, seed_003_example

    model, data, start = seed_003_example()
    with pytest.raises(errors.InputError, match=r"exceed max_completions=3"):
        enumerate_completions(model, data, start, max_completions=3)
    with pytest.raises(errors.InputTypeError, match=r"max_completions must be an int"):
        enumerate_completions(model, data, start, max_completions="x")


def test_expected_statistics_params_of_the_wrong_kind_are_named():
    from bayesnb.completions import expected_statistics, seed_003_example

    model, data, _ = seed_003_example()
    with pytest.raises(errors.InputTypeError, match=r"params must be parameters .*got str"):
        expected_statistics(model, data, "random")


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


def _config_edit(change):
    """An edit for :func:`_rewrite`: ``change(config)`` on the file's decoded
    configuration, written back."""

    def edit(ds):
        config = json.loads(ds.attrs["bayesnb_config"])
        change(config)
        ds.attrs["bayesnb_config"] = json.dumps(config)
        return ds

    return edit


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


def test_features_of_the_wrong_type_at_declaration():
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
    # Without labels fit() fits a density; classes= without labels stays an error.
    with pytest.raises(errors.InputError, match=r"pass y= or target="):
        bnb.NaiveBayes().fit(bnb.datasets.play_tennis(), classes=["No", "Yes"])


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
    def change(config):
        config["model"] = "ForestFit"

    edit = _config_edit(change)

    with pytest.raises(errors.ModelFileError, match=r"model of kind 'ForestFit'"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_an_unknown_family_kind(tmp_path):
    def change(config):
        config["blocks"][1]["kind"] = "poisson"

    edit = _config_edit(change)

    with pytest.raises(errors.ModelFileError, match=r"blocks\[1\] has the family kind 'poisson'"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_a_family_state_with_an_unknown_entry(tmp_path):
    def change(config):
        config["blocks"][0]["state"]["smoothing"] = 3

    edit = _config_edit(change)

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
    def change(config):
        config["labels"] = ["No", "No"]

    edit = _config_edit(change)

    with pytest.raises(errors.ModelFileError, match=r"'labels' must be distinct"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_categories_that_disagree_with_the_counts(tmp_path):
    def change(config):
        state = config["blocks"][0]["state"]
        state["categories"] = state["column_categories"][0] = ["Overcast", "Rain"]

    edit = _config_edit(change)

    with pytest.raises(errors.ModelFileError, match=r"stat_0_counts.*outlook.*\(2, 3\).*\(2, 2\)"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_an_invalid_estimate(tmp_path):
    def change(config):
        config["estimates"]["features"]["wind"] = "median"

    edit = _config_edit(change)

    with pytest.raises(errors.ModelFileError, match=r"estimate of 'wind' is 'median'"):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_a_prior_with_a_negative_concentration(tmp_path):
    def change(config):
        config["blocks"][0]["state"]["prior"]["alpha"] = -1.0

    edit = _config_edit(change)

    with pytest.raises(
        errors.ModelFileError, match=r"concentration of the prior of feature 'outlook'.*> 0"
    ):
        bnb.load(_rewrite(_saved(tmp_path), edit))


def test_load_with_a_path_of_the_wrong_type():
    with pytest.raises(errors.InputTypeError, match=r"path must be a file name"):
        bnb.load(3.5)


def test_save_to_a_directory_a_missing_folder_or_a_non_path(tmp_path):
    fit = _tennis_fit()
    with pytest.raises(errors.InputError, match=r"save: path .* is a directory"):
        fit.save(tmp_path)
    with pytest.raises(errors.InputError, match=r"save: the folder .*no.* does not exist"):
        fit.save(tmp_path / "no" / "model.nc")
    with pytest.raises(errors.InputTypeError, match=r"save: path must be a file name"):
        fit.save(None)


def test_load_a_foreign_file_gives_one_line_of_cause(tmp_path):
    path = tmp_path / "table.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(errors.ModelFileError, match=r"table.csv' is not a netCDF-3 file") as info:
        bnb.load(path)
    assert "\n" not in str(info.value) and "pip install" not in str(info.value)


def test_linear_weights_names_the_class_count_and_the_other_features():
    X = pd.DataFrame({"b": [0, 1, 0, 1, 1, 0], "g": [0.1, 0.2, 0.4, 0.3, 0.9, 0.7]})
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1, 2, 2])
    match = r"3 class\(es\) \[0, 1, 2\] and the features \['g'\]"
    with pytest.raises(errors.InputError, match=match):
        fit.linear_weights()


# (end of the fitted-model section)


# ======================================================================================
# The PyMC model (NaiveBayes.to_pymc, bayesnb.pymc_model)
# ======================================================================================


def _pymc_rows():
    X = pd.DataFrame({"b": [0.0, 1.0, 1.0, np.nan], "c": ["u", "v", None, "u"]})
    return X, ["p", "q", "q", "p"]


def test_to_pymc_without_classes_or_components_names_y_and_n_components():
    X, _ = _pymc_rows()
    with pytest.raises(errors.InputError, match=r"y, target and n_components") as info:
        bnb.NaiveBayes().to_pymc(X)
    assert "n_components=K" in str(info.value) and "y=labels" in str(info.value)


@pytest.mark.parametrize("bad", [0, -2])
def test_to_pymc_with_fewer_than_one_component_names_n_components(bad):
    X, _ = _pymc_rows()
    with pytest.raises(errors.InputError, match=rf"n_components must be .*got {bad}"):
        bnb.NaiveBayes().to_pymc(X, n_components=bad)


@pytest.mark.parametrize("bad", ["2", 2.0, True])
def test_to_pymc_with_n_components_not_an_int_names_it(bad):
    X, _ = _pymc_rows()
    with pytest.raises(errors.InputTypeError, match=r"n_components must be an int"):
        bnb.NaiveBayes().to_pymc(X, n_components=bad)


def test_to_pymc_with_y_and_target_names_target():
    X, y = _pymc_rows()
    frame = X.assign(label=y)
    with pytest.raises(errors.InputError, match=r"both y and target='label'"):
        bnb.NaiveBayes().to_pymc(frame, y, n_components=2, target="label")
    with pytest.raises(errors.InputError, match=r"both y and target='label'"):
        bnb.NaiveBayes().to_pymc(frame, y, target="label")


def test_to_pymc_with_more_known_labels_than_components_names_n_components():
    X, _ = _pymc_rows()
    with pytest.raises(errors.InputError, match=r"y names 3 known component.*n_components=2"):
        bnb.NaiveBayes().to_pymc(X, ["a", "b", None, "c"], n_components=2)


def test_to_pymc_with_a_missing_class_label_names_y():
    X, _ = _pymc_rows()
    with pytest.raises(errors.InputError, match=r"\by\b"):
        bnb.NaiveBayes().to_pymc(X, ["p", None, "q", "p"])


def test_to_pymc_with_sample_weight_of_the_wrong_length_names_it():
    X, y = _pymc_rows()
    with pytest.raises(errors.InputError, match=r"sample_weight must hold one weight per row"):
        bnb.NaiveBayes().to_pymc(X, n_components=2, sample_weight=[1.0, 2.0])
    with pytest.raises(errors.InputError, match=r"sample_weight must be >= 0"):
        bnb.NaiveBayes().to_pymc(X, y, sample_weight=[1.0, -1.0, 1.0, 1.0])


def _pymc_point():
    from bayesnb.pymc_model import log_density, model_point

    X, y = _pymc_rows()
    model = bnb.NaiveBayes()
    return model.to_pymc(X, y), model.fit(X, y).params, model_point, log_density


def test_model_point_without_a_variable_names_it():
    pm_model, params, model_point, _ = _pymc_point()
    with pytest.raises(errors.InputError, match=r"params lacks the variable 'c'"):
        model_point(pm_model, params.drop_vars("c"))


def test_model_point_with_classes_in_another_order_names_the_dim():
    pm_model, params, model_point, _ = _pymc_point()
    turned = params.isel(class_label=[1, 0])
    with pytest.raises(errors.InputError, match=r"params\['class_prob'\] has the 'class_label'"):
        model_point(pm_model, turned)


def test_model_point_with_other_dims_names_the_variable():
    pm_model, params, model_point, _ = _pymc_point()
    other = params.assign(b=params["b"].rename(class_label="group"))
    with pytest.raises(errors.InputError, match=r"params\['b'\] has dims \('group',\)"):
        model_point(pm_model, other)


def test_log_density_with_a_non_finite_parameter_names_it():
    pm_model, params, _, log_density = _pymc_point()
    bad = params.copy(deep=True)
    bad["b"][0] = np.nan
    with pytest.raises(errors.InputError, match=r"params\['b'\] holds a value that is not finite"):
        log_density(pm_model, bad)


def test_model_point_of_an_array_names_params():
    pm_model, params, model_point, _ = _pymc_point()
    with pytest.raises(errors.InputTypeError, match=r"params must be an xarray.Dataset"):
        model_point(pm_model, params["b"].values)
    with pytest.raises(errors.InputTypeError, match=r"params\['class_prob'\] must be an xarray"):
        model_point(pm_model, {name: da.values for name, da in params.items()})


# (end of the PyMC model section)


# ======================================================================================
# The density (NaiveBayes.density, bayesnb.density.DensityFit)
# ======================================================================================


def _density_fit():
    return bnb.NaiveBayes().density(pd.DataFrame({"a": [True, False, True], "k": list("uvv")}))


def test_density_of_an_empty_frame():
    with pytest.raises(errors.InputError, match=r"X has no rows"):
        bnb.NaiveBayes().density(pd.DataFrame({"a": pd.Series([], dtype=bool)}))
    with pytest.raises(errors.InputError, match=r"X has no columns"):
        bnb.NaiveBayes().density(pd.DataFrame(index=range(3)))


def test_density_of_a_scalar_or_string():
    with pytest.raises(errors.InputTypeError, match=r"X must be a DataFrame.*got str"):
        bnb.NaiveBayes().density("data.csv")


def test_density_with_an_unknown_estimate():
    with pytest.raises(errors.InputError, match=r"estimate"):
        bnb.NaiveBayes().density(pd.DataFrame({"a": [True, False]}), estimate="median")


def test_density_scored_on_rows_lacking_a_column():
    with pytest.raises(errors.InputError, match=r"lacks the feature column\(s\) \['k'\]"):
        _density_fit().log_density(pd.DataFrame({"a": [True]}))


def test_density_sample_with_a_bad_n():
    fit = _density_fit()
    with pytest.raises(errors.InputTypeError, match=r"n must be an int"):
        fit.sample(2.5)
    with pytest.raises(errors.InputError, match=r"n must be an int >= 0.*-1"):
        fit.sample(-1)


def test_density_has_no_classes_to_predict():
    fit = _density_fit()
    with pytest.raises(errors.InputError, match=r"predict needs classes; this is a density"):
        fit.predict(pd.DataFrame({"a": [True], "k": ["u"]}))
    with pytest.raises(errors.InputError, match=r"predict_proba needs classes"):
        fit.predict_proba(pd.DataFrame({"a": [True], "k": ["u"]}))


def test_density_update_with_labels():
    with pytest.raises(errors.InputError, match=r"update of a density takes no labels.*y="):
        _density_fit().update(pd.DataFrame({"a": [True], "k": ["u"]}), y=["x"])


def test_fit_without_labels_with_a_class_estimate():
    X = pd.DataFrame({"a": [True, False]})
    with pytest.raises(errors.InputError, match=r"class_estimate='ml' but no labels"):
        bnb.NaiveBayes().fit(X, class_estimate="ml")


# (end of the density section)


def test_errors_are_builtin_exceptions_too():
    assert issubclass(errors.InputError, ValueError)
    assert issubclass(errors.InputTypeError, TypeError)
    assert issubclass(errors.ModelFileError, ValueError)
    assert issubclass(errors.ZeroLikelihoodError, ValueError)
    assert bnb.NaiveBayes is not None and np is not None and pd is not None and pytest


def test_a_round_trip_scores_in_the_fits_own_groups(tmp_path):
    """A string column and two integer ones: the fit scores the integer columns as one
    block (one declaration inferred for both) and the string one alone; blocks fused
    by key alone would make one group of all three, whose sums differ in the last bits.
    The file keeps the fit's groups, so the round trip is exact."""
    rng = np.random.default_rng(0)
    n = 80
    X = pd.DataFrame(
        {"cat": rng.choice(["x", "y", "z"], n), "c1": rng.poisson(3, n), "c2": rng.poisson(1, n)}
    )
    y = np.where(rng.random(n) < 0.5, "hi", "lo")
    fit = bnb.NaiveBayes().fit(X, y)
    path = tmp_path / "mixed.nc"
    fit.save(path)
    same = bnb.load(path)
    assert (same.predict_proba(X) == fit.predict_proba(X)).all()
    assert (same.joint_log_likelihood(X) == fit.joint_log_likelihood(X)).all()
    # and the file's groups are checked
    for bad in ([[0, 1]], [[0, 1], [1, 2]], [[0], [1], ["2"]], "all"):
        edited = _rewrite(path, _config_edit(lambda c, b=bad: c.update(scoring=b)))
        with pytest.raises(errors.ModelFileError, match=r"'scoring' must list every block"):
            bnb.load(edited)
