"""Access relations: which memref elements each execution of a memory op touches."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.domain import domain_frame
from compiler.analysis.isl_bridge import CTX, AnalysisError, Frame, isl_name
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Operation, OpResult, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineLoadOp,
    AffineStoreOp,
    ConstantOp,
)
from compiler.ir.types import MemRefType


@dataclass(frozen=True, slots=True)
class Access:
    """One memref access of an op: `side` is "" for load/store, else the DMA side."""

    op: Operation
    memref: Value
    side: str
    is_write: bool


def _load(op: AffineLoadOp) -> list[Access]:
    return [Access(op, op.memref, "", False)]


def _store(op: AffineStoreOp) -> list[Access]:
    return [Access(op, op.memref, "", True)]


def _dma_start(op: AffineDmaStartOp) -> list[Access]:
    # The tag element is written when the transfer completes (signalled).
    return [Access(op, op.src, "src", False), Access(op, op.dst, "dst", True),
            Access(op, op.tag, "tag", True)]


def _dma_wait(op: AffineDmaWaitOp) -> list[Access]:
    return [Access(op, op.tag, "tag", False)]


_ACCESSES: dict[type, Callable[..., list[Access]]] = {
    AffineLoadOp: _load,
    AffineStoreOp: _store,
    AffineDmaStartOp: _dma_start,
    AffineDmaWaitOp: _dma_wait,
}


def op_accesses(op: Operation) -> list[Access]:
    """The accesses of this op alone (not nested ops)."""
    fn = _ACCESSES.get(type(op))
    return fn(op) if fn is not None else []


def accesses_in(root: Operation) -> Iterator[Access]:
    """Every access of `root` and the ops nested in it, in program order."""
    for op in root.walk():
        yield from op_accesses(op)


def _side_map(op: Operation, side: str) -> tuple[Value, AffineMap, list[Value]]:
    if isinstance(op, AffineLoadOp | AffineStoreOp):
        if side not in ("", None):
            raise ValueError(f"{op.NAME} has no side '{side}'")
        return op.memref, op.map, op.indices
    if isinstance(op, AffineDmaStartOp):
        table = {"src": (op.src, op.src_map, op.src_indices),
                 "dst": (op.dst, op.dst_map, op.dst_indices),
                 "tag": (op.tag, op.tag_map, op.tag_indices)}
        if side not in table:
            raise ValueError(f"affine.dma_start side must be src, dst or tag, got '{side}'")
        return table[side]
    if isinstance(op, AffineDmaWaitOp):
        if side not in ("", "tag"):
            raise ValueError(f"affine.dma_wait side must be tag, got '{side}'")
        return op.tag, op.tag_map, op.tag_indices
    raise ValueError(f"{op.NAME} does not access memory through an affine map")


def index_relation(frame: Frame, memref: Value, m: AffineMap, operands: list[Value]) -> isl.Map:
    """`{ [frame dims] -> M[a0, ...] }` for the index map (no domain restriction)."""
    pas = frame.map_results(m, operands)
    if pas:
        rel = isl.Map.from_pw_aff(pas[0])
        for p in pas[1:]:
            rel = rel.flat_range_product(isl.Map.from_pw_aff(p))
    else:
        rel = isl.Map.from_domain_and_range(frame.universe, isl.Set.universe(isl.Space.set_alloc(CTX, 0, 0)))
    # [params] -> { [ivs] -> M[a0, ..., a(r-1)] }
    rel = rel.set_tuple_name(isl.dim_type.out, isl_name(memref))
    for k in range(rel.dim(isl.dim_type.out)):
        rel = rel.set_dim_name(isl.dim_type.out, k, f"a{k}")
    return rel


def _const(v: Value | None) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.owner, ConstantOp):
        return int(v.owner.value)
    return None


def dma_range_map(op: AffineDmaStartOp, side: str, count: str | None = None) -> isl.Map | None:
    """`{ M[start] -> M[e] }`: the elements a DMA side moves, from its start element.

    None when the memref shape, the element count or the stride are not constants. With
    `count="n"` the element count is an input instead: `{ [M[start] -> [n]] -> M[e] }`.
    Follows the DMA semantics of CONTRACTS.md (row-major linear order; chunks of
    `per_stride` elements `stride` apart on the side in the slower memory space).
    """
    memref = op.src if side == "src" else op.dst
    mt = memref.type
    assert isinstance(mt, MemRefType)
    n = count if count is not None else _const(op.num_elements)
    if n is None or not mt.has_static_shape or mt.rank == 0:
        return None
    shape = [int(d) for d in mt.shape]  # type: ignore[arg-type]
    strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    src_t, dst_t = op.src.type, op.dst.type
    assert isinstance(src_t, MemRefType) and isinstance(dst_t, MemRefType)
    strided_side = "src" if src_t.memory_space <= dst_t.memory_space else "dst"
    s = [f"s{k}" for k in range(len(shape))]
    e = [f"e{k}" for k in range(len(shape))]
    lin_s = " + ".join(f"{c}*{v}" for c, v in zip(strides, s, strict=True))
    lin_e = " + ".join(f"{c}*{v}" for c, v in zip(strides, e, strict=True))
    bounds = " and ".join(f"0 <= {v} < {d}" for v, d in zip(e, shape, strict=True))
    stride, per = _const(op.stride), _const(op.elements_per_stride)
    if op.is_strided and side == strided_side:
        if stride is None or per is None or per <= 0:
            return None
        # offset = c*stride + r, element number c*per + r < n
        off = (f"exists (c, r: {lin_e} = {lin_s} + {stride}*c + r and 0 <= r < {per} "
               f"and c >= 0 and {per}*c + r < {n})")
    else:
        off = f"exists (o: {lin_e} = {lin_s} + o and 0 <= o < {n})"
    name = isl_name(memref)
    start = f"{name}[{', '.join(s)}]"
    if count is not None:
        start = f"[{start} -> [{count}]]"
    text = f"{{ {start} -> {name}[{', '.join(e)}] : {bounds} and {off} }}"
    # { M[s] -> M[e] }
    return _read_map(text)


@functools.lru_cache(maxsize=4096)
def _read_map(text: str) -> isl.Map:
    """isl maps are immutable values: one parse per distinct text (the passes ask often)."""
    return isl.Map.read_from_str(CTX, text)


def access_relation(op: Operation, side: str = "", full_range: bool = True) -> isl.Map:
    """`[symbols] -> { [ivs] -> M[a...] }` restricted to the op's iteration domain.

    For a DMA `src`/`dst` side, `full_range` models every element moved (when the element
    count, stride and shape are constants); otherwise only the start element.
    """
    if isinstance(op, AffineDmaWaitOp) and side == "":
        side = "tag"
    frame, dom = domain_frame(op)
    return relation_in_frame(op, side, frame, dom, full_range)


def relation_in_frame(op: Operation, side: str, frame: Frame, dom: isl.Set,
                      full_range: bool = True) -> isl.Map:
    memref, m, operands = _side_map(op, side)
    mt = memref.type
    if not isinstance(mt, MemRefType):
        raise AnalysisError(f"{op.NAME} accesses a non-memref value", op.loc)
    rel = index_relation(frame, memref, m, operands).intersect_domain(dom)
    if full_range and isinstance(op, AffineDmaStartOp) and side in ("src", "dst"):
        rng = dma_range_map(op, side)
        if rng is not None:
            rel = rel.apply_range(rng)
        elif _affine_count(op):
            # the count is a function of the IVs (a partial tile's affine.min): pair each
            # start with its count, then expand
            counts = isl.Map.from_pw_aff(frame.value(op.num_elements)).intersect_domain(dom)
            rng = dma_range_map(op, side, count="n")
            assert rng is not None
            rel = rel.range_product(counts).apply_range(rng)
        for k in range(rel.dim(isl.dim_type.out)):
            rel = rel.set_dim_name(isl.dim_type.out, k, f"a{k}")
    return rel


def _affine_count(op: AffineDmaStartOp) -> bool:
    """The element count is a constant or an affine.apply/min/max chain over values the
    analysis frame knows (IVs, symbols, constants), with constant stride and shape."""
    from compiler.ir.ops import AffineApplyOp, AffineMaxOp, AffineMinOp
    from compiler.ir.scope import is_valid_dim

    def affine(v: Value, depth: int = 0) -> bool:
        if depth > 8:
            return False
        owner = getattr(v, "owner", None)
        if isinstance(owner, ConstantOp):
            return isinstance(owner.value, int)
        if isinstance(owner, AffineApplyOp | AffineMinOp | AffineMaxOp):
            return all(affine(x, depth + 1) for x in owner.operands)
        return is_valid_dim(v)

    return affine(op.num_elements) and dma_range_map(op, "src", count="n") is not None \
        and dma_range_map(op, "dst", count="n") is not None


def is_exact_side(op: Operation, side: str) -> bool:
    """False when a DMA side's transferred range could not be modelled (start element only)."""
    if isinstance(op, AffineDmaStartOp) and side in ("src", "dst"):
        return dma_range_map(op, side) is not None or _affine_count(op)
    return True
