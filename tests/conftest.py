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


@pytest.fixture
def worse_second_m_step(monkeypatch):
    """The Python engine's M-step sabotaged: its second M-step (the third estimate,
    after the start's) returns component weights pushed onto the first component,
    which lowers EM's objective."""
    import numpy as np

    import bayesnb.mixture as mixture

    real = mixture.estimate_all
    calls = {"n": 0}

    def sabotaged(*args, **kwargs):
        params, class_log_prob = real(*args, **kwargs)
        calls["n"] += 1
        if calls["n"] == 3:
            class_log_prob = np.log(np.full_like(class_log_prob, 1e-3))
            class_log_prob[0] = np.log1p(-1e-3 * (len(class_log_prob) - 1))
        return params, class_log_prob

    monkeypatch.setattr(mixture, "estimate_all", sabotaged)
