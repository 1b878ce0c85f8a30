"""affine-data-copy-generate: results, placement, capacity, DMA shapes, and each case where
upstream MLIR v19 is wrong (partial tiles, sparse writes, 3-D tiles) checked against it."""

from __future__ import annotations

import pytest

from compiler.diagnostics import PassError
from compiler.ir import Builder, memref
from compiler.ir.ops import AffineDmaStartOp, AffineForOp, AffineLoadOp, AllocOp
from compiler.ir.types import F32
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass, Options
from compiler.transforms.data_copy.fast_memory import peak_live_bytes
from compiler.transforms.registry import parse_pass_flag
from tests.compiler.transforms.fixtures import copy_support as cs


def copy(module, options: str = "") -> AffineDataCopyGeneratePass:  # type: ignore[no-untyped-def]
    p = AffineDataCopyGeneratePass(options)
    p.run(module)
    verify(module)
    return p


def dma_starts(module) -> list[AffineDmaStartOp]:  # type: ignore[no-untyped-def]
    return [op for op in module.walk() if isinstance(op, AffineDmaStartOp)]


def gemm(m: int, n: int, k: int):  # type: ignore[no-untyped-def]
    return cs.gemm(m, n, k)


# ---- basic results in both forms -------------------------------------------------------------

@pytest.mark.parametrize("dma", [True, False])
@pytest.mark.parametrize("cap", [None, 1, 2])
def test_tiled_2d_partial_tiles_same_results(dma: bool, cap: int | None) -> None:
    orig, m = cs.tiled_2d(40, 36, 16), cs.tiled_2d(40, 36, 16)
    opts = f"generate-dma={'true' if dma else 'false'}" + (f" fast-mem-capacity={cap}" if cap else "")
    copy(m, opts)
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=cap or 0))
    assert cs.out_of_bounds(m.funcs[0]) == []
    # every slow access went to a fast buffer
    assert all(op.memref.type.memory_space == 1 for op in m.walk()  # type: ignore[attr-defined]
               if isinstance(op, AffineLoadOp) and _in_compute(op))
    if cap is not None:
        assert peak_live_bytes(m, 1) <= cap * 1024


def _in_compute(op) -> bool:  # type: ignore[no-untyped-def]
    """A load that is not itself part of a point-wise copy nest (those read slow memory)."""
    return any(o.NAME == "arith.mulf" for o in op.parent_block.ops)


# ---- where upstream v19 is wrong ------------------------------------------------------------------

@pytest.mark.mlir_opt
def test_partial_tile_dma_is_clipped_upstream_reads_past_the_end(mlir_opt: str) -> None:
    """Length-1000 vectors in 256-element tiles (the issue's example)."""
    text = print_module(cs.tiled_1d(1000, 256))
    flags = "--affine-data-copy-generate=generate-dma fast-mem-capacity=3"
    upstream = parse_module(cs.mlir_opt(text, flags))
    assert cs.out_of_bounds(upstream.funcs[0]) != []          # upstream: constant box size
    ours = parse_module(text)
    copy(ours, "generate-dma fast-mem-capacity=3")
    assert cs.out_of_bounds(ours.funcs[0]) == []
    assert cs.same_results(parse_module(text), ours, cs.inputs_for(ours))
    # one DMA per region (A, B in; O out), the element count clipped with affine.min
    assert len(dma_starts(ours)) == 3
    assert any(op.NAME == "affine.min" for op in ours.walk())


def _masked_store(n: int, t: int):  # type: ignore[no-untyped-def]
    """A write-only memref written at i % 4 == 0 only (an affine.if): a sparse, non-lattice
    written set inside each tile's box."""
    b = Builder()
    with b.func("k", A=memref((n,)), Out=memref((n,))) as (A, Out):
        for ii in b.range(0, n, t):
            for i in b.range(ii, ii + t):
                with b.if_((i % 4).eq(0)):
                    Out[i] = A[i] * 3.0
    return b.module


