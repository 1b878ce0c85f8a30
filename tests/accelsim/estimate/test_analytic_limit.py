"""The analytic walk's `limit`: it stops (`OverLimit`) exactly when the estimate exceeds the
limit, and a run within it gives the full estimate. `auto`'s distribution choice relies on it
to drop a candidate as soon as it is slower than the best before it (test_cluster_distribution
checks that the choice and every finished estimate are unchanged)."""

from __future__ import annotations

import pytest

from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.clusters import compile_for_clusters
from accelsim.config import load_config
from accelsim.estimate.analytic import estimate
from accelsim.estimate.clusters import estimate_clusters
from accelsim.estimate.state import OverLimit
from workloads.gemm import build_gemm


@pytest.mark.parametrize("preset", ["default", "three_level"])
def test_limit_stops_a_walk_exactly_past_the_estimate(preset: str) -> None:
    cfg = load_config(preset)
    m = build_gemm(128, 96, 64)
    compile_for_accelerator(cfg, m)
    full = estimate(m, cfg).cycles
    assert estimate(m, cfg, limit=full).cycles == full          # at the limit: the estimate
    assert estimate(m, cfg, limit=full + 1000).cycles == full
    with pytest.raises(OverLimit) as over:
        estimate(m, cfg, limit=full - 1)
    assert over.value.cycle > full - 1
    with pytest.raises(OverLimit) as early:                      # stops long before the end
        estimate(m, cfg, limit=full // 10)
    assert full // 10 < early.value.cycle < full


def test_limit_on_clusters_stops_past_the_barrier_aware_estimate() -> None:
    cfg = load_config("cluster4")
    progs = compile_for_clusters(cfg, build_gemm(128, 128, 64), None, "block")
    full = estimate_clusters(progs.modules, cfg).cycles
    assert estimate_clusters(progs.modules, cfg, limit=full).cycles == full
    with pytest.raises(OverLimit):
        estimate_clusters(progs.modules, cfg, limit=full - 1)
