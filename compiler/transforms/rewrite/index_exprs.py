"""Maps as index expressions (`IndexExpr`: an affine expression over index Values), so that
combining bounds from different ops never has to renumber dims and symbols by hand:
`affine_map_of` rebuilds a canonical map with MLIR's dim/symbol classification."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.diagnostics import Location
from compiler.ir.affine_expr import Const, Dim
from compiler.ir.affine_map import AffineMap
from compiler.ir.builder import IndexExpr, affine_map_of
from compiler.ir.core import Value
from compiler.ir.ops import (
    AffineForOp,
)


def map_exprs(m: AffineMap, operands: Sequence[Value]) -> list[IndexExpr]:
    """One IndexExpr per result of `m` applied to `operands` (dims first, then symbols)."""
    ops = tuple(operands)
    subs_d = [Dim(i) for i in range(m.num_dims)]
    subs_s = [Dim(m.num_dims + j) for j in range(m.num_symbols)]
    return [IndexExpr(r.substitute(subs_d, subs_s), ops) for r in m.results]


def const_expr(v: int) -> IndexExpr:
    return IndexExpr(Const(v), ())


def substitute_value(e: IndexExpr, old: Value, new: IndexExpr) -> IndexExpr:
    """Replace every occurrence of `old` in `e` by the expression `new`."""
    if not any(v is old for v in e.operands):
        return e
    parts: list[IndexExpr] = []
    for v in e.operands:
        parts.append(new if v is old else IndexExpr.of(v))
    # Rebuild: substitute each Dim(k) by the k-th part.
    acc_ops: list[Value] = []
    subs = []
    for p in parts:
        remap = []
        for v in p.operands:
            for k, w in enumerate(acc_ops):
                if w is v:
                    remap.append(Dim(k))
                    break
            else:
                acc_ops.append(v)
                remap.append(Dim(len(acc_ops) - 1))
        subs.append(p.expr.substitute(remap, ()))
    return IndexExpr(e.expr.substitute(subs, ()), tuple(acc_ops))


def loop_bounds(loop: AffineForOp) -> tuple[list[IndexExpr], list[IndexExpr]]:
    return map_exprs(loop.lower_map, loop.lower_operands), map_exprs(loop.upper_map, loop.upper_operands)


def make_for(lo: Sequence[IndexExpr], hi: Sequence[IndexExpr], step: int, loc: Location,
             iv_name: str | None = None) -> AffineForOp:
    from compiler.ir.ops import AffineYieldOp

    lmap, lops = affine_map_of(list(lo))
    umap, uops = affine_map_of(list(hi))
    op = AffineForOp(lmap, lops, umap, uops, step, loc=loc, iv_name=iv_name)
    op.body.append(AffineYieldOp(loc=loc))
    return op