@pytest.mark.mlir_opt
@pytest.mark.parametrize("kernel", ["masked", "strided"])
def test_sparse_store_copy_out_writes_only_written_elements(mlir_opt: str, kernel: str) -> None:
    """Upstream issue #54994: a write-only memref written at some elements of its box. Ours
    replays the stores (masked) or compacts the lattice (strided: Out[2i]); upstream writes
    the stale buffer back over the untouched elements."""
    build = (lambda: _masked_store(256, 16)) if kernel == "masked" else (lambda: cs.strided_store(256, 16))
    text = print_module(build())
    inputs = cs.inputs_for(build(), seed=7)
    for dma in ("true", "false"):
        upstream = parse_module(cs.mlir_opt(text, f"--affine-data-copy-generate=generate-dma={dma} "
                                                  "fast-mem-capacity=1"))
        assert not cs.same_results(build(), upstream, inputs)        # stale elements
        ours = parse_module(text)
        p = copy(ours, f"generate-dma={dma} fast-mem-capacity=1")
        said = "\n".join(r.message for r in p.remarks)
        if kernel == "masked":
            assert "writes back only the elements" in said
        else:
            assert "one element in 2 of the last dimension" in said
            assert cs.fast_buffer_types(ours.funcs[0]) == ["memref<16xf32, 1>"] * 2
        assert cs.same_results(build(), ours, inputs)
        assert cs.out_of_bounds(ours.funcs[0]) == []


def test_strided_read_is_compacted_into_a_strided_dma() -> None:
    orig, m = cs.strided_store(256, 32), cs.strided_store(256, 32)
    copy(m, "generate-dma fast-mem-capacity=1")
    transfers = cs.dma_transfers(m.funcs[0])
    assert transfers and all((t.count, t.stride, t.per) == (32, 2, 1) for t in transfers)
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=2))


@pytest.mark.mlir_opt
def test_three_d_tile_gets_a_dma_upstream_silently_none(mlir_opt: str) -> None:
    """4x4x4 tiles of 8x8x16 arrays need two stride levels; v19 gives up on the region (its
    fast buffer is allocated and never used) and leaves the accesses on slow memory."""
    text = print_module(cs.tiled_3d(8, 8, 16, 4))
    flags = "--affine-data-copy-generate=generate-dma fast-mem-capacity=1"
    upstream = parse_module(cs.mlir_opt(text, flags))
    assert dma_starts(upstream) == []
    ours = parse_module(text)
    copy(ours, "generate-dma fast-mem-capacity=1")
    assert cs.fast_buffer_types(ours.funcs[0]) == ["memref<4x4x4xf32, 1>"] * 2
    starts = dma_starts(ours)
    assert starts and all(s.is_strided for s in starts)
    assert cs.out_of_bounds(ours.funcs[0]) == []
    assert cs.same_results(parse_module(text), ours, cs.inputs_for(ours))


def test_three_d_partial_tiles_pointwise_and_dma() -> None:
    for dma in ("true", "false"):
        orig, m = cs.tiled_3d(7, 6, 5, 4), cs.tiled_3d(7, 6, 5, 4)
        copy(m, f"generate-dma={dma} fast-mem-capacity=1")
        assert cs.out_of_bounds(m.funcs[0]) == []
        assert cs.same_results(orig, m, cs.inputs_for(orig, seed=3))


# ---- DMA shape ----------------------------------------------------------------------------------

def test_two_d_tile_is_one_strided_dma_per_region() -> None:
    m = cs.tiled_2d(64, 64, 16)
    copy(m, "generate-dma fast-mem-capacity=2")
    starts = dma_starts(m)
    assert len(starts) == 3                          # A in, O in, O out
    transfers = cs.dma_transfers(m.funcs[0])
    first = transfers[0]
    assert (first.count, first.stride, first.per) == (256, 64, 16)
    assert all(isinstance(s.parent_op, AffineForOp) and s.parent_op.step == 16 for s in starts)
    tags = [op.memref_type for op in m.walk() if isinstance(op, AllocOp)
            and op.memref_type.element.name == "i32"]
    assert tags and all(str(t) == "memref<1xi32>" for t in tags)


def test_tag_space_and_fast_space_options() -> None:
    m = cs.tiled_2d(32, 32, 16)
    copy(m, "generate-dma fast-mem-space=2 tag-mem-space=3 fast-mem-capacity=2")
    spaces = {op.memref_type.memory_space for op in m.walk() if isinstance(op, AllocOp)}
    assert spaces == {2, 3}


