"""affine-pipeline-data-transfer: results, structure, refusals (each with its remark), the
extensions, and comparison with upstream mlir-opt-19 with the extensions off."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.ir import F32, I32, Builder, memref
from compiler.ir.ops import AffineApplyOp, AffineDmaWaitOp, AllocOp
from compiler.ir.types import MemRefType
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.affine_pipeline_data_transfer import AffinePipelineDataTransferPass, Options
from compiler.transforms.data_copy.fast_memory import peak_live_bytes
from compiler.transforms.registry import parse_pass_flag
from tests.compiler.transforms.fixtures import copy_support as cs


def pipeline(module, options: str = "") -> AffinePipelineDataTransferPass:  # type: ignore[no-untyped-def]
    p = AffinePipelineDataTransferPass(options)
    p.run(module)
    verify(module)
    return p


def remarks(p: AffinePipelineDataTransferPass) -> str:
    return "\n".join(r.message for r in p.remarks)


def multi_buffers(module) -> list[MemRefType]:  # type: ignore[no-untyped-def]
    return [op.memref_type for op in module.walk() if isinstance(op, AllocOp)]


# ---- results ----------------------------------------------------------------------------------

@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("hi", [0, 32, 64, 96, 256])
def test_constant_trip_counts_all_stages_same_results(stages: int, hi: int) -> None:
    """Trip counts 0, 1, 2, 3 and 8 (below, at and above the number of stages)."""
    orig = cs.stream_kernel(hi=hi)
    m = cs.stream_kernel(hi=hi)
    p = pipeline(m, f"stages={stages}")
    assert "won't" not in remarks(p)
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=hi + stages))
    # N-deep buffering of the data and the tag, indexed by (iv floordiv step) mod N.
    types = multi_buffers(m)
    assert MemRefType((stages, 32), F32, 1) in types
    assert MemRefType((stages, 1), I32, 0) in types
    # Every DMA stays inside its memref, and only existing iterations run.
    assert cs.out_of_bounds(m.funcs[0]) == []
    assert cs.executed_stores(m.funcs[0]) == cs.executed_stores(orig.funcs[0])


@pytest.mark.parametrize("stages", [2, 3])
def test_structure_prologue_steady_epilogue(stages: int) -> None:
    m = cs.stream_kernel(hi=256)
    pipeline(m, f"stages={stages} cross-tile-prefetch=false")
    loops = list(cs.top_loops(m.funcs[0]))
    steady = [lp for lp in loops if lp.constant_lower == 32 * (stages - 1)]
    assert len(steady) == 1 and steady[0].constant_upper == 256
    # In the steady state the start of iteration i + stages - 1 comes before the wait of i.
    names = [op.NAME for op in steady[0].body.ops]
    assert names.index("affine.dma_start") < names.index("affine.dma_wait")
    shift = next(op for op in steady[0].body.ops if isinstance(op, AffineApplyOp))
    assert str(shift.map) == f"(d0) -> (d0 - {32 * (stages - 1)})"
    starts_before = sum(1 for op in m.funcs[0].body.ops[: m.funcs[0].body.ops.index(steady[0])]
                        for o in op.walk() if o.NAME == "affine.dma_start")
    assert starts_before == 1  # the prologue: one start, in a loop when it has > 1 iteration


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("n", [0, 32, 64, 96, 224])
def test_symbolic_trip_count_is_guarded(stages: int, n: int) -> None:
    orig = cs.stream_kernel(symbolic=True)
    m = cs.stream_kernel(symbolic=True)
    p = pipeline(m, f"stages={stages}")
    assert "symbolic trip count" in remarks(p)
    assert any(op.NAME == "affine.if" for op in m.walk())
    inputs = cs.inputs_for(orig, seed=n, scalars={"N": n})
    assert cs.same_results(orig, m, inputs)
    assert cs.executed_stores(m.funcs[0], {"N": n}) == cs.executed_stores(orig.funcs[0], {"N": n})


def test_nonzero_lower_bound() -> None:
    orig = cs.stream_kernel(lo=32, hi=200)
    m = cs.stream_kernel(lo=32, hi=200)
    pipeline(m, "stages=3")
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=5))


# ---- refusals, each with its remark -------------------------------------------------------------

def test_compat_refuses_unknown_trip_count() -> None:
    m = cs.stream_kernel(symbolic=True)
    before = print_module(m)
    p = pipeline(m, "mlir-compat")
    assert "won't pipeline: unknown trip count" in remarks(p)
    assert print_module(m) == before


def _escaping_kernel():  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("k", A=memref((256,)), O=memref((256,))) as (A, Out):
        buf = b.alloc(memref((32,), F32, 1))
        tag = b.alloc(memref((1,), I32, 0))
        for kk in b.range(0, 256, 32):
            b.dma_start(A, [kk], buf, [0], tag, [0], 32)
            b.dma_wait(tag, [0], 32)
            for k in b.range(32):
                Out[kk + k] = buf[k]
        Out[0] = buf[5]               # the fast buffer is read after the loop
    return b.module


def test_escaping_buffer_is_refused_with_remark() -> None:
    orig, m = _escaping_kernel(), _escaping_kernel()
    p = pipeline(m)
    assert "fast buffer" in remarks(p) and "used outside the loop" in remarks(p)
    assert all(t.rank == 1 for t in multi_buffers(m))
    assert cs.same_results(orig, m, cs.inputs_for(orig))


def _ahead_writer():  # type: ignore[no-untyped-def]
    """Iteration kk writes A[kk+32 ...], which iteration kk+32's DMA reads: skewing the start
    of the next iteration above this iteration's compute would read stale data."""
    b = Builder()
    with b.func("k", A=memref((288,)), O=memref((288,))) as (A, _out):
        for kk in b.range(0, 256, 32):
            buf = b.alloc(memref((32,), F32, 1))
            tag = b.alloc(memref((1,), I32, 0))
            b.dma_start(A, [kk], buf, [0], tag, [0], 32)
            b.dma_wait(tag, [0], 32)
            for k in b.range(32):
                A[kk + k + 32] = buf[k] + 1.0
            b.dealloc(tag)
            b.dealloc(buf)
    return b.module


