"""scikit-learn's own naive Bayes test suite, run on the bayesnb drop-ins.

The installed ``sklearn/tests/test_naive_bayes.py`` is read as it is, and only its
import of the classifiers is changed: ``BernoulliNB``, ``CategoricalNB``,
``GaussianNB`` and ``MultinomialNB`` come from :mod:`bayesnb.sklearn`, while
``ComplementNB`` (which bayesnb does not provide) stays scikit-learn's. Every test
it defines is then collected here, so the suite follows the installed scikit-learn
version. The two fixtures scikit-learn's ``conftest.py`` provides are given below
with its defaults, and the file runs under scikit-learn's warning policy (its
strictest, ``SKLEARN_WARNINGS_AS_ERRORS=1``: deprecations are errors, a UserWarning
such as its own "alpha too small" is not) in place of bayesnb's "every warning is an
error".
"""

import importlib
import importlib.util
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils._testing import get_pytest_filterwarning_lines

SOURCE = Path(importlib.util.find_spec("sklearn").origin).parent / "tests" / "test_naive_bayes.py"

_IMPORT = re.compile(r"from sklearn\.naive_bayes import \((?P<names>[^)]*)\)", re.S)
_OURS = {"BernoulliNB", "CategoricalNB", "GaussianNB", "MultinomialNB"}


def _patched(source: str) -> str:
    """``source`` with the four classes imported from bayesnb (and nothing else changed)."""
    match = _IMPORT.search(source)
    assert match, f"no `from sklearn.naive_bayes import (...)` block in {SOURCE}"
    names = {n.strip() for n in match["names"].split(",") if n.strip()}
    assert names >= _OURS, f"{SOURCE} no longer imports {sorted(_OURS - names)}"
    theirs = sorted(names - _OURS)
    lines = [f"from bayesnb.sklearn import {', '.join(sorted(_OURS))}"]
    if theirs:
        lines.append(f"from sklearn.naive_bayes import {', '.join(theirs)}")
    return source[: match.start()] + "\n".join(lines) + source[match.end() :]


exec(compile(_patched(SOURCE.read_text()), str(SOURCE), "exec"), globals())


@pytest.fixture
def global_random_seed():
    """scikit-learn's default seed of its ``global_random_seed`` fixture."""
    return 42


@pytest.fixture(params=[np.float32, np.float64])
def global_dtype(request):
    """scikit-learn's ``global_dtype`` fixture (which runs float32 only on request)."""
    return request.param


def _category(name: str) -> type[Warning]:
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module or "builtins"), attr)


@pytest.fixture(autouse=True)
def scikit_learn_warning_policy():
    """scikit-learn's own warning filters for the test (``action:message:category``)."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for line in get_pytest_filterwarning_lines():
            action, rest = line.split(":", 1)
            message, _, category = rest.rpartition(":")
            warnings.filterwarnings(action, message, _category(category))
        yield
