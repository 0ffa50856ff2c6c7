"""The notebooks of notebooks/ (jupytext percent sources): each is converted and executed in
a fresh Jupyter kernel; an error, or a failed check of an exercise's answer, fails it."""

from __future__ import annotations

import base64
import os
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("[0-9]*.py"))
CHAPTERS = ["online_game_perceptron", "halving_weighted_majority", "margins_svm_duality",
            "sgd_pegasos", "kernels", "vc_dimension", "erm_lp_logistic"]


def test_one_notebook_per_chapter():
    assert [p.stem.split("_", 1)[1] for p in NOTEBOOKS] == CHAPTERS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path):
    jupytext = pytest.importorskip("jupytext")
    from nbclient import NotebookClient

    notebook = jupytext.read(path)
    src = str(pathlib.Path(__file__).parent.parent / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(  # the sources under test
        [src, *filter(None, [os.environ.get("PYTHONPATH")])]),
        "MPLBACKEND": "module://matplotlib_inline.backend_inline"}  # figures as outputs
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute(env=env)
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    images = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
    assert not any(o.get("output_type") == "error" for o in outputs)
    if path.stem != "06_vc_dimension":  # the others draw with halfspaces.plotting
        assert images
    out = os.environ.get("NOTEBOOK_FIGURES")  # to look at the figures
    for i, image in enumerate(images if out else []):
        (pathlib.Path(out) / f"{path.stem}_{i}.png").write_bytes(base64.b64decode(image))
