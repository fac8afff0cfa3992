"""The seeds' spam filter: vocabulary, both event models, explanations, SMS spam."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import warnings
from fractions import Fraction as F

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from scipy import sparse, special, stats
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.metrics import accuracy_score, f1_score, log_loss
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

import bayesnb as bnb
from bayesnb.text import (
    TOKEN_PATTERN,
    TextNaiveBayes,
    Vocabulary,
    format_results,
    spam_results,
    spam_split,
)

# A small corpus for the hand computations (seed 004, table 6.2).
SPAM = ["Win cash now", "Cash prize win win"]
HAM = ["See you now", "Lunch now or later", "later"]
TEXTS = SPAM + HAM
LABELS = ["spam"] * 2 + ["ham"] * 3
WORDS = ["cash", "later", "lunch", "now", "or", "prize", "see", "win", "you"]
QUERY = "Win a free prize now"  # "a" and "free" are outside the vocabulary


@pytest.fixture(scope="module")
def split():
    return spam_split()


# ----------------------------------------------------------------------------------------
# Vocabulary
# ----------------------------------------------------------------------------------------


def test_vocabulary_folds_case_and_counts():
    vocab = Vocabulary()
    X = vocab.fit_transform(TEXTS)
    assert vocab.words.tolist() == WORDS
    assert sparse.issparse(X) and X.shape == (5, 9)
    # "Win" and "win" are one word: 3 occurrences in all
    assert vocab.word_counts[WORDS.index("win")] == 3
    assert X[[1], :].toarray()[0].tolist() == [1, 0, 0, 0, 0, 1, 0, 2, 0]
    kept_case = Vocabulary(lowercase=False).fit(TEXTS)
    assert {"Win", "win", "Cash", "cash"} <= set(kept_case.words.tolist())


def test_vocabulary_matches_countvectorizer():
    vocab = Vocabulary()
    X = vocab.fit_transform([*TEXTS, "Hi! £100 now, don't wait"])
    ref = CountVectorizer(token_pattern=TOKEN_PATTERN)
    R = ref.fit_transform([*TEXTS, "Hi! £100 now, don't wait"])
    assert vocab.words.tolist() == ref.get_feature_names_out().tolist()
    assert "£" in vocab.words and "!" in vocab.words
    assert (X != R).nnz == 0


def test_vocabulary_min_count_drops_rare_words():
    vocab = Vocabulary(min_count=2)
    X = vocab.fit_transform(TEXTS)
    # occurrences: win 3, now 3, cash 2, later 2; everything else once
    assert vocab.words.tolist() == ["cash", "later", "now", "win"]
    assert vocab.dropped["rare"] == ["lunch", "or", "prize", "see", "you"]
    assert X.toarray().tolist() == [
        [1, 0, 1, 1],
        [1, 0, 0, 2],
        [0, 0, 1, 0],
        [0, 1, 1, 0],
        [0, 1, 0, 0],
    ]


def test_vocabulary_drops_most_frequent_with_alphabetical_ties():
    # "now" and "win" both occur 3 times: the tie goes alphabetically, so N=1 drops "now"
    vocab = Vocabulary(drop_most_frequent=1).fit(TEXTS)
    assert vocab.dropped["most_frequent"] == ["now"]
    assert "now" not in vocab.words and "win" in vocab.words
    vocab = Vocabulary(drop_most_frequent=2, min_count=2).fit(TEXTS)
    assert vocab.words.tolist() == ["cash", "later"]


def test_vocabulary_transform_skips_unknown_words():
    vocab = Vocabulary(min_count=2)
    vocab.fit(TEXTS)
    X = vocab.transform(["NOW now brand new words", ""])
    assert X.toarray().tolist() == [[0, 0, 2, 0], [0, 0, 0, 0]]


def test_vocabulary_bad_input():
    with pytest.raises(TypeError, match="Wrap it in a list"):
        Vocabulary().fit("a single message")
    with pytest.raises(TypeError, match=r"texts\[1\] is float"):
        Vocabulary().fit(["ok", float("nan")])
    with pytest.raises(ValueError, match="min_count must be an integer >= 1"):
        Vocabulary(min_count=0)
    with pytest.raises(ValueError, match="drop_most_frequent must be an integer >= 0"):
        Vocabulary(drop_most_frequent=-1)
    with pytest.raises(ValueError, match="vocabulary is empty"):
        Vocabulary(min_count=10).fit(TEXTS)
    with pytest.raises(ValueError, match="no token"):
        Vocabulary().fit(["", "   "])
    with pytest.raises(ValueError, match="not fitted"):
        Vocabulary().transform(["x"])


# ----------------------------------------------------------------------------------------
# Hand computations: seed 004 (multinomial) and seed 002 (Bernoulli)
# ----------------------------------------------------------------------------------------


def test_learn_and_classify_naive_bayes_text_by_hand():
    """LEARN_NAIVE_BAYES_TEXT and CLASSIFY_NAIVE_BAYES_TEXT, computed by hand.

    |Vocabulary| = 9. Text_spam = "win cash now cash prize win win": n = 7.
    Text_ham = "see you now lunch now or later later": n = 8.
    P(w_k | v_j) = (n_k + 1) / (n + |Vocabulary|); P(v_j) = |docs_j| / |Examples|.
    """
    fit = TextNaiveBayes().fit(TEXTS, LABELS, estimate="mean")
    assert fit.words.tolist() == WORDS
    assert fit.labels == ["ham", "spam"]
    # word:         cash later lunch now or prize see win you
    p_spam = [F(n + 1, 7 + 9) for n in (2, 0, 0, 1, 0, 1, 0, 3, 0)]
    p_ham = [F(n + 1, 8 + 9) for n in (0, 2, 1, 2, 1, 0, 1, 0, 1)]
    assert p_spam[WORDS.index("win")] == F(4, 16) and sum(p_spam) == 1 == sum(p_ham)
    word = fit.params["word"]
    assert word.dims == ("class_label", "word_category")
    assert word["word_category"].values.tolist() == WORDS
    np.testing.assert_allclose(word.sel(class_label="spam"), [float(p) for p in p_spam], rtol=1e-14)
    np.testing.assert_allclose(word.sel(class_label="ham"), [float(p) for p in p_ham], rtol=1e-14)
    np.testing.assert_allclose(fit.params["class_prob"], [3 / 5, 2 / 5], rtol=1e-14)

    # CLASSIFY: positions = win, prize, now (a, free are not in the vocabulary)
    spam_score = F(2, 5) * F(4, 16) * F(2, 16) * F(2, 16)  # = 1/640
    ham_score = F(3, 5) * F(1, 17) * F(1, 17) * F(3, 17)  # = 9/24565
    assert spam_score == F(1, 640) and ham_score == F(9, 24565)
    jll = fit.joint_log_likelihood([QUERY])[0]
    np.testing.assert_allclose(jll, [math.log(ham_score), math.log(spam_score)], rtol=1e-13)
    assert fit.predict([QUERY]).tolist() == ["spam"]
    posterior = spam_score / (spam_score + ham_score)
    np.testing.assert_allclose(fit.predict_proba([QUERY])[0, 1], float(posterior), rtol=1e-13)


def test_bernoulli_word_presence_by_hand():
    """Seed 002: theta = (documents of the class containing the word + k) / (N_c + 2k).

    Absent vocabulary words count through 1 - theta.
    """
    fit = TextNaiveBayes("bernoulli", bnb.laplace(1)).fit(TEXTS, LABELS, estimate="mean")
    # word:         cash later lunch now or prize see win you
    spam_docs = (2, 0, 0, 1, 0, 1, 0, 2, 0)  # of 2 spam messages
    ham_docs = (0, 2, 1, 2, 1, 0, 1, 0, 1)  # of 3 ham messages
    th_spam = [F(d + 1, 2 + 2) for d in spam_docs]
    th_ham = [F(d + 1, 3 + 2) for d in ham_docs]
    word = fit.params["word"]
    assert word.dims == ("class_label", "word_feature")
    assert word["word_feature"].values.tolist() == WORDS
    np.testing.assert_allclose(
        word.sel(class_label="spam"), [float(t) for t in th_spam], rtol=1e-14
    )
    np.testing.assert_allclose(word.sel(class_label="ham"), [float(t) for t in th_ham], rtol=1e-14)

    present = {"win", "prize", "now"}

    def score(prior, theta):
        out = prior
        for w, t in zip(WORDS, theta, strict=True):
            out *= t if w in present else 1 - t
        return out

    spam_score = score(F(2, 5), th_spam)
    ham_score = score(F(3, 5), th_ham)
    # spam: 2/5 * (3/4 * 1/2 * 1/2) * (1/4 * (3/4)**5)
    # ham:  3/5 * (1/5 * 1/5 * 3/5) * (4/5 * (3/5)**4 * 2/5)
    assert spam_score == F(729, 163840) and ham_score == F(5832, 9765625)
    jll = fit.joint_log_likelihood([QUERY])[0]
    np.testing.assert_allclose(jll, [math.log(ham_score), math.log(spam_score)], rtol=1e-13)
    # a repeated word is one presence
    np.testing.assert_allclose(fit.joint_log_likelihood([QUERY + " win win"])[0], jll, rtol=1e-15)


def test_bernoulli_ml_is_the_document_fraction():
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = TextNaiveBayes("bernoulli").fit(TEXTS, LABELS, estimate="ml")
    np.testing.assert_allclose(
        fit.params["word"].sel(class_label="ham"),
        [0, 2 / 3, 1 / 3, 2 / 3, 1 / 3, 0, 1 / 3, 0, 1 / 3],
    )


def test_ml_zero_probabilities_rule_classes_out():
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = TextNaiveBayes().fit(TEXTS, LABELS, estimate="ml")
    # "prize" never occurs in ham: ham is ruled out; spam keeps its ML score
    jll = fit.joint_log_likelihood(["prize now"])[0]
    assert jll[0] == -np.inf
    np.testing.assert_allclose(jll[1], math.log(F(2, 5) * F(1, 7) * F(1, 7)), rtol=1e-13)
    np.testing.assert_array_equal(fit.predict_proba(["prize now"]), [[0.0, 1.0]])
    # "prize" (spam only) and "lunch" (ham only): every class ruled out -> clear error
    with pytest.raises(ValueError, match="likelihood 0 under every class"):
        fit.predict_proba(["prize lunch"])
    with pytest.raises(ValueError, match="log-odds is undefined"):
        fit.explain("prize lunch")


# ----------------------------------------------------------------------------------------
# The exact posterior predictive (Dirichlet-multinomial)
# ----------------------------------------------------------------------------------------


def _polya_sequence_prob(tokens, alpha: dict) -> F:
    """P(token sequence) under the Dirichlet-multinomial, by the Polya urn chain rule."""
    seen: dict = {}
    total = sum(alpha.values())
    prob = F(1)
    for i, tok in enumerate(tokens):
        prob *= (alpha[tok] + seen.get(tok, 0)) / (total + i)
        seen[tok] = seen.get(tok, 0) + 1
    return prob


@pytest.mark.parametrize("k", [1, 2])
def test_predictive_is_the_brute_force_dirichlet_multinomial(k):
    fit = TextNaiveBayes(prior=bnb.Dirichlet(float(k))).fit(TEXTS, LABELS, estimate="predictive")
    counts = {
        "spam": dict(zip(WORDS, (2, 0, 0, 1, 0, 1, 0, 3, 0), strict=True)),
        "ham": dict(zip(WORDS, (0, 2, 1, 2, 1, 0, 1, 0, 1), strict=True)),
    }
    queries = ["win win win now", QUERY, "later see you later, or now", "nothing known"]
    jll = fit.joint_log_likelihood(queries) - fit.model.class_log_prob
    for q, query in enumerate(queries):
        tokens = [t for t in query.lower().replace(",", " ").split() if t in WORDS]
        for c, label in enumerate(fit.labels):
            alpha = {w: F(k) + n for w, n in counts[label].items()}
            expected = _polya_sequence_prob(tokens, alpha)
            np.testing.assert_allclose(jll[q, c], math.log(expected), rtol=1e-12, atol=1e-13)
            # scipy's pmf of the counts is the sequence probability times L!/prod(x_k!)
            x = np.array([tokens.count(w) for w in WORDS])
            if x.sum():
                coef = special.gammaln(x.sum() + 1) - special.gammaln(x + 1).sum()
                ref = stats.dirichlet_multinomial.logpmf(
                    x, np.array([float(alpha[w]) for w in WORDS]), x.sum()
                )
                np.testing.assert_allclose(jll[q, c], ref - coef, rtol=1e-12)


def test_predictive_of_one_word_is_the_posterior_mean():
    mean = TextNaiveBayes().fit(TEXTS, LABELS, estimate="mean")
    pred = TextNaiveBayes().fit(TEXTS, LABELS, estimate="predictive")
    one = ["win", "later", "or"]
    np.testing.assert_allclose(pred.joint_log_likelihood(one), mean.joint_log_likelihood(one))
    # with repeats the predictive rewards burstiness: P(win win) > P(win)^2 under the mean
    two = pred.joint_log_likelihood(["win win"])
    assert np.all(two > mean.joint_log_likelihood(["win win"]))


# ----------------------------------------------------------------------------------------
# Parity with scikit-learn on SMS spam
# ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spam_matrices(split):
    train_x, test_x, train_y, test_y = split
    vocab = Vocabulary()
    return vocab.fit_transform(train_x), vocab.transform(test_x), train_y, test_y, vocab


@pytest.mark.parametrize(
    ("estimate", "alpha", "k"), [("mean", 1.0, 1.0), ("mean", 0.25, 0.25), ("map", 3.0, 2.0)]
)
def test_multinomial_matches_sklearn(spam_matrices, estimate, alpha, k):
    Xtr, Xte, ytr, _, vocab = spam_matrices
    fit = TextNaiveBayes(prior=bnb.Dirichlet(alpha)).fit_matrix(
        Xtr, ytr, words=vocab.words, estimate=estimate
    )
    class_prior = np.exp(fit.model.class_log_prob)
    ref = MultinomialNB(alpha=k, force_alpha=True, class_prior=class_prior).fit(Xtr, ytr)
    assert list(ref.classes_) == fit.labels
    np.testing.assert_allclose(fit._log_prob(), ref.feature_log_prob_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fit.predict_proba(Xte), ref.predict_proba(Xte), rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        fit.predict_log_proba(Xte), ref.predict_log_proba(Xte), rtol=0, atol=1e-10
    )


@pytest.mark.parametrize(("alpha", "k"), [(1.0, 1.0), (0.1, 0.1)])
def test_bernoulli_matches_sklearn(spam_matrices, alpha, k):
    Xtr, Xte, ytr, _, vocab = spam_matrices
    fit = TextNaiveBayes("bernoulli", bnb.Dirichlet(alpha)).fit_matrix(
        Xtr, ytr, words=vocab.words, estimate="mean"
    )
    class_prior = np.exp(fit.model.class_log_prob)
    ref = BernoulliNB(alpha=k, force_alpha=True, binarize=0.0, class_prior=class_prior)
    ref.fit(Xtr, ytr)
    np.testing.assert_allclose(fit._log_prob()[..., 1], ref.feature_log_prob_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fit.predict_proba(Xte), ref.predict_proba(Xte), rtol=0, atol=1e-10)


def test_class_ml_is_the_document_fraction(spam_matrices):
    Xtr, _, ytr, _, _ = spam_matrices
    fit = TextNaiveBayes().fit_matrix(Xtr, ytr)
    ref = MultinomialNB().fit(Xtr, ytr)  # its default prior is the empirical one
    np.testing.assert_allclose(fit.model.class_log_prob, ref.class_log_prior_, rtol=1e-14)


def test_text_fit_equals_the_generic_naive_bayes(spam_matrices):
    """The text layer runs the same kernel as bnb.NaiveBayes on a sparse block."""
    Xtr, Xte, ytr, _, vocab = spam_matrices
    names = vocab.words.tolist()
    generic = bnb.NaiveBayes({"word": bnb.Multinomial(columns=names)}).fit(
        Xtr, ytr, estimate="mean", class_estimate="ml", feature_names=names
    )
    fit = TextNaiveBayes().fit_matrix(Xtr, ytr, words=names)
    np.testing.assert_array_equal(generic.predict_log_proba(Xte), fit.predict_log_proba(Xte))
    assert generic.params["word"].identical(fit.params["word"])


# ----------------------------------------------------------------------------------------
# Explanations
# ----------------------------------------------------------------------------------------


def test_informative_words_two_classes():
    fit = TextNaiveBayes().fit(TEXTS, LABELS, estimate="mean")
    top = fit.informative_words(n=3)
    spam = top[top.label == "spam"]
    # log-ratios by hand: win log((4/16)/(1/17)), cash log((3/16)/(1/17)), prize log((2/16)/(1/17))
    assert spam.word.tolist() == ["win", "cash", "prize"]
    np.testing.assert_allclose(
        spam.log_ratio, np.log([4 / 16 * 17, 3 / 16 * 17, 2 / 16 * 17]), rtol=1e-13
    )
    ham = top[top.label == "ham"]
    assert ham.word.tolist() == ["later", "lunch", "or"]  # 3/17 vs 1/16, then ties by name
    np.testing.assert_allclose(ham.log_ratio.iloc[0], np.log(3 / 17 * 16), rtol=1e-13)
    assert ham["count"].tolist() == [2, 1, 1]


def test_informative_words_many_classes_pool_the_others():
    texts = ["a a b", "b c", "c c c", "a c", "b b"]
    labels = ["x", "y", "z", "x", "y"]
    fit = TextNaiveBayes(vocabulary=Vocabulary(token_pattern=r"\w")).fit(texts, labels)
    theta = fit.params["word"].values  # (3, 3)
    prior = fit.params["class_prob"].values  # 2/5, 2/5, 1/5
    out = fit.informative_words(n=3)
    row = out[(out.label == "x") & (out.word == "c")].iloc[0]
    rest = (prior[1] * theta[1, 2] + prior[2] * theta[2, 2]) / (prior[1] + prior[2])
    np.testing.assert_allclose(row.p_rest, rest, rtol=1e-14)
    np.testing.assert_allclose(row.log_ratio, np.log(theta[0, 2] / rest), rtol=1e-13)
    assert np.all(np.diff(out[out.label == "z"].log_ratio) <= 0)


def test_informative_words_on_sms_spam(spam_matrices):
    Xtr, _, ytr, _, vocab = spam_matrices
    fit = TextNaiveBayes().fit_matrix(Xtr, ytr, words=vocab.words)
    spam = fit.informative_words(n=20).query("label == 'spam'")
    # the classic spam markers carry strong positive evidence
    assert {"claim", "prize"} <= set(spam.word)
    assert (spam.log_ratio > 2).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        ml = TextNaiveBayes().fit_matrix(Xtr, ytr, words=vocab.words, estimate="ml")
    assert np.isinf(ml.informative_words(n=5).log_ratio).all()  # seen in one class only


@pytest.mark.parametrize(
    ("event_model", "estimate"),
    [("multinomial", "mean"), ("multinomial", "predictive"), ("bernoulli", "mean")],
)
def test_explanation_sums_to_the_log_odds(split, event_model, estimate):
    train_x, test_x, train_y, _ = split
    fit = TextNaiveBayes(event_model).fit(train_x[:1500], train_y[:1500], estimate=estimate)
    for text in test_x[:20]:
        expl = fit.explain(text)
        logp = fit.predict_log_proba([text])[0]
        a, b = fit.labels.index(expl.attrs["label"]), fit.labels.index(expl.attrs["against"])
        assert expl.attrs["label"] == fit.predict([text])[0]
        np.testing.assert_allclose(expl.contribution.sum(), logp[a] - logp[b], atol=1e-9)
        np.testing.assert_allclose(expl.attrs["log_odds"], logp[a] - logp[b], atol=1e-9)
        words = expl[~expl.term.str.startswith("(")]
        assert set(words.term) <= set(fit.words)
        assert np.all(np.diff(words.contribution) <= 0)


def test_explanation_by_hand():
    fit = TextNaiveBayes().fit(TEXTS, LABELS, estimate="mean")
    expl = fit.explain("Win win prize", label="spam", against="ham")
    assert expl.term.tolist() == ["(class prior)", "win", "prize"]
    np.testing.assert_allclose(
        expl.contribution,
        [math.log(2 / 3), 2 * math.log(4 / 16 * 17), math.log(2 / 16 * 17)],
        rtol=1e-13,
    )
    assert expl["count"].tolist()[1:] == [2, 1]
    bern = TextNaiveBayes("bernoulli").fit(TEXTS, LABELS, estimate="mean")
    expl = bern.explain("win", label="spam", against="ham")
    # theta_win: spam 3/4, ham 1/5
    assert expl.term.tolist() == ["(class prior)", "(no word present)", "win"]
    w = math.log((3 / 4) / (1 / 5)) - math.log((1 / 4) / (4 / 5))
    np.testing.assert_allclose(expl.contribution.iloc[2], w, rtol=1e-13)
    with pytest.raises(ValueError, match="not a class"):
        fit.explain("win", label="eggs")
    with pytest.raises(TypeError, match="one message"):
        fit.explain(["win", "now"])


# ----------------------------------------------------------------------------------------
# API details and bad input
# ----------------------------------------------------------------------------------------


def test_fit_matrix_and_matrix_scoring():
    X = sparse.csr_array(np.array([[2, 0, 1], [0, 3, 0], [1, 1, 0]]))
    fit = TextNaiveBayes().fit_matrix(X, ["a", "b", "a"], words=["x", "y", "z"])
    assert fit.params["word"]["word_category"].values.tolist() == ["x", "y", "z"]
    # class a: counts x 3, y 1, z 1 -> (n_k + 1) / (5 + 3)
    np.testing.assert_allclose(fit.params["word"].sel(class_label="a"), [4 / 8, 2 / 8, 2 / 8])
    np.testing.assert_array_equal(fit.predict(X.toarray()), ["a", "b", "a"])
    with pytest.raises(ValueError, match="has 2 columns; the vocabulary has 3"):
        fit.predict(sparse.csr_array(np.ones((1, 2))))
    with pytest.raises(TypeError, match="no tokenizer"):
        fit.predict(["x y"])
    with pytest.raises(ValueError, match=r"one name per column of X \(3\); got \(2,\)"):
        TextNaiveBayes().fit_matrix(X, ["a", "b", "a"], words=["x", "y"])
    # the underlying generic model scores sparse matrices with the same columns
    np.testing.assert_array_equal(fit.model.predict(X), ["a", "b", "a"])


def test_bad_declarations():
    with pytest.raises(ValueError, match="event_model must be one of"):
        TextNaiveBayes("poisson")
    with pytest.raises(TypeError, match="prior must be a Dirichlet"):
        TextNaiveBayes(prior=1.0)
    with pytest.raises(ValueError, match="estimate must be one of"):
        TextNaiveBayes().fit(TEXTS, LABELS, estimate="median")
    with pytest.raises(ValueError, match="y has 4 entries for 5 rows"):
        TextNaiveBayes().fit(TEXTS, LABELS[:4])


# ----------------------------------------------------------------------------------------
# The README results table
# ----------------------------------------------------------------------------------------


def test_spam_results_table_agrees_with_a_sklearn_pipeline(split):
    table = spam_results()
    assert len(table) == 13 and table.attrs["n_test"] == 1115
    train_x, test_x, train_y, test_y = split
    vec = CountVectorizer(token_pattern=TOKEN_PATTERN)
    ref = MultinomialNB(alpha=1.0).fit(vec.fit_transform(train_x), train_y)
    proba = ref.predict_proba(vec.transform(test_x))
    pred = ref.classes_[proba.argmax(1)]
    row = table[(table.model == "multinomial") & (table.estimate == "mean")].iloc[0]
    assert row.prior.startswith("mean under Dirichlet(1)")
    np.testing.assert_allclose(row.accuracy, accuracy_score(test_y, pred), rtol=1e-12)
    np.testing.assert_allclose(row.spam_f1, f1_score(test_y, pred, pos_label="spam"), rtol=1e-12)
    np.testing.assert_allclose(row.log_loss, log_loss(test_y, proba), rtol=1e-9)
    # MAP under Dirichlet(2) is Laplace-1: the same numbers as the mean under Dirichlet(1)
    same = table[table.prior.str.contains("Laplace-1$")]
    assert len(same) == 4
    for _, group in same.groupby("model"):
        assert group[["accuracy", "spam_f1", "log_loss"]].nunique().max() == 1
    ml = table[table.estimate == "ml"]
    assert (ml.log_loss == np.inf).all() and (ml.undefined > 0).all()
    smoothed = table[table.estimate != "ml"]
    assert (smoothed.undefined == 0).all() and (smoothed.accuracy > 0.97).all()
    assert "| multinomial | predictive |" in format_results(table)


# ----------------------------------------------------------------------------------------
# Count matrices given directly: values checked, stored zeros absent
# ----------------------------------------------------------------------------------------


def _matrix_with_stored_zeros():
    """4 messages x 3 words, CSR with explicit zeros and duplicate entries.

    Dense counts: [[2, 0, 0], [0, 1, 0], [0, 0, 3], [0, 0, 0]]; every 0 of row 0
    and row 3 is stored explicitly, row 1 stores w2 = 0 twice and w1 = 1 as 0.5 + 0.5.
    """
    data = np.array([2.0, 0.0, 0.0, 0.5, 0.0, 0.5, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0])
    indices = np.array([0, 1, 2, 1, 2, 1, 2, 0, 2, 0, 1, 2])
    indptr = np.array([0, 3, 7, 9, 12])
    X = sparse.csr_array((data, indices, indptr), shape=(4, 3))
    assert not X.has_canonical_format
    return X


def test_bernoulli_stored_zeros_are_absent_words():
    X = _matrix_with_stored_zeros()
    dense = np.array([[2.0, 0, 0], [0, 1, 0], [0, 0, 3], [0, 0, 0]])
    np.testing.assert_array_equal(X.toarray(), dense)
    y = ["a", "a", "b", "b"]
    for data in (X, dense):
        fit = TextNaiveBayes("bernoulli").fit_matrix(data, y, words=["x", "y", "z"])
        # documents of each class containing each word, of N_c = 2 messages
        present = fit.counts["word"].sel(word_category=1).values
        absent = fit.counts["word"].sel(word_category=0).values
        np.testing.assert_array_equal(present, [[1, 1, 0], [0, 0, 1]])
        np.testing.assert_array_equal(absent, [[1, 1, 2], [2, 2, 1]])
        # mean under Beta(1, 1): (d + 1) / (N + 2)
        np.testing.assert_allclose(
            fit.params["word"].values, [[2 / 4, 2 / 4, 1 / 4], [1 / 4, 1 / 4, 2 / 4]], rtol=1e-15
        )
    # a row of stored zeros is a message with no word: sum_k log(1 - theta_ck) + log P(c)
    zeros = sparse.csr_array((np.zeros(3), np.arange(3), np.array([0, 3])), shape=(1, 3))
    expected = [
        math.log(0.5) + math.log(F(1, 2) * F(1, 2) * F(3, 4)),
        math.log(0.5) + math.log(F(3, 4) * F(3, 4) * F(1, 2)),
    ]
    np.testing.assert_allclose(fit.joint_log_likelihood(zeros)[0], expected, rtol=1e-14)
    np.testing.assert_allclose(fit.joint_log_likelihood(np.zeros((1, 3)))[0], expected, rtol=1e-14)
    # a count of 2 is one presence, as a count of 1
    np.testing.assert_array_equal(
        fit.joint_log_likelihood(np.array([[2.0, 0, 5]])),
        fit.joint_log_likelihood(np.array([[1.0, 0, 1]])),
    )


@pytest.mark.parametrize("event_model", ["bernoulli", "multinomial"])
@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("form", ["dense", "sparse"])
def test_count_matrices_reject_negative_and_missing_counts(event_model, bad, form):
    X = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [3.0, 0.0, 1.0]])
    X[2, 1] = bad
    data = sparse.csr_array(X) if form == "sparse" else X
    model = TextNaiveBayes(event_model)
    with pytest.raises(bnb.errors.InputError, match=rf"^X .* got {bad!r} at row 2, column 1"):
        model.fit_matrix(data, ["a", "b", "a"])
    fit = model.fit_matrix(np.abs(np.nan_to_num(X, nan=1.0, posinf=1.0, neginf=1.0)), [0, 1, 0])
    query = X[1:] if form == "dense" else sparse.csr_array(X[1:])
    with pytest.raises(bnb.errors.InputError, match=rf"^docs .* got {bad!r} at row 1, column 1"):
        fit.predict(query)
    with pytest.raises(bnb.errors.InputError, match=r"^docs "):
        fit.predict_proba(query)


def test_bernoulli_negative_count_was_a_presence():
    """The issue's reproducer: -1 and NaN were counted as "present"."""
    with pytest.raises(ValueError, match=r"got -1\.0"):
        TextNaiveBayes("bernoulli").fit_matrix(np.array([[-1.0, 1.0], [0.0, 0.0]]), ["a", "b"])
    with pytest.raises(ValueError, match="got nan"):
        TextNaiveBayes("bernoulli").fit_matrix(np.array([[1.0, np.nan], [0.0, 0.0]]), ["a", "b"])
    fit = TextNaiveBayes("bernoulli").fit_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]), ["a", "b"])
    with pytest.raises(ValueError, match=r"got -1\.0"):
        fit.predict(sparse.csr_array(np.array([[-1.0, 0.0]])))


