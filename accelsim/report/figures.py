"""What a simulation means to an architect, derived only from its `Trace` (its records, or the
streaming summary a run keeps instead: `accelsim.trace.summary`, the same figures, see
`trace_figures`), the hardware config,
the program's event counts (`RunStats`) and its compulsory traffic: totals, a row per unit, DMA
time split into hidden (overlapped by compute) and exposed (control stalled waiting) per buffer
and `dma_start` location, the honest roofline and the ratio to it, the traffic the schedule
moved against what the program needs, SRAM peak, energy.

    traffic = input_traffic(module, None, config)       # before the accelerator pipeline
    report = Report.from_result(simulate(compiled, config), traffic)
    print(report.format_table())
    print(compare(report_a, report_b, ("as-is", "default")))

Definitions (all in cycles of the config clock):
- busy cycles of a unit: the union of its intervals; utilization = busy / total cycles.
- DMA busy: the union over every engine. hidden = DMA busy while a compute unit is busy;
  exposed = control-processor stall cycles (waiting on a tag or a full descriptor queue) while
  no compute unit is busy. overlap_fraction = hidden / the shorter of DMA busy and compute busy
  (1.0 = the smaller activity is fully hidden under the other; 0 when either is absent);
  dma_hidden_fraction = hidden / DMA busy.
- DRAM bytes: moved on the channels (burst granular); `read`/`write` records count as read /
  written, a DRAM-to-DRAM `copy` separately (it counts towards the moved bytes and energy).
- roofline (`roofline`, honest): ops = 2 x MACs + ALU ops + special ops; the compute roof is
  those ops at the machine's peak, the bandwidth roof the *compulsory* DRAM bytes (each input
  element read once, each output element written once, from the input program's access
  relations) / (channels x bytes per cycle); roofline cycles = the larger, ratio = cycles / it.
  None when the compulsory traffic was not given or could not be analysed.
- schedule roofline (`schedule_roofline`): the kernels' ideal cycles (no fill/drain) and the
  DRAM bytes the schedule *moved*; traffic_ratio = moved / compulsory.
- I/O lower bound (`io_bound`): for a gemm-like contraction with S words of SRAM, max(compulsory,
  2·MACs/√S + |C| words) (Kwasniewski et al. 2019); io_bound_ratio = moved / it. See roofline.py.
- energy (pJ, the config's [energy] table): DRAM bytes moved, SRAM bytes through the ports
  (kernels + DMAs), MACs / ALU / special ops, and static = static_mw x the run's seconds.
- SRAM peak: the run's allocation high-water mark (passed in with the counters).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import numpy as np

from accelsim.config import HardwareConfig
from accelsim.cost import precision
from accelsim.cost.energy import Energy, technology_of
from accelsim.cost.energy import energy as energy_of
from accelsim.cost.rate import cycles_for
from accelsim.report.levels import (
    LevelRow,
    LinkRow,
    hierarchical_roofline,
    level_rows,
    link_rows,
    link_units,
    port_units,
)
from accelsim.report.roofline import (
    IoLowerBound,
    Roofline,
    compute_unit_name,
    honest_roofline,
    io_lower_bound,
    peak_compute_cycles,
    peak_dram_bytes_per_cycle,
)
from accelsim.report.text import num, pct, plural, table
from accelsim.trace import Trace, TraceRecord
from accelsim.trace.coverage import Coverage
from accelsim.trace.summary import BufferFigures, SummaryFigures
from compiler.analysis.compulsory import CompulsoryTraffic

UNIT_ORDER = ("cp", "dma", "dram", "port", "compute")


def unit_sort_key(unit: str) -> tuple[int, str, int, str]:
    """Control first, then DMA engines (link by link), DRAM channels, level ports, compute
    units; numeric within a group."""
    for rank, prefix in enumerate(UNIT_ORDER):
        if unit.startswith(prefix):
            stem = unit.rstrip("0123456789")
            digits = unit[len(stem):]
            return rank, stem, int(digits) if digits else 0, unit
    return len(UNIT_ORDER), unit, 0, unit


def unit_group(unit: str) -> str:
    """`control`, `dma`, `dram`, `port` (an on-chip level's ports), `compute` or `other`."""
    if unit == "cp":
        return "control"
    for prefix in UNIT_ORDER[1:]:
        if unit.startswith(prefix):
            return prefix
    return "other"


@dataclass(frozen=True, slots=True)
class UnitRow:
    """One hardware unit: busy cycles (union of its intervals), utilization, bytes it moved."""

    unit: str
    group: str
    busy_cycles: int
    utilization: float
    bytes: int
    intervals: int
    bytes_per_cycle: float = 0.0   # bytes over the whole run's cycles (achieved bandwidth)

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "group": self.group, "busy_cycles": self.busy_cycles,
                "utilization": self.utilization, "bytes": self.bytes, "intervals": self.intervals,
                "bytes_per_cycle": self.bytes_per_cycle}


@dataclass(frozen=True, slots=True)
class PrecisionRow:
    """The run's MACs of one precision (`accelsim.cost.precision`): on which unit, at what
    rate relative to its native precision, at how many pJ each."""

    dtype: str
    acc: str
    unit: str                # "matrix RxC" or "lanes"
    macs: int
    rate: float | None       # the unit's rate for the precision (None: not in its table)
    native: str              # the unit's native precision
    mac_pj: float

    @property
    def precision(self) -> str:
        return f"{self.dtype}->{self.acc}" if self.acc and self.acc != self.dtype else self.dtype

    def to_dict(self) -> dict[str, Any]:
        return {"precision": self.precision, "dtype": self.dtype, "acc": self.acc,
                "unit": self.unit, "macs": self.macs, "rate": self.rate,
                "native_dtype": self.native, "mac_pj": self.mac_pj}


