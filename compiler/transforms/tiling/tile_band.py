"""The tiling rewrite of one band (MLIR's constructTiledIndexSetHyperRect): tile-space loops
around intra-tile loops, `min` upper bounds where a tile may be partial, and optionally an
`affine.if` separating full tiles from partial ones."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.ir.affine_expr import AffineExpr, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.builder import Constraint, IndexExpr, integer_set_of
from compiler.ir.core import Block, Operation
from compiler.ir.ops import AffineForOp, AffineIfOp, AffineYieldOp
from compiler.transforms.tiling.bands import as_index_expr, constant_trip_count, largest_divisor_of_trip_count


def _single_dim_shift(c: int) -> AffineMap:
    return AffineMap(1, 0, (Dim(0) + c,))


def shifted_results(m: AffineMap) -> tuple[AffineExpr, ...]:
    """`m`'s results with every dim and symbol at its own position (a new dim appended after
    the dims, or a new symbol after the symbols, leaves them valid)."""
    return tuple(r.substitute([Dim(j) for j in range(m.num_dims)], [Sym(j) for j in range(m.num_symbols)])
                 for r in m.results)


def nest_loops(root: AffineForOp, loops: Sequence[AffineForOp], into: Block | None = None) -> Block:
    """Nest `loops` (bodies empty) one inside the next, each closed by a yield: the outermost
    just before `root`, or, given `into`, before `into`'s terminator. Returns the innermost body."""
    body = into
    for new in loops:
        new.body.append(AffineYieldOp(loc=new.loc))
        if body is None:
            block = root.parent_block
            assert block is not None
            block.insert_before(root, new)
        else:
            body.insert(len(body.ops) - 1, new)
        body = new.body
    assert body is not None
    return body


def adopt_band_body(band: Sequence[AffineForOp], intra: Sequence[AffineForOp], body: Block) -> None:
    """Move the band's innermost ops into `body` (the innermost intra-tile loop's), point every
    use of the band's IVs at the intra-tile IVs, and erase the band."""
    for op in [op for op in band[-1].body.ops if not op.IS_TERMINATOR]:
        body.insert(len(body.ops) - 1, op)
    for lp, new in zip(band, intra, strict=True):
        intra[0].replace_uses_of(lp.iv, new.iv)
    band[0].erase()


def tile_band(band: Sequence[AffineForOp], sizes: Sequence[int], separate: bool = False
              ) -> list[AffineForOp]:
    """Replace the band by tile-space loops around intra-tile loops; returns the new loops."""
    tile_loops = [AffineForOp(lp.lower_map, lp.lower_operands, lp.upper_map, lp.upper_operands,
                              lp.step * t, loc=lp.loc, iv_name=lp.iv.name_hint)
                  for lp, t in zip(band, sizes, strict=True)]
    tile_body = nest_loops(band[0], tile_loops)
    needs_min = [False] * len(band)
    intra: list[AffineForOp] = []
    for k, (lp, t) in enumerate(zip(band, sizes, strict=True)):
        tiv = tile_loops[k].iv
        tc = constant_trip_count(lp)
        if tc is not None and tc < t:
            ub_map, ub_ops = _single_dim_shift(tc * lp.step), [tiv]
        elif largest_divisor_of_trip_count(lp) % t != 0:
            um = lp.upper_map
            nd = um.num_dims
            ub_map = AffineMap(nd + 1, um.num_symbols, (Dim(nd) + t * lp.step, *shifted_results(um)))
            ub_ops = [*lp.upper_operands[:nd], tiv, *lp.upper_operands[nd:]]
            needs_min[k] = True
        else:
            ub_map, ub_ops = _single_dim_shift(t * lp.step), [tiv]
        intra.append(AffineForOp(AffineMap.identity(1), [tiv], ub_map, ub_ops, lp.step, loc=lp.loc,
                                 iv_name=lp.iv.name_hint))
    adopt_band_body(band, intra, nest_loops(band[0], intra, into=tile_body))
    if separate and all(lp.step == 1 for lp in band):
        # like mlir-opt, full tiles are only separated for unit steps
        _separate_full_tiles(tile_loops, intra, band, sizes, needs_min)
    return tile_loops + intra


def _separate_full_tiles(tile_loops: list[AffineForOp], intra: list[AffineForOp],
                         band: Sequence[AffineForOp], sizes: Sequence[int],
                         needs_min: Sequence[bool]) -> None:
    """`affine.if (every min bound is the tile end) { full tile } else { partial tile }`."""
    constraints: list[Constraint] = []
    for k, lp in enumerate(band):
        if not needs_min[k]:
            continue
        tile_end = IndexExpr.of(tile_loops[k].iv) + sizes[k] * lp.step
        for r in lp.upper_map.results:
            constraints.append(as_index_expr(r, lp.upper_map, lp.upper_operands) >= tile_end)
    if constraints:
        iset, operands = integer_set_of(constraints)
    else:
        iset, operands = IntegerSet(0, 0, (), ()), []
    outer = intra[0]
    host = outer.parent_block
    assert host is not None
    loc = band[0].loc
    guard = AffineIfOp(iset, operands, loc=loc)
    host.insert_before(outer, guard)
    full = outer.clone()
    guard.then_block.append(full)
    guard.then_block.append(AffineYieldOp(loc=loc))
    guard.else_block.append(outer)
    guard.else_block.append(AffineYieldOp(loc=loc))
    lp_full: Operation = full
    for k, lp in enumerate(band):
        assert isinstance(lp_full, AffineForOp)
        if needs_min[k]:
            lp_full.set_upper_bound(_single_dim_shift(sizes[k] * lp.step), [tile_loops[k].iv])
        nxt = [op for op in lp_full.body.ops if isinstance(op, AffineForOp)]
        if k + 1 < len(band):
            lp_full = nxt[0]
