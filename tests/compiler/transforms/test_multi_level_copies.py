"""Copies and pipelining at every level of a memory hierarchy: `affine-loop-tile
inner-tile-sizes` tiles each tile again, `affine-data-copy-generate slow-mem-space=k-1
fast-mem-space=k` copies level k's tiles out of level k-1's buffers, `affine-pipeline-data-
transfer level-only fast-mem-space=k` pipelines each level with its own capacity.

Every workload, 3 and 4 levels: bit-identical to the original on the host backend, every
level's live buffers within its capacity (after multi-buffering), every DMA inside its memref,
each level's copies present and fed from the level above. Exact partial tiles at level 2:
the elements moved equal a brute-force count of what each partial tile touches.
"""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from compiler.backend import run_host
from compiler.ir.ops import AffineDmaStartOp, AllocOp
from compiler.ir.types import MemRefType
from compiler.transforms.data_copy.fast_memory import peak_live_bytes
from compiler.transforms.registry import PassManager
from tests.compiler.transforms.fixtures import copy_support as cs
from tests.compiler.transforms.test_pipeline_workloads import SPECS


def hierarchy_flags(tiles: list[int], caps_kib: list[int], stages: int | None) -> list[str]:
    """Tiles of `tiles[0]`, then each further level's; one copy (and pipelining) run per level."""
    groups = "/".join(",".join([str(t)] * 8) for t in tiles[1:])
    flags = [f"--affine-loop-tile=tile-sizes={','.join([str(tiles[0])] * 8)}"
             + (f" inner-tile-sizes={groups}" if groups else "")]
    tag = len(caps_kib) + 1
    for k, cap in enumerate(caps_kib):
        flags.append(f"--affine-data-copy-generate=generate-dma fast-mem-space={k + 1} "
                     f"slow-mem-space={k} tag-mem-space={tag} fast-mem-capacity={cap}")
    if stages is not None:
        for k, cap in enumerate(caps_kib):
            flags.append(f"--affine-pipeline-data-transfer=stages={stages} level-only "
                         f"fast-mem-space={k + 1} fast-mem-capacity={cap}")
    return flags


def assert_hierarchy_bit_identical(name: str, tiles: list[int], caps: list[int], stages: int | None,
                                   seed: int = 0) -> None:
    w = workloads.get(f"{name}:{SPECS[name]}")
    inputs = w.random_inputs(seed=seed)
    want = run_host(w.module(), inputs, w.func_name)
    m = w.module()
    PassManager.from_flags(hierarchy_flags(tiles, caps, stages)).run(m)
    what = f"{name} tiles={tiles} caps={caps} stages={stages}"
    for k, cap in enumerate(caps):
        assert peak_live_bytes(m, k + 1) <= cap * 1024, f"{what}: level {k + 1} above {cap} KiB"
    func = next(f for f in m.funcs if f.sym_name == w.func_name)
    assert cs.out_of_bounds(func) == [], what
    # every level gets copies, and every copy joins a level and its parent
    pairs = {(memref_space(op.src), memref_space(op.dst)) for op in func.walk()
             if isinstance(op, AffineDmaStartOp)}
    assert all(abs(a - b) == 1 for a, b in pairs), f"{what}: copies between {sorted(pairs)}"
    for k in range(1, len(caps) + 1):
        assert (k - 1, k) in pairs or (k, k - 1) in pairs, f"{what}: no copies of level {k}"
    got = run_host(m, inputs, w.func_name)
    for arg, arr in want.items():
        np.testing.assert_array_equal(got[arg], arr, err_msg=f"{what}: {arg}")


def memref_space(v: object) -> int:
    t = v.type  # type: ignore[attr-defined]
    assert isinstance(t, MemRefType)
    return t.memory_space


@pytest.mark.parametrize("name", sorted(SPECS))
def test_three_levels_every_workload(name: str) -> None:
    assert_hierarchy_bit_identical(name, [8, 4], [4, 1], stages=2, seed=1)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_four_levels_every_workload_three_stages(name: str) -> None:
    assert_hierarchy_bit_identical(name, [8, 4, 2], [16, 2, 1], stages=3, seed=2)


