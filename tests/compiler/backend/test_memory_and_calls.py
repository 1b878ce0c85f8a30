"""Allocation in any memory space, DMA copies with MLIR's semantics, calls between functions."""

import numpy as np
import pytest

from compiler.backend import run_host
from compiler.ir import F32, F64, I32, INDEX, AllocaOp, AllocOp, Builder, memref


def dma_reference(src: np.ndarray, s0: int, dst: np.ndarray, d0: int, n: int,
                  stride: int | None, per: int | None, src_is_strided: bool) -> None:
    """CONTRACTS.md's DMA semantics on flat (row-major) views, element by element."""
    s, d = src.reshape(-1), dst.reshape(-1)
    if stride is None:
        d[d0:d0 + n] = s[s0:s0 + n]
        return
    moved, chunk = 0, 0
    while moved < n:
        length = min(per, n - moved)
        for e in range(length):
            if src_is_strided:
                d[d0 + moved + e] = s[s0 + chunk * stride + e]
            else:
                d[d0 + chunk * stride + e] = s[s0 + moved + e]
        moved += length
        chunk += 1


def _dma_module(src_t, dst_t, src_idx, dst_idx, n, stride=None, per=None):
    b = Builder()
    with b.func("k", src=src_t, dst=dst_t) as (src, dst):
        tag = b.alloc(memref((2,), I32, 2))
        b.dma_start(src, src_idx, dst, dst_idx, tag, [1], n, stride, per)
        b.dma_wait(tag, [1], n)
        b.dealloc(tag)
    return b.module


@pytest.mark.parametrize("case", [
    # (src shape, src space, dst shape, dst space, src idx, dst idx, n, stride, per)
    ((8, 10), 0, (3, 4), 0, (2, 3), (0, 0), 12, 10, 4),      # multi-row tile out of a matrix
    ((8, 10), 0, (3, 4), 1, (2, 3), (0, 0), 12, 10, 4),      # slow -> fast: src strided
    ((3, 4), 1, (8, 10), 0, (0, 0), (5, 6), 12, 10, 4),      # fast -> slow: dst strided
    ((8, 10), 0, (40,), 1, (1, 1), (3,), 10, 7, 4),          # last chunk partial (4, 4, 2)
    ((8, 10), 0, (40,), 1, (0, 2), (0,), 35, 10, 5),         # chunks shorter than the stride
    ((8, 10), 0, (8, 10), 1, (1, 0), (2, 0), 30, None, None),  # contiguous, several rows
    ((64,), 0, (16,), 1, (5,), (1,), 0, None, None),         # zero elements
], ids=["same-space", "in", "out", "partial", "gaps", "contiguous", "empty"])
def test_dma_start_moves_exactly_what_contracts_say(case):
    sshape, sspace, dshape, dspace, sidx, didx, n, stride, per = case
    m = _dma_module(memref(sshape, F32, sspace), memref(dshape, F32, dspace), list(sidx), list(didx),
                    n, stride, per)
    rng = np.random.default_rng(3)
    src = rng.uniform(-1, 1, sshape).astype(np.float32)
    dst = rng.uniform(-1, 1, dshape).astype(np.float32)
    want = dst.copy()
    s0 = int(np.ravel_multi_index(sidx, sshape))
    d0 = int(np.ravel_multi_index(didx, dshape))
    dma_reference(src, s0, want, d0, n, stride, per, src_is_strided=sspace <= dspace)
    got = run_host(m, {"src": src, "dst": dst})
    np.testing.assert_array_equal(got["dst"], want)
    np.testing.assert_array_equal(got["src"], src)


def test_strided_dma_is_a_2d_tile_copy():
    """The common case spelled with numpy slicing, independent of the element-wise model."""
    m = _dma_module(memref((8, 10), F64), memref((3, 4), F64, 1), [2, 3], [0, 0], 12, 10, 4)
    src = np.arange(80, dtype=np.float64).reshape(8, 10)
    got = run_host(m, {"src": src, "dst": np.zeros((3, 4))})["dst"]
    np.testing.assert_array_equal(got, src[2:5, 3:7])