def precision_rows(config: HardwareConfig, stats: Any) -> tuple[PrecisionRow, ...]:
    """One row per (precision, accumulator, unit) of the run's MACs, the most MACs first."""
    cc = config.compute
    rows = []
    for (dt, acc, unit), n in (getattr(stats, "macs_by_dtype", None) or {}).items():
        on_array = unit == "array"
        rows.append(PrecisionRow(
            dt, acc, f"matrix {cc.rows}x{cc.cols}" if on_array else f"lanes {cc.lanes}", int(n),
            (precision.mac_rate if on_array else precision.lane_rate)(cc, dt), cc.native_dtype,
            precision.mac_pj(config.energy, dt, acc)))
    return tuple(sorted(rows, key=lambda r: (-r.macs, r.dtype, r.unit)))


@dataclass(frozen=True, slots=True)
class BufferRow:
    """The DMAs of one `dma_start` (label `src->dst`, its IR location): how much of their time
    compute hid, and how long the control processor stalled waiting for them."""

    label: str
    loc: str
    direction: str          # "in" (DRAM -> SRAM), "out" (SRAM -> DRAM), "copy"
    transfers: int
    bytes: int
    dma_cycles: int          # sum of engine-busy durations
    hidden_cycles: int       # of those, overlapped by a busy compute unit
    exposed_cycles: int      # control stalled waiting for these transfers, compute idle

    def to_dict(self) -> dict[str, Any]:
        return {"buffer": self.label, "loc": self.loc, "direction": self.direction,
                "transfers": self.transfers, "bytes": self.bytes, "dma_cycles": self.dma_cycles,
                "hidden_cycles": self.hidden_cycles, "exposed_cycles": self.exposed_cycles}


