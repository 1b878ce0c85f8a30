"""Races between clusters on the shared levels that nothing orders.

Between two barriers nothing orders one cluster's DMAs against another's, so on a buffer in
a shared level (DRAM, a global buffer) a DMA of cluster A writing elements that cluster B
read or wrote in the same interval — or reading what B wrote — is a race, whether or not the
two transfers happen to overlap in time: a `HazardError` naming both ops, both clusters and
an element. (A DMA racing one in flight is also caught by the per-buffer checks of
`accelsim.sim.hazards`, which see every cluster's DMAs on the shared buffers.) Each
cluster's transfers are checked as its control processor submits them; the barrier starts a
new interval.

Finding the candidates is indexed, not a scan of every earlier access: per shared buffer and
kind (read / write), every cluster's accesses sorted by span start with the longest span
seen, so a bisect over [lo - longest, hi) yields the only accesses whose spans can meet the
new one. A read is looked up among other clusters' writes only; a write among their reads and
writes. A candidate is decided by its rows and columns when both regions are boxes of the
same row length (every chunk full, none wrapping a row: `_box`, exact), else by the regions'
own overlap test. Only when a candidate really shares an element is the error built, by the
plain scan of the interval's accesses in issue order (`_report`), so the op an error names
is the first racing one in issue order, as it always was.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from itertools import count

import numpy as np

from accelsim.errors import HazardError
from accelsim.sim.memory import Buffer, InFlightDma
from accelsim.sim.regions import Region

# (row length, first row, end row, first column, end column) of a region that is a box
Box = tuple[int, int, int, int, int]
# one access: [span start, span end, cluster, issue number, the transfer, its box (False: not
# a box, None: not computed yet)]
_Entry = list


class _Spans:
    """Every cluster's accesses of one kind to one buffer in the interval, sorted by span start."""

    __slots__ = ("entries", "longest", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.entries: list[_Entry] = []
        self.longest = 0

    def add(self, lo: int, hi: int, cluster: int, seq: int, xfer: InFlightDma) -> None:
        at = bisect_left(self.starts, lo)
        self.starts.insert(at, lo)
        self.entries.insert(at, [lo, hi, cluster, seq, xfer, None])
        if hi - lo > self.longest:
            self.longest = hi - lo


def _box(r: Region) -> Box | bool:
    """`r` as rows x columns of a row-major array with rows of `r.stride` elements, when every
    chunk is full and none wraps a row; else False."""
    st, per = r.stride, r.per
    if r.count < 1 or r.last != per or not 0 < per <= st:
        return False
    row, col = divmod(r.start, st)
    if col + per > st:
        return False
    return st, row, row + r.count, col, col + per


class ClusterRaces:
    def __init__(self, shared: set[int]):
        self.shared = shared  # id() of the shared buffers
        self.index: dict[int, tuple[_Spans, _Spans]] = {}  # per shared buffer: (reads, writes)
        self._seq = count()  # issue order of the accesses (for the error's message)

    def new_interval(self) -> None:
        self.index.clear()

    def wrap(self, cluster: int, submit: Callable[[InFlightDma], None]
             ) -> Callable[[InFlightDma], None]:
        shared, index, check, seq = self.shared, self.index, self._check, self._seq

        def checked(xfer: InFlightDma) -> None:
            src = xfer.src
            if id(src) in shared:
                kinds = index.get(id(src))
                if kinds is None:
                    kinds = index[id(src)] = (_Spans(), _Spans())
                lo, hi = xfer.s0, xfer.s_end
                if kinds[1].entries:  # a read races only with other clusters' writes
                    check(cluster, xfer, src, False, lo, hi, kinds[1], False)
                sp = kinds[0]  # `_Spans.add`, inline
                at = bisect_left(sp.starts, lo)
                sp.starts.insert(at, lo)
                sp.entries.insert(at, [lo, hi, cluster, next(seq), xfer, None])
                if hi - lo > sp.longest:
                    sp.longest = hi - lo
            dst = xfer.dst
            if id(dst) in shared:
                kinds = index.get(id(dst))
                if kinds is None:
                    kinds = index[id(dst)] = (_Spans(), _Spans())
                lo, hi = xfer.d0, xfer.d_end
                if kinds[0].entries:
                    check(cluster, xfer, dst, True, lo, hi, kinds[0], True)
                if kinds[1].entries:
                    check(cluster, xfer, dst, True, lo, hi, kinds[1], False)
                kinds[1].add(lo, hi, cluster, next(seq), xfer)
            submit(xfer)

        return checked

    def _check(self, cluster: int, xfer: InFlightDma, buf: Buffer, writes: bool, lo: int,
               hi: int, spans: _Spans, reads: bool) -> None:
        """Raise if `xfer` (writing `buf`, or reading it) shares an element with an access of
        another cluster in `spans` (the reads of `buf`, or its writes)."""
        starts = spans.starts
        i, j = bisect_left(starts, lo - spans.longest), bisect_left(starts, hi)
        mine: Region | None = None
        box: Box | bool = False
        for e in spans.entries[i:j]:
            if e[1] <= lo or e[2] == cluster:
                continue
            if mine is None:
                mine = xfer.region(writes)
                box = _box(mine)
            theirs = e[5]
            if theirs is None:
                theirs = e[5] = _box(e[4].region(not reads))
            if box and theirs and box[0] == theirs[0]:  # type: ignore[index]
                if box[1] < theirs[2] and theirs[1] < box[2] \
                        and box[3] < theirs[4] and theirs[3] < box[4]:  # type: ignore[index]
                    self._report(cluster, xfer, buf, writes, lo, hi)
                continue
            region = e[4].region(not reads)
            if mine.overlaps(region) and mine.first_common(region) is not None:
                self._report(cluster, xfer, buf, writes, lo, hi)

    def _report(self, cluster: int, xfer: InFlightDma, buf: Buffer, writes: bool, lo: int,
                hi: int) -> None:
        """Raise the error for the first access, in issue order, that `xfer` races with."""
        mine = xfer.region(writes)
        kinds = self.index.get(id(buf), (_Spans(), _Spans()))
        seen = sorted((e[3], e[2], reads, e[0], e[1], e[4])
                      for reads, spans in ((True, kinds[0]), (False, kinds[1]))
                      for e in spans.entries)
        for _, k, reads, a, b, other in seen:
            if k == cluster or (reads and not writes) or b <= lo or hi <= a:
                continue
            theirs_region = other.region(not reads)
            if not mine.overlaps(theirs_region):  # (O(1) for equal strides; exact)
                continue
            lin = mine.first_common(theirs_region)
            if lin is None:
                continue
            idx = [int(x) for x in np.unravel_index(lin, buf.shape)] if buf.shape else []
            what = "writes" if writes else "reads"
            theirs = "read" if reads else "wrote"
            raise HazardError(
                f"cluster c{cluster}: {xfer.op.NAME} ({xfer.label}) {what} {buf.name} element "
                f"{idx} that cluster c{k} {theirs} ({other.op.NAME} ({other.label}) at "
                f"{other.op.loc}, issued at cycle {other.issued}) with no barrier between them: "
                "the clusters race on it", xfer.op.loc)
        raise AssertionError("an indexed race has no access in the interval's issue order")
