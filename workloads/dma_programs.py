"""Hand-built DMA + kernel programs (what the copy/pipeline passes emit), for tests and benches.

Each returns a verified-by-construction `ModuleOp` built with the Builder: DRAM arguments in
space 0, SRAM buffers in space 1, tags in space 2, kernels as private functions.
"""

from __future__ import annotations

from compiler.ir import F32, I32, INDEX, Builder, memref
from compiler.ir.ops import ModuleOp


def tile_sum(n_tiles: int, tile: int, pipelined: bool = True) -> ModuleOp:
    """`out[0] = sum(A)` over `A: n_tiles x tile`, one tile per iteration.

    Pipelined: double-buffered (`buf: 2 x tile`, tags `[2]`, `(i mod 2)` halves, the next tile's
    DMA started before waiting on this one). Unpipelined: start, wait, compute, in sequence.
    """
    b = Builder()
    with b.func("tile_sum_kernel", private=True, buf=memref((2, tile), F32, 1), half=INDEX,
                acc=memref((1,), F32, 1)) as (buf, half, acc):
        for j in b.range(tile):
            acc[0] = acc[0] + buf[half, j]
    with b.func("tile_sum", A=memref((n_tiles, tile), F32), out=memref((1,), F32)) as (A, out):
        buf = b.alloc(memref((2, tile), F32, 1), "buf")
        acc = b.alloc(memref((1,), F32, 1), "acc")
        tag = b.alloc(memref((2,), I32, 2), "tag")
        otag = b.alloc(memref((1,), I32, 2), "otag")
        if pipelined:
            b.dma_start(A, [0, 0], buf, [0, 0], tag, [0], tile)
            for i in b.range(n_tiles):
                with b.if_(i < n_tiles - 1):
                    b.dma_start(A, [i + 1, 0], buf, [(i + 1) % 2, 0], tag, [(i + 1) % 2], tile)
                b.dma_wait(tag, [i % 2], tile)
                b.call("tile_sum_kernel", [buf, b.index(i % 2), acc])
        else:
            for i in b.range(n_tiles):
                b.dma_start(A, [i, 0], buf, [0, 0], tag, [0], tile)
                b.dma_wait(tag, [0], tile)
                b.call("tile_sum_kernel", [buf, b.index(0), acc])
        b.dma_start(acc, [0], out, [0], otag, [0], 1)
        b.dma_wait(otag, [0], 1)
        b.dealloc(buf)
        b.dealloc(acc)
    return b.module


def tiled_gemm(M: int, N: int, K: int, T: int, pipelined: bool = True) -> ModuleOp:
    """`C += A @ B` with T x T tiles (T divides M, N, K): for each (i, j) tile, C's tile is
    copied in, then for each k the A and B tiles (strided DMAs), the matmul kernel, and C's
    tile is copied out. Pipelined: the k loop double-buffers A and B."""
    assert M % T == 0 and N % T == 0 and K % T == 0
    b = Builder()
    with b.func("gemm_tile", private=True, a=memref((2, T, T), F32, 1), b_=memref((2, T, T), F32, 1),
                c=memref((T, T), F32, 1), h=INDEX) as (a, bt, c, h):
        for i in b.range(T):
            for j in b.range(T):
                for k in b.range(T):
                    c[i, j] = c[i, j] + a[h, i, k] * bt[h, k, j]
    with b.func("gemm", A=memref((M, K), F32), B=memref((K, N), F32), C=memref((M, N), F32)) as (A, B, C):
        a = b.alloc(memref((2, T, T), F32, 1), "a_buf")
        bb = b.alloc(memref((2, T, T), F32, 1), "b_buf")
        c = b.alloc(memref((T, T), F32, 1), "c_buf")
        tag = b.alloc(memref((2,), I32, 2), "ab_tag")
        ctag = b.alloc(memref((1,), I32, 2), "c_tag")
        btag = b.alloc(memref((2,), I32, 2), "b_tag")
        nk = K // T
        for i in b.range(0, M, T):
            for j in b.range(0, N, T):
                b.dma_start(C, [i, j], c, [0, 0], ctag, [0], T * T, N, T)
                b.dma_wait(ctag, [0], T * T)
                if pipelined:
                    _gemm_k_pipelined(b, A, B, a, bb, c, tag, btag, i, j, nk, N, K, T)
                else:
                    for kk in b.range(0, K, T):
                        b.dma_start(A, [i, kk], a, [0, 0, 0], tag, [0], T * T, K, T)
                        b.dma_wait(tag, [0], T * T)
                        b.dma_start(B, [kk, j], bb, [0, 0, 0], tag, [1], T * T, N, T)
                        b.dma_wait(tag, [1], T * T)
                        b.call("gemm_tile", [a, bb, c, b.index(0)])
                b.dma_start(c, [0, 0], C, [i, j], ctag, [0], T * T, N, T)
                b.dma_wait(ctag, [0], T * T)
    return b.module


def _gemm_k_pipelined(b: Builder, A, B, a, bb, c, tag, btag, i, j, nk: int, N: int, K: int,  # type: ignore[no-untyped-def]
                      T: int) -> None:
    """Double-buffered k loop: A tiles signal `tag[h]`, B tiles `btag[h]`, h = k mod 2."""
    b.dma_start(A, [i, 0], a, [0, 0, 0], tag, [0], T * T, K, T)
    b.dma_start(B, [0, j], bb, [0, 0, 0], btag, [0], T * T, N, T)
    for kk in b.range(nk):
        with b.if_(kk < nk - 1):
            b.dma_start(A, [i, (kk + 1) * T], a, [(kk + 1) % 2, 0, 0], tag, [(kk + 1) % 2], T * T, K, T)
            b.dma_start(B, [(kk + 1) * T, j], bb, [(kk + 1) % 2, 0, 0], btag, [(kk + 1) % 2],
                        T * T, N, T)
        b.dma_wait(tag, [kk % 2], T * T)
        b.dma_wait(btag, [kk % 2], T * T)
        b.call("gemm_tile", [a, bb, c, b.index(kk % 2)])
