"""`affine.dma_start` on the host: the copy MLIR's dma_start describes (CONTRACTS.md).

Row-major linear order from each side's start element; a strided transfer moves chunks of
`elements_per_stride` elements `stride` apart on the side in the slower memory space (the
lower memory-space id; the source when both are equal) and packed on the other. In
bounds-checked mode the start index of each side and of the tag is checked per dimension and
the elements moved on each side are checked against the memref's size (checks.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from llvmlite import ir

from compiler.backend.checks import CheckSite, FunctionChecks
from compiler.backend.errors import LoweringError
from compiler.backend.llvm_types import I1, I64, PTR, MemRefHandle, i64, memory_type
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineDmaStartOp


class Lowering(Protocol):
    """What the DMA lowering needs from the function lowering (lower._FunctionLowering)."""

    b: ir.IRBuilder
    llfunc: ir.Function
    llmod: ir.Module

    @property
    def checks(self) -> FunctionChecks: ...

    def memref(self, v: Value) -> MemRefHandle: ...

    def scalar(self, v: Value) -> ir.Value: ...

    def access_indices(self, op: Operation, memref: Value, m: AffineMap, operands: Sequence[Value],
                       subject: str, provable: bool = True) -> list[ir.Value]: ...

    def linear_index(self, h: MemRefHandle, indices: Sequence[ir.Value]) -> ir.Value: ...


def lower_dma_start(lw: Lowering, op: AffineDmaStartOp, checked: bool) -> None:
    b = lw.b
    src, dst = lw.memref(op.src), lw.memref(op.dst)
    if src.type.element != dst.type.element:
        raise LoweringError(f"dma_start between {src.type} and {dst.type}: element types differ",
                            op.loc)
    etype = memory_type(src.type.element)
    esize = i64(src.type.element.byte_width)
    s_lin = lw.linear_index(src, lw.access_indices(op, op.src, op.src_map, op.src_indices,
                                                   "source", provable=False))
    d_lin = lw.linear_index(dst, lw.access_indices(op, op.dst, op.dst_map, op.dst_indices,
                                                   "destination", provable=False))
    if checked:
        lw.access_indices(op, op.tag, op.tag_map, op.tag_indices, "tag", provable=False)
    src_ptr = b.gep(src.ptr, [s_lin], inbounds=True, source_etype=etype)
    dst_ptr = b.gep(dst.ptr, [d_lin], inbounds=True, source_etype=etype)
    n = lw.scalar(op.num_elements)
    memmove = lw.llmod.declare_intrinsic("llvm.memmove", [PTR, PTR, I64])
    if not op.is_strided:
        if checked:
            _contiguous(lw, op, op.src, src, s_lin, n, "source")
            _contiguous(lw, op, op.dst, dst, d_lin, n, "destination")
        count = b.select(b.icmp_signed(">", n, i64(0)), n, i64(0))
        b.call(memmove, [dst_ptr, src_ptr, b.mul(count, esize), ir.Constant(I1, 0)])
        return
    assert op.stride is not None and op.elements_per_stride is not None
    stride = lw.scalar(op.stride)
    per = lw.scalar(op.elements_per_stride)
    src_strided = src.type.memory_space <= dst.type.memory_space
    if checked:
        sides = [(op.src, src, s_lin, "source"), (op.dst, dst, d_lin, "destination")]
        if not src_strided:
            sides.reverse()
        (sv, sh, slin, sname), (cv, ch, clin, cname) = sides
        site = lw.checks.site(_site(op, sv, sh, sname))
        lw.checks.strided_span(site, slin, n, stride, per, _numel(b, sh))
        _contiguous(lw, op, cv, ch, clin, n, cname)
    # chunks = ceildiv(n, per); chunk c moves min(per, n - c*per) elements.
    pre = b.block
    header = lw.llfunc.append_basic_block("dma.header")
    body = lw.llfunc.append_basic_block("dma.body")
    done = lw.llfunc.append_basic_block("dma.done")
    valid = b.and_(b.icmp_signed(">", per, i64(0)), b.icmp_signed(">", n, i64(0)))
    b.cbranch(valid, header, done)
    b.position_at_end(header)
    moved = b.phi(I64, name="dma.moved")
    chunk = b.phi(I64, name="dma.chunk")
    moved.add_incoming(i64(0), pre)
    chunk.add_incoming(i64(0), pre)
    b.cbranch(b.icmp_signed("<", moved, n), body, done)
    b.position_at_end(body)
    left = b.sub(n, moved)
    length = b.select(b.icmp_signed("<", left, per), left, per)
    strided_off = b.mul(chunk, stride)
    s_off, d_off = (strided_off, moved) if src_strided else (moved, strided_off)
    s = b.gep(src_ptr, [s_off], source_etype=etype)
    d = b.gep(dst_ptr, [d_off], source_etype=etype)
    b.call(memmove, [d, s, b.mul(length, esize), ir.Constant(I1, 0)])
    moved.add_incoming(b.add(moved, length), body)
    chunk.add_incoming(b.add(chunk, i64(1)), body)
    b.branch(header)
    b.position_at_end(done)


def _site(op: AffineDmaStartOp, v: Value, h: MemRefHandle, side: str) -> CheckSite:
    name = f"%{v.name_hint}" if v.name_hint else "%?"
    return CheckSite(op.NAME, op.loc, f"{side} {name}", str(h.type), tuple(h.type.shape))


def _contiguous(lw: Lowering, op: AffineDmaStartOp, v: Value, h: MemRefHandle, lin: ir.Value,
                n: ir.Value, side: str) -> None:
    site = lw.checks.site(_site(op, v, h, side))
    lw.checks.contiguous_span(site, lin, n, _numel(lw.b, h))


def _numel(b: ir.IRBuilder, h: MemRefHandle) -> ir.Value:
    total: ir.Value = i64(1)
    for s in h.sizes:
        total = b.mul(total, s)
    return total