def test_copies_take_the_location_of_the_access() -> None:
    m = cs.tiled_2d(32, 32, 16)
    loads = {op.memref.name_hint: op.loc for op in m.walk() if isinstance(op, AffineLoadOp)}  # type: ignore[union-attr]
    copy(m, "generate-dma fast-mem-capacity=2")
    a_start = next(s for s in dma_starts(m) if s.src.name_hint == "A")
    assert a_start.loc == loads["A"]


# ---- placement and capacity ------------------------------------------------------------------------

def test_invariant_region_is_hoisted_out_of_the_reduction_loop() -> None:
    """C[i-tile, j-tile] does not depend on the k-tile loop: its copies sit outside it."""
    from compiler.ir.ops import FuncOp

    m = cs.tile(gemm(32, 32, 32), 8)
    orig = cs.tile(gemm(32, 32, 32), 8)
    copy(m, "generate-dma fast-mem-capacity=1")
    c_in = next(s for s in dma_starts(m) if s.src.name_hint in ("C", "arg2"))
    loops = [a for a in c_in.ancestors() if isinstance(a, AffineForOp)]
    a_in = next(s for s in dma_starts(m) if s.src.name_hint in ("A", "arg0"))
    a_loops = [a for a in a_in.ancestors() if isinstance(a, AffineForOp)]
    assert len(a_loops) == len(loops) + 1           # A's copy is inside the k-tile loop
    assert isinstance(m.funcs[0], FuncOp)
    assert cs.same_results(orig, m, cs.inputs_for(orig))


@pytest.mark.parametrize("cap", [1, 2, 3, 8, 64])
def test_live_fast_buffers_never_exceed_capacity(cap: int) -> None:
    orig, m = cs.tile(gemm(24, 20, 28), 8), cs.tile(gemm(24, 20, 28), 8)
    copy(m, f"fast-mem-capacity={cap}")
    assert 0 < peak_live_bytes(m, 1) <= cap * 1024
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=cap))


def test_capacity_error_when_even_the_innermost_level_does_not_fit() -> None:
    m = cs.tiled_2d(16, 16, 8)
    with pytest.raises(PassError, match=r"need 8 bytes of fast memory, 0 bytes available"):
        copy(m, "fast-mem-capacity=0")


# a nest no tiling shrinks (a dependence on %C forbids it): C's box at the innermost level is
# 20 x 23 floats, more than 1 KiB (the fuzzer's seed 1091)
UNTILEABLE = """func.func @f(%A: memref<31x31xf32>, %B: memref<31x31xf32>, %C: memref<31x31xf32>) {
  affine.for %i1 = 0 to 9 {
    affine.for %i2 = 0 to 12 {
      affine.for %i3 = 0 to 20 {
        %v4 = affine.load %C[%i3, %i2 + 3] : memref<31x31xf32>
        %v5 = affine.load %B[%i1, %i1] : memref<31x31xf32>
        %v6 = affine.load %C[%i2, %i2 + 2] : memref<31x31xf32>
        %c8 = arith.cmpf olt, %v4, %v5 : f32
        %v7 = arith.select %c8, %v4, %v5 : f32
        affine.store %v7, %C[%i1, %i3] : memref<31x31xf32>
      }
    }
  }
  return
}
"""


def test_skip_oversized_copies_what_fits_and_leaves_the_rest_in_slow_memory() -> None:
    with pytest.raises(PassError, match=r"need 1604 bytes of fast memory, 1024 bytes available"):
        copy(parse_module(UNTILEABLE), "generate-dma fast-mem-capacity=1")
    orig, m = parse_module(UNTILEABLE), parse_module(UNTILEABLE)
    p = copy(m, "generate-dma fast-mem-capacity=1 skip-oversized")
    assert any("no copy for %C" in r.message and "skip-oversized" in r.message for r in p.remarks)
    copied = {s.src.name_hint for s in dma_starts(m)}
    assert copied == {"B"}                       # B's one element fits; C stays in place
    assert 0 < peak_live_bytes(m, 1) <= 1024
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=3))


def test_skip_oversized_changes_nothing_where_the_buffers_fit() -> None:
    a, b = cs.tile(gemm(24, 20, 28), 8), cs.tile(gemm(24, 20, 28), 8)
    copy(a, "generate-dma fast-mem-capacity=4")
    copy(b, "generate-dma fast-mem-capacity=4 skip-oversized")
    assert print_module(a) == print_module(b)


