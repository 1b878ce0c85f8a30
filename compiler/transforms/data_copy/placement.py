"""Where the copies of a region go: hoisted above enclosing loops the region does not depend
on (MLIR's findHighestBlockForPlacement) when nothing else in them touches the memref; above a
loop it does depend on when its iterations re-read elements (`reused_across`: the copy then
takes the union of the loop's iterations, `hoist-over-dependent-loops`); and the location the
copies carry."""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl

from compiler.analysis.region import MemRefRegion
from compiler.diagnostics import Location
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp
from compiler.transforms.rewrite.memref_uses import access_sites
from compiler.transforms.rewrite.structure import ancestor_in_block


def depends_on(region: MemRefRegion, iv: Value) -> bool:
    """Does the accessed set change with `iv` (beyond the loop's own range constraints)?"""
    from compiler.analysis import isl_name

    if not any(p is iv for p in region.params):
        return False
    for s in (region.exact, region.written_set):
        pos = s.find_dim_by_name(isl.dim_type.param, isl_name(iv))
        if pos < 0:
            continue
        ctx = s.params()
        free = s.eliminate(isl.dim_type.param, pos, 1).intersect_params(ctx)
        if not free.is_equal(s):
            return True
    return False


def reused_across(region: MemRefRegion, iv: Value) -> bool:
    """Do two different iterations of `iv`'s loop access a common element of the region (a
    triangular `j <= i` reading `A[j, k]` in every `i`)? Copies inside that loop then move the
    element again in each iteration; one copy of the union of the iterations moves it once."""
    from compiler.analysis import isl_name

    s = region.exact
    pos = s.find_dim_by_name(isl.dim_type.param, isl_name(iv))
    if pos < 0:
        return False
    # [others] -> { M[a] }  ->  [others] -> { [iv, a] }
    s = s.reset_tuple_id().move_dims(isl.dim_type.set, 0, isl.dim_type.param, pos, 1)
    # [others] -> { [iv] -> [a] }
    m = isl.Map.from_range(s).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, 1)
    # [others] -> { [iv] -> [iv'] : iterations iv and iv' access a common element }
    pairs = m.apply_range(m.reverse())
    return not pairs.subtract(isl.Map.identity(pairs.get_space())).is_empty()


def touched_elsewhere(loop: AffineForOp, memref: Value, inside: Sequence[Operation]) -> bool:

    for op in loop.walk():
        if op is loop:
            continue
        if any(mem is memref for _, mem, _, _ in access_sites(op)):
            top = ancestor_in_block(op, inside[0].parent_block)  # type: ignore[arg-type]
            if top is None or not any(top is r for r in inside):
                return True
    return False


def region_loc(range_ops: Sequence[Operation], memref: Value) -> Location:
    """The location of the first access to `memref` in the range (copies take it)."""
    for root in range_ops:
        for op in root.walk():
            if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref:
                return op.loc
    return range_ops[0].loc
