"""The many-cluster figure script redraws a saved run: `--json` rows back into a result whose
rows, clusters and totals are the saved ones, and the figure has a lane per cluster."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelsim.network.results import LayerResult, NetworkResult
from accelsim.network.zoo import load_network
from plots.pipelined_figures import main, result_from_json

TOPO = """Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,
c1, 10, 10, 3, 3, 4, 8, 1,
c2, 8, 8, 1, 1, 8, 16, 1,
"""


def _fig(cycles: int) -> dict:
    return {"cycles": cycles, "energy_pj": 1.0, "dram_bytes_read": None, "dram_bytes_written": None,
            "dram_bytes": 10, "roofline_cycles": cycles // 2, "compute_busy_cycles": None,
            "dma_busy_cycles": None, "macs": 100, "ops": 200, "compulsory_bytes": 5,
            "compute_utilization": None, "mac_utilization": 0.5, "roofline_ratio": 2.0,
            "bound": "compute", "mapping_efficiency": None, "precision": None}


def test_a_saved_run_redraws_with_its_rows_and_a_lane_per_cluster(tmp_path: Path) -> None:
    path = tmp_path / "tiny.csv"
    path.write_text(TOPO)
    net = load_network(str(path))
    rows = (LayerResult(net.layers[0], 0, _fig(300), cluster="0-1", end=300),
            LayerResult(net.layers[1], 40, _fig(200), cluster="2-3", end=320))
    result = NetworkResult(net, rows, "cluster4", "analytic", 1.0, {}, schedule="pipelined")
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(result.to_dict()))
    again = result_from_json(json.loads(saved.read_text()))
    assert again.rows() == result.rows() and again.totals()["cycles"] == 320
    assert again.table().splitlines()[-4:] == [
        "cluster 0: 1 layer, busy 300 cycles (94% of the run)",
        "cluster 1: 1 layer, busy 300 cycles (94% of the run)",
        "cluster 2: 1 layer, busy 200 cycles (62% of the run)",
        "cluster 3: 1 layer, busy 200 cycles (62% of the run)"]
    assert main(["--from-json", str(saved), "--out", str(tmp_path)]) == 0
    assert (tmp_path / "tiny_cluster4_pipelined.png").stat().st_size > 0
    data = result.to_dict()
    data["layers"] = data["layers"][:1]
    with pytest.raises(ValueError, match="not the network's layers"):
        result_from_json(data)
