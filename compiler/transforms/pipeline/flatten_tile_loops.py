"""Flatten the tile loops around a loop that copies data out, so its pipeline never drains.

Pipelining a loop L with an outgoing DMA defers each write-back to the next iteration; at the
last iteration of L nothing follows, so the write-back of every tile of the enclosing tile
loops is exposed, as is the first copy-in of the next one. When L's parents P1 ... Pm nest it
perfectly (each body holds only the next loop) with constant, rectangular bounds, the m + 1
loops become one loop over the linear tile index t, each IV recovered with an `affine.apply`:

    iv_k = lo_k + ((t floordiv (T_k+1 * ... * T_m)) mod T_k) * step_k

The iteration order is unchanged, so this is always legal; pipelining the flat loop then
overlaps the write-back of tile t - 1 and the copy-in of tile t + 1 with the compute of tile t
across what were tile boundaries. (MLIR's `affine-loop-coalescing` builds the same loop;
upstream never combines it with DMA pipelining.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from compiler.ir.builder import IndexExpr, affine_map_of
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineApplyOp, AffineForOp, AffineYieldOp
from compiler.transforms.pipeline.skew import trip_count
from compiler.transforms.rewrite.index_exprs import const_expr, loop_bounds, make_for


def perfect_parent_chain(loop: AffineForOp) -> list[AffineForOp]:
    """The parents that nest `loop` perfectly, outermost first, each with a constant trip
    count and bounds that do not use the chain's IVs; empty when there are none."""
    chain: list[AffineForOp] = []
    cur: Operation = loop
    while True:
        parent = cur.parent_op
        if not isinstance(parent, AffineForOp) or parent.inits:
            break
        if [op for op in parent.body.ops if not isinstance(op, AffineYieldOp)] != [cur]:
            break
        if not _flattenable(parent):
            break
        chain.append(parent)
        cur = parent
    chain.reverse()
    ivs = [p.iv for p in chain] + [loop.iv]
    # Rectangular: no bound of a chain loop (or of `loop`) uses a chain IV.
    for lp in [*chain, loop]:
        lo, hi = loop_bounds(lp)
        used = [v for e in (*lo, *hi) for v in e.operands]
        if any(any(v is iv for iv in ivs) for v in used):
            return []
    return chain


def _flattenable(lp: AffineForOp) -> bool:
    lo, hi = loop_bounds(lp)
    t = trip_count(lp)
    return len(lo) == 1 and len(hi) == 1 and t is not None and t >= 1


def flatten(chain: Sequence[AffineForOp], loop: AffineForOp) -> AffineForOp:
    """Replace the perfect nest `chain + [loop]` by one loop over the linear index."""
    loops = [*chain, loop]
    if not _flattenable(loop) or loop.inits:
        raise ValueError("the innermost loop needs a constant trip count and no iter_args")
    trips = [trip_count(lp) for lp in loops]
    assert all(t is not None for t in trips)
    total = math.prod(t for t in trips if t is not None)
    top = loops[0]
    block = top.parent_block
    assert block is not None
    name = "_".join(lp.iv.name_hint for lp in loops if lp.iv.name_hint) or None
    flat = make_for([const_expr(0)], [const_expr(total)], 1, loop.loc, name)
    term = flat.body.terminator
    assert term is not None
    t = IndexExpr.of(flat.iv)
    inner = 1
    ivs: list[tuple[Value, IndexExpr]] = []
    for lp, trips_k in zip(reversed(loops), reversed(trips), strict=True):
        assert trips_k is not None
        pos = t if inner == 1 else t // inner
        if lp is not top:
            pos = pos % trips_k
        lo = loop_bounds(lp)[0][0]
        ivs.append((lp.iv, lo + pos * lp.step))
        inner *= trips_k
    for iv, e in reversed(ivs):
        m, operands = affine_map_of([e])
        apply = AffineApplyOp(m, operands, loc=loop.loc)
        flat.body.insert_before(term, apply)
        _replace_in(loop.body.ops, iv, apply.result)
    for op in list(loop.body.ops):
        if isinstance(op, AffineYieldOp):
            continue
        op.detach()
        flat.body.insert_before(term, op)
    block.insert_before(top, flat)
    top.erase()
    return flat


def _replace_in(ops: Sequence[Operation], old: Value, new: Value) -> None:
    for op in ops:
        op.replace_uses_of(old, new)


def flatten_around(roots: Sequence[Operation], wanted: Callable[[AffineForOp], bool]) -> list[AffineForOp]:
    """Flatten the perfect tile-loop chain around every loop under `roots` that `wanted`
    accepts; returns the new flat loops."""
    targets = [op for r in roots for op in r.walk()
               if isinstance(op, AffineForOp) and wanted(op)]
    made: list[AffineForOp] = []
    for lp in targets:
        if lp.parent_block is None:
            continue
        chain = perfect_parent_chain(lp)
        if chain and _flattenable(lp) and not lp.inits:
            made.append(flatten(chain, lp))
    return made


__all__ = ["flatten", "flatten_around", "perfect_parent_chain"]