DIAGONAL = """func.func @f(%C: memref<32x32xf32>) {
  affine.for %i = 0 to 7 {
    %a = affine.load %C[%i + 3, %i + 1] : memref<32x32xf32>
    %b = affine.load %C[%i, %i] : memref<32x32xf32>
    %s = arith.addf %a, %b : f32
    affine.store %s, %C[%i, %i] : memref<32x32xf32>
  }
  return
}
"""


def test_exact_copy_out_writes_back_only_the_stored_elements() -> None:
    """C's box is 10 x 8, read, and written on its diagonal only: by default the whole box
    goes back (a DMA out), with exact-copy-out only the 7 stored elements (a cluster's share
    must not write back what another cluster computed)."""
    whole, exact, orig = parse_module(DIAGONAL), parse_module(DIAGONAL), parse_module(DIAGONAL)
    copy(whole, "generate-dma")
    p = copy(exact, "generate-dma exact-copy-out")
    assert [s.dst.name_hint for s in dma_starts(whole)] == ["C_fast", "C"]
    assert [s.dst.name_hint for s in dma_starts(exact)] == ["C_fast"]
    assert any("writes back only the elements the nest stores" in r.message for r in p.remarks)
    assert cs.same_results(orig, exact, cs.inputs_for(orig, seed=5))


def test_exact_copy_in_reads_only_the_loaded_elements() -> None:
    """C's box is 10 x 8 and only its diagonal is touched: with exact-copy-in (and
    exact-copy-out) no DMA moves C; the copies replay the loads and stores, read exactly the
    14 elements it loads from %C and write back exactly the 7 it stores (another cluster may write the
    rest of the box meanwhile: fuzz seeds 1335, 1643). A box every element of which the
    range touches keeps its DMA."""
    exact, orig = parse_module(DIAGONAL), parse_module(DIAGONAL)
    p = copy(exact, "generate-dma exact-copy-out exact-copy-in")
    assert [s.dst.name_hint for s in dma_starts(exact)] == []
    assert any("reads only the elements the nest loads" in r.message for r in p.remarks)
    assert cs.same_results(orig, exact, cs.inputs_for(orig, seed=5))
    from compiler.analysis.races import _phase_footprints

    ph, _ = _phase_footprints(exact.funcs[0])
    reads, writes = ph[0][0]
    assert (reads.count_val().to_python(), writes.count_val().to_python()) == (14, 7)
    dense = cs.tiled_2d(40, 36, 16)
    copy(dense, "generate-dma exact-copy-in")
    assert dma_starts(dense)


TRIANGLE_SHIFT = """func.func @f(%A: memref<40xf32>, %C: memref<40x40xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 16 {
      %v = affine.load %A[%j - %i] : memref<40xf32>
      %c = affine.load %C[%i, %j] : memref<40x40xf32>
      %s = arith.addf %v, %c : f32
      affine.store %s, %C[%i, %j] : memref<40x40xf32>
    }
  }
  return
}
"""


def test_a_box_whose_lower_bound_goes_below_zero_is_copied_point_wise() -> None:
    """A 4 x 4 tile of a triangle reads A[j - i]: the accessed elements start at
    max(tj - ti - 3, 0), a max the box's affine lower bound tj - ti - 3 cannot hold, so on
    the diagonal tiles the box starts at A[-3]. The copy-in of A goes element by element
    (no DMA of A, nothing out of bounds), C's tiles keep their DMAs (fuzz seed 1703: the
    same at the second level of a hierarchy, a copy from `A_fast_mb[1, -1, 0]`)."""
    orig, m = parse_module(TRIANGLE_SHIFT), parse_module(TRIANGLE_SHIFT)
    parse_pass_flag("--affine-loop-tile=tile-sizes=4,4").run(m)
    copy(m, "generate-dma copy-depth=2")
    assert cs.out_of_bounds(m.funcs[0]) == []
    assert sorted(s.src.name_hint for s in dma_starts(m)) == ["C", "C_fast"]
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=1))


def test_skip_non_unit_stride_loops_places_copies_inside_tile_loops() -> None:
    m = cs.tiled_2d(32, 32, 16)
    copy(m, "generate-dma skip-non-unit-stride-loops")
    starts = dma_starts(m)
    assert starts and all(isinstance(s.parent_op, AffineForOp) and s.parent_op.step == 16 for s in starts)