def test_illegal_shift_is_refused_with_remark() -> None:
    orig, m = _ahead_writer(), _ahead_writer()
    p = pipeline(m)
    assert "won't pipeline: the skew would break a dependence" in remarks(p)
    assert cs.same_results(orig, m, cs.inputs_for(orig))


def test_capacity_lowers_stages_then_refuses() -> None:
    # one 32-float buffer = 128 B; 4 stages need 512 B; 1 KiB fits, so use a second buffer
    m = cs.stream_kernel(hi=256, t=256)            # buffer 1 KiB
    p = pipeline(m, "stages=4 fast-mem-capacity=3")
    assert "pipelined with 3 stages instead of 4" in remarks(p)
    assert peak_live_bytes(m, 1) <= 3 * 1024
    m2 = cs.stream_kernel(hi=256, t=256)
    p2 = pipeline(m2, "stages=2 fast-mem-capacity=1")
    assert "won't pipeline: double buffering needs 2048 bytes of fast memory, 1024 available" in remarks(p2)
    assert peak_live_bytes(m2, 1) <= 1024


def test_upstream_ignores_the_doubling_of_capacity() -> None:
    """Compat mode (MLIR) doubles regardless of capacity; our default counts every copy."""
    m = cs.stream_kernel(hi=256, t=256)
    pipeline(m, "mlir-compat fast-mem-capacity=1")
    assert peak_live_bytes(m, 1) == 2048


# ---- dependence-based conflicts, copy-out pipelining ----------------------------------------------

def _in_out_kernel(out_base: int):  # type: ignore[no-untyped-def]
    """Reads A[kk : kk+32], writes 2*x to A[out_base + kk : ...] through an outgoing DMA."""
    b = Builder()
    with b.func("k", A=memref((1024,))) as (A,):
        for kk in b.range(0, 256, 32):
            ib = b.alloc(memref((32,), F32, 1))
            ob = b.alloc(memref((32,), F32, 1))
            t1 = b.alloc(memref((1,), I32, 0))
            t2 = b.alloc(memref((1,), I32, 0))
            b.dma_start(A, [kk], ib, [0], t1, [0], 32)
            b.dma_wait(t1, [0], 32)
            for k in b.range(32):
                ob[k] = ib[k] * 2.0
            b.dma_start(ob, [0], A, [out_base + kk], t2, [0], 32)
            b.dma_wait(t2, [0], 32)
            for v in (t2, t1, ob, ib):
                b.dealloc(v)
    return b.module


