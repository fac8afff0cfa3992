"""The seeds' spam filter: vocabulary, both event models, explanations, SMS spam."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
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
    assert word.dims == ("label", "word_category")
    assert word["word_category"].values.tolist() == WORDS
    np.testing.assert_allclose(word.sel(label="spam"), [float(p) for p in p_spam], rtol=1e-14)
    np.testing.assert_allclose(word.sel(label="ham"), [float(p) for p in p_ham], rtol=1e-14)
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
    assert word.dims == ("label", "word_feature")
    assert word["word_feature"].values.tolist() == WORDS
    np.testing.assert_allclose(word.sel(label="spam"), [float(t) for t in th_spam], rtol=1e-14)
    np.testing.assert_allclose(word.sel(label="ham"), [float(t) for t in th_ham], rtol=1e-14)

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
        fit.params["word"].sel(label="ham"), [0, 2 / 3, 1 / 3, 2 / 3, 1 / 3, 0, 1 / 3, 0, 1 / 3]
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
    np.testing.assert_allclose(fit.params["word"].sel(label="a"), [4 / 8, 2 / 8, 2 / 8])
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