# ---- upstream structure on full tiles ---------------------------------------------------------------

@pytest.mark.mlir_opt
@pytest.mark.parametrize("dma", ["true", "false"])
def test_full_tiles_match_upstream_buffers_and_copies(mlir_opt: str, dma: str) -> None:
    text = print_module(gemm(64, 64, 64))
    tiled = cs.mlir_opt(text, "--affine-loop-tile=tile-size=16")
    flags = f"--affine-data-copy-generate=generate-dma={dma} fast-mem-capacity=4"
    upstream = parse_module(cs.mlir_opt(tiled, flags))
    ours = parse_module(tiled)
    copy(ours, f"generate-dma={dma} fast-mem-capacity=4")
    fu, fo = upstream.funcs[0], ours.funcs[0]
    assert cs.fast_buffer_types(fo) == cs.fast_buffer_types(fu)
    assert len(dma_starts(ours)) == len(dma_starts(upstream))
    sig_u = [n for _, n in cs.signature(fu) if n == "affine.for"]
    sig_o = [n for _, n in cs.signature(fo) if n == "affine.for"]
    assert len(sig_o) == len(sig_u)
    inputs = cs.inputs_for(gemm(64, 64, 64), seed=2)
    assert cs.same_results(upstream, ours, inputs)


# ---- options ---------------------------------------------------------------------------------------

def test_options_have_mlir_opt_names() -> None:
    p = parse_pass_flag('--affine-data-copy-generate="generate-dma=false fast-mem-capacity=16 '
                        'fast-mem-space=2 slow-mem-space=0 tag-mem-space=1 min-dma-transfer=64 '
                        'skip-non-unit-stride-loops"')
    assert p.options == Options(generate_dma=False, fast_mem_capacity=16, fast_mem_space=2,
                                tag_mem_space=1, min_dma_transfer=64, skip_non_unit_stride_loops=True)
    one = parse_pass_flag("--affine-data-copy-generate=fast-mem-space=0").options
    assert one.one_space and one.fast_mem_space == one.slow_mem_space == 0


# ---- disjoint references ------------------------------------------------------------------------------

def _two_far_references(n: int = 512, t: int = 32):  # type: ignore[no-untyped-def]
    """Each tile reads A[i] and A[i + n] and writes A[i + n]: two far-apart windows of A."""
    b = Builder()
    with b.func("k", A=memref((2 * n,)), Out=memref((n,))) as (A, Out):
        for ii in b.range(0, n, t):
            for i in b.range(ii, ii + t):
                Out[i] = A[i] + A[i + n]
                A[i + n] = Out[i] * 0.5
    return b.module


@pytest.mark.mlir_opt
@pytest.mark.parametrize("dma", ["true", "false"])
def test_disjoint_references_get_separate_buffers(mlir_opt: str, dma: str) -> None:
    text = print_module(_two_far_references())
    upstream = parse_module(cs.mlir_opt(text, f"--affine-data-copy-generate=generate-dma={dma} "
                                              "fast-mem-capacity=1"))
    assert "memref<513xf32, 1>" in cs.fast_buffer_types(upstream.funcs[0])   # one bounding box
    ours = parse_module(text)
    p = copy(ours, f"generate-dma={dma} fast-mem-capacity=1")
    assert "2 disjoint groups of references get separate fast buffers" in "\n".join(
        r.message for r in p.remarks)
    assert cs.fast_buffer_types(ours.funcs[0]) == ["memref<32xf32, 1>"] * 3
    assert peak_live_bytes(ours, 1) <= 1024
    assert cs.same_results(_two_far_references(), ours, cs.inputs_for(_two_far_references(), seed=4))


def test_overlapping_references_share_one_buffer() -> None:
    """A stencil's A[i-1], A[i], A[i+1] overlap: one bounding box, as MLIR does."""
    b = Builder()
    with b.func("k", A=memref((130,)), Out=memref((130,))) as (A, Out):
        for ii in b.range(1, 129, 32):
            for i in b.range(ii, [ii + 32, 129]):
                Out[i] = A[i - 1] + A[i] + A[i + 1]
    m = b.module
    copy(m, "generate-dma fast-mem-capacity=1")
    assert sorted(cs.fast_buffer_types(m.funcs[0])) == ["memref<32xf32, 1>", "memref<34xf32, 1>"]
