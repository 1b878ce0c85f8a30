"""Autotune never loses to the default pipeline (issue 14: its best was 75,712 cycles on gemm
256^3 where `--target sim` reached 71,952): the tile search's own choice is a candidate."""

from __future__ import annotations

import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.dse.autotune import autotune


@pytest.mark.parametrize("spec", ["gemm:M=96,N=64,K=80", "jacobi-2d:N=64,T=4"])
def test_autotune_is_at_least_as_good_as_the_default_pipeline(spec: str) -> None:
    try:
        wl = workloads.get(spec)
    except Exception:
        pytest.skip(f"workload spec {spec} not in the registry")
    cfg = load_config("default")
    module = wl.module()
    compile_for_accelerator(cfg, module, wl.func_name)
    default = simulate(module, cfg, functional=False, func=wl.func_name).cycles
    result = autotune(spec, "default", max_candidates=6, top_k=2, progress=False, workers=1)
    assert any(c.tile_sizes == "search" for c in result.candidates)
    assert result.best.event_cycles is not None and result.best.event_cycles <= default
