"""Differential test: the event simulator against a table recorded from an earlier version.

tests/accelsim/data/sim_golden/ holds programs frozen as MLIR text (hand-built DMA programs,
workloads through the accelerator pipeline, upstream mlir-opt output, misuse programs) and,
per program x config x mode, what the reference simulator produced: cycles, counters, SRAM
peak, a digest of the trace records (in order and sorted), output arrays, or the exact error
message. The table was written by `sim_golden_gen.py` running the code at 786ec2a (before the
executor was restructured for speed), so a speed-up that changes any result fails here.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from accelsim import load_config, simulate
from accelsim.errors import InputError
from compiler.diagnostics import AccelsimError
from compiler.ir.entry import entry_function
from compiler.text import parse_module

DATA = Path(__file__).parent / "data" / "sim_golden"
TABLE = json.loads((DATA / "golden.json").read_text())
CONFIGS = {label: (preset, over) for label, preset, over in TABLE["configs"]}


def _load_gen() -> Any:
    import importlib.util

    path = Path(__file__).parent / "sim_golden_gen.py"
    spec = importlib.util.spec_from_file_location("sim_golden_gen", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = _load_gen()


@functools.cache
def _config(label: str) -> Any:
    preset, over = CONFIGS[label]
    cfg = load_config(preset)
    return cfg.with_overrides(over) if over else cfg


def _row_id(row: dict[str, Any]) -> str:
    return f"{row['program']}-{row['config']}-{'func' if row['functional'] else 'timing'}"


def run_row(row: dict[str, Any], compiled: bool = True) -> dict[str, Any]:
    """Simulate one table row with the current code; the same fields the generator wrote."""
    from compiler.backend import random_inputs

    fname = TABLE["programs"][row["program"]]
    mod = parse_module((DATA / fname).read_text(), fname)
    functional = row["functional"]
    inputs = random_inputs(entry_function(mod, None, InputError), seed=1) if functional else None
    got: dict[str, Any] = {"program": row["program"], "config": row["config"],
                           "functional": functional}
    try:
        r = simulate(mod, _config(row["config"]), inputs=inputs, functional=functional,
                     compiled=compiled)
    except AccelsimError as exc:
        got["error"] = f"{type(exc).__name__}: {exc}"
    else:
        got.update(GEN.fingerprint(r))
        if functional:
            got["outputs"] = GEN.outputs_digest(r)
    return got


ROWS = TABLE["runs"]
HAND = ("tile_sum", "tiled_gemm", "upstream", "misuse")
# functional runs of the compiled workloads are checked on `default` only (the `server` ones
# repeat them with other cycles, and each costs a native compile of the kernels)
CHECKED = [r for r in ROWS
           if not (r["functional"] and r["config"] == "server" and not r["program"].startswith(HAND))]


def test_table_covers_every_kind_of_run():
    """The table must exercise what the speed work touches (guards against a thin table)."""
    progs = {r["program"] for r in ROWS}
    assert len(ROWS) > 300 and len(progs) > 40
    assert sum("error" in r for r in ROWS) > 40
    assert sum(r["functional"] for r in ROWS) > 40
    assert {r["config"] for r in ROWS} == set(CONFIGS)
    assert any(r.get("stats", {}).get("unwaited") for r in ROWS)
    for kind in ("deadlock", "in flight", "outside", "does not fit", "after its memref.dealloc",
                 "reuses tag"):
        assert any(kind in r.get("error", "") for r in ROWS), kind


@pytest.mark.parametrize("row", CHECKED, ids=[_row_id(r) for r in CHECKED])
def test_simulator_matches_recorded_run(row):
    got = run_row(row)
    assert got == row


# The control program interpreted op by op (the generic handlers, no per-op specialization)
# must give the same results: hand-built programs, upstream output and every misuse program.
INTERPRETED = [r for r in ROWS if r["program"].startswith((*HAND, "gemm_", "conv2d_"))]


@pytest.mark.parametrize("row", INTERPRETED, ids=[_row_id(r) for r in INTERPRETED])
def test_interpreted_control_program_matches_recorded_run(row):
    got = run_row(row, compiled=False)
    assert got == row
