"""Every notebook under ``notebooks/`` runs top to bottom, and its figures render.

Each notebook is executed afresh in a kernel of this interpreter, from the
``notebooks/`` directory, so a notebook that no longer runs against the package fails
here. A notebook must produce at least one PNG figure (its plots come from
``bayesnb.plots``) and no error output. The notebooks stored in the repository keep
their outputs so that they read well when rendered; the test does not write them back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
# notebooks that sample with PyMC or start a Dask cluster: run in CI, marked slow
SLOW = {"06_em_against_mcmc.ipynb", "08_scaling_out.ipynb"}


def _params():
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        marks = [pytest.mark.slow] if path.name in SLOW else []
        yield pytest.param(path, id=path.stem, marks=marks)


def test_every_notebook_is_there():
    assert len(list(NOTEBOOKS.glob("*.ipynb"))) == 8


@pytest.mark.parametrize("path", list(_params()))
def test_notebook_runs_and_plots(path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=900,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    errors = [out for out in outputs if out.output_type == "error"]
    assert not errors, f"{path.name}: {errors[0].ename}: {errors[0].evalue}"
    images = [out for out in outputs if "image/png" in out.get("data", {})]
    assert images, f"{path.name} rendered no figure"
    # the stored copy carries its outputs, so that it reads well on the web
    stored = nbformat.read(path, as_version=4)
    code = [cell for cell in stored.cells if cell.cell_type == "code"]
    assert all(cell.get("execution_count") for cell in code), f"{path.name} is stored unexecuted"
