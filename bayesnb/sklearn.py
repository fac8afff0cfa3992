"""scikit-learn estimators on top of :class:`bayesnb.NaiveBayes`.

The classes here are thin: ``fit`` validates the input the scikit-learn way, builds
a :class:`bayesnb.NaiveBayes` from the estimator's parameters and keeps the
resulting :class:`bayesnb.NaiveBayesFit` in ``fit_``; the predictions are that
object's, and scikit-learn's fitted attributes (``class_count_``,
``feature_log_prob_``, ``theta_``, ...) are read from its statistics and parameters.
``partial_fit`` is the fit's sequential update. The classes work in
:class:`~sklearn.pipeline.Pipeline`, :class:`~sklearn.model_selection.GridSearchCV`
and :func:`~sklearn.model_selection.cross_val_score`.

:class:`NaiveBayesClassifier` takes any bayesnb declaration. The four others take
the parameters of the :mod:`sklearn.naive_bayes` classifiers of the same names, with
the same defaults and the same numbers: ``alpha`` is the concentration of a
symmetric Dirichlet (Beta) prior, and ``estimate="mean"`` with it is additive
smoothing, :math:`(n_{cv} + \\alpha) / (n_c + \\alpha V)`; ``fit_prior=True`` is
``class_estimate="ml"``, the class frequencies; ``class_prior=[...]`` (``priors`` of
:class:`GaussianNB`) and ``fit_prior=False`` fix the class probabilities (a
:class:`bayesnb.PointMass` class prior). The Bayesian parameters come on top:
``estimate`` (``"ml"``, ``"map"``, ``"mean"`` or ``"predictive"``), a
:class:`bayesnb.Dirichlet` ``class_prior`` with ``class_estimate``, and the
Normal-Inverse-Gamma ``prior`` of :class:`GaussianNB`. They are ordinary
parameters, so :class:`~sklearn.model_selection.GridSearchCV` can tune them.
"""

from __future__ import annotations

import contextlib
import copy
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

