"""Races between clusters on the shared levels that nothing orders.

Between two barriers nothing orders one cluster's DMAs against another's, so on a buffer in
a shared level (DRAM, a global buffer) a DMA of cluster A writing elements that cluster B
read or wrote in the same interval — or reading what B wrote — is a race, whether or not the
two transfers happen to overlap in time: a `HazardError` naming both ops, both clusters and
an element. (A DMA racing one in flight is also caught by the per-buffer checks of
`accelsim.sim.hazards`, which see every cluster's DMAs on the shared buffers.) Each
cluster's transfers are checked as its control processor submits them; the barrier starts a
new interval.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from accelsim.errors import HazardError
from accelsim.sim.memory import Buffer, InFlightDma

# per shared buffer: (cluster, reads it, span start, span end, the transfer)
_Access = tuple[int, bool, int, int, InFlightDma]


class ClusterRaces:
    def __init__(self, shared: set[int]):
        self.shared = shared  # id() of the shared buffers
        self.seen: dict[int, list[_Access]] = {}

    def new_interval(self) -> None:
        self.seen.clear()

    def wrap(self, cluster: int, submit: Callable[[InFlightDma], None]
             ) -> Callable[[InFlightDma], None]:
        shared, seen, check = self.shared, self.seen, self._check

        def checked(xfer: InFlightDma) -> None:
            src, dst = xfer.src, xfer.dst
            if id(src) in shared:
                check(cluster, xfer, src, False, xfer.s0, xfer.s_end)
                seen.setdefault(id(src), []).append((cluster, True, xfer.s0, xfer.s_end, xfer))
            if id(dst) in shared:
                check(cluster, xfer, dst, True, xfer.d0, xfer.d_end)
                seen.setdefault(id(dst), []).append((cluster, False, xfer.d0, xfer.d_end, xfer))
            submit(xfer)

        return checked

    def _check(self, cluster: int, xfer: InFlightDma, buf: Buffer, writes: bool, lo: int,
               hi: int) -> None:
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
