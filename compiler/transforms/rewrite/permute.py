"""Loop interchange of a perfect band with any affine bounds: the band's iteration domain
(isl) in the new loop order, each loop's bounds the constraints on its IV once the loops inside
it are projected out (Fourier-Motzkin), so `for i, for j <= i` becomes `for j, for i >= j`.

    orders = legal_orders(band)             # permutations the dependences allow
    new_root = permute_band(band, (2, 0, 1))  # band[2] outermost; the band replaced in place

A band at the top of its function (no loops around it), unit steps, no iter_args, unit
coefficients on the IVs in the bounds (`permute_band` raises ValueError for an order whose
projected bounds have others); `permutable_band` says
whether a band qualifies. Legality is the caller's question (`legal_orders` asks the
dependence analysis, `analysis/tiling_order.py`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import islpy as isl

from compiler.analysis.domain import domain_frame
from compiler.analysis.isl_bridge import isl_name
from compiler.ir.builder import IndexExpr, affine_map_of
from compiler.ir.core import Value
from compiler.ir.ops import AffineForOp, AffineIfOp
from compiler.transforms.tiling.tile_band import adopt_band_body, nest_loops


def perfect_band(root: AffineForOp) -> list[AffineForOp]:
    """`root` and the loops each the only op (but the yield) of the body above it."""
    band = [root]
    while True:
        ops = [o for o in band[-1].body.ops if not o.IS_TERMINATOR]
        if len(ops) != 1 or not isinstance(ops[0], AffineForOp):
            return band
        band.append(ops[0])


def permutable_band(band: Sequence[AffineForOp]) -> bool:
    """Can `permute_band` rebuild this band: unit steps, no iter_args, the innermost body's
    ops all at its top level domain (no affine.if), bounds of one piece with unit IV
    coefficients."""
    if len(band) < 2 or any(lp.step != 1 or lp.region_iter_args or lp.results for lp in band):
        return False
    if any(isinstance(o, AffineIfOp) for o in band[-1].walk()):
        return False
    try:
        dom, params = _ordered_domain(band, list(range(len(band))))
        for p in range(len(band)):
            _bounds(dom, p, [lp.iv for lp in band[:p]], params)
    except (ValueError, isl.Error):
        return False
    return True


def _ordered_domain(band: Sequence[AffineForOp], order: Sequence[int]
                    ) -> tuple[isl.BasicSet, dict[str, Value]]:
    """The band's domain with its dims in `order` (outer loops and symbols as parameters):
    `[params] -> { [iv_order0, iv_order1, ...] }`, one basic set, and the parameters' Values."""
    inner = next(o for o in band[-1].body.ops if not o.IS_TERMINATOR) if any(
        not o.IS_TERMINATOR for o in band[-1].body.ops) else None
    if inner is None:
        raise ValueError("empty band")
    if _outer_loops(band[0]):
        raise ValueError("a band nested in other loops")
    frame, dom = domain_frame(inner)
    names = [isl_name(lp.iv) for lp in band]
    dims = [dom.get_dim_name(isl.dim_type.set, k) for k in range(dom.dim(isl.dim_type.set))]
    if dims != names:
        raise ValueError("the band's domain is not over its own IVs")
    src, dst = ", ".join(names), ", ".join(names[k] for k in order)
    perm = isl.Map(f"{{ [{src}] -> [{dst}] }}").align_params(dom.get_space())
    # [params] -> { [ivs in the new order] }
    out = dom.apply(perm).coalesce()
    pieces = out.get_basic_sets()
    if len(pieces) != 1:
        raise ValueError("the domain is a union of pieces")
    return pieces[0], dict(frame.params)


def _outer_loops(op: AffineForOp) -> list[AffineForOp]:
    out = []
    cur = op.parent_op
    while cur is not None:
        if isinstance(cur, AffineForOp):
            out.append(cur)
        cur = cur.parent_op
    return out


