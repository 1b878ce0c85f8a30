"""A network on a machine of several clusters: each layer's cycles equal its kernel run alone
by `accelsim run KERNEL --target sim --config cluster4` (both through
`accelsim.dse.cluster_run.run_clusters`), and the totals are the sums."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelsim.cli import main

TOPO = """Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,
c1, 10, 10, 3, 3, 4, 8, 1,
p1, 8, 8, 1, 1, 8, 16, 1,
"""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(list(argv)) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return json.loads(out)


@pytest.mark.parametrize("fidelity", ["event", "analytic"])
def test_layers_on_cluster4_equal_their_kernels_run_alone(capsys, tmp_path: Path, fidelity: str) -> None:
    topo = tmp_path / "tiny.csv"
    topo.write_text(TOPO)
    net = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only", "--json",
               "--workers", "0", "--config", "cluster4", "--fidelity", fidelity,
               "--schedule", "layer-by-layer")
    assert net["config"] == "cluster4"
    assert [layer["name"] for layer in net["layers"]] == ["c1", "p1"]
    assert net["cycles"] == sum(layer["cycles"] for layer in net["layers"])
    one = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only", "--json",
               "--workers", "0", "--config", "cluster4", "--set", "clusters=1",
               "--fidelity", fidelity, "--schedule", "layer-by-layer")
    assert one["cycles"] != net["cycles"]
    auto = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only", "--json",
                "--workers", "0", "--config", "cluster4", "--fidelity", fidelity)
    assert auto["cycles"] <= net["cycles"]  # auto is never worse than layer by layer
    for layer in net["layers"]:
        alone = _run(capsys, "run", layer["kernels"], "--target", "sim", "--timing-only", "--json",
                     "--config", "cluster4", "--fidelity", fidelity)
        assert alone["distribution"] in ("block", "block2d")
        assert layer["cycles"] == alone["cycles"], layer["name"]


LAYERS = """add vector_add:N=4096
mm gemm:M=64,N=48,K=32
norm softmax:M=32,N=64
"""


def test_cluster4_layers_have_dram_bytes_energy_and_utilization(capsys, tmp_path: Path) -> None:
    """Each layer's DRAM bytes on cluster4 are the sums of its clusters' (the interconnect's
    count per cluster and kind), equal the compulsory traffic and the one-cluster run's where
    the schedule moves each byte once (vector_add), and energy and utilization are numbers;
    the totals are the sums."""
    net_file = tmp_path / "tiny.layers"
    net_file.write_text(LAYERS)
    net = _run(capsys, "run", str(net_file), "--target", "sim", "--timing-only", "--json",
               "--workers", "0", "--config", "cluster4", "--schedule", "layer-by-layer")
    one = _run(capsys, "run", str(net_file), "--target", "sim", "--timing-only", "--json",
               "--workers", "0", "--config", "cluster4", "--set", "clusters=1")
    for layer, single in zip(net["layers"], one["layers"], strict=True):
        alone = _run(capsys, "run", layer["kernels"], "--target", "sim", "--timing-only", "--json",
                     "--config", "cluster4")
        rows = alone["clusters"]
        assert len(rows) == 4
        for kind in ("read", "written"):
            key = f"dram_bytes_{kind}"
            assert layer[key] == alone[key] == sum(r[key] for r in rows) > 0, (layer["name"], key)
        assert isinstance(layer["energy_pj"], float) and layer["energy_pj"] > 0
        busy = sum(r["busy_cycles"] for r in rows) / 4
        assert layer["compute_utilization"] == pytest.approx(busy / layer["cycles"])
        assert 0 < layer["compute_utilization"] <= 1
        assert isinstance(layer["roofline_ratio"], float) and layer["roofline_ratio"] >= 1
        if layer["name"] == "add":  # each element read and written once, on both machines
            n = 4096 * 4
            assert (layer["dram_bytes_read"], layer["dram_bytes_written"]) == (2 * n, n)
            assert (single["dram_bytes_read"], single["dram_bytes_written"]) == (2 * n, n)
            assert layer["compulsory_bytes"] == single["compulsory_bytes"] == 3 * n
    for key in ("dram_bytes_read", "dram_bytes_written", "energy_pj"):
        assert net[key] == pytest.approx(sum(layer[key] for layer in net["layers"])), key
    assert main(["run", str(net_file), "--target", "sim", "--timing-only", "--workers", "0",
                 "--config", "cluster4"]) == 0
    out, _ = capsys.readouterr()
    total = next(line for line in out.splitlines() if line.startswith("total"))
    assert "n/a" not in total
