"""The compute roof of a program: per loop nest, the fewest cycles any compute unit of the
machine can do its ops in, at the rates of the kernel cost model (`accelsim.cost.kernel`).

A kernel made of a nest (any tiling, any fusion that keeps its reduction mappable) costs,
on the matrix unit, its MACs at the array's mapped rate plus every other op on the lanes; on
the lanes, every op on the lanes; the cost model takes the faster (`CostModel._best`). So its
compute is at least MACs / max(array rate, lanes) + other lane-slots / lanes, where the array
rate is the most any sub-GEMM of the nest's view reaches (`systolic.peak_macs_per_cycle`):
a row reduction or a mat-vec maps one column of outputs and reaches `rows` MACs a cycle, not
rows x cols. A nest without an `acc + a*b` reduction never runs on the array; a reduction the
mapping cannot read (`compiler.analysis.loop_roles`) is charged the array's full rate, as the
cost model charges it. Fill, drain, SRAM and DRAM count as 0: a lower bound of the compute
busy time. The figures are the program's before any pass (`compiler.analysis.nest_kernel`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from accelsim.config import HardwareConfig
from accelsim.cost import precision
from accelsim.cost.kernel_map import gemm_view
from accelsim.cost.systolic import peak_macs_per_cycle
from compiler.analysis.nest_kernel import NestFigures


def nest_peak_cycles(config: HardwareConfig, nest: NestFigures) -> Fraction:
    """The fewest compute cycles of one nest, every op at its precision's rate on its unit
    (`accelsim.cost.precision`): the MACs on the array (when it supports them) or the lanes,
    whichever is faster, the rest on the lanes."""
    cc = config.compute
    counts = nest.counts
    rest = precision.lane_slots(cc, counts, with_macs=False)
    macs = (precision.lane_slots(cc, counts, with_macs=True) - rest) / cc.lanes
    if precision.lanes_unsupported(cc, counts, with_macs=True) is not None:
        macs = None  # type: ignore[assignment]
    if cc.kind == "matrix" and counts.reduction and counts.mac \
            and precision.array_supports(cc, counts):
        on_array = counts.mac * precision.mac_scale(cc, counts) / array_rate(config, nest)
        macs = on_array if macs is None else min(macs, on_array)
    return (macs or Fraction(0)) + rest / cc.lanes


def program_peak_cycles(config: HardwareConfig, nests: Sequence[NestFigures]) -> int:
    """The sum over the nests, rounded up."""
    return math.ceil(sum((nest_peak_cycles(config, n) for n in nests), Fraction(0)))


def array_rate(config: HardwareConfig, nest: NestFigures) -> Fraction:
    """The most MACs a cycle the matrix array reaches on any kernel of the nest."""
    cc = config.compute
    full = Fraction(cc.rows * cc.cols)
    roles, trips = nest.roles, nest.trips
    if roles is None or len(roles) != len(trips) or any(t is None for t in trips):
        return full
    view = gemm_view(roles, [t for t in trips if t is not None])
    if view.macs != nest.counts.mac:
        return full  # the cost model's fixed rule at the full rate
    return min(full, peak_macs_per_cycle(cc, view))


__all__ = ["array_rate", "nest_peak_cycles", "program_peak_cycles"]
