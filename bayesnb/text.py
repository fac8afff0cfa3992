"""Text classification: the spam filter of the lecture notes.

Two event models over one vocabulary, both fitted by the package's feature families:

* **Bernoulli word presence** (seed 002): every vocabulary word is a Boolean feature,
  so a message is scored on the words it contains *and* on the words it lacks.
  Family: :class:`bayesnb.Bernoulli` over the 0/1 document-word matrix.
* **Multinomial word counts** (seed 004, ``LEARN_NAIVE_BAYES_TEXT`` /
  ``CLASSIFY_NAIVE_BAYES_TEXT``): a message is a sequence of word positions drawn
  i.i.d. from the class's word distribution. Family: :class:`bayesnb.Multinomial`
  over the count matrix; ``estimate="predictive"`` is the exact Dirichlet-multinomial.

Raw strings become sparse matrices through :class:`Vocabulary`, a thin layer over
scikit-learn's ``CountVectorizer`` that adds the seeds' two pruning rules: drop the
``N`` most frequent words and drop words seen fewer than ``m`` times. Words outside
the vocabulary are skipped at prediction time, which is the seeds' "positions that
contain tokens found in Vocabulary".

A fitted :class:`TextFit` is saved with ``fit.save(path)`` (netCDF, no pickle) and
read back with :func:`bayesnb.load`.

``python -m bayesnb.text`` prints the SMS Spam Collection results table of the text
guide (``docs/guide/text.md``).
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import re
import sys
import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd
import xarray as xr
from sklearn.feature_extraction.text import CountVectorizer

from bayesnb._data import Table, check_count, class_labels, encode_labels, repeated
from bayesnb._lazy import sparse, special
from bayesnb._special import log_rising
from bayesnb.errors import InputError, InputTypeError, ModelFileError, ZeroLikelihoodError
from bayesnb.families import Bernoulli, Multinomial
from bayesnb.families._kernels import _finite_nonnegative
from bayesnb.model import _read_fitted, log_normalize, register_loader, write_dataset
from bayesnb.naive_bayes import NaiveBayesFit, TrainingRows
from bayesnb.priors import Dirichlet, ZeroProbabilityWarning, check_estimate

__all__ = [
    "TOKEN_PATTERN",
    "TextFit",
    "TextNaiveBayes",
    "Vocabulary",
    "format_results",
    "spam_results",
    "spam_split",
]

#: Default tokens: runs of word characters, and every other non-space character
#: (punctuation, currency signs) on its own, as the seeds' "words, punctuation and
#: other tokens".
TOKEN_PATTERN = r"(?u)\b\w+\b|[^\w\s]"

EVENT_MODELS = ("multinomial", "bernoulli")
BLOCK = "word"


def _check_texts(texts, name: str = "texts") -> list:
    if isinstance(texts, str | bytes):
        raise InputTypeError(
            f"{name} must be a sequence of strings (one per message); got a single "
            f"{type(texts).__name__}. Wrap it in a list: [{texts[:30]!r}]."
        )
    if not isinstance(texts, Iterable):
        raise InputTypeError(
            f"{name} must be a sequence of strings (one per message); got "
            f"{type(texts).__name__}. Give a list of str."
        )
    texts = texts.tolist() if isinstance(texts, pd.Series | np.ndarray) else list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise InputTypeError(
                f"{name}[{i}] is {type(t).__name__} ({t!r}); every message must be a str. "
                "Replace missing messages by '' or drop them."
            )
    return texts


def _check_pattern(pattern) -> str:
    """``pattern`` checked as a token regular expression: a str that compiles, with at
    most one capturing group (the token, when there is one)."""
    if not isinstance(pattern, str):
        raise InputTypeError(
            f"token_pattern must be a regular expression (str); got "
            f"{type(pattern).__name__} {pattern!r}."
        )
    try:
        groups = re.compile(pattern).groups
    except re.error as err:
        raise InputError(
            f"token_pattern={pattern!r} is not a valid regular expression ({err}). Give a "
            "pattern such as r'(?u)\\b\\w+\\b'."
        ) from None
    if groups > 1:
        raise InputError(
            f"token_pattern={pattern!r} has {groups} capturing groups; a token pattern may "
            "have at most one (the token). Make the others non-capturing, (?:...)."
        )
    return pattern


class Vocabulary:
    """Tokenizer and vocabulary: raw strings to a sparse document-word count matrix.

    Tokenizing and counting are scikit-learn's ``CountVectorizer``; this class adds
    the seeds' pruning rules, measured on the training corpus.

    Parameters
    ----------
    lowercase : bool, default True
        Fold case before tokenizing ("Free" and "FREE" are one word).
    drop_most_frequent : int, default 0
        Drop the ``N`` words with the most occurrences in the training corpus (the
        seeds' "ignore the top 100 most frequent words"). Ties are broken
        alphabetically.
    min_count : int, default 1
        Drop words seen fewer than ``m`` times in the training corpus (the seeds'
        "ignore words with frequency < 3" is ``min_count=3``).
    max_features : int or None, default None
        Keep at most this many words, those with the most occurrences among the
        words the two rules above kept (scikit-learn's ``CountVectorizer`` option of
        that name; ties at the cut go alphabetically). None: every such word.
    token_pattern : str, default :data:`TOKEN_PATTERN`
        Regular expression of a token: words plus single punctuation characters.

    Attributes
    ----------
    words : ndarray of str
        The vocabulary, in column order (alphabetical).
    word_counts : ndarray of float
        Occurrences of every kept word in the training corpus.
    dropped : dict
        ``{"most_frequent": [...], "rare": [...], "beyond_max_features": [...]}``, the
        words each rule removed.

    Examples
    --------
    >>> vocab = Vocabulary(min_count=2)
    >>> X = vocab.fit_transform(["Win cash now", "cash now!", "see you now"])
    >>> vocab.words.tolist()
    ['cash', 'now']
    >>> X.toarray()
    array([[1., 1.],
           [1., 1.],
           [0., 1.]])
    >>> vocab.dropped["rare"]
    ['!', 'see', 'win', 'you']
    """

    def __init__(
        self,
        *,
        lowercase: bool = True,
        drop_most_frequent: int = 0,
        min_count: int = 1,
        max_features: int | None = None,
        token_pattern: str = TOKEN_PATTERN,
    ):
        if not isinstance(lowercase, bool | np.bool_):
            raise InputTypeError(
                f"lowercase must be True or False; got {type(lowercase).__name__} {lowercase!r}."
            )
        self.lowercase = bool(lowercase)
        self.drop_most_frequent = check_count(drop_most_frequent, "drop_most_frequent", 0)
        self.min_count = check_count(min_count, "min_count", 1)
        self.max_features = (
            None if max_features is None else check_count(max_features, "max_features", 1)
        )
        self.token_pattern = _check_pattern(token_pattern)
        self._vectorizer: CountVectorizer | None = None
        self._word_list: list | None = None
        self._words: np.ndarray | None = None
        self.word_counts: np.ndarray | None = None
        self.dropped: dict = {}

    def __repr__(self) -> str:
        size = "unfitted" if self._word_list is None else f"{len(self)} words"
        return (
            f"Vocabulary(lowercase={self.lowercase}, drop_most_frequent="
            f"{self.drop_most_frequent}, min_count={self.min_count}, max_features="
            f"{self.max_features}; {size})"
        )

    def _new_vectorizer(self, vocabulary=None) -> CountVectorizer:
        return CountVectorizer(
            lowercase=self.lowercase,
            token_pattern=self.token_pattern,
            vocabulary=vocabulary,
            dtype=np.float64,
        )

    def fit_transform(self, texts) -> sparse.csr_array:
        """Learn the vocabulary from ``texts`` and return their count matrix (n, |V|)."""
        texts = _check_texts(texts)
        vectorizer = self._new_vectorizer()
        try:
            X = vectorizer.fit_transform(texts)
        except ValueError as err:  # scikit-learn's "empty vocabulary"
            raise InputError(
                f"texts contain no token matching token_pattern={self.token_pattern!r} "
                f"({len(texts)} message(s)). Give non-empty messages or another pattern."
            ) from err
        # the words in column order, from the fitted {word: column} mapping
        mapping = vectorizer.vocabulary_
        words = np.empty(len(mapping), dtype=object)
        words[np.fromiter(mapping.values(), dtype=np.intp, count=len(mapping))] = list(mapping)
        totals = np.asarray(X.sum(axis=0)).ravel()
        keep = totals >= self.min_count
        rare = words[~keep].tolist()
        frequent: list = []
        if self.drop_most_frequent:
            # stable sort on -count over alphabetical columns: ties go alphabetically
            top = np.argsort(-totals, kind="stable")[: self.drop_most_frequent]
            frequent = words[top].tolist()
            keep[top] = False
        beyond: list = []
        if self.max_features is not None and keep.sum() > self.max_features:
            # the kept words by count, ties alphabetically (stable over the columns)
            kept = np.flatnonzero(keep)
            order = kept[np.argsort(-totals[kept], kind="stable")]
            cut = order[self.max_features :]
            beyond = words[np.sort(cut)].tolist()
            keep[cut] = False
        if not keep.any():
            raise InputError(
                f"the vocabulary is empty: {len(words)} distinct tokens, of which "
                f"drop_most_frequent={self.drop_most_frequent} removes the most frequent "
                f"and min_count={self.min_count} removes {len(rare)} rare ones. Lower them."
            )
        if not keep.all():
            words = words[keep]
            X = X[:, keep]
            totals = totals[keep]
            vectorizer = self._new_vectorizer(vocabulary=words.tolist()).fit([])
        self._vectorizer = vectorizer
        self._word_list = words.tolist()
        self._words = None
        self.word_counts = totals
        self.dropped = {"most_frequent": frequent, "rare": rare, "beyond_max_features": beyond}
        return sparse.csr_array(X)

    def fit(self, texts) -> Vocabulary:
        """Learn the vocabulary from ``texts``; returns ``self``."""
        self.fit_transform(texts)
        return self

    def transform(self, texts) -> sparse.csr_array:
        """Count matrix (n, |V|) of ``texts``; words outside the vocabulary are skipped."""
        if self._vectorizer is None:
            raise InputError("this Vocabulary is not fitted yet; call fit(texts) first.")
        return sparse.csr_array(self._vectorizer.transform(_check_texts(texts)))

    def __len__(self) -> int:
        return 0 if self._word_list is None else len(self._word_list)

    @property
    def words(self) -> np.ndarray | None:
        """The vocabulary in column order (alphabetical); ``None`` before fitting."""
        if self._words is None and self._word_list is not None:
            self._words = np.asarray(self._word_list, dtype=str)
        return self._words


def _presence(X: sparse.csr_array) -> sparse.csr_array:
    """The 0/1 presence matrix of a checked count matrix.

    A word is present where its count is positive: stored zeros are absent, and
    duplicate entries of one cell are summed before they are read.
    """
    X = X.copy()
    X.sum_duplicates()
    X.eliminate_zeros()
    X.data[:] = 1.0
    return X


def _check_counts(X: sparse.csr_array, name: str) -> None:
    """Raise :class:`InputError` naming the first stored entry of ``X`` that is not a
    finite non-negative count (NaN, an infinity or a negative number)."""
    data = X.data
    if not data.size or _finite_nonnegative(data):
        return
    bad = ~(np.isfinite(data) & (data >= 0))
    k = int(np.flatnonzero(bad)[0])
    row = int(np.searchsorted(X.indptr, k, side="right") - 1)
    raise InputError(
        f"{name} must hold finite non-negative word counts; got {float(data[k])!r} at row "
        f"{row}, column {int(X.indices[k])} ({int(bad.sum())} such entr"
        f"{'y' if bad.sum() == 1 else 'ies'}). A word count cannot be negative or missing: "
        "fill or drop those rows (for word presence, pass X > 0)."
    )


def _is_matrix(docs) -> bool:
    """Whether ``docs`` is a count matrix rather than messages: scipy.sparse, a
    DataFrame, a 2-D ndarray or a list (or tuple) of rows."""
    if sparse.issparse(docs) or isinstance(docs, pd.DataFrame):
        return True
    if isinstance(docs, np.ndarray):
        return docs.ndim == 2
    return (
        isinstance(docs, list | tuple)
        and len(docs) > 0
        and isinstance(docs[0], list | tuple | np.ndarray)
    )


def _column_names(frame: pd.DataFrame) -> list:
    """A DataFrame's column names as str (the words they name)."""
    return [c if isinstance(c, str) else str(c) for c in frame.columns]


def _frame_counts(frame: pd.DataFrame, name: str) -> sparse.csr_array:
    """A DataFrame of word counts (one numeric column per word) as a checked float CSR
    count matrix, its columns in the frame's order."""
    for column, dtype in frame.dtypes.items():
        if isinstance(dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(dtype):
            raise InputTypeError(
                f"{name} must hold word counts, one numeric column per word; column "
                f"{column!r} has dtype {dtype}. Convert it to numbers "
                f"({name}[{column!r}].astype(float)) or drop it."
            )
    dtypes = list(frame.dtypes)
    if dtypes and all(
        isinstance(d, pd.SparseDtype) and d.fill_value == 0 for d in dtypes
    ):  # a sparse frame stays sparse
        counts = frame.sparse.to_coo()
    else:
        counts = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    return _as_count_matrix(counts, None, name)


def _as_count_matrix(X, n_words: int | None, name: str = "X") -> sparse.csr_array:
    """``X`` (scipy.sparse, a dense 2-D array or a list of rows) as a checked float CSR
    count matrix."""
    if not sparse.issparse(X):
        try:
            arr = np.asarray(X)
        except ValueError:  # rows of different lengths
            raise InputError(
                f"{name} must be a 2-D matrix of word counts; its rows have different "
                "lengths. Give every message (row) one count per word (column)."
            ) from None
        if arr.dtype.kind not in "biuf":
            raise InputTypeError(
                f"{name} must be a 2-D numeric matrix of word counts (scipy.sparse, an "
                "ndarray, a list of rows or a DataFrame) or a sequence of strings; got "
                f"{type(X).__name__} of shape "
                f"{arr.shape} and dtype {arr.dtype}."
            )
        if arr.ndim != 2:
            raise InputError(
                f"{name} must be a 2-D matrix of word counts (one row per message); got "
                f"shape {arr.shape}. Reshape a single message to one row."
            )
        X = arr  # a tuple of rows would read as csr_array's (data, indices) form
    X = sparse.csr_array(X, dtype=np.float64)
    if n_words is not None and X.shape[1] != n_words:
        raise InputError(
            f"{name} has {X.shape[1]} columns; the vocabulary has {n_words} words. Build "
            "the matrix with fit.transform(texts)."
        )
    _check_counts(X, name)
    return X


def _check_y(y, n: int) -> None:
    """``y`` must give one class per message."""
    # no array is built from a list here: that would cost more than the fit itself
    if isinstance(y, str | bytes) or not hasattr(y, "__len__") or getattr(y, "ndim", 1) != 1:
        raise InputTypeError(
            f"y must be a 1-D sequence of class labels, one per message; got "
            f"{type(y).__name__} "
            + (f"of shape {y.shape}." if hasattr(y, "shape") else f"{str(y)[:40]!r}.")
        )
    if len(y) != n:
        raise InputError(
            f"y has {len(y)} entries for {n} rows (messages); give one class label per message."
        )


class TextNaiveBayes:
    """A naive Bayes text classifier with a Bernoulli or multinomial event model.

    Parameters
    ----------
    event_model : {"multinomial", "bernoulli"}
        ``"multinomial"``: word counts, one draw per word position (seed 004).
        ``"bernoulli"``: word presence, every vocabulary word a Boolean feature whose
        absence counts too (seed 002).
    prior : Dirichlet, default Dirichlet(1.0)
        Prior over the word probabilities: a Dirichlet over the vocabulary
        (multinomial), or a Beta/Dirichlet over absent/present of every word
        (Bernoulli). ``bnb.laplace(k)`` with ``estimate="mean"`` is Laplace-k.
    class_prior : Dirichlet, default Dirichlet(1.0)
        Prior over the class probabilities (unused by the default class ML).
    vocabulary : Vocabulary, optional
        Tokenizer options; default ``Vocabulary()``. Each fit refits a copy of it.

    Notes
    -----
    Multinomial: with :math:`n_k` the occurrences of word :math:`w_k` in the
    concatenated text of class :math:`c`, :math:`n = \\sum_k n_k` and a symmetric
    ``Dirichlet(a)`` prior,

    * ML: :math:`n_k / n`; MAP: :math:`(n_k + a - 1)/(n + |V|(a - 1))`;
    * mean: :math:`(n_k + a)/(n + a|V|)`, which for ``a = 1`` is the seeds'
      :math:`(n_k + 1)/(n + |V|)` (the m-estimate with :math:`m = |V|`,
      :math:`p_k = 1/|V|`).

    Bernoulli: with :math:`N_c` messages in class :math:`c` of which :math:`d_k`
    contain word :math:`k`, :math:`\\theta_{ck} = (d_k + a)/(N_c + 2a)` for the
    mean under ``Beta(a, a)``, and a message scores
    :math:`\\sum_k [x_k\\log\\theta_{ck} + (1 - x_k)\\log(1 - \\theta_{ck})]`.

    Examples
    --------
    >>> texts = ["win cash now", "cash prize win win", "see you now", "lunch later"]
    >>> labels = ["spam", "spam", "ham", "ham"]
    >>> fit = TextNaiveBayes().fit(texts, labels, estimate="mean")
    >>> fit.predict(["win a prize"])
    array(['spam'], dtype=object)
    >>> fit.params["word"].sel(class_label="spam", word_category="win").item()    # (3+1)/(7+8)
    0.266667
    """

    def __init__(
        self,
        event_model: str = "multinomial",
        prior: Dirichlet | None = None,
        *,
        class_prior: Dirichlet | None = None,
        vocabulary: Vocabulary | None = None,
    ):
        if not isinstance(event_model, str) or event_model not in EVENT_MODELS:
            raise InputError(
                f"event_model must be one of {EVENT_MODELS}; got {event_model!r}. Use "
                "'multinomial' for word counts or 'bernoulli' for word presence."
            )
        for name, value in (("prior", prior), ("class_prior", class_prior)):
            if value is not None and not isinstance(value, Dirichlet):
                raise InputTypeError(
                    f"{name} must be a Dirichlet (e.g. bnb.laplace(1) or bnb.Dirichlet(2.0)); "
                    f"got {value!r}."
                )
        if vocabulary is not None and not isinstance(vocabulary, Vocabulary):
            raise InputTypeError(
                f"vocabulary must be a bnb.text.Vocabulary (e.g. Vocabulary(min_count=2)); "
                f"got {type(vocabulary).__name__} {vocabulary!r}."
            )
        self.event_model = event_model
        self.prior = Dirichlet(1.0) if prior is None else prior
        self.class_prior = Dirichlet(1.0) if class_prior is None else class_prior
        self.vocabulary = Vocabulary() if vocabulary is None else vocabulary

    def __repr__(self) -> str:
        return (
            f"TextNaiveBayes({self.event_model!r}, prior={self.prior!r}, "
            f"class_prior={self.class_prior!r}, vocabulary={self.vocabulary!r})"
        )

    def fit(
        self,
        texts,
        y,
        *,
        estimate: str = "mean",
        class_estimate: str = "ml",
        sample_weight=None,
    ) -> TextFit:
        """Learn the vocabulary from ``texts``, then the class and word probabilities.

        Parameters
        ----------
        texts : sequence of str
        y : array_like
            Class of every message.
        estimate : {"ml", "map", "mean", "predictive"}
            Estimator of the word probabilities. ``"predictive"`` is the exact
            Dirichlet-multinomial for the multinomial model and equals ``"mean"`` for
            the Bernoulli model (one draw per word).
        class_estimate : str, default "ml"
            Estimator of the class probabilities; the seeds' :math:`|docs_j| /
            |Examples|` is ``"ml"``.
        sample_weight : array_like, optional

        Returns
        -------
        TextFit
        """
        vocab = copy.copy(self.vocabulary)  # fitting replaces every learned attribute
        X = vocab.fit_transform(texts)
        return self._fit(X, y, vocab, vocab._word_list, estimate, class_estimate, sample_weight)

    def fit_matrix(
        self,
        X,
        y,
        *,
        words=None,
        estimate: str = "mean",
        class_estimate: str = "ml",
        sample_weight=None,
    ) -> TextFit:
        """Fit on a document-word count matrix built elsewhere: scipy.sparse, a 2-D
        ndarray, a list of rows, or a DataFrame with one numeric column per word.

        ``words`` (a list or array of str) names the columns; by default a
        DataFrame's column names (as str), otherwise ``w0, w1, ...``. Words given with
        a DataFrame must be its column names. Every entry must be a finite
        non-negative count. For the Bernoulli model a positive count is a presence
        and a zero, stored or not, an absence. The fit scores count matrices of the
        same kinds with the same columns (a DataFrame's matched to the words by name,
        in any order), but not raw strings.

        Examples
        --------
        >>> import pandas as pd
        >>> X = pd.DataFrame({"win": [2, 0, 1, 0], "lunch": [0, 1, 0, 2]})
        >>> fit = TextNaiveBayes().fit_matrix(X, ["spam", "ham", "spam", "ham"])
        >>> fit.words.tolist()
        ['win', 'lunch']
        >>> fit.predict(pd.DataFrame({"lunch": [3], "win": [0]}))  # columns by name
        array(['ham'], dtype=object)
        """
        columns = None
        if isinstance(X, pd.DataFrame):
            columns = _column_names(X)
            X = _frame_counts(X, "X")
        else:
            X = _as_count_matrix(X, None)
        if words is None:
            names = (
                columns
                if columns is not None
                else np.char.add("w", np.arange(X.shape[1]).astype(str)).tolist()
            )
        elif isinstance(words, list) and all(isinstance(w, str) for w in words):
            names = words
        else:
            names = np.asarray(words).astype(str).tolist()
        if not isinstance(names, list) or len(names) != X.shape[1]:
            raise InputError(
                f"words must give one name per column of X ({X.shape[1]}); got "
                f"{np.shape(words)} entries."
            )
        if columns is not None and names != columns:
            raise InputError(
                f"words={names[:10]!r} was given with a DataFrame, whose columns "
                f"{columns[:10]!r} already name the words. Rename the columns instead "
                "(X.set_axis(words, axis=1)), or leave words out."
            )
        if len(set(names)) != len(names):
            twice = sorted(repeated(names))
            if columns is not None:
                raise InputError(
                    f"X has the columns {twice[:5]!r} more than once; a DataFrame's columns "
                    "name the words, each once. Merge those columns (add their counts), or "
                    "rename them."
                )
            raise InputError(
                f"words must name every column of X once; {twice[:5]!r} name several "
                "columns. Merge those columns (add their counts), or give distinct names."
            )
        return self._fit(X, y, None, names, estimate, class_estimate, sample_weight)

    def _fit(self, X, y, vocab, names, estimate, class_estimate, sample_weight) -> TextFit:
        check_estimate(estimate)
        check_estimate(class_estimate, "class_estimate")
        if not (X.shape[0] and X.shape[1]):
            raise InputError(
                f"X has shape {X.shape}: a text classifier needs at least one message (row) "
                "and one word (column)."
            )
        _check_y(y, X.shape[0])
        codes, labels = encode_labels(y, X.shape[0])
        resp = class_labels(codes, len(labels), sample_weight)
        family = Multinomial
        if self.event_model == "bernoulli":
            X, family = _presence(X), Bernoulli
        # What NaiveBayes.fit runs, on the one block of words, without resolving a
        # {name: family} declaration: its per-column name checks are Python loops over
        # the vocabulary, which cost more than the whole fit of a spam filter.
        block = family(self.prior).bind(BLOCK, names, X)
        model = NaiveBayesFit.from_statistics(
            labels=labels,
            blocks=[block],
            stats=[block.count(block.encode(X), resp)],
            class_counts=resp.totals(),
            class_prior=self.class_prior,
            estimates={"class": class_estimate, "features": {BLOCK: estimate}},
            feature_names=names,
            is_frame=False,
            target="label",
        )
        model.training = [TrainingRows(Table(X, feature_names=names), resp)]
        return TextFit(model, vocab, self.event_model)


class TextFit:
    """A fitted text classifier: vocabulary, model, predictions and explanations.

    Attributes
    ----------
    model : NaiveBayesFit
        The underlying naive Bayes fit over the word block ``"word"``; it scores
        count (or presence) matrices directly.
    vocabulary : Vocabulary or None
        ``None`` when fitted with :meth:`TextNaiveBayes.fit_matrix`.
    event_model : str

    Notes
    -----
    ``fit.save(path)`` writes a netCDF file (no pickle) and ``bnb.load(path)`` gives
    back an equal fit: the same vocabulary (options, words, training counts, pruning
    record), event model, labels and parameters, so the same predictions on raw strings.

    Examples
    --------
    Four messages. Under the posterior mean P(win | spam) = (3 + 1)/(7 + 8) and
    P(win | ham) = (0 + 1)/(5 + 8); "a" is not in the vocabulary and is skipped,
    and the classes' prior is even, so the log-odds of spam for "win a prize" is the
    sum of its words' contributions.

    >>> import numpy as np
    >>> from bayesnb.text import TextNaiveBayes
    >>> texts = ["win cash now", "cash prize win win", "see you now", "lunch later"]
    >>> fit = TextNaiveBayes().fit(texts, ["spam", "spam", "ham", "ham"], estimate="mean")
    >>> fit
    TextFit('multinomial', estimate='mean', labels=['ham', 'spam'], 8 words)
    >>> fit.predict_proba(["win a prize", "see you at lunch"]).round(3)
    array([[0.143, 0.857],
           [0.925, 0.075]])
    >>> terms = fit.explain("win a prize")
    >>> terms["term"].tolist(), terms["contribution"].round(4).tolist()
    (['(class prior)', 'win', 'prize'], [0.0, 1.2432, 0.55])
    >>> round(float(np.log((4 / 15) / (1 / 13))), 4)
    1.2432
    """

    def __init__(self, model: NaiveBayesFit, vocabulary: Vocabulary | None, event_model: str):
        self.model = model
        self.vocabulary = vocabulary
        self.event_model = event_model

    def __repr__(self) -> str:
        est = self.model.estimates["features"][BLOCK]
        return (
            f"TextFit({self.event_model!r}, estimate={est!r}, labels={self.labels!r}, "
            f"{len(self.words)} words)"
        )

    # -- views ------------------------------------------------------------------------
    @property
    def labels(self) -> list:
        """The classes, in the column order of :meth:`predict_proba`."""
        return self.model.labels

    @functools.cached_property
    def words(self) -> np.ndarray:
        """The vocabulary, in column order."""
        return np.asarray(self.model.feature_names, dtype=str)

    @property
    def params(self):
        """``xarray.Dataset``: ``class_prob`` and ``word``.

        ``word`` has dims ``(class_label, word_category)`` for the multinomial model
        (:math:`P(w_k \\mid c)`) and ``(class_label, word_feature)`` for the Bernoulli model
        (:math:`P(w_k \\text{ present} \\mid c)`); the coordinate is the vocabulary.
        """
        return self.model.params

    @property
    def counts(self):
        """The sufficient statistics (word counts or document counts per class)."""
        return self.model.counts

    def _log_prob(self) -> np.ndarray:
        """(K, V, 2) absent/present log-probabilities (Bernoulli) or (K, V) (multinomial)."""
        return self.model.block_params[0]["log_prob"]

    # -- scoring ----------------------------------------------------------------------
    def transform(self, docs) -> sparse.csr_array:
        """The count matrix of ``docs``: strings tokenized by the vocabulary, or a count
        matrix as :meth:`TextNaiveBayes.fit_matrix` takes it (scipy.sparse, a 2-D
        ndarray, a list of rows, or a DataFrame whose columns are :attr:`words`, in
        any order), checked, with its columns in the order of :attr:`words`."""
        if _is_matrix(docs):
            if isinstance(docs, pd.DataFrame):
                return _frame_counts(self._in_word_order(docs), "docs")
            return _as_count_matrix(docs, len(self.model.feature_names), "docs")
        if self.vocabulary is None:
            raise InputTypeError(
                "this model was fit on a matrix (fit_matrix), so it has no tokenizer; got "
                f"{type(docs).__name__}. Give a count matrix with the same "
                f"{len(self.model.feature_names)} columns: scipy.sparse, a 2-D array, a "
                "list of rows, or a DataFrame whose columns are fit.words."
            )
        return self.vocabulary.transform(docs)

    def _in_word_order(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame``'s columns matched to the words by name, in the words' order; an
        :class:`InputError` naming the columns it lacks and those it has beyond them."""
        words = list(self.model.feature_names)
        columns = _column_names(frame)
        if columns == words:
            return frame
        if len(set(columns)) != len(columns):
            twice = sorted(repeated(columns))
            raise InputError(
                f"docs has the columns {twice[:5]!r} more than once; give every word one "
                "column (add the counts of repeated columns)."
            )
        known, given = set(words), set(columns)
        missing = [w for w in words if w not in given]
        extra = [c for c in columns if c not in known]
        if missing or extra:
            faults = []
            if missing:
                faults.append(f"lacks {len(missing)} of them ({missing[:10]!r})")
            if extra:
                faults.append(f"has {len(extra)} column(s) not among them ({extra[:10]!r})")
            raise InputError(
                f"docs is a DataFrame whose columns are not the fit's {len(words)} words: "
                f"it {' and '.join(faults)}. Give the words (fit.words) as its columns, "
                "e.g. docs.reindex(columns=fit.words, fill_value=0) (an unknown column "
                "dropped, a missing word counted 0), or pass docs.to_numpy() to match the "
                "columns by position."
            )
        return frame.set_axis(columns, axis=1)[words]

    def _design(self, docs) -> sparse.csr_array:
        """The matrix the model scores: counts, or presences for the Bernoulli model."""
        X = self.transform(docs)
        return _presence(X) if self.event_model == "bernoulli" else X

    def joint_log_likelihood(self, docs) -> np.ndarray:
        """``log P(c) + log P(doc | c)``, shape (n, K); ``-inf`` where a zero rules ``c`` out."""
        return self.model.joint_log_likelihood(self._design(docs))

    def predict_log_proba(self, docs) -> np.ndarray:
        """Log posterior class probabilities (n, K), columns in ``labels`` order.

        Raises :class:`~bayesnb.errors.ZeroLikelihoodError` (a ``ValueError``) naming
        the messages whose likelihood is 0 under every class (possible only with
        ``estimate="ml"`` or boundary MAP).
        """
        return self.model.predict_log_proba(self._design(docs))

    def predict_proba(self, docs) -> np.ndarray:
        """Posterior class probabilities (n, K), columns in ``labels`` order; raises as
        :meth:`predict_log_proba`."""
        return self.model.predict_proba(self._design(docs))

    def predict(self, docs) -> np.ndarray:
        """The most probable class of every message (``argmax_c`` of the joint); raises
        as :meth:`predict_log_proba` where no class is possible."""
        return np.asarray(self.labels, dtype=object)[self.model.predict_index(self._design(docs))]

    # -- explanations -------------------------------------------------------------------
    def _presence_weights(self) -> np.ndarray:
        """(K, V) log-probability a word contributes per occurrence (or per presence)."""
        lp = self._log_prob()
        return lp[..., 1] if self.event_model == "bernoulli" else lp

    # -- the exact posterior (see NaiveBayesFit.posterior) ------------------------------------
    def posterior(self, draws: int = 1000, chains: int = 4, random_state=None, *, data=True):
        """The exact conjugate posterior of the class and word probabilities, an ArviZ
        ``DataTree`` (:meth:`bayesnb.NaiveBayesFit.posterior`): a Dirichlet over the
        vocabulary per class (multinomial model) or a Beta per word and class
        (Bernoulli model). The draws hold ``draws * chains * classes * words``
        numbers; the data groups leave out a vocabulary too wide to draw documents
        for (their ``omitted`` attribute says so)."""
        return self.model.posterior(draws, chains, random_state, data=data)

    def credible_interval(self, prob: float | None = None, kind: str = "eti"):
        """Every word probability's exact credible interval
        (:meth:`bayesnb.NaiveBayesFit.credible_interval`)."""
        return self.model.credible_interval(prob, kind)

    def log_evidence(self) -> float:
        """``log p(labels, documents)`` under the priors
        (:meth:`bayesnb.NaiveBayesFit.log_evidence`)."""
        return self.model.log_evidence()

    def informative_words(self, n: int = 10) -> pd.DataFrame:
        """The ``n`` words whose occurrence most favours each class.

        Ranks by the log-ratio :math:`\\log P(w \\mid c) - \\log P(w \\mid \\neg c)`,
        where :math:`P(w \\mid \\neg c) = \\sum_{c' \\ne c} P(c') P(w \\mid c') /
        \\sum_{c' \\ne c} P(c')` (the other class itself when there are two). For the
        multinomial model :math:`P(w \\mid c)` is the probability of one word position;
        for the Bernoulli model the probability that the word is present. Under
        ``estimate="ml"`` a word never seen outside ``c`` has log-ratio ``+inf``;
        ties are broken by the word's count in ``c``, then alphabetically.

        Returns
        -------
        DataFrame
            Columns ``label, rank, word, log_ratio, p_word, p_rest, count``.
        """
        n = check_count(n, "n", 1)
        self._two_classes("informative_words")
        logw = self._presence_weights()  # (K, V)
        prior = np.exp(self.model.class_log_prob)
        counts = self.model.stats[0]["counts"]
        counts = counts[..., 1] if self.event_model == "bernoulli" else counts
        words = self.words
        frames = []
        for c, label in enumerate(self.labels):
            others = [k for k in range(len(self.labels)) if k != c]
            w = prior[others] / prior[others].sum()
            with np.errstate(divide="ignore"):
                log_rest = special.logsumexp(logw[others], axis=0, b=w[:, None])
            with np.errstate(invalid="ignore"):
                ratio = logw[c] - log_rest
            order = np.lexsort((words, -counts[c], -ratio))[:n]
            frames.append(
                pd.DataFrame(
                    {
                        "label": label,
                        "rank": np.arange(1, len(order) + 1),
                        "word": words[order],
                        "log_ratio": ratio[order],
                        "p_word": np.exp(logw[c, order]),
                        "p_rest": np.exp(log_rest[order]),
                        "count": counts[c, order],
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)

    def explain(self, text, label=None, against=None) -> pd.DataFrame:
        """Each word's contribution to the log-odds of ``label`` against ``against``.

        Parameters
        ----------
        text : str or 1-row count matrix
            One message (a count matrix of any kind :meth:`transform` takes, e.g. a
            1-row DataFrame).
        label : optional
            The class argued for; default the predicted class.
        against : optional
            The class argued against; default the most probable other class.

        Returns
        -------
        DataFrame
            One row per term, columns ``term, count, contribution``. The terms are
            ``"(class prior)"``, then for the Bernoulli model ``"(no word present)"``
            (every vocabulary word absent) and for the predictive multinomial
            ``"(message length)"``, then every vocabulary word of the message,
            largest contribution first. The contributions sum exactly to
            :math:`\\log P(label \\mid x) - \\log P(against \\mid x)`, stored with the
            two classes in ``.attrs``.

        Notes
        -----
        Multinomial (point estimate): a word seen :math:`x_k` times contributes
        :math:`x_k[\\log\\theta_{ak} - \\log\\theta_{bk}]`. Predictive: it contributes
        :math:`[\\log\\Gamma(a_{ak}+x_k) - \\log\\Gamma(a_{ak})] - [\\ldots b\\ldots]`
        and the length term is :math:`[\\log\\Gamma(A_a) - \\log\\Gamma(A_a+L)] -
        [\\ldots b\\ldots]`. Bernoulli: a present word contributes
        :math:`\\log\\frac{\\theta_{ak}}{\\theta_{bk}} - \\log\\frac{1-\\theta_{ak}}
        {1-\\theta_{bk}}` on top of the all-absent baseline
        :math:`\\sum_k \\log\\frac{1-\\theta_{ak}}{1-\\theta_{bk}}`.
        """
        self._two_classes("explain")
        if isinstance(text, str):
            docs = [text]
        elif isinstance(text, np.ndarray) and text.ndim == 1 and text.dtype.kind in "biuf":
            docs = text[None, :]  # one message's counts
        elif sparse.issparse(text) or isinstance(text, np.ndarray) or _is_matrix(text):
            docs = text
        else:
            raise InputTypeError(
                f"explain takes one message (a str) or a 1-row count matrix; got "
                f"{type(text).__name__}. Explain messages one at a time."
            )
        X = self.transform(docs)
        if X.shape[0] != 1:
            raise InputError(
                f"text: explain takes one message; got {X.shape[0]} rows. Explain messages "
                "one at a time."
            )
        jll = self.joint_log_likelihood(X)[0]
        if not np.isfinite(jll).any():
            raise ZeroLikelihoodError(
                "the message has likelihood 0 under every class (estimate="
                f"{self.model.estimates['features'][BLOCK]!r} gave one of its words "
                "probability 0 in each), so its log-odds is undefined. Fit with "
                "estimate='mean' to smooth."
            )
        a = self._class_index(label, "label") if label is not None else int(np.argmax(jll))
        if against is None:
            others = [k for k in range(len(jll)) if k != a]
            b = others[int(np.argmax(jll[others]))]
        else:
            b = self._class_index(against, "against")
        if a == b:
            raise InputError(
                f"label and against are the same class {self.labels[a]!r}; give two "
                f"different classes of {self.labels!r}."
            )
        idx = X.indices
        x = X.data
        params = self.model.block_params[0]
        prior_term = self.model.class_log_prob[a] - self.model.class_log_prob[b]
        rows = [("(class prior)", np.nan, prior_term)]
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.event_model == "bernoulli":
                lp = params["log_prob"]
                absent = lp[a, :, 0] - lp[b, :, 0]
                present = (lp[a, idx, 1] - lp[b, idx, 1]) - absent[idx]
                rows.append(("(no word present)", np.nan, absent.sum()))
                word_terms = present
            elif "concentration" in params:
                conc = params["concentration"]
                total = conc.sum(axis=1)
                length = x.sum()
                rows.append(
                    (
                        "(message length)",
                        length,
                        log_rising(total[b], length) - log_rising(total[a], length),
                    )
                )
                word_terms = log_rising(conc[a, idx], x) - log_rising(conc[b, idx], x)
            else:
                lp = params["log_prob"]
                word_terms = x * (lp[a, idx] - lp[b, idx])
        if np.isnan(word_terms).any() or np.isnan([r[2] for r in rows]).any():
            raise ZeroLikelihoodError(
                f"the message has likelihood 0 under both {self.labels[a]!r} and "
                f"{self.labels[b]!r} (estimate={self.model.estimates['features'][BLOCK]!r} "
                "gave a word probability 0 in each), so their log-odds is undefined. Fit "
                "with estimate='mean' to smooth."
            )
        order = np.argsort(-word_terms, kind="stable")
        head = pd.DataFrame(rows, columns=["term", "count", "contribution"])
        body = pd.DataFrame(
            {"term": self.words[idx[order]], "count": x[order], "contribution": word_terms[order]}
        )
        out = pd.concat([head, body], ignore_index=True)
        out.attrs = {
            "label": self.labels[a],
            "against": self.labels[b],
            "log_odds": float(jll[a] - jll[b]),
        }
        return out

    # -- persistence ----------------------------------------------------------------------
    def save(self, path) -> None:
        """Write the fit to a netCDF-3 file (no pickle); :func:`bayesnb.load` reads it.

        The file holds the word model as :meth:`bayesnb.NaiveBayesFit.save` writes it
        (statistics plus declaration, so loading re-estimates the same parameters), the
        event model and the vocabulary: its options, its words (the model's columns),
        their training counts and the words each pruning rule dropped.
        """
        ds = self.model._to_dataset()
        config = {
            "model": "TextFit",
            "event_model": self.event_model,
            "wrapped": json.loads(ds.attrs["bayesnb_config"]),
            "text": None,
        }
        vocab = self.vocabulary
        if vocab is not None:
            config["text"] = {
                "lowercase": vocab.lowercase,
                "drop_most_frequent": vocab.drop_most_frequent,
                "min_count": vocab.min_count,
                "max_features": vocab.max_features,
                "token_pattern": vocab.token_pattern,
                "dropped": {k: list(v) for k, v in vocab.dropped.items()},
            }
            ds[_WORD_COUNTS] = ((_WORD_COUNTS,), np.asarray(vocab.word_counts, dtype=float))
        ds.attrs["bayesnb_config"] = json.dumps(config)
        write_dataset(ds, path)

    def _two_classes(self, method: str) -> None:
        if len(self.labels) < 2:
            raise InputError(
                f"{method} compares a class with the others, but the fit has one class only "
                f"({self.labels!r}). Fit on messages of at least two classes."
            )

    def _class_index(self, value, name: str) -> int:
        if value not in self.labels:
            raise InputError(
                f"{name}={value!r} is not a class; the classes are {self.labels!r}. Give one "
                "of them."
            )
        return self.labels.index(value)


#: The variable of a saved :class:`TextFit` holding the vocabulary's training counts.
_WORD_COUNTS = "text_word_counts"


def _read_text_fit(ds: xr.Dataset, config: dict) -> TextFit:
    """The :class:`TextFit` saved in ``ds`` by :meth:`TextFit.save`."""
    try:
        event_model = config["event_model"]
        wrapped = config["wrapped"]
        text = config["text"]
    except (KeyError, TypeError) as err:
        raise ModelFileError(
            f"the file's TextFit configuration lacks {err}; it is damaged or was not "
            "written by TextFit.save. Save the fit again."
        ) from err
    if event_model not in EVENT_MODELS or not isinstance(wrapped, dict):
        raise ModelFileError(
            f"the file's TextFit configuration has event_model={event_model!r} (expected one "
            f"of {EVENT_MODELS}) and a word model of type {type(wrapped).__name__}; it is "
            "damaged. Save the fit again."
        )
    model = _read_fitted(NaiveBayesFit, ds.drop_vars(_WORD_COUNTS, errors="ignore"), wrapped)
    if text is None:
        return TextFit(model, None, event_model)
    words = list(model.feature_names)
    try:
        vocab = Vocabulary(
            lowercase=text["lowercase"],
            drop_most_frequent=text["drop_most_frequent"],
            min_count=text["min_count"],
            max_features=text.get("max_features"),  # files saved before it existed
            token_pattern=text["token_pattern"],
        )
        dropped = {k: list(v) for k, v in text["dropped"].items()}
        counts = np.asarray(ds[_WORD_COUNTS].values, dtype=float)
    except (KeyError, TypeError, AttributeError, InputError) as err:
        raise ModelFileError(
            f"the file's vocabulary is damaged ({type(err).__name__}: {err}). Save the fit again."
        ) from err
    if counts.shape != (len(words),):
        raise ModelFileError(
            f"the file's vocabulary has {counts.shape} word counts for {len(words)} words; "
            "it is damaged. Save the fit again."
        )
    vocab._vectorizer = vocab._new_vectorizer(vocabulary=words).fit([])
    vocab._word_list = words
    vocab.word_counts = counts
    vocab.dropped = dropped
    return TextFit(model, vocab, event_model)


register_loader("TextFit", _read_text_fit)


# ----------------------------------------------------------------------------------------
# The SMS Spam Collection results table
# ----------------------------------------------------------------------------------------


def spam_split(test_size: float = 0.2, random_state: int = 0):
    """The fixed stratified train/test split of the SMS Spam Collection used in the text
    guide's results table.

    ``test_size`` is the fraction of messages held out, in (0, 1); ``random_state``
    an integer seed in [0, 2**32 - 1]. Returns ``(train_texts, test_texts,
    train_labels, test_labels)`` as lists/arrays.

    Examples
    --------
    The 5,574 messages, a fifth held out; both sides keep the collection's share of
    spam (747 of 5,574, 13.4%).

    >>> from bayesnb.text import spam_split
    >>> train_texts, test_texts, train_labels, test_labels = spam_split()
    >>> len(train_texts), len(test_texts)
    (4459, 1115)
    >>> int((test_labels == "spam").sum()), round(float((train_labels == "spam").mean()), 3)
    (149, 0.134)
    """
    from sklearn.model_selection import train_test_split

    from bayesnb import datasets

    _check_test_size(test_size)
    _check_seed(random_state)
    df = datasets.sms_spam()
    try:
        return train_test_split(
            df["text"].tolist(),
            df["label"].to_numpy(),
            test_size=float(test_size),
            stratify=df["label"].to_numpy(),
            random_state=int(random_state),
        )
    except ValueError as err:  # a split too small to hold every class on both sides
        raise InputError(
            f"test_size={test_size!r} leaves too few messages on one side of the stratified "
            f"split of {len(df)} messages ({err}). Give a fraction nearer 0.5."
        ) from err


_MAX_SEED = 2**32 - 1


def _check_test_size(value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InputTypeError(
            f"test_size must be a fraction in (0, 1); got {type(value).__name__} {value!r}."
        )
    if not 0 < value < 1:
        raise InputError(
            f"test_size must be a fraction in (0, 1) (the share of messages held out); "
            f"got {value!r}. For example 0.2."
        )
    return float(value)


def _check_seed(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputTypeError(
            f"random_state must be an integer in [0, {_MAX_SEED}]; got "
            f"{type(value).__name__} {value!r}."
        )
    if not 0 <= value <= _MAX_SEED:
        raise InputError(f"random_state must be an integer in [0, {_MAX_SEED}]; got {value!r}.")
    return int(value)


#: (estimate, prior, description) rows of the results table.
SPAM_SETTINGS = (
    ("ml", None, "counts (k = 0)"),
    ("map", Dirichlet(2.0), "mode under Dirichlet(2) = Laplace-1"),
    ("map", Dirichlet(1.5), "mode under Dirichlet(1.5) = Laplace-0.5"),
    ("mean", Dirichlet(1.0), "mean under Dirichlet(1) = Laplace-1"),
    ("mean", Dirichlet(0.1), "Laplace-0.1"),
    ("mean", Dirichlet(0.01), "Laplace-0.01"),
    ("predictive", Dirichlet(1.0), "Dirichlet-multinomial, Dirichlet(1)"),
)


def _score(fit: TextFit, texts, y) -> dict:
    """Accuracy, spam F1 and log loss; messages with every class ruled out are undefined."""
    from sklearn.metrics import f1_score

    jll = fit.joint_log_likelihood(texts)
    undefined = ~np.isfinite(jll.max(axis=1))
    labels = np.asarray(fit.labels, dtype=object)
    pred = labels[jll.argmax(axis=1)].astype(object)
    pred[undefined] = "(undefined)"
    truth = np.searchsorted(fit.labels, y)
    if undefined.all():
        log_loss = np.inf
    else:
        logp = np.full(jll.shape, -np.inf)
        logp[~undefined] = log_normalize(jll[~undefined])
        log_true = logp[np.arange(len(y)), truth]
        log_loss = -np.mean(log_true) if np.isfinite(log_true).all() else np.inf
    return {
        "accuracy": float(np.mean(pred == np.asarray(y, dtype=object))),
        "spam_f1": float(f1_score(y, pred, labels=["spam"], average="macro")),
        "log_loss": float(log_loss),
        "undefined": float(np.mean(undefined)),
    }


def spam_results(test_size: float = 0.2, random_state: int = 0, vocabulary=None) -> pd.DataFrame:
    """Both event models crossed with ML, MAP, mean and Laplace-k on SMS spam.

    The split is :func:`spam_split` (stratified, fixed seed); the vocabulary is
    learned on the training messages; the class probabilities are ML (seed 004's
    :math:`|docs_j|/|Examples|`). A test message whose likelihood is 0 under both
    classes (possible under ML) has no prediction: it counts as an error in the
    accuracy, as a missed spam or nothing in the spam F1, and makes the log loss
    infinite; ``undefined`` is the fraction of such messages. A message with a
    finite likelihood under one class only gets probability 1 for that class.

    Examples
    --------
    Trained on a tenth of the messages (the text guide's table holds out a fifth),
    maximum likelihood leaves a fifth of the test messages with no prediction;
    every smoothed estimate predicts them all.

    >>> from bayesnb.text import spam_results
    >>> table = spam_results(test_size=0.9)
    >>> table.attrs["n_train"], table.attrs["n_words"]
    (557, 2378)
    >>> table.groupby("estimate")["undefined"].max().round(3).to_dict()
    {'map': 0.0, 'mean': 0.0, 'ml': 0.197, 'predictive': 0.0}
    >>> bool(table.loc[table["estimate"] != "ml", "accuracy"].min() > 0.9)
    True
    """
    return _results_table(spam_split(test_size, random_state), vocabulary)


def _results_table(split, vocabulary=None) -> pd.DataFrame:
    """:func:`spam_results` on a given ``(train_x, test_x, train_y, test_y)`` split."""
    train_x, test_x, train_y, test_y = split
    if vocabulary is not None and not isinstance(vocabulary, Vocabulary):
        raise InputTypeError(
            f"vocabulary must be a bnb.text.Vocabulary; got {type(vocabulary).__name__}."
        )
    vocabulary = Vocabulary() if vocabulary is None else vocabulary
    rows = []
    for event_model in EVENT_MODELS[::-1]:
        for estimate, prior, note in SPAM_SETTINGS:
            if estimate == "predictive" and event_model == "bernoulli":
                continue  # one draw per word: the predictive equals the mean
            model = TextNaiveBayes(event_model, prior, vocabulary=vocabulary)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ZeroProbabilityWarning)
                fit = model.fit(train_x, train_y, estimate=estimate)
            row = {"model": event_model, "estimate": estimate, "prior": note}
            row.update(_score(fit, test_x, test_y))
            rows.append(row)
    table = pd.DataFrame(rows)
    table.attrs.update(
        n_train=len(train_x),
        n_test=len(test_x),
        n_words=len(fit.words),
        test_spam=int(np.sum(np.asarray(test_y) == "spam")),
    )
    return table


def format_results(table: pd.DataFrame) -> str:
    """The results table as Markdown.

    ``table`` has the columns of :func:`spam_results`; its ``attrs`` (sizes of the
    split and of the vocabulary), when present, become a closing line.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnb.text import format_results
    >>> row = {"model": "multinomial", "estimate": "mean", "prior": "Dirichlet(1)",
    ...        "accuracy": 0.98386, "spam_f1": 0.93986, "log_loss": 0.10262, "undefined": 0.0}
    >>> print(format_results(pd.DataFrame([row])))
    | event model | estimate | prior | accuracy | spam F1 | log loss | undefined |
    | --- | --- | --- | ---: | ---: | ---: | ---: |
    | multinomial | mean | Dirichlet(1) | 0.9839 | 0.9399 | 0.1026 | 0.00% |
    """
    lines = [
        "| event model | estimate | prior | accuracy | spam F1 | log loss | undefined |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in table.itertuples():
        lines.append(
            f"| {r.model} | {r.estimate} | {r.prior} | {r.accuracy:.4f} | {r.spam_f1:.4f} "
            f"| {r.log_loss:.4f} | {r.undefined:.2%} |"
        )
    a = table.attrs
    if a:
        lines.append("")
        lines.append(
            f"{a['n_train']} training and {a['n_test']} test messages ({a['test_spam']} "
            f"spam), {a['n_words']} words in the vocabulary."
        )
    return "\n".join(lines)


def _option(kind, low, high=None, *, open_low: bool = False, what: str = ""):
    """An argparse ``type``: a ``kind`` (int or float) in the range [low, high] (the
    low end open if ``open_low``, and the high end open for a float), else a usage
    error naming the accepted range."""
    if kind is float:
        accepted = f"a number in ({low}, {high})"
    else:
        accepted = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
    accepted += what

    def convert(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {accepted}; got {text!r}.") from None
        below = value <= low if open_low else value < low
        above = high is not None and (value >= high if kind is float else value > high)
        if below or above or (kind is float and not np.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be {accepted}; got {text!r}.")
        return value

    return convert


def main(argv=None) -> int:
    """``python -m bayesnb.text``: print the SMS spam results table (Markdown).

    A bad option value is a usage error: a message naming the option and the accepted
    range on stderr, and exit status 2.
    """
    parser = argparse.ArgumentParser(
        prog="python -m bayesnb.text",
        description="SMS Spam Collection: Bernoulli and multinomial naive Bayes, "
        "estimators side by side.",
    )
    parser.add_argument(
        "--test-size",
        type=_option(float, 0, 1, open_low=True, what=" (the share of messages held out)"),
        default=0.2,
        help="fraction of the messages held out for testing, in (0, 1) (default 0.2)",
    )
    parser.add_argument(
        "--random-state",
        type=_option(int, 0, _MAX_SEED),
        default=0,
        help=f"seed of the stratified split, an integer in [0, {_MAX_SEED}] (default 0)",
    )
    parser.add_argument(
        "--drop-most-frequent",
        type=_option(int, 0),
        default=0,
        help="drop the N most frequent training words, N >= 0 (default 0)",
    )
    parser.add_argument(
        "--min-count",
        type=_option(int, 1),
        default=1,
        help="drop words seen fewer than M times in training, M >= 1 (default 1)",
    )
    parser.add_argument(
        "--max-features",
        type=_option(int, 1),
        default=None,
        help="keep at most the N most frequent of the remaining words, N >= 1 (default: all)",
    )
    args = parser.parse_args(argv)
    try:
        split = spam_split(args.test_size, args.random_state)
    except InputError as err:
        parser.error(f"argument --test-size: {err}")
    vocab = Vocabulary(
        drop_most_frequent=args.drop_most_frequent,
        min_count=args.min_count,
        max_features=args.max_features,
    )
    try:
        table = _results_table(split, vocab)
    except InputError as err:
        if "vocabulary is empty" not in str(err):
            raise
        parser.error(
            f"argument --drop-most-frequent/--min-count: --drop-most-frequent "
            f"{args.drop_most_frequent} with --min-count {args.min_count} leaves no word in "
            f"the vocabulary ({err}) Use a --drop-most-frequent below the number of "
            "distinct training tokens and a smaller --min-count."
        )
    print(format_results(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