def test_outgoing_dma_to_disjoint_tile_does_not_block() -> None:
    orig, m = _in_out_kernel(512), _in_out_kernel(512)
    p = pipeline(m)
    assert "outgoing DMA" not in remarks(p)
    assert any(t.shape == (2, 32) and t.memory_space == 1 for t in multi_buffers(m))
    assert cs.same_results(orig, m, cs.inputs_for(orig))
    compat = _in_out_kernel(512)
    pc = pipeline(compat, "mlir-compat")
    assert "which the outgoing DMA" in remarks(pc)           # MLIR: memref identity


def test_outgoing_dma_to_overlapping_tile_blocks() -> None:
    orig, m = _in_out_kernel(32), _in_out_kernel(32)     # writes what the next iteration reads
    p = pipeline(m)
    assert "which the outgoing DMA" in remarks(p)
    assert cs.same_results(orig, m, cs.inputs_for(orig))


def _copy_out_kernel():  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("k", A=memref((256,)), O=memref((256,))) as (A, Out):
        for kk in b.range(0, 256, 32):
            ib = b.alloc(memref((32,), F32, 1))
            ob = b.alloc(memref((32,), F32, 1))
            t1 = b.alloc(memref((1,), I32, 0))
            t2 = b.alloc(memref((1,), I32, 0))
            b.dma_start(A, [kk], ib, [0], t1, [0], 32)
            b.dma_wait(t1, [0], 32)
            for k in b.range(32):
                ob[k] = ib[k] * 2.0 + 1.0
            b.dma_start(ob, [0], Out, [kk], t2, [0], 32)
            b.dma_wait(t2, [0], 32)
            for v in (t2, t1, ob, ib):
                b.dealloc(v)
    return b.module


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_copy_out_pipelining_defers_the_write_back_wait(stages: int) -> None:
    orig, m = _copy_out_kernel(), _copy_out_kernel()
    pipeline(m, f"stages={stages}")
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=stages))
    assert cs.out_of_bounds(m.funcs[0]) == []
    steady = max(cs.top_loops(m.funcs[0]), key=lambda lp: len(lp.body.ops))
    waits = [op for op in steady.body.ops if isinstance(op, AffineDmaWaitOp)]
    shifts = {str(op.map) for op in steady.body.ops if isinstance(op, AffineApplyOp)}
    # the out wait runs one iteration after its start: shift stages*32 vs (stages-1)*32
    assert len(waits) == 2
    assert f"(d0) -> (d0 - {32 * stages})" in shifts and f"(d0) -> (d0 - {32 * (stages - 1)})" in shifts
    # the output buffer is multi-buffered too
    assert sum(1 for t in multi_buffers(m) if t.shape == (stages, 32) and t.memory_space == 1) == 2


def test_copy_out_pipelining_off() -> None:
    m = _copy_out_kernel()
    pipeline(m, "pipeline-copy-out=false")
    assert sum(1 for t in multi_buffers(m) if t.shape == (2, 32) and t.memory_space == 1) == 1


# ---- options ---------------------------------------------------------------------------------------

def test_options_use_mlir_names_and_validate() -> None:
    p = parse_pass_flag('--affine-pipeline-data-transfer="stages=3 pipeline-copy-out=false"')
    assert p.options == Options(stages=3, pipeline_copy_out=False)
    from compiler.diagnostics import OptionError

    with pytest.raises(OptionError, match="stages must be >= 2"):
        parse_pass_flag("--affine-pipeline-data-transfer=stages=1")


# ---- upstream mlir-opt-19 ----------------------------------------------------------------------------

SEED_004 = """
func.func @pipelinedatatransfer(%A: memref<256xf32>, %O: memref<32xf32>) {
  %0 = memref.alloc() : memref<256xf32>
  %1 = memref.alloc() : memref<32xf32, 1>
  %2 = memref.alloc() : memref<1xi32>
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  affine.for %i0 = 0 to 8 {
    affine.dma_start %A[%i0], %1[%i0], %2[%c0], %c128 : memref<256xf32>, memref<32xf32, 1>, memref<1xi32>
    affine.dma_wait %2[%c0], %c128 : memref<1xi32>
    %3 = affine.load %1[%i0] : memref<32xf32, 1>
    %4 = arith.mulf %3, %3 : f32
    affine.store %4, %O[%i0] : memref<32xf32>
  }
  return
}
"""


