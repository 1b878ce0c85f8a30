"""The printer's exact output for a built module (FileCheck-style golden text)."""

from __future__ import annotations

from compiler.ir import F32, I32, INDEX, Builder, memref
from compiler.ir.verifier import verify
from compiler.text import module_diff, parse_module, print_module

GOLDEN = """\
#map = affine_map<(d0) -> (d0 - 1, 0)>
#map1 = affine_map<()[s0] -> (s0, 64)>
#set = affine_set<(d0) : (d0 - 1 >= 0)>
module {
  func.func @k(%A: memref<64x64xf32>, %n: index) {
    %buf = memref.alloc() : memref<16x64xf32, 1>
    %tag = memref.alloc() : memref<1xi32>
    affine.for %arg0 = 0 to %n step 16 {
      %0 = arith.constant 1024 : index
      %1 = arith.constant 64 : index
      %2 = arith.constant 64 : index
      affine.dma_start %A[%arg0, 0], %buf[0, 0], %tag[0], %0, %1, %2 : memref<64x64xf32>, memref<16x64xf32, 1>, memref<1xi32>
      %3 = arith.constant 1024 : index
      affine.dma_wait %tag[0], %3 : memref<1xi32>
      affine.for %arg1 = 0 to 16 {
        affine.for %arg2 = max #map(%arg1) to min #map1()[%n] {
          %4 = affine.load %buf[%arg1, %arg2] : memref<16x64xf32, 1>
          %5 = arith.constant 0.5 : f32
          %6 = arith.mulf %4, %5 : f32
          affine.if #set(%arg2) {
            affine.store %6, %A[%arg0 + %arg1, %arg2 - 1] : memref<64x64xf32>
          }
        }
      }
    }
    memref.dealloc %tag : memref<1xi32>
    memref.dealloc %buf : memref<16x64xf32, 1>
    return
  }
}
"""  # noqa: E501


def test_printer_golden() -> None:
    b = Builder()
    with b.func("k", A=memref((64, 64)), n=INDEX) as (A, n):
        buf = b.alloc(memref((16, 64), F32, 1), "buf")
        tag = b.alloc(memref((1,), I32), "tag")
        for i in b.range(0, n, 16):
            b.dma_start(A, [i, 0], buf, [0, 0], tag, [0], 1024, stride=64, elements_per_stride=64)
            b.dma_wait(tag, [0], 1024)
            for ii in b.range(16):
                for j in b.range([ii - 1, 0], [n, 64]):
                    v = buf[ii, j] * 0.5
                    with b.if_(j >= 1):
                        A[i + ii, j - 1] = v
        b.dealloc(tag)
        b.dealloc(buf)
    verify(b.module)
    assert print_module(b.module) == GOLDEN
    assert module_diff(b.module, parse_module(GOLDEN)) is None


def test_an_op_without_syntax_is_a_clean_error() -> None:
    import pytest

    from compiler.diagnostics import AccelsimError
    from compiler.ir.core import Operation

    class Mystery(Operation):
        NAME = "test.mystery"

    b = Builder()
    with b.func("m") as ():
        b.insert(Mystery())
    with pytest.raises(AccelsimError, match=r"cannot print op 'test.mystery' \(Mystery\) at .*"):
        print_module(b.module)
