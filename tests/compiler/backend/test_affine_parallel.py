"""affine.parallel on the host: each reduction equals the same reduction written as nested
affine.for loops with iter_args (bit for bit: the host runs the band in that order), stores
land where numpy says; mlir-opt-19 reads what we print; bad bands are located errors."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.backend.cache import compile_module
from compiler.diagnostics import ParseError, VerifyError
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module

KINDS = {"addf": ("arith.addf", "0.0", "f32"), "mulf": ("arith.mulf", "1.0", "f32"),
         "maximumf": ("arith.maximumf", "0xFF800000", "f32"), "addi": ("arith.addi", "0", "i32"),
         "muli": ("arith.muli", "1", "i32"), "andi": ("arith.andi", "-1", "i32"),
         "ori": ("arith.ori", "0", "i32")}


def parallel_text(kind: str, n: int, m: int, s0: int, s1: int) -> str:
    _, _, t = KINDS[kind]
    conv = "%x = arith.fptosi %v : f32 to i32" if t == "i32" else "%x = arith.addf %v, %v : f32"
    return f"""func.func @p(%A: memref<{n}x{m}xf32>, %B: memref<{n}x{m}xf32>) -> {t} {{
  %r = affine.parallel (%i, %j) = (0, 0) to ({n}, {m}) step ({s0}, {s1}) reduce ("{kind}") -> ({t}) {{
    %v = affine.load %A[%i, %j] : memref<{n}x{m}xf32>
    affine.store %v, %B[%i, %j] : memref<{n}x{m}xf32>
    {conv}
    affine.yield %x : {t}
  }}
  return %r : {t}
}}
"""


def loops_text(kind: str, n: int, m: int, s0: int, s1: int) -> str:
    op, ident, t = KINDS[kind]
    conv = "%x = arith.fptosi %v : f32 to i32" if t == "i32" else "%x = arith.addf %v, %v : f32"
    return f"""func.func @p(%A: memref<{n}x{m}xf32>, %B: memref<{n}x{m}xf32>) -> {t} {{
  %init = arith.constant {ident} : {t}
  %r = affine.for %i = 0 to {n} step {s0} iter_args(%a = %init) -> ({t}) {{
    %q = affine.for %j = 0 to {m} step {s1} iter_args(%b = %a) -> ({t}) {{
      %v = affine.load %A[%i, %j] : memref<{n}x{m}xf32>
      affine.store %v, %B[%i, %j] : memref<{n}x{m}xf32>
      {conv}
      %c = {op} %b, %x : {t}
      affine.yield %c : {t}
    }}
    affine.yield %q : {t}
  }}
  return %r : {t}
}}
"""


def run(text: str, a: np.ndarray) -> tuple[object, np.ndarray]:
    module = parse_module(text)
    verify(module)
    b = np.zeros_like(a)
    r = compile_module(module, bounds_check=True).call("p", {"A": a.copy(), "B": b})
    return r, b


@given(st.sampled_from(sorted(KINDS)), st.integers(1, 9), st.integers(1, 9), st.integers(1, 3),
       st.integers(1, 3), st.integers(0, 2**31))
@settings(max_examples=25)
def test_parallel_reduction_equals_the_loop_form(kind: str, n: int, m: int, s0: int, s1: int,
                                                 seed: int) -> None:
    a = np.random.default_rng(seed).uniform(-2, 2, (n, m)).astype(np.float32)
    got, b_got = run(parallel_text(kind, n, m, s0, s1), a)
    want, b_want = run(loops_text(kind, n, m, s0, s1), a)
    assert np.array_equal(np.float32(got), np.float32(want)) or (np.isnan(got) and np.isnan(want))
    mask = np.zeros((n, m), bool)
    mask[::s0, ::s1] = True
    assert np.array_equal(b_got, np.where(mask, a, 0)) and np.array_equal(b_got, b_want)


def test_mlir_opt_reads_our_parallel_band(mlir_opt: str) -> None:
    printed = print_module(parse_module(parallel_text("addf", 4, 6, 1, 2)))
    assert 'affine.parallel (%i, %j) = (0, 0) to (4, 6) step (1, 2) reduce ("addf") -> (f32)' in printed
    done = subprocess.run([mlir_opt], input=printed, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert print_module(parse_module(done.stdout)).count("affine.parallel") == 1


@pytest.mark.parametrize("body,message", [
    ('affine.parallel (%i) = (0) to (4) reduce ("maxs") -> (i32) {\n  }',
     "unsupported reduction 'maxs' (supported: addf, mulf, maximumf, minimumf, addi, muli, andi, ori)"),
    ("affine.parallel (%i, %j) = (0) to (4, 4) {\n  }",
     "affine.parallel has 2 induction variable(s) but 1 lower bound(s)"),
    ("affine.parallel (%i) = (max(0, 1)) to (4) {\n  }",
     "'max' groups in affine.parallel bounds are not supported (one expression per dimension)"),
])
def test_bad_parallel_bands_are_located_parse_errors(body: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_module(f"func.func @f() {{\n  {body}\n  return\n}}\n", "p.mlir")
    assert info.value.message == message and info.value.loc.line == 2


def test_a_reduction_of_the_wrong_type_is_a_verify_error() -> None:
    text = ('func.func @f(%x: i32) -> i32 {\n  %r = affine.parallel (%i) = (0) to (4) reduce ("addf") '
            "-> (i32) {\n    affine.yield %x : i32\n  }\n  return %r : i32\n}\n")
    with pytest.raises(VerifyError, match="reduction 'addf' does not apply to i32"):
        verify(parse_module(text))