@pytest.mark.mlir_opt
def test_seed_004_example_matches_upstream(mlir_opt: str) -> None:
    """The pass-reference example: compute op replaced by arith.mulf, i32 tag (our verifier
    requires it), %A/%O arguments so the program is observable, DMA length 1 (in bounds)."""
    text = SEED_004.replace("%c128 = arith.constant 128", "%c128 = arith.constant 1")
    upstream = parse_module(cs.mlir_opt(text, "--affine-pipeline-data-transfer"))
    ours = parse_module(text)
    p = pipeline(ours, "mlir-compat")
    assert p.remarks == [] or all("won't" not in r.message for r in p.remarks)
    fu, fo = upstream.funcs[0], ours.funcs[0]
    assert cs.signature(fo) == cs.signature(fu)
    assert cs.fast_buffer_types(fo) == cs.fast_buffer_types(fu) == ["memref<2x32xf32, 1>"]
    assert cs.fast_buffer_types(fo, 0) == cs.fast_buffer_types(fu, 0)
    steady_o = [lp for lp in cs.top_loops(fo)]
    steady_u = [lp for lp in cs.top_loops(fu)]
    assert [(lp.constant_lower, lp.constant_upper) for lp in steady_o] == \
        [(lp.constant_lower, lp.constant_upper) for lp in steady_u] == [(1, 8)]
    inputs = cs.inputs_for(parse_module(text), seed=4)
    assert cs.same_results(upstream, ours, inputs)
    assert cs.same_results(parse_module(text), ours, inputs)


@pytest.mark.mlir_opt
def test_upstream_copies_then_both_pipelines_agree(mlir_opt: str) -> None:
    """Upstream tiles and DMA-copies a gemm; upstream's pipelining and ours (compat) give the
    same structure and results."""
    b = Builder()
    with b.func("gemm", A=memref((64, 64)), B=memref((64, 64)), C=memref((64, 64))) as (A, B, C):
        for i in b.range(64):
            for j in b.range(64):
                for k in b.range(64):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    src = print_module(b.module)
    copied = cs.mlir_opt(src, "--affine-loop-tile=tile-size=16",
                         "--affine-data-copy-generate=generate-dma fast-mem-capacity=4")
    upstream = parse_module(cs.mlir_opt(copied, "--affine-pipeline-data-transfer"))
    ours = parse_module(copied)
    pipeline(ours, "mlir-compat")
    assert cs.signature(ours.funcs[0]) == cs.signature(upstream.funcs[0])
    assert cs.fast_buffer_types(ours.funcs[0]) == cs.fast_buffer_types(upstream.funcs[0])
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(b.module, seed=1).values())}
    assert cs.same_results(upstream, ours, inputs)


@pytest.mark.mlir_opt
def test_upstream_v19_runs_missing_iterations_ours_does_not(mlir_opt: str) -> None:
    """Trip count 0: v19's promoted epilogue runs iteration -1 (trip count 1 is right)."""
    text = print_module(cs.stream_kernel(hi=32))
    upstream = parse_module(cs.mlir_opt(text, "--affine-pipeline-data-transfer"))
    ours = parse_module(text)
    pipeline(ours, "mlir-compat")
    orig = parse_module(text)
    n = cs.executed_stores(orig.funcs[0])
    assert cs.executed_stores(ours.funcs[0]) == n == cs.executed_stores(upstream.funcs[0])
    zero = print_module(cs.stream_kernel(hi=0))
    up0 = parse_module(cs.mlir_opt(zero, "--affine-pipeline-data-transfer"))
    ours0 = parse_module(zero)
    pipeline(ours0, "mlir-compat")
    assert cs.executed_stores(ours0.funcs[0]) == 0
    assert cs.executed_stores(up0.funcs[0]) > 0          # the upstream defect this fixes


def test_differential_check_catches_a_slot_conflict() -> None:
    """Mutation check of the harness: with every slot index forced to 0, the prefetch of
    iteration i + 1 overwrites the buffer iteration i still reads, and results change."""
    from compiler.transforms.rewrite.index_exprs import const_expr
    from compiler.transforms.rewrite.memref_uses import rewrite_memref

    orig, broken = cs.stream_kernel(hi=128), cs.stream_kernel(hi=128)
    pipeline(broken, "cross-tile-prefetch=false")
    mb = next(op.result for op in broken.walk() if isinstance(op, AllocOp)
              and op.memref_type.shape == (2, 32))
    for top in list(broken.funcs[0].body.ops):
        rewrite_memref([top], mb, mb, lambda idx: [const_expr(0), *idx[1:]])
    inputs = cs.inputs_for(orig)
    assert not cs.same_results(orig, broken, inputs)


