"""Flattened tile loops and pipelined accumulator tiles (a buffer both copied in and out).

Differential: every transformed program gives bit-identical results to the original on the
host backend, and its DMAs stay in bounds; structural: the accumulator tile gets one more
slot than the other buffers, and refusals say why."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.ir import Builder, memref
from compiler.ir.ops import AffineForOp, AllocOp
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass
from compiler.transforms.affine_pipeline_data_transfer import AffinePipelineDataTransferPass
from compiler.transforms.pipeline.flatten_tile_loops import flatten, flatten_around, perfect_parent_chain
from tests.compiler.transforms.fixtures import copy_support as cs


def _gemm(m: int, n: int, k: int, tile: int, copy_kib: int = 1):  # type: ignore[no-untyped-def]
    return cs.tiled_gemm_with_copies(m, n, k, tile, copy_kib)


def _pipeline(module, options: str = "") -> str:  # type: ignore[no-untyped-def]
    p = AffinePipelineDataTransferPass(options)
    p.run(module)
    verify(module)
    return "\n".join(r.message for r in p.remarks)


def _loops(module) -> list[AffineForOp]:  # type: ignore[no-untyped-def]
    return [op for op in module.walk() if isinstance(op, AffineForOp)]


# ---- flattening alone ---------------------------------------------------------------------------

@pytest.mark.parametrize(("m", "n", "t"), [(32, 64, 8), (24, 40, 8), (16, 48, 8)])
def test_flatten_keeps_every_transfer_in_order(m: int, n: int, t: int) -> None:
    orig = cs.tiled_2d(m, n, t)
    copied = parse_module(print_module(orig))
    AffineDataCopyGeneratePass("generate-dma fast-mem-capacity=1").run(copied)
    flat = parse_module(print_module(copied))
    made = flatten_around([flat.funcs[0]], lambda lp: any(op.NAME == "affine.dma_start"
                                                          for op in lp.body.ops))
    verify(flat)
    assert len(made) == 1
    assert made[0].constant_trip_count == (m // t) * (n // t)
    want = [(x.src_start, x.dst_start, x.count) for x in cs.dma_transfers(copied.funcs[0])]
    got = [(x.src_start, x.dst_start, x.count) for x in cs.dma_transfers(flat.funcs[0])]
    assert got == want                          # same transfers, same order
    assert cs.same_results(orig, flat, cs.inputs_for(orig, seed=m))


def test_flatten_three_loops_with_offsets_and_steps() -> None:
    b = Builder()
    with b.func("k", X=memref((5, 7, 9))) as (X,):
        for i in b.range(1, 5, 2):
            for j in b.range(2, 7, 3):
                for kk in b.range(0, 9, 4):
                    X[i, j, kk] = X[i, j, kk] * 2.0 + 1.0
    orig = b.module
    m = parse_module(print_module(orig))
    outer = _loops(m)
    flat = flatten(outer[:2], outer[2])
    verify(m)
    assert flat.constant_trip_count == 2 * 2 * 3
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=3))


def test_perfect_parent_chain_stops_where_it_must() -> None:
    b = Builder()
    with b.func("k", X=memref((16, 16)), Y=memref((16,))) as (X, Y):
        for i in b.range(16):
            Y[i] = Y[i] * 2.0                    # not perfect: a store beside the inner loop
            for j in b.range(16):
                for kk in b.range(j, 16):        # triangular: bounds use a chain IV
                    X[i, kk] = X[i, kk] + 1.0
    loops = _loops(b.module)
    assert perfect_parent_chain(loops[1]) == []    # i's body holds a store too
    assert perfect_parent_chain(loops[2]) == []    # kk's lower bound uses j


# ---- accumulator tiles ------------------------------------------------------------------------

@pytest.mark.parametrize("stages", [2, 3])
def test_gemm_accumulator_tile_is_pipelined_with_an_extra_slot(stages: int) -> None:
    """C is read and written back per (i, j) tile: it gets stages + 1 slots (load t + 1,
    compute t, write back t - 1) and no tile boundary drains the C pipeline."""
    orig, m = _gemm(24, 16, 32, 8)
    rem = _pipeline(m, f"stages={stages}")
    assert "copy-out not pipelined" not in rem
    assert "tile loops flattened into one loop" in rem
    shapes = {op.memref_type.shape for op in m.walk() if isinstance(op, AllocOp)
              and op.memref_type.memory_space == 1}
    assert (stages + 1, 8, 8) in shapes         # C: one more slot than A and B
    assert (stages, 8, 8) in shapes
    assert cs.pipeline_drains(m.funcs[0], {"C", "arg2"}) == 0
    assert cs.out_of_bounds(m.funcs[0]) == []
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(orig, seed=stages).values())}
    assert cs.same_results(orig, m, inputs)


def test_without_flattening_cross_tile_prefetch_keeps_the_c_pipeline_full() -> None:
    """C is written in the tile loops, but never where the next (i, j) tile reads: cross-tile
    prefetch applies to its copy-in too. With neither extension it drains per row of tiles."""
    orig, m = _gemm(24, 16, 32, 8)               # 3 x 2 (i, j) tiles
    rem = _pipeline(m, "flatten-tile-loops=false")
    assert "copy-out not pipelined" not in rem and "cross-tile prefetch not applied" not in rem
    assert cs.pipeline_drains(m.funcs[0], {"C", "arg2"}) == 0
    _, plain = _gemm(24, 16, 32, 8)
    _pipeline(plain, "flatten-tile-loops=false cross-tile-prefetch=false")
    assert cs.pipeline_drains(plain.funcs[0], {"C", "arg2"}) == 3 - 1
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(orig, seed=5).values())}
    assert cs.same_results(orig, m, inputs) and cs.same_results(orig, plain, inputs)


def test_write_back_that_the_next_tile_reads_is_not_pipelined() -> None:
    """X[i + 8] = 2 X[i]: tile t writes back what tile t + 1 reads, a dependence that
    prefetching (and the deferred write-back wait) would break: nothing is multi-buffered."""
    b = Builder()
    with b.func("k", X=memref((520,))) as (X,):
        for ii in b.range(0, 512, 8):
            for i in b.range(ii, ii + 8):
                X[i + 8] = X[i] * 2.0
    orig = b.module
    m = parse_module(print_module(orig))
    AffineDataCopyGeneratePass("generate-dma fast-mem-capacity=1").run(m)
    rem = _pipeline(m)
    assert "won't pipeline this DMA: it reads %X, which the outgoing DMA at" in rem
    assert not any(len(op.memref_type.shape) == 2 for op in m.walk() if isinstance(op, AllocOp))
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=1))


def test_extra_slot_that_does_not_fit_keeps_copy_out_unpipelined() -> None:
    """32-tiles of f32: A, B, C tiles are 4 KiB each. With A and B double-buffered (16 KiB)
    and C's copy-in double-buffered (8 KiB), 24 KiB fit; C's third slot needs 28."""
    orig, tight = _gemm(64, 64, 64, 32, copy_kib=16)
    rem = _pipeline(tight, "fast-mem-capacity=24")
    assert "copy-out of %C_fast not pipelined: its extra slot does not fit the fast memory" in rem
    shapes = [op.memref_type.shape for op in tight.walk() if isinstance(op, AllocOp)
              and op.memref_type.memory_space == 1]
    assert (2, 32, 32) in shapes and (3, 32, 32) not in shapes
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(orig, seed=7).values())}
    assert cs.same_results(orig, tight, inputs)
    _, roomy = _gemm(64, 64, 64, 32, copy_kib=16)
    rem = _pipeline(roomy, "fast-mem-capacity=28")
    assert "not pipelined" not in rem
    assert any(op.memref_type.shape == (3, 32, 32) for op in roomy.walk() if isinstance(op, AllocOp))


# ---- cross-tile prefetch with writes in the tile loops ---------------------------------------------

_WRITES_IN_TILE_LOOPS = """
func.func @k(%X: memref<48xf32>, %Y: memref<48xf32>) {
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  affine.for %ii = 0 to 32 step 16 {
    affine.for %jj = 0 to 16 step 8 {
      %buf = memref.alloc() : memref<8xf32, 1>
      %tag = memref.alloc() : memref<1xi32, 2>
      affine.dma_start %X[%ii + %jj], %buf[0], %tag[0], %c8
        : memref<48xf32>, memref<8xf32, 1>, memref<1xi32, 2>
      affine.dma_wait %tag[0], %c8 : memref<1xi32, 2>
      affine.for %k = 0 to 8 {
        %v = affine.load %buf[%k] : memref<8xf32, 1>
        affine.store %v, %Y[%ii + %jj + %k] : memref<48xf32>
      }
      memref.dealloc %tag : memref<1xi32, 2>
      memref.dealloc %buf : memref<8xf32, 1>
    }
    affine.store %one, %X[%ii + OFFSET] : memref<48xf32>
  }
  return
}
"""


@pytest.mark.parametrize(("offset", "legal"), [(15, True), (16, False)])
def test_cross_tile_prefetch_checks_writes_in_the_tile_loops(offset: int, legal: bool) -> None:
    """After its column loop, tile ii writes X[ii + offset]. The next tile's first transfer reads
    X[ii + 16 .. ii + 24): issuing it early is legal for offset 15 (an element no later tile
    reads) and not for 16 (the next tile's first element)."""
    text = _WRITES_IN_TILE_LOOPS.replace("OFFSET", str(offset))
    orig, m = parse_module(text), parse_module(text)
    rem = _pipeline(m)
    if legal:
        assert "cross-tile prefetch: the next tile's first transfers" in rem
    else:
        assert ("cross-tile prefetch not applied: %X is written inside the tile loops where the "
                "next tile's transfer would read it") in rem
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=offset))


