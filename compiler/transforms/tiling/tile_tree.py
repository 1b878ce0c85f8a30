"""The tiling rewrite of a band tree (imperfect and triangular nests).

Every tree loop becomes a tile-space loop; tile loops nest like the loops they come from, and
the children of a loop keep their order inside each of its tiles. Each leaf group gets its
own intra-tile loops, one per loop of its path, and runs there:

    for i = 0 to 240                          for it = 0 to 240 step 16
      for j = 0 to i + 1                        for jt = 0 to min(it + 16, 240) step 64
        S(i, j)                         =>        for i = it to it + 16
      for k = 0 to 200                              for j = jt to min(jt + 64, i + 1)
        for j = 0 to i + 1                            S(i, j)
          U(i, k, j)                            for kt = 0 to 200 step 40
                                                  for jt = 0 to min(it + 16, 240) step 64
                                                    for i = it to it + 16
                                                      for k = kt to kt + 40
                                                        for j = jt to min(jt + 64, i + 1)
                                                          U(i, k, j)

Rectangular loops keep MLIR's shape (tile loop over the loop's bounds with step `s*T`; intra
loop from the tile IV to `+ s*T`, with a `min` where the tile may be partial). A bound that
depends on outer tree IVs makes the bounds exact with `max`/`min` in the intra loop (e.g.
`min(jt + 64, i + 1)`), and the tile loop's bound is that bound's extreme over the outer
tiles (`min(it + 16, 240)`: the largest `i + 1` in the `i` tile, clipped by `i`'s own
bound); a dependent lower bound puts the tiles on multiples of `T` (`(lb floordiv T) * T`).
Whether the new order keeps every dependence is `compiler.analysis.tiling_order`'s question
(`tree_statements` describes the tiling to it).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from compiler.analysis.tiling_order import TiledStatement, TileGrid
from compiler.ir.builder import IndexExpr
from compiler.ir.core import Value
from compiler.ir.ops import AffineForOp
from compiler.transforms.rewrite.index_exprs import loop_bounds, make_for, substitute_value
from compiler.transforms.tiling.band_tree import BandNode, LeafGroup
from compiler.transforms.tiling.bands import constant_trip_count, largest_divisor_of_trip_count


def tree_statements(tree: BandNode, sizes: Mapping[BandNode, int]) -> list[TiledStatement]:
    """The leaf groups of `tree` as the statements of the tiled order."""
    out = []
    for leaf in tree.leaves():
        path = leaf.parent.path
        positions = []
        for k, node in enumerate(path):
            below = path[k + 1] if k + 1 < len(path) else leaf
            positions.append(next(j for j, c in enumerate(node.children) if c is below))
        grids = tuple(TileGrid(n.loop, sizes[n], n.lower_dependent) for n in path)
        out.append(TiledStatement(tuple(leaf.ops), grids, tuple(positions)))
    return out


def tile_tree(tree: BandNode, sizes: Mapping[BandNode, int],
              intra_roots: list[AffineForOp] | None = None) -> AffineForOp:
    """Replace the tree's root loop by the tiled tree; returns the new root tile loop (and
    appends the outermost loop of each intra-tile nest to `intra_roots`)."""
    root = tree.loop
    block = root.parent_block
    assert block is not None
    tiles: dict[BandNode, AffineForOp] = {}
    new_root = _tile_loop(tree, sizes, tiles, intra_roots)
    block.insert_before(root, new_root)
    root.erase()
    return new_root


def _tile_loop(node: BandNode, sizes: Mapping[BandNode, int],
               tiles: dict[BandNode, AffineForOp],
               intra_roots: list[AffineForOp] | None = None) -> AffineForOp:
    lp, t = node.loop, sizes[node]
    lower, upper = loop_bounds(lp)
    if node.lower_dependent:
        span = lp.step * t  # step is 1 here (band_tree)
        lower = [(e // span) * span for r in lower for e in _extremes(r, node, sizes, tiles, "min")]
    if node.upper_dependent:
        upper = [e for r in upper for e in _extremes(r, node, sizes, tiles, "max")]
    new = make_for(_unique(lower), _unique(upper), lp.step * t, lp.loc, lp.iv.name_hint)
    tiles[node] = new
    body = new.body
    for child in node.children:
        if isinstance(child, BandNode):
            body.insert(len(body.ops) - 1, _tile_loop(child, sizes, tiles, intra_roots))
        elif any(not op.IS_TERMINATOR for op in child.ops):
            nest = _intra_nest(child, sizes, tiles)
            body.insert(len(body.ops) - 1, nest)
            if intra_roots is not None:
                intra_roots.append(nest)
    return new


def _extremes(e: IndexExpr, node: BandNode, sizes: Mapping[BandNode, int],
              tiles: Mapping[BandNode, AffineForOp], want: str) -> list[IndexExpr]:
    """`e` (linear in the IVs of the loops above `node`) at its min/max over the tiles of
    those loops, as expressions of their tile IVs: several when an IV's largest value is
    itself a `min` (a list of lower-bound pieces for "min", upper-bound pieces for "max")."""
    coeff: dict[int, int] = {}
    lin = e.expr.linear_coeffs(len(e.operands), 0)
    assert lin is not None  # band_tree admits linear dependent bounds only
    for v, c in zip(e.operands, lin[0], strict=True):
        coeff[id(v)] = coeff.get(id(v), 0) + c
    choices: list[tuple[Value, list[IndexExpr]]] = []
    for p in node.path[:-1]:
        c = coeff.get(id(p.loop.iv), 0)
        tile_iv = IndexExpr.of(tiles[p].iv)
        if c == 0:  # unused (zero coefficient): any value in scope
            choices.append((p.loop.iv, [tile_iv]))
            continue
        low = [tile_iv]
        last = tile_iv + p.loop.step * (sizes[p] - 1)  # the last IV of a tile
        high = [last]
        if not p.upper_dependent:  # the loop's own bound clips its last tile
            high += [ub - 1 for ub in loop_bounds(p.loop)[1]]
        take_low = (c > 0) == (want == "min")
        choices.append((p.loop.iv, low if take_low else high))
    out = []
    for combo in itertools.product(*(opts for _, opts in choices)):
        x = e
        for (iv, _), sub in zip(choices, combo, strict=True):
            x = substitute_value(x, iv, sub)
        out.append(x)
    return out


def _unique(exprs: Sequence[IndexExpr]) -> list[IndexExpr]:
    out: list[IndexExpr] = []
    for e in exprs:
        if not any(o.expr == e.expr and len(o.operands) == len(e.operands)
                   and all(a is b for a, b in zip(o.operands, e.operands, strict=True)) for o in out):
            out.append(e)
    return out


def _intra_nest(leaf: LeafGroup, sizes: Mapping[BandNode, int],
                tiles: Mapping[BandNode, AffineForOp]) -> AffineForOp:
    """Intra-tile loops over the leaf's path, with the leaf's ops moved into the innermost."""
    ivs: dict[int, Value] = {}  # original IV -> this nest's intra IV

    def remap(es: Sequence[IndexExpr]) -> list[IndexExpr]:
        out = []
        for e in es:
            for v in e.operands:
                new = ivs.get(id(v))
                if new is not None:
                    e = substitute_value(e, v, IndexExpr.of(new))
            out.append(e)
        return out

    outer: AffineForOp | None = None
    body = None
    for node in leaf.parent.path:
        lp, t = node.loop, sizes[node]
        tile_iv = IndexExpr.of(tiles[node].iv)
        span = lp.step * t
        lower, upper = loop_bounds(lp)
        lo = [tile_iv] + (remap(lower) if node.lower_dependent else [])
        if node.dependent:  # tiles on multiples of the span may end past a fixed bound too
            hi = [tile_iv + span, *remap(upper)]
        else:
            tc = constant_trip_count(lp)
            if tc is not None and tc < t:
                hi = [tile_iv + tc * lp.step]
            elif largest_divisor_of_trip_count(lp) % t != 0:
                hi = [tile_iv + span, *upper]
            else:
                hi = [tile_iv + span]
        intra = make_for(lo, hi, lp.step, lp.loc, lp.iv.name_hint)
        ivs[id(lp.iv)] = intra.iv
        if body is None:
            outer = intra
        else:
            body.insert(len(body.ops) - 1, intra)
        body = intra.body
    assert outer is not None and body is not None
    for op in leaf.ops:
        if not op.IS_TERMINATOR:
            body.insert(len(body.ops) - 1, op)
    for node in leaf.parent.path:
        outer.replace_uses_of(node.loop.iv, ivs[id(node.loop.iv)])
    return outer
