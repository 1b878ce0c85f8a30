"""`--schedule pipelined` (accelsim/network/pipelined.py): a group's share of the machine, the
row models read from kernel specs, the layer each layer streams from, and a whole run on
cluster4 whose rows, Perfetto cluster tracks and timeline lanes agree with its plan."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from accelsim.config import load_config
from accelsim.network.model import Kernel, Layer, Network
from accelsim.network.perfetto import CLUSTERS_PID, network_trace
from accelsim.network.pipeline_model import cluster_span
from accelsim.network.pipelined import (
    group_overrides,
    group_sizes,
    layer_rows,
    output_bytes,
    producers,
    run_pipelined,
)
from accelsim.network.results import NetworkResult
from accelsim.network.zoo import load_network

TOPO = """Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,
c1, 18, 18, 3, 3, 8, 16, 1,
c2, 18, 18, 3, 3, 16, 16, 1,
c3, 16, 16, 1, 1, 16, 32, 1,
"""


def test_a_group_holds_its_share_of_the_shared_parts() -> None:
    cfg = load_config("cluster16")
    assert group_sizes(16) == (1, 2, 4, 8, 16) and group_sizes(6) == (1, 2, 3, 6)
    assert group_overrides(cfg, 16) == {}
    four = cfg.with_overrides(group_overrides(cfg, 4))
    assert four.clusters == 4
    total = cfg.dram.channels * cfg.dram.bandwidth_bytes_per_cycle
    assert four.dram.channels * four.dram.bandwidth_bytes_per_cycle == pytest.approx(total / 4)
    assert four.interconnect.bandwidth_bytes_per_cycle == cfg.interconnect.bandwidth_bytes_per_cycle // 4
    mesh = cfg.with_overrides({"interconnect.kind": "mesh"})
    one = mesh.with_overrides(group_overrides(mesh, 1))   # a 1 x 1 mesh, its router the memory's
    assert (one.interconnect.memory_row, one.interconnect.memory_col) == (0, 0)
    with pytest.raises(ValueError, match="does not divide"):
        group_overrides(cfg, 3)


def test_row_models_from_kernel_specs() -> None:
    conv = Layer("c", "conv", "direct", (Kernel("pad2d:N=1,C=4,H=8,W=8,top=1,left=1,bottom=1,right=1"),
                                         Kernel("conv2d:N=1,C=4,H=10,W=10,K=4,R=3,S=3,stride=1")), "t:1")
    rows = layer_rows(conv)
    assert len(rows.need) == 8 and rows.need[0] == pytest.approx(2 / 8) and rows.need[-1] == 1.0
    one_by_one = Layer("p", "conv", "gemm", (Kernel("gemm:M=16,N=64,K=8"),), "t:2")
    assert layer_rows(one_by_one).need[0] == pytest.approx(2 / 64)   # pixels stream (N / 32 chunks)
    fc = Layer("fc", "gemm", "matmul", (Kernel("gemm:M=1,N=1000,K=512"),), "t:3")
    assert layer_rows(fc).need == (1.0,)                              # one row: all of its input
    other = Layer("t", "Transpose", "layout",
                  (Kernel("permute:d0=2,d1=3,d2=4,d3=5,p0=3,p1=2,p2=1,p3=0"),), "t:4")
    assert layer_rows(other).need == (1.0,)
    assert output_bytes(one_by_one) == 16 * 64 * 4


def test_producers_chain_a_layer_list_and_follow_tensors_of_a_model() -> None:
    assert producers(load_network("resnet18"))[:3] == [None, 0, 1]
    k = Kernel
    layers = (Layer("a", "Relu", "vector", (k("relu:N=8", (("X", "in"),), (("Y", "a"),)),), "m:a"),
              Layer("b", "Relu", "vector", (k("relu:N=8", (("X", "in"),), (("Y", "b"),)),), "m:b"),
              Layer("c", "Add", "vector", (k("vector_add:N=8", (("A", "a"), ("B", "b")),
                                             (("C", "c"),)),), "m:c"))
    view = Layer("v", "Reshape", "view", (), "m:v", views=(("v", "c"),))
    after = Layer("d", "Relu", "vector", (k("relu:N=8", (("X", "v"),), (("Y", "d"),)),), "m:d")
    net = Network("m", "m.onnx", (*layers, view, after), inputs={"in": (8,)}, outputs={"d": (8,)})
    assert producers(net) == [None, None, 1, 2, 3]   # the reshape reads what it renames


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("net") / "tiny.csv"
    path.write_text(TOPO)
    return run_pipelined(load_network(str(path)), "cluster4", {}, "analytic", workers=0,
                         progress=False)


def test_a_run_on_cluster4_overlaps_layers_on_disjoint_groups(tiny) -> None:  # type: ignore[no-untyped-def]
    r = tiny
    assert r.schedule == "pipelined" and r.meta["group_sizes"] == [1, 2, 4]
    rows = r.rows()
    # every layer ran on a group of clusters 0..3, no two at once on the same cluster
    used: dict[int, list[tuple[int, int]]] = {}
    for row in rows:
        assert row["end_cycle"] - row["start_cycle"] >= row["cycles"] > 0
        for c in cluster_span(row["cluster"]):
            assert 0 <= c < 4
            for s, e in used.get(c, []):
                assert row["end_cycle"] <= s or row["start_cycle"] >= e
            used.setdefault(c, []).append((row["start_cycle"], row["end_cycle"]))
    t = r.totals()
    assert t["cycles"] == max(row["end_cycle"] for row in rows)
    # the model keeps data-parallel as a candidate: never slower by the same estimate
    assert t["cycles"] <= r.meta["data_parallel_cycles"]
    # this chain of small convolutions overlaps: some layer starts before the one before ends
    assert r.meta["pipelined_layers"] >= 2
    assert any(b["start_cycle"] < a["end_cycle"] for a, b in itertools.pairwise(rows))
    assert t["mac_utilization"] <= 1.0
    # the MAC bound: the network's MACs on all four clusters' arrays at once
    cfg = load_config("cluster4")
    peak = 4 * cfg.compute.macs_per_cycle
    assert t["mac_bound_cycles"] == -(-t["macs"] // peak) <= t["cycles"]
    assert r.to_dict()["mac_bound_cycles"] == t["mac_bound_cycles"] and "MAC bound:" in r.table()


def test_perfetto_has_a_track_per_cluster_with_the_layers_on_it(tiny) -> None:  # type: ignore[no-untyped-def]
    trace = json.loads(json.dumps(network_trace(tiny)))
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
             if e["ph"] == "M" and e["pid"] == CLUSTERS_PID and e["name"] == "thread_name"}
    assert names == {c + 1: f"cluster {c}" for c in range(4)}
    us = 1.0 / (tiny.clock_ghz * 1e3)
    got = sorted((e["tid"] - 1, e["name"], e["ts"], e["dur"]) for e in trace["traceEvents"]
                 if e["ph"] == "X" and e["pid"] == CLUSTERS_PID)
    want = sorted((c, r.layer.name, r.start_cycle * us, (r.end_cycle - r.start_cycle) * us)
                  for r in tiny.layers for c in cluster_span(r.cluster))
    assert got == want
    assert trace["otherData"]["schedule"] == "pipelined"


def test_timeline_draws_a_lane_per_cluster(tiny, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from matplotlib.patches import Rectangle

    from plots.network_timeline import plot_network_timeline

    fig = plot_network_timeline(tiny, tmp_path / "t.png")
    lanes_ax = fig.axes[0]
    bars = sorted((round(p.get_y() + p.get_height() / 2), round(p.get_x()), round(p.get_width()))
                  for p in lanes_ax.patches if isinstance(p, Rectangle))
    want = sorted((c, r.start_cycle, r.end_cycle - r.start_cycle)
                  for r in tiny.layers for c in cluster_span(r.cluster))
    assert bars == want
    assert (tmp_path / "t.png").stat().st_size > 0


def test_auto_leaves_pipelined_out_on_one_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    from accelsim.network import schedule

    assert run_pipelined.applies("default", {}) is False          # type: ignore[attr-defined]
    assert run_pipelined.applies("default", {"clusters": 2}) is True  # type: ignore[attr-defined]
    ran: list[str] = []

    def fake(name: str):  # type: ignore[no-untyped-def]
        def run(network, config, hardware, fidelity, **kw):  # type: ignore[no-untyped-def]
            ran.append(name)
            return NetworkResult(network, (), config, fidelity, 1.0, {})
        run.applies = getattr(real(name), "applies", None) or (lambda *_: True)  # type: ignore[attr-defined]
        return run

    real = schedule.runner
    monkeypatch.setattr(schedule, "available", lambda: ("layer-by-layer", "pipelined"))
    monkeypatch.setattr(schedule, "runner", lambda name: fake(name) if name in ("layer-by-layer",
                                                                             "pipelined") else real(name))
    net = Network("n", "n.layers", ())
    assert schedule.choose(net, "default", {}) == ("layer-by-layer", {})  # nothing to weigh
    assert ran == []
    _, estimates = schedule.choose(net, "cluster4", {})
    assert ran == ["layer-by-layer", "pipelined"] and set(estimates) == set(ran)


def test_the_whole_machine_group_is_the_layer_by_layer_run(tiny) -> None:  # type: ignore[no-untyped-def]
    """The 16-of-16 (here 4-of-4) group's cycles are today's data-parallel schedule: the
    layer-by-layer run of the same network, layer for layer."""
    from accelsim.network.timing import run_timing

    lbl = run_timing(tiny.network, "cluster4", {}, "analytic", workers=0, progress=False)
    assert tiny.meta["layer_cycles_by_group"]["4"] == [r.cycles for r in lbl.layers]
    assert tiny.meta["data_parallel_cycles"] == lbl.totals()["cycles"]
    # each layer's row holds the figures of the group it ran on
    for row, layer in zip(tiny.rows(), tiny.layers, strict=True):
        size = len(cluster_span(row["cluster"]))
        assert row["cycles"] == tiny.meta["layer_cycles_by_group"][str(size)][tiny.layers.index(layer)]
