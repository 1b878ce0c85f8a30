"""examples/tutorial.ipynb runs top to bottom in a fresh kernel and
shows what its text promises: a 4-cluster chip, a kernel and a network run on it, a sweep of
six points, a plot."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "tutorial.ipynb"
BUDGET_S = 60  # the notebook says "under a minute"; the client times out at 3x that


def _text(cell) -> str:
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", ""))
        out.append(str(o.get("data", {}).get("text/plain", "")))
    return "".join(out)


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    env_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    start = time.perf_counter()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTHONPATH", env_path)  # the kernel and its `accelsim run` children import this tree
        client = nbclient.NotebookClient(nb, timeout=BUDGET_S * 3, kernel_name="python3",
                                         resources={"metadata": {"path": str(ROOT)}})
        client.execute()
    return nb, time.perf_counter() - start


def test_notebook_runs_without_errors(executed):
    nb, _seconds = executed
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    # its run time is a benchmark's business, not a unit test's (a loaded machine is slower)


def test_notebook_shows_chip_kernel_network_sweep_and_plot(executed):
    nb, _ = executed
    code = [c for c in nb.cells if c.cell_type == "code"]
    text = "\n".join(_text(c) for c in code)
    assert "clusters: 4" in text
    # the kernel ran on four clusters, each busy; the report is the CLI's, with its figures
    assert "clusters: 4," in _text(code[1])
    assert re.search(r"roofline ratio \d+\.\d\d, MAC utilization \d+%", _text(code[1]))
    busy = re.findall(r"^cluster (\d): busy ([\d,]+) cycles", text, re.M)
    assert [k for k, _ in busy] == ["0", "1", "2", "3"]
    assert all(int(b.replace(",", "")) > 0 for _, b in busy)
    # the network: one row per layer of the .layers list; the default schedule (auto) may
    # overlap layers on the four clusters, so the total lies between the longest layer and
    # the layer-by-layer sum
    net = _text(code[2])
    total = re.search(r"^([\d,]+) cycles$", net, re.M)
    rows = re.findall(r"^\d+\s+(\S+)\s+\S+\s+(\d+)\s", net, re.M)
    assert [name for name, _ in rows] == ["conv1", "conv1.relu", "fc"]
    assert total
    cycles = [int(c) for _, c in rows]
    assert max(cycles) <= int(total.group(1).replace(",", "")) <= sum(cycles)
    # the sweep: 3 SRAM sizes x 2 engine counts, every point ok; the plot is drawn inline
    table = _text(code[3])
    assert table.count(" ok ") == 6, table
    assert any("image/png" in o.get("data", {}) for o in code[4].get("outputs", []))
    assert "dma.engines" in _text(code[4])  # the Pareto front printed under the plot
