"""Element regions of a buffer in row-major linear order, for hazard checks.

A `Region` is `count` chunks: chunk c covers `[start + c*stride, start + c*stride + len_c)`,
where every chunk has `per` elements except the last, which has `last`. A contiguous DMA is
one chunk, a strided DMA is its chunks, a kernel's bounding box is one region per combination
of its leading indices. Overlap between two regions is decided exactly, without enumerating.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from itertools import product
from typing import NamedTuple

from compiler.ir.types import row_major_strides


class Region(NamedTuple):
    """Immutable; a NamedTuple because one is built per DMA side (frozen dataclasses are slow)."""

    start: int
    stride: int
    per: int
    count: int
    last: int

    @staticmethod
    def contiguous(start: int, n: int) -> Region:
        return Region(start, max(n, 1), n, 1 if n > 0 else 0, n)

    @property
    def end(self) -> int:
        """One past the last element."""
        if self.count == 0:
            return self.start
        return self.start + (self.count - 1) * self.stride + self.last

    @property
    def lo(self) -> int:
        return self.start

    def chunks(self) -> Iterator[tuple[int, int]]:
        for c in range(self.count):
            s = self.start + c * self.stride
            yield s, s + (self.last if c == self.count - 1 else self.per)

    def hits(self, a: int, b: int) -> bool:
        """Does any chunk intersect `[a, b)`?"""
        if self.count == 0 or b <= a:
            return False
        # full-length chunks 0 .. count-2
        nfull = self.count - 1
        if nfull > 0 and self.per > 0:
            st = self.stride
            # chunk c intersects iff start + c*st < b and start + c*st + per > a
            c_lo = max(0, (a - self.per - self.start) // st + 1)
            c_hi = min(nfull - 1, -((self.start - b) // st) - 1)
            if c_lo <= c_hi:
                return True
        s = self.start + nfull * self.stride
        return s < b and s + self.last > a

    def overlaps(self, other: Region) -> bool:
        if self.count == 0 or other.count == 0:
            return False
        if self.end <= other.start or other.end <= self.start:
            return False
        small, big = (self, other) if self.count <= other.count else (other, self)
        if small.count == 1:
            return big.hits(small.start, small.start + small.last)
        if (small.stride == big.stride and 0 < small.last <= small.per <= small.stride
                and 0 < big.last <= big.per <= big.stride):
            return _same_stride_overlap(small, big)
        if small.count > 4096:  # both huge: decide on aligned periods only when cheap
            return _overlap_periodic(small, big)
        return any(big.hits(a, b) for a, b in small.chunks())

    def first_common(self, other: Region) -> int | None:
        """Smallest element in both (for messages); None when disjoint."""
        best: int | None = None
        for a, b in self.chunks():
            for c, d in other.chunks():
                lo, hi = max(a, c), min(b, d)
                if lo < hi and (best is None or lo < best):
                    best = lo
            if best is not None:
                return best
        return best


def _same_stride_overlap(a: Region, b: Region) -> bool:
    """Overlap of two regions of at least two chunks with the same stride, in O(1): a full
    chunk of each (chunk i of `a`, chunk j of `b`) intersect iff the offset
    `d + (j - i) * stride` of b's chunk from a's lies in (-b.per, a.per), for some
    j - i that a pair of full chunks has; the last chunks are tested with `hits`."""
    st = a.stride
    d = b.start - a.start
    # j - i in [-(full chunks of a - 1), full chunks of b - 1], and d + k*st in (-b.per, a.per)
    k_lo = max(-(a.count - 2), (-b.per - d) // st + 1)
    k_hi = min(b.count - 2, -((d - a.per) // st) - 1)
    if k_lo <= k_hi:
        return True
    a_last = a.start + (a.count - 1) * st
    b_last = b.start + (b.count - 1) * st
    return b.hits(a_last, a_last + a.last) or a.hits(b_last, b_last + b.last)


def _overlap_periodic(a: Region, b: Region) -> bool:
    # Conservative fallback for two regions with thousands of chunks each.
    return not (a.end <= b.start or b.end <= a.start)


def linearize(indices: Sequence[int], strides: Sequence[int]) -> int:
    return sum(i * s for i, s in zip(indices, strides, strict=True))


def box_regions(box: Sequence[tuple[int, int]], shape: Sequence[int], limit: int = 4096
                ) -> list[Region]:
    """Regions covering the inclusive box `[(lo, hi), ...]` of an array of `shape`."""
    rank = len(shape)
    if rank == 0:
        return [Region.contiguous(0, 1)]
    st = row_major_strides(shape)
    if any(hi < lo for lo, hi in box):
        return []
    if rank == 1:
        return [Region.contiguous(box[0][0], box[0][1] - box[0][0] + 1)]
    lead = box[: rank - 2]
    n_lead = math.prod(hi - lo + 1 for lo, hi in lead)
    (r_lo, r_hi), (c_lo, c_hi) = box[rank - 2], box[rank - 1]
    per = c_hi - c_lo + 1
    rows = r_hi - r_lo + 1
    if n_lead > limit:
        lo = linearize([b[0] for b in box], st)
        hi = linearize([b[1] for b in box], st)
        return [Region.contiguous(lo, hi - lo + 1)]
    out = []
    for lead_idx in product(*(range(lo, hi + 1) for lo, hi in lead)):
        start = linearize([*lead_idx, r_lo, c_lo], st)
        out.append(Region(start, st[rank - 2], per, rows, per))
    return out
