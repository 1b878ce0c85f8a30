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
               "--workers", "0", "--config", "cluster4", "--fidelity", fidelity)
    assert net["config"] == "cluster4"
    assert [layer["name"] for layer in net["layers"]] == ["c1", "p1"]
    assert net["cycles"] == sum(layer["cycles"] for layer in net["layers"])
    one = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only", "--json",
               "--workers", "0", "--config", "cluster4", "--set", "clusters=1",
               "--fidelity", fidelity)
    assert one["cycles"] != net["cycles"]
    for layer in net["layers"]:
        alone = _run(capsys, "run", layer["kernels"], "--target", "sim", "--timing-only", "--json",
                     "--config", "cluster4", "--fidelity", fidelity)
        assert alone["distribution"] in ("block", "block2d")
        assert layer["cycles"] == alone["cycles"], layer["name"]


def test_figures_a_cluster_run_does_not_give_are_null_not_zero(capsys, tmp_path: Path) -> None:
    """A many-cluster kernel run reports no DRAM read/write split and no energy: the network's
    layers and totals say so (null, "n/a"), where one cluster gives numbers."""
    topo = tmp_path / "tiny.csv"
    topo.write_text(TOPO)
    net = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only", "--json",
               "--workers", "0", "--config", "cluster4")
    for key in ("dram_bytes_read", "dram_bytes_written", "energy_pj"):
        assert net[key] is None and all(layer[key] is None for layer in net["layers"]), key
    one = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only", "--json",
               "--workers", "0", "--config", "cluster4", "--set", "clusters=1")
    assert one["dram_bytes_read"] > 0 and one["energy_pj"] > 0
    assert main(["run", str(topo), "--target", "sim", "--timing-only", "--workers", "0",
                 "--config", "cluster4"]) == 0
    out, _ = capsys.readouterr()
    total = next(line for line in out.splitlines() if line.startswith("total"))
    assert "n/a" in total
