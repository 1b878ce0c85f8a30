"""Automatic tile sizes: the largest tiles whose footprint (bounding boxes of one tile's
accesses, from isl) fits a cache size, growing the innermost loop first."""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl

from compiler.analysis.access import accesses_in, relation_in_frame
from compiler.analysis.domain import domain_in_frame, enclosing_loops
from compiler.analysis.isl_bridge import AnalysisError, Frame, val_to_int
from compiler.ir.ops import AffineForOp
from compiler.ir.types import MemRefType
from compiler.transforms.tiling.bands import constant_trip_count

DEFAULT_TILE_SIZE = 4  # MLIR's kDefaultTileSize for loops without a given size


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
            divisor = largest_divisor_at_most(tc, best)
            if 2 * divisor >= best:
                best = divisor
        sizes[k] = max(1, best)
    return sizes


def largest_divisor_at_most(n: int, limit: int) -> int:
    """The largest divisor of `n` that is at most `limit`, looking only at candidates in
    [limit / 2, limit] (a smaller one is never taken) and at most 2^16 of them, so a loop of
    10^12 iterations costs no more than a short one; 1 when none is found."""
    if n % limit == 0:
        return limit
    low = max(1, (limit + 1) // 2)
    for d in range(limit - 1, max(low, limit - (1 << 16)) - 1, -1):
        if n % d == 0:
            return d
    return 1
