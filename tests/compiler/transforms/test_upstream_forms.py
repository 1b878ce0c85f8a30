"""The passes on the forms upstream's tests feed them (behaviour of mlir/test/Dialect/Affine
ported, not their text): copies inside one memory space, unregistered ops of unknown memory
effect, dynamic-shape and aligned double buffers, float tags. Differential where it runs:
the transformed program against the original on the host, bit for bit."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from compiler.backend import run_host
from compiler.ir.ops import AffineDmaStartOp, AllocOp, DimOp, OpaqueOp
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.registry import PassManager
from tests.compiler.transforms.fixtures import copy_support as cs


def run_passes(module, *flags: str) -> PassManager:  # type: ignore[no-untyped-def]
    pm = PassManager.from_flags(list(flags))
    pm.run(module)
    verify(module)
    return pm


@pytest.mark.parametrize("flag", ['--affine-data-copy-generate="fast-mem-space=0 skip-non-unit-stride-loops"',
                                  '--affine-data-copy-generate="fast-mem-space=0 fast-mem-capacity=1"',
                                  '--affine-data-copy-generate="fast-mem-space=0 generate-dma"'])
def test_copies_inside_one_memory_space_are_pointwise_and_exact(flag: str) -> None:
    orig, m = cs.gemm(48, 40, 32), cs.tile(cs.gemm(48, 40, 32), 16)
    run_passes(m, flag)
    new = [op for op in m.walk() if isinstance(op, AllocOp)]
    assert new and all(op.memref_type.memory_space == 0 for op in new)
    assert not [op for op in m.walk() if isinstance(op, AffineDmaStartOp)]  # no DMA within a space
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=3))


OPAQUE_IN_LOOP = """
func.func @f(%A: memref<64xf32>, %B: memref<64xf32>, %O: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i] : memref<64xf32>
    %b = affine.load %B[%i] : memref<64xf32>
    "test.touch"(%A) : (memref<64xf32>) -> ()
    %s = arith.addf %a, %b : f32
    affine.store %s, %O[%i] : memref<64xf32>
  }
  return
}
"""


def test_a_memref_an_unregistered_op_takes_is_not_copied_the_others_are() -> None:
    m = parse_module(OPAQUE_IN_LOOP)
    pm = run_passes(m, '--affine-data-copy-generate="fast-mem-space=1 generate-dma=false"')
    [add] = [op for op in m.walk() if op.NAME == "arith.addf"]
    a, b = (v.owner.memref for v in add.operands)  # type: ignore[attr-defined]
    assert a.name_hint == "A" and b.type.memory_space == 1   # A read in place, B from its buffer
    assert any("unknown memory effect" in str(r) for r in pm.remarks)
    [touch] = [op for op in m.walk() if isinstance(op, OpaqueOp)]
    assert touch.operands[0].name_hint == "A"         # still the original memref


def test_tiling_skips_a_band_with_an_unregistered_memref_op_but_tiles_index_only_ones() -> None:
    m = parse_module(OPAQUE_IN_LOOP)
    pm = run_passes(m, '--affine-loop-tile="tile-size=16"')
    assert any("memory effects are unknown" in str(r) for r in pm.remarks)
    assert print_module(m).count("affine.for") == 1
    idx = parse_module('func.func @g() {\n  affine.for %i = 0 to 64 {\n    "test.foo"(%i) : (index) -> ()\n'
                       '  }\n  return\n}\n')
    run_passes(idx, '--affine-loop-tile="tile-size=16"')
    printed = print_module(idx)
    assert printed.count("affine.for") == 2 and '"test.foo"(' in printed


PIPE = """
func.func @p(%A: memref<256xf32>, %O: memref<256xf32>) {
  %c32 = arith.constant 32 : index
  %buf = memref.alloc() {alignment = 256} : memref<32xf32, 1>
  %tag = memref.alloc() : memref<1xf32>
  affine.for %i = 0 to 8 {
    affine.dma_start %A[%i * 32], %buf[0], %tag[0], %c32, : memref<256xf32>, memref<32xf32, 1>, memref<1xf32>
    affine.dma_wait %tag[0], %c32 : memref<1xf32>
    USE
    affine.for %j = 0 to 32 {
      %v = affine.load %buf[%j] : memref<32xf32, 1>
      affine.store %v, %O[%i * 32 + %j] : memref<256xf32>
    }
  }
  memref.dealloc %tag : memref<1xf32>
  memref.dealloc %buf : memref<32xf32, 1>
  return
}
"""


def test_float_tags_pipeline_and_keep_the_buffer_alignment_exactly() -> None:
    src = PIPE.replace("USE", "")
    orig, m = parse_module(src), parse_module(src)
    verify(orig)
    run_passes(m, "--affine-pipeline-data-transfer")
    allocs = [op for op in m.walk() if isinstance(op, AllocOp)]
    assert {(str(op.memref_type), op.alignment) for op in allocs} == {
        ("memref<2x32xf32, 1>", 256), ("memref<2x1xf32>", None)}
    inputs = {"A": np.random.default_rng(1).uniform(-1, 1, 256).astype(np.float32),
              "O": np.zeros(256, np.float32)}
    want, got = run_host(orig, inputs), run_host(m, inputs)
    assert np.array_equal(want["O"], got["O"]) and np.array_equal(want["O"], inputs["A"])


@pytest.mark.parametrize("use", ['"test.see"(%buf) : (memref<32xf32, 1>) -> ()',
                                 '"test.see"(%tag) : (memref<1xf32>) -> ()'])
def test_an_escaping_buffer_or_tag_is_not_pipelined(use: str) -> None:
    m = parse_module(PIPE.replace("USE", use))
    pm = run_passes(m, "--affine-pipeline-data-transfer")
    assert not any(op.memref_type.rank == 2 for op in m.walk() if isinstance(op, AllocOp))
    assert any("won't pipeline" in str(r) for r in pm.remarks)


DYN = """
func.func @d(%A: memref<512x32xf32>, %Av: memref<?x?xf32, 2>) {
  %n = arith.constant 512 : index
  %c0 = arith.constant 0 : index
  %tag = memref.alloc() : memref<1xi32>
  affine.for %k = 0 to 16 {
    affine.dma_start %A[%c0, %c0], %Av[%c0, %c0], %tag[%c0], %n
      : memref<512x32xf32>, memref<?x?xf32, 2>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
  }
  return
}
"""


def test_a_dynamic_shape_buffer_is_double_buffered_with_its_sizes(mlir_opt: str) -> None:
    m = parse_module(DYN)
    run_passes(m, "--affine-pipeline-data-transfer")
    dims = [op for op in m.walk() if isinstance(op, DimOp)]
    assert [d.constant_index() for d in dims] == [0, 1]
    [mb] = [op for op in m.walk() if isinstance(op, AllocOp) and op.memref_type.rank == 3]
    assert str(mb.memref_type) == "memref<2x?x?xf32, 2>" and list(mb.operands) == [d.result for d in dims]
    done = subprocess.run([mlir_opt], input=print_module(m), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_a_band_with_an_access_proven_out_of_bounds_is_not_tiled() -> None:
    """Upstream's diagonal-dependence case reads A[i, j - 1] at j = 0: subscripts no longer
    name the element touched, so the band stays as written, with the access in the remark."""
    src = """func.func @diag(%A: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %0 = affine.load %A[%j, %i] : memref<64x64xf32>
      %1 = affine.load %A[%i, %j - 1] : memref<64x64xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %A[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
"""
    m = parse_module(src)
    pm = run_passes(m, '--affine-loop-tile="tile-size=32"')
    assert "step 32" not in print_module(m)
    assert any("A[0, -1] outside memref<64x64xf32>" in str(r) for r in pm.remarks)
    inside = parse_module(src.replace("%j - 1", "%j"))
    run_passes(inside, '--affine-loop-tile="tile-size=32"')
    assert print_module(inside).count("step 32") == 2   # in bounds: legal, and tiled
