"""Rooflines and I/O bounds: what a run is measured against.

- the **honest roofline** (`Report.roofline`): the compute roof is, per loop nest of the
  program, its ops at the best rate any compute unit reaches on that nest by the kernel cost
  model (`peak_compute_cycles`, `accelsim.cost.peak`: MACs of a reduction on the matrix array
  at its mapped rate or on the lanes, every other op on the lanes), the
  bandwidth roof is the program's *compulsory* DRAM traffic (each input element read once,
  each output element written once: `compiler.analysis.compulsory`, on the program before
  tiling and copies) over the peak DRAM bandwidth; the bound is the larger, ratio = cycles / it.
  It depends on the program and the machine only, never on the schedule.
- the **schedule roofline** (`Report.schedule_roofline`): the same with the kernels' ideal
  cycles and the bytes the schedule moved; how close the run comes to what its own traffic
  allows (a schedule that moves 1000x the data can sit at 1.0 of it).
- `traffic_ratio` = DRAM bytes moved / compulsory bytes.
- the **I/O lower bound** for the SRAM size, where one is known: gemm-like contractions (and
  convolutions whose windows do not overlap) need at least 2·MACs/√S + |C| words for S words
  of fast memory (Kwasniewski et al. 2019); `io_bound_ratio` = moved / max(that, compulsory).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from accelsim.config import HardwareConfig
from accelsim.cost.peak import program_peak_cycles
from accelsim.cost.rate import as_rate, cycles_for
from compiler.analysis.compulsory import CompulsoryTraffic, compulsory_traffic
from compiler.analysis.nest_kernel import NestFigures
from compiler.diagnostics import DiagnosticError
from compiler.ir.ops import FuncOp, ModuleOp


@dataclass(frozen=True, slots=True)
class Roofline:
    """The two ceilings of the program on the config for `dram_bytes`, and where a run lands."""

    ops: int
    dram_bytes: int
    compute_cycles: int           # ops at the compute ceiling
    bandwidth_cycles: int         # dram_bytes / peak DRAM bandwidth
    peak_bytes_per_cycle: int     # channels x bandwidth per channel
    compute_unit: str             # "matrix 16x16" or "vector 16 lanes"
    sram_cycles: int = 0          # kernels' SRAM bytes / SRAM bandwidth: a third, inner ceiling
    sram_bytes_per_cycle: int = 0
    latency_floor_cycles: int = 0  # the dependent DRAM read -> write chain (`latency_floor`)
    write_chain_cycles: int = 0    # the input-derived writes after the first read (`write_chain`)
    critical_path_cycles: int = 0  # the longest loop-carried dependence chain (`critical_path`)
    critical_path_what: str = ""   # that chain, named (links x cycles, the loop's location)

    @property
    def latency_bound(self) -> bool:
        """The DRAM latency chain, not compute or bandwidth, is the larger floor: a program this
        small cannot reach the roofline whatever the schedule."""
        return self.latency_floor_cycles > self.cycles

    @property
    def floor_cycles(self) -> int:
        """The largest of the roofline, the latency floor and the critical path: a lower
        bound on any run."""
        return max(self.cycles, self.latency_floor_cycles, self.critical_path_cycles)

    @property
    def critical_path_bound(self) -> bool:
        """A loop-carried dependence chain, not compute, bandwidth or latency, bounds the run."""
        return self.critical_path_cycles > max(self.cycles, self.latency_floor_cycles)

    @property
    def sram_bound(self) -> bool:
        """The kernels' SRAM traffic, not compute or DRAM, limits the run: the DRAM/compute
        roofline cannot be reached on this machine whatever the schedule."""
        return self.sram_cycles > self.cycles

    @property
    def cycles(self) -> int:
        return max(self.compute_cycles, self.bandwidth_cycles)

    @property
    def bound(self) -> str:
        """`compute` or `bandwidth` (the larger roof; ties count as compute)."""
        return "compute" if self.compute_cycles >= self.bandwidth_cycles else "bandwidth"

    @property
    def intensity(self) -> float:
        """Operational intensity: ops per DRAM byte (inf without DRAM traffic)."""
        return self.ops / self.dram_bytes if self.dram_bytes else math.inf

    @property
    def peak_ops_per_cycle(self) -> float:
        """The program's compute ceiling: its ops over its ideal compute cycles."""
        return self.ops / self.compute_cycles if self.compute_cycles else 0.0

    def attainable_ops_per_cycle(self, intensity: float) -> float:
        return min(self.peak_ops_per_cycle, intensity * self.peak_bytes_per_cycle)

    def ratio(self, cycles: int) -> float:
        return cycles / self.cycles if self.cycles else math.inf

    def describe(self) -> str:
        if self.bound == "compute":
            return f"compute-bound ({self.compute_unit}, {self.peak_ops_per_cycle:.4g} ops/cycle)"
        return f"bandwidth-bound (DRAM, {self.peak_bytes_per_cycle} B/cycle)"


