"""Cross-tile prefetch: keep the DMA pipeline full across the outer tile loops.

After MLIR-style pipelining of a reduction-tile loop L (nested in tile loops P1 ... Pm), every
(i, j) tile starts with a prologue that issues the first transfers and waits for them, so the
pipeline drains and refills once per tile. Here the prologue of the *next* tile is issued
inside the epilogue of the current one (time step T + e issues the next tile's start e, just as
the steady state issues start k + S), and only the very first tile's prologue stays, hoisted
before P1. The tile loops are flattened into one counter so buffer slots keep rotating:
slot = (linear tile index * T + k index) mod N.

Applied only when it is clearly legal: constant trip counts, the starts depend on nothing but
L's and the tile loops' IVs and values defined before P1, and no op inside P1 writes the
memrefs the starts read. Otherwise the caller gets a reason for its remark.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from compiler.diagnostics import Location
from compiler.ir.builder import IndexExpr, affine_map_of, integer_set_of
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineApplyOp,
    AffineDmaStartOp,
    AffineForOp,
    AffineIfOp,
    AffineStoreOp,
    AffineYieldOp,
    FuncOp,
)
from compiler.transforms.data_copy.fast_memory import live_buffers_at
from compiler.transforms.pipeline.skew import trip_count
from compiler.transforms.rewrite.index_exprs import const_expr, loop_bounds, substitute_value
from compiler.transforms.rewrite.structure import PURE_INDEX_OPS, defined_inside


@dataclass(frozen=True, slots=True)
class ChainLoop:
    loop: AffineForOp
    lo: IndexExpr
    hi: IndexExpr
    trips: int


@dataclass(frozen=True, slots=True)
class CrossTilePlan:
    chain: tuple[ChainLoop, ...]      # outermost first
    trips: int                        # T of the pipelined loop
    counter: IndexExpr                # linear tile index * T + the pipelined loop's index

    def slot(self, n: int) -> IndexExpr:
        """The buffer slot for `n` rotating buffers."""
        return self.counter % n

    @property
    def outermost(self) -> AffineForOp:
        return self.chain[0].loop


def plan(loop: AffineForOp, start_units: Sequence[Operation], shift: int,
         fast_space: int, replaced: Sequence[Value] = ()) -> CrossTilePlan | str:
    """A plan over the longest legal chain of enclosing tile loops, or the reason none is."""
    chain: list[ChainLoop] = []
    cur = loop.parent_op
    while isinstance(cur, AffineForOp):
        lo, hi = loop_bounds(cur)
        t = trip_count(cur)
        if len(lo) != 1 or len(hi) != 1 or t is None or t < 1:
            break
        chain.append(ChainLoop(cur, lo[0], hi[0], t))
        cur = cur.parent_op
    if not chain:
        return "no enclosing tile loop"
    chain.reverse()
    T = trip_count(loop)
    if T is None or shift >= T:
        return f"the pipelined loop needs a constant trip count above {shift}"
    lo = loop_bounds(loop)[0]
    if len(lo) != 1:
        return "the pipelined loop's lower bound is a max of several expressions"
    why = "no enclosing tile loop"
    for k in range(len(chain)):           # longest chain first
        sub = chain[k:]
        why = _check_chain(loop, sub, start_units, fast_space, replaced) or ""
        if not why:
            lin = const_expr(0)
            for c in sub:
                lin = lin * c.trips + (IndexExpr.of(c.loop.iv) - c.lo) // c.loop.step
            # Flattened counter: (linear tile index) * T + (iv - lo) floordiv step
            counter = lin * T + (IndexExpr.of(loop.iv) - lo[0]) // loop.step
            return CrossTilePlan(tuple(sub), T, counter)
    return why


def _check_chain(loop: AffineForOp, chain: Sequence[ChainLoop], start_units: Sequence[Operation],
                 fast_space: int, replaced: Sequence[Value]) -> str | None:
    from compiler.ir.ops import AllocOp

    ivs = [c.loop.iv for c in chain]
    for c in chain:                   # rectangular tile space
        if any(any(v is w for w in ivs) for v in c.lo.operands + c.hi.operands):
            return "the tile loops are not rectangular"
    top = chain[0].loop
    live = {id(a) for a in live_buffers_at(loop, fast_space)}
    for op in top.walk():
        if isinstance(op, AllocOp) and op.memref_type.memory_space == fast_space \
                and not loop.is_ancestor_of(op) and id(op) not in live \
                and not any(op.result is r for r in replaced):
            return f"other fast buffers are allocated inside the tile loops ({op.memref_type} at {op.loc})"

    def movable(v: Value, unit: Operation) -> bool:
        if v is loop.iv or any(v is w for w in ivs) or defined_inside(v, unit) \
                or any(v is r for r in replaced) or not defined_inside(v, top):
            return True
        owner = getattr(v, "owner", None)
        home = getattr(owner, "parent_block", None)
        return (isinstance(owner, PURE_INDEX_OPS)
                and (home is loop.body or any(home is c.loop.body for c in chain))
                and all(movable(x, unit) for x in owner.operands))

    for unit in start_units:
        for op in unit.walk():
            for v in op.operands:
                if not movable(v, unit):
                    return f"{op.NAME} at {op.loc} uses {v!r}, computed inside the tile loops"
            if isinstance(op, AffineDmaStartOp) and _reads_earlier_writes(top, loop, chain, op):
                return (f"%{op.src.name_hint or '?'} is written inside the tile loops where the "
                        "next tile's transfer would read it")
    return None


def _reads_earlier_writes(top: AffineForOp, loop: AffineForOp, chain: Sequence[ChainLoop],
                          start: AffineDmaStartOp) -> bool:
    """Would issuing `start` one tile early read an element that a write in an earlier tile
    (or earlier in its own tile, before `loop`) has not produced yet? Writes inside `loop`
    in the same tile are the skew's business. Conservative when the analysis cannot tell."""
    import islpy as isl

    from compiler.analysis import dependence_list, loop_depth
    from compiler.analysis.access import is_exact_side
    from compiler.analysis.isl_bridge import AnalysisError

    writers = [op for op in top.walk()
               if (isinstance(op, AffineStoreOp) and op.memref is start.src)
               or (isinstance(op, AffineDmaStartOp) and op.dst is start.src)]
    if not writers:
        return False
    if not is_exact_side(start, "src"):
        return True
    lo, hi = loop_depth(chain[0].loop), loop_depth(chain[-1].loop)
    try:
        for w in writers:
            if isinstance(w, AffineDmaStartOp) and not is_exact_side(w, "dst"):
                return True
            depths = list(range(lo, hi + 1))
            if not loop.is_ancestor_of(w):
                depths.append(hi + 1)             # same tile, the write comes first
            for d in depths:
                if any(dep.memref is start.src and dep.kind == "flow"
                       for dep in dependence_list(w, start, d)):
                    return True
    except (AnalysisError, isl.Error):  # the analysis does not model an access: conservative
        return True
    return False


