"""The copies of a depth-first group's bands (`accelsim.network.depthfirst`): rows of a band
buffer zeroed or moved up within it (`rows_nest`), and rows of a DRAM tensor into a band buffer
or back (`copy_rows`: one strided DMA in a compiled group, a copy nest as written)."""

from __future__ import annotations

import math
from typing import Any

Axis = tuple[int, int]   # the dimension bands cut and the elements of it one row is


def rows_nest(body: Any, dst: Any, src: Any, src_row: int, dst_row: int, rows: int,
               ax: Axis) -> None:
    """A nest over `rows` rows of buffer `dst` from row `dst_row`: zero (`src` None) or the
    rows of `src` from `src_row` (in order: a move up within one buffer is safe)."""
    from compiler.ir.affine_expr import Dim
    from compiler.ir.affine_map import AffineMap
    from compiler.ir.ops.affine import AffineForOp, AffineLoadOp, AffineStoreOp, AffineYieldOp
    from compiler.ir.ops.arith import ConstantOp

    t = dst.type
    r, unit = ax
    src_row, dst_row = src_row * unit, dst_row * unit
    ext = list(t.shape)
    ext[r] = rows * unit
    zero = None
    if src is None:
        zero = body.append(ConstantOp(0.0 if t.element.kind == "float" else 0, t.element)).results[0]
    ivs, inner, loops = [], body, []
    for d in ext:
        f = AffineForOp(AffineMap.constant(0), [], AffineMap.constant(d), [])
        inner.append(f)
        loops.append(f)
        ivs.append(f.iv)
        inner = f.body
    k = len(ext)
    at = (lambda off: AffineMap(k, 0, tuple(Dim(i) + (off if i == r else 0) for i in range(k))))
    v = zero if src is None else inner.append(AffineLoadOp(src, at(src_row), ivs)).results[0]
    inner.append(AffineStoreOp(v, dst, at(dst_row), ivs))
    for f in loops:
        f.body.append(AffineYieldOp())


def copy_rows(fn: Any, body: Any, full: Any, lo: int, buf: Any, at: int, rows: int, dma: bool,
          tag_space: int, inward: bool, ax: Axis) -> None:
    """Rows [lo, lo + rows) of DRAM tensor `full` into band buffer `buf` from its row `at`
    (`inward`) or back: one strided DMA (compiled) or a copy nest (as written)."""
    from compiler.ir.affine_expr import Dim, as_expr
    from compiler.ir.affine_map import AffineMap
    from compiler.ir.ops.affine import (
        AffineDmaStartOp,
        AffineDmaWaitOp,
        AffineForOp,
        AffineLoadOp,
        AffineStoreOp,
        AffineYieldOp,
    )
    from compiler.ir.ops.memref import AllocOp, DeallocOp
    from compiler.ir.types import I32, MemRefType
    from compiler.transforms.rewrite.structure import constant_index

    shape = tuple(full.type.shape)
    r, unit = ax
    lo, at, rows = lo * unit, at * unit, rows * unit   # in elements of dimension r
    band = list(shape)
    band[r] = rows
    off = [0] * len(shape)
    off[r] = lo
    if not dma:
        ivs, inner, loops = [], body, []
        for d in band:
            f = AffineForOp(AffineMap.constant(0), [], AffineMap.constant(d), [])
            inner.append(f)
            loops.append(f)
            ivs.append(f.iv)
            inner = f.body
        k = len(band)
        at_full = AffineMap(k, 0, tuple(Dim(i) + off[i] for i in range(k)))
        ident = AffineMap(k, 0, tuple(Dim(i) + (at if i == r else 0) for i in range(k)))
        src, sm, dst, dm = (full, at_full, buf, ident) if inward else (buf, ident, full, at_full)
        v = inner.append(AffineLoadOp(src, sm, ivs)).results[0]
        inner.append(AffineStoreOp(v, dst, dm, ivs))
        for f in loops:
            f.body.append(AffineYieldOp())
        return
    count = math.prod(band[r:])

    def c(x: int) -> Any:
        return constant_index(fn, x, fn.loc)

    outer = band[:r]
    whole = at == 0 and rows == buf.type.shape[r]
    k = len(outer)
    t0 = AffineMap(0, 0, (as_expr(0),))
    if math.prod(outer) == 1 or whole:
        # one DMA: the rows of every outer index, strided on the DRAM side, packed in `buf`
        tag = body.append(AllocOp(MemRefType((1,), I32, tag_space), name_hint="btag")).results[0]
        m_full = AffineMap(0, 0, tuple(as_expr(x) for x in off))
        m_buf = AffineMap(0, 0, tuple(as_expr(at if i == r else 0) for i in range(len(shape))))
        n = c(count * math.prod(outer))
        stride = c(math.prod(shape[r:])) if math.prod(outer) > 1 else None
        per = c(count) if stride is not None else None
        if inward:
            op = AffineDmaStartOp(full, m_full, [], buf, m_buf, [], tag, t0, [], n, stride, per)
        else:
            op = AffineDmaStartOp(buf, m_buf, [], full, m_full, [], tag, t0, [], n, stride, per)
        body.append(op)
        body.append(AffineDmaWaitOp(tag, t0, [], n))
        body.append(DeallocOp(tag))
        return
    # rows inside a taller buffer: one contiguous DMA per outer index (a channel), all
    # started, then all waited for
    # [outer] -> { S[o] -> full[o, lo, 0...] ; buf[o, at, 0...] ; tag[o] }
    tag = body.append(AllocOp(MemRefType(tuple(outer), I32, tag_space), name_hint="btag")).results[0]
    m_full = AffineMap(k, 0, tuple(Dim(i) if i < k else as_expr(off[i]) for i in range(len(shape))))
    m_buf = AffineMap(k, 0, tuple(Dim(i) if i < k else as_expr(at if i == r else 0)
                                  for i in range(len(shape))))
    m_tag = AffineMap.identity(k)
    n = c(count)
    for wait in (False, True):
        ivs, inner, loops = [], body, []
        for d in outer:
            f = AffineForOp(AffineMap.constant(0), [], AffineMap.constant(d), [])
            inner.append(f)
            loops.append(f)
            ivs.append(f.iv)
            inner = f.body
        if wait:
            inner.append(AffineDmaWaitOp(tag, m_tag, ivs, n))
        elif inward:
            inner.append(AffineDmaStartOp(full, m_full, ivs, buf, m_buf, ivs, tag, m_tag, ivs, n))
        else:
            inner.append(AffineDmaStartOp(buf, m_buf, ivs, full, m_full, ivs, tag, m_tag, ivs, n))
        for f in loops:
            f.body.append(AffineYieldOp())
    body.append(DeallocOp(tag))