@dataclass(frozen=True, slots=True)
class IoLowerBound:
    """DRAM bytes any schedule must move with this SRAM, or None with the reason none is known."""

    bytes: int | None
    description: str


def compute_unit_name(config: HardwareConfig) -> str:
    cc = config.compute
    return f"matrix {cc.rows}x{cc.cols}" if cc.kind == "matrix" else f"vector {cc.lanes} lanes"


def peak_compute_cycles(config: HardwareConfig, macs: int, alu_ops: int, special_ops: int,
                        nests: Sequence[NestFigures] | None = None) -> int:
    """The fewest cycles the machine's compute can do the program's ops in. With the input
    program's top-level `nests` (`CompulsoryTraffic.nests`): per nest, its MACs at the best
    rate any unit reaches on that nest by the kernel cost model (a row reduction or a mat-vec
    maps one column of the array: `rows` MACs a cycle), the rest on the lanes
    (`accelsim.cost.peak`). Without them (work outside top-level nests): the run's MACs on the
    matrix array at its full rate (or the lanes, if faster), everything else on the lanes
    (special ops at their issue cost), with no per-kernel rounding or unit choice."""
    if nests is not None:
        return program_peak_cycles(config, nests)
    cc = config.compute
    rest = alu_ops + special_ops * cc.special_op_cycles
    on_lanes = -(-(macs + rest) // cc.lanes)
    if cc.kind != "matrix":
        return on_lanes
    return min(on_lanes, -(-macs // (cc.rows * cc.cols)) + -(-rest // cc.lanes))


def peak_dram_bytes_per_cycle(config: HardwareConfig) -> int | float:
    """All channels' peak: the one function every report, roofline and DSE figure reads DRAM
    bandwidth through (with `dram.model = "timing"` the technology's effective peak,
    `bandwidth_view`, never the bandwidth key it does not read)."""
    d = config.bandwidth_view().dram
    return as_rate(d.channels * d.bandwidth_bytes_per_cycle)


def latency_floor(config: HardwareConfig, read_bytes: int, written_bytes: int) -> int:
    """The fewest cycles the dependent DRAM chain of the program takes, which the roofline
    ignores: every compulsory input byte is read because some output depends on it, so the last
    input byte arrives no sooner than one DRAM latency plus all the input bytes at the peak
    bandwidth, and an output depending on it is written no sooner than one more DRAM latency
    after that (compute and DMA setup count as 0: a lower bound).
    = L + ceil(R / peak) + L with inputs and outputs; L + ceil(bytes / peak) with only one
    kind; 0 without DRAM traffic. L = `dram.latency_cycles` (with the timing model: the
    technology's, `bandwidth_view`)."""
    peak = peak_dram_bytes_per_cycle(config)
    lat = config.bandwidth_view().dram.latency_cycles
    if read_bytes and written_bytes:
        return lat + cycles_for(read_bytes, peak) + lat
    if read_bytes or written_bytes:
        return lat + cycles_for(read_bytes + written_bytes, peak)
    return 0


def write_chain(config: HardwareConfig, read_bytes: int, derived_bytes: int) -> int:
    """The fewest cycles the program's input-derived writes take, which neither the roofline
    nor the latency floor counts: `derived_bytes` of outputs hold values computed from an
    input (`compiler.analysis.input_derived`). The first input byte is on chip no sooner
    than one DMA setup and one DRAM latency after the start; a write of such a value is a
    DMA too, whose transfer starts one setup after it is issued; all of them pass the DRAM
    at the peak bandwidth, and the last completes one latency after its transfer (compute
    counts as 0; a kernel's direct DRAM access pays a whole latency per access, never
    less). = S + L + S + ceil(W / peak) + L; 0 without inputs or such writes. It explains,
    not redefines: the floor stays `latency_floor`, and where this chain is above 1.5x of
    max(roofline, floor) no schedule comes within 1.5x of it."""
    if not (read_bytes and derived_bytes):
        return 0
    view = config.bandwidth_view()
    lat, setup = view.dram.latency_cycles, view.dma.setup_cycles
    return 2 * (setup + lat) + cycles_for(derived_bytes, peak_dram_bytes_per_cycle(config))


def critical_path(config: HardwareConfig, recurrence: object | None) -> tuple[int, str]:
    """The critical-path bound (`compiler.analysis.recurrence`): the longest chain of flow
    dependences of the program as written, its ordinary ops one cycle each and its special
    ops `compute.special_op_cycles`, and its description; (0, "") without one."""
    if recurrence is None:
        return 0, ""
    from compiler.analysis.recurrence import CriticalPath

    assert isinstance(recurrence, CriticalPath)
    special = config.compute.special_op_cycles
    cycles = recurrence.cycles(special)
    what = (f"a chain of {recurrence.plain + recurrence.special:,} dependent ops "
            f"({recurrence.plain:,} x 1 cycle"
            + (f" + {recurrence.special:,} special x {special}" if recurrence.special else "")
            + f") ending in {recurrence.memref}"
            + (f", found in the first {recurrence.ops:,} ops the program runs"
               if recurrence.truncated else "") + f" (function at {recurrence.loc})")
    return cycles, what


def honest_roofline(config: HardwareConfig, ops: int, compute_cycles: int,
                    compulsory_bytes: int, read_bytes: int | None = None,
                    derived_bytes: int = 0, recurrence: object | None = None) -> Roofline:
    """The roofline of the program on the machine: peak compute, compulsory DRAM traffic;
    with `read_bytes` (of the compulsory ones) also the latency floor (`latency_floor`)."""
    peak = peak_dram_bytes_per_cycle(config)
    floor = chain = 0
    if read_bytes is not None:
        floor = latency_floor(config, read_bytes, compulsory_bytes - read_bytes)
        chain = write_chain(config, read_bytes, derived_bytes)
    crit, what = critical_path(config, recurrence)
    return Roofline(ops, compulsory_bytes, compute_cycles, cycles_for(compulsory_bytes, peak), peak,
                    compute_unit_name(config), latency_floor_cycles=floor,
                    write_chain_cycles=chain, critical_path_cycles=crit, critical_path_what=what)


def io_lower_bound(traffic: CompulsoryTraffic, sram_bytes: int) -> IoLowerBound:
    """max(compulsory, 2·MACs/√S + |C| words) for a gemm-like contraction with S words of SRAM
    (Kwasniewski et al., SC 2019); None with the reason for anything else."""
    if not traffic.known:
        return IoLowerBound(None, f"none known: compulsory traffic unknown ({traffic.unknown_reason})")
    c = traffic.contraction.contraction
    if c is None:
        return IoLowerBound(None, f"none known: {traffic.contraction.reason}")
    slow = {a.name for a in traffic.arguments}
    outside = [n for n in (c.output, c.left, c.right) if n not in slow]
    if outside:
        return IoLowerBound(None, f"none known: operand %{outside[0]} of the contraction is not in "
                                  f"DRAM (memory space {traffic.memory_space})")
    words = sram_bytes // c.element_bytes
    if words < 1:
        return IoLowerBound(None, "none known: the SRAM holds no element")
    # floor: the bound stays a lower bound whatever the float rounding
    pebbling = math.floor(2 * c.macs / math.sqrt(words)) + c.output_elements
    nbytes = max(pebbling * c.element_bytes, traffic.bytes)
    which = "2·MACs/√S + |C|" if pebbling * c.element_bytes >= traffic.bytes else "compulsory"
    return IoLowerBound(nbytes, f"{c.describe()}, S = {words:,} words of SRAM: "
                                f"max(compulsory, 2·MACs/√S + |C|) = {which} (Kwasniewski et al. 2019)")


def traffic_figures(traffic: CompulsoryTraffic | None, moved_bytes: int) -> dict[str, int | float | None]:
    """`compulsory_bytes` and `traffic_ratio` (moved / compulsory) where no trace gives a full
    report (the analytic estimate)."""
    if traffic is None or not traffic.known:
        return {"compulsory_bytes": None, "traffic_ratio": None}
    need = traffic.bytes
    return {"compulsory_bytes": need, "traffic_ratio": moved_bytes / need if need else None}


def input_traffic(module: ModuleOp | FuncOp, func: str | None, config: HardwareConfig) -> CompulsoryTraffic:
    """The compulsory DRAM traffic of `module` as given (call it on the program *before* the
    accelerator pipeline: the compiled one moves bounding boxes); unknown, with the analysis'
    reason, when an access is beyond it."""
    name = func or (module.sym_name if isinstance(module, FuncOp) else "")
    try:
        return compulsory_traffic(module, func, memory_space=config.spaces.dram)
    except DiagnosticError as exc:
        return CompulsoryTraffic.unknown(name, config.spaces.dram, str(exc))


__all__ = ["IoLowerBound", "Roofline", "compute_unit_name", "honest_roofline", "input_traffic",
           "latency_floor", "write_chain", "critical_path",
           "io_lower_bound", "peak_compute_cycles", "peak_dram_bytes_per_cycle", "traffic_figures"]
