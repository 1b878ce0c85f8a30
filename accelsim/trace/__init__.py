"""The simulation's record: one `TraceRecord` per busy interval of a hardware unit.

Reports and plots derive everything from a `Trace`; they never look inside the simulator.
Units are named `cp` (control processor), `dma<k>`, `dram.ch<k>`, `compute<k>`.
Kinds: `dma` (an engine busy with one descriptor), `read`/`write` (a DRAM channel moving data
for a DMA), `kernel` (a compute unit), `stall` (the control processor waiting on a tag or a
full descriptor queue), `issue` (the control processor issuing a descriptor or a call).

A run that asks for no record keeps a `TraceSummary` instead (`accelsim.trace.summary`: the
report's figures, folded while the run goes on); a many-cluster one a `UnitTally`
(`accelsim.trace.tally`: per unit and kind the records, bytes and cycles, all the cluster
report reads). Such a trace has no records to read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from accelsim.errors import InputError
from accelsim.trace.record import TraceRecord

if TYPE_CHECKING:
    from accelsim.trace.summary import TraceSummary
    from accelsim.trace.tally import UnitTally

__all__ = ["Trace", "TraceRecord", "union_length"]


@dataclass(slots=True)
class Trace:
    """Records in the order they were appended, plus run metadata (config name, hash...).
    With a `summary` or a `tally`, `records` is only the batch the machine is appending to
    (the summary or tally folds and empties it): the records are not kept, and reading them
    is an error."""

    records: list[TraceRecord] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    summary: TraceSummary | None = None
    tally: UnitTally | None = None

    @staticmethod
    def summarized(summary: TraceSummary) -> Trace:
        """A trace that keeps `summary` instead of its records."""
        return Trace(summary.records, summary=summary)

    @staticmethod
    def tallied(tally: UnitTally) -> Trace:
        """A trace that keeps `tally` instead of its records."""
        return Trace(tally.records, tally=tally)

    def add(self, unit: str, start: int, end: int, kind: str, nbytes: int = 0, label: str = "",
            loc: str = "") -> None:
        self.records.append(TraceRecord(unit, start, end, kind, nbytes, label, loc))

    def kept_records(self) -> list[TraceRecord]:
        """Every record; an error when the run kept only the summary."""
        if self.summary is not None or self.tally is not None:
            raise InputError("this run kept no trace records, only the summary the report needs "
                             "(simulate with SimOptions(keep_records=True) for a timeline, a "
                             "trace file or record-level figures)")
        return self.records

    def __iter__(self) -> Iterator[TraceRecord]:
        return iter(self.kept_records())

    def __len__(self) -> int:
        """Records made (also when only the summary was kept)."""
        kept = self.summary if self.summary is not None else self.tally
        if kept is not None:
            return kept.seen + len(self.records)
        return len(self.records)

    def units(self) -> list[str]:
        return sorted({r.unit for r in self.kept_records()})

    def of(self, unit_prefix: str = "", kind: str | None = None) -> list[TraceRecord]:
        """Records whose unit starts with `unit_prefix` (and of `kind`), sorted by start."""
        out = [r for r in self.kept_records()
               if r.unit.startswith(unit_prefix) and (kind is None or r.kind == kind)]
        return sorted(out, key=lambda r: (r.start, r.end, r.unit))

    def timeline(self, unit_prefix: str = "", kind: str | None = None) -> list[tuple[str, int, int]]:
        """`(unit, start, end)` triples, sorted: what exact-timeline tests compare."""
        return [(r.unit, r.start, r.end) for r in self.of(unit_prefix, kind)]

    def busy_cycles(self, unit_prefix: str, kind: str | None = None) -> int:
        """Cycles in which at least one matching unit is busy (union of intervals)."""
        return union_length((r.start, r.end) for r in self.of(unit_prefix, kind))

    @property
    def end(self) -> int:
        kept = self.summary if self.summary is not None else self.tally
        if kept is not None:
            return max(kept.end, max((r.end for r in self.records), default=0))
        return max((r.end for r in self.records), default=0)


def union_length(intervals: Any) -> int:
    total = 0
    cur_s = cur_e = None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s  # type: ignore[operator]
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s  # type: ignore[operator]
    return total
