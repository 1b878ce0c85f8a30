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
    array_folds: int = 0    # folds of the matrix unit under a systolic dataflow
    array_pe_used: int = 0  # PEs mapped, summed over those folds
    flags: list[str] = field(default_factory=list)
    unwaited: list[str] = field(default_factory=list)
