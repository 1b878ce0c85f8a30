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
    compute_pj: float = 0.0  # kernels' compute energy, each op at its precision
    # MACs by (precision, accumulator, "array" | "lanes"), for the report's precision rows
    macs_by_dtype: dict[tuple[str, str, str], int] = field(default_factory=dict)
    # memory levels: kernel operand bytes per on-chip level (memory space -> bytes), and the
    # bytes each level's DMAs read and wrote (by chain position, [read, written])
    kernel_level_bytes: dict[int, int] = field(default_factory=dict)
    level_dma_bytes: list[list[int]] = field(default_factory=list)
    array_folds: int = 0    # folds of the matrix unit under a systolic dataflow
    array_pe_used: int = 0  # PEs mapped, summed over those folds
    flags: list[str] = field(default_factory=list)
    unwaited: list[str] = field(default_factory=list)