from bayesnb._data import Table, _default_names, check_labels
from bayesnb.errors import InputError, InputTypeError
from bayesnb.families import Bernoulli, Categorical, Family, Gaussian, Multinomial
from bayesnb.families._kernels import _plain, value_array
from bayesnb.naive_bayes import NaiveBayes
from bayesnb.priors import Beta, Dirichlet, PointMass, ZeroProbabilityWarning, check_estimate
from bayesnb.sufficient import merge_stats

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
    class_prior : Dirichlet, PointMass, array_like of shape (n_classes,), or None
        Prior over the class probabilities: a :class:`bayesnb.Dirichlet` is learnt
        from the class counts by ``class_estimate``; fixed probabilities (a
        :class:`bayesnb.PointMass`, or the probabilities themselves, as in
        scikit-learn, in the order of ``classes_``) are used as they are. ``None``:
        ``Dirichlet(1.0)``, or uniform probabilities when ``fit_prior=False``.
    fit_prior : bool, default True
        Whether the class probabilities are learnt from the data. ``False`` with
        ``class_prior=None`` fixes them uniform, as in scikit-learn.
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
    values are rejected. Unless ``features`` says otherwise, a sparse matrix is read
    as a block of Boolean features when every stored value is 0 or 1 (or NaN, a
    missing value), and as word counts (``bnb.Multinomial()``) otherwise; declare
    the family to fix it whatever the values (or use :class:`MultinomialNB`).

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

    def __init__(
        self, features=None, class_prior=None, fit_prior=True, estimate="mean", class_estimate=None
    ):
        self.features = features
        self.class_prior = class_prior
        self.fit_prior = fit_prior
        self.estimate = estimate
        self.class_estimate = class_estimate

    # -- hooks for the convenience subclasses -------------------------------------------
    def _declaration(self, X):
        """The bayesnb ``features`` declaration for the validated training ``X``."""
        return self.features

    def _check_params(self) -> None:
        """Type checks of the parameters (values are checked by bayesnb)."""
        if not isinstance(self.fit_prior, bool | np.bool_):
            raise InputTypeError(
                f"fit_prior must be True or False; got {self.fit_prior!r} "
                f"({type(self.fit_prior).__name__})."
            )
        check_estimate(self.estimate, "estimate")
        if self.class_estimate is not None:
            check_estimate(self.class_estimate, "class_estimate")

    def _given_class_prior(self):
        """The ``class_prior`` as given (``priors`` in :class:`GaussianNB`), and its name."""
        return self.class_prior, "class_prior"

    def _class_prior(self, n_classes: int):
        """The bayesnb class prior of a fit with ``n_classes`` classes: a Dirichlet to
        learn the probabilities from (``None``: the default ``Dirichlet(1.0)``) or a
        :class:`~bayesnb.PointMass` fixing them."""
        given, name = self._given_class_prior()
        if given is None:
            return None if self.fit_prior else PointMass(np.full(n_classes, 1.0 / n_classes))
        if isinstance(given, Dirichlet):
            if not self.fit_prior:
                raise InputError(
                    f"fit_prior=False fixes uniform class probabilities, but {name}={given!r} "
                    "asks to learn them from the class counts; give one or the other."
                )
            return given
        if isinstance(given, PointMass):
            return given
        try:
            probs = None if isinstance(given, str) else np.asarray(given)
        except ValueError:  # a ragged nesting of lists
            probs = None
        if probs is None or probs.dtype.kind not in "iuf" or probs.ndim != 1:
            raise InputTypeError(
                f"{name} must be a bnb.Dirichlet (a prior to learn the class probabilities "
                "from), fixed probabilities (one per class, in the order of classes_, e.g. "
                f"[0.5, 0.5], or a bnb.PointMass), or None; got {given!r} "
                f"({type(given).__name__})."
            )
        return PointMass(probs)

    def _model(self, X, n_classes: int) -> NaiveBayes:
        """The bayesnb model of a first fit on the validated ``X``."""
        return NaiveBayes(self._declaration(X), class_prior=self._class_prior(n_classes))

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
    def _array_names(self, X) -> list | None:
        """The names of an array ``X``'s columns for the fit: those of the DataFrame it
        was made from (``feature_names_in_``), so that the fit's messages and
        ``params`` name them; None for a DataFrame, which names its own."""
        names = getattr(self, "feature_names_in_", None)
        return None if names is None or isinstance(X, pd.DataFrame) else [str(n) for n in names]

    def _validate(self, X, y=None, *, reset: bool):
        if self._keeps_frames and isinstance(X, pd.DataFrame):
            return self._validate_frame(X, y, reset=reset)
        frame_fit = not reset and self.fit_.is_frame
        if frame_fit and isinstance(X, list | tuple):
            # rows as lists: a frame keeps every column's type, where an array of them
            # would turn 3 next to "u" into the text "3"; its columns are the fit's, by
            # position (as an array's are)
            frame = pd.DataFrame(list(X))
            if frame.shape[1] == self.n_features_in_:
                out = self._validate_frame(frame, y, reset=False)
                X = (out if y is None else out[0]).set_axis(self.fit_.feature_names, axis=1)
                return X if y is None else (X, out[1])
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
        classes = np.unique(y)
        with _unseen_classes_quiet():
            self.fit_ = self._model(X, len(classes)).fit(
                X,
                y,
                estimate=self.estimate,
                class_estimate=self.class_estimate,
                sample_weight=_row_weights(sample_weight, X),
                feature_names=self._array_names(X),
            )
        self.classes_ = classes
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
        if not first and classes is not None and not _same_classes(classes, self.classes_):
            raise InputError(
                f"classes={classes!r} is not the same as on last call to partial_fit, "
                f"which fixed the classes {self.classes_.tolist()!r}. Give the same labels "
                "(each once), or leave classes out after the first call (fit starts over)."
            )
        self._check_params()
        check_labels(y)
        if first:
            stray = np.setdiff1d(np.unique(np.asarray(y, dtype=object)), np.asarray(classes))
            if stray.size:
                raise InputError(
                    f"The target label(s) {stray.tolist()!r} in y do not exist in the initial "
                    f"classes {list(classes)!r}. Pass every label in classes= on the first "
                    "call to partial_fit."
                )
        X, y = self._validate(X, y, reset=first)
        check_classification_targets(y)
        with _unseen_classes_quiet():
            if first:
                self.fit_ = self._model(X, len(classes)).fit(
                    X,
                    y,
                    estimate=self.estimate,
                    class_estimate=self.class_estimate,
                    sample_weight=_row_weights(sample_weight, X),
                    feature_names=self._array_names(X),
                    classes=classes,
                )
                self.classes_ = value_array(self.fit_.labels)
            else:
                self._before_update(X)
                self.fit_ = self.fit_.update(X, y, sample_weight=_row_weights(sample_weight, X))
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


