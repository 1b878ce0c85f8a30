"""The one perfect band the tile search works on, as numbers: trip counts, and for every
memref the affine index of each access per dimension, so that the box a tile touches is
arithmetic instead of isl.

An index is `c0 + sum_k coef[k] * x_k + (inner loops)`, with `x_k` the iteration number of band
loop k (0 to trip - 1; lower bounds and steps folded into `c0` and `coef`) and the loops inside
the band adding between `inner_lo` and `inner_hi`. The box of a tile is the bounding box of
those indices over its iteration ranges, as the copy pass's region (an isl bounding box) is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from compiler.analysis.access import accesses_in
from compiler.analysis.domain import enclosing_loops
from compiler.ir import ops as O
from compiler.ir.affine_eval import compile_map
from compiler.ir.core import Value
from compiler.ir.types import MemRefType

Ranges = Sequence[tuple[int, int]]  # per band loop: first and last iteration number


@dataclass(frozen=True, slots=True)
class DimIndex:
    """One access's index along one memref dimension."""

    c0: int
    terms: tuple[tuple[int, int], ...]  # (band loop, change per iteration of it), nonzero only
    inner_lo: int                       # what the loops inside the band add, at least ...
    inner_hi: int                       # ... and at most

    def bounds(self, ranges: Ranges) -> tuple[int, int]:
        lo = self.c0 + self.inner_lo
        hi = self.c0 + self.inner_hi
        for k, c in self.terms:
            a, b = ranges[k]
            if c > 0:
                lo += c * a
                hi += c * b
            else:
                lo += c * b
                hi += c * a
        return lo, hi


@dataclass(frozen=True, slots=True)
class BandRef:
    """One memref of the band and every access to it."""

    memref: Value
    ebytes: int
    shape: tuple[int, ...]
    read: bool
    written: bool
    accesses: tuple[tuple[DimIndex, ...], ...]  # [access][dim]
    band_use: tuple[bool, ...]                  # per band loop: does an index read its IV

    def box(self, ranges: Ranges) -> tuple[tuple[int, int], ...]:
        """(lowest, highest) index per dimension over the iteration ranges."""
        out = []
        for d in range(len(self.shape)):
            lo = hi = None
            for acc in self.accesses:
                a, b = acc[d].bounds(ranges)
                lo = a if lo is None or a < lo else lo
                hi = b if hi is None or b > hi else hi
            out.append((lo, hi))
        return tuple(out)  # type: ignore[arg-type]

    def extents(self, ranges: Ranges) -> tuple[int, ...]:
        return tuple(min(s, hi - lo + 1) for s, (lo, hi) in zip(self.shape, self.box(ranges), strict=True))

    def tile_extents(self, last: Sequence[int]) -> tuple[int, ...]:
        """`extents` over the ranges (0, last[k]), its box arithmetic inlined (the tile search
        asks for it per candidate): a term adds `c * last` to the high end where c > 0 and to
        the low end where c < 0."""
        out = []
        for d, s in enumerate(self.shape):
            lo = hi = None
            for acc in self.accesses:
                di = acc[d]
                a = di.c0 + di.inner_lo
                b = di.c0 + di.inner_hi
                for k, c in di.terms:
                    if c > 0:
                        b += c * last[k]
                    else:
                        a += c * last[k]
                if lo is None or a < lo:
                    lo = a
                if hi is None or b > hi:
                    hi = b
            assert lo is not None and hi is not None
            ext = hi - lo + 1
            out.append(s if s < ext else ext)
        return tuple(out)

    def box_bytes(self, ranges: Ranges) -> int:
        return math.prod(self.extents(ranges)) * self.ebytes


@dataclass(frozen=True, slots=True)
class Band:
    func: O.FuncOp
    loops: tuple[O.AffineForOp, ...]
    trips: tuple[int, ...]
    refs: tuple[BandRef, ...]     # in the order of their first access (the copy pass's order)

    def tile_ranges(self, sizes: Sequence[int], depth: int | None = None) -> list[tuple[int, int]]:
        """Iteration ranges of one full tile; loops from `depth` on over their whole range."""
        n = len(self.loops) if depth is None else depth
        pairs = zip(sizes, self.trips, strict=True)
        return [(0, (t if k < n else tc) - 1) for k, (t, tc) in enumerate(pairs)]

    def footprint(self, sizes: Sequence[int], depth: int | None = None) -> int:
        """Bytes of the boxes of one tile of every memref (loops from `depth` on whole)."""
        last = self.tile_last(sizes, depth)
        return sum(math.prod(r.tile_extents(last)) * r.ebytes for r in self.refs)

    def tile_last(self, sizes: Sequence[int], depth: int | None = None) -> list[int]:
        """The last iteration number per loop of one full tile (`tile_ranges`' upper ends)."""
        n = len(self.loops) if depth is None else depth
        return [(t if k < n else tc) - 1 for k, (t, tc) in enumerate(zip(sizes, self.trips, strict=True))]


