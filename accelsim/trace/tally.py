"""What a many-cluster run keeps of its trace when no record is asked for
(`SimOptions(keep_records=False)` to `accelsim.sim.clusters.simulate_clusters`): per
(unit, kind) the records made, their bytes and their cycles (the sum of their durations).

Those sums are every input of the cluster report (`accelsim.report.clusters.cluster_report`:
busy, stall and barrier cycles per cluster, cycles per interconnect link, DRAM bytes by kind,
bytes through a shared level's ports), so it gives the same figures from a `UnitTally` as from
the records (tests/accelsim/sim/test_cluster_tally.py). A sum does not depend on the order
records come in, so a batch can be folded at any time: unlike the one-cluster
`TraceSummary`, no watermark.

The machine appends to `records` as it always does (the components bind its `append`);
`flush` folds that batch (the executor calls it when `len(records)` reaches `batch`, as it
does a `TraceSummary`'s), `finish` the rest at the end of the run. The DRAM channels of an
interleaved policy, where most of a run's records are made (one per channel per transfer),
make none: they count their transfers per rotation and `add` the sums at the end
(`accelsim.hw.dram.Dram.fold_counts`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accelsim.trace.record import TraceRecord

# per (unit, kind): [records, bytes, cycles]
Sums = dict[tuple[str, str], list[int]]


class UnitTally:
    """Per (unit, kind) sums of a run's records (module docstring)."""

    def __init__(self, batch: int = 4096):
        if batch < 1:
            raise ValueError(f"UnitTally batch must be >= 1, got {batch}")
        self.records: list[TraceRecord] = []  # the batch the machine appends to
        self.batch = batch
        self.seen = 0  # records counted so far
        self.end = 0   # the latest end of any record
        self._sums: Sums = {}
        self._done = False

    def flush(self, now: int = 0) -> None:
        """Fold the batch (`now`, the run's cycle, is not needed: sums have no order)."""
        batch = self.records
        if not batch:
            return
        sums = self._sums
        end = self.end
        for u, s, e, k, b, _, _ in batch:
            row = sums.get((u, k))
            if row is None:
                row = sums[u, k] = [0, 0, 0]
            row[0] += 1
            row[1] += b
            row[2] += e - s
            if e > end:
                end = e
        self.end = end
        self.seen += len(batch)
        batch.clear()  # in place: the machine's components hold this list

    def add(self, unit: str, kind: str, records: int, nbytes: int, cycles: int, end: int) -> None:
        """Count `records` records made elsewhere (their bytes, cycles and latest end)."""
        if self._done:
            raise AssertionError("UnitTally.add after finish()")
        if records <= 0:
            return
        row = self._sums.setdefault((unit, kind), [0, 0, 0])
        row[0] += records
        row[1] += nbytes
        row[2] += cycles
        self.seen += records
        self.end = max(self.end, end)

    def finish(self) -> None:
        """Fold the rest at the end of the run."""
        self.flush()
        self._done = True

    def sums(self) -> dict[tuple[str, str], tuple[int, int, int]]:
        """Per (unit, kind): (records, bytes, cycles), after `finish()`."""
        if not self._done:
            raise AssertionError("UnitTally.sums() before finish()")
        return {key: (r[0], r[1], r[2]) for key, r in self._sums.items()}


def sums_of(records: list[TraceRecord]) -> dict[tuple[str, str], tuple[int, int, int]]:
    """The same sums from kept records."""
    tally = UnitTally()
    tally.records.extend(records)
    tally.finish()
    return tally.sums()
