"""Gemm-like contractions: `C[I, J] += A[I, K] * B[K, J]` over a box of loops, for the I/O
lower bound of a fast memory of S words (Kwasniewski et al., "Red-blue pebbling revisited",
SC 2019: Q >= 2·m·n·k/√S + m·n words).

The bound rests on one property of the computation: for any set F of multiply-adds, |F| <=
sqrt(|A(F)|·|B(F)|·|C(F)|) (Loomis-Whitney), where X(F) is the set of elements of X that F
touches. It holds when every loop IV indexes at least two of the three operands, and each
operand's elements are an injective image of the IVs that index it; IVs indexing all three are
batch loops (the inequality holds over the batch too, by Hölder), so the bound becomes
2·(MACs)/√S + |C| with MACs = batch·m·n·k. A convolution maps onto it (im2col: m = N·P·Q,
n = K, k = C·R·S) when its windows do not overlap (stride >= filter extent: `p*stride + r` is
injective); with overlapping windows one input element feeds several MACs of the same
(output, weight) pair, the inequality fails, and no tight bound is known here.

    match = find_contraction(func)
    match.contraction.macs if match.contraction else match.reason
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.access import index_relation
from compiler.analysis.domain import domain_in_frame
from compiler.analysis.isl_bridge import AnalysisError, Frame
from compiler.ir.core import Operation, OpResult, Value
from compiler.ir.ops import (
    AddFOp,
    AddIOp,
    AffineDmaStartOp,
    AffineForOp,
    AffineLoadOp,
    AffineStoreOp,
    AffineYieldOp,
    CallOp,
    CastOp,
    ConstantOp,
    FuncOp,
    IndexCastOp,
    MulFOp,
    MulIOp,
    ReturnOp,
)
from compiler.ir.types import ElementType, MemRefType

# float and integer multiply-adds alike; an operand may be widened first (`extsi` i8 -> i32)
_ADD = (AddFOp, AddIOp)
_MUL = (MulFOp, MulIOp)


@dataclass(frozen=True, slots=True)
class Contraction:
    """`output[I, J] += left[I, K] * right[K, J]` (batch loops index all three)."""

    m: int
    n: int
    k: int
    batch: int
    output: str
    left: str
    right: str
    element_bytes: int
    mapped: bool  # a convolution (index sums) read as a gemm through im2col
    loc: str

    @property
    def macs(self) -> int:
        return self.batch * self.m * self.n * self.k

    @property
    def output_elements(self) -> int:
        return self.batch * self.m * self.n

    def describe(self) -> str:
        shape = f"{self.m}x{self.n}x{self.k}" + (f", batch {self.batch}" if self.batch > 1 else "")
        what = "convolution as gemm (im2col)" if self.mapped else "gemm-like contraction"
        return f"{what} m x n x k = {shape}"


@dataclass(frozen=True, slots=True)
class ContractionMatch:
    """The function's contraction, or why it is not one (`reason`)."""

    contraction: Contraction | None
    reason: str = ""


def find_contraction(func: FuncOp) -> ContractionMatch:
    """The single gemm-like loop nest that makes up `func`, or the reason there is none."""
    try:
        return _find(func)
    except AnalysisError as exc:
        return ContractionMatch(None, f"not affine ({exc})")


def _none(reason: str) -> ContractionMatch:
    return ContractionMatch(None, reason)


def _find(func: FuncOp) -> ContractionMatch:
    if func.is_declaration:
        return _none("a declaration has no body")
    for op in func.body.walk():
        if isinstance(op, AffineDmaStartOp | CallOp):
            return _none(f"the function has {op.NAME} (the bound is for a program before copies, "
                         "with no calls)")
    top = [op for op in func.body.ops if not isinstance(op, ConstantOp | ReturnOp)]
    nests = [op for op in top if isinstance(op, AffineForOp)]
    if len(nests) != 1 or len(top) != 1:
        return _none(f"{len(nests)} loop nest{'' if len(nests) == 1 else 's'} and "
                     f"{len(top) - len(nests)} other op(s) at the top (a bound is known for one "
                     "contraction nest)")
    loops: list[AffineForOp] = []
    loop: Operation = nests[0]
    while isinstance(loop, AffineForOp):
        if loop.results or loop.step != 1 or loop.constant_trip_count is None:
            return _none(f"the loop at {loop.loc} is not a constant-bound, unit-step loop without "
                         "iter_args")
        loops.append(loop)
        body = [op for op in loop.body.ops if not isinstance(op, AffineYieldOp)]
        inner = [op for op in body if isinstance(op, AffineForOp)]
        if inner and len(body) != 1:
            return _none(f"the nest is imperfect at {loop.loc}")
        loop = inner[0] if inner else None  # type: ignore[assignment]
    return _match_body(loops)