def band_of(func: O.FuncOp) -> Band | None:
    """The function's single perfect, rectangular band with constant trip counts and affine
    accesses to statically shaped memrefs, or None."""
    from compiler.transforms.tiling.bands import is_hyper_rectangular, tileable_bands

    bands = [b for b in tileable_bands(func) if b]
    if len(bands) != 1 or not is_hyper_rectangular(bands[0]):
        return None
    loops = tuple(bands[0])
    trips = tuple(lp.constant_trip_count for lp in loops)
    if any(t is None or t < 1 for t in trips):
        return None
    lower = [lp.constant_lower for lp in loops]
    if any(lb is None for lb in lower):
        return None
    found = _refs(loops, [(lb, lp.step) for lb, lp in zip(lower, loops, strict=True)])  # type: ignore[misc]
    if found is None:
        return None
    return Band(func, loops, trips, found) if found else None  # type: ignore[arg-type]


def _refs(loops: Sequence[O.AffineForOp], origin: Sequence[tuple[int, int]]
          ) -> tuple[BandRef, ...] | None:
    ivs = {lp.iv: k for k, lp in enumerate(loops)}
    inner: dict[Value, tuple[int, int]] = {}  # IV of a loop inside the band -> (lower, last value)
    accs: dict[Value, list[tuple[DimIndex, ...]]] = {}
    meta: dict[Value, list] = {}  # type: ignore[type-arg]  # memref -> [ebytes, shape, read, written]
    nb = len(loops)
    for acc in accesses_in(loops[-1]):
        op = acc.op
        if not isinstance(op, O.AffineLoadOp | O.AffineStoreOp):
            return None
        t = acc.memref.type
        if not isinstance(t, MemRefType) or not t.has_static_shape:
            return None
        for lp in enclosing_loops(op):
            if lp.iv in ivs or lp.iv in inner:
                continue
            tc, lb = lp.constant_trip_count, lp.constant_lower
            if tc is None or lb is None or tc < 1:
                return None  # a loop inside the band the box arithmetic cannot bound
            inner[lp.iv] = (lb, lb + (tc - 1) * lp.step)
        operands = list(op.indices)
        if any(v not in ivs and v not in inner for v in operands):
            return None  # symbols or values computed in the body: leave it to the cache model
        fn = compile_map(op.map)
        # every operand at its origin: band IVs at their lower bounds, inner IVs at 0
        at = [origin[ivs[v]][0] if v in ivs else 0 for v in operands]
        base = fn(at)
        dims = []
        for d in range(len(base)):
            coef = [0] * nb
            lo = hi = 0
            for k, v in enumerate(operands):
                one, two = list(at), list(at)
                one[k] += 1
                two[k] += 2
                a, b = fn(one)[d] - base[d], fn(two)[d] - base[d]
                if b != 2 * a:
                    return None  # not affine-linear (mod / floordiv)
                if v in ivs:
                    coef[ivs[v]] += a * origin[ivs[v]][1]
                else:
                    first, last = inner[v]
                    lo += min(a * first, a * last)
                    hi += max(a * first, a * last)
            dims.append(DimIndex(base[d], tuple((k, c) for k, c in enumerate(coef) if c), lo, hi))
        accs.setdefault(acc.memref, []).append(tuple(dims))
        m = meta.setdefault(acc.memref, [t.element.byte_width, tuple(t.shape), False, False])
        m[3 if acc.is_write else 2] = True
    refs = []
    for memref, found in accs.items():
        eb, shape, read, written = meta[memref]
        use = tuple(any(k == j for dims in found for di in dims for j, _ in di.terms) for k in range(nb))
        refs.append(BandRef(memref, eb, shape, read, written, tuple(found), use))
    return tuple(refs)
