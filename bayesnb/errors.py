"""The package's own exceptions.

Each is also the built-in exception a caller would catch for the same fault
(``ValueError`` for a bad value, ``TypeError`` for a bad type), so scikit-learn's
conventions and existing ``except ValueError`` clauses keep working. Every message
names the parameter or column, says what was expected and what was received, and
gives the remedy.
"""

from __future__ import annotations


class BayesNBError(Exception):
    """Base class of every error bayesnb raises on purpose."""


class InputError(BayesNBError, ValueError):
    """A value the caller gave (data, labels, an option) that cannot be used."""


class InputTypeError(BayesNBError, TypeError):
    """An argument of the wrong type."""


class ModelFileError(BayesNBError, ValueError):
    """A file that is not a model bayesnb saved, or one that is damaged or inconsistent."""


class ZeroLikelihoodError(BayesNBError, ValueError):
    """A row that every class (or component) gives likelihood 0, so it has no posterior."""


class UnseenValuesWarning(UserWarning):
    """Every observed value of a column at prediction time lies outside the categories
    learnt in training, so the whole column is marginalized (it adds nothing to the
    prediction): usually a sign of a recoded or shifted column."""


__all__ = [
    "BayesNBError",
    "InputError",
    "InputTypeError",
    "ModelFileError",
    "UnseenValuesWarning",
    "ZeroLikelihoodError",
]
