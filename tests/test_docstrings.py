"""Every public function and class has a docstring with a runnable example.

The public names are those of ``tests/public_api.py`` (the ``__all__`` of every module
in ``PUBLIC_MODULES``), each object checked once, under the first module exporting it.
The examples themselves run as doctests (``--doctest-modules`` over ``bayesnb``); this
test checks that they exist.

Checked:

* every public function and class: its own docstring (not one inherited from a base
  class) has at least one doctest line (``>>>``), and at least one such line runs (is
  not marked ``+SKIP``). Exceptions and warnings count as classes: their example shows
  the misuse that raises them.
* every public class's user-facing methods (``USER_METHODS``, those defined on the
  class itself) have a docstring; one inherited from the method the override replaces
  counts, as ``help()`` shows it. The class's example is the bar; examples on methods
  are welcome but not required.

Skipped, with the reason:

* modules exported as names (``bayesnb.bayesnet``, ``bayesnb.datasets``,
  ``bayesnb.errors``, ``bayesnb.text`` in ``bayesnb.__all__``): a module is not a
  function or class, and its public names are checked under its own entry in
  ``PUBLIC_MODULES``;
* plain data (``bayesnb.text.TOKEN_PATTERN``, a regular expression string): a string
  carries no docstring of its own (``__doc__`` is ``str``'s); it is described where it
  is defined and in the module's docstring;
* the methods of the feature families (``Bernoulli``, ``Gaussian``, ... subclasses of
  ``bayesnb.families.Family``): users declare a family and hand it to ``NaiveBayes``;
  its methods (``encode``, ``count``, ``log_likelihood``, ``sample``, ...) are the
  kernel protocol the fits call, documented on ``Family``. The family classes
  themselves still need their example.
"""

from __future__ import annotations

import inspect
import re

import pytest
from public_api import public_objects

from bayesnb.families import Family

#: The methods users call on fits, estimators, priors and marginals.
USER_METHODS = (
    "fit",
    "partial_fit",
    "fit_transform",
    "transform",
    "predict",
    "predict_proba",
    "predict_log_proba",
    "cluster",
    "density",
    "posterior",
    "credible_interval",
    "predictive_interval",
    "posterior_predict",
    "log_evidence",
    "update",
    "score",
    "sample",
    "report",
    "save",
    "query",
    "joint",
    "log_prob",
    "mean",
    "std",
    "pdf",
    "ppf",
    "logpdf",
    "to_pymc",
)

_PROMPT = re.compile(r"^\s*>>> ", re.MULTILINE)
_SKIPPED_LINE = re.compile(r"#\s*doctest:.*\+SKIP")


def _documented():
    """``(id, object)`` of every public function and class."""
    out = []
    for module, name, obj in public_objects():
        if inspect.isclass(obj) or inspect.isfunction(obj):
            out.append(pytest.param(obj, id=f"{module}.{name}"))
    return out


def _own_docstring(obj) -> str:
    doc = vars(obj).get("__doc__") if inspect.isclass(obj) else obj.__doc__
    return inspect.cleandoc(doc) if doc else ""


PUBLIC = _documented()


def test_public_api_is_not_empty():
    names = {p.id for p in PUBLIC}
    assert len(names) > 50
    assert {"bayesnb.NaiveBayes", "bayesnb.plots.beta_estimates"} <= names


@pytest.mark.parametrize("obj", PUBLIC)
def test_docstring_has_an_example(obj, request):
    name = request.node.callspec.id
    doc = _own_docstring(obj)
    assert doc, f"{name} has no docstring of its own."
    prompts = [line for line in doc.splitlines() if _PROMPT.match(line)]
    assert prompts, (
        f"{name}'s docstring has no example: add an 'Examples' section with a doctest "
        "(a '>>> ' line)."
    )
    assert any(not _SKIPPED_LINE.search(line) for line in prompts), (
        f"{name}'s docstring has only skipped examples (+SKIP); give one that runs."
    )


#: The classes whose methods are checked: not the families (their methods are the
#: fits' protocol) nor the exceptions and warnings (no methods of their own).
CLASSES = [
    p
    for p in PUBLIC
    if inspect.isclass(p.values[0]) and not issubclass(p.values[0], Family | BaseException)
]


@pytest.mark.parametrize("obj", CLASSES)
def test_user_methods_have_docstrings(obj, request):
    name = request.node.callspec.id
    missing = [
        method
        for method in USER_METHODS
        if method in vars(obj) and not inspect.getdoc(getattr(obj, method))
    ]
    assert not missing, f"{name} has methods without a docstring: {missing}"