# ---- cross-tile prefetch ------------------------------------------------------------------------------

def _tiled_gemm(m: int, n: int, k: int, tile: int):  # type: ignore[no-untyped-def]
    return cs.tiled_gemm_with_copies(m, n, k, tile)


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_cross_tile_prefetch_keeps_the_pipeline_full(stages: int) -> None:
    """gemm 24x20x36, 8-tiles: T = 5 k-steps per (i, j) tile, 9 tiles. Without the extension
    the A/B pipeline runs dry at every tile boundary; with it, never."""
    orig, with_ct = _tiled_gemm(24, 20, 36, 8)
    _, without = _tiled_gemm(24, 20, 36, 8)
    p = pipeline(with_ct, f"stages={stages}")
    pipeline(without, f"stages={stages} cross-tile-prefetch=false")
    assert "cross-tile prefetch: the next tile's first transfers" in remarks(p)
    srcs = {"A", "B", "arg0", "arg1"}
    assert cs.pipeline_drains(without.funcs[0], srcs) == 9 - 1
    assert cs.pipeline_drains(with_ct.funcs[0], srcs) == 0
    # the multi-buffers live across the tile loops: allocated at function level; C's copies
    # (partial tiles: affine.min counts, modelled exactly) are pipelined too, with one more slot
    fb = [op.memref_type.shape for op in with_ct.funcs[0].body.ops if isinstance(op, AllocOp)
          and op.memref_type.memory_space == 1]
    assert sorted(fb) == sorted([(stages, 8, 8), (stages, 8, 8), (stages + 1, 8, 8)])
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(orig, seed=stages).values())}
    assert cs.same_results(orig, with_ct, inputs)
    assert cs.out_of_bounds(with_ct.funcs[0]) == []


@pytest.mark.parametrize("stages", [2, 3])
def test_cross_tile_slot_counter_with_odd_trip_count(stages: int) -> None:
    """T = 3 k-steps (not a multiple of the stage count): slots follow a flattened counter."""
    orig, m = _tiled_gemm(13, 11, 21, 7)
    p = pipeline(m, f"stages={stages}")
    assert "cross-tile prefetch:" in remarks(p)
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(orig, seed=11).values())}
    assert cs.same_results(orig, m, inputs)
    assert cs.pipeline_drains(m.funcs[0], {"A", "B", "arg0", "arg1"}) == 0


def test_cross_tile_not_applied_says_why() -> None:
    m = cs.stream_kernel(hi=256)          # no enclosing tile loop: nothing to say
    p = pipeline(m)
    assert "cross-tile" not in remarks(p)
    orig, g = _tiled_gemm(16, 16, 16, 8)  # T = 2 k-steps: not above stages - 1 = 2
    p2 = pipeline(g, "stages=3")
    assert "cross-tile prefetch not applied: the pipelined loop needs a constant trip count above 2" \
        in remarks(p2)
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(orig).values())}
    assert cs.same_results(orig, g, inputs)


# ---- capacity over the whole flow, and the command line -------------------------------------------

@pytest.mark.mlir_opt
def test_upstream_flow_exceeds_capacity_ours_does_not(mlir_opt: str) -> None:
    """copy at fast-mem-capacity=4 then double buffering: upstream's live fast buffers end
    above 4 KiB (the doubling is not counted); ours stay within it."""
    from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass

    b = Builder()
    with b.func("gemm", A=memref((64, 64)), B=memref((64, 64)), C=memref((64, 64))) as (A, B, C):
        for i in b.range(64):
            for j in b.range(64):
                for k in b.range(64):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    text = cs.mlir_opt(print_module(b.module), "--affine-loop-tile=tile-size=16")
    upstream = parse_module(cs.mlir_opt(text, "--affine-data-copy-generate=generate-dma fast-mem-capacity=4",
                                        "--affine-pipeline-data-transfer"))
    assert peak_live_bytes(upstream, 1) > 4 * 1024
    ours = parse_module(text)
    AffineDataCopyGeneratePass("generate-dma fast-mem-capacity=4").run(ours)
    p = pipeline(ours, "stages=3 fast-mem-capacity=4")
    assert peak_live_bytes(ours, 1) <= 4 * 1024
    assert "fast memory" in remarks(p)          # stages were lowered or refused, and said so
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(b.module, seed=8).values())}
    assert cs.same_results(b.module, ours, inputs)


