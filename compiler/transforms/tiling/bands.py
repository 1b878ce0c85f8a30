"""Bands of perfectly nested loops, whether their bounds are hyper-rectangular, and constant
trip counts (MLIR's getLargestDivisorOfTripCount)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from compiler.ir.affine_expr import AffineExpr, Const, Dim
from compiler.ir.affine_map import AffineMap
from compiler.ir.builder import IndexExpr
from compiler.ir.core import BlockArgument, Operation, OpResult, Value
from compiler.ir.ops import AffineForOp, FuncOp


def perfect_band(root: AffineForOp) -> list[AffineForOp]:
    """`root` and the loops perfectly nested in it (no iter_args: they do not tile here)."""
    band = [root]
    while True:
        body = band[-1].body
        real = [op for op in body.ops if not op.IS_TERMINATOR]
        if len(real) != 1 or not isinstance(real[0], AffineForOp) or real[0].inits:
            return band
        band.append(real[0])


def tileable_bands(func: FuncOp) -> list[list[AffineForOp]]:
    return [perfect_band(op) for op in func.body.ops if isinstance(op, AffineForOp) and not op.inits]


def _defined_inside(v: Value, root: Operation) -> bool:
    if isinstance(v, OpResult):
        owner: Operation | None = v.owner
    elif isinstance(v, BlockArgument):
        owner = v.block.parent_op
    else:
        owner = None
    return owner is not None and (owner is root or root.is_ancestor_of(owner))


def is_hyper_rectangular(band: Sequence[AffineForOp]) -> bool:
    """No band loop's bounds depend on a value defined inside the band."""
    root = band[0]
    return not any(_defined_inside(v, root) for lp in band
                   for v in (*lp.lower_operands, *lp.upper_operands))


def constant_trip_count(lp: AffineForOp) -> int | None:
    """Trip count when `ub - lb` is a constant (single-result bounds over the same operands)."""
    if lp.lower_map.num_results != 1 or lp.upper_map.num_results != 1:
        return None
    lo = as_index_expr(lp.lower_map.results[0], lp.lower_map, lp.lower_operands)
    hi = as_index_expr(lp.upper_map.results[0], lp.upper_map, lp.upper_operands)
    diff = hi - lo
    if not isinstance(diff.expr, Const):
        return None
    return max(0, -(-diff.expr.value // lp.step))


def largest_divisor_of_trip_count(lp: AffineForOp) -> int:
    """MLIR's getLargestDivisorOfTripCount: the trip count if constant, else 1 (unknown)."""
    tc = constant_trip_count(lp)
    if tc is not None:
        return tc if tc > 0 else 1
    if lp.lower_map.num_results != 1 or lp.upper_map.num_results != 1 or lp.step != 1:
        return 1
    lo = as_index_expr(lp.lower_map.results[0], lp.lower_map, lp.lower_operands)
    hi = as_index_expr(lp.upper_map.results[0], lp.upper_map, lp.upper_operands)
    n = len((hi - lo).operands)
    coeffs = (hi - lo).expr.linear_coeffs(n, 0)
    if coeffs is None:
        return 1
    g = 0
    for c in (*coeffs[0], coeffs[2]):
        g = math.gcd(g, c)
    return g or 1


def as_index_expr(e: AffineExpr, m: AffineMap, operands: Sequence[Value]) -> IndexExpr:
    """Result `e` of `m` applied to `operands`, as an IndexExpr."""
    dims = [Dim(k) for k in range(m.num_dims)]
    syms = [Dim(m.num_dims + k) for k in range(m.num_symbols)]
    return IndexExpr(e.substitute(dims, syms), tuple(operands))
