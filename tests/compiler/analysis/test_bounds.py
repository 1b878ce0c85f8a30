"""`compiler.analysis.bounds`: accesses proven outside their memref, with a witness; checked
against brute-force enumeration of every access of small random nests."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.analysis.bounds import OutOfBoundsError, check_in_bounds, out_of_bounds_accesses
from compiler.text import parse_module


def _func(src: str):  # type: ignore[no-untyped-def]
    return parse_module(src, "t.mlir").funcs[0]


def _stencil(n: int, m: int, lo: int, hi: int, off_i: int, off_j: int, extent: int) -> str:
    return f"""func.func @f(%A: memref<{extent}x{extent}xf32>, %B: memref<{extent}x{extent}xf32>) {{
  affine.for %i = {lo} to {hi} {{
    affine.for %j = 0 to {n} step {m} {{
      %v = affine.load %A[%i + {off_i}, %j + {off_j}] : memref<{extent}x{extent}xf32>
      affine.store %v, %B[%i, %j] : memref<{extent}x{extent}xf32>
    }}
  }}
  return
}}
"""


def test_an_off_by_one_load_is_found_with_its_element_and_loop_values() -> None:
    (bad,) = out_of_bounds_accesses(_func(_stencil(8, 1, 0, 8, 0, 1, 8)))
    assert bad.op.NAME == "affine.load" and bad.loc.line == 4
    assert bad.element[1] == 8 and bad.dim == 1 and dict(bad.ivs)["j"] == 7
    assert "A[" in bad.message() and "index 8 of dimension 1 not in [0, 7]" in bad.message()


def test_in_bounds_programs_have_no_findings() -> None:
    assert out_of_bounds_accesses(_func(_stencil(8, 1, 0, 8, 0, 0, 8))) == []
    assert out_of_bounds_accesses(_func(_stencil(7, 1, 1, 8, -1, 1, 8))) == []


def test_check_in_bounds_raises_a_located_error() -> None:
    with pytest.raises(OutOfBoundsError, match=r"index -1 of dimension 0 not in \[0, 7\]") as e:
        check_in_bounds(_func(_stencil(8, 1, 0, 8, -1, 0, 8)))
    assert e.value.loc.line == 4


def test_a_dma_running_past_the_end_is_found() -> None:
    src = """func.func @f(%A: memref<8x64xf32>) {
  %buf = memref.alloc() : memref<64xf32, 1>
  %tag = memref.alloc() : memref<1xi32, 2>
  %n = arith.constant 64 : index
  affine.dma_start %A[7, 32], %buf[0], %tag[0], %n : memref<8x64xf32>, memref<64xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %tag[0], %n : memref<1xi32, 2>
  return
}
"""
    (bad,) = out_of_bounds_accesses(_func(src))
    assert bad.side == "src" and bad.element == (8, 0) and bad.dim == 0


def test_a_symbolic_range_is_left_to_the_run_time_checks() -> None:
    src = """func.func @f(%n: index, %A: memref<8xf32>) {
  affine.for %i = 0 to %n {
    %v = affine.load %A[%i] : memref<8xf32>
    affine.store %v, %A[%i] : memref<8xf32>
  }
  return
}
"""
    assert out_of_bounds_accesses(_func(src)) == []


@given(n=st.integers(1, 9), m=st.integers(1, 3), lo=st.integers(-2, 3), span=st.integers(0, 8),
       off_i=st.integers(-3, 3), off_j=st.integers(-3, 3), extent=st.integers(1, 10))
@settings(max_examples=150)
def test_findings_agree_with_enumeration(n: int, m: int, lo: int, span: int, off_i: int,
                                         off_j: int, extent: int) -> None:
    hi = lo + span
    func = _func(_stencil(n, m, lo, hi, off_i, off_j, extent))
    found = {(b.op.NAME, b.element) for b in out_of_bounds_accesses(func)}
    loads = [(i + off_i, j + off_j) for i, j in itertools.product(range(lo, hi), range(0, n, m))]
    stores = [(i, j) for i, j in itertools.product(range(lo, hi), range(0, n, m))]
    for name, points in (("affine.load", loads), ("affine.store", stores)):
        outside = [p for p in points if not all(0 <= x < extent for x in p)]
        reported = [e for op, e in found if op == name]
        assert bool(outside) == bool(reported), (name, outside[:3], reported)
        assert all(e in outside for e in reported)  # the witness is a real access