def test_accelsim_opt_accepts_the_flags_in_any_order(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from accelsim.cli import main

    src = tmp_path / "k.mlir"
    src.write_text(print_module(cs.tiled_2d(32, 32, 16)))
    rc = main(["opt", str(src), "--affine-data-copy-generate=generate-dma fast-mem-capacity=2",
               "--affine-pipeline-data-transfer=stages=3"])
    out = capsys.readouterr().out
    assert rc == 0
    m = parse_module(out)
    assert any(op.NAME == "affine.dma_start" for op in m.walk())
    assert any(isinstance(op, AllocOp) and op.memref_type.shape[0] == 3 for op in m.walk())


# ---- hypothesis: the skew is exact for any bounds, step, stage count ----------------------------------

def _general_stream(lo: int, hi: int, step: int, t: int, symbolic: bool):  # type: ignore[no-untyped-def]
    from compiler.ir import INDEX

    b = Builder()
    args = {"A": memref((512,)), "O": memref((512,))}
    if symbolic:
        args["N"] = INDEX
    with b.func("k", **args) as fargs:
        A, Out = fargs[0], fargs[1]
        count = b.constant(t, INDEX)
        for kk in b.range(lo, fargs[2] if symbolic else hi, step):
            buf = b.alloc(memref((t,), F32, 1))
            tag = b.alloc(memref((1,), I32, 0))
            b.dma_start(A, [kk], buf, [0], tag, [0], count)
            b.dma_wait(tag, [0], count)
            for k in b.range(t):
                Out[kk + k] = Out[kk + k] * 0.5 + buf[k]
            b.dealloc(tag)
            b.dealloc(buf)
    return b.module


@settings(max_examples=25, deadline=None)
@given(lo=st.integers(0, 40), trips=st.integers(0, 7), step=st.integers(1, 48), t=st.integers(1, 16),
       stages=st.integers(2, 5), symbolic=st.booleans())
def test_random_bounds_steps_and_stages(lo: int, trips: int, step: int, t: int, stages: int,
                                        symbolic: bool) -> None:
    hi = lo + trips * step - (step // 2 if trips else 0)   # upper bound not on the step grid
    if hi + t > 512 or lo + step * trips + t > 512:
        return
    orig = _general_stream(lo, hi, step, t, symbolic)
    m = _general_stream(lo, hi, step, t, symbolic)
    p = pipeline(m, f"stages={stages}")
    assert "won't" not in remarks(p)
    assert any(isinstance(op, AllocOp) and op.memref_type.shape == (stages, t) for op in m.walk())
    scal = {"N": hi} if symbolic else None
    assert cs.executed_stores(m.funcs[0], scal) == cs.executed_stores(orig.funcs[0], scal)
    assert cs.out_of_bounds(m.funcs[0], scal) == []
    starts = [x.src_start for x in cs.dma_transfers(m.funcs[0], scal)]
    want = [x.src_start for x in cs.dma_transfers(orig.funcs[0], scal)]
    assert starts == want                      # every transfer issued once, in order


def _scale_2d(m: int, n: int, t: int):  # type: ignore[no-untyped-def]
    """Out = 2*A + 1 over t x t tiles: a read tile and a write-only tile per step."""
    from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass

    b = Builder()
    with b.func("k", A=memref((m, n)), Out=memref((m, n))) as (A, Out):
        for ii in b.range(0, m, t):
            for jj in b.range(0, n, t):
                for i in b.range(ii, ii + t):
                    for j in b.range(jj, jj + t):
                        Out[i, j] = A[i, j] * 2.0 + 1.0
    orig = b.module
    copied = parse_module(print_module(orig))
    AffineDataCopyGeneratePass("generate-dma fast-mem-capacity=1").run(copied)
    return orig, copied


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("flatten", [False, True])
def test_cross_tile_prefetch_with_copy_out_pipelining(stages: int, flatten: bool) -> None:
    """Two ways to keep the pipeline full across rows of tiles: cross-tile prefetch on the
    nest, or (the default) the row and column tile loops flattened into one loop."""
    orig, m = _scale_2d(32, 64, 8)       # 4 x 8 tiles, T = 8 column tiles per row of tiles
    p = pipeline(m, f"stages={stages} flatten-tile-loops={str(flatten).lower()}")
    if flatten:
        assert "tile loops flattened into one loop" in remarks(p)
        assert "cross-tile" not in remarks(p)     # no tile loop is left around the pipeline
    else:
        assert "cross-tile prefetch: the next tile's first transfers" in remarks(p)
    assert "copy-out not pipelined" not in remarks(p)
    assert cs.pipeline_drains(m.funcs[0], {"A"}) == 0
    assert cs.out_of_bounds(m.funcs[0]) == []
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=stages))


