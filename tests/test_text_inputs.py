"""``TextNaiveBayes.fit_matrix`` on a DataFrame or a list of rows, and prediction on
whatever ``fit_matrix`` accepts: a DataFrame's columns are the words, matched by name
at prediction. The oracles are scikit-learn's MultinomialNB and BernoulliNB with the
same smoothing (alpha = 1, the class prior of the class ML) and closed forms."""

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

import bayesnb as bnb
from bayesnb.text import TOKEN_PATTERN, TextNaiveBayes

WORDS = list("abcdef")


def _frame(n=40, seed=0):
    """The probe's repro: Poisson counts under six named columns, two classes."""
    counts = np.random.default_rng(seed).poisson(0.7, (n, len(WORDS)))
    return pd.DataFrame(counts, columns=WORDS), np.array([0, 1] * (n // 2))


def _sklearn(kind, X, y):
    """scikit-learn's model with the text model's smoothing: Dirichlet(1) word
    probabilities under the posterior mean (alpha = 1) and the classes' ML prior."""
    prior = np.bincount(y) / len(y)
    if kind == "multinomial":
        return MultinomialNB(alpha=1.0, force_alpha=True, class_prior=prior).fit(X, y)
    return BernoulliNB(alpha=1.0, force_alpha=True, binarize=0.0, class_prior=prior).fit(X, y)


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_a_dataframe_names_the_words_and_scores_as_sklearn(event_model):
    X, y = _frame()
    fit = TextNaiveBayes(event_model).fit_matrix(X, y)
    assert fit.words.tolist() == WORDS
    coord = "word_category" if event_model == "multinomial" else "word_feature"
    assert fit.params["word"][coord].values.tolist() == WORDS
    ref = _sklearn(event_model, X.to_numpy(), y)
    np.testing.assert_allclose(fit.predict_proba(X), ref.predict_proba(X.to_numpy()), atol=1e-12)
    np.testing.assert_array_equal(fit.predict(X), ref.predict(X.to_numpy()))
    if event_model == "multinomial":  # (n_ck + 1) / (n_c + 6) for word "c" in class 1
        counts = X[y == 1].to_numpy()
        expected = (counts[:, 2].sum() + 1) / (counts.sum() + 6)
        got = fit.params["word"].sel(class_label=1, word_category="c").item()
        assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_a_frame_with_the_words_in_another_order_is_matched_by_name(event_model):
    X, y = _frame(seed=1)
    fit = TextNaiveBayes(event_model).fit_matrix(X, y)
    shuffled = X[["f", "a", "d", "b", "e", "c"]]
    ref = _sklearn(event_model, X.to_numpy(), y)
    np.testing.assert_allclose(
        fit.predict_proba(shuffled), ref.predict_proba(X.to_numpy()), atol=1e-12
    )
    np.testing.assert_allclose(
        fit.predict_log_proba(shuffled), ref.predict_log_proba(X.to_numpy()), atol=1e-10
    )
    # the same frame's values, in the shuffled order, are other columns: not X's scores
    assert not np.allclose(fit.predict_proba(shuffled.to_numpy()), fit.predict_proba(X))


def test_a_frame_of_non_string_column_names_and_sparse_columns():
    X, y = _frame(seed=2)
    numbered = X.set_axis(range(6), axis=1)
    fit = TextNaiveBayes().fit_matrix(numbered, y)
    assert fit.words.tolist() == ["0", "1", "2", "3", "4", "5"]
    ref = _sklearn("multinomial", X.to_numpy(), y)
    np.testing.assert_allclose(
        fit.predict_proba(numbered), ref.predict_proba(X.to_numpy()), atol=1e-12
    )
    sparse_frame = X.astype(pd.SparseDtype(np.int64, 0))
    fit = TextNaiveBayes().fit_matrix(sparse_frame, y)
    assert fit.words.tolist() == WORDS
    np.testing.assert_allclose(
        fit.predict_proba(sparse_frame), ref.predict_proba(X.to_numpy()), atol=1e-12
    )


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_a_list_of_rows_fits_and_scores_as_the_array(event_model):
    X, y = _frame(seed=3)
    rows = X.to_numpy().tolist()
    fit = TextNaiveBayes(event_model).fit_matrix(rows, y.tolist())
    assert fit.words.tolist() == [f"w{j}" for j in range(6)]
    ref = _sklearn(event_model, X.to_numpy(), y)
    np.testing.assert_allclose(fit.predict_proba(rows), ref.predict_proba(X.to_numpy()), atol=1e-12)
    np.testing.assert_allclose(
        fit.predict_proba(tuple(map(tuple, rows))), ref.predict_proba(X.to_numpy()), atol=1e-12
    )
    # a frame scores the array-fitted model when its columns are the words w0, ...
    named = X.set_axis(fit.words.tolist(), axis=1)
    np.testing.assert_allclose(
        fit.predict_proba(named), ref.predict_proba(X.to_numpy()), atol=1e-12
    )


def test_a_frame_scores_a_model_fitted_on_texts():
    """The tokenized model scores a count frame whose columns are its vocabulary, in
    any order, as scikit-learn scores CountVectorizer's matrix."""
    texts = ["win cash now", "cash prize win win", "see you now", "lunch later", "win now"]
    y = np.array([1, 1, 0, 0, 1])
    fit = TextNaiveBayes().fit(texts, y)
    vectorizer = CountVectorizer(token_pattern=TOKEN_PATTERN)
    counts = vectorizer.fit_transform(texts)
    ref = _sklearn("multinomial", counts, y)
    frame = pd.DataFrame(counts.toarray(), columns=vectorizer.get_feature_names_out())
    frame = frame[frame.columns[::-1]]
    np.testing.assert_allclose(fit.predict_proba(frame), ref.predict_proba(counts), atol=1e-12)


def test_explain_takes_a_one_row_frame():
    X, y = _frame(seed=4)
    fit = TextNaiveBayes().fit_matrix(X, y)
    row = X.iloc[[3]][["e", "c", "a", "f", "b", "d"]]
    terms = fit.explain(row, label=1, against=0)
    log_proba = _sklearn("multinomial", X.to_numpy(), y).predict_log_proba(X.to_numpy()[[3]])[0]
    assert terms["contribution"].sum() == pytest.approx(log_proba[1] - log_proba[0], abs=1e-10)
    words = X.columns[X.iloc[3].to_numpy() > 0].tolist()
    assert sorted(terms["term"].iloc[1:]) == sorted(words)


def test_a_frame_with_other_columns_is_refused_with_the_remedy():
    X, y = _frame(seed=5)
    fit = TextNaiveBayes().fit_matrix(X, y)
    with pytest.raises(bnb.InputError, match=r"lacks 1 of them \(\['a'\]\)\. Give the words"):
        fit.predict(X.drop(columns="a"))
    with pytest.raises(bnb.InputError, match=r"has 1 column\(s\) not among them \(\['g'\]\)"):
        fit.predict(X.assign(g=1))
    with pytest.raises(bnb.InputError, match=r"lacks 1 of them \(\['a'\]\) and has 1 column"):
        fit.predict_proba(X.rename(columns={"a": "z"}))
    with pytest.raises(bnb.InputError, match=r"columns \['a'\] more than once"):
        fit.predict(pd.concat([X, X[["a"]]], axis=1).drop(columns="b"))
    # the remedy the message gives: an unknown column dropped, a missing word counted 0
    fixed = X.drop(columns="a").assign(g=1).reindex(columns=fit.words, fill_value=0)
    expected = _sklearn("multinomial", X.to_numpy(), y).predict_proba(X.assign(a=0).to_numpy())
    np.testing.assert_allclose(fit.predict_proba(fixed), expected, atol=1e-12)


def test_words_given_with_a_frame_must_be_its_columns():
    X, y = _frame(seed=6)
    fit = TextNaiveBayes().fit_matrix(X, y, words=WORDS)
    assert fit.words.tolist() == WORDS
    with pytest.raises(bnb.InputError, match="already name the words"):
        TextNaiveBayes().fit_matrix(X, y, words=list("abcdeg"))
    with pytest.raises(bnb.InputError, match=r"one name per column of X \(6\)"):
        TextNaiveBayes().fit_matrix(X, y, words=list("abc"))
    with pytest.raises(bnb.InputError, match=r"X has the columns \['a'\] more than once"):
        TextNaiveBayes().fit_matrix(X.set_axis(list("abcdea"), axis=1), y)


def test_bad_frames_and_rows_are_named():
    X, y = _frame(seed=7)
    with pytest.raises(bnb.InputTypeError, match=r"column 'b' has dtype"):
        TextNaiveBayes().fit_matrix(X.assign(b=X["b"].astype(str)), y)
    with pytest.raises(bnb.InputTypeError, match=r"column 'c' has dtype category"):
        TextNaiveBayes().fit_matrix(X.assign(c=X["c"].astype("category")), y)
    missing = X.astype("Int64")
    missing.loc[5, "d"] = pd.NA
    with pytest.raises(bnb.InputError, match=r"got nan at row 5, column 3"):
        TextNaiveBayes().fit_matrix(missing, y)
    with pytest.raises(bnb.InputError, match="its rows have different lengths"):
        TextNaiveBayes().fit_matrix([[1, 2], [3]], [0, 1])
    fit = TextNaiveBayes().fit_matrix(X, y)
    with pytest.raises(bnb.InputError, match="has 5 columns; the vocabulary has 6"):
        fit.predict([[1, 2, 3, 4, 5]])
    # strings still need a tokenizer, which a matrix fit does not have
    with pytest.raises(bnb.InputTypeError, match=r"no tokenizer; got list\. Give a count"):
        fit.predict(["a b"])