# ----------------------------------------------------------------------------------------
# Every class ruled out: predict agrees with predict_proba
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_predict_raises_where_every_class_is_ruled_out(event_model):
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = TextNaiveBayes(event_model).fit(TEXTS, LABELS, estimate="ml")
    # "prize" occurs in spam only, "lunch" in ham only: rows 1 and 3 have no class
    docs = ["win cash now", "prize lunch", "see you later", "lunch and a prize"]
    for method in (fit.predict, fit.predict_proba, fit.predict_log_proba):
        ruled_out = r"^rows 1, 3 \(2 rows\) have likelihood 0"
        with pytest.raises(bnb.errors.ZeroLikelihoodError, match=ruled_out):
            method(docs)
        with pytest.raises(ValueError, match="estimate='mean'"):
            method(docs)
    ok = [docs[0], docs[2]]
    np.testing.assert_array_equal(fit.predict(ok), ["spam", "ham"])
    # one class ruled out: the other gets probability 1 and is predicted
    np.testing.assert_array_equal(fit.predict_proba(["win cash prize"]), [[0.0, 1.0]])
    np.testing.assert_array_equal(fit.predict(["win cash prize"]), ["spam"])


# ----------------------------------------------------------------------------------------
# Saving and loading
# ----------------------------------------------------------------------------------------

