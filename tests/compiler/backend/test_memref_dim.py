"""memref.dim on the host: the extent the argument array carries."""

from __future__ import annotations

import numpy as np
import pytest

from compiler.backend.cache import compile_module
from compiler.text import parse_module


@pytest.mark.parametrize("k", [0, 1])
def test_memref_dim_gives_the_extent_the_host_array_has(k: int) -> None:
    """memref.dim with a constant and with a run-time dimension, on a dynamic-shape argument."""
    text = """func.func @d(%A: memref<?x?xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %z = memref.dim %A, %k : memref<?x?xf32>
  affine.for %i = 0 to %m {
    %v = arith.index_cast %z : index to i64
    %f = arith.sitofp %v : i64 to f32
    affine.store %f, %A[%i, 0] : memref<?x?xf32>
  }
  return
}
"""
    a = np.zeros((3, 5), np.float32)
    compile_module(parse_module(text), bounds_check=True).call("d", {"A": a, "k": k})
    assert np.array_equal(a[:, 0], np.full(3, a.shape[k], np.float32)) and not a[:, 1:].any()
