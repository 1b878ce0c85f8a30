"""A cluster run that keeps a `UnitTally` (no trace output asked for) reports the figures of
the same run keeping every record: the tally is the report's sums, not an approximation."""

from __future__ import annotations

import pytest

from accelsim.compile.clusters import compile_for_clusters
from accelsim.config import load_config
from accelsim.report.clusters import cluster_figures
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions
from workloads.gemm import build_gemm


@pytest.mark.parametrize("preset,overrides", [
    ("cluster4", {}),
    ("cluster16", {}),
    ("cluster16", {"interconnect.kind": "mesh"}),
])
def test_tally_gives_the_records_figures(preset: str, overrides: dict[str, str]) -> None:
    cfg = load_config(preset, overrides)
    progs = compile_for_clusters(cfg, build_gemm(128, 128, 128), None, "block2d")
    runs = [simulate_clusters(progs.modules, cfg,
                              options=SimOptions(functional=False, keep_records=keep))
            for keep in (True, False)]
    kept, tallied = runs
    assert kept.trace.records and tallied.trace.tally is not None
    assert kept.cycles == tallied.cycles
    assert len(kept.trace) == len(tallied.trace) and kept.trace.end == tallied.trace.end
    figures = [cluster_figures(r, cfg, 0, "gemm", []) for r in runs]
    assert figures[0] == figures[1]
