"""`affine-loop-tile`: tile every outermost perfectly nested band, as mlir-opt does.

For a band `L0 .. Ln-1` and tile sizes `T0 .. Tn-1`, tile-space loops keep each loop's bounds
and step `s*T`; intra-tile loops run from the tile IV to `tile IV + s*T`, or to the `min` of
that and the original upper bounds when `T` may not divide the trip count (MLIR's
constructTiledIndexSetHyperRect). With `separate`, an `affine.if` splits full tiles (no
`min`) from partial ones. Sizes come from `tile-sizes` (missing entries: 4, like MLIR),
`tile-size`, or a cache model: the largest tiles whose footprint fits `cache-size` KiB,
growing the innermost loop first so tiles keep long contiguous rows. A band whose
dependences forbid tiling is left unchanged with a remark naming the dependence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.access import accesses_in, relation_in_frame
from compiler.analysis.domain import domain_in_frame, enclosing_loops
from compiler.analysis.isl_bridge import AnalysisError, Frame, val_to_int
from compiler.analysis.legality import opaque_memory_op, tiling_violation
from compiler.ir.affine_expr import Const, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.builder import Constraint, IndexExpr, integer_set_of
from compiler.ir.core import BlockArgument, Operation, OpResult, Value
from compiler.ir.ops import AffineForOp, AffineIfOp, AffineYieldOp, FuncOp, ModuleOp
from compiler.ir.types import MemRefType
from compiler.transforms.pass_base import Pass
from compiler.transforms.registry import register

DEFAULT_TILE_SIZE = 4  # MLIR's kDefaultTileSize for loops without a given size


@dataclass(frozen=True)
class Options:
    tile_sizes: tuple[int, ...] = ()
    tile_size: int | None = None
    cache_size: int | None = 512  # KiB
    separate: bool = False

    def __post_init__(self) -> None:
        if any(t <= 0 for t in self.tile_sizes):
            raise ValueError(f"tile-sizes must be positive, got {','.join(map(str, self.tile_sizes))}")
        if self.tile_size is not None and self.tile_size <= 0:
            raise ValueError(f"tile-size must be positive, got {self.tile_size}")
        if self.cache_size is not None and self.cache_size <= 0:
            raise ValueError(f"cache-size must be a positive number of KiB, got {self.cache_size}")


# ---- bands ------------------------------------------------------------------------------

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


# ---- trip counts ------------------------------------------------------------------------

def constant_trip_count(lp: AffineForOp) -> int | None:
    """Trip count when `ub - lb` is a constant (single-result bounds over the same operands)."""
    if lp.lower_map.num_results != 1 or lp.upper_map.num_results != 1:
        return None
    lo = _as_index_expr(lp.lower_map.results[0], lp.lower_map, lp.lower_operands)
    hi = _as_index_expr(lp.upper_map.results[0], lp.upper_map, lp.upper_operands)
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
    lo = _as_index_expr(lp.lower_map.results[0], lp.lower_map, lp.lower_operands)
    hi = _as_index_expr(lp.upper_map.results[0], lp.upper_map, lp.upper_operands)
    n = len((hi - lo).operands)
    coeffs = (hi - lo).expr.linear_coeffs(n, 0)
    if coeffs is None:
        return 1
    g = 0
    for c in (*coeffs[0], coeffs[2]):
        g = math.gcd(g, c)
    return g or 1


def _as_index_expr(e, m: AffineMap, operands: Sequence[Value]) -> IndexExpr:  # type: ignore[no-untyped-def]
    dims = [Dim(k) for k in range(m.num_dims)]
    syms = [Dim(m.num_dims + k) for k in range(m.num_symbols)]
    return IndexExpr(e.substitute(dims, syms), tuple(operands))


# ---- tile sizes ---------------------------------------------------------------------------

def tile_sizes_for(band: Sequence[AffineForOp], opts: Options) -> list[int]:
    if opts.tile_sizes:
        sizes = list(opts.tile_sizes[: len(band)])
        return sizes + [DEFAULT_TILE_SIZE] * (len(band) - len(sizes))
    if opts.tile_size is not None:
        return [opts.tile_size] * len(band)
    return cache_tile_sizes(band, (opts.cache_size or 512) * 1024)


class _TileFootprint:
    """Bytes of one tile's bounding boxes, for candidate tile sizes (band at the origin tile)."""

    def __init__(self, band: Sequence[AffineForOp]):
        self.band = list(band)
        inner = band[-1]
        self.rels: list[tuple[isl.Map, int]] = []
        frames: dict[int, tuple[Frame, isl.Set]] = {}
        for acc in accesses_in(inner):
            bk = id(acc.op.parent_block)  # same block: same domain
            if bk not in frames:
                frame = Frame([lp.iv for lp in enclosing_loops(acc.op)])
                frames[bk] = (frame, domain_in_frame(acc.op, frame))
            frame, dom = frames[bk]
            mt = acc.memref.type
            assert isinstance(mt, MemRefType)
            # [symbols] -> { [band ivs, inner ivs] -> M[a] }
            self.rels.append((relation_in_frame(acc.op, acc.side, frame, dom), mt.element.byte_width))
        self.frame = Frame([lp.iv for lp in band])
        self.first = [self._first_iv(k) for k in range(len(band))]

    def _first_iv(self, k: int) -> isl.PwAff:
        lp = self.band[k]
        lbs = self.frame.map_results(lp.lower_map, lp.lower_operands)
        acc = lbs[0]
        for lb in lbs[1:]:
            acc = acc.max(lb)
        return acc

    def bytes(self, sizes: Sequence[int]) -> int | None:
        # { [band ivs] : lb_k <= iv_k < lb_k + T_k * step_k }: the first tile
        box = self.frame.universe
        for k, (lp, t) in enumerate(zip(self.band, sizes, strict=True)):
            iv = self.frame.dim(k)
            box = box.intersect(iv.ge_set(self.first[k]))
            box = box.intersect(iv.lt_set(self.first[k].add(self.frame.constant(t * lp.step))))
        per_memref: dict[str, isl.Set] = {}
        width: dict[str, int] = {}
        nb = len(self.band)
        for rel, w in self.rels:
            n_in = rel.dim(isl.dim_type.in_)
            # [symbols] -> { [band ivs] : ... } lifted to the access's domain by adding inner dims
            lifted = box.insert_dims(isl.dim_type.set, nb, n_in - nb)
            lifted = lifted.align_params(rel.get_space())
            img = rel.intersect_domain(lifted).range()
            name = img.get_tuple_name()
            per_memref[name] = img if name not in per_memref else per_memref[name].union(img)
            width[name] = w
        total = 0
        for name, s in per_memref.items():
            n = 1
            for d in range(s.dim(isl.dim_type.set)):
                proj = s.project_out(isl.dim_type.set, d + 1, s.dim(isl.dim_type.set) - d - 1)
                proj = proj.project_out(isl.dim_type.set, 0, d)
                if proj.is_empty():
                    n = 0
                    break
                try:
                    span = val_to_int(proj.dim_max(0).sub(proj.dim_min(0)).max_val())
                except isl.Error:  # quasi-affine span isl cannot optimize: unknown
                    return None
                if span is None:
                    return None
                n *= span + 1
            total += n * width[name]
        return total