@contextlib.contextmanager
def _unseen_classes_quiet():
    """Silence the warning that a class with no training weight has probability 0
    under ``class_estimate="ml"`` (scikit-learn's ``fit_prior=True``): scikit-learn
    allows such a class (e.g. a class of ``partial_fit``'s ``classes`` not seen yet),
    and it is then never predicted."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r".*the class prior probability 0", category=ZeroProbabilityWarning
        )
        yield


def _same_classes(classes, fitted: np.ndarray) -> bool:
    """Whether ``classes`` of a later :meth:`~NaiveBayesClassifier.partial_fit` call are
    the fitted classes, each once (in any order)."""
    given = np.asarray(classes, dtype=object).ravel()
    if given.shape != fitted.shape:
        return False
    try:
        return bool(np.all(np.sort(given) == np.asarray(fitted, dtype=object)))
    except TypeError:  # labels that do not sort together: not the fitted ones
        return False


#: The smallest pseudo-count ``force_alpha=False`` keeps (scikit-learn's value).
ALPHA_MIN = 1e-10


class _Smoothed:
    """``alpha`` and ``force_alpha`` of the discrete classifiers, as in scikit-learn."""

    #: Whether ``alpha`` may be one pseudo-count per feature.
    _alpha_per_feature = True

    def _check_alpha(self):
        """The pseudo-count(s) the fit uses: ``alpha`` checked (a number >= 0, or one
        per feature), and below :data:`ALPHA_MIN` raised to it, with a warning, when
        ``force_alpha=False``."""
        alpha = self.alpha
        name = type(self).__name__
        if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool):
            if not np.isfinite(alpha) or alpha < 0:
                raise InputError(
                    f"The 'alpha' parameter of {name} must be a finite number >= 0 (the "
                    f"prior pseudo-count of every value); got {alpha!r}."
                )
        elif self._alpha_per_feature and not isinstance(alpha, str | bool):
            alpha = np.asarray(alpha)
            if alpha.dtype.kind not in "iuf" or alpha.ndim != 1:
                raise InputError(
                    f"The 'alpha' parameter of {name} must be a number or a 1-D array of "
                    f"numbers, one per feature; got {self.alpha!r}."
                )
            alpha = alpha.astype(float)
            n_features = getattr(self, "n_features_in_", None)
            if n_features is not None and alpha.shape[0] != n_features:
                raise InputError(
                    "When alpha is an array, it should contains `n_features` values (one "
                    f"pseudo-count per feature, {n_features}); got {alpha.shape[0]}."
                )
            if not np.all(np.isfinite(alpha)) or np.any(alpha < 0):
                raise InputError(
                    f"All values in alpha must be greater than 0 (or equal to 0); got "
                    f"{alpha.tolist()!r}."
                )
        else:
            kind = "a number" if not self._alpha_per_feature else "a number or an array"
            raise InputTypeError(
                f"The 'alpha' parameter of {name} must be {kind}; got {alpha!r} "
                f"({type(alpha).__name__})."
            )
        if not isinstance(self.force_alpha, bool | np.bool_):
            raise InputTypeError(f"force_alpha must be True or False; got {self.force_alpha!r}.")
        if np.min(alpha) < ALPHA_MIN and not self.force_alpha:
            warnings.warn(
                f"alpha too small will result in numeric errors, setting alpha = {ALPHA_MIN:.1e}"
                " (force_alpha=False). Give alpha >= 1e-10, or force_alpha=True to keep it.",
                UserWarning,
                stacklevel=2,
            )
            return np.maximum(alpha, ALPHA_MIN)
        return alpha

    def _smoothing(self):
        """``(concentration, estimate)`` of the features' prior: the pseudo-counts of
        :meth:`_check_alpha`, with ``estimate`` None (the fit's own). ``alpha=0`` is no
        prior at all: the counts' frequencies, ``estimate="ml"`` (the same as the
        posterior mean as alpha goes to 0), under a ``Dirichlet(1)`` kept only for the
        Bayesian extras of ``fit_``."""
        alpha = np.asarray(self._check_alpha(), dtype=float)
        if np.all(alpha > 0):
            return (alpha.item() if alpha.ndim == 0 else alpha), None
        if np.any(alpha > 0):
            raise InputError(
                f"alpha={self.alpha!r} has zero entries next to positive ones; bayesnb's "
                "Dirichlet prior needs every pseudo-count > 0. Give force_alpha=False (zeros "
                "become 1e-10, as in scikit-learn) or alpha > 0 everywhere."
            )
        if self.estimate not in ("mean", "ml"):
            raise InputError(
                f"alpha=0 is no prior, so estimate={self.estimate!r} is undefined; give "
                "alpha > 0, or estimate='ml' (the unsmoothed frequencies alpha=0 gives)."
            )
        return 1.0, "ml"


def _check_non_negative(X, name: str) -> None:
    values = X.data if sparse.issparse(X) else np.asarray(X)
    if values.dtype.kind not in "biuf":  # e.g. a pandas categorical of text
        example = next((v for v in values.ravel() if not isinstance(v, numbers.Number)), None)
        raise InputError(
            f"{name} needs numbers in X (counts or category codes >= 0); got values of "
            f"dtype {values.dtype} such as {example!r}. Encode the features first (e.g. "
            "sklearn.preprocessing.OrdinalEncoder), or use NaiveBayesClassifier, which "
            "reads text and categorical columns as they are."
        )
    if values.size and np.nanmin(values) < 0:
        raise InputError(
            f"Negative values in data passed to {name} (input X): it needs counts or "
            f"category codes >= 0; got the minimum {np.nanmin(values)!r}. Shift or "
            "re-encode the features (e.g. with sklearn.preprocessing.OrdinalEncoder)."
        )


class BernoulliNB(_Smoothed, NaiveBayesClassifier):
    """Bernoulli naive Bayes: Boolean features, each with a ``Beta(alpha, alpha)`` prior.

    Parameters
    ----------
    alpha : float or array_like of shape (n_features,), default 1.0
        Pseudo-count on each of 0 and 1 (``Beta(alpha, alpha)``), or one per feature.
        ``0`` gives the unsmoothed frequencies (``estimate="ml"``).
    force_alpha : bool, default True
        ``False`` raises an alpha below 1e-10 to 1e-10, with a warning, as in
        scikit-learn.
    binarize : float or None, default 0.0
        Threshold: a value above it is 1, other values 0 (NaN stays missing).
        ``None`` expects ``X`` to hold 0/1 (or bool) already.
    fit_prior : bool, default True
        Learn the class probabilities (by ``class_estimate``); ``False`` fixes them
        uniform.
    class_prior : array_like of shape (n_classes,), Dirichlet, PointMass, or None
        Fixed class probabilities, or a Dirichlet prior over them (see
        :class:`NaiveBayesClassifier`).
    estimate : {"ml", "map", "mean", "predictive"}, default "mean"
        ``"mean"`` is scikit-learn's smoothing, ``(n_c1 + alpha)/(n_c + 2 alpha)``.
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
        self,
        alpha=1.0,
        force_alpha=True,
        binarize=0.0,
        fit_prior=True,
        class_prior=None,
        estimate="mean",
        class_estimate="ml",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.class_estimate = class_estimate

    _keeps_frames = False

    def _declaration(self, X):
        alpha, estimate = self._smoothing()
        if np.ndim(alpha):  # one per feature: the concentration (classes, features, 2)
            alpha = np.asarray(alpha)[None, :]
        return Bernoulli(Beta(alpha, alpha), estimate=estimate)

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
            X.data = np.where(np.isnan(X.data), np.nan, np.greater(X.data, t))  # NaN: missing
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


