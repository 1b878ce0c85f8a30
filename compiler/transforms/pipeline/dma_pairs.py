"""DMA units (a start or wait op, or a loop nest of them), their direction, the pairing of a
start with its wait through the tag (MLIR's checkTagMatch), and the dependence between an
outgoing and an incoming DMA that the skew would reorder."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.ir.affine_map import AffineMap
from compiler.ir.builder import IndexExpr, affine_map_of
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineYieldOp,
)
from compiler.ir.types import INDEX
from compiler.transforms.rewrite.index_exprs import map_exprs, substitute_value
from compiler.transforms.rewrite.memref_uses import memref_type
from compiler.transforms.rewrite.structure import PURE_INDEX_OPS


@dataclass(frozen=True, slots=True)
class DmaPair:
    """A start unit and its wait unit: single ops, or loop nests of them (data_copy.emit emits one
    DMA per row when a tile needs it, and an affine.if between a tile's whole-row form and its
    partial one under a row limit)."""

    start: Operation
    wait: Operation

    @property
    def first(self) -> AffineDmaStartOp:
        return dma_unit(self.start)[1][0]  # type: ignore[return-value]

    @property
    def fast_buffer(self) -> Value:
        s = self.first
        return s.dst if is_incoming(s) else s.src

    @property
    def tag(self) -> Value:
        return self.first.tag


def is_incoming(op: AffineDmaStartOp) -> bool:
    return memref_type(op.dst).memory_space > memref_type(op.src).memory_space


def is_outgoing(op: AffineDmaStartOp) -> bool:
    return memref_type(op.src).memory_space > memref_type(op.dst).memory_space


def dma_unit(op: Operation) -> tuple[str | None, list[Operation]]:
    """("start", starts) / ("wait", waits) when `op` is a DMA op or a loop nest containing
    only DMA ops of one kind (and index computations); (None, []) otherwise."""
    if isinstance(op, AffineDmaStartOp):
        return "start", [op]
    if isinstance(op, AffineDmaWaitOp):
        return "wait", [op]
    if not isinstance(op, AffineForOp | AffineIfOp):
        return None, []
    starts: list[Operation] = []
    waits: list[Operation] = []
    for o in op.walk():
        if isinstance(o, AffineDmaStartOp):
            starts.append(o)
        elif isinstance(o, AffineDmaWaitOp):
            waits.append(o)
        elif not isinstance(o, (AffineForOp, AffineIfOp, AffineYieldOp, *PURE_INDEX_OPS)):
            return None, []
    if starts and not waits and _one_kind(starts):
        return "start", starts
    if waits and not starts and len({id(w.tag) for w in waits}) == 1:  # type: ignore[attr-defined]
        return "wait", waits
    return None, []


def _one_kind(starts: list[Operation]) -> bool:
    first = starts[0]
    assert isinstance(first, AffineDmaStartOp)
    return all(isinstance(o, AffineDmaStartOp) and o.src is first.src and o.dst is first.dst
               and o.tag is first.tag for o in starts)


def _same_index(m1: AffineMap, ops1: Sequence[Value], m2: AffineMap, ops2: Sequence[Value]) -> bool:
    a = affine_map_of(map_exprs(m1, ops1))
    b = affine_map_of(map_exprs(m2, ops2))
    return a[0] == b[0] and len(a[1]) == len(b[1]) and all(x is y for x, y in zip(a[1], b[1]))


def tags_match(start: Operation, wait: Operation) -> bool:
    """Same tag memref; for single ops also the same tag element (MLIR's checkTagMatch)."""
    ks, ss = dma_unit(start)
    kw, ww = dma_unit(wait)
    if ks != "start" or kw != "wait":
        return False
    s0, w0 = ss[0], ww[0]
    assert isinstance(s0, AffineDmaStartOp) and isinstance(w0, AffineDmaWaitOp)
    if s0.tag is not w0.tag:
        return False
    if isinstance(start, AffineDmaStartOp) and isinstance(wait, AffineDmaWaitOp):
        return _same_index(s0.tag_map, s0.tag_indices, w0.tag_map, w0.tag_indices)
    if not (isinstance(start, AffineForOp | AffineIfOp) and isinstance(wait, AffineForOp | AffineIfOp)):
        return False
    return _nest_tag_key(start, s0) == _nest_tag_key(wait, w0)


_PLACEHOLDERS = Block([INDEX] * 16, [f"nest{k}" for k in range(16)]).args


def _nest_tag_key(nest: AffineForOp | AffineIfOp, dma: AffineDmaStartOp | AffineDmaWaitOp
                  ) -> tuple[AffineMap, tuple[int, ...]]:
    """The tag element a DMA in a nest signals, with the nest's own IVs replaced by
    positional placeholders, so a start nest and its wait nest compare equal."""
    exprs = map_exprs(dma.tag_map, dma.tag_indices)
    loops = [o for o in nest.walk() if isinstance(o, AffineForOp)]
    for k, lp in enumerate(loops[: len(_PLACEHOLDERS)]):
        exprs = [substitute_value(e, lp.iv, IndexExpr.of(_PLACEHOLDERS[k])) for e in exprs]
    m, operands = affine_map_of(exprs)
    return (m, tuple(id(v) for v in operands))


def dma_dependence(out: Operation, inc: Operation, loop: AffineForOp) -> bool | None:
    """Whether the outgoing DMA's writes to the slow memref in one iteration reach the incoming
    DMA's reads in a later one (a dependence carried by `loop`, which the skew would reorder).
    Dependences through the fast buffer do not count: multi-buffering removes them. None when
    the analysis cannot model a transferred range exactly."""
    from compiler.analysis import loop_depth

    return _slow_dependence(out, inc, "src", (loop_depth(loop),))


def dma_write_overlap(out: Operation, other: Operation, loop: AffineForOp) -> bool | None:
    """Whether the outgoing DMA writes an element of the slow memref that the outgoing DMA
    `other` (maybe `out` itself) writes in a later iteration of `loop`, or later in the same
    iteration (`other` after `out` in the body): a write-back left in flight across the
    iteration (`pipeline-copy-out`) would still run when the other starts, two DMAs writing
    one element in no order. None when the analysis cannot model a transferred range."""
    from compiler.analysis import loop_depth

    depth = loop_depth(loop)
    body = loop.body.ops
    later = other is not out and body.index(other) > body.index(out)
    return _slow_dependence(out, other, "dst", (depth, depth + 1) if later else (depth,))


def _slow_dependence(out: Operation, second: Operation, side: str, depths: Sequence[int]
                     ) -> bool | None:
    """A dependence at one of `depths` from the slow side (dst) of the DMA unit `out` to the
    `side` of the DMA unit `second`, on that side's memref."""
    import islpy as isl

    from compiler.analysis import dependence_list
    from compiler.analysis.access import is_exact_side
    from compiler.analysis.isl_bridge import AnalysisError

    try:
        for o in dma_unit(out)[1]:
            for i in dma_unit(second)[1]:
                assert isinstance(o, AffineDmaStartOp) and isinstance(i, AffineDmaStartOp)
                if not (is_exact_side(o, "dst") and is_exact_side(i, side)):
                    return None
                target = i.src if side == "src" else i.dst
                if o.dst is not target:
                    continue
                for depth in depths:
                    for dep in dependence_list(o, i, depth):
                        if dep.memref is target:
                            return True
    except (AnalysisError, isl.Error):  # the analysis does not model this access: conservative
        return None
    return False


def shared_buffers(in_pairs: Sequence[DmaPair], out_pairs: Sequence[DmaPair]) -> list[Value]:
    """Fast buffers both filled and drained by pipelined DMAs: they need stages + 1 slots."""
    out: list[Value] = []
    for p in out_pairs:
        b = p.fast_buffer
        if any(q.fast_buffer is b for q in in_pairs) and not any(b is x for x in out):
            out.append(b)
    return out


def copies_out(loop: AffineForOp) -> bool:
    """A loop (not itself a copy nest) with an outgoing DMA start directly in its body."""
    return dma_unit(loop)[0] is None and any(unit_direction(op) == "out" for op in loop.body.ops)


def unit_direction(op: Operation) -> str | None:
    kind, ops = dma_unit(op)
    if kind != "start":
        return None
    first = ops[0]
    assert isinstance(first, AffineDmaStartOp)
    return "in" if is_incoming(first) else "out" if is_outgoing(first) else None
