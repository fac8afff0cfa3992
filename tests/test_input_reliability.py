"""Input handling: labels, missing values of every kind, declared categories, the
inferred families, unseen columns and wide frames.

Every expected number is a closed form written here (counts of the observed rows,
their Laplace estimates, a posterior from those) or an invariant against an
independent path (the same data declared as one block).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import errors
from bayesnb.families.base import fusion_groups

# -- labels -------------------------------------------------------------------------------


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA, float("nan")])
def test_missing_label_is_an_error_never_a_class(missing):
    X = pd.DataFrame({"g": np.arange(4.0)})
    with pytest.raises(errors.InputError, match="y has 1 missing label"):
        bnb.NaiveBayes().fit(X, ["a", "b", "a", missing])


def test_missing_datetime_label_is_an_error():
    y = pd.Series(pd.to_datetime(["2020-01-01", None, "2020-01-02", "2020-01-01"]))
    with pytest.raises(errors.InputError, match="y has 1 missing label"):
        bnb.NaiveBayes().fit(pd.DataFrame({"g": np.arange(4.0)}), y)


def test_text_classifier_missing_label_is_an_error():
    from bayesnb.text import TextNaiveBayes

    with pytest.raises(errors.InputError, match="y has 1 missing label"):
        TextNaiveBayes().fit(["a b", "b c", "c d", "d a"], ["x", "y", np.nan, "x"])


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA])
def test_sklearn_wrapper_missing_label_is_an_error(missing):
    from bayesnb.sklearn import NaiveBayesClassifier

    with pytest.raises(errors.InputError, match=r"^y has 1 missing label\(s\).*row\(s\) \[2\]"):
        NaiveBayesClassifier().fit(np.arange(8.0).reshape(4, 2), ["x", "y", missing, "x"])


def test_labels_keep_their_types():
    X = pd.DataFrame({"g": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]})
    fit = bnb.NaiveBayes().fit(X, ["b", "a", "b", "a", "c", "c"], estimate="mean")
    assert fit.labels == ["a", "b", "c"]
    fit = bnb.NaiveBayes().fit(X, [2.5, 1.0, 2.5, 1.0, 1.0, 2.5], estimate="mean")
    assert fit.labels == [1.0, 2.5]
    days = pd.to_datetime(["2020-01-02", "2020-01-01"] * 3)
    fit = bnb.NaiveBayes().fit(X, pd.Series(days), estimate="mean")
    assert fit.labels == [pd.Timestamp("2020-01-01"), pd.Timestamp("2020-01-02")]
    np.testing.assert_array_equal(fit.class_counts, [3, 3])


# -- missing values of every kind ---------------------------------------------------------

#: One Int64 column with a pd.NA, one string column; classes 0, 0, 0, 1, 1, 1.
Y6 = [0, 0, 0, 1, 1, 1]


def nullable_frame():
    return pd.DataFrame(
        {
            "n": pd.array([0, 2, pd.NA, 1, 1, 2], dtype="Int64"),
            "s": ["u", "u", "v", "v", "v", "u"],
        }
    )


def test_nullable_integer_na_is_marginalized_in_fit():
    model = bnb.NaiveBayes({"n": bnb.Categorical(unseen="error"), "s": bnb.Categorical()})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no cast warning leaks
        fit = model.fit(nullable_frame(), Y6, estimate="mean")
    assert fit.params["n_category"].values.tolist() == [0, 1, 2]
    # Counts of the observed rows only: class 0 has 0 and 2 (its NA is dropped).
    np.testing.assert_array_equal(fit.counts["n"].values, [[1, 0, 1], [0, 2, 1]])
    np.testing.assert_allclose(
        fit.params["n"].values, [[2 / 5, 1 / 5, 2 / 5], [1 / 6, 3 / 6, 2 / 6]]
    )


def test_nullable_integer_na_is_marginalized_in_predict():
    fit = bnb.NaiveBayes({"n": bnb.Categorical(unseen="error"), "s": bnb.Categorical()}).fit(
        nullable_frame(), Y6, estimate="mean"
    )
    row = pd.DataFrame({"n": pd.array([pd.NA], dtype="Int64"), "s": ["v"]})
    # Only s counts: P(c) = 1/2 each; P(v | 0) = (1+1)/(3+2), P(v | 1) = (2+1)/(3+2).
    expected = np.array([2 / 5, 3 / 5]) / (2 / 5 + 3 / 5)
    np.testing.assert_allclose(fit.predict_proba(row)[0], expected, rtol=1e-12)


def test_object_column_none_and_na_are_missing():
    X = pd.DataFrame({"c": ["a", None, "b", pd.NA, "a", np.nan]})
    fit = bnb.NaiveBayes().fit(X, Y6, estimate="mean")
    # class 0: a, None, b; class 1: NA, a, NaN.
    np.testing.assert_array_equal(fit.counts["c"].values, [[1, 1], [1, 0]])
    X = pd.DataFrame({"b": pd.Series([0, 1, None, pd.NA, 1, 1], dtype=object)})
    fit = bnb.NaiveBayes({"b": bnb.Bernoulli()}).fit(X, Y6, estimate="mean")
    np.testing.assert_array_equal(fit.counts["b"].values, [[1, 1], [0, 2]])


@pytest.mark.parametrize(
    "column",
    [
        pd.array([0, 1, pd.NA, 1, pd.NA, 0], dtype="Int64"),
        pd.array([False, True, pd.NA, True, pd.NA, False], dtype="boolean"),
        np.array([0.0, 1.0, np.nan, 1.0, np.nan, 0.0]),  # an integer 0/1 column with NaN
    ],
    ids=["Int64", "boolean", "float"],
)
def test_zero_one_columns_with_missing_values_are_bernoulli(column):
    fit = bnb.NaiveBayes().fit(pd.DataFrame({"b": column}), Y6, estimate="mean")
    assert [b.kind for b in fit.blocks] == ["bernoulli"]
    # Observed rows only: class 0 has (0, 1), class 1 has (1, 0).
    np.testing.assert_array_equal(fit.counts["b"].values, [[1, 1], [1, 1]])
    np.testing.assert_allclose(fit.params["b"].values, [0.5, 0.5])
    both = bnb.NaiveBayes().fit(pd.DataFrame({"b": column}), [0, 0, 0, 0, 1, 1], estimate="mean")
    # class 0 rows 0..3: 0, 1, NA, 1 -> 2 of 3 true; class 1: NA, 0 -> 0 of 1.
    np.testing.assert_allclose(both.params["b"].values, [(2 + 1) / (3 + 2), (0 + 1) / (1 + 2)])


def test_float_array_of_zeros_and_ones_is_one_bernoulli_block():
    X = np.array([[0.0, 1.0], [1.0, np.nan], [0.0, 0.0], [1.0, 1.0]])
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1], estimate="mean")
    assert [(b.name, b.kind) for b in fit.blocks] == [("X", "bernoulli")]
    # x0: one 1 in 2 rows in each class; x1: class 0 has one 1 in 1 row (NaN dropped).
    np.testing.assert_allclose(fit.params["X"].values, [[2 / 4, 2 / 3], [2 / 4, 2 / 4]])
    np.testing.assert_array_equal(fit.counts["X"].sel(X_category=1).values, [[1, 1], [1, 1]])


def test_other_floats_stay_gaussian():
    X = pd.DataFrame({"g": [0.0, 1.0, 0.5, np.nan]})
    assert [b.kind for b in bnb.NaiveBayes().fit(X, [0, 0, 1, 1]).blocks] == ["gaussian"]


# -- declared categories ------------------------------------------------------------------


def test_declared_categories_reject_other_training_values():
    model = bnb.NaiveBayes({"c": bnb.Categorical(categories=["r", "g"])})
    with pytest.raises(errors.InputError, match=r"column 'c'.*\['b'\]"):
        model.fit(pd.DataFrame({"c": ["r", "g", "b", "b"]}), [0, 0, 1, 1])


def test_declared_categories_reject_other_training_integers_in_an_array():
    model = bnb.NaiveBayes(bnb.Categorical(categories=[0, 1, 2]))
    with pytest.raises(errors.InputError, match=r"column 'x1'.*\[5\]"):
        model.fit(np.array([[0, 1], [1, 5], [2, 0], [0, 1]]), [0, 0, 1, 1])


def test_declared_categories_apply_unseen_at_predict():
    model = bnb.NaiveBayes({"c": bnb.Categorical(categories=["r", "g", "b"])})
    fit = model.fit(pd.DataFrame({"c": ["r", "g", "r", "r"]}), [0, 0, 1, 1], estimate="mean")
    # "b" is declared: its smoothed probability (0 + 1) / (2 + 3) in both classes.
    np.testing.assert_allclose(fit.params["c"].sel(c_category="b").values, [1 / 5, 1 / 5])
    # "x" is unseen: marginalized like a missing value.
    np.testing.assert_array_equal(
        fit.predict_proba(pd.DataFrame({"c": ["x"]})),
        fit.predict_proba(pd.DataFrame({"c": [None]})),
    )


# -- unseen test columns ------------------------------------------------------------------


def test_a_column_of_unseen_values_warns_naming_it():
    X = pd.DataFrame({"c": ["a", "b", "a", "b"], "d": ["u", "v", "v", "v"]})
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1], estimate="mean")
    new = pd.DataFrame({"c": ["A", "B", None], "d": ["u", "v", "u"]})
    with pytest.warns(errors.UnseenValuesWarning, match=r"column 'c'.*\['A', 'B'\]"):
        proba = fit.predict_proba(new)
    # The column is marginalized: the same as the rows without it.
    without = bnb.NaiveBayes().fit(X[["d"]], [0, 0, 1, 1], estimate="mean")
    np.testing.assert_allclose(proba, without.predict_proba(new[["d"]]), rtol=1e-12)


def test_a_column_of_unseen_integers_warns_naming_it():
    X = np.array([[0, 1], [1, 0], [0, 2], [1, 1]])
    fit = bnb.NaiveBayes(bnb.Categorical()).fit(X, [0, 0, 1, 1], estimate="mean")
    with pytest.warns(errors.UnseenValuesWarning, match=r"column 'x0'.*\[7, 9\]"):
        fit.predict_proba(np.array([[7, 1], [9, 0]]))


@pytest.mark.parametrize(
    ("train", "new", "dtype", "match"),
    [
        (
            [1, 2, 1, 3],
            ["1", 2],
            object,
            r"holds '1' \(text\).*categories learnt in training are number",
        ),
        (["a", "b", "a", "b"], [1, "a"], object, r"holds 1 \(number\).*are text"),
        ([1, 2, 1, 3], [True], bool, r"holds True \(Boolean\)"),
    ],
)
def test_a_value_of_another_type_than_the_categories_warns(train, new, dtype, match):
    X = pd.DataFrame({"c": train})
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1], estimate="mean")
    test = pd.DataFrame({"c": pd.Series(new, dtype=dtype)})
    with pytest.warns(errors.UnseenValuesWarning, match=match):
        proba = fit.predict_proba(test)
    # still marginalized like a missing value: the first row's probabilities are the
    # class shares (2 + 1) / (4 + 2) each
    np.testing.assert_allclose(proba[0], [0.5, 0.5], rtol=1e-12)


def test_some_unseen_values_or_a_single_row_do_not_warn():
    X = pd.DataFrame({"c": ["a", "b", "a", "b"]})
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1], estimate="mean")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit.predict_proba(pd.DataFrame({"c": ["a", "z"]}))  # one value is seen
        fit.predict_proba(pd.DataFrame({"c": ["z"]}))  # one row: the unseen policy's case


# -- wide frames --------------------------------------------------------------------------


def wide_frame(n=60, d=40, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(rng.integers(0, 2, (n, d)), columns=[f"c{j}" for j in range(d)])
    X["g"] = rng.normal(size=n)  # a Gaussian between two runs of Bernoulli columns
    for j in range(5):
        X[f"k{j}"] = rng.choice(["p", "q", "r"][: 2 + j % 2], n)
    X["z"] = rng.integers(0, 2, n)
    return X, y


def test_wide_frame_params_and_counts_are_per_column():
    X, y = wide_frame()
    fit = bnb.NaiveBayes().fit(X, y, estimate="mean")
    assert [b.name for b in fit.blocks] == list(X.columns)
    groups = fusion_groups(fit.blocks)  # fused in count, estimate and scoring
    # the 0/1 columns c0..c39 and z (not adjacent), the string columns k0..k4, g alone
    assert groups == [[*range(40), 46], [40], [41, 42, 43, 44, 45]]
    for j in range(40):
        col = f"c{j}"
        ones = [X[col][y == k].sum() for k in (0, 1)]
        sizes = [(y == k).sum() for k in (0, 1)]
        np.testing.assert_array_equal(
            fit.counts[col].values, [[s - o, o] for s, o in zip(sizes, ones, strict=True)]
        )
        np.testing.assert_allclose(
            fit.params[col].values, [(o + 1) / (s + 2) for s, o in zip(sizes, ones, strict=True)]
        )
        assert fit.params[col].dims == ("class_label",)
    for j in range(5):
        col = f"k{j}"
        table = pd.crosstab(y, X[col]).to_numpy()
        np.testing.assert_array_equal(fit.counts[col].values, table)
        np.testing.assert_allclose(
            fit.params[col].values,
            (table + 1) / (table.sum(axis=1, keepdims=True) + table.shape[1]),
        )
        assert fit.params[col].dims == ("class_label", f"{col}_category")


def test_wide_frame_predicts_as_one_feature_at_a_time():
    X, y = wide_frame()
    fit = bnb.NaiveBayes().fit(X, y, estimate="mean")
    jll = np.log(fit.params["class_prob"].values) + np.zeros((len(X), 2))
    for col in X.columns:
        one = bnb.NaiveBayes().fit(X[[col]], y, estimate="mean")
        jll += one.joint_log_likelihood(X[[col]]) - np.log(one.params["class_prob"].values)
    np.testing.assert_allclose(fit.joint_log_likelihood(X), jll, rtol=1e-12)
    declared = {
        "B": bnb.Bernoulli(columns=[f"c{j}" for j in range(40)]),
        "g": bnb.Gaussian(),
        **{f"k{j}": bnb.Categorical() for j in range(5)},
        "z": bnb.Bernoulli(),
    }
    block = bnb.NaiveBayes(declared).fit(X, y, estimate="mean")
    np.testing.assert_allclose(fit.predict_proba(X), block.predict_proba(X), rtol=1e-12)


def test_a_fused_run_still_warns_per_feature():
    X = pd.DataFrame({"a": [0, 1, 0, 1], "b": [0, 0, 1, 1], "c": [1, 0, 1, 0]})
    with pytest.warns(bnb.ZeroProbabilityWarning, match="feature 'b'"):
        bnb.NaiveBayes().fit(X, [0, 0, 1, 1], estimate="ml")


def test_a_fused_run_still_raises_per_feature():
    X = pd.DataFrame({"a": [0, 1, 0, 1], "b": [0, 0, 1, 1]})
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1], estimate="mean")
    with pytest.raises(errors.InputError, match=r"feature 'b' .*column 'b' has a value other"):
        fit.predict(pd.DataFrame({"a": [0], "b": [3]}))


def test_wide_benchmark_runs_and_agrees(repo_script):
    with repo_script("benchmarks/bench_wide.py") as module:
        results = module.run(100, 300, 1)  # checks the three declarations agree
    assert set(results) == {"block", "inferred", "declared"}
    assert results["block"]["ratio"] == 1.0
    assert all(r["total_s"] > 0 for r in results.values())


# -- labels and categories of every type ---------------------------------------------------


@pytest.mark.parametrize(
    "labels",
    [
        [(1, "x"), (2, "y")],  # tuples, which NumPy would spread over a second axis
        [(1,), (2, 3)],  # tuples of different lengths
        [0, 2**64 - 1],  # beyond int64: NumPy would make floats of them
        [np.uint64(0), np.uint64(2**64 - 1)],
    ],
)
def test_predict_and_params_keep_every_label_as_given(labels):
    X = pd.DataFrame({"c": ["a", "a", "b", "b"]})
    y = [labels[0], labels[0], labels[1], labels[1]]
    fit = bnb.NaiveBayes().fit(X, y)
    pred = fit.predict(X)
    assert pred.shape == (4,)
    assert [p == t for p, t in zip(pred, y, strict=True)] == [True] * 4
    assert list(fit.params["class_label"].values) == [labels[0], labels[1]]
    # Laplace: P(c = a | first class) = (2 + 1) / (2 + 2)
    assert fit.params["c"].values[0].tolist() == pytest.approx([0.75, 0.25])
    assert fit.counts["class_count"].values.tolist() == [2.0, 2.0]


def test_tuple_categories_export_with_one_coordinate_per_category():
    X = pd.DataFrame({"c": [(1, 2), (1, 2), (3, 4), (1, 2)]})
    fit = bnb.NaiveBayes().fit(X, [0, 0, 1, 1])
    assert list(fit.params["c_category"].values) == [(1, 2), (3, 4)]
    # class 1 saw (3, 4) once and (1, 2) once: (1 + 1) / (2 + 2) each
    assert fit.params["c"].sel(class_label=1).values.tolist() == pytest.approx([0.5, 0.5])
    assert fit.counts["c"].sel(class_label=0).values.tolist() == [2.0, 0.0]
    proba = fit.predict_proba(pd.DataFrame({"c": [(3, 4)]}))
    # prior (2+1)/(4+2) = 1/2 each; likelihoods 1/4 and 2/4: posterior 1/3, 2/3
    assert proba[0].tolist() == pytest.approx([1 / 3, 2 / 3])


def test_a_sparse_count_matrix_is_inferred_multinomial_and_a_presence_matrix_bernoulli():
    from scipy import sparse

    counts = sparse.csr_array(np.array([[2, 0, 1], [0, 3, 0], [1, 0, 0], [0, 1, 4]]))
    y = [0, 0, 1, 1]
    fit = bnb.NaiveBayes().fit(counts, y)
    assert fit.blocks[0].kind == "multinomial"
    # (count + 1) / (total + 3) per class, the default estimate="mean" under Dirichlet(1)
    np.testing.assert_allclose(
        fit.params["X"].sel(class_label=0), [3 / 9, 4 / 9, 2 / 9], rtol=1e-12
    )
    presence = (counts > 0).astype(float)
    fit = bnb.NaiveBayes().fit(sparse.csr_array(presence), y)
    assert fit.blocks[0].kind == "bernoulli"
    np.testing.assert_allclose(
        fit.params["X"].sel(class_label=1), [2 / 4, 2 / 4, 2 / 4], rtol=1e-12
    )
    mix = bnb.NaiveBayes().cluster(counts, 2, random_state=0)  # counts cluster too
    assert mix.blocks[0].kind == "multinomial" and mix.converged


def test_gaussian_columns_fuse_into_one_block_with_scikit_learns_numbers():
    from sklearn.naive_bayes import GaussianNB

    rng = np.random.default_rng(8)
    y = rng.integers(0, 3, 200)
    X = pd.DataFrame({f"g{j}": rng.normal(size=200) + 0.2 * j * y for j in range(30)})
    X.insert(10, "s", rng.choice(["a", "b"], 200))  # not adjacent: still one group
    fit = bnb.NaiveBayes().fit(X, y, estimate="ml", class_estimate="ml")
    groups = fusion_groups(fit.blocks)
    assert [*range(10), *range(11, 31)] in groups
    theirs = GaussianNB(var_smoothing=0.0).fit(X.drop(columns="s"), y)
    names = [c for c in X.columns if c != "s"]
    mu = np.column_stack([fit.params[f"{c}_mu"].values for c in names])
    var = np.column_stack([fit.params[f"{c}_var"].values for c in names])
    np.testing.assert_allclose(mu, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(var, theirs.var_, rtol=1e-12)
    # every block keeps its own default prior, resolved from its own column
    for j, c in enumerate(names[:3]):
        block = fit.blocks[list(X.columns).index(c)]
        np.testing.assert_allclose(block.prior.mu[:, 0], theirs.theta_[:, j], rtol=1e-12)


def test_pandas_categorical_columns_read_by_their_codes_equal_string_columns():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 120)
    raw = {f"c{j}": rng.choice(["lo", "mid", "hi"], 120).astype(object) for j in range(6)}
    raw["c0"][:5] = None  # missing
    strings = pd.DataFrame(raw)
    cats = strings.astype(pd.CategoricalDtype(["mid", "lo", "hi", "unused"]))  # own order
    a = bnb.NaiveBayes().fit(strings, y)
    b = bnb.NaiveBayes().fit(cats, y)
    for j in range(6):  # a categorical's categories are its dtype's, unused ones included
        assert b.blocks[j].column_categories == [["mid", "lo", "hi", "unused"]]
        np.testing.assert_array_equal(
            b.counts[f"c{j}"].sel(c0_category=["hi", "lo", "mid"]).values
            if j == 0
            else b.counts[f"c{j}"].sel({f"c{j}_category": ["hi", "lo", "mid"]}).values,
            a.counts[f"c{j}"].values,
        )
    test = strings.iloc[:20].copy()
    test.iloc[0, 1] = "new"  # unseen: marginalized on both sides
    pa = a.predict_proba(test)
    cat_test = test.astype(pd.CategoricalDtype(["hi", "new", "lo", "mid"]))  # other codes
    # the categorical fit differs by its 'unused' category's pseudo-count: without it,
    # its codes give the string fit's numbers whatever the codes' order
    c = bnb.NaiveBayes().fit(strings.astype(pd.CategoricalDtype(["mid", "lo", "hi"])), y)
    np.testing.assert_allclose(c.predict_proba(cat_test), pa, rtol=1e-13)
    assert b.predict_proba(cat_test).shape == pa.shape


# -- feature names and the outputs' own names -----------------------------------------------

Y6 = list("aaabbb")


@pytest.mark.parametrize(
    "name", ["class_prob", "class_label", "label", "row", "chain", "draw", "log_likelihood"]
)
def test_a_feature_named_as_an_output_of_the_package_is_refused(name):
    """A feature called ``class_prob`` used to replace the class probabilities in
    ``params``; ``row`` broke the posterior. Each is refused before fitting, naming
    the feature, what the name is used for and the remedy."""
    X = pd.DataFrame({name: list("pqpqrr")})
    with pytest.raises(errors.InputError, match=rf"feature '{name}' .*Rename the column"):
        bnb.NaiveBayes().fit(X, Y6)
    with pytest.raises(errors.InputError, match=rf"feature '{name}'"):
        bnb.NaiveBayes().cluster(X.assign(other=list("xyxyxy")), 2, random_state=0)


def test_features_whose_outputs_coincide_are_refused():
    """A Gaussian ``g`` names its means ``g_mu``: a categorical feature ``g_mu`` would
    overwrite them (and a Gamma ``t`` its ``t_n`` statistic). A categorical ``g_mu``
    beside a categorical ``g`` is fine: ``g`` adds only ``g`` and ``g_category``."""
    X = pd.DataFrame({"g": [0.1, 0.5, 2.0, 2.4, 1.0, 3.0], "g_mu": list("pqpqrr")})
    with pytest.raises(errors.InputError, match=r"features 'g' and 'g_mu' .*'g_mu'"):
        bnb.NaiveBayes().fit(X, Y6)
    T = pd.DataFrame({"t": [1.0, 2.0, 3.0, 4.0, 5.0, 7.0], "t_n": list("pqpqrr")})
    with pytest.raises(errors.InputError, match=r"'t_n'"):
        bnb.NaiveBayes({"t": bnb.Gamma(), "t_n": bnb.Categorical()}).fit(T, Y6)
    fit = bnb.NaiveBayes(bnb.Categorical()).fit(X.astype({"g": str}), Y6)
    assert set(fit.params.data_vars) == {"class_prob", "g", "g_mu"}
    np.testing.assert_allclose(fit.params["class_prob"], [0.5, 0.5], rtol=1e-15)


def test_a_density_keeps_a_feature_named_like_a_classifiers_target():
    """A density names its labels ``density`` in the posterior, so a feature of that
    name is refused there; a classifier takes it (its labels are ``play``), and its
    table keeps it: (count + 1) / (3 + 2) per class."""
    X = pd.DataFrame({"density": list("ababab"), "play": Y6})
    with pytest.raises(errors.InputError, match=r"'density' .*labels"):
        bnb.NaiveBayes().density(X.drop(columns="play"))
    fit = bnb.NaiveBayes().fit(X, target="play")
    np.testing.assert_allclose(fit.params["density"].sel(class_label="a"), [3 / 5, 2 / 5])


def test_labels_made_from_a_column_take_the_name_label():
    """y = X["g"] > 1 is a Series called ``g``, as is the feature: the posterior names
    the labels ``label`` then (its own name otherwise), and both keep their values."""
    X = pd.DataFrame({"g": [0.1, 0.5, 2.0, 2.4, 1.5, 3.0]})
    tree = bnb.NaiveBayes().fit(X, X["g"] > 1).posterior(draws=2, random_state=0)
    observed = tree["observed_data"]
    assert observed["label"].values.tolist() == [0, 0, 1, 1, 1, 1]
    np.testing.assert_array_equal(observed["g"].values, X["g"].values)
    other = bnb.NaiveBayes().fit(X, pd.Series(Y6, name="kind")).posterior(draws=2)
    assert other["observed_data"]["kind"].values.tolist() == [0, 0, 0, 1, 1, 1]


def test_every_output_name_is_one_the_declaration_check_knows():
    """The check of clashing names rests on each family listing the names it adds
    (``output_names``): every variable and dimension of ``params``, ``counts`` and the
    exact posterior's groups is the package's own or one that some feature lists."""
    from bayesnb._data import RESERVED_NAMES

    rng = np.random.default_rng(0)
    n = 40
    X = pd.DataFrame(
        {
            "cat": rng.choice(list("abc"), n),
            "bern": rng.random(n) < 0.5,
            "gau": rng.normal(size=n),
            "bin": rng.normal(size=n),
            "m1": rng.normal(size=n),
            "m2": rng.normal(size=n),
            "w1": rng.integers(0, 4, n),
            "w2": rng.integers(0, 4, n),
            "g1": rng.gamma(2.0, size=n) + 0.1,
            "g2": rng.gamma(2.0, size=n) + 0.1,
            "c1": rng.choice(list("xy"), n),
            "c2": rng.choice(list("uvw"), n),
        }
    )
    features = {
        "cat": bnb.Categorical(),
        "bern": bnb.Bernoulli(),
        "gau": bnb.Gaussian(),
        "bin": bnb.Binned(bins=4),
        "mv": bnb.MultivariateGaussian(columns=["m1", "m2"], covariance="tied"),
        "words": bnb.Multinomial(columns=["w1", "w2"]),
        "pair": bnb.Categorical(columns=["c1", "c2"]),
    }
    y = rng.integers(0, 2, n)
    fit = bnb.NaiveBayes(features).fit(X.drop(columns=["g1", "g2"]), y)
    gamma = bnb.NaiveBayes({"gam": bnb.Gamma(columns=["g1", "g2"])}).fit(X[["g1", "g2"]], y)
    datasets = [fit.params, fit.counts, gamma.params, gamma.counts]
    tree = fit.posterior(draws=2, random_state=0)
    datasets += [node.ds for node in tree.subtree if node.ds is not None]
    mix = bnb.NaiveBayes(features).cluster(X.drop(columns=["g1", "g2"]), 2, random_state=0)
    datasets += [mix.params, mix.counts]
    known = set(RESERVED_NAMES)
    for name, family in features.items():
        columns = family.columns or [name]
        known.update(family.output_names(name, columns))
    known.update(bnb.Gamma().output_names("gam", ["g1", "g2"]))
    seen = {str(v) for ds in datasets for v in (*ds.data_vars, *ds.dims, *ds.coords)}
    assert seen - known == set()
    assert {"mv_cov", "gau_ss", "gam_sum_log", "bin_lower", "c2_category"} <= seen


# -- rows given as lists, feature_names ------------------------------------------------------


def test_rows_mixing_strings_and_numbers_are_refused_not_stringified():
    """NumPy turns [[1.0, "a"], ...] into strings, so 1.0 would become the category
    '1.0' and 1 an unseen '1'. Rows of strings alone are fine."""
    with pytest.raises(errors.InputError, match=r"mixing strings with other values .*DataFrame"):
        bnb.NaiveBayes().fit([[1.0, "a"], [2.0, "b"], [1.0, "b"]], ["u", "v", "u"])
    fit = bnb.NaiveBayes().fit([["x", "a"], ["y", "b"], ["x", "b"]], ["u", "v", "u"])
    with pytest.raises(errors.InputError, match="mixing strings"):
        fit.predict([[1, "a"]])
    # the first column under Dirichlet(1): class u has x in both its rows, class v
    # none of its one: P(x) = (2 + 1) / (2 + 2) and (0 + 1) / (1 + 2)
    np.testing.assert_allclose(fit.params["x0"].sel(x0_category="x"), [3 / 4, 1 / 3])


def test_feature_names_are_distinct_and_do_not_rename_a_frame():
    A = np.arange(12.0).reshape(6, 2)
    with pytest.raises(errors.InputError, match=r"feature_names has duplicate names \['a'\]"):
        bnb.NaiveBayes().fit(A, Y6, feature_names=["a", "a"])
    frame = pd.DataFrame(A, columns=["p", "q"])
    with pytest.raises(errors.InputError, match=r"feature_names=\['a', 'b'\] .*DataFrame"):
        bnb.NaiveBayes().fit(frame, Y6, feature_names=["a", "b"])
    fit = bnb.NaiveBayes().fit(frame, Y6, feature_names=["p", "q"])  # the same names: fine
    assert fit.feature_names == ["p", "q"]


def test_predictive_interval_of_no_rows_is_empty():
    fit = bnb.NaiveBayes().fit(pd.DataFrame({"c": list("pqpqrr")}), Y6)
    for kind in ("eti", "hdi"):
        out = fit.predictive_interval(pd.DataFrame({"c": []}), kind=kind, draws=10)
        assert out["lower"].shape == out["upper"].shape == (0, 2)


def test_a_column_of_complex_numbers_is_named_as_unordered():
    X = pd.DataFrame({"c": np.array([1 + 1j, 2, 3, 4, 5, 6])})
    with pytest.raises(errors.InputError, match=r"column 'c' holds values of type complex"):
        bnb.NaiveBayes().fit(X, Y6)


# -- missing values where they used to be read otherwise ------------------------------------

#: Two 0/1 columns, NaN for a missing value: class "a" sees column 0 only in its third
#: row. Under Beta(1, 1) means, column 0 has P(1 | a) = (1+1)/(1+2) = 2/3 and
#: P(1 | b) = (1+1)/(3+2) = 2/5; column 1 has 3/5 and 2/5; the classes 1/2 each.
HOLED = np.array([[np.nan, 1.0], [np.nan, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
HOLED_Y = list("aaabbb")


def test_a_sparse_bernoulli_block_leaves_its_nan_out_as_a_dense_one_does():
    from scipy import sparse

    fit = bnb.NaiveBayes(bnb.Bernoulli()).fit(sparse.csr_matrix(HOLED), HOLED_Y)
    # observed values per (class, column): a sees 1 and 3, b 3 and 3
    np.testing.assert_array_equal(fit.stats[0]["counts"].sum(-1), [[1, 3], [3, 3]])
    proba = fit.predict_proba(sparse.csr_matrix(HOLED[[0, 2]]))
    by_hand = np.array([[3 / 5, 2 / 5], [2 / 3 * 3 / 5, 2 / 5 * 2 / 5]])  # row 0: column 1 alone
    np.testing.assert_allclose(proba, by_hand / by_hand.sum(1, keepdims=True), rtol=1e-12)
    # in EM the sparse block (Python engine) climbs to the dense block's optimum (compiled)
    rng = np.random.default_rng(0)
    X = (rng.random((300, 6)) < np.where(rng.random(300) < 0.5, 0.8, 0.2)[:, None]).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    model = bnb.NaiveBayes(bnb.Bernoulli())
    dense, holed = (
        model.cluster(X, 2, random_state=1),
        model.cluster(sparse.csr_matrix(X), 2, random_state=1),
    )
    assert holed.log_likelihood == pytest.approx(dense.log_likelihood, rel=1e-9)


def test_a_class_without_values_of_a_gaussian_column_takes_its_default_prior():
    X = pd.DataFrame({"age": [30.0, 41, np.nan, np.nan, 25, np.nan], "job": list("xyxyxx")})
    fit = bnb.NaiveBayes().fit(X, ["a", "a", "b", "b", "a", "b"])  # the default, "mean"
    # class a: 30, 41, 25 (mean 32, sum of squares 134); class b: no age at all. b's
    # prior: mu0 = the pooled mean 32, alpha 3/2, beta = alpha * the pooled within-class
    # variance 134/3; it is b's posterior too, so E[sigma2] = beta / (alpha - 1) = 134.
    assert float(fit.params["age_mu"].sel(class_label="b")) == pytest.approx(32.0, rel=1e-12)
    assert float(fit.params["age_var"].sel(class_label="b")) == pytest.approx(134.0, rel=1e-12)
    # class a's own: kappa = alpha = 1, beta = 134/3; posterior alpha 5/2, beta
    # 134/3 + 134/2 (its mean is mu0), so E[sigma2] = (134/3 + 67) / 1.5
    a_var = float(fit.params["age_var"].sel(class_label="a"))
    assert a_var == pytest.approx((134 / 3 + 67) / 1.5, rel=1e-12)
    assert np.isfinite(fit.predict_proba(X)).all()


@pytest.mark.parametrize("unit", ["ns", "us", "s"])
def test_a_datetime_column_declared_categorical_counts_its_values(unit):
    days = pd.to_datetime(["2020-01-01", "2021-01-01"] * 3).astype(f"datetime64[{unit}]")
    X = pd.DataFrame({"d": days})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = bnb.NaiveBayes({"d": bnb.Categorical()}).fit(X, list("aaabbb"), estimate="mean")
        proba = fit.predict_proba(X.iloc[:1])
    # a: 2020 twice, 2021 once; b the other way: Dirichlet(1) means 3/5 and 2/5
    np.testing.assert_array_equal(fit.counts["d"].values, [[2, 1], [1, 2]])
    np.testing.assert_allclose(proba, [[0.6, 0.4]], rtol=1e-12)


def test_a_new_value_of_the_categories_kind_does_not_warn_of_its_type():
    import datetime

    days = pd.Series([datetime.datetime(2020, 1, 1), datetime.datetime(2021, 1, 1)] * 3)
    fit = bnb.NaiveBayes({"d": bnb.Categorical()}).fit(pd.DataFrame({"d": days}), list("aaabbb"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a Timestamp is a date as a datetime is
        proba = fit.predict_proba(pd.DataFrame({"d": pd.Series([pd.Timestamp("2022-01-01")])}))
    np.testing.assert_allclose(proba, [[0.5, 0.5]], rtol=1e-12)
    text = bnb.NaiveBayes().fit(pd.DataFrame({"s": ["a", "b"] * 3}), list("aaabbb"))
    with pytest.warns(errors.UnseenValuesWarning, match=r"holds b'a' \(bytes\).*are text"):
        text.predict_proba(pd.DataFrame({"s": pd.Series([b"a"], dtype=object)}))


def test_a_text_bernoulli_column_with_pandas_na_leaves_it_out():
    X = pd.DataFrame({"s": pd.array(["y", "n", pd.NA, "y", "n", "n"], dtype="string")})
    fit = bnb.NaiveBayes({"s": bnb.Bernoulli()}).fit(X, list("aaabbb"), estimate="mean")
    # a: y, n (NA left out): (1+1)/(2+2); b: y, n, n: (1+1)/(3+2); P("y") the true value
    np.testing.assert_allclose(fit.params["s"].values, [0.5, 0.4], rtol=1e-12)
    np.testing.assert_array_equal(fit.counts["s"].values, [[1, 1], [2, 1]])