class CategoricalNB(_Smoothed, NaiveBayesClassifier):
    """Categorical naive Bayes on integer-coded features, ``Dirichlet(alpha)`` priors.

    Feature ``j`` takes the values ``0 .. n_j - 1`` with
    ``n_j = max(X[:, j].max() + 1, min_categories[j])``, as in scikit-learn. A value
    outside that range at prediction time is treated like a missing one: its factor
    is left out. In :meth:`partial_fit`, ``n_j`` grows with the largest code of every
    batch so far, as in scikit-learn. A non-integer value is read as scikit-learn
    reads it, as its integer part (2.7 is the category 2); a missing value (NaN) is
    marginalized.

    Parameters
    ----------
    alpha : float, default 1.0
        Pseudo-count of every category; ``0`` gives the unsmoothed frequencies.
    force_alpha : bool, default True
        ``False`` raises an alpha below 1e-10 to 1e-10, with a warning.
    fit_prior : bool, default True
    class_prior : array_like of shape (n_classes,), Dirichlet, PointMass, or None
    min_categories : int, array_like of int, or None
        Minimum number of categories of every feature (or of each).
    estimate : {"ml", "map", "mean", "predictive"}, default "mean"
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
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        min_categories=None,
        estimate="mean",
        class_estimate="ml",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.estimate = estimate
        self.class_estimate = class_estimate

    _keeps_frames = False
    _accept_sparse = False
    _alpha_per_feature = False

    def _prepare(self, X):
        _check_non_negative(X, type(self).__name__)
        X = np.asarray(X)
        if X.dtype.kind == "b":  # False, True: the codes 0, 1
            X = X.astype(np.int64)
        elif X.dtype.kind == "f" and X.dtype != np.float64:  # float16/32 codes: exact
            X = X.astype(np.float64)
        if X.dtype.kind == "f":  # scikit-learn's reading: the integer part (NaN stays)
            X = np.trunc(X)
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
        if np.any(top + 1 > MAX_CODES):  # compared as they are: past 2**63 a cast wraps
            j = int(np.argmax(top))
            code = _plain(top[j])
            raise InputError(
                f"CategoricalNB: feature {j} of X has the category code {code!r}; its codes "
                f"0 .. {code!r} would be more than {MAX_CODES} categories. Category codes "
                "must be small integers: encode the values first (e.g. "
                "sklearn.preprocessing.OrdinalEncoder)."
            )
        seen = (top + 1).astype(np.int64)
        if self.min_categories is None:
            return seen
        minimum = np.asarray(self.min_categories)
        if minimum.ndim > 1 or (minimum.ndim == 1 and minimum.shape != (X.shape[1],)):
            raise InputError(
                f"'min_categories' should have shape ({X.shape[1]},) when an array-like is "
                f"provided (one per feature); got shape {minimum.shape}. Give one integer "
                "per feature, or a single integer."
            )
        if minimum.dtype.kind not in "iu" or np.any(minimum < 1):
            raise InputError(
                "min_categories must be None, a positive integer or one positive integer "
                f"per feature; got {self.min_categories!r}."
            )
        if np.any(minimum > MAX_CODES):
            raise InputError(
                f"min_categories asks for up to {int(np.max(minimum))} categories, more than "
                f"{MAX_CODES} (a table of that many would not fit). Give at most {MAX_CODES}."
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
        alpha, estimate = self._smoothing()
        names = self._array_names(X) or _default_names(X.shape[1])
        return {
            name: Categorical(Dirichlet(alpha), categories=range(int(n)), estimate=estimate)
            for name, n in zip(names, self._n_categories(X), strict=True)
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
                block = Categorical(
                    block.prior, categories=range(int(n)), estimate=block.estimate
                ).bind(block.name, block.columns, data)
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
    priors : array_like of shape (n_classes,), optional
        Fixed class probabilities, as in scikit-learn (a
        :class:`bayesnb.PointMass` class prior); by default they are learnt.
    var_smoothing : float, default 1e-9
        scikit-learn's variance floor: ``epsilon_ = var_smoothing`` times the
        largest variance of a column over all the training rows (unweighted, NaN
        left out; over every batch of :meth:`partial_fit` so far) is added to every
        variance, so a feature constant within a class keeps a finite density.
    estimate : {"ml", "map", "mean", "predictive"}, default "ml"
        ``"ml"`` is scikit-learn's estimator. ``"map"`` and ``"mean"`` borrow
        strength from the prior (on digits, ``estimate="map"`` scores 0.859 in
        10-fold cross-validation against 0.811); ``"predictive"`` scores with
        Student-t posterior predictives. A class with no training weight takes
        its prior's mode under ``"ml"``.
    ddof : {0, 1}, default 0
        For ``"ml"``: variance over N (0) or N - 1 (1).
    prior : NormalInverseGamma, optional
        Prior of every feature's mean and variance (default: weak, scaled to the
        data of every class).
    class_prior : Dirichlet, optional
        A Dirichlet prior over the class probabilities, learnt by
        ``class_estimate`` (the Bayesian alternative to ``priors``).
    class_estimate : str, default "ml"

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnb.sklearn import GaussianNB
    >>> X = np.array([[0.0], [2.0], [10.0], [14.0]])
    >>> clf = GaussianNB(var_smoothing=0.0).fit(X, [0, 0, 1, 1])
    >>> clf.var_                                       # ML: 1/N variances
    array([[1.],
           [4.]])
    >>> clf.predict([[1.0], [11.0]])
    array([0, 1])
    """

    def __init__(
        self,
        priors=None,
        var_smoothing=1e-9,
        estimate="ml",
        ddof=0,
        prior=None,
        class_prior=None,
        class_estimate="ml",
    ):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.estimate = estimate
        self.ddof = ddof
        self.prior = prior
        self.class_prior = class_prior
        self.class_estimate = class_estimate

    _keeps_frames = False
    _accept_sparse = False
    fit_prior = True  # scikit-learn's GaussianNB has no fit_prior: the probabilities are learnt

    def _given_class_prior(self):
        if self.priors is not None and self.class_prior is not None:
            raise InputError(
                f"GaussianNB got both priors={self.priors!r} (fixed class probabilities) "
                f"and class_prior={self.class_prior!r} (a prior to learn them from); give "
                "one of them."
            )
        if self.priors is not None:
            return PointMass(self.priors), "priors"
        return self.class_prior, "class_prior"

    def _check_params(self) -> None:
        super()._check_params()
        v = self.var_smoothing
        if not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v) or v < 0:
            raise InputError(
                f"var_smoothing must be a finite number >= 0 (the fraction of the largest "
                f"column variance added to every variance); got {v!r}. Use 0.0 for none."
            )

    def _validate(self, X, y=None, *, reset: bool):
        out = super()._validate(X, y, reset=reset)
        if reset:  # scikit-learn's fitted attributes keep a float32 X's dtype
            x = out[0] if isinstance(out, tuple) else out
            self._dtype = np.float32 if x.dtype == np.float32 else np.float64
        return out

    def _declaration(self, X):
        self._moments = _column_moments(X, names=self._array_names(X))
        return Gaussian(self.prior, ddof=self.ddof, var_floor=self._epsilon())

    def _epsilon(self) -> float:
        """``var_smoothing`` times the largest column variance of the rows so far."""
        with np.errstate(invalid="ignore", divide="ignore"):
            var = self._moments["ss"] / self._moments["n"]
        observed = var[np.isfinite(var)]
        return float(self.var_smoothing * observed.max()) if observed.size else 0.0

    def _before_update(self, X) -> None:
        """Merge the batch into the columns' moments and, if ``epsilon_`` changes,
        re-estimate the fit so far with the new floor (the batch is counted next)."""
        self._moments = merge_stats(
            self._moments, _column_moments(X, names=self.fit_.feature_names)
        )
        epsilon = self._epsilon()
        fit = self.fit_
        if epsilon == fit.blocks[0].var_floor:
            return
        block = copy.copy(fit.blocks[0])
        block.var_floor = epsilon
        wider = fit.with_statistics(stats=fit.stats, class_counts=fit.class_counts, blocks=[block])
        wider.training = fit.training
        self.fit_ = wider

    @staticmethod
    def _update_mean_variance(n_past, mu, var, X, sample_weight=None):
        """The mean and variance of every column of ``n_past`` rows (of mean ``mu`` and
        variance ``var``) and the rows of ``X`` together (scikit-learn's helper of the
        same name; ``sample_weight`` weighs the new rows)."""
        X = np.asarray(X, dtype=float)
        if X.shape[0] == 0:
            return mu, var
        n_past = np.broadcast_to(np.asarray(n_past, float), np.shape(mu))
        past = {"n": n_past, "mean": np.asarray(mu, float), "ss": n_past * var}
        total = merge_stats(past, _column_moments(X, sample_weight))
        return total["mean"][0], total["ss"][0] / total["n"][0]

    def _attribute(self, values) -> np.ndarray:
        return np.asarray(values).astype(self._dtype, copy=False)

    @property
    def theta_(self) -> np.ndarray:
        """The mean of every class and feature, (n_classes, n_features)."""
        return self._attribute(self._one_block()[1]["mu"])

    @property
    def var_(self) -> np.ndarray:
        """The variance of every class and feature (``epsilon_`` included),
        (n_classes, n_features); with ``estimate="predictive"`` (a Student-t, no
        variance) an AttributeError."""
        params = self._one_block()[1]
        if "var" not in params:
            raise AttributeError(
                "var_: under estimate='predictive' every feature is a Student-t, whose "
                "scale is fit_.params['X_scale2']; no Gaussian variance is estimated."
            )
        return self._attribute(params["var"])

    @property
    def class_prior_(self) -> np.ndarray:
        """The probability of every class, (n_classes,)."""
        return self._attribute(np.exp(self.class_log_prior_))

    @property
    def epsilon_(self) -> float:
        """The variance added to every variance (see ``var_smoothing``)."""
        check_is_fitted(self)
        return self.fit_.blocks[0].var_floor