ROUND_TRIP_QUERIES = ["win cash now", "see you later", "lunch now", "free prize", "", "cash"]


def _assert_same_fit(got, fit, docs):
    assert type(got) is type(fit)
    assert got.event_model == fit.event_model
    assert got.labels == fit.labels
    np.testing.assert_array_equal(got.words, fit.words)
    assert got.model.estimates == fit.model.estimates
    assert got.model.class_prior.alpha == fit.model.class_prior.alpha
    xr.testing.assert_identical(got.params, fit.params)
    xr.testing.assert_identical(got.counts, fit.counts)
    for a, b in zip(got.model.block_params, fit.model.block_params, strict=True):
        assert a.keys() == b.keys()
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    np.testing.assert_array_equal(got.joint_log_likelihood(docs), fit.joint_log_likelihood(docs))
    np.testing.assert_array_equal(got.predict(docs), fit.predict(docs))


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
@pytest.mark.parametrize("estimate", ["ml", "map", "mean", "predictive"])
def test_text_fit_round_trip(tmp_path, event_model, estimate):
    vocab = Vocabulary(min_count=2, drop_most_frequent=1, lowercase=False)
    texts = [*TEXTS, "Win win cash", "later now later", "now Now"]
    labels = [*LABELS, "spam", "ham", "ham"]
    model = TextNaiveBayes(event_model, bnb.Dirichlet(1.5), vocabulary=vocab)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        fit = model.fit(texts, labels, estimate=estimate)
    path = tmp_path / "text.nc"
    fit.save(path)
    got = bnb.load(path)
    # the vocabulary: options, words, pruning record
    v, w = got.vocabulary, fit.vocabulary
    assert (v.lowercase, v.drop_most_frequent, v.min_count, v.token_pattern) == (
        False,
        1,
        2,
        TOKEN_PATTERN,
    )
    assert v.dropped == w.dropped and v.dropped["most_frequent"] == ["now"]
    assert "Lunch" in v.dropped["rare"]
    np.testing.assert_array_equal(v.words, w.words)
    assert v.words.tolist() == ["Win", "cash", "later", "win"]
    np.testing.assert_array_equal(v.word_counts, w.word_counts)
    np.testing.assert_array_equal(v.word_counts, [2, 2, 4, 3])  # Win, cash, later, win
    # raw strings give the same counts and the same scores
    queries = [*ROUND_TRIP_QUERIES, "Win later", "win win later cash"]
    assert (got.transform(queries) != fit.transform(queries)).nnz == 0
    scorable = [q for q in queries if np.isfinite(fit.joint_log_likelihood([q])).any()]
    _assert_same_fit(got, fit, scorable)
    np.testing.assert_array_equal(got.predict_proba(scorable), fit.predict_proba(scorable))
    # the fit keeps working after the round trip: explain, informative words
    pd.testing.assert_frame_equal(got.informative_words(2), fit.informative_words(2))


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
@pytest.mark.parametrize("estimate", ["ml", "mean", "predictive"])
def test_text_fit_round_trip_after_fit_matrix(tmp_path, event_model, estimate):
    rng = np.random.default_rng(3)
    X = sparse.csr_array(rng.poisson(0.7, size=(40, 6)).astype(float))
    y = rng.integers(0, 3, 40) * 10  # integer labels 0, 10, 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        fit = TextNaiveBayes(event_model).fit_matrix(X, y, words=list("abcdef"), estimate=estimate)
    fit.save(tmp_path / "m.nc")
    got = bnb.load(tmp_path / "m.nc")
    assert got.vocabulary is None and got.labels == [0, 10, 20]
    query = X[np.isfinite(fit.joint_log_likelihood(X)).any(axis=1)]
    _assert_same_fit(got, fit, query)
    np.testing.assert_array_equal(got.predict_proba(query), fit.predict_proba(query))
    with pytest.raises(TypeError, match="no tokenizer"):
        got.predict(["a b"])


