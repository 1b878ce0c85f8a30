"""Closed forms of the DRAM timing model (derived in docs/dram_timing.md): what a sequential
stream, random single-burst reads and reads that hit one bank row after row cost on one
channel of one rank, refresh counted. Times in DRAM clocks. The tests hold the controller
(`accelsim.hw.dram_controller`) to them; `bench/bench_sim.py` prints the errors."""

from __future__ import annotations

from accelsim.cost.dram_timing import DramTiming


def with_refresh(t0: float, gap: float, t: DramTiming) -> float:
    """T = T0 + floor(T / tREFI) * gap: a run of T0 clocks with a refresh gap per tREFI,
    solved by fixed-point iteration."""
    total = t0
    for _ in range(100):
        nxt = t0 + (total // t.tREFI) * gap
        if nxt == total:
            break
        total = nxt
    return total


def sequential_cycles(t: DramTiming, bursts: int) -> float:
    """A contiguous read of `bursts` bursts: the row-hit bound."""
    gap = t.tRTP - t.tBURST + t.tRP + t.tRFC + t.tRCD
    return with_refresh(t.tRCD + bursts * t.tBURST + t.tCL, gap, t)


def activate_interval(t: DramTiming) -> float:
    """Clocks per ACT of a stream of row misses spread over every bank."""
    return max(t.tRRD_S, t.tFAW / 4, t.tRC / t.banks, t.tBURST)


def random_read_cycles(t: DramTiming, reads: int) -> float:
    """`reads` single-burst reads at random addresses: the activate bound."""
    return with_refresh(reads * activate_interval(t), t.tRC + t.tRFC, t)


def row_cycle(t: DramTiming) -> float:
    """Clocks between reads to new rows of one bank."""
    return max(t.tRC, t.tRAS + t.tRP, t.tRCD + t.tRTP + t.tRP)


def bank_conflict_cycles(t: DramTiming, reads: int) -> float:
    """`reads` single-burst reads to one bank, each in a new row: the bank-conflict bound."""
    return with_refresh(reads * row_cycle(t), t.tRFC, t)
