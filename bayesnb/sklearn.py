"""scikit-learn estimators on top of :class:`bayesnb.NaiveBayes`.

The classes here are thin: ``fit`` validates the input the scikit-learn way, builds
a :class:`bayesnb.NaiveBayes` from the estimator's parameters and keeps the
resulting :class:`bayesnb.NaiveBayesFit` in ``fit_``; the predictions are that
object's. They work in :class:`~sklearn.pipeline.Pipeline`,
:class:`~sklearn.model_selection.GridSearchCV` and
:func:`~sklearn.model_selection.cross_val_score`.

:class:`NaiveBayesClassifier` takes any bayesnb declaration. The four others
expose the parameters a scikit-learn user knows and, with their defaults, reproduce
the classifiers of :mod:`sklearn.naive_bayes` of the same names (:class:`GaussianNB`
with ``var_smoothing=0``): ``alpha`` is the concentration of a symmetric Dirichlet
(Beta) prior, and ``estimate="mean"`` with it is additive smoothing,
:math:`(n_{cv} + \\alpha) / (n_c + \\alpha V)`; ``class_estimate="ml"`` is
scikit-learn's ``fit_prior=True``, the class frequencies. ``estimate`` and ``alpha``
are ordinary parameters, so :class:`~sklearn.model_selection.GridSearchCV` can tune
them.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    assert_all_finite,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from bayesnb._data import Table, check_classes, check_labels
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families import Bernoulli, Categorical, Family, Gaussian, Multinomial
from bayesnb.families._kernels import value_array
from bayesnb.naive_bayes import NaiveBayes
from bayesnb.priors import Beta, Dirichlet, ZeroProbabilityWarning, check_estimate

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "GaussianNB",
    "MultinomialNB",
    "NaiveBayesClassifier",
]


class NaiveBayesClassifier(ClassifierMixin, BaseEstimator):
    """A scikit-learn classifier for any bayesnb naive Bayes declaration.

    Parameters
    ----------
    features : dict of {name: Family}, Family, or None
        The declaration given to :class:`bayesnb.NaiveBayes`. ``None`` infers the
        families from dtypes: floats are Gaussian, bool and 0/1 integers Bernoulli,
        other integers and strings Categorical (one feature per column). It is never
        modified; fitting binds copies of its families.
    class_prior : Dirichlet, optional
        Prior over the class probabilities (default ``Dirichlet(1.0)``).
    estimate : {"mean", "ml", "map", "predictive"}, default "mean"
        Estimator of every feature that does not set its own. The default, the
        posterior mean, is additive (Laplace) smoothing under the default
        ``Dirichlet(1)`` priors, as :meth:`bayesnb.NaiveBayes.fit`.
    class_estimate : str, optional
        Estimator of the class probabilities (default: ``estimate``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The sorted class labels, the column order of :meth:`predict_proba`.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names.
    fit_ : bayesnb.NaiveBayesFit
        The fitted model: parameters (``fit_.params``), statistics
        (``fit_.counts``) and everything else bayesnb offers.

    Notes
    -----
    A DataFrame is handed to bayesnb as it is, so its columns keep their dtypes
    (strings and pandas categoricals become Categorical features). Any other ``X``
    must be numeric and goes through :func:`sklearn.utils.check_array`. Missing
    values (NaN) are marginalized exactly, in ``fit`` and in ``predict``; infinite
    values are rejected. A sparse matrix is read as a block of Boolean features
    unless ``features`` says otherwise (for counts declare ``bnb.Multinomial()`` or
    use :class:`MultinomialNB`).

    ``sample_weight`` multiplies every row's one-hot label: a weight of ``w`` counts
    the row ``w`` times.

    Examples
    --------
    >>> import bayesnb as bnb
    >>> from bayesnb.sklearn import NaiveBayesClassifier
    >>> df = bnb.datasets.play_tennis()
    >>> X, y = df.drop(columns="play"), df["play"]
    >>> clf = NaiveBayesClassifier(estimate="mean").fit(X, y)
    >>> clf.classes_
    array(['No', 'Yes'], dtype=object)
    >>> clf.predict(X.iloc[:2])
    array(['No', 'No'], dtype=object)
    >>> clf.fit_.params["outlook"].sel(class_label="No").values   # (count + 1) / (5 + 3)
    array([0.125, 0.375, 0.5  ])
    """

    def __init__(self, features=None, class_prior=None, estimate="mean", class_estimate=None):
        self.features = features
        self.class_prior = class_prior
        self.estimate = estimate
        self.class_estimate = class_estimate

    # -- hooks for the convenience subclasses -------------------------------------------
    def _declaration(self, X):
        """The bayesnb ``features`` declaration for the validated training ``X``."""
        return self.features

    def _check_params(self) -> None:
        """Type checks of the parameters (values are checked by bayesnb)."""
        if self.class_prior is not None and not isinstance(self.class_prior, Dirichlet):
            raise InputTypeError(
                "class_prior must be a bnb.Dirichlet (or None for Dirichlet(1.0)); got "
                f"{self.class_prior!r} ({type(self.class_prior).__name__}). Wrap pseudo-counts "
                "in a prior: class_prior=bnb.Dirichlet([2.0, 1.0])."
            )
        check_estimate(self.estimate, "estimate")
        if self.class_estimate is not None:
            check_estimate(self.class_estimate, "class_estimate")

    #: Whether a DataFrame reaches bayesnb as a DataFrame (mixed dtypes).
    _keeps_frames = True
    #: What array input may be: sparse (CSR) and with NaN for a missing value.
    _accept_sparse = True
    _allow_nan = True

    def _check_array_params(self) -> dict:
        """Keyword arguments of :func:`sklearn.utils.check_array` for array input."""
        return {
            "accept_sparse": "csr" if self._accept_sparse else False,
            "dtype": "numeric",
            "ensure_all_finite": "allow-nan" if self._allow_nan else True,
        }

    def _prepare(self, X):
        """Model-specific checks and transformation of the validated ``X``."""
        return X

    # -- validation ------------------------------------------------------------------------
    def _validate(self, X, y=None, *, reset: bool):
        if self._keeps_frames and isinstance(X, pd.DataFrame):
            return self._validate_frame(X, y, reset=reset)
        frame_fit = not reset and self.fit_.is_frame
        params = self._check_array_params()
        if frame_fit:  # the columns may hold strings: keep the array's dtype
            params = {**params, "dtype": None}
        if y is None and not reset:
            X = validate_data(self, X, reset=False, **params)
        else:
            X, y = validate_data(self, X, y, reset=reset, **params)
        if frame_fit:  # fitted on a DataFrame, given an array: its columns, in order
            X = pd.DataFrame(X, columns=self.fit_.feature_names)
        X = self._prepare(X)
        return X if y is None else (X, y)

    def _validate_frame(self, X, y, *, reset: bool):
        if y is None:
            validate_data(self, X, reset=reset, skip_check_array=True)
        else:
            X, y = validate_data(self, X, y, reset=reset, skip_check_array=True)
        if X.shape[0] < 1 or X.shape[1] < 1:
            raise InputError(
                f"X has shape {X.shape}; fitting and prediction need at least 1 sample(s) "
                "and 1 feature(s). Give a non-empty DataFrame."
            )
        if not reset and not self.fit_.is_frame:  # fitted on an array, given a DataFrame
            X = validate_data(self, X.to_numpy(), reset=False, **self._check_array_params())
            X = self._prepare(X)
        if y is None:
            return X
        y = column_or_1d(y, warn=True)
        assert_all_finite(y, input_name="y")
        return X, y

    # -- fitting ---------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the naive Bayes model.

        Parameters
        ----------
        X : DataFrame, array_like or sparse matrix of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Class labels (any sortable values).
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative row weights, not all zero.

        Returns
        -------
        self
        """
        self._check_params()
        if y is not None:  # before NumPy turns NaN into 'nan', or 1 into '1' next to 'b'
            check_labels(y)
        X, y = self._validate(X, y, reset=True)
        check_classification_targets(y)
        model = NaiveBayes(self._declaration(X), class_prior=self.class_prior)
        self.fit_ = model.fit(
            X,
            y,
            estimate=self.estimate,
            class_estimate=self.class_estimate,
            sample_weight=sample_weight,
        )
        self.classes_ = np.unique(y)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Fit on one more batch of rows (scikit-learn's incremental learning).

        The first call fits the batch as :meth:`fit` does, over every class in
        ``classes``; each later call updates the fitted model with its batch
        (:meth:`bayesnb.NaiveBayesFit.update`): the posterior after the batches so far
        is the prior of the next, so the batches together give the model one
        :meth:`fit` on all their rows gives (with the Gaussian's default prior, the
        one resolved from the first batch). :meth:`fit` starts over; ``partial_fit``
        after :meth:`fit` goes on from it, as in scikit-learn.

        What the first batch fixes stays: the classes, and the families inferred from
        its dtypes (``features=None``) with the categories learnt from it. A later
        label or category outside them is an error naming it; declare ``features``
        (with ``categories=``) for data whose later batches may hold new values.

        Parameters
        ----------
        X : DataFrame, array_like or sparse matrix of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
            Class labels, each among ``classes``.
        classes : array_like of shape (n_classes,), optional
            Every class label, including those absent from this batch. Required on
            the first call; a later call may repeat it (the same labels) or leave it
            out.
        sample_weight : array_like of shape (n_samples,), optional
            Non-negative row weights, not all zero.

        Returns
        -------
        self
        """
        first = getattr(self, "classes_", None) is None
        if first and classes is None:
            raise InputError(
                "classes must be passed on the first call to partial_fit: the full list "
                "of class labels, including those absent from this batch (e.g. "
                "classes=np.unique(y_all)). Later calls may leave it out."
            )
        if not first and classes is not None and check_classes(classes) != self.fit_.labels:
            raise InputError(
                f"classes={classes!r} is not the same as on the first call to partial_fit, "
                f"which fixed the classes {self.fit_.labels!r}. Give the same labels, or "
                "leave classes out after the first call (fit starts over)."
            )
        self._check_params()
        check_labels(y)
        X, y = self._validate(X, y, reset=first)
        check_classification_targets(y)
        if first:
            model = NaiveBayes(self._declaration(X), class_prior=self.class_prior)
            self.fit_ = model.fit(
                X,
                y,
                estimate=self.estimate,
                class_estimate=self.class_estimate,
                sample_weight=sample_weight,
                classes=classes,
            )
            self.classes_ = value_array(self.fit_.labels)
        else:
            self._before_update(X)
            self.fit_ = self.fit_.update(X, y, sample_weight=sample_weight)
        return self

    def _before_update(self, X) -> None:
        """Adapt ``fit_`` to the validated batch ``X`` of a later :meth:`partial_fit`
        call before it is counted (nothing by default)."""

    # -- prediction ----------------------------------------------------------------------
    def predict_joint_log_proba(self, X):
        """``log P(c) + sum_i log p(x_i | c)`` of every row and class, (n_samples, n_classes)."""
        check_is_fitted(self)
        return self.fit_.joint_log_likelihood(self._validate(X, reset=False))

    def predict(self, X):
        """The class of largest posterior probability for every row of ``X``.

        A row whose likelihood is 0 under every class raises
        :class:`bayesnb.errors.ZeroLikelihoodError`, as :meth:`predict_proba` does."""
        check_is_fitted(self)
        return self.classes_[self.fit_.predict_index(self._validate(X, reset=False))]

    def predict_log_proba(self, X):
        """Log posterior class probabilities, columns in ``classes_`` order."""
        check_is_fitted(self)
        return self.fit_.predict_log_proba(self._validate(X, reset=False))

    def predict_proba(self, X):
        """Posterior class probabilities, columns in ``classes_`` order."""
        check_is_fitted(self)
        return self.fit_.predict_proba(self._validate(X, reset=False))

    # -- scikit-learn's fitted attributes: read from the fit's statistics and parameters --
    @property
    def class_count_(self) -> np.ndarray:
        """The (weighted) number of training rows of every class, (n_classes,)."""
        check_is_fitted(self)
        return self.fit_.class_counts

    @property
    def class_log_prior_(self) -> np.ndarray:
        """The log probability of every class, (n_classes,)."""
        check_is_fitted(self)
        return self.fit_.class_log_prob

    def _one_block(self):
        """The statistics and parameters of the fit's single block (the four
        scikit-learn-named classes declare one family over every column)."""
        check_is_fitted(self)
        return self.fit_.stats[0], self.fit_.block_params[0]

    # -- tags ------------------------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        features = getattr(self, "features", None)  # the subclasses have no `features`
        kind = features.kind if isinstance(features, Family) else None
        tags.input_tags.allow_nan = kind != "multinomial"
        inferred = hasattr(self, "features") and features is None  # sparse: Bernoulli or counts
        tags.input_tags.sparse = inferred or kind in ("bernoulli", "multinomial")
        tags.input_tags.positive_only = kind == "multinomial"
        return tags


def _check_alpha(alpha) -> float:
    if (
        not isinstance(alpha, numbers.Real)
        or isinstance(alpha, bool)
        or not np.isfinite(alpha)
        or alpha <= 0
    ):
        raise InputError(
            f"alpha must be a finite number > 0 (the prior pseudo-count of every value); "
            f"got {alpha!r}. For unsmoothed counts use estimate='ml'."
        )
    return float(alpha)


def _check_non_negative(X, name: str) -> None:
    values = X.data if sparse.issparse(X) else np.asarray(X)
    if values.size and np.nanmin(values) < 0:
        raise InputError(
            f"Negative values in data passed to {name} (input X): it needs counts or "
            f"category codes >= 0; got the minimum {np.nanmin(values)!r}. Shift or "
            "re-encode the features (e.g. with sklearn.preprocessing.OrdinalEncoder)."
        )


class BernoulliNB(NaiveBayesClassifier):
    """Bernoulli naive Bayes: Boolean features, each with a ``Beta(alpha, alpha)`` prior.

    Parameters
    ----------
    alpha : float, default 1.0
        Pseudo-count on each of 0 and 1 (``Beta(alpha, alpha)``).
    binarize : float or None, default 0.0
        Threshold: a value above it is 1, other values 0 (NaN stays missing).
        ``None`` expects ``X`` to hold 0/1 (or bool) already.
    estimate : {"ml", "map", "mean", "predictive"}, default "mean"
        ``"mean"`` is scikit-learn's smoothing, ``(n_c1 + alpha)/(n_c + 2 alpha)``.
    class_prior : Dirichlet, optional
        Prior over the class probabilities (default ``Dirichlet(1.0)``).
    class_estimate : str, default "ml"
        ``"ml"`` uses the class frequencies (scikit-learn's ``fit_prior=True``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnb.sklearn import BernoulliNB
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> clf = BernoulliNB(alpha=1.0).fit(X, ["a", "a", "b", "b"])
    >>> clf.fit_.params["X"].sel(class_label="a").values      # (2 + 1)/(2 + 2), (1 + 1)/(2 + 2)
    array([0.75, 0.5 ])
    """

    def __init__(
        self, alpha=1.0, binarize=0.0, estimate="mean", class_prior=None, class_estimate="ml"
    ):
        self.alpha = alpha
        self.binarize = binarize
        self.estimate = estimate
        self.class_prior = class_prior
        self.class_estimate = class_estimate

    _keeps_frames = False

    def _declaration(self, X):
        alpha = _check_alpha(self.alpha)
        return Bernoulli(Beta(alpha, alpha))

    @property
    def feature_count_(self) -> np.ndarray:
        """The (weighted) number of 1s of every class and feature, (n_classes, n_features)."""
        return self._one_block()[0]["counts"][..., 1]

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """``log P(x_j = 1 | class)``, (n_classes, n_features)."""
        return self._one_block()[1]["log_prob"][..., 1]

    def _prepare(self, X):
        t = self.binarize
        if t is None:
            return X
        if not isinstance(t, numbers.Real) or isinstance(t, bool) or not np.isfinite(t):
            raise InputError(
                f"binarize must be a finite number or None; got {t!r}. Give the threshold "
                "above which a value is 1 (e.g. 0.0), or None for X already 0/1."
            )
        if sparse.issparse(X):
            if t < 0:
                raise InputError(
                    f"binarize={t!r} < 0 would turn every implicit zero of the sparse X "
                    "into 1; use binarize >= 0 or a dense X."
                )
            X = sparse.csr_array(X, dtype=float, copy=True)
            X.data = (X.data > t).astype(float)
            X.eliminate_zeros()
            return X
        X = np.asarray(X, dtype=float)
        return np.where(np.isnan(X), np.nan, np.greater(X, t))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags


#: The most categories CategoricalNB infers for a feature from its largest code (a
#: larger code is almost surely not a category code, and its table would not fit).
MAX_CODES = 1 << 20


class CategoricalNB(NaiveBayesClassifier):
    """Categorical naive Bayes on integer-coded features, ``Dirichlet(alpha)`` priors.

    Feature ``j`` takes the values ``0 .. n_j - 1`` with
    ``n_j = max(X[:, j].max() + 1, min_categories[j])``, as in scikit-learn. A value
    outside that range at prediction time is treated like a missing one: its factor
    is left out. In :meth:`partial_fit`, ``n_j`` grows with the largest code of every
    batch so far, as in scikit-learn.

    Parameters
    ----------
    alpha : float, default 1.0
        Pseudo-count of every category.
    min_categories : int, array_like of int, or None
        Minimum number of categories of every feature (or of each).
    estimate : {"ml", "map", "mean", "predictive"}, default "mean"
    class_prior : Dirichlet, optional
    class_estimate : str, default "ml"

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnb.sklearn import CategoricalNB
    >>> X = np.array([[0], [0], [1], [2]])
    >>> clf = CategoricalNB(alpha=1.0).fit(X, [0, 0, 1, 1])
    >>> clf.fit_.params["x0"].sel(class_label=0).values        # (2+1)/(2+3), 1/5, 1/5
    array([0.6, 0.2, 0.2])
    """

    def __init__(
        self,
        alpha=1.0,
        min_categories=None,
        estimate="mean",
        class_prior=None,
        class_estimate="ml",
    ):
        self.alpha = alpha
        self.min_categories = min_categories
        self.estimate = estimate
        self.class_prior = class_prior
        self.class_estimate = class_estimate

    _keeps_frames = False
    _accept_sparse = False

    def _prepare(self, X):
        _check_non_negative(X, type(self).__name__)
        X = np.asarray(X)
        if X.dtype.kind == "b":  # False, True: the codes 0, 1
            X = X.astype(np.int64)
        elif X.dtype.kind == "f" and X.dtype != np.float64:  # float16/32 codes: exact
            X = X.astype(np.float64)
        if X.dtype.kind == "f":
            observed = X[~np.isnan(X)]
            if np.any(observed != np.floor(observed)):
                bad = observed[observed != np.floor(observed)][0]
                raise InputError(
                    f"CategoricalNB needs integer category codes in X; got {bad!r}. "
                    "Encode the categories first (e.g. sklearn.preprocessing.OrdinalEncoder)."
                )
        return X

    def _n_categories(self, X, *, later: bool = False) -> np.ndarray:
        """Every feature's number of categories: its largest code + 1, at least
        ``min_categories``. ``later``: a later batch of :meth:`partial_fit`, where a
        feature with no observed value (all NaN) has no code and is left as it is."""
        if X.dtype.kind == "f":
            empty = np.isnan(X).all(axis=0)
            if empty.any() and not later:
                raise InputError(
                    f"CategoricalNB: feature {int(np.flatnonzero(empty)[0])} of X has no "
                    "observed value (all NaN). Drop it."
                )
            top = np.full(X.shape[1], -1.0)
            top[~empty] = np.nanmax(X[:, ~empty], axis=0)
        else:
            top = X.max(axis=0)
        seen = (top + 1).astype(int)
        if np.any(seen > MAX_CODES):
            j = int(np.argmax(seen))
            raise InputError(
                f"CategoricalNB: feature {j} of X has the category code {int(top[j])}, so it "
                f"would take {int(seen[j])} categories (codes 0 .. {int(top[j])}), more than "
                f"{MAX_CODES}. Category codes must be small integers: encode the values "
                "first (e.g. sklearn.preprocessing.OrdinalEncoder)."
            )
        if self.min_categories is None:
            return seen
        minimum = np.asarray(self.min_categories)
        if minimum.dtype.kind not in "iu" or minimum.ndim > 1 or np.any(minimum < 1):
            raise InputError(
                "min_categories must be None, a positive integer or one positive integer "
                f"per feature; got {self.min_categories!r}."
            )
        if minimum.ndim == 1 and minimum.shape != (X.shape[1],):
            raise InputError(
                f"min_categories has {minimum.shape[0]} entries for {X.shape[1]} features; "
                "give one per feature or a single integer."
            )
        return np.maximum(seen, minimum)

    @property
    def category_count_(self) -> list:
        """Per feature, the (weighted) count of every category in every class: a list
        of (n_classes, n_categories_[j]) arrays."""
        check_is_fitted(self)
        return [st["counts"] for st in self.fit_.stats]

    @property
    def feature_log_prob_(self) -> list:
        """Per feature, ``log P(x_j = v | class)``: a list of (n_classes,
        n_categories_[j]) arrays."""
        check_is_fitted(self)
        return [p["log_prob"] for p in self.fit_.block_params]

    @property
    def n_categories_(self) -> np.ndarray:
        """The number of categories of every feature, (n_features,)."""
        check_is_fitted(self)
        return np.array([len(b.categories) for b in self.fit_.blocks], dtype=np.int64)

    def _declaration(self, X):
        alpha = _check_alpha(self.alpha)
        return {
            f"x{j}": Categorical(Dirichlet(alpha), categories=range(int(n)))
            for j, n in enumerate(self._n_categories(X))
        }

    def _before_update(self, X) -> None:
        """Widen the features whose codes in the batch ``X`` exceed those seen so far,
        as scikit-learn's CategoricalNB does in ``partial_fit``: feature ``j`` takes
        ``0 .. n_j - 1`` with ``n_j`` the largest code + 1 of every batch so far. The
        new categories get counts 0 until then, so under the symmetric
        ``Dirichlet(alpha)`` the batches still give what one fit on all their rows
        gives (a fit whose domains are those of all the rows)."""
        fit = self.fit_
        sizes = [len(block.categories) for block in fit.blocks]
        wanted = np.maximum(self._n_categories(X, later=True), sizes)
        if list(wanted) == sizes:
            return
        table = Table(X, feature_names=fit.feature_names)
        blocks, stats = [], []
        for block, st, size, n in zip(fit.blocks, fit.stats, sizes, wanted, strict=True):
            if n > size:
                data = table.take(block.columns)
                block = Categorical(block.prior, categories=range(int(n))).bind(
                    block.name, block.columns, data
                )
                st = {"counts": np.pad(st["counts"], [(0, 0), (0, int(n) - size)])}
            blocks.append(block)
            stats.append(st)
        with warnings.catch_warnings():  # the update that follows warns, if still due
            warnings.simplefilter("ignore", ZeroProbabilityWarning)
            wider = fit.with_statistics(stats=stats, class_counts=fit.class_counts, blocks=blocks)
        wider.training = fit.training
        self.fit_ = wider

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags


class GaussianNB(NaiveBayesClassifier):
    """Gaussian naive Bayes, with a Normal-Inverse-Gamma prior behind every feature.

    Parameters
    ----------
    estimate : {"ml", "map", "mean", "predictive"}, default "ml"
        ``"ml"`` is scikit-learn's estimator (without its ``var_smoothing``: a
        feature constant within a class is an error; use ``"map"`` or ``"mean"``
        there). ``"predictive"`` scores with Student-t posterior predictives.
    ddof : {0, 1}, default 0
        For ``"ml"``: variance over N (0) or N - 1 (1).
    prior : NormalInverseGamma, optional
        Prior of every feature's mean and variance (default: weak, scaled to the
        pooled data).
    class_prior : Dirichlet, optional
    class_estimate : str, default "ml"

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnb.sklearn import GaussianNB
    >>> X = np.array([[0.0], [2.0], [10.0], [14.0]])
    >>> clf = GaussianNB().fit(X, [0, 0, 1, 1])
    >>> clf.fit_.params["X_var"].values                   # ML: 1/N variances
    array([1., 4.])
    >>> clf.predict([[1.0], [11.0]])
    array([0, 1])
    """

    def __init__(self, estimate="ml", ddof=0, prior=None, class_prior=None, class_estimate="ml"):
        self.estimate = estimate
        self.ddof = ddof
        self.prior = prior
        self.class_prior = class_prior
        self.class_estimate = class_estimate

    _keeps_frames = False
    _accept_sparse = False

    def _declaration(self, X):
        return Gaussian(self.prior, ddof=self.ddof)

    @property
    def theta_(self) -> np.ndarray:
        """The mean of every class and feature, (n_classes, n_features)."""
        return self._one_block()[1]["mu"]

    @property
    def var_(self) -> np.ndarray:
        """The variance of every class and feature, (n_classes, n_features); with
        ``estimate="predictive"`` (a Student-t, no variance) an AttributeError."""
        params = self._one_block()[1]
        if "var" not in params:
            raise AttributeError(
                "var_: under estimate='predictive' every feature is a Student-t, whose "
                "scale is fit_.params['X_scale2']; no Gaussian variance is estimated."
            )
        return params["var"]

    @property
    def class_prior_(self) -> np.ndarray:
        """The probability of every class, (n_classes,)."""
        return np.exp(self.class_log_prior_)

    @property
    def epsilon_(self) -> float:
        """The variance added to every variance: 0 (no ``var_smoothing`` floor is
        added; the Bayesian estimates keep variances positive instead)."""
        check_is_fitted(self)
        return 0.0


class MultinomialNB(NaiveBayesClassifier):
    """Multinomial naive Bayes on counts (dense or sparse), ``Dirichlet(alpha)`` prior.

    Parameters
    ----------
    alpha : float, default 1.0
        Pseudo-count of every column. With ``estimate="mean"`` this is Laplace
        (``alpha=1``) or Lidstone smoothing, as in scikit-learn.
    estimate : {"ml", "map", "mean", "predictive"}, default "mean"
        ``"predictive"`` scores every row with the exact Dirichlet-multinomial.
    class_prior : Dirichlet, optional
    class_estimate : str, default "ml"

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnb.sklearn import MultinomialNB
    >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 4, 1]])
    >>> clf = MultinomialNB().fit(X, ["ham", "ham", "spam"])
    >>> clf.fit_.params["X"].sel(class_label="ham").values      # (5+1, 1+1, 1+1) / (7+3)
    array([0.6, 0.2, 0.2])
    """

    def __init__(self, alpha=1.0, estimate="mean", class_prior=None, class_estimate="ml"):
        self.alpha = alpha
        self.estimate = estimate
        self.class_prior = class_prior
        self.class_estimate = class_estimate

    _keeps_frames = False
    _allow_nan = False

    def _prepare(self, X):
        _check_non_negative(X, type(self).__name__)
        return X

    def _declaration(self, X):
        return Multinomial(Dirichlet(_check_alpha(self.alpha)))

    @property
    def feature_count_(self) -> np.ndarray:
        """The (weighted) count of every feature in every class, (n_classes, n_features)."""
        return self._one_block()[0]["counts"]

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """``log P(feature | class)``, (n_classes, n_features)."""
        return self._one_block()[1]["log_prob"]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.classifier_tags.poor_score = True
        return tags
