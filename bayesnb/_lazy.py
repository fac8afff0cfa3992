"""scipy's submodules, imported when first used, so that ``import bayesnb`` does not
pay for them (about 0.2 s): ``from bayesnb._lazy import sparse, special`` gives
stand-ins whose attributes are the modules'.

``sparse.issparse(x)`` answers without importing :mod:`scipy.sparse` while nothing has
imported it: no sparse matrix can exist before it is.
"""

from __future__ import annotations

import importlib
import sys
import types


class _Lazy(types.ModuleType):
    """A stand-in for the module ``name``, imported on its first attribute read."""

    def __init__(self, name: str):
        super().__init__(name)
        self.__dict__["_module"] = None

    def _load(self):
        module = self.__dict__["_module"]
        if module is None:
            module = self.__dict__["_module"] = importlib.import_module(self.__name__)
        return module

    def __getattr__(self, attr: str):
        return getattr(self._load(), attr)


class _LazySparse(_Lazy):
    def issparse(self, x) -> bool:
        """:func:`scipy.sparse.issparse`, False at once while scipy.sparse is unimported."""
        if self.__dict__["_module"] is None and "scipy.sparse" not in sys.modules:
            return False
        return self._load().issparse(x)


special = _Lazy("scipy.special")
sparse = _LazySparse("scipy.sparse")
