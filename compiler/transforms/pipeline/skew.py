"""Op-wise skewing of a loop body (MLIR's affineForOpBodySkew), correct for every trip count.

Each op of the body gets a shift `d`: in the skewed program, "time" step t runs every group
whose original iteration `k = t - d` exists (0 <= k < T), groups in ascending shift order. With
a constant trip count the time axis is cut at every `d` and `T + d`, and each piece becomes one
loop holding exactly the groups active there (single-iteration pieces are promoted), so no
guard is needed. Upstream builds the same pieces but assumes T >= max shift: with T = 0 its
epilogue runs the body once, with T < max shift it runs iterations that do not exist. With a
symbolic trip count the program becomes prologue / steady state / epilogue with `affine.if`
guards on the groups whose iteration may not exist.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from compiler.ir.affine_expr import Const
from compiler.ir.builder import Constraint, IndexExpr, affine_map_of, integer_set_of
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import AffineApplyOp, AffineForOp, AffineIfOp, AffineYieldOp
from compiler.transforms.rewrite.index_exprs import const_expr, loop_bounds, make_for
from compiler.transforms.rewrite.structure import constant_index, enclosing_func


@dataclass(frozen=True, slots=True)
class SkewResult:
    """The ops that replaced the loop, in order, and the steady-state loop if there is one."""

    ops: tuple[Operation, ...]
    steady: AffineForOp | None
    guarded: bool
    pieces: tuple[tuple[int, int, tuple[Operation, ...]], ...] = ()   # (t0, t1, ops), constant T


class SkewError(Exception):
    """Why a loop cannot be skewed; the caller turns it into a remark."""


def trip_count(loop: AffineForOp) -> int | None:
    """Constant trip count, also when both bounds move together (`%t to %t + 32`)."""
    lo, hi = loop_bounds(loop)
    if len(lo) != 1 or len(hi) != 1:
        c = loop.constant_trip_count
        return c
    diff = hi[0] - lo[0]
    if isinstance(diff.expr, Const):
        return max(0, -((-diff.expr.value) // loop.step))
    return None


def skew_loop(loop: AffineForOp, shifts: Sequence[int], allow_guards: bool = True) -> SkewResult:
    """Replace `loop` by its skewed form. `shifts` has one entry per op of the body (the
    terminator's entry is ignored). Legality (dependences) is the caller's job."""
    body = [op for op in loop.body.ops if not op.IS_TERMINATOR]
    if len(shifts) not in (len(body), len(body) + 1):
        raise ValueError(f"{len(shifts)} shifts for {len(body)} ops")
    if loop.inits:
        raise SkewError("the loop carries values (iter_args)")
    if any(d < 0 for d in shifts[: len(body)]):
        raise ValueError("shifts must be non-negative")
    lo, hi = loop_bounds(loop)
    if len(lo) != 1 or len(hi) != 1:
        raise SkewError("a loop bound is a max/min of several expressions")
    groups: dict[int, list[Operation]] = {}
    for op, d in zip(body, shifts, strict=False):
        groups.setdefault(d, []).append(op)
    order = sorted(groups)
    _check_self_contained(loop, groups)
    if len(order) <= 1:
        return SkewResult((loop,), loop, False)
    T = trip_count(loop)
    if T is None and not allow_guards:
        raise SkewError("unknown trip count")
    block = loop.parent_block
    assert block is not None
    pieces: list[tuple[int, int, tuple[Operation, ...]]] = []
    if T is not None:
        new_ops, steady = _skew_constant(loop, groups, order, T, lo[0], pieces)
        guarded = False
    else:
        new_ops, steady = _skew_symbolic(loop, groups, order, lo[0], hi[0])
        guarded = True
    for op in new_ops:
        block.insert_before(loop, op)
    loop.erase()
    return SkewResult(tuple(new_ops), steady, guarded, tuple(pieces))


def _check_self_contained(loop: AffineForOp, groups: dict[int, list[Operation]]) -> None:
    where: dict[int, int] = {}
    for d, ops in groups.items():
        for op in ops:
            for r in op.results:
                where[id(r)] = d
    for d, ops in groups.items():
        for op in ops:
            for inner in op.walk():
                for v in inner.operands:
                    src = where.get(id(v))
                    if src is not None and src != d:
                        raise SkewError(f"{inner.NAME} (shift {d}) uses a value computed by an op "
                                        f"with shift {src}")


# ---- constant trip count ------------------------------------------------------------------

def _skew_constant(loop: AffineForOp, groups: dict[int, list[Operation]], order: list[int],
                   T: int, lo: IndexExpr, pieces: list[tuple[int, int, tuple[Operation, ...]]]
                   ) -> tuple[list[Operation], AffineForOp | None]:
    s = loop.step
    cuts = sorted({t for d in order for t in (d, T + d)})
    new_ops: list[Operation] = []
    steady: AffineForOp | None = None
    best = 0
    for a, b in itertools.pairwise(cuts):
        active = [d for d in order if d <= a and b <= T + d]
        if not active or b <= a:
            continue
        if b - a == 1:
            holder = Block()
            for d in active:
                iv_val = _materialize(loop, lo + (a - d) * s, holder)
                _clone_group(groups[d], loop, iv_val, holder)
            new_ops.extend(holder.ops)
            pieces.append((a, b, tuple(holder.ops)))
            continue
        piece = make_for([lo + a * s], [lo + b * s], s, loop.loc, loop.iv.name_hint)
        _fill(piece, active, groups, loop)
        new_ops.append(piece)
        pieces.append((a, b, (piece,)))
        if len(active) == len(order) and b - a > best:
            steady, best = piece, b - a
    for op in new_ops:
        op.parent_block = None
    return new_ops, steady


def _fill(piece: AffineForOp, active: Sequence[int], groups: dict[int, list[Operation]],
          loop: AffineForOp, guards: dict[int, list[Constraint]] | None = None) -> None:
    """Clone each active group into `piece` at iv - d*step, inside an affine.if when guarded."""
    s = loop.step
    term = piece.body.terminator
    assert term is not None
    staging = Block()
    for d in active:
        conds = (guards or {}).get(d, [])
        target = staging
        if_op = None
        if conds:
            iset, operands = integer_set_of(conds)
            if_op = AffineIfOp(iset, operands, loc=loop.loc)
            if_op.then_block.append(AffineYieldOp(loc=loop.loc))
            target = Block()
        if d == 0:
            iv_val: Value = piece.iv
        else:
            m, ops = affine_map_of([IndexExpr.of(piece.iv) - d * s])
            apply = AffineApplyOp(m, ops, loc=loop.loc)
            target.append(apply)
            iv_val = apply.result
        _clone_group(groups[d], loop, iv_val, target)
        if if_op is not None:
            for op in list(target.ops):
                if_op.then_block.insert_before(if_op.then_block.ops[-1], op)
            staging.append(if_op)
    for op in list(staging.ops):
        piece.body.insert_before(term, op)


def _clone_group(ops: Sequence[Operation], loop: AffineForOp, iv_val: Value, into: Block) -> None:
    mapping: dict[Value, Value] = {loop.iv: iv_val}
    for op in ops:
        into.append(op.clone(mapping))


def _materialize(loop: AffineForOp, e: IndexExpr, into: Block) -> Value:
    """A Value for `e`: a function-level constant, an existing value, or an affine.apply."""
    if isinstance(e.expr, Const):
        return constant_index(enclosing_func(loop), e.expr.value, loop.loc)
    if len(e.operands) == 1 and e.expr == IndexExpr.of(e.operands[0]).expr:
        return e.operands[0]
    m, ops = affine_map_of([e])
    apply = AffineApplyOp(m, ops, loc=loop.loc)
    into.append(apply)
    return apply.result


# ---- symbolic trip count --------------------------------------------------------------------

def _skew_symbolic(loop: AffineForOp, groups: dict[int, list[Operation]], order: list[int],
                   lo: IndexExpr, hi: IndexExpr) -> tuple[list[Operation], AffineForOp | None]:
    """Prologue [0, D), steady [D, T), epilogue [max(D, T), T + D) in time steps, D = max
    shift; groups whose iteration may be missing are guarded by `lo <= iv - d*s < hi`."""
    s = loop.step
    D = order[-1]
    new_ops: list[Operation] = []
    # Prologue: groups with d < D; iteration k = t - d exists iff t >= d and k < T.
    pro = make_for([lo], [lo + D * s], s, loop.loc, loop.iv.name_hint)
    pro_guards = {}
    for d in order[:-1]:
        shifted = IndexExpr.of(pro.iv) - d * s
        conds = [hi - shifted - 1 >= const_expr(0)]
        if d > 0:
            conds.append(shifted - lo >= const_expr(0))
        pro_guards[d] = conds
    _fill(pro, order[:-1], groups, loop, pro_guards)
    new_ops.append(pro)
    steady = make_for([lo + D * s], [hi], s, loop.loc, loop.iv.name_hint)
    _fill(steady, order, groups, loop)
    new_ops.append(steady)
    # Epilogue: t from max(D, T) to T + D; U_r = lo + T*s with T = ceildiv(hi - lo, s).
    u_r = lo + (hi - lo).ceildiv(s) * s
    epi = make_for([lo + D * s, u_r], [u_r + D * s], s, loop.loc, loop.iv.name_hint)
    epi_guards = {d: [hi - (IndexExpr.of(epi.iv) - d * s) - 1 >= const_expr(0)] for d in order[1:]}
    _fill(epi, order[1:], groups, loop, epi_guards)
    new_ops.append(epi)
    return new_ops, steady
