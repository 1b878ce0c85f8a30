"""Iteration domains: the integer points at which an op executes, as an isl set."""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl

from compiler.analysis.isl_bridge import Frame, _val
from compiler.ir.core import Operation, Value, enclosing_ops
from compiler.ir.ops import AffineForOp, AffineIfOp, FuncOp


def enclosing_loops(op: Operation) -> list[AffineForOp]:
    """The affine.for ops around `op`, outer to inner (not `op` itself)."""
    return [a for a in _affine_chain(op) if isinstance(a, AffineForOp)]


def _affine_chain(op: Operation) -> list[Operation]:
    """Ancestors inside the enclosing function, outer to inner."""
    chain = enclosing_ops(op)
    for k in range(len(chain) - 1, -1, -1):
        if isinstance(chain[k], FuncOp):
            return chain[k + 1:]
    return chain


def loop_constraints(frame: Frame, loop: AffineForOp, k: int) -> isl.Set:
    """`lb <= iv < ub`, `iv = lb + step*e` for the loop whose IV is frame dim `k`."""
    iv = frame.dim(k)
    out = frame.universe
    lbs = frame.map_results(loop.lower_map, loop.lower_operands)
    for lb in lbs:
        out = out.intersect(iv.ge_set(lb))
    for ub in frame.map_results(loop.upper_map, loop.upper_operands):
        out = out.intersect(iv.lt_set(ub))
    if loop.step != 1:
        lb_max = lbs[0]
        for lb in lbs[1:]:
            lb_max = lb_max.max(lb)
        # exists e: iv = lb + step * e, i.e. (iv - lb) mod step = 0
        out = out.intersect(iv.sub(lb_max).mod_val(_val(loop.step)).eq_set(frame.constant(0)))
    return out


def domain_in_frame(op: Operation, frame: Frame, skip: Sequence[Operation] = ()) -> isl.Set:
    """Constraints of every loop and affine.if around `op`, in `frame`'s space.

    Loops whose IV is not a frame dim must be listed in `skip` (their IV is a frame
    parameter then, or they are ignored). The chain up to the function is used.
    """
    chain = _affine_chain(op)
    out = frame.universe
    dim_pos = {id(v): k for k, v in enumerate(frame.dims)}
    for idx, anc in enumerate(chain):
        if any(anc is s for s in skip):
            continue
        if isinstance(anc, AffineForOp):
            k = dim_pos.get(id(anc.iv))
            if k is None:
                continue
            out = out.intersect(loop_constraints(frame, anc, k))
        elif isinstance(anc, AffineIfOp):
            child = chain[idx + 1] if idx + 1 < len(chain) else op
            cond = frame.integer_set(anc.condition, anc.operands)
            if child.parent_block is anc.else_block:
                cond = cond.complement()
            out = out.intersect(cond)
    return out


def iteration_domain(op: Operation) -> isl.Set:
    """isl set over the IVs of the loops enclosing `op` (outer -> inner); symbols are params.

    `[N] -> { [i, j] : 0 <= i < N and ... }`; dims are named after the IVs (isl_bridge.isl_name).
    """
    frame = Frame([loop.iv for loop in enclosing_loops(op)])
    return domain_in_frame(op, frame)


def domain_frame(op: Operation, extra_params: Sequence[Value] = ()) -> tuple[Frame, isl.Set]:
    """The frame over `op`'s enclosing IVs and its iteration domain (for callers that need both)."""
    frame = Frame([loop.iv for loop in enclosing_loops(op)], extra_params)
    return frame, domain_in_frame(op, frame)
