"""Parametric tiling of one band (MLIR's tilePerfectlyNestedParametric): tile sizes are SSA
index values, so the bounds become semi-affine in them.

For a loop `for i = lb to ub step s` (constant `lb`) and tile size value `T`:

- tile-space loop: `for it = lb to lb + (ub - lb) ceildiv T step s` (one result per result of
  `ub`; a `min` upper bound stays a `min`);
- intra-tile loop: `for i = (it - lb) * T + lb to min((it - lb) * T + T * s + lb, ub) step s`.

The tile-space IV counts tiles (offset by `lb`, stepping by `s`), as upstream's does: the tile
starting at `(it - lb) * T + lb` covers `T * s` of the original range, and consecutive values
of `it` are `s` apart, so the tiles partition the range exactly for every `T >= 1`.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.ir.affine_expr import Const, Dim, Sym
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Value
from compiler.ir.ops import AffineForOp
from compiler.transforms.tiling.tile_band import adopt_band_body, nest_loops, shifted_results


def tile_space_upper(lp: AffineForOp, size: Value) -> tuple[AffineMap, list[Value]]:
    """`lb + (ub_r - lb) ceildiv T` for each result `ub_r` of the loop's upper bound."""
    lb = lp.constant_lower
    assert lb is not None
    um = lp.upper_map
    t = Sym(um.num_symbols)
    results = tuple(Const(lb) + (r - lb).ceildiv(t) for r in shifted_results(um))
    return AffineMap(um.num_dims, um.num_symbols + 1, results), [*lp.upper_operands, size]


def intra_tile_bounds(lp: AffineForOp, tile_iv: Value, size: Value
                      ) -> tuple[AffineMap, list[Value], AffineMap, list[Value]]:
    """Lower `(it - lb) * T + lb` and upper `min((it - lb) * T + T * s + lb, ub...)`; the tile
    IV is a new last dim, the tile size a new last symbol of each map."""
    lb = lp.constant_lower
    assert lb is not None
    lm, um = lp.lower_map, lp.upper_map
    lo = (Dim(lm.num_dims) - lb) * Sym(lm.num_symbols) + lb
    lower = AffineMap(lm.num_dims + 1, lm.num_symbols + 1, (lo,))
    lops = lp.lower_operands
    lower_ops = [*lops[:lm.num_dims], tile_iv, *lops[lm.num_dims:], size]
    tsym = Sym(um.num_symbols)
    hi = (Dim(um.num_dims) - lb) * tsym + tsym * lp.step + lb
    upper = AffineMap(um.num_dims + 1, um.num_symbols + 1, (hi, *shifted_results(um)))
    uops = lp.upper_operands
    upper_ops = [*uops[:um.num_dims], tile_iv, *uops[um.num_dims:], size]
    return lower, lower_ops, upper, upper_ops


def tile_band_parametric(band: Sequence[AffineForOp], sizes: Sequence[Value]) -> list[AffineForOp]:
    """Replace the band (perfectly nested, constant lower bounds, bounds independent of the
    band's IVs, no iter_args) by tile-space loops around intra-tile loops; returns them."""
    tile_loops: list[AffineForOp] = []
    for lp, t in zip(band, sizes, strict=True):
        um, uops = tile_space_upper(lp, t)
        tile_loops.append(AffineForOp(lp.lower_map, lp.lower_operands, um, uops, lp.step, loc=lp.loc))
    tile_body = nest_loops(band[0], tile_loops)
    intra: list[AffineForOp] = []
    for lp, t, tl in zip(band, sizes, tile_loops, strict=True):
        lm, lops, um, uops = intra_tile_bounds(lp, tl.iv, t)
        intra.append(AffineForOp(lm, lops, um, uops, lp.step, loc=lp.loc, iv_name=lp.iv.name_hint))
    adopt_band_body(band, intra, nest_loops(band[0], intra, into=tile_body))
    return tile_loops + intra