def test_ml_zeros_survive_the_round_trip(tmp_path):
    with pytest.warns(bnb.ZeroProbabilityWarning):
        fit = TextNaiveBayes().fit(TEXTS, LABELS, estimate="ml")
    fit.save(tmp_path / "ml.nc")
    got = bnb.load(tmp_path / "ml.nc")
    # P(prize | ham) = 0 under ML: ham is ruled out, as before saving
    assert got.params["word"].sel(class_label="ham", word_category="prize").item() == 0.0
    np.testing.assert_array_equal(got.predict_proba(["prize now"]), [[0.0, 1.0]])
    with pytest.raises(bnb.errors.ZeroLikelihoodError):
        got.predict(["prize lunch"])


@settings(max_examples=25, deadline=None)
@given(
    counts=hnp.arrays(
        np.int64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=8),
        elements=st.integers(0, 4),
    ),
    event_model=st.sampled_from(["multinomial", "bernoulli"]),
    estimate=st.sampled_from(["ml", "map", "mean", "predictive"]),
    alpha=st.sampled_from([0.5, 1.0, 2.5]),
    as_sparse=st.booleans(),
)
def test_save_and_load_are_exact(counts, event_model, estimate, alpha, as_sparse):
    y = np.arange(len(counts)) % 2
    counts = sparse.csr_array(counts) if as_sparse else counts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bnb.ZeroProbabilityWarning)
        try:
            fit = TextNaiveBayes(event_model, bnb.Dirichlet(alpha)).fit_matrix(
                counts, y, estimate=estimate
            )
        except ValueError:
            # ML and MAP can be undefined (a class with no word, alpha < 1 at a zero count)
            assert estimate in ("ml", "map")
            return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fit.nc")
        fit.save(path)
        got = bnb.load(path)
    query = counts[np.isfinite(fit.joint_log_likelihood(counts)).any(axis=1)]
    _assert_same_fit(got, fit, query)


