"""The training notebook (examples/train_jass.ipynb) runs top to bottom, shortened through its
parameters, so that it never rots, and shows its learning curve inline. Needs nbformat,
nbclient, ipykernel, matplotlib and torch (scripts/test-all.sh installs them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "train_jass.ipynb"


def test_the_notebook_is_committed_without_outputs() -> None:
    if not NOTEBOOK.is_file():
        pytest.skip("examples/ is not next to the tests")
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] == "code":
            assert not cell["outputs"] and cell["execution_count"] is None


def test_the_training_notebook_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not NOTEBOOK.is_file():
        pytest.skip("examples/ is not next to the tests")
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    pytest.importorskip("torch")
    plot = tmp_path / "plot.png"
    # The kernel inherits the environment: a short run with the same code paths.
    monkeypatch.setenv("CARDHOUSE_NOTEBOOK_MINUTES", "0.15")
    monkeypatch.setenv("CARDHOUSE_NOTEBOOK_EVAL_SETS", "32")
    monkeypatch.setenv("CARDHOUSE_NOTEBOOK_ISMCTS_SETS", "2")
    monkeypatch.setenv("CARDHOUSE_NOTEBOOK_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setenv("CARDHOUSE_NOTEBOOK_PLOT", str(plot))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    source = "".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert 'matplotlib.use("Agg")' not in source, "the figure must show inline"
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    text = "".join(
        output.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "trained vs     random: win rate" in text
    assert "trained vs  heuristic: win rate" in text
    assert "trained vs the shipped policy:jass" in text
    assert plot.is_file() and plot.stat().st_size > 0
    # The learning curve is displayed inline (a PNG in the cell's outputs).
    images = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "image/png" in output.get("data", {})
    ]
    assert images, "no inline figure"
