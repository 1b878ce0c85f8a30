"""`TraceRecord`: one busy interval of a hardware unit (`accelsim.trace` re-exports it;
the summary and the tally fold it without importing the package that holds them)."""

from __future__ import annotations

from typing import NamedTuple


class TraceRecord(NamedTuple):
    """One busy interval. A NamedTuple: immutable, and ~5x cheaper to create than a frozen
    dataclass, which matters at one record per DMA, transfer and kernel."""

    unit: str
    start: int
    end: int
    kind: str
    bytes: int = 0
    label: str = ""
    loc: str = ""

    @property
    def duration(self) -> int:
        return self.end - self.start
