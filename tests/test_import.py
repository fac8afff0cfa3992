"""``import bayesnb`` stays light: the libraries only some features need are imported
when those features run."""

import subprocess
import sys

HEAVY = (
    "sklearn",
    "pymc",
    "pytensor",
    "arviz",
    "matplotlib",
    "dask",
    "numba",
    "scipy.optimize",
    "scipy.sparse",
    "scipy.special",
)


def test_import_bayesnb_imports_none_of_the_heavy_libraries():
    code = (
        "import sys, bayesnb, bayesnb.datasets; "
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