@dataclass(frozen=True, slots=True)
class Report:
    cycles: int
    clock_ghz: float
    config: str
    func: str
    units: tuple[UnitRow, ...]
    buffers: tuple[BufferRow, ...]
    dram_bytes_read: int
    dram_bytes_written: int
    dram_bytes_copied: int
    dma_busy_cycles: int
    compute_busy_cycles: int
    hidden_dma_cycles: int
    exposed_dma_cycles: int
    stall_cycles: int
    schedule_roofline: Roofline      # kernels' ideal cycles, the DRAM bytes moved
    roofline: Roofline | None        # honest: peak compute, compulsory DRAM bytes
    compulsory: CompulsoryTraffic | None
    io_bound: IoLowerBound | None
    sram_peak_bytes: int
    sram_capacity_bytes: int
    energy: Energy
    macs: int
    alu_ops: int
    special_ops: int
    dma_ops: int
    kernel_calls: int
    flags: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # the program is likely wrong (a dma_start never waited on)
    extra: Mapping[str, Any] = field(default_factory=dict)
    levels: tuple[LevelRow, ...] = ()   # one per memory level, DRAM first (report/levels.py)
    links: tuple[LinkRow, ...] = ()     # one per link, in chain order
    hierarchy: bool = False             # the config has more than two memory levels
    dataflow: str = "fixed"          # compute.dataflow of a matrix unit ("" on a vector unit)
    array_folds: int = 0             # folds under a systolic dataflow
    array_pe_used: int = 0           # PEs mapped, summed over the folds
    array_pes: int = 0               # rows x cols
    precisions: tuple[PrecisionRow, ...] = ()  # the MACs by precision and unit
    peak_macs_per_cycle: int = 0     # the compute unit's MACs a cycle (rows x cols, or lanes)
    energy_technology: str = ""      # the energy table the [energy] figures come from

    # ---- construction ------------------------------------------------------------------
    @staticmethod
    def build(trace: Trace, config: HardwareConfig, stats: Any, sram_peak_bytes: int = 0,
              cycles: int | None = None, func: str = "", flags: Iterable[str] = (),
              compulsory: CompulsoryTraffic | None = None,
              level_peaks: Mapping[str, int] | None = None,
              warnings: Iterable[str] = ()) -> Report:
        """From a trace, the config it ran on, the run's counters (`RunStats`, or any object
        with `macs`, `alu_ops`, `special_ops`, `kernel_sram_bytes`, `dma_sram_bytes`,
        `ideal_compute_cycles`, `dma_ops`, `kernel_calls`) and the compulsory traffic of the
        program before compilation (`roofline.input_traffic`; without it the honest roofline
        figures are None)."""
        tf = trace_figures(trace)
        if cycles is None:
            cycles = trace.metadata.get("cycles")
        total = int(cycles if cycles is not None else tf.end)
        names = sorted(set(expected_units(config)) | set(tf.units), key=unit_sort_key)
        units = tuple(_unit_row(u, tf.units.get(u, (0, 0, 0)), total) for u in names)
        dma_busy, comp_busy, stall = tf.dma_busy, tf.compute_busy, tf.stall
        hidden, exposed = tf.hidden, tf.exposed
        read, written, copied = tf.dram_read, tf.dram_written, tf.dram_copied
        moved = read + written + copied
        peak_bw = peak_dram_bytes_per_cycle(config)
        macs, alu, special = int(stats.macs), int(stats.alu_ops), int(stats.special_ops)
        ops = 2 * macs + alu + special
        sram_bw = config.sram.bytes_per_cycle
        roof = Roofline(ops, moved, int(stats.ideal_compute_cycles), cycles_for(moved, peak_bw),
                        peak_bw, compute_unit_name(config),
                        -(-int(stats.kernel_sram_bytes) // sram_bw), sram_bw)
        honest = io = None
        if compulsory is not None:
            io = io_lower_bound(compulsory, config.sram.capacity_bytes)
            if compulsory.known:
                peak = peak_compute_cycles(config, macs, alu, special, compulsory.nests)
                # never above what this schedule's kernels need at their ideal rate: the
                # per-nest roof maps each input nest whole, a tiled kernel can map better
                # (2mm NI=32, NJ=3, NK=19, NL=6: 170 per nest, 153 tiled)
                ideal = int(stats.ideal_compute_cycles)
                if 0 < ideal < peak:
                    peak = ideal
                honest = honest_roofline(config, ops, peak,
                                         compulsory.bytes, compulsory.read_bytes,
                                         compulsory.input_derived_written_bytes,
                                         compulsory.recurrence)

        seconds = total / (config.clock_ghz * 1e9)
        buffers = _buffer_rows(tf)
        if level_peaks is None:  # a trace read back keeps them in its metadata
            level_peaks = trace.metadata.get("level_peaks") or {}
        levels = level_rows(config, tf, stats, level_peaks, sram_peak_bytes, buffers)
        links = link_rows(config, trace, tf, total)
        per_level: dict[str, float] = {}
        if not config.single_link:  # per level: its bytes at its own energies
            per_level = {"dram_pj": levels[0].energy_pj,
                         "sram_pj": sum(lv.energy_pj for lv in levels[1:])}
        energy = energy_of(config, dram_bytes=moved,
                           sram_bytes=int(stats.kernel_sram_bytes) + int(stats.dma_sram_bytes),
                           macs=int(stats.macs), alu_ops=int(stats.alu_ops),
                           special_ops=int(stats.special_ops), seconds=seconds,
                           compute_pj=getattr(stats, "compute_pj", None),
                           units_pj=float(trace.metadata.get("unit_energy_pj", 0.0)), **per_level)
        return Report(
            cycles=total, clock_ghz=config.clock_ghz, config=config.name,
            func=func or str(trace.metadata.get("func", "")), units=units,
            buffers=buffers, dram_bytes_read=read,
            dram_bytes_written=written, dram_bytes_copied=copied, dma_busy_cycles=dma_busy,
            compute_busy_cycles=comp_busy,
            hidden_dma_cycles=hidden, exposed_dma_cycles=exposed, stall_cycles=stall,
            schedule_roofline=roof, roofline=honest, compulsory=compulsory, io_bound=io,
            sram_peak_bytes=int(sram_peak_bytes),
            sram_capacity_bytes=config.sram.capacity_bytes, energy=energy, macs=int(stats.macs),
            alu_ops=int(stats.alu_ops), special_ops=int(stats.special_ops),
            dma_ops=int(stats.dma_ops), kernel_calls=int(stats.kernel_calls), flags=tuple(flags),
            levels=levels, links=links, hierarchy=not config.single_link,
            dataflow=config.compute.dataflow if config.compute.kind == "matrix" else "",
            array_folds=int(getattr(stats, "array_folds", 0)),
            array_pe_used=int(getattr(stats, "array_pe_used", 0)),
            array_pes=config.compute.rows * config.compute.cols,
            precisions=precision_rows(config, stats),
            peak_macs_per_cycle=config.compute.macs_per_cycle,
            energy_technology=technology_of(config),
            warnings=tuple(warnings))

    @staticmethod
    def from_result(result: Any, compulsory: CompulsoryTraffic | None = None) -> Report:
        """From an `accelsim.sim.simulate.SimResult` and the compulsory traffic of the program
        it was compiled from. A dma_start never waited on is a warning, not a note."""
        warnings = tuple(getattr(result.stats, "unwaited", ()))
        return Report.build(result.trace, result.config, result.stats, result.sram_peak_bytes,
                            cycles=result.cycles, func=result.func,
                            flags=[f for f in result.flags if f not in warnings],
                            compulsory=compulsory, warnings=warnings,
                            level_peaks=getattr(result, "level_peaks", None))

    # ---- derived -----------------------------------------------------------------------
    @property
    def mapping_efficiency(self) -> float | None:
        """SCALE-Sim's mapping efficiency over every fold the matrix unit ran under a systolic
        dataflow (None: no such fold)."""
        if not self.array_folds or not self.array_pes:
            return None
        return self.array_pe_used / (self.array_folds * self.array_pes)

    @property
    def seconds(self) -> float:
        return self.cycles / (self.clock_ghz * 1e9)

    @property
    def compute_utilization(self) -> float:
        return self.compute_busy_cycles / self.cycles if self.cycles else 0.0

    @property
    def array_busy_fraction(self) -> float:
        """Busy time: the cycles the compute unit ran a kernel / the run's cycles (what
        `compute_utilization` has always been). Compare `mac_utilization`."""
        return self.compute_utilization

    @property
    def mac_utilization(self) -> float | None:
        """Useful work: MACs / (cycles x the unit's peak MACs a cycle); a busy array whose
        PEs are partly idle (a narrow tile, fill and drain) has it below `array_busy_fraction`.
        The peak is the array's rate for the MACs' precisions (`compute.macs_rate`: bf16 at
        0.5 peaks at half the PEs' native MACs) when every MAC ran on the array. None without
        a peak."""
        den = self.cycles * self.peak_macs_per_cycle
        if not den:
            return None
        rows = self.precisions
        if rows and all(r.unit.startswith("matrix") and r.rate for r in rows) \
                and sum(r.macs for r in rows) == self.macs:
            return sum(r.macs / r.rate for r in rows) / den  # type: ignore[operator]
        return self.macs / den

    @property
    def dma_utilization(self) -> float:
        return self.dma_busy_cycles / self.cycles if self.cycles else 0.0

    @property
    def overlap_fraction(self) -> float:
        shorter = min(self.dma_busy_cycles, self.compute_busy_cycles)
        return self.hidden_dma_cycles / shorter if shorter else 0.0

    @property
    def dma_hidden_fraction(self) -> float:
        return self.hidden_dma_cycles / self.dma_busy_cycles if self.dma_busy_cycles else 0.0

    @property
    def roofline_ratio(self) -> float | None:
        """cycles / the honest roofline (None without the compulsory traffic)."""
        return None if self.roofline is None else self.roofline.ratio(self.cycles)

    @property
    def schedule_roofline_ratio(self) -> float:
        """cycles / the roofline of the bytes the schedule moved."""
        return self.schedule_roofline.ratio(self.cycles)

    @property
    def dram_bytes(self) -> int:
        """DRAM bytes moved (read, written and copied)."""
        return self.schedule_roofline.dram_bytes

    @property
    def traffic_ratio(self) -> float | None:
        """DRAM bytes moved / compulsory bytes (1.0 = every input read once, every output
        written once; None when unknown or when the program needs no DRAM bytes)."""
        if self.compulsory is None or not self.compulsory.known or not self.compulsory.bytes:
            return None
        return self.dram_bytes / self.compulsory.bytes

    @property
    def io_bound_ratio(self) -> float | None:
        """DRAM bytes moved / the I/O lower bound for the SRAM size (None: none known)."""
        b = self.io_bound.bytes if self.io_bound is not None else None
        return None if not b else self.dram_bytes / b

    @property
    def dram_bytes_per_cycle(self) -> float:
        """Achieved DRAM bandwidth over the whole run (compare `peak_bytes_per_cycle`)."""
        return self.dram_bytes / self.cycles if self.cycles else 0.0

    @property
    def achieved_ops_per_cycle(self) -> float:
        return self.schedule_roofline.ops / self.cycles if self.cycles else 0.0

    @property
    def busiest(self) -> UnitRow:
        """The hardware unit busy the longest (the control processor's stalls are not work)."""
        rows = [u for u in self.units if u.group != "control"] or list(self.units)
        return max(rows, key=lambda u: (u.busy_cycles, -unit_sort_key(u.unit)[0]))

    def unit(self, name: str) -> UnitRow:
        for row in self.units:
            if row.unit == name:
                return row
        raise KeyError(f"no unit {name!r} in the report (units: {', '.join(r.unit for r in self.units)})")

    def to_dict(self) -> dict[str, Any]:
        """What `--json` prints: the flat figures, then the unit and buffer rows as lists."""
        return {**self.figures(), "units": [u.to_dict() for u in self.units],
                "buffers": [b.to_dict() for b in self.buffers],
                "levels": [lv.to_dict() for lv in self.levels],
                "links": [lk.to_dict() for lk in self.links],
                "precisions": [p.to_dict() for p in self.precisions]}

    @property
    def hierarchical_roofline(self) -> tuple[int, str]:
        """(cycles, bound) of the roofline with one ceiling per link (`report/levels.py`)."""
        return hierarchical_roofline(self.schedule_roofline.compute_cycles, self.links)

    def figures(self) -> dict[str, Any]:
        """Scalar figures only (and `flags`), e.g. for one row of a DSE result table."""
        s = self.schedule_roofline
        return {
            "config": self.config, "func": self.func, "cycles": self.cycles,
            "seconds": self.seconds, "clock_ghz": self.clock_ghz,
            "dram_bytes_read": self.dram_bytes_read, "dram_bytes_written": self.dram_bytes_written,
            "dram_bytes_copied": self.dram_bytes_copied, "dram_bytes": self.dram_bytes,
            "compute_utilization": self.compute_utilization,
            "array_busy_fraction": self.array_busy_fraction,
            "mac_utilization": self.mac_utilization, "peak_macs_per_cycle": self.peak_macs_per_cycle,
            "dma_utilization": self.dma_utilization, "overlap_fraction": self.overlap_fraction,
            "dma_hidden_fraction": self.dma_hidden_fraction,
            "dma_busy_cycles": self.dma_busy_cycles, "compute_busy_cycles": self.compute_busy_cycles,
            "hidden_dma_cycles": self.hidden_dma_cycles, "exposed_dma_cycles": self.exposed_dma_cycles,
            "stall_cycles": self.stall_cycles,
            **self.roofline_figures(), "ops": s.ops,
            "schedule_roofline_cycles": s.cycles,
            "schedule_roofline_ratio": self.schedule_roofline_ratio if s.cycles else None,
            "schedule_roofline_bound": s.bound, "schedule_roofline_compute_cycles": s.compute_cycles,
            "schedule_roofline_bandwidth_cycles": s.bandwidth_cycles,
            "schedule_operational_intensity": s.intensity if s.dram_bytes else None,
            "roofline_sram_cycles": s.sram_cycles, "sram_bound": s.sram_bound,
            "achieved_ops_per_cycle": self.achieved_ops_per_cycle,
            "busiest_unit": self.busiest.unit, "busiest_utilization": self.busiest.utilization,
            "dram_bytes_per_cycle": self.dram_bytes_per_cycle,
            "dram_peak_bytes_per_cycle": s.peak_bytes_per_cycle,
            "sram_peak_bytes": self.sram_peak_bytes, "sram_capacity_bytes": self.sram_capacity_bytes,
            "energy_pj": self.energy.total_pj, "energy_dram_pj": self.energy.dram_pj,
            "energy_sram_pj": self.energy.sram_pj, "energy_compute_pj": self.energy.compute_pj,
            "energy_static_pj": self.energy.static_pj, "energy_technology": self.energy_technology,
            **({"energy_units_pj": self.energy.units_pj} if self.energy.units_pj else {}),
            "macs": self.macs, "alu_ops": self.alu_ops, "special_ops": self.special_ops,
            "dma_ops": self.dma_ops, "kernel_calls": self.kernel_calls,
            "hierarchical_roofline_cycles": self.hierarchical_roofline[0],
            "hierarchical_roofline_bound": self.hierarchical_roofline[1],
            "dataflow": self.dataflow or None, "array_folds": self.array_folds,
            "precision": ",".join(p.precision for p in self.precisions) or None,
            "precision_rate": self.precisions[0].rate if self.precisions else None,
            "mapping_efficiency": self.mapping_efficiency,
            "flags": list(self.flags), "warnings": list(self.warnings),
            **dict(self.extra),
        }

    def _precision_lines(self) -> list[str]:
        """One line per MAC precision: its unit, the unit's rate for it, pJ a MAC."""
        out = []
        for k, p in enumerate(self.precisions):
            rate = "not in its rate table" if p.rate is None else f"{p.rate:g}x its native {p.native} rate"
            out.append(f"  {'precision' if k == 0 else '':<9}  {p.precision}: {p.macs:,} MACs on the "
                       f"{p.unit} at {rate}, {p.mac_pj:.3g} pJ a MAC")
        return out

    def _array_lines(self) -> list[str]:
        """The matrix unit's dataflow line (only under a systolic dataflow)."""
        if self.dataflow in ("", "fixed"):
            return []
        eff = self.mapping_efficiency
        return [f"  array      {self.dataflow} dataflow, {plural(self.array_folds, 'fold')}, mapping "
                f"efficiency {pct(eff) if eff is not None else '-'}"]

    def roofline_figures(self) -> dict[str, Any]:
        """The honest roofline, the compulsory traffic and the I/O bound (None where unknown)."""
        r, c, io = self.roofline, self.compulsory, self.io_bound
        known = c is not None and c.known
        return {
            "roofline_cycles": r.cycles if r is not None else None,
            "roofline_ratio": self.roofline_ratio if r is not None and r.cycles else None,
            "roofline_bound": r.bound if r is not None else None,
            "roofline_compute_cycles": r.compute_cycles if r is not None else None,
            "roofline_bandwidth_cycles": r.bandwidth_cycles if r is not None else None,
            "latency_floor_cycles": r.latency_floor_cycles if r is not None else None,
            "latency_floor_ratio": (self.cycles / r.latency_floor_cycles
                                    if r is not None and r.latency_floor_cycles else None),
            "latency_bound": r.latency_bound if r is not None else None,
            "write_chain_cycles": r.write_chain_cycles if r is not None else None,
            "critical_path_cycles": r.critical_path_cycles if r is not None else None,
            "critical_path": r.critical_path_what if r is not None else None,
            "operational_intensity": r.intensity if r is not None and r.dram_bytes else None,
            "roofline_basis": self.roofline_basis,
            "compulsory_bytes": c.bytes if known else None,  # type: ignore[union-attr]
            "compulsory_bytes_read": c.read_bytes if known else None,  # type: ignore[union-attr]
            "compulsory_bytes_written": c.written_bytes if known else None,  # type: ignore[union-attr]
            "compulsory_exact": c.exact if known else None,  # type: ignore[union-attr]
            "traffic_ratio": self.traffic_ratio,
            "io_lower_bound_bytes": io.bytes if io is not None else None,
            "io_bound_ratio": self.io_bound_ratio,
            "io_bound": io.description if io is not None else "none known: compulsory traffic not given",
        }

    @property
    def roofline_basis(self) -> str:
        """What the honest roofline's bandwidth roof is, or why there is none."""
        c = self.compulsory
        if c is None:
            return "unknown: compulsory traffic not given (Report.build(..., compulsory=...))"
        if not c.known:
            return f"unknown: {c.unknown_reason}"
        return ("compulsory traffic: each input element read once, each output element written "
                "once" + ("" if c.exact else " (a lower bound: some DMA ranges were not modelled)"))

    def _hierarchy_lines(self) -> list[str]:
        """The memory levels, the links and the hierarchical roofline (a multi-level run)."""
        cycles, bound = self.hierarchical_roofline
        ceilings = ", ".join([f"compute {self.schedule_roofline.compute_cycles:,}"]
                             + [f"{lk.name} {lk.ceiling_cycles:,}" for lk in self.links])
        lines = table(["level", "space", "capacity", "peak", "read B", "written B", "energy uJ"],
                      [[lv.name, str(lv.space), f"{lv.capacity_bytes:,}", f"{lv.peak_bytes:,}",
                        f"{lv.bytes_read:,}", f"{lv.bytes_written:,}", f"{lv.energy_pj / 1e6:,.4g}"]
                       for lv in self.levels])
        lines.append("")
        lines += table(["link", "engines", "bytes", "busy cycles", "B/cycle", "peak", "ceiling",
                        "hidden", "exposed"],
                       [[lk.name, str(lk.engines), f"{lk.bytes:,}", f"{lk.busy_cycles:,}",
                         f"{lk.achieved_bytes_per_cycle:.2f}", str(lk.peak_bytes_per_cycle),
                         f"{lk.ceiling_cycles:,}", f"{lk.hidden_cycles:,}", f"{lk.exposed_cycles:,}"]
                        for lk in self.links])
        lines.append(f"  hierarchical roofline {cycles:,} cycles, bound by {bound} "
                     f"(ceilings: {ceilings}); ratio {self.cycles / cycles if cycles else 0:.2f}")
        lines.append("")
        return lines

    def _roofline_lines(self) -> list[str]:
        r, s = self.roofline, self.schedule_roofline
        if r is None:
            lines = [f"  roofline   {self.roofline_basis}"]
        else:
            lines = [f"  roofline   {r.cycles:,} cycles, {r.describe()}; run is "
                     + (f"{self.roofline_ratio:.3f}x the roofline" if r.cycles
                        else "n/a (no ops, no DRAM traffic)"),
                     f"             {r.ops:,} ops; compulsory DRAM traffic {r.dram_bytes:,} B "
                     f"({self.compulsory.read_bytes:,} read, {self.compulsory.written_bytes:,} "  # type: ignore[union-attr]
                     f"written), intensity {num(r.intensity)} ops/B; achieved "
                     f"{self.achieved_ops_per_cycle:.4g} ops/cycle"]
            if r.latency_floor_cycles:
                f = r.latency_floor_cycles
                lines.append(f"  latency    floor {f:,} cycles (DRAM read -> dependent write chain); "
                             + (f"run is latency-bound: the floor is {f / r.cycles:.2f}x the roofline, "
                                f"run is {self.cycles / f:.3f}x the floor" if r.latency_bound
                                else f"run is {self.cycles / f:.3f}x it (not latency-bound)"))
            cp = r.critical_path_cycles
            if cp:
                lines.append(f"  critical   path {cp:,} cycles: {r.critical_path_what}; "
                             + (f"the run is bound by this recurrence whatever the schedule, and is "
                                f"{self.cycles / cp:.3f}x it" if r.critical_path_bound
                                else f"run is {self.cycles / cp:.3f}x it (not bound by it)"))
            w = r.write_chain_cycles
            if w > r.floor_cycles:
                derived = self.compulsory.input_derived_written_bytes  # type: ignore[union-attr]
                lines.append(f"  writes     chain {w:,} cycles ({derived:,} B "
                             "of outputs computed from inputs leave after the first input arrives: "
                             f"setup + L + setup + bytes / peak + L) = {w / r.floor_cycles:.2f}x "
                             f"max(roofline, floor); run is {self.cycles / w:.3f}x the chain"
                             + ("; no schedule comes within 1.5x of max(roofline, floor)"
                                if w > 1.5 * r.floor_cycles else ""))
            if self.compulsory is not None and not self.compulsory.exact:
                lines.append("             (compulsory traffic is a lower bound: some DMA ranges "
                             "were not modelled)")
        tr = self.traffic_ratio
        lines.append(f"  traffic    {s.dram_bytes:,} DRAM bytes moved"
                     + (f" = {num(tr)}x the compulsory" if tr is not None else "")
                     + f"; schedule roofline {s.cycles:,} cycles (run is "
                     + (f"{self.schedule_roofline_ratio:.3f}x it)" if s.cycles else "n/a)"))
        io = self.io_bound
        if io is not None and io.bytes:
            lines += [f"  I/O bound  {io.bytes:,} B for {self.sram_capacity_bytes // 1024:,} KiB of SRAM; "
                      f"moved is {self.io_bound_ratio:.3f}x it", f"             {io.description}"]
        elif io is not None:
            lines.append(f"  I/O bound  {io.description}")
        if s.sram_bound:
            lines.append(f"             kernels are SRAM-bound: their SRAM traffic at "
                         f"{s.sram_bytes_per_cycle} B/cycle takes {s.sram_cycles:,} cycles; run is "
                         f"{self.cycles / s.sram_cycles:.3f}x that")
        return lines

    def __str__(self) -> str:
        """The text report (`format_table`), as `accelsim run --target sim` prints it."""
        return self.format_table()

    def format_table(self, max_buffers: int = 20) -> str:
        """The readable default output of `accelsim run --target sim`; the DMA rows are the
        `max_buffers` with the most exposed cycles (all of them are in `to_dict()`)."""
        s = self.schedule_roofline
        en = self.energy
        us = self.seconds * 1e6
        lines = [
            f"@{self.func} on '{self.config}': {self.cycles:,} cycles ({us:,.3f} us at "
            f"{self.clock_ghz:g} GHz)",
            *self._roofline_lines(),
            f"  DRAM       {self.dram_bytes_read:,} B read, {self.dram_bytes_written:,} B written"
            + (f", {self.dram_bytes_copied:,} B copied" if self.dram_bytes_copied else "")
            + f"; {self.dram_bytes_per_cycle:.2f} B/cycle of the {s.peak_bytes_per_cycle} peak "
            f"({pct(self.dram_bytes_per_cycle / s.peak_bytes_per_cycle)})",
            f"  SRAM peak  {self.sram_peak_bytes:,} B of {self.sram_capacity_bytes:,} B "
            f"({pct(self.sram_peak_bytes / self.sram_capacity_bytes)})",
            f"  DMA        busy {self.dma_busy_cycles:,} cycles: hidden {self.hidden_dma_cycles:,} "
            f"({pct(self.dma_hidden_fraction)} overlapped by compute), exposed "
            f"{self.exposed_dma_cycles:,} (control stalled)",
            f"  compute    busy {self.compute_busy_cycles:,} cycles (array busy "
            f"{pct(self.array_busy_fraction)}; MAC utilization "
            f"{pct(self.mac_utilization) if self.mac_utilization is not None else '-'}), "
            f"{plural(self.kernel_calls, 'kernel call')}, {plural(self.dma_ops, 'DMA')}",
            *self._array_lines(),
            *self._precision_lines(),
            f"  busiest    {self.busiest.unit} ({pct(self.busiest.utilization)} of the run)"
            if self.busiest.busy_cycles else "  busiest    -",
            f"  energy     {en.total_pj / 1e6:,.4g} uJ ({self.energy_technology or '-'} table): "
            f"DRAM {_share(en.dram_pj, en)}, "
            f"SRAM {_share(en.sram_pj, en)}, compute {_share(en.compute_pj, en)}, "
            f"static {_share(en.static_pj, en)}"
            + (f", units {_share(en.units_pj, en)}" if en.units_pj else ""),
            "",
        ]
        if self.hierarchy:
            lines += self._hierarchy_lines()
        lines += table(["unit", "busy cycles", "util", "bytes", "B/cycle", "intervals"],
                        [[u.unit, f"{u.busy_cycles:,}", pct(u.utilization), f"{u.bytes:,}",
                          f"{u.bytes_per_cycle:.2f}" if u.bytes else "-", f"{u.intervals:,}"]
                         for u in self.units])
        if self.buffers:
            lines.append("")
            lines += table(["DMA (buffer)", "dir", "n", "bytes", "DMA cycles", "hidden", "exposed",
                             "dma_start at"],
                            [[b.label, b.direction, f"{b.transfers:,}", f"{b.bytes:,}",
                              f"{b.dma_cycles:,}", f"{b.hidden_cycles:,}", f"{b.exposed_cycles:,}",
                              b.loc] for b in self.buffers[:max_buffers]])
            if len(self.buffers) > max_buffers:
                rest = self.buffers[max_buffers:]
                exposed_rest = sum(b.exposed_cycles for b in rest)
                lines.append(f"  ... {len(rest)} more dma_start sites ({exposed_rest:,} exposed "
                             "cycles); --json lists them all")
        for w in self.warnings:
            lines.append(f"  warning: {w}")
        for flag in self.flags:
            lines.append(f"  note: {flag}")
        return "\n".join(lines)


def expected_units(config: HardwareConfig) -> list[str]:
    """Units the machine has even when the trace never saw them busy: with memory levels a
    lane per link engine and per port of each on-chip level."""
    return (["cp"] + [u for names in link_units(config) for u in names]
            + [f"dram.ch{k}" for k in range(config.dram.channels)] + port_units(config)
            + ["compute0"])


class _Columns:
    """The trace as numpy columns (start, end, bytes, unit code, kind code): every figure is a
    vectorized pass, so a million-record trace reports in a few seconds."""

    def __init__(self, trace: Trace):
        recs = trace.kept_records()
        n = len(recs)
        self.records = recs
        nums = np.array(list(map(attrgetter("start", "end", "bytes"), recs)), dtype=np.int64)
        nums = nums.reshape(n, 3)
        self.start, self.end, self.bytes = nums[:, 0], nums[:, 1], nums[:, 2]
        ucode: dict[str, int] = {}
        kcode: dict[str, int] = {}
        self.unit = np.array([ucode.setdefault(u, len(ucode)) for u in map(attrgetter("unit"), recs)],
                             dtype=np.int64)
        self.kind = np.array([kcode.setdefault(k, len(kcode)) for k in map(attrgetter("kind"), recs)],
                             dtype=np.int64)
        self.units = list(ucode)
        self._ucode, self._kcode = ucode, kcode

    def unit_mask(self, unit: str) -> np.ndarray:
        code = self._ucode.get(unit)
        return self.unit == code if code is not None else np.zeros(len(self.start), dtype=bool)

    def kind_mask(self, kind: str) -> np.ndarray:
        code = self._kcode.get(kind)
        return self.kind == code if code is not None else np.zeros(len(self.start), dtype=bool)


def trace_figures(trace: Trace) -> SummaryFigures:
    """The figures the report reads from a trace: from its summary when the run kept only
    that, else computed from its records (the same integers: tests/accelsim/test_trace_summary.py)."""
    if trace.summary is not None:
        return trace.summary.figures()
    cols = _Columns(trace)
    dma, comp, stall_m = cols.kind_mask("dma"), cols.kind_mask("kernel"), cols.kind_mask("stall")
    comp_cover = Coverage.of(cols.start[comp], cols.end[comp])
    dma_cover = Coverage.of(cols.start[dma], cols.end[dma])
    stall_cover = Coverage.of(cols.start[stall_m], cols.end[stall_m])
    units = {}
    for u in cols.units:
        m = cols.unit_mask(u)
        units[u] = (Coverage.of(cols.start[m], cols.end[m]).total, int(cols.bytes[m].sum()),
                    int(m.sum()))
    read, written, copied = _dram_bytes(cols)
    return SummaryFigures(
        units, dma_cover.total, comp_cover.total, stall_cover.total,
        dma_cover.intersection(comp_cover), stall_cover.total - stall_cover.intersection(comp_cover),
        read, written, copied, _buffer_sums(cols, comp_cover),
        int(cols.end.max()) if len(cols.end) else 0)


def _unit_row(unit: str, figures: tuple[int, int, int], total: int) -> UnitRow:
    busy, nbytes, intervals = figures
    return UnitRow(unit, unit_group(unit), busy, busy / total if total else 0.0, nbytes,
                   intervals, nbytes / total if total else 0.0)


def _dram_bytes(cols: _Columns) -> tuple[int, int, int]:
    """Bytes moved on the DRAM channels: read, written, and DRAM-to-DRAM copies."""
    dram = np.zeros(len(cols.start), dtype=bool)
    for u in cols.units:
        if u.startswith("dram"):
            dram |= cols.unit_mask(u)
    read = int(cols.bytes[dram & cols.kind_mask("read")].sum())
    written = int(cols.bytes[dram & cols.kind_mask("write")].sum())
    return read, written, int(cols.bytes[dram].sum()) - read - written


def _buffer_sums(cols: _Columns, cover: Coverage) -> dict[tuple[str, str], BufferFigures]:
    """Group DMA records by (label, dma_start location); attribute each stall to its DMA:
    (direction, transfers, bytes, DMA cycles, hidden, exposed) per key."""
    recs = cols.records
    dma_idx = np.flatnonzero(cols.kind_mask("dma"))
    stall_idx = np.flatnonzero(cols.kind_mask("stall"))
    direction: dict[tuple[str, str], str] = {}
    for kind, word in (("read", "in"), ("write", "out")):
        for i in np.flatnonzero(cols.kind_mask(kind)).tolist():
            r = recs[i]
            if r.unit.startswith("dram"):
                direction.setdefault((r.label, r.loc), word)
    # one code per (label, loc); sums per code with bincount
    keys: dict[tuple[str, str], int] = {}
    code = np.fromiter((keys.setdefault((recs[i].label, recs[i].loc), len(keys))
                        for i in dma_idx.tolist()), dtype=np.int64, count=len(dma_idx))
    s, e = cols.start[dma_idx], cols.end[dma_idx]
    nk = len(keys)
    hidden = cover.upto(e) - cover.upto(s)
    sums = [np.bincount(code, minlength=nk), np.bincount(code, cols.bytes[dma_idx], nk),
            np.bincount(code, e - s, nk), np.bincount(code, hidden, nk)]
    acc = {key: [round(float(x[c])) for x in sums] + [0] for key, c in keys.items()}
    by_end: dict[tuple[str, int], tuple[str, str]] = {}
    for i in dma_idx.tolist():
        r = recs[i]
        by_end.setdefault((r.label, r.end), (r.label, r.loc))
    by_loc: dict[str, tuple[str, str]] = {}
    for key in acc:
        by_loc.setdefault(key[1], key)
    ss, se = cols.start[stall_idx], cols.end[stall_idx]
    exposed = (se - ss) - (cover.upto(se) - cover.upto(ss))
    for i, x in zip(stall_idx.tolist(), exposed.tolist(), strict=True):
        key = _stall_owner(recs[i], by_end, by_loc)
        acc.setdefault(key, [0, 0, 0, 0, 0])[4] += x
    return {key: (direction.get(key, "copy" if key[0] else "-"), *vals)  # type: ignore[misc]
            for key, vals in acc.items()}


def _buffer_rows(figures: SummaryFigures) -> tuple[BufferRow, ...]:
    rows = [BufferRow(label, loc, *vals) for (label, loc), vals in figures.buffers.items()]
    rows.sort(key=lambda b: (-b.exposed_cycles, -b.dma_cycles, b.label, b.loc))
    return tuple(rows)


def _stall_owner(s: TraceRecord, by_end: Mapping[tuple[str, int], tuple[str, str]],
                 by_loc: Mapping[str, tuple[str, str]]) -> tuple[str, str]:
    """A wait stall ends exactly when the DMA it waits for ends (label `wait <dma label>`);
    a queue-full stall carries the location of the dma_start being enqueued."""
    if s.label.startswith("wait "):
        key = by_end.get((s.label[5:], s.end))
        if key is not None:
            return key
    key = by_loc.get(s.loc)
    if key is not None:
        return key
    return ("(unattributed stall)", s.loc)


def metrics(result: Any, compulsory: CompulsoryTraffic | None = None) -> dict[str, Any]:
    """The flat figures of a `SimResult` (`Report.figures()`), plus `config_hash`, `fidelity`
    and the result's `extra`: one scalar per key, for `--json` and DSE result rows. Give the
    compulsory traffic of the program before compilation for the honest roofline."""
    out = Report.from_result(result, compulsory).figures()
    out["config_hash"] = result.config.hash()
    out["fidelity"] = getattr(result, "fidelity", "event")
    out.update(getattr(result, "extra", {}) or {})
    return out


def _share(pj: float, e: Energy) -> str:
    return f"{pj / 1e6:,.4g} uJ ({pct(pj / e.total_pj if e.total_pj else 0.0)})"


__all__ = ["BufferRow", "Energy", "IoLowerBound", "Report", "Roofline", "UnitRow", "expected_units",
           "metrics", "unit_group", "unit_sort_key"]
