"""The package's own exceptions.

Each is also the built-in exception a caller would catch for the same fault
(``ValueError`` for a bad value, ``TypeError`` for a bad type), so scikit-learn's
conventions and existing ``except ValueError`` clauses keep working. Every message
names the parameter or column, says what was expected and what was received, and
gives the remedy.
"""

from __future__ import annotations


class BayesNBError(Exception):
    """Base class of every error bayesnb raises on purpose.

    Catch it to tell the package's checks of your input from anything else that
    fails.

    Examples
    --------
    A file that ``fit.save`` did not write is refused with a
    :class:`ModelFileError`, one kind of ``BayesNBError``:

    >>> import tempfile
    >>> from pathlib import Path
    >>> import bayesnb as bnb
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "notes.txt"
    ...     _ = path.write_text("not a model")
    ...     try:
    ...         bnb.load(path)
    ...     except bnb.BayesNBError as err:
    ...         print(type(err).__name__)
    ModelFileError
    """


class InputError(BayesNBError, ValueError):
    """A value the caller gave (data, labels, an option) that cannot be used.

    It is a ``ValueError`` too, so existing ``except ValueError`` clauses catch it.

    Examples
    --------
    Naming a class column the data does not have:

    >>> import bayesnb as bnb
    >>> tennis = bnb.datasets.play_tennis()
    >>> try:
    ...     bnb.NaiveBayes().fit(tennis, target="weather")
    ... except ValueError as err:
    ...     print(type(err).__name__, "-", str(err).split(";")[0])
    InputError - target='weather' is not a column of X
    """


class InputTypeError(BayesNBError, TypeError):
    """An argument of the wrong type.

    It is a ``TypeError`` too.

    Examples
    --------
    Pseudo-counts of the classes must come wrapped in a prior, not as a bare list:

    >>> import bayesnb as bnb
    >>> try:
    ...     bnb.NaiveBayes(class_prior=[2.0, 1.0])
    ... except TypeError as err:
    ...     print(type(err).__name__)
    InputTypeError
    >>> bnb.NaiveBayes(class_prior=bnb.Dirichlet([2.0, 1.0])).class_prior
    Dirichlet([2.0, 1.0])
    """


class ModelFileError(BayesNBError, ValueError):
    """A file that is not a model bayesnb saved, or one that is damaged or inconsistent.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import bayesnb as bnb
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "model.nc"
    ...     _ = path.write_bytes(b"damaged")
    ...     try:
    ...         bnb.load(path)
    ...     except bnb.ModelFileError as err:
    ...         print("is not a netCDF-3 file" in str(err), "save the model again" in str(err))
    True True
    """


class ZeroLikelihoodError(BayesNBError, ValueError):
    """A row that every class (or component) gives likelihood 0, so it has no posterior.

    Examples
    --------
    Seed 003's two Boolean features, with EM started where both components give
    ``X2 = True`` probability 1 under maximum likelihood: the row with
    ``X2 = False`` is impossible under either.

    >>> import pandas as pd
    >>> import bayesnb as bnb
    >>> from bayesnb.completions import seed_003_example
    >>> model, _, start = seed_003_example()
    >>> start["X2"] = ("component", [1.0, 1.0])
    >>> data = pd.DataFrame({"X1": [False, True], "X2": [False, True]})
    >>> try:
    ...     model.cluster(data, ["F", "T"], init=start, estimate="ml")
    ... except bnb.ZeroLikelihoodError as err:
    ...     print(str(err).split(":")[0])
    row 0 has likelihood 0 under every component
    """


class UnseenValuesWarning(UserWarning):
    """Every observed value of a column at prediction time lies outside the categories
    learnt in training, so the whole column is marginalized (it adds nothing to the
    prediction): usually a sign of a recoded or shifted column.

    Examples
    --------
    The outlook recoded after training (``"Sun"`` for ``"Sunny"``):

    >>> import warnings
    >>> import bayesnb as bnb
    >>> from bayesnb.errors import UnseenValuesWarning
    >>> tennis = bnb.datasets.play_tennis()
    >>> fit = bnb.NaiveBayes().fit(tennis, target="play")
    >>> recoded = tennis.drop(columns="play").head(2).assign(outlook=["Sun", "Sun"])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     labels = fit.predict(recoded)
    >>> [w.category is UnseenValuesWarning for w in caught]
    [True]
    """


__all__ = [
    "BayesNBError",
    "InputError",
    "InputTypeError",
    "ModelFileError",
    "UnseenValuesWarning",
    "ZeroLikelihoodError",
]