def cache_tile_sizes(band: Sequence[AffineForOp], cache_bytes: int) -> list[int]:
    """Largest tiles whose footprint fits, innermost loop grown first (long contiguous rows).

    Sizes are rounded down to a divisor of the trip count when one is at least half as large
    (full tiles, no `min` bounds). Unknown footprints fall back to MLIR's default size.
    """
    try:
        fp = _TileFootprint(band)
    except AnalysisError:
        return [DEFAULT_TILE_SIZE] * len(band)
    sizes = [1] * len(band)
    if fp.bytes(sizes) is None:  # footprint unknown (unbounded or not computable): MLIR's default
        return [DEFAULT_TILE_SIZE] * len(band)
    for k in reversed(range(len(band))):
        tc = constant_trip_count(band[k])
        hi = tc if tc is not None else 1024
        lo = 1

        def fits(t: int, k: int = k) -> bool:
            trial = list(sizes)
            trial[k] = t
            b = fp.bytes(trial)
            return b is not None and b <= cache_bytes

        if not fits(1):
            continue
        while lo < hi:  # the footprint grows with the tile size: binary search
            mid = (lo + hi + 1) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid - 1
        best = lo
        if tc:
            divisor = max(d for d in range(1, best + 1) if tc % d == 0)
            if 2 * divisor >= best:
                best = divisor
        sizes[k] = max(1, best)
    return sizes


