"""The package's public API: the modules a user imports, and the names each exports.

The public names of a module are its ``__all__``. The docstring test
(``tests/test_docstrings.py``) and the documentation build (``tests/test_docs.py``)
both read this list, so the API reference and the docstring examples cover the same
names.
"""

from __future__ import annotations

import importlib

PUBLIC_MODULES = [
    "bayesnb",
    "bayesnb.bayesnet",
    "bayesnb.cluster_reports",
    "bayesnb.completions",
    "bayesnb.dask",
    "bayesnb.datasets",
    "bayesnb.errors",
    "bayesnb.marginals",
    "bayesnb.model_choice",
    "bayesnb.plots",
    "bayesnb.pymc_model",
    "bayesnb.sklearn",
    "bayesnb.sufficient",
    "bayesnb.text",
]


def public_objects():
    """``(module name, name, object)`` for every public name, each object once, under
    the first module (in ``PUBLIC_MODULES`` order) that exports it."""
    seen = set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            yield module_name, name, obj
