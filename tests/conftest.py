"""Shared test helpers."""

import contextlib
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def _script(relative: str):
    """The repository script at ``relative`` (e.g. ``"benchmarks/bench_em.py"``),
    imported as a module for the block: registered in ``sys.modules`` (dataclasses look
    their module up there) and removed afterwards."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.fixture(scope="session")
def repo_script():
    """``repo_script("benchmarks/x.py")``: a context manager giving that script as a module."""
    return _script
