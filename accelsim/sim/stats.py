"""The run's counters for the report (event counts, not clocks) and its flags."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class RunStats:
    """Counters for the report (event counts, not clocks)."""

    dma_ops: int = 0
    kernel_calls: int = 0
    macs: int = 0
    alu_ops: int = 0
    special_ops: int = 0
    kernel_sram_bytes: int = 0
    dma_sram_bytes: int = 0
    ideal_compute_cycles: int = 0
    flags: list[str] = field(default_factory=list)
    unwaited: list[str] = field(default_factory=list)
