"""Cycles to move bytes at a rate: the one definition every bandwidth figure goes through.

A rate in bytes per cycle is an integer or, since `dram.bandwidth = "51.2 GB/s"` at a clock
rarely divides evenly, a non-integer number (`dram.bandwidth_bytes_per_cycle = 12.8`). The
cycles are ceil(bytes / rate), computed exactly: a float rate is taken as the decimal it is
written as (12.8 = 64/5, not the binary float just above it), so 128 bytes at 12.8 B/cycle are
10 cycles, never 11. An integer rate keeps the plain integer division.
"""

from __future__ import annotations

import functools
from fractions import Fraction


def cycles_for(nbytes: int, bytes_per_cycle: int | float) -> int:
    """ceil(nbytes / bytes_per_cycle), exactly; 0 bytes take 0 cycles."""
    if isinstance(bytes_per_cycle, int):
        return -(-nbytes // bytes_per_cycle)
    rate = _fraction(bytes_per_cycle)
    return -(-(nbytes * rate.denominator) // rate.numerator)


@functools.cache
def _fraction(rate: float) -> Fraction:
    if not rate > 0:
        raise ValueError(f"a rate must be positive, got {rate!r}")
    return Fraction(repr(float(rate)))


def as_rate(value: float) -> int | float:
    """A rate as it is kept: an integer when it is one (so a config's content hash is the same
    whether the file wrote 16 or 16.0), else the float."""
    return int(value) if float(value).is_integer() else float(value)