def test_running_the_pass_twice_keeps_results() -> None:
    """The second run must not pair a prologue's starts with an epilogue's waits."""
    orig, m = _tiled_gemm(20, 12, 28, 4)
    pipeline(m, "stages=2")
    before = cs.signature(m.funcs[0])
    pipeline(m, "stages=3")
    inputs = {f"arg{i}": v for i, v in enumerate(cs.inputs_for(orig, seed=21).values())}
    assert cs.same_results(orig, m, inputs)
    assert cs.out_of_bounds(m.funcs[0]) == []
    assert len(cs.signature(m.funcs[0])) >= len(before)


SAME_ROW = """func.func @k(%A: memref<8x16xf32>, %Out: memref<4x16xf32>) {
  %n = arith.constant 16 : index
  affine.for %i = 0 to 8 {
    %a = memref.alloc() : memref<1x16xf32, 1>
    %o = memref.alloc() : memref<1x16xf32, 1>
    %ta = memref.alloc() : memref<1xi32, 2>
    %to = memref.alloc() : memref<1xi32, 2>
    affine.dma_start %A[%i, 0], %a[0, 0], %ta[0], %n : memref<8x16xf32>, memref<1x16xf32, 1>, memref<1xi32, 2>
    affine.dma_wait %ta[0], %n : memref<1xi32, 2>
    affine.for %j = 0 to 16 {
      %v = affine.load %a[0, %j] : memref<1x16xf32, 1>
      %w = arith.addf %v, %v : f32
      affine.store %w, %o[0, %j] : memref<1x16xf32, 1>
    }
    affine.dma_start %o[0, 0], %Out[ROW, 0], %to[0], %n : <FAST>, memref<4x16xf32>, <TAG>
    affine.dma_wait %to[0], %n : memref<1xi32, 2>
    memref.dealloc %to : memref<1xi32, 2>
    memref.dealloc %ta : memref<1xi32, 2>
    memref.dealloc %o : memref<1x16xf32, 1>
    memref.dealloc %a : memref<1x16xf32, 1>
  }
  return
}
""".replace("<FAST>", "memref<1x16xf32, 1>").replace("<TAG>", "memref<1xi32, 2>")


@pytest.mark.parametrize("row", ["0", "%i mod 2", "%i floordiv 2"])
def test_a_copy_out_of_the_same_elements_every_iteration_is_not_left_in_flight(row: str) -> None:
    """Fuzz seed 2547: a write-back of the same elements in several iterations (the same row
    every iteration, or every other one, or two in a row) left in flight into the next
    iteration would race with that iteration's write-back (two DMAs writing one element in no
    order): it finishes within its iteration, the copy-in is still pipelined, and the static
    race proof accepts the result."""
    from compiler.analysis.races import check_races

    text = SAME_ROW.replace("ROW", row)
    orig, m = parse_module(text), parse_module(text)
    p = pipeline(m, "stages=2")
    assert "copy-out not pipelined: the DMA at" in remarks(p)
    assert check_races(m.funcs[0]).ok
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=3))


def test_a_copy_out_of_other_elements_every_iteration_stays_in_flight() -> None:
    """The write-backs of distinct rows still overlap the next iteration."""
    from compiler.analysis.races import check_races

    text = SAME_ROW.replace("memref<4x16xf32>", "memref<8x16xf32>").replace("ROW", "%i")
    orig, m = parse_module(text), parse_module(text)
    p = pipeline(m, "stages=2")
    assert "copy-out not pipelined" not in remarks(p)
    assert check_races(m.funcs[0]).ok
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=3))