def apply(p: CrossTilePlan, loop_iv: Value, loop_lo: IndexExpr, step: int, shift: int,
          template: Sequence[Operation], prologue: Sequence[Operation],
          epilogue: Sequence[Operation], func: FuncOp) -> list[Operation]:
    """Hoist the first tile's prologue before the tile loops; issue the next tile's starts
    in the epilogue. `template` holds clones of the start ops over the original loop IV."""
    top = p.outermost
    outer = top.parent_block
    assert outer is not None
    # 1. The first tile's prologue, with every tile IV at its lower bound.
    first: dict[Value, Value] = {}
    start = outer.index_of(top)
    for c in p.chain:
        first[c.loop.iv] = _materialize(c.lo, outer, top, c.loop.loc)
    _clone_chain_values(prologue, p, first, outer, top)
    for op in prologue:
        outer.insert_before(top, op.clone(first))
        op.erase()
    made = list(outer.ops[start: outer.index_of(top)])
    # 2. Each epilogue time step T + e issues the next tile's start e.
    T = p.trips
    for e, (holder, iv_val, before) in enumerate(_epilogue_steps(epilogue, shift)):
        next_iv_cur = IndexExpr.of(iv_val) if iv_val is not None else None
        guard = _next_tile_guard(p, loop_iv, loop_lo, step, T, e, next_iv_cur, template)
        holder.insert_before(before, guard)
        made.append(guard)
    return made


