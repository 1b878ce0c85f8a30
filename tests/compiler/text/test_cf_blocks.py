"""Functions of several blocks (issue 31: `cf.br` / multi-block regions did not parse): they
parse, verify, print back stably (mlir-opt-19 reads them: tests/lit/parse/cf-blocks.mlir),
the passes leave them alone with a remark, the host refuses them with a located error, and
malformed branches are located parse errors."""

from __future__ import annotations

import pytest

from compiler.backend import run_host
from compiler.diagnostics import AccelsimError, ParseError
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.registry import PassManager

LOOP = """func.func @count(%A: memref<4xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^head(%c0 : i32)
^head(%k: i32):
  %done = arith.cmpi sge, %k, %n : i32
  cf.cond_br %done, ^exit, ^body
^body:
  %k1 = arith.addi %k, %c1 : i32
  cf.br ^head(%k1 : i32)
^exit:
  return
}
"""


def test_a_loop_of_blocks_round_trips() -> None:
    m = parse_module(LOOP)
    verify(m)
    f = m.funcs[0]
    assert len(f.blocks) == 4
    text = print_module(m)
    assert "^bb1(%k: i32):" in text and "cf.cond_br %done, ^bb3, ^bb2" in text
    assert print_module(parse_module(text)) == text


def test_the_passes_leave_the_function_alone_with_a_remark() -> None:
    m = parse_module(LOOP)
    before = print_module(m)
    pm = PassManager.from_flags(["--affine-loop-tile=tile-size=4"])
    pm.run(m)
    assert print_module(m) == before
    assert any("4 blocks (cf.br / cf.cond_br)" in r.message for r in pm.remarks)


def test_the_host_refuses_it_with_a_location() -> None:
    with pytest.raises(AccelsimError, match=r"cannot lower 'cf\.br'"):
        run_host(parse_module(LOOP), {"A": __import__("numpy").zeros(4, "int32"), "n": 3})


@pytest.mark.parametrize("bad,msg", [
    ("cf.br ^nowhere", "undefined block '\\^nowhere'"),
    ("cf.br ^exit(%c0 : i32)", "passes 1 operand"),
])
def test_malformed_branches_are_parse_errors(bad: str, msg: str) -> None:
    text = LOOP.replace("cf.br ^head(%k1 : i32)", bad)
    with pytest.raises(ParseError, match=msg):
        parse_module(text)


def test_a_label_inside_an_affine_region_is_an_error() -> None:
    text = """func.func @f(%A: memref<4xf32>) {
  affine.for %i = 0 to 4 {
  ^bb1:
    affine.yield
  }
  return
}
"""
    with pytest.raises(ParseError, match="block labels are"):
        parse_module(text)