def _bounds(dom: isl.BasicSet, p: int, ivs: Sequence[Value], params: dict[str, Value]
            ) -> tuple[list[IndexExpr], list[IndexExpr]]:
    """Lower bounds and exclusive upper bounds of dim `p` of `dom` over the dims before it
    (`ivs`) and the parameters."""
    n = dom.dim(isl.dim_type.set)
    # [params] -> { [d0, ..., dp] }
    proj = dom.project_out(isl.dim_type.set, p + 1, n - p - 1).remove_redundancies()
    lows: list[IndexExpr] = []
    ups: list[IndexExpr] = []
    for c in proj.get_constraints():
        coef = c.get_coefficient_val(isl.dim_type.set, p).to_python()
        if coef == 0:
            continue
        if abs(coef) != 1:
            raise ValueError(f"a bound with coefficient {coef} (unit coefficients only)")
        sign = -1 if coef > 0 else 1   # coef*x + rest >= 0: x >= -rest, or x <= rest
        e = IndexExpr.of(sign * c.get_constant_val().to_python())
        for q in range(p):
            v = c.get_coefficient_val(isl.dim_type.set, q).to_python()
            if v:
                e = e + IndexExpr.of(ivs[q]) * (sign * v)
        for k in range(proj.dim(isl.dim_type.param)):
            v = c.get_coefficient_val(isl.dim_type.param, k).to_python()
            if v:
                e = e + IndexExpr.of(params[proj.get_dim_name(isl.dim_type.param, k)]) * (sign * v)
        if c.is_equality():             # coef*x + rest = 0: x = -rest * coef
            lows.append(e)
            ups.append(e + 1)
        elif coef > 0:
            lows.append(e)
        else:
            ups.append(e + 1)
    if not lows or not ups:
        raise ValueError("an unbounded loop")
    return lows, ups


def permute_band(band: Sequence[AffineForOp], order: Sequence[int]) -> AffineForOp:
    """Replace the perfect band by its loops in `order` (`order[p]`: the index in `band` of
    the loop at depth p), bounds from the domain; returns the new outermost loop. The caller
    has checked legality; `permutable_band(band)` must hold."""
    if sorted(order) != list(range(len(band))):
        raise ValueError(f"order {list(order)}: expected a permutation of 0..{len(band) - 1}")
    dom, params = _ordered_domain(band, order)
    loops: list[AffineForOp] = []
    for p, k in enumerate(order):
        lo, hi = _bounds(dom, p, [lp.iv for lp in loops], params)
        lmap, lops = affine_map_of(lo)
        umap, uops = affine_map_of(hi)
        loops.append(AffineForOp(lmap, lops, umap, uops, 1, loc=band[k].loc,
                                 iv_name=band[k].iv.name_hint))
    body = nest_loops(band[0], loops)
    adopt_band_body(band, [loops[order.index(q)] for q in range(len(band))], body)
    return loops[0]


def legal_orders(band: Sequence[AffineForOp],
                 candidates: Sequence[Sequence[int]] | None = None) -> list[tuple[int, ...]]:
    """Every order of the band's loops (of `candidates`, default all of them, the written
    order first) that no dependence forbids: the dependence analysis on the band's ops, each
    order as a schedule of the innermost body (`analysis.tiling_order`, tile size 1 aligned
    at 0: an iteration's key is its IVs in the new order)."""
    from compiler.analysis.dependence import all_dependences, loop_depth
    from compiler.analysis.tiling_order import TiledStatement, TileGrid, reversed_dependence

    body = tuple(o for o in band[-1].body.ops if not o.IS_TERMINATOR)
    deps = list(all_dependences(band[0], min_depth=loop_depth(band[0])))
    out = []
    for order in (itertools.permutations(range(len(band))) if candidates is None else candidates):
        st = TiledStatement(body, tuple(TileGrid(band[k], 1, True) for k in order), (0,) * len(band))
        if reversed_dependence(deps, [st]) is None:
            out.append(tuple(order))
    return out