def _match_body(loops: list[AffineForOp]) -> ContractionMatch:
    body = [op for op in loops[-1].body.ops if not isinstance(op, AffineYieldOp)]
    stores = [op for op in body if isinstance(op, AffineStoreOp)]
    loads = [op for op in body if isinstance(op, AffineLoadOp)]
    others = [op for op in body if not (isinstance(op, (AffineStoreOp, AffineLoadOp, ConstantOp,
                                                         *_ADD, *_MUL)) or _widening(op))]
    if len(stores) != 1 or others:
        return _none("the innermost body is not one store of loads, multiplies and adds")
    store = stores[0]
    out = store.memref
    acc = [ld for ld in loads if ld.memref is out and ld.map == store.map
           and _same(ld.indices, store.indices)]
    operands = [ld for ld in loads if ld.memref is not out]
    if len(acc) != 1 or len(operands) != 2 or len(loads) != 3 or operands[0].memref is operands[1].memref:
        return _none("the innermost body is not out[...] += a[...] * b[...] on three distinct memrefs")
    if not _is_mac(store.value, acc[0], operands[0], operands[1]):
        return _none("the stored value is not out + a * b (times constants)")
    ivs = [lp.iv for lp in loops]
    frame = Frame(ivs)
    dom = domain_in_frame(store, frame)
    uses: list[set[int]] = []
    rels: list[isl.Map] = []
    accesses = [(out, store.map, store.indices), *((ld.memref, ld.map, ld.indices) for ld in operands)]
    for memref, m, idx in accesses:
        rel = index_relation(frame, memref, m, idx)
        uses.append({k for k in range(len(ivs)) if rel.involves_dims(isl.dim_type.in_, k, 1)})
        rels.append(rel.intersect_domain(dom))
    c_iv, a_iv, b_iv = uses
    lonely = [k for k in range(len(ivs)) if sum(k in u for u in uses) < 2]
    if lonely:
        names = ", ".join(f"%{ivs[k].name_hint or k}" for k in lonely)
        return _none(f"loop IV(s) {names} index fewer than two of the three operands")
    for (memref, _, _), rel, used in zip(accesses, rels, uses, strict=True):
        proj = rel
        for k in sorted(set(range(len(ivs))) - used, reverse=True):
            proj = proj.project_out(isl.dim_type.in_, k, 1)
        if not proj.is_injective():
            return _none(f"%{memref.name_hint or '?'} is not an injective image of its loop IVs "
                         "(e.g. convolution windows that overlap: one element feeds several "
                         "multiply-adds of the same output and weight), so the gemm bound does "
                         "not hold and none tighter is known here")
    # operands of different widths (i8 operands, an i32 accumulator): the bound in words of
    # the narrowest, a lower bound for every wider one too
    widths = {min(_mt(v).element.byte_width for v, _, _ in accesses)}
    trips = [lp.constant_trip_count or 0 for lp in loops]

    def prod(group: set[int]) -> int:
        return math.prod(trips[k] for k in group)

    batch = c_iv & a_iv & b_iv
    # an operand indexed by more IVs than it has dimensions combines them (a window `p + r`)
    mapped = any(len(u) > _mt(v).rank for (v, _, _), u in zip(accesses, uses, strict=True))
    return ContractionMatch(Contraction(
        m=prod((c_iv & a_iv) - batch), n=prod((c_iv & b_iv) - batch), k=prod((a_iv & b_iv) - batch),
        batch=prod(batch), output=out.name_hint or "?", left=operands[0].memref.name_hint or "?",
        right=operands[1].memref.name_hint or "?", element_bytes=widths.pop(), mapped=mapped,
        loc=str(store.loc)))


def _mt(v: Value) -> MemRefType:
    t = v.type
    assert isinstance(t, MemRefType)
    return t


def _same(a: list[Value], b: list[Value]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _is_mac(v: Value, acc: AffineLoadOp, a: AffineLoadOp, b: AffineLoadOp) -> bool:
    """`acc + product` (either order), the product a tree of mulf over a, b and constants."""
    if not (isinstance(v, OpResult) and isinstance(v.owner, _ADD)):
        return False
    x, y = v.owner.operands
    for first, second in ((x, y), (y, x)):
        if first is acc.result:
            leaves: list[Value] = []
            if _product_leaves(second, leaves):
                loads = [lv for lv in leaves if not _is_constant(lv)]
                return sorted(map(id, loads)) == sorted((id(a.result), id(b.result)))
    return False


def _product_leaves(v: Value, out: list[Value]) -> bool:
    if isinstance(v, OpResult) and isinstance(v.owner, _MUL):
        return all(_product_leaves(x, out) for x in v.owner.operands)
    if isinstance(v, OpResult) and _widening(v.owner):
        return _product_leaves(v.owner.operands[0], out)
    out.append(v)
    return True


def _widening(op: Operation) -> bool:
    """A cast to a type at least as wide (`extsi`, `extf`, `sitofp`): the value unchanged."""
    if not isinstance(op, CastOp) or isinstance(op, IndexCastOp):
        return False
    src, dst = op.operands[0].type, op.results[0].type
    return (isinstance(src, ElementType) and isinstance(dst, ElementType) and not src.is_index
            and dst.bitwidth >= src.bitwidth)


def _is_constant(v: Value) -> bool:
    return isinstance(v, OpResult) and isinstance(v.owner, ConstantOp)


__all__ = ["Contraction", "ContractionMatch", "find_contraction"]