# ---- the transformation -----------------------------------------------------------------

def _single_dim_shift(c: int) -> AffineMap:
    return AffineMap(1, 0, (Dim(0) + c,))


def tile_band(band: Sequence[AffineForOp], sizes: Sequence[int], separate: bool = False
              ) -> list[AffineForOp]:
    """Replace the band by tile-space loops around intra-tile loops; returns the new loops."""
    root = band[0]
    block = root.parent_block
    assert block is not None
    n = len(band)
    tile_loops: list[AffineForOp] = []
    parent_body = None
    for lp, t in zip(band, sizes, strict=True):
        new = AffineForOp(lp.lower_map, lp.lower_operands, lp.upper_map, lp.upper_operands,
                          lp.step * t, loc=lp.loc, iv_name=lp.iv.name_hint)
        new.body.append(AffineYieldOp(loc=lp.loc))
        if parent_body is None:
            block.insert_before(root, new)
        else:
            parent_body.insert(len(parent_body.ops) - 1, new)
        parent_body = new.body
        tile_loops.append(new)
    assert parent_body is not None
    needs_min = [False] * n
    intra: list[AffineForOp] = []
    body = parent_body
    for k, (lp, t) in enumerate(zip(band, sizes, strict=True)):
        tiv = tile_loops[k].iv
        tc = constant_trip_count(lp)
        if tc is not None and tc < t:
            ub_map, ub_ops = _single_dim_shift(tc * lp.step), [tiv]
        elif largest_divisor_of_trip_count(lp) % t != 0:
            um = lp.upper_map
            nd = um.num_dims
            shifted = [r.substitute([Dim(j) for j in range(nd)], [Sym(j) for j in range(um.num_symbols)])
                       for r in um.results]
            ub_map = AffineMap(nd + 1, um.num_symbols, (Dim(nd) + t * lp.step, *shifted))
            ub_ops = [*lp.upper_operands[:nd], tiv, *lp.upper_operands[nd:]]
            needs_min[k] = True
        else:
            ub_map, ub_ops = _single_dim_shift(t * lp.step), [tiv]
        new = AffineForOp(AffineMap.identity(1), [tiv], ub_map, ub_ops, lp.step, loc=lp.loc,
                          iv_name=lp.iv.name_hint)
        new.body.append(AffineYieldOp(loc=lp.loc))
        body.insert(len(body.ops) - 1, new)
        body = new.body
        intra.append(new)
    # Move the innermost body and rename the IVs.
    inner_old = band[-1].body
    for op in [op for op in inner_old.ops if not op.IS_TERMINATOR]:
        body.insert(len(body.ops) - 1, op)
    for lp, new in zip(band, intra, strict=True):
        intra[0].replace_uses_of(lp.iv, new.iv)
    root.erase()
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
            constraints.append(_as_index_expr(r, lp.upper_map, lp.upper_operands) >= tile_end)
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


@register
class LoopTilePass(Pass):
    name = "affine-loop-tile"
    summary = "Tile affine loop nests (mlir-opt's -affine-loop-tile)"
    Options = Options

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if func.is_declaration:
                continue
            for band in tileable_bands(func):
                self._tile(band)

    def _tile(self, band: list[AffineForOp]) -> None:
        root = band[0]
        if not is_hyper_rectangular(band):
            self.remark(root.loc, "band not tiled: a loop bound depends on an outer loop of the "
                                  "band (non-hyperrectangular)")
            return
        opaque = opaque_memory_op(root)
        if opaque is not None:
            self.remark(root.loc, f"band not tiled: {opaque.NAME} at {opaque.loc} takes a memref, "
                                  "so its memory effects are unknown")
            return
        sizes = tile_sizes_for(band, self.options)
        try:
            dep = tiling_violation(band, sizes)
        except AnalysisError as exc:
            self.remark(root.loc, f"band not tiled: {exc.message}")
            return
        if dep is not None:
            self.remark(root.loc, f"band of {len(band)} loops not tiled with sizes "
                                  f"{','.join(map(str, sizes))}: tiling would reverse the {dep}")
            return
        tile_band(band, sizes, self.options.separate)
