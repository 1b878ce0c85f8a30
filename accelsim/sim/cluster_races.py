"""Races between clusters on the shared levels that nothing orders.

Between two barriers nothing orders one cluster's DMAs against another's, so on a buffer in
a shared level (DRAM, a global buffer) a DMA of cluster A writing elements that cluster B
read or wrote in the same interval — or reading what B wrote — is a race, whether or not the
two transfers happen to overlap in time: a `HazardError` naming both ops, both clusters and
an element. (A DMA racing one in flight is also caught by the per-buffer checks of
`accelsim.sim.hazards`, which see every cluster's DMAs on the shared buffers.) Each
cluster's transfers are checked as its control processor submits them; the barrier starts a
new interval.

Finding the candidates is indexed, not a scan of every earlier access: per shared buffer, per
kind (read / write) and per cluster, the accesses sorted by span start with the longest span
seen, so a bisect over [lo - longest, hi) yields the only accesses whose spans can meet the
new one. A read is looked up among other clusters' writes only; a write among their reads and
writes. Only when a candidate really shares an element is the error built, by the plain scan
of the interval's accesses in issue order (`_report`), so the op an error names is the first
racing one in issue order, as it always was.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

import numpy as np

from accelsim.errors import HazardError
from accelsim.sim.memory import Buffer, InFlightDma
from accelsim.sim.regions import Region

# per shared buffer: (cluster, reads it, span start, span end, the transfer)
_Access = tuple[int, bool, int, int, InFlightDma]


class _Spans:
    """One cluster's accesses of one kind to one buffer in the interval, sorted by span start."""

    __slots__ = ("entries", "longest", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.entries: list[tuple[int, int, InFlightDma]] = []  # (start, end, transfer)
        self.longest = 0

    def add(self, lo: int, hi: int, xfer: InFlightDma) -> None:
        at = bisect_left(self.starts, lo)
        self.starts.insert(at, lo)
        self.entries.insert(at, (lo, hi, xfer))
        if hi - lo > self.longest:
            self.longest = hi - lo

    def meeting(self, lo: int, hi: int) -> list[InFlightDma]:
        """The transfers whose span meets [lo, hi)."""
        starts, entries = self.starts, self.entries
        i, j = bisect_left(starts, lo - self.longest), bisect_left(starts, hi)
        return [x for a, b, x in entries[i:j] if b > lo]


# per shared buffer, per kind (True: reads), per cluster
_Index = dict[int, tuple[dict[int, _Spans], dict[int, _Spans]]]


class ClusterRaces:
    def __init__(self, shared: set[int]):
        self.shared = shared  # id() of the shared buffers
        self.seen: dict[int, list[_Access]] = {}  # in issue order, for the error's message
        self.index: _Index = {}

    def new_interval(self) -> None:
        self.seen.clear()
        self.index.clear()

    def wrap(self, cluster: int, submit: Callable[[InFlightDma], None]
             ) -> Callable[[InFlightDma], None]:
        shared, check, record = self.shared, self._check, self._record

        def checked(xfer: InFlightDma) -> None:
            src, dst = xfer.src, xfer.dst
            if id(src) in shared:
                check(cluster, xfer, src, False, xfer.s0, xfer.s_end)
                record(cluster, True, src, xfer.s0, xfer.s_end, xfer)
            if id(dst) in shared:
                check(cluster, xfer, dst, True, xfer.d0, xfer.d_end)
                record(cluster, False, dst, xfer.d0, xfer.d_end, xfer)
            submit(xfer)

        return checked

    def _record(self, cluster: int, reads: bool, buf: Buffer, lo: int, hi: int,
                xfer: InFlightDma) -> None:
        self.seen.setdefault(id(buf), []).append((cluster, reads, lo, hi, xfer))
        kinds = self.index.get(id(buf))
        if kinds is None:
            kinds = self.index[id(buf)] = ({}, {})
        by_cluster = kinds[0 if reads else 1]
        spans = by_cluster.get(cluster)
        if spans is None:
            spans = by_cluster[cluster] = _Spans()
        spans.add(lo, hi, xfer)

    def _check(self, cluster: int, xfer: InFlightDma, buf: Buffer, writes: bool, lo: int,
               hi: int) -> None:
        kinds = self.index.get(id(buf))
        if kinds is None:
            return
        mine: Region | None = None
        for reads, by_cluster in ((True, kinds[0]), (False, kinds[1])):
            if reads and not writes:
                continue  # two reads never race
            for k, spans in by_cluster.items():
                if k == cluster:
                    continue
                for other in spans.meeting(lo, hi):
                    if mine is None:
                        mine = xfer.region(writes)
                    theirs = other.region(not reads)
                    if mine.overlaps(theirs) and mine.first_common(theirs) is not None:
                        self._report(cluster, xfer, buf, writes, lo, hi)

    def _report(self, cluster: int, xfer: InFlightDma, buf: Buffer, writes: bool, lo: int,
                hi: int) -> None:
        """Raise the error for the first access, in issue order, that `xfer` races with."""
        mine = xfer.region(writes)
        for k, reads, a, b, other in self.seen.get(id(buf), ()):
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
