"""Naive Bayes as a density estimator: ``p(x) = prod_i p(x_i)`` (seed 000, section 1).

A density is the classifier with one constant class: the same families, statistics,
estimators, kernels and exact posterior, fitted to every row as one class. Each
attribute is learnt like a histogram (a probability per value, per bin divided by its
width, or a Gaussian), and the independence assumption keeps the number of parameters
linear in the number of attributes where the full joint table grows as their product.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from bayesnb.errors import InputError, ModelFileError
from bayesnb.model import check_draw_count
from bayesnb.naive_bayes import NaiveBayesFit
from bayesnb.posterior import data_tree
from bayesnb.priors import random_generator

#: The one class every row of a density belongs to (hidden from ``params``).
CONSTANT_LABEL = "all"
#: The name of the variable the exact posterior's ``log_likelihood`` group holds.
DENSITY_TARGET = "density"


def drop_class(ds: xr.Dataset, dim: str) -> xr.Dataset:
    """``ds`` without the class: its one-entry ``dim`` squeezed out and ``class_prob``
    (identically 1) and the class codes (identically 0) dropped."""
    ds = ds.drop_vars([v for v in ("class_prob", DENSITY_TARGET) if v in ds.data_vars])
    if dim in ds.dims:
        ds = ds.squeeze(dim, drop=True)
    return ds


class DensityFit(NaiveBayesFit):
    """A naive Bayes density ``p(x) = prod_i p(x_i)``, fitted without labels.

    Made by :meth:`bayesnb.NaiveBayes.density` (or ``NaiveBayes().fit(X)`` with
    neither ``y`` nor ``target``). It is a classifier fitted with one constant class,
    so every family, estimator and the exact posterior are those of
    :class:`~bayesnb.NaiveBayesFit`; the class is hidden: :attr:`params`,
    :meth:`credible_interval` and :meth:`posterior` have no ``class_label`` dim and no
    ``class_prob`` (a class of probability 1 says nothing).

    Examples
    --------
    >>> import pandas as pd, bayesnb as bnb
    >>> X = pd.DataFrame({"a": [True, True, False, True]})
    >>> fit = bnb.NaiveBayes().density(X)          # (3 + 1) / (4 + 2)
    >>> round(float(fit.params["a"]), 12)
    0.666666666667
    >>> round(float(fit.log_density(X.iloc[[0]])[0]), 6)    # log(2/3)
    -0.405465
    """

    @classmethod
    def _check_saved_labels(cls, labels: list) -> None:
        """A density has the one constant class; a file that gives it other labels
        holds a classifier or a mixture whose ``model`` entry was changed."""
        if labels != [CONSTANT_LABEL]:
            raise ModelFileError(
                f"the file's 'model' entry says DensityFit, but its 'labels' are "
                f"{labels[:10]!r}; a density has the one class [{CONSTANT_LABEL!r}]. It is "
                "the file of a classifier or a mixture whose 'model' entry was changed. "
                "Save the density again (NaiveBayes().density(X).save(path)), or restore "
                "the entry to the kind that wrote the file."
            )

    # -- the density ---------------------------------------------------------------------
    def log_density(self, X) -> np.ndarray:
        """``log p(x)`` of every row, shape (n,): the sum over the features of
        ``log p(x_i)`` (a probability for a discrete value, a Binned bin's probability
        divided by its width, a Gaussian's density). A missing value is marginalized
        (it contributes 0); a value of probability 0 gives ``-inf``. A category never
        seen in training follows its family's ``unseen`` policy: under the default
        ``"marginalize"`` it contributes 0, like a missing value (so the density of
        that row is of its other features); declare ``Categorical(unseen="error")``
        to be told instead."""
        with np.errstate(over="ignore", invalid="ignore"):
            scores = self._scores(X)[:, 0]
        bad = np.isnan(scores) | np.isposinf(scores)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            detail, _ = self._explain(self.encode(X), row)
            raise InputError(
                f"log_density of row {row} is {scores[row]} (not a number): {detail} "
                "Check that row's values; a Gaussian with variance 0 (every training "
                "value equal) needs a prior or estimate='mean'."
            )
        return scores

    def score_samples(self, X) -> np.ndarray:
        """:meth:`log_density` (scikit-learn's name for it)."""
        return self.log_density(X)

    def score(self, X) -> float:
        """The mean log density of the rows of ``X`` (per row, as scikit-learn's); ``X``
        without rows is an error, as a mean of no rows is none."""
        scores = self.log_density(X)
        if not len(scores):
            raise InputError(
                "score averages the log density over the rows of X, and X has no rows; "
                "give at least one row (log_density(X) of no rows is an empty array)."
            )
        return float(np.mean(scores))

    def log_likelihood_rows(self, X) -> np.ndarray:
        return self.log_density(X)

    def sample(self, n: int, random_state=None):
        """Draw ``n`` rows, every feature independently from its fitted family.

        Returns
        -------
        DataFrame or ndarray
            A DataFrame with the training columns when the fit was on a DataFrame
            (labelled as in the training frame, e.g. the int ``0``; values in the
            data's coding, e.g. ``"y"``/``"n"``, a discrete feature's column in its
            training dtype, a continuous one in its float dtype when that was float32
            or pandas' ``Float64``, a Binned value uniform within its bin, as float64);
            else an array (n, features) in the training column order, numeric (the
            common type of the drawn columns) when every feature draws numbers, as
            from a numeric array, and of objects otherwise (categories that are text).
        """
        n = check_draw_count(n)
        rng = random_generator(random_state)
        columns = self._draw_features(np.zeros(n, dtype=np.intp), rng)  # the one class
        frame = pd.DataFrame({c: columns[c] for c in self.feature_names})
        if self.is_frame:
            return self._with_training_labels(frame)
        return _one_array(frame)

    # -- parameters ----------------------------------------------------------------------------
    #: The one class is no entry of a table (see FittedModel.parameter_counts): the
    #: density's counts are n against 2**n - 1 for n Boolean attributes.
    class_entries = False

    @property
    def params(self) -> xr.Dataset:
        """Estimated parameters of every feature, without a class dim."""
        return drop_class(super().params, self.label_dim)

    # -- the exact posterior, without the class --------------------------------------------
    def posterior(self, draws: int = 1000, chains: int = 4, random_state=None, *, data=True):
        """The exact conjugate posterior of every feature's parameters, as an ArviZ
        ``DataTree`` (see :meth:`bayesnb.NaiveBayesFit.posterior`), without the class:
        no ``class_label`` dim and no ``class_prob``. The ``log_likelihood`` group's
        variable is ``density``: ``log p(x_i | theta)`` of every training row."""
        tree = super().posterior(draws, chains, random_state, data=data)
        groups = {}
        for name, node in tree.children.items():
            ds = node.to_dataset()
            if name == "log_likelihood":
                ds = ds.squeeze(self.label_dim, drop=True) if self.label_dim in ds.dims else ds
            else:
                ds = drop_class(ds, self.label_dim)
            groups[name] = ds
        return data_tree(groups)

    def credible_interval(self, prob: float | None = None, kind: str = "eti") -> xr.Dataset:
        """Every feature parameter's credible interval from its exact marginal
        posterior (see :meth:`bayesnb.NaiveBayesFit.credible_interval`), without the
        class."""
        return drop_class(super().credible_interval(prob, kind), self.label_dim)

    # -- what a classifier has and a density has not ---------------------------------------
    def _no_classes(self, what: str):
        raise InputError(
            f"{what} needs classes; this is a density, fitted without labels (one "
            "implicit class). Fit a classifier with NaiveBayes().fit(X, y) or "
            "fit(X, target='column'), or cluster with NaiveBayes().cluster(X)."
        )

    def predict(self, X):
        self._no_classes("predict")

    def predict_proba(self, X):
        self._no_classes("predict_proba")

    def predict_log_proba(self, X):
        self._no_classes("predict_log_proba")

    def linear_weights(self):
        self._no_classes("linear_weights")

    def posterior_predict(self, X, draws=1000, chains=4, random_state=None):
        self._no_classes("posterior_predict")

    def predictive_interval(self, X, prob=None, kind="eti", **options):
        self._no_classes("predictive_interval")

    def update(self, X, y=None, *, target=None, sample_weight=None) -> DensityFit:
        """The density after one more batch of rows (exact sequential updating, see
        :meth:`bayesnb.NaiveBayesFit.update`); the batch has no labels."""
        if y is not None or target is not None:
            given = f"y={y!r:.60}" if y is not None else f"target={target!r}"
            raise InputError(
                f"update of a density takes no labels; got {given}. Give the batch's rows "
                "alone: fit.update(X)."
            )
        n = self._table(X).n_rows
        return super().update(X, [CONSTANT_LABEL] * n, sample_weight=sample_weight)


def _one_array(frame: pd.DataFrame) -> np.ndarray:
    """Drawn columns as one array, as a training array holds its rows: numbers (a
    discrete feature's categories drawn as objects, e.g. the ints of an integer
    array, typed by what they hold) in the columns' common numeric type, anything
    else (text) as objects."""
    typed = frame.infer_objects()
    dtypes = list(typed.dtypes)
    if dtypes and all(isinstance(d, np.dtype) and d.kind in "biuf" for d in dtypes):
        return typed.to_numpy(dtype=np.result_type(*dtypes))
    return frame.to_numpy()