def _row_weights(sample_weight, X):
    """``sample_weight`` with a single number spread over the rows of ``X``, as
    scikit-learn reads it."""
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, bool):
        return np.full(X.shape[0], float(sample_weight))
    return sample_weight


def _column_moments(X, sample_weight=None, names=None) -> dict:
    """``{"n", "mean", "ss"}`` (1, d) of the columns of ``X`` (named ``names``, by
    default as the fit names an array's), all its rows one class: the Gaussian
    family's own statistics (missing entries left out), which
    :func:`bayesnb.sufficient.merge_stats` merges batch by batch."""
    X = np.asarray(X, dtype=float)
    columns = list(names or _default_names(X.shape[1]))
    weights = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, float)
    # as responsibilities, not labels: a column whose spread the fit cannot take is
    # left to the fit, which names its feature and class
    family = Gaussian(columns=columns)
    family.name = "X"  # the one block of GaussianNB's fit
    return family.count(X, weights[:, None])


class MultinomialNB(_Smoothed, NaiveBayesClassifier):
    """Multinomial naive Bayes on counts (dense or sparse), ``Dirichlet(alpha)`` prior.

    Parameters
    ----------
    alpha : float or array_like of shape (n_features,), default 1.0
        Pseudo-count of every column (or of each). With ``estimate="mean"`` this is
        Laplace (``alpha=1``) or Lidstone smoothing, as in scikit-learn; ``0`` gives
        the unsmoothed frequencies.
    force_alpha : bool, default True
        ``False`` raises an alpha below 1e-10 to 1e-10, with a warning.
    fit_prior : bool, default True
    class_prior : array_like of shape (n_classes,), Dirichlet, PointMass, or None
    estimate : {"ml", "map", "mean", "predictive"}, default "mean"
        ``"predictive"`` scores every row with the exact Dirichlet-multinomial.
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

    def __init__(
        self,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        estimate="mean",
        class_estimate="ml",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.estimate = estimate
        self.class_estimate = class_estimate

    _keeps_frames = False
    _allow_nan = False

    def _prepare(self, X):
        _check_non_negative(X, type(self).__name__)
        return X

    def _declaration(self, X):
        alpha, estimate = self._smoothing()
        return Multinomial(Dirichlet(alpha), estimate=estimate)

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
