"""Registered ops written in MLIR's generic form (`"arith.addi"(%a, %b) <{...}> : (i32, i32) -> i32`)
parse into the op their custom form gives: ours vs upstream's generic printing of the same
module, print/parse round trips, mlir-opt-19 reads what we print; lossy forms are refused."""

from __future__ import annotations

import re

import numpy as np
import pytest

from compiler.backend import compile_module
from compiler.diagnostics import ParseError
from compiler.ir.ops import OpaqueOp
from compiler.ir.verifier import verify
from compiler.text import module_diff, parse_module, print_module
from tests.compiler.text.test_mlir_opt_interop import every_scalar_op_module, run_mlir_opt

CUSTOM = """func.func @f(%arg0: i32, %arg1: i32, %arg2: f32, %arg3: index, %arg4: memref<4xf32>) -> i32 {
  %0 = arith.addi %arg0, %arg1 : i32
  %1 = arith.muli %0, %arg1 : i32
  %2 = arith.addf %arg2, %arg2 : f32
  %3 = math.sqrt %2 : f32
  %4 = arith.negf %3 : f32
  %5 = memref.alloc() : memref<4xf32>
  %6 = memref.alloc(%arg3) {alignment = 64 : i64} : memref<?xf32>
  %7 = arith.index_cast %arg3 : index to i32
  %8 = arith.cmpi slt, %0, %1 : i32
  %9 = arith.select %8, %0, %7 : i32
  %10 = arith.cmpf ogt, %4, %2 : f32
  affine.store %4, %arg4[0] : memref<4xf32>
  memref.dealloc %5 : memref<4xf32>
  memref.dealloc %6 : memref<?xf32>
  return %9 : i32
}
"""

# what mlir-opt-19 --mlir-print-op-generic prints for CUSTOM's body (affine.store kept custom)
GENERIC = """func.func @f(%arg0: i32, %arg1: i32, %arg2: f32, %arg3: index, %arg4: memref<4xf32>) -> i32 {
  %0 = "arith.addi"(%arg0, %arg1) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
  %1 = "arith.muli"(%0, %arg1) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
  %2 = "arith.addf"(%arg2, %arg2) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
  %3 = "math.sqrt"(%2) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
  %4 = "arith.negf"(%3) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
  %5 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
  %6 = "memref.alloc"(%arg3) <{alignment = 64 : i64, operandSegmentSizes = array<i32: 1, 0>}>
      : (index) -> memref<?xf32>
  %7 = "arith.index_cast"(%arg3) : (index) -> i32
  %8 = "arith.cmpi"(%0, %1) <{predicate = 2 : i64}> : (i32, i32) -> i1
  %9 = "arith.select"(%8, %0, %7) : (i1, i32, i32) -> i32
  %10 = "arith.cmpf"(%4, %2) <{fastmath = #arith.fastmath<none>, predicate = 2 : i64}> : (f32, f32) -> i1
  affine.store %4, %arg4[0] : memref<4xf32>
  "memref.dealloc"(%5) : (memref<4xf32>) -> ()
  "memref.dealloc"(%6) : (memref<?xf32>) -> ()
  "func.return"(%9) : (i32) -> ()
}
"""


def test_the_generic_form_gives_the_custom_forms_ops() -> None:
    generic = parse_module(GENERIC, "generic.mlir")
    verify(generic)
    assert not any(isinstance(op, OpaqueOp) for op in generic.walk())
    assert module_diff(parse_module(CUSTOM, "custom.mlir"), generic) is None
    again = print_module(generic)
    assert print_module(parse_module(again)) == again == print_module(parse_module(CUSTOM))


def test_generic_and_custom_forms_compute_the_same_on_the_host() -> None:
    outs = []
    for text in (CUSTOM, GENERIC):
        args = {"arg0": 7, "arg1": -3, "arg2": np.float32(6.25), "arg3": 5,
                "arg4": np.zeros(4, np.float32)}
        ret = compile_module(parse_module(text)).call("f", args)
        outs.append((ret, args["arg4"].tolist()))
    assert outs[0] == outs[1]
    # and both right (not equally wrong): arg4[0] = -sqrt(6.25 + 6.25) in f32
    assert outs[0][1][0] == float(-np.sqrt(np.float32(12.5)))


def _as_custom_func(generic_module: str, results: str) -> str:
    """mlir-opt's generic print of a one-function module with the func.func line in custom form
    (its arguments from `^bb0`) and the ops inside left generic."""
    lines = generic_module.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("^bb0"))
    end = max(i for i, line in enumerate(lines) if line.strip() == "}) : () -> ()")
    args = lines[start].strip()[len("^bb0("):-len("):")]
    return "\n".join([f"func.func @ops({args}) -> {results} {{", *lines[start + 1:end - 1], "}", ""])


@pytest.mark.mlir_opt
def test_upstreams_generic_print_of_every_scalar_op_reads_back(mlir_opt: str) -> None:
    module = every_scalar_op_module()
    theirs = run_mlir_opt(mlir_opt, print_module(module), "--mlir-print-op-generic")
    results = re.search(r"func\.func @ops\(.*\) -> (.*) \{", print_module(module))
    assert results is not None
    ours = parse_module(_as_custom_func(theirs, results.group(1)), "generic.mlir")
    assert sum(op.NAME.startswith(("arith.", "math.")) for op in ours.walk()) > 20
    assert module_diff(module, ours) is None
    run_mlir_opt(mlir_opt, print_module(ours))


@pytest.mark.mlir_opt
def test_mlir_opt_reads_what_we_print_from_the_generic_form(mlir_opt: str) -> None:
    ours = print_module(parse_module(GENERIC))
    assert module_diff(parse_module(run_mlir_opt(mlir_opt, ours)), parse_module(CUSTOM)) is None


@pytest.mark.parametrize(("line", "message"), [
    ('%r = "arith.addi"(%a, %a) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32',
     r"2:8: error: 'arith.addi': attribute 'overflowFlags = #arith.overflow<nsw>' is not supported"),
    ('%r = "arith.addi"(%a, %a) : (i32, i32) -> i64',
     r"2:8: error: 'arith.addi' needs one type for its operands and result"),
    ('%r = "arith.cmpi"(%a, %a) <{predicate = 12 : i64}> : (i32, i32) -> i1',
     r"2:8: error: 'arith.cmpi': predicate must be an integer in \[0, 9\]"),
    ('%r = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<?xf32>',
     r"2:8: error: 'memref.alloc' needs one size operand per '\?'"),
    ('%r = "affine.load"(%m) <{map = affine_map<() -> (0)>}> : (memref<4xf32>) -> f32',
     r"2:8: error: the generic form of the registered op 'affine.load' is not supported"),
])
def test_lossy_or_unsupported_generic_forms_are_refused(line: str, message: str) -> None:
    text = f"func.func @g(%a: i32, %m: memref<4xf32>) {{\n  {line}\n  return\n}}\n"
    with pytest.raises(ParseError, match=message):
        parse_module(text, "g.mlir")
