"""A dma_wait must name the element count of the transfer it consumes: a mismatch is a located
error in the simulator (every path) and in the static check of the input program; a dma_start
never waited on before return is a warning in the report (text and --json)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from accelsim import load_config, simulate
from accelsim.compile.accelerator import check_input_program
from accelsim.errors import HazardError
from accelsim.report import Report
from compiler.analysis.dma_counts import DmaCountError, dma_count_mismatches
from compiler.text import parse_module
from tests.cli.test_opt_cli import accelsim

PROGRAM = """func.func @main(%A: memref<64xf32>, %n: index) {
  %buf = memref.alloc() : memref<64xf32, 1>
  %tag = memref.alloc() : memref<1xi32, 2>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant {wait} : index
  affine.dma_start %A[%c0], %buf[%c0], %tag[%c0], {count} : {types}
  affine.dma_wait %tag[%c0], {waited} : memref<1xi32, 2>
  memref.dealloc %tag : memref<1xi32, 2>
  memref.dealloc %buf : memref<64xf32, 1>
  return
}
"""
WAIT_LINE = 8


def program(count: str = "%c64", waited: str = "%w", wait: int = 32) -> str:
    return PROGRAM.replace("{types}", "memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>") \
        .replace("{count}", count).replace("{waited}", waited).replace("{wait}", str(wait))


@pytest.mark.parametrize("functional", [False, True])
def test_simulator_refuses_a_wait_for_another_count(functional):
    m = parse_module(program(), "w.mlir")
    inputs = {"A": np.zeros(64, np.float32), "n": 64} if functional else {"n": 64}
    with pytest.raises(HazardError, match=r"waits for 32 element\(s\).*moves 64") as exc:
        simulate(m, load_config("default"), inputs=inputs, functional=functional)
    assert str(exc.value).startswith(f"w.mlir:{WAIT_LINE}:3: error:")


def test_simulator_checks_a_count_known_only_at_run_time():
    """%n is an argument: no static check can tell, the simulator does."""
    m = parse_module(program(count="%n", waited="%c64"), "w.mlir")
    assert dma_count_mismatches(m.funcs[0]) == []
    with pytest.raises(HazardError, match=r"waits for 64 element\(s\).*moves 48"):
        simulate(m, load_config("default"), inputs={"n": 48}, functional=False)
    simulate(m, load_config("default"), inputs={"n": 64}, functional=False)  # matching: fine


def test_matching_counts_pass_both_checks():
    m = parse_module(program(wait=64), "w.mlir")
    assert dma_count_mismatches(m.funcs[0]) == []
    check_input_program(m)
    r = simulate(m, load_config("default"), inputs={"n": 0}, functional=False)
    assert r.cycles > 0


def test_static_check_names_the_wait_and_the_transfer():
    m = parse_module(program(), "w.mlir")
    (bad,) = dma_count_mismatches(m.funcs[0])
    assert bad.count == 32 and [n for _, n in bad.starts] == [64]
    with pytest.raises(DmaCountError, match=r"waits for 32 element\(s\).*64 \(dma_start at w.mlir:7:3\)"):
        check_input_program(m)


def test_cli_reports_the_mismatch_located_on_every_path(tmp_path):
    f = tmp_path / "w.mlir"
    f.write_text(program())
    for extra in ((), ("--as-is",), ("--timing-only",), ("--affine-scalar-replace",)):
        proc = accelsim("run", str(f), "--target", "sim", *extra)
        assert proc.returncode != 0, extra
        assert f"w.mlir:{WAIT_LINE}:3: error:" in proc.stderr and "32 element" in proc.stderr, extra


UNWAITED = """func.func @main(%A: memref<64xf32>) {
  %buf = memref.alloc() : memref<64xf32, 1>
  %tag = memref.alloc() : memref<1xi32, 2>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  affine.dma_start %A[%c0], %buf[%c0], %tag[%c0], %c64 : memref<64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  return
}
"""


def test_unwaited_dma_is_a_warning_in_the_report():
    m = parse_module(UNWAITED, "u.mlir")
    r = simulate(m, load_config("default"), functional=False)
    rep = Report.from_result(r)
    assert len(rep.warnings) == 1 and "u.mlir:6:3" in rep.warnings[0]
    assert "never waited" in rep.warnings[0]
    assert rep.warnings[0] not in rep.flags
    d = rep.to_dict()
    assert d["warnings"] == list(rep.warnings)
    assert f"  warning: {rep.warnings[0]}" in rep.format_table()


def test_unwaited_dma_warning_in_the_cli_text_and_json(tmp_path):
    f = tmp_path / "u.mlir"
    f.write_text(UNWAITED)
    proc = accelsim("run", str(f), "--target", "sim", "--as-is", "--json")
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert len(d["warnings"]) == 1 and "never waited" in d["warnings"][0]
    proc = accelsim("run", str(f), "--target", "sim", "--as-is")
    assert "warning: affine.dma_start at" in proc.stdout + proc.stderr
