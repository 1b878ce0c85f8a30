"""`--schedule`: the names, the dispatch to each schedule's runner, auto's choice, the DSE key,
and the figures a schedule reports (overlapping rows, bytes saved, the honest bound)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from accelsim.dse.spec import NETWORK_SCHEDULES, from_dict
from accelsim.errors import ConfigError, InputError
from accelsim.network import schedule
from accelsim.network.model import Kernel, Layer, Network
from accelsim.network.results import LayerResult, NetworkResult


def _fig(cycles: int, read: int) -> dict:
    return {"cycles": cycles, "roofline_cycles": cycles // 2, "roofline_bound": "compute",
            "compute_busy_cycles": cycles // 2, "energy_pj": 1.0, "dram_bytes_read": read,
            "dram_bytes_written": 10, "dma_busy_cycles": 0, "macs": 8, "ops": 0, "compulsory_bytes": 0}


def _net() -> Network:
    k = Kernel("gemm:M=2,N=2,K=2")
    return Network("n", "t", (Layer("a", "gemm", "matmul", (k,), "t:1"),
                              Layer("b", "gemm", "matmul", (k,), "t:2")))


def test_names_and_unknown() -> None:
    assert schedule.SCHEDULES == ("layer-by-layer", "fused", "pipelined", "auto")
    assert NETWORK_SCHEDULES == schedule.SCHEDULES  # the DSE's copy (it must not import network)
    assert schedule.check_schedule("fused") == "fused"
    with pytest.raises(InputError, match=r"unknown schedule 'fuse'.*layer-by-layer, fused"):
        schedule.check_schedule("fuse")
    assert "layer-by-layer" in schedule.available() and "auto" not in schedule.available()


def test_unavailable_schedule_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(schedule.RUNNERS, "pipelined", ("accelsim.network.no_such_module", "run"))
    assert "pipelined" not in schedule.available()
    with pytest.raises(InputError, match="'pipelined' is not available yet"):
        schedule.runner("pipelined")
    with pytest.raises(InputError, match="not a runner"):
        schedule.runner("auto")


def test_auto_takes_the_fewest_cycles_never_worse_than_layer_by_layer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    net = _net()
    cycles = {"layer-by-layer": 100, "fused": 100, "pipelined": 90}
    reads = {"layer-by-layer": 50, "fused": 20, "pipelined": 80}
    calls: list[tuple[str, str]] = []

    def fake(name: str):
        def run(network, config, hardware, fidelity, **kw):
            calls.append((name, fidelity))
            figs = {"gemm:M=2,N=2,K=2": _fig(cycles[name] // 2, reads[name] // 2)}
            return NetworkResult.build(network, figs, config, fidelity, 1.0, {})
        return run

    monkeypatch.setattr(schedule, "available", lambda: tuple(cycles))
    monkeypatch.setattr(schedule, "runner", fake)
    name, est = schedule.choose(net, "default")
    assert name == "pipelined" and set(est) == set(cycles)
    cycles["pipelined"] = 120  # slower: fused ties layer-by-layer on cycles, moves fewer bytes
    assert schedule.choose(net, "default")[0] == "fused"
    reads["fused"] = 50  # a full tie: layer-by-layer
    assert schedule.choose(net, "default")[0] == "layer-by-layer"
    calls.clear()
    r = schedule.run_schedule(net, "auto", "default", fidelity="event")
    assert r.schedule == "layer-by-layer" and r.meta["schedule_requested"] == "auto"
    assert calls[-1] == ("layer-by-layer", "event") and len(calls) == 4
    calls.clear()
    r = schedule.run_schedule(net, "auto", "default", fidelity="analytic")
    assert len(calls) == 3  # the estimate is the run
    assert r.meta["schedule_estimates"] == {"layer-by-layer": 100, "fused": 100, "pipelined": 120}


def test_overlapping_rows_bytes_saved_and_bound() -> None:
    net = _net()
    base = NetworkResult.build(net, {"gemm:M=2,N=2,K=2": _fig(100, 40)}, "default", "event", 1.0, {})
    t = base.totals()
    assert t["schedule"] == "layer-by-layer" and t["dram_bytes_saved"] == 0
    assert t["honest_bound_bytes"] is None and t["honest_cycles_ratio"] is None
    a, b = base.layers
    assert (a.start_cycle, a.end_cycle, b.start_cycle, b.end_cycle) == (0, 100, 100, 200)
    # two clusters: b overlaps a
    rows = (replace(a, cluster="0-7"), LayerResult(b.layer, 30, b.figures, cluster="8-15", end=130))
    piped = replace(base, layers=rows, schedule="pipelined",
                    network_figures={"baseline_dram_bytes": 100, "honest_bound_bytes": 50,
                                     "honest_bound_cycles": 65})
    t = piped.totals()
    assert t["cycles"] == 130 and t["dram_bytes"] == 100 and t["dram_bytes_saved"] == 0
    assert t["honest_bytes_ratio"] == 2.0 and t["honest_cycles_ratio"] == 2.0
    d = piped.to_dict()
    assert d["schedule"] == "pipelined"
    assert [(r["cluster"], r["start_cycle"], r["end_cycle"]) for r in d["layers"]] == \
        [("0-7", 0, 100), ("8-15", 30, 130)]
    text = piped.table()
    assert "schedule pipelined" in text and "honest network bound: 50 B DRAM (2.00x" in text
    assert "cluster" in piped.to_csv().splitlines()[0]


def test_dse_schedule_key() -> None:
    sw = from_dict({"workloads": ["network:resnet18", "gemm:M=8,N=8,K=8"],
                    "schedule": ["layer-by-layer", "fused"]}, check_registry=False)
    pts = sw.points()
    nets = [p for p in pts if p.workload.startswith("network:")]
    assert sorted(p.schedule for p in nets) == ["fused", "layer-by-layer"]
    assert [p.schedule for p in pts if not p.workload.startswith("network:")] == [""]
    assert nets[0].canonical()["schedule"] and nets[0].params()["schedule"]
    assert sw.to_dict()["schedule"] == ["layer-by-layer", "fused"]
    with pytest.raises(ConfigError, match="key 'schedule': unknown schedule 'fusion'"):
        from_dict({"workloads": ["network:resnet18"], "schedule": "fusion"}, check_registry=False)
    with pytest.raises(ConfigError, match="no workload is a network"):
        from_dict({"workloads": ["gemm:M=8,N=8,K=8"], "schedule": "fused"}, check_registry=False)
    # not swept: the keys of older points stay
    old = from_dict({"workloads": ["network:resnet18"]}, check_registry=False).points()[0]
    assert "schedule" not in old.canonical()
