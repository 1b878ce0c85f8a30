"""Autotune is never worse than the default pipeline, on every shipped workload (small sizes,
few candidates: the default pipeline's own choice, `tile_sizes="search"`, is always a candidate
and always re-run event-driven, so the winner's cycles cannot exceed the default's)."""

from __future__ import annotations

from pathlib import Path

import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.dse.autotune import autotune
from tests.compiler.transforms.test_pipeline_workloads import SPECS


def test_every_shipped_workload_is_covered():
    shipped = {p.stem for p in (Path(workloads.__file__).parent / "mlir").glob("*.mlir")}
    assert shipped == set(SPECS)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_autotune_never_worse_than_default(name: str) -> None:
    spec = f"{name}:{SPECS[name]}"
    wl = workloads.get(spec)
    cfg = load_config("default")
    module = wl.module()
    compile_for_accelerator(cfg, module, wl.func_name)
    default = simulate(module, cfg, functional=False, func=wl.func_name).cycles
    # top_k=1 with 2 tilings x 1 stage: the default's point is a finalist only by the rule
    result = autotune(spec, "default", stages=(2,), max_candidates=2, top_k=1, progress=False,
                      workers=1)
    search = [c for c in result.candidates if c.tile_sizes == "search"]
    assert len(search) == 1 and search[0].event_cycles == default
    assert result.best.event_cycles is not None and result.best.event_cycles <= default
