"""MLIR's promoteIfSingleIteration: a loop that runs exactly once is replaced by its body, the
induction variable by the lower bound (folded into the maps of the accesses and nested loop
bounds; an `affine.apply` for any other use)."""

from __future__ import annotations

from compiler.ir.affine_expr import Const
from compiler.ir.builder import affine_map_of
from compiler.ir.ops import AffineApplyOp, AffineForOp
from compiler.transforms.rewrite.index_exprs import loop_bounds, map_exprs, substitute_value
from compiler.transforms.rewrite.memref_uses import access_sites, set_access


def promote_if_single_iteration(loop: AffineForOp) -> bool:
    """Inline `loop`'s body in its place when its trip count is exactly 1 for every value
    of its operands (single-result bounds whose difference is a constant in (0, step])."""
    if loop.inits or loop.lower_map.num_results != 1 or loop.upper_map.num_results != 1:
        return False
    (lo,), (hi,) = loop_bounds(loop)
    span = (hi - lo).expr
    if not isinstance(span, Const) or not 0 < span.value <= loop.step:
        return False
    block = loop.parent_block
    assert block is not None
    iv = loop.iv
    for op in loop.walk():
        if op is loop:
            continue
        for side, mem, m, idx in access_sites(op):
            if any(v is iv for v in idx):
                set_access(op, side, mem, [substitute_value(e, iv, lo) for e in map_exprs(m, idx)])
        if isinstance(op, AffineForOp):
            if any(v is iv for v in op.lower_operands):
                op.set_lower_bound(*affine_map_of([substitute_value(e, iv, lo) for e in
                                                   map_exprs(op.lower_map, op.lower_operands)]))
            if any(v is iv for v in op.upper_operands):
                op.set_upper_bound(*affine_map_of([substitute_value(e, iv, lo) for e in
                                                   map_exprs(op.upper_map, op.upper_operands)]))
    body = [op for op in loop.body.ops if not op.IS_TERMINATOR]
    if any(v is iv for op in body for o in op.walk() for v in o.operands):
        m, operands = affine_map_of([lo])
        apply = AffineApplyOp(m, operands, loc=loop.loc)
        block.insert_before(loop, apply)
        for op in body:
            op.replace_uses_of(iv, apply.results[0])
    for op in body:
        op.detach()
        block.insert_before(loop, op)
    loop.erase()
    return True