# ---- property: flattening never changes the iteration order -----------------------------------------

_loop = st.tuples(st.integers(0, 3), st.integers(1, 9), st.integers(1, 3))   # lo, trips, step


@settings(max_examples=25, deadline=None)
@given(st.lists(_loop, min_size=2, max_size=3))
def test_flatten_preserves_the_order_of_an_order_sensitive_recurrence(loops) -> None:  # type: ignore[no-untyped-def]
    """acc = 0.5 * acc + X[ivs]: any reordering of the iterations changes the float result."""
    his = [lo + trips * step for lo, trips, step in loops]
    shape = tuple(h + 1 for h in his)
    b = Builder()
    with b.func("k", X=memref(shape), acc=memref((1,))) as (X, acc):
        def nest(k: int, ivs: list) -> None:  # type: ignore[type-arg]
            if k == len(loops):
                acc[0] = acc[0] * 0.5 + X[tuple(ivs)]
                return
            lo, _, step = loops[k]
            for iv in b.range(lo, his[k], step):
                nest(k + 1, [*ivs, iv])
        nest(0, [])
    orig = b.module
    m = parse_module(print_module(orig))
    lps = _loops(m)
    flat = flatten(lps[:-1], lps[-1])
    verify(m)
    assert flat.constant_trip_count == math.prod(t for _, t, _ in loops)
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=len(loops)))
