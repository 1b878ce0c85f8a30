"""Per-layer and network figures: sums over kernels and layers, the honest roofline of a
multi-kernel layer, start cycles, and the CSV / DataFrame / Perfetto views of one result."""

from __future__ import annotations

import csv
import io

import pytest

from accelsim.network.model import Kernel, Layer, Network
from accelsim.network.perfetto import network_trace
from accelsim.network.results import NetworkResult


def _fig(cycles: int, roof: int, bound: str, busy: int) -> dict:
    return {"cycles": cycles, "roofline_cycles": roof, "roofline_bound": bound, "compute_busy_cycles": busy,
            "energy_pj": 2.5 * cycles, "dram_bytes_read": 10 * cycles, "dram_bytes_written": cycles,
            "dma_busy_cycles": 0, "macs": 0, "ops": 0, "compulsory_bytes": 0}


def _net() -> tuple[Network, dict]:
    layers = (
        Layer("a", "conv", "im2col+gemm", (Kernel("im2col:C=1,H=4,W=4,R=3,S=3"), Kernel("gemm:M=2,N=4,K=9")),
              "t:1", macs=72),
        Layer("b", "Reshape", "view", (), "t:2"),
        Layer("c", "gemm", "matmul", (Kernel("gemm:M=2,N=4,K=9"),), "t:3", macs=72),
    )
    figs = {"im2col:C=1,H=4,W=4,R=3,S=3": _fig(300, 100, "bandwidth", 0),
            "gemm:M=2,N=4,K=9": _fig(100, 80, "compute", 50)}
    return Network("n", "t", layers), figs


def test_sums_roofline_and_start_cycles() -> None:
    net, figs = _net()
    r = NetworkResult.build(net, figs, "default", "event", 1.0, {"wall_seconds": 1.0})
    a, b, c = r.layers
    assert (a.cycles, b.cycles, c.cycles) == (400, 0, 100)
    assert (a.start_cycle, b.start_cycle, c.start_cycle) == (0, 400, 400)
    assert a.figures["roofline_ratio"] == pytest.approx(400 / 180)
    assert a.figures["bound"] == "bandwidth"             # the kernel with the larger roofline time
    assert a.figures["compute_utilization"] == pytest.approx(50 / 400)
    assert b.figures["roofline_ratio"] is None and b.figures["bound"] == "-"
    t = r.totals()
    assert t["cycles"] == 500 and t["energy_pj"] == pytest.approx(1250.0)
    assert t["roofline_ratio"] == pytest.approx(500 / 260) and t["dram_bytes"] == 5500
    assert t["macs"] == 144


def test_views_of_one_result_agree() -> None:
    net, figs = _net()
    r = NetworkResult.build(net, figs, "default", "event", 2.0, {})
    rows = list(csv.DictReader(io.StringIO(r.to_csv())))
    assert [row["name"] for row in rows] == ["a", "b", "c"]
    assert [int(row["cycles"]) for row in rows] == [400, 0, 100]
    df = r.dataframe()
    assert list(df["cycles"]) == [400, 0, 100] and list(df["lowering"]) == ["im2col+gemm", "view", "matmul"]
    d = r.to_dict()
    assert d["cycles"] == 500 and [x["name"] for x in d["layers"]] == ["a", "b", "c"]
    slices = [e for e in network_trace(r)["traceEvents"] if e["ph"] == "X" and e["cat"] == "layer"]
    assert [(e["ts"], e["dur"]) for e in slices] == [(0.0, 0.2), (0.2, 0.0), (0.2, 0.05)]  # us at 2 GHz
    assert "a " in r.table() and "500" in r.table().replace(",", "")


def test_mac_bound_is_the_macs_over_every_array_of_the_machine() -> None:
    """The MAC bound in closed form: ceil(MACs / (clusters x one array's MACs a cycle)), the
    schedule's cycles against it, in the totals, the JSON and the text."""
    from accelsim.config import load_config

    cfg = load_config("cluster16")
    peak = cfg.clusters * cfg.compute.macs_per_cycle
    macs = 3 * peak * 1000 + 7                      # not a multiple: the bound rounds up
    fig = {**_fig(5000, 4000, "compute", 4000), "macs": macs, "peak_macs_per_cycle": peak}
    net = Network("n", "t", (Layer("g", "gemm", "matmul", (Kernel("gemm:M=2,N=4,K=9"),), "t:1",
                                   macs=macs),))
    r = NetworkResult.build(net, {"gemm:M=2,N=4,K=9": fig}, "cluster16", "analytic", 1.0, {})
    t = r.totals()
    assert t["mac_bound_cycles"] == 3001 and t["peak_macs_per_cycle"] == 16 * 256 == peak
    assert t["mac_bound_ratio"] == pytest.approx(5000 / 3001)
    assert r.to_dict()["mac_bound_cycles"] == 3001
    assert "MAC bound: 3,001 cycles" in r.table() and "1.67x of it" in r.table()
    # no MAC (a vector-only network): no bound, no line
    net0, figs0 = _net()
    figs0 = {k: {**v, "macs": 0} for k, v in figs0.items()}
    r0 = NetworkResult.build(net0, figs0, "default", "event", 1.0, {})
    assert r0.totals()["mac_bound_cycles"] is None and "MAC bound" not in r0.table()
