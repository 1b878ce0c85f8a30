"""The analytic estimate on loops bounded by index arguments (upstream's symbolic cases):
the argument's value from the inputs gives the same cycles as the bound written as a
constant; without it, a clean InputError naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from accelsim.errors import InputError
from accelsim.estimate.analytic import estimate
from compiler.text import parse_module

SRC = """func.func @f(%A: memref<64xf32>, %B: memref<64xf32>, %n: index) {
  affine.for %i = 0 to BOUND {
    %v = affine.load %A[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %B[%i] : memref<64xf32>
  }
  return
}
"""


@pytest.mark.parametrize("n", [1, 17, 64])
def test_symbolic_bound_costs_as_the_constant_bound(n: int) -> None:
    symbolic = estimate(parse_module(SRC.replace("BOUND", "%n")), "default",
                        inputs={"n": np.array(n)})
    constant = estimate(parse_module(SRC.replace("BOUND", str(n))), "default")
    assert symbolic.cycles == constant.cycles and symbolic.cycles > 0


def test_a_missing_index_argument_is_named() -> None:
    with pytest.raises(InputError, match=r"needs the value of its index argument %n"):
        estimate(parse_module(SRC.replace("BOUND", "%n")), "default")
