"""Analytic vs event on many clusters: the fair-share closed form of each cluster (one cost
model) against the N-processor event run, compute-bound and DRAM-bound, bus and mesh.

The fair share leaves out the start-up, when every cluster's first loads reach DRAM at once:
on 16 clusters with shares of 64x64 (gemm 256³ block2d) that is a third of the run and the
estimate is ~30% short, so the 16-cluster cases use gemm 512³ (shares of 128x128)."""

from __future__ import annotations

import pytest

from accelsim.compile.clusters import compile_for_clusters
from accelsim.config import load_config
from accelsim.estimate.analytic import estimate
from accelsim.estimate.clusters import estimate_clusters, share_config
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions
from workloads.gemm import build_gemm


@pytest.mark.parametrize("preset,over", [
    ("cluster4", {}), ("cluster16", {}), ("cluster4", {"interconnect.kind": "mesh"}),
    ("cluster16", {"interconnect.kind": "mesh"}), ("cluster4", {"dram.channels": 2}),
    ("cluster16", {"dram.channels": 2}),
])
def test_analytic_matches_event_within_10_percent(preset: str, over: dict[str, object]) -> None:
    cfg = load_config(preset, over)
    n = 512 if cfg.clusters == 16 else 256
    progs = compile_for_clusters(cfg, build_gemm(n, n, n), None, "block2d")
    event = simulate_clusters(progs.modules, cfg, options=SimOptions(functional=False)).cycles
    analytic = estimate_clusters(progs.modules, cfg).cycles
    assert abs(analytic - event) / event < 0.10, (analytic, event)


def test_share_of_one_cluster_is_the_machine() -> None:
    cfg = load_config("default")
    assert share_config(cfg) is cfg
    m = build_gemm(64, 64, 64)
    from accelsim.compile.accelerator import compile_for_accelerator
    compile_for_accelerator(cfg, m)
    assert estimate_clusters([m], cfg).cycles == estimate(m, cfg).cycles


def test_share_closed_form() -> None:
    cfg = load_config("cluster4")  # 8 x 32 B/cycle DRAM, a 256 B/cycle bus: 64 B/cycle each
    s = share_config(cfg)
    assert s.clusters == 1
    assert s.dram.channels * s.dram.bandwidth_bytes_per_cycle == 64
    assert s.dram.latency_cycles == cfg.dram.latency_cycles + cfg.interconnect.latency_cycles