def test_import_bayesnb_makes_text_fits_loadable(tmp_path):
    fit = TextNaiveBayes().fit(TEXTS, LABELS)
    fit.save(tmp_path / "t.nc")
    code = (
        "import sys, bayesnb\n"
        f"fit = bayesnb.load({str(tmp_path / 't.nc')!r})\n"
        "print(type(fit).__name__, fit.predict(['win cash'])[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["TextFit", "spam"]


# ----------------------------------------------------------------------------------------
# python -m bayesnb.text
# ----------------------------------------------------------------------------------------


def test_command_line_bad_option_is_a_usage_error():
    out = subprocess.run(
        [sys.executable, "-m", "bayesnb.text", "--test-size", "abc"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and out.stdout == ""
    assert "argument --test-size: must be a number in (0, 1)" in out.stderr
    assert "Traceback" not in out.stderr


def test_explain_takes_a_one_dimensional_count_row():
    X = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 2.0]])
    fit = TextNaiveBayes().fit_matrix(X, ["a", "b", "a", "b"], words=["u", "v", "w"])
    one_d = fit.explain(X[0])
    two_d = fit.explain(X[:1])
    pd.testing.assert_frame_equal(one_d, two_d)
    # the contributions sum to the log-odds, a number of the joint log-likelihoods
    jll = fit.joint_log_likelihood(X[:1])[0]
    assert one_d["contribution"].sum() == pytest.approx(jll[0] - jll[1], rel=1e-12)