def test_tiled_copy_loop_with_fast_buffers_matches_numpy():
    """A hand-written double loop of DMA in, compute, DMA out through space-1 buffers."""
    n, t = 24, 8
    b = Builder()
    with b.func("k", a=memref((n, n), F32), c=memref((n, n), F32)) as (a, c):
        buf = b.alloc(memref((t, t), F32, 1), name="buf")
        out = b.alloc(memref((t, t), F32, 1), name="out")
        tag = b.alloc(memref((1,), I32, 2))
        for i in b.range(0, n, t):
            for j in b.range(0, n, t):
                b.dma_start(a, [i, j], buf, [0, 0], tag, [0], t * t, n, t)
                b.dma_wait(tag, [0], t * t)
                for ii in b.range(t):
                    for jj in b.range(t):
                        out[ii, jj] = buf[ii, jj] * buf[ii, jj] + 1.0
                b.dma_start(out, [0, 0], c, [i, j], tag, [0], t * t, n, t)
                b.dma_wait(tag, [0], t * t)
        b.dealloc(buf)
        b.dealloc(out)
        b.dealloc(tag)
    a = np.random.default_rng(0).uniform(-1, 1, (n, n)).astype(np.float32)
    got = run_host(b.module, {"a": a, "c": np.zeros((n, n), np.float32)})["c"]
    np.testing.assert_array_equal(got, a * a + np.float32(1))


def test_alloc_in_space_one_is_zeroed_aligned_heap_memory_and_alloca_in_a_loop():
    b = Builder()
    with b.func("k", x=memref((16,), F32), out=memref((16,), F32)) as (x, out):
        acc = b.alloc(memref((16,), F32, 1))
        for _r in b.range(3):
            tmp = b.insert(AllocaOp(memref((16,), F32, 1))).result  # freed at the end of each trip
            for i in b.range(16):
                tmp[i] = x[i] * 2.0
            for i in b.range(16):
                acc[i] = acc[i] + tmp[i]
        for i in b.range(16):
            out[i] = acc[i]
        b.dealloc(acc)
    x = np.arange(16, dtype=np.float32)
    got = run_host(b.module, {"x": x, "out": np.zeros(16, np.float32)})
    np.testing.assert_array_equal(got["out"], 6 * x)  # acc started at zero


def test_dynamic_shapes_pass_sizes_and_dynamic_alloc():
    b = Builder()
    with b.func("k", n=INDEX, x=memref((None, 3), F32), out=memref((None, 3), F32)) as (n, x, out):
        tmp = b.insert(AllocOp(memref((None, 3), F32, 1), [n])).result
        for i in b.range(0, n):
            for j in b.range(3):
                tmp[i, j] = x[i, j] + 1.0
        for i in b.range(0, n):
            for j in b.range(3):
                out[i, j] = tmp[i, j] * tmp[i, j]
        b.dealloc(tmp)
    x = np.random.default_rng(2).uniform(-1, 1, (7, 3)).astype(np.float32)
    got = run_host(b.module, {"n": 7, "x": x, "out": np.zeros((7, 3), np.float32)})["out"]
    np.testing.assert_array_equal(got, (x + np.float32(1)) ** 2)


def test_kernels_call_kernels_and_scalar_results():
    b = Builder()
    with b.func("scale", private=True, v=memref((8,), F32), s=F32) as (v, s):
        for i in b.range(8):
            v[i] = v[i] * s
    with b.func("dot", results=[F32], private=True, a=memref((8,), F32), c=memref((8,), F32)) as (a, c):
        zero = b.constant(0.0, F32)
        with b.loop(0, 8, iter_args=[zero]) as loop:
            b.yield_([loop.region_iter_args[0] + a[loop.iv] * c[loop.iv]])
        b.ret([loop.results[0]])
    with b.func("main", a=memref((8,), F32), c=memref((8,), F32), out=memref((1,), F32)) as (a, c, out):
        b.call("scale", [a, b.constant(2.0, F32)])
        b.call("scale", [c, b.constant(-0.5, F32)])
        d = b.call("dot", [a, c], [F32]).results[0]
        out[0] = d
    a0 = np.arange(8, dtype=np.float32)
    c0 = np.ones(8, np.float32)
    got = run_host(b.module, {"a": a0, "c": c0, "out": np.zeros(1, np.float32)})  # main is the root
    np.testing.assert_array_equal(got["a"], 2 * a0)
    np.testing.assert_array_equal(got["c"], -0.5 * c0)
    assert got["out"][0] == np.float32(np.sum(2 * a0 * -0.5))
    from compiler.backend import compile_module

    assert compile_module(b.module).call("dot", [a0, c0]) == pytest.approx(28.0)
