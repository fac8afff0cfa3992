"""The documentation site builds in strict mode, its API reference shows the public API,
and its examples run.

``mkdocs build --strict`` (mkdocs-material, mkdocstrings with the numpy docstring style,
mkdocs-jupyter rendering the stored notebooks) must succeed without a single warning.
The API reference has one page per module of ``tests/public_api.py``; every public name
must have its anchor there (``bayesnb.NaiveBayes``, ``bayesnb.bayesnet.ic``), and a
module page must show no top-level name outside the module's ``__all__``. Every
``python`` block of the pages under ``docs/`` runs as written, in a fresh namespace.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

for _plugin in ("mkdocs", "material", "mkdocstrings_handlers.python", "mkdocs_jupyter"):
    pytest.importorskip(_plugin)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from public_api import PUBLIC_MODULES, public_objects  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ANCHOR = re.compile(r'\sid="([^"]+)"')


def _page(module_name: str) -> str:
    """The API page of a module: ``api/bayesnb/`` for the package, else its last name."""
    return "bayesnb" if module_name == "bayesnb" else module_name.rsplit(".", 1)[-1]


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    # Material prints a notice about its successor unless this is set; the notice
    # itself mentions "WARNING" and is not a warning of the build
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return result, site


@pytest.fixture
def public_names(monkeypatch):
    """``(module, name)`` of every public name, as ``public_objects()`` lists them.

    A module that has no ``__all__`` yet is taken to export the functions and classes
    it defines without a leading underscore, which is what the reference shows of it.
    """
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        if not hasattr(module, "__all__"):
            defined = [
                name
                for name, obj in vars(module).items()
                if not name.startswith("_")
                and (inspect.isfunction(obj) or inspect.isclass(obj))
                and obj.__module__ == module_name
            ]
            monkeypatch.setattr(module, "__all__", defined, raising=False)
    return [(module_name, name) for module_name, name, _ in public_objects()]


def test_the_site_builds_strictly_without_warnings(build):
    result, site = build
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output, output
    assert (site / "index.html").is_file()


def test_every_public_name_is_in_the_api_reference(build, public_names):
    _, site = build
    anchors = set()
    for page in (site / "api").rglob("index.html"):
        anchors.update(ANCHOR.findall(page.read_text(encoding="utf-8")))
    missing = [f"{module}.{name}" for module, name in public_names]
    missing = [anchor for anchor in missing if anchor not in anchors]
    assert not missing, f"not in the API reference: {missing}"


def test_a_module_page_shows_only_its_public_names(build, public_names):
    _, site = build
    exported = {}
    for module_name in PUBLIC_MODULES:
        exported[module_name] = set(importlib.import_module(module_name).__all__)
    for module_name, names in exported.items():
        html = (site / "api" / _page(module_name) / "index.html").read_text(encoding="utf-8")
        prefix = module_name + "."
        shown = {
            anchor.removeprefix(prefix)
            for anchor in ANCHOR.findall(html)
            if anchor.startswith(prefix) and "." not in anchor.removeprefix(prefix)
        }
        assert shown <= names, f"{module_name}: not in __all__: {sorted(shown - names)}"


# ----------------------------------------------------------------------------------------
# The pages' Python examples run as written
# ----------------------------------------------------------------------------------------

DOCS = ROOT / "docs"
# examples that sample with PyMC, start a Dask cluster or fit many mixtures (5 s or more)
SLOW_EXAMPLES = {
    "guide/bayes-nets.md": {3},
    "guide/clustering.md": {1},
    "guide/dask.md": {0, 1},
    "guide/gaussian-mixtures.md": {0},
    "guide/mcmc.md": {0, 1, 2},
}


def _examples():
    for page in sorted(DOCS.rglob("*.md")):
        name = page.relative_to(DOCS).as_posix()
        blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
        for i, code in enumerate(blocks):
            marks = [pytest.mark.slow] if i in SLOW_EXAMPLES.get(name, ()) else []
            yield pytest.param(name, code, id=f"{name}:{i}", marks=marks)


@pytest.mark.parametrize(("page", "code"), list(_examples()))
def test_documentation_example_runs(page, code, tmp_path, monkeypatch):
    from sklearn.exceptions import ConvergenceWarning

    from bayesnb import ZeroProbabilityWarning

    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        # the pages show maximum-likelihood fits and a one-iteration EM, and say so
        warnings.simplefilter("ignore", ZeroProbabilityWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        exec(compile(code, str(DOCS / page), "exec"), {"__name__": "__main__"})