def test_the_command_line_module_is_not_imported_before_it_runs():
    # `import bayesnb` does not import bayesnb.text, so runpy does not warn that the
    # module it runs as __main__ was imported already (an error under -W error).
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-W", "error", "-m", "bayesnb.text", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "usage: python -m bayesnb.text" in out.stdout


def test_max_features_keeps_the_most_frequent_words_like_countvectorizer():
    """``max_features`` keeps CountVectorizer's words (its option of that name): every
    word counted more often than the cut, the same number of words, and the same
    count at the cut (the order among tied words is CountVectorizer's own)."""
    texts = bnb.datasets.sms_spam()["text"].tolist()[:2000]
    for m in (50, 500):
        vocab = Vocabulary(max_features=m)
        X = vocab.fit_transform(texts)
        peer = CountVectorizer(token_pattern=TOKEN_PATTERN, max_features=m).fit(texts)
        theirs = peer.transform(texts).sum(axis=0).A1
        their_words = peer.get_feature_names_out()
        assert X.shape[1] == len(vocab) == len(their_words) == m
        cut = vocab.word_counts.min()
        assert theirs.min() == cut
        assert set(vocab.words[vocab.word_counts > cut]) == set(their_words[theirs > cut])
        # the counts are those of the whole corpus, and nothing kept is rarer than a drop
        full = Vocabulary().fit(texts)
        total = dict(zip(full.words, full.word_counts, strict=True))
        assert all(total[w] == c for w, c in zip(vocab.words, vocab.word_counts, strict=True))
        dropped = vocab.dropped["beyond_max_features"]
        assert len(dropped) == len(full) - m
        assert max(total[w] for w in dropped) <= cut


def test_max_features_applies_after_the_other_rules_and_round_trips(tmp_path):
    texts = ["a a a a b b b c c d", "a b c e e e", "f"]
    # counts a 5, b 4, c 3, e 3, d 1, f 1: drop the top word (a) and the rare (d, f),
    # then keep 2 of b, c, e: b, then c before e (tied at 3, alphabetically)
    vocab = Vocabulary(drop_most_frequent=1, min_count=2, max_features=2, token_pattern=r"\w+")
    vocab.fit(texts)
    assert vocab.words.tolist() == ["b", "c"]
    assert vocab.dropped == {
        "most_frequent": ["a"],
        "rare": ["d", "f"],
        "beyond_max_features": ["e"],
    }
    fit = TextNaiveBayes("multinomial", vocabulary=vocab).fit(texts, ["x", "y", "y"])
    fit.save(tmp_path / "t.nc")
    got = bnb.load(tmp_path / "t.nc").vocabulary
    assert got.max_features == 2 and got.dropped == fit.vocabulary.dropped
    with pytest.raises(bnb.errors.InputError, match="max_features must be an integer >= 1"):
        Vocabulary(max_features=0)