def _epilogue_steps(epilogue: Sequence[Operation], shift: int
                    ) -> Iterator[tuple[Block, Value | None, Operation]]:
    """(block, time-step IV or None, op to insert before): with shift 1 the epilogue is the
    promoted ops of one time step; with more, one loop over the time steps."""
    if shift >= 2:
        lp = epilogue[0]
        assert isinstance(lp, AffineForOp) and len(epilogue) == 1
        yield lp.body, lp.iv, lp.body.ops[0]
        return
    first = epilogue[0]
    assert first.parent_block is not None
    yield first.parent_block, None, first


def _next_tile_guard(p: CrossTilePlan, loop_iv: Value, loop_lo: IndexExpr, step: int, T: int, e: int,
                     step_iv: IndexExpr | None, template: Sequence[Operation]) -> AffineIfOp:
    """if (j + sj < Uj) {starts at (.., j + sj)} else if (i + si < Ui) {starts at (i + si, lo_j)} ..."""
    loc = p.chain[-1].loop.loc
    outer_if: AffineIfOp | None = None
    else_block: Block | None = None
    m = len(p.chain)
    for level in range(m - 1, -1, -1):
        c = p.chain[level]
        nxt = IndexExpr.of(c.loop.iv) + c.loop.step
        iset, operands = integer_set_of([c.hi - nxt - 1 >= const_expr(0)])
        if_op = AffineIfOp(iset, operands, loc=loc)
        if_op.then_block.append(AffineYieldOp(loc=loc))
        # Values of the tile IVs in the next tile at this level.
        subst: dict[int, IndexExpr] = {id(c.loop.iv): nxt}
        for inner in p.chain[level + 1:]:
            subst[id(inner.loop.iv)] = inner.lo
        body = if_op.then_block
        mapping: dict[Value, Value] = {}
        for cl in p.chain:
            if id(cl.loop.iv) in subst:
                mapping[cl.loop.iv] = _materialize(subst[id(cl.loop.iv)], body, body.ops[-1], loc)
        # The pipelined loop's IV in the next tile: its lower bound there, plus e steps.
        lo_next = loop_lo
        for cl in p.chain:
            if id(cl.loop.iv) in subst:
                lo_next = substitute_value(lo_next, cl.loop.iv, subst[id(cl.loop.iv)])
        if step_iv is not None:
            # inside an epilogue loop over iv' in [lo + T*s, lo + (T+S)*s): e = (iv' - lo)/s - T
            k_next = lo_next + (step_iv - loop_lo) - T * step
        else:
            k_next = lo_next + e * step
        mapping[loop_iv] = _materialize(k_next, body, body.ops[-1], loc)
        _clone_chain_values(template, p, mapping, body, body.ops[-1])
        for op in template:
            body.insert_before(body.ops[-1], op.clone(mapping))
        if outer_if is None:
            outer_if = if_op
        else:
            assert else_block is not None
            else_block.insert_before(else_block.ops[-1], if_op)
        if level > 0:
            if_op.else_block.append(AffineYieldOp(loc=loc))
            else_block = if_op.else_block
    assert outer_if is not None
    return outer_if


def _clone_chain_values(ops: Sequence[Operation], p: CrossTilePlan, mapping: dict[Value, Value],
                        block: Block, before: Operation) -> None:
    """Clone (with `mapping`) the index computations in the tile loops' bodies that `ops`
    use, e.g. the IVs a flattened tile loop recovers with affine.apply."""

    bodies = [c.loop.body for c in p.chain]

    def visit(v: Value) -> None:
        if v in mapping:
            return
        owner = getattr(v, "owner", None)
        if not isinstance(owner, PURE_INDEX_OPS) or not any(owner.parent_block is b for b in bodies):
            return
        for x in owner.operands:
            visit(x)
        block.insert_before(before, owner.clone(mapping))

    for op in ops:
        for inner in op.walk():
            for v in inner.operands:
                visit(v)


def _materialize(e: IndexExpr, block: Block, before: Operation, loc: Location) -> Value:
    from compiler.ir.ops import ConstantOp
    from compiler.ir.types import INDEX

    if len(e.operands) == 1 and e.expr == IndexExpr.of(e.operands[0]).expr:
        return e.operands[0]
    if not e.operands:
        c = ConstantOp(e.expr.value, INDEX, loc=loc)  # type: ignore[attr-defined]
        block.insert_before(before, c)
        return c.result
    m, ops = affine_map_of([e])
    a = AffineApplyOp(m, ops, loc=loc)
    block.insert_before(before, a)
    return a.result


__all__ = ["CrossTilePlan", "apply", "plan"]