# ---- no copy-in of an accumulator initialized in place -------------------------------------------

def _row_acc(n: int, k: int, init: str):  # type: ignore[no-untyped-def]
    """Out[i] = sum_j A[i, j]: `init` "first" stores Out[i] before the j loop, "none" accumulates
    onto the value in memory, "after" stores only after reading it."""
    b = Builder()
    with b.func("k", A=memref((n, k)), Out=memref((n,))) as (A, Out):
        for i in b.range(n):
            if init == "first":
                Out[i] = b.constant(0.0, F32)
            for j in b.range(k):
                Out[i] = Out[i] + A[i, j]
            if init == "after":
                Out[i] = b.constant(1.0, F32)
    return b.module


@pytest.mark.parametrize("init", ["first", "none", "after"])
def test_copy_in_only_when_a_load_can_see_the_value_from_before(init: str) -> None:
    orig, m = _row_acc(8, 12, init), _row_acc(8, 12, init)
    copy(m, "generate-dma")
    ins = [s for s in dma_starts(m) if s.src.name_hint in ("Out", "arg1")]
    assert len(ins) == (0 if init == "first" else 1)
    # differential: a wrongly skipped copy-in reads the fast buffer's garbage, not Out's inputs
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=3))


@pytest.mark.parametrize("name", ["maxpool2d", "avgpool2d", "softmax", "row_sum"])
def test_workloads_without_their_dead_copy_ins_compute_the_same_bits(name: str) -> None:
    """The shipped workloads whose outputs the elision leaves uncopied-in, through the default
    accelerator pipeline on host: bit-identical to the original (a skipped copy-in that was
    live would read the fast buffer's zeros instead of the output's inputs)."""
    import workloads
    from accelsim import load_config
    from accelsim.compile.accelerator import accelerator_pipeline
    from compiler.ir.ops import AffineDmaStartOp
    from compiler.transforms.registry import PassManager

    cfg = load_config("default")
    orig, m = workloads.get(name).module(), workloads.get(name).module()
    PassManager.from_flags(accelerator_pipeline(cfg, m).flags()).run(m)
    ins = {op.src.name_hint for op in m.walk() if isinstance(op, AffineDmaStartOp)
           and op.src.type.memory_space == cfg.spaces.dram}
    outs = {op.dst.name_hint for op in m.walk() if isinstance(op, AffineDmaStartOp)
            and op.dst.type.memory_space == cfg.spaces.dram}
    assert outs and not outs & ins  # every output is written back, none copied in
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=5))


def test_stride_levels_see_past_unit_dims() -> None:
    """A box 8x1x256 of a 32x1x513 memref is 8 rows of 256 at a stride of 513, not one run of
    2048 elements (upstream's rule looks at the next outer dim only, here of extent 1)."""
    from compiler.transforms.data_copy.emit import stride_levels

    assert stride_levels([8, 1, 256], [32, 1, 513]) == [(2, 513, 256)]
    assert stride_levels([1, 8, 1, 257], [1, 32, 1, 513]) == [(3, 513, 257)]
    assert stride_levels([8, 1, 513], [32, 4, 513]) == [(1, 2052, 513)]
    assert stride_levels([1, 1, 256], [32, 1, 513]) == []
    assert stride_levels([8, 1, 513], [32, 1, 513]) == []


def test_tile_with_a_unit_dim_between_copies_the_right_elements() -> None:
    """batched_gemm with M = 1 tiled 2 x 1 x 16 x 8: the C tiles (2x1x16 of 4x1x48) have a unit dim between
    a clipped inner dim and the batch dim; the copies move what the tile reads and writes."""
    import workloads
    from compiler.transforms.registry import PassManager

    orig = workloads.get("batched_gemm:batch=4,M=1,N=48,K=8").module()
    m = workloads.get("batched_gemm:batch=4,M=1,N=48,K=8").module()
    PassManager([parse_pass_flag("--affine-loop-tile=tile-sizes=2,1,16,8")]).run(m)
    copy(m, "generate-dma fast-mem-capacity=2")
    assert any(s.is_strided for s in dma_starts(m))
    assert cs.out_of_bounds(m.funcs[0]) == []
    assert cs.same_results(orig, m, cs.inputs_for(orig, seed=5))
