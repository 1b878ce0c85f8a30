"""The matmul-like rule of the op counts (depth >= 3 with an `acc + a*b` reduction) counts
only loops of more than one trip: a tile loop over a whole extent (`0 to 400 step 400`, or
`%t to %t + 400 step 400`) adds no depth, so a matrix-vector kernel stays off the array."""

from __future__ import annotations

import pytest

from compiler.analysis.counting import count_ops, static_trip_count
from compiler.ir.ops import AffineForOp
from compiler.text import parse_module

MATVEC = """
func.func @k(%A: memref<25x400xf32>, %x: memref<400xf32>, %y: memref<25xf32>, %t: index) {
  affine.for %o = {lb} to {ub} step {step} {
    affine.for %i = 0 to 25 {
      affine.for %j = 0 to 400 {
        %a = affine.load %y[%i] : memref<25xf32>
        %b = affine.load %A[%i, %j] : memref<25x400xf32>
        %c = affine.load %x[%j] : memref<400xf32>
        %d = arith.mulf %b, %c : f32
        %e = arith.addf %a, %d : f32
        affine.store %e, %y[%i] : memref<25xf32>
      }
    }
  }
  return
}
"""


def _kernel(lb: str, ub: str, step: int):
    return parse_module(MATVEC.replace("{lb}", lb).replace("{ub}", ub)
                        .replace("{step}", str(step))).funcs[0]


@pytest.mark.parametrize("lb,ub,step,trips", [
    ("0", "400", 400, 1), ("%t", "affine_map<(d0) -> (d0 + 400)>(%t)", 400, 1),
    ("0", "400", 200, 2), ("%t", "affine_map<(d0) -> (d0 + 400)>(%t)", 100, 4),
    ("0", "%t", 400, None),
])
def test_one_trip_loops_add_no_depth(lb, ub, step, trips):
    f = _kernel(lb, ub, step)
    outer = next(op for op in f.walk() if isinstance(op, AffineForOp))
    assert static_trip_count(outer) == trips
    c = count_ops(f, [None, None, None, 7])
    assert c.max_depth == (2 if trips == 1 else 3)
    assert c.matmul_like is (trips != 1)