@pytest.mark.parametrize("name", ["gemm", "conv2d", "jacobi-2d", "syrk"])
def test_four_levels_copies_only(name: str) -> None:
    assert_hierarchy_bit_identical(name, [8, 4, 2], [4, 1, 1], stages=None, seed=3)


def test_level_two_partial_tiles_are_exact() -> None:
    """gemm 50x40x36, level-1 tiles 32,16,16, level-2 tiles 8,8,8: the level-2 copies of A
    move exactly the elements of each partial tile (rows to min(i2+8, i1+32, 50), columns to
    min(k2+8, k1+16, 36)), once per (i1, j1, k1, i2, j2, k2), where the copies sit."""
    M, N, K = 50, 40, 36
    w = workloads.get(f"gemm:M={M},N={N},K={K}")
    m = w.module()
    flags = ["--affine-loop-tile=tile-sizes=32,16,16 inner-tile-sizes=8,8,8",
             "--affine-data-copy-generate=generate-dma fast-mem-space=1 slow-mem-space=0 "
             "tag-mem-space=3 fast-mem-capacity=8",
             "--affine-data-copy-generate=generate-dma fast-mem-space=2 slow-mem-space=1 "
             "tag-mem-space=3 fast-mem-capacity=1"]
    PassManager.from_flags(flags).run(m)
    func = next(f for f in m.funcs if f.sym_name == "gemm")
    a_fast = next(op.result for op in func.walk() if isinstance(op, AllocOp)
                  and op.result.name_hint == "A_fast")
    moved = sum(t.count for t in cs.dma_transfers(func) if t.op.src is a_fast)
    expected = 0
    for i1 in range(0, M, 32):
        for j1 in range(0, N, 16):
            for k1 in range(0, K, 16):
                for i2 in range(i1, min(i1 + 32, M), 8):
                    for _j2 in range(j1, min(j1 + 16, N), 8):
                        for k2 in range(k1, min(k1 + 16, K), 8):
                            rows = min(i2 + 8, i1 + 32, M) - i2
                            cols = min(k2 + 8, k1 + 16, K) - k2
                            expected += rows * cols
    assert moved == expected
    inputs = w.random_inputs(seed=4)
    np.testing.assert_array_equal(run_host(m, inputs, "gemm")["C"],
                                  run_host(w.module(), inputs, "gemm")["C"])


def test_level_copies_are_placed_inside_the_level_above() -> None:
    """Level-2 buffers are allocated inside the loops that hold the level-1 buffers they
    are copied from (a tile of level 2 is a partition of level 1's)."""
    w = workloads.get("gemm:M=64,N=64,K=64")
    m = w.module()
    PassManager.from_flags(hierarchy_flags([32, 8], [64, 4], stages=None)).run(m)
    func = next(f for f in m.funcs if f.sym_name == "gemm")
    for op in func.walk():
        if isinstance(op, AffineDmaStartOp) and memref_space(op.dst) == 2:
            src_alloc = op.src.owner  # type: ignore[attr-defined]
            assert isinstance(src_alloc, AllocOp) and memref_space(op.src) == 1
            dst_alloc = op.dst.owner  # type: ignore[attr-defined]
            assert src_alloc.parent_block is not None
            assert src_alloc.parent_op.is_ancestor_of(dst_alloc)


def test_inner_tile_sizes_option_errors() -> None:
    from compiler.diagnostics import OptionError

    with pytest.raises(OptionError, match="inner-tile-sizes"):
        PassManager.from_flags(["--affine-loop-tile=tile-sizes=8 inner-tile-sizes=4,0"])
    with pytest.raises(OptionError, match="both given"):
        PassManager.from_flags(["--affine-loop-tile=inner-tile-sizes=4 inner-cache-sizes=8"])
    with pytest.raises(OptionError, match="inner-cache-sizes"):
        PassManager.from_flags(["--affine-loop-tile=inner-cache-sizes=x"])
