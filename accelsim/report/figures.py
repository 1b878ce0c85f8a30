"""What a simulation means to an architect, derived only from its `Trace`, the hardware config
and the program's event counts (`RunStats`): totals, a row per unit, DMA time split into
hidden (overlapped by compute) and exposed (control stalled waiting) per buffer and
`dma_start` location, the roofline bound and the ratio to it, SRAM peak, energy.

    report = Report.from_result(simulate(module, "default"))
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
  written, a DRAM-to-DRAM `copy` separately (it counts towards roofline and energy).
- roofline: ops = 2 x MACs + ALU ops + special ops; the compute roof is the kernels' ideal
  cycles (ops / the unit's throughput, no fill/drain), the bandwidth roof is the DRAM bytes
  moved / (channels x bytes per cycle); roofline cycles = the larger, ratio = cycles / it.
- energy (pJ, the config's [energy] table): DRAM bytes moved, SRAM bytes through the ports
  (kernels + DMAs), MACs / ALU / special ops, and static = static_mw x the run's seconds.
- SRAM peak: the run's allocation high-water mark (passed in with the counters).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

import numpy as np

from accelsim.config import HardwareConfig
from accelsim.trace import Trace, TraceRecord

UNIT_ORDER = ("cp", "dma", "dram", "compute")


def unit_sort_key(unit: str) -> tuple[int, int, str]:
    """Control first, then DMA engines, DRAM channels, compute units; numeric within a group."""
    for rank, prefix in enumerate(UNIT_ORDER):
        if unit.startswith(prefix):
            digits = "".join(ch for ch in unit[len(prefix):] if ch.isdigit())
            return rank, int(digits) if digits else 0, unit
    return len(UNIT_ORDER), 0, unit


def unit_group(unit: str) -> str:
    """`control`, `dma`, `dram`, `compute` or `other`."""
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
class Roofline:
    """The two ceilings of the program on the config, and where the run lands."""

    ops: int
    dram_bytes: int
    compute_cycles: int           # kernels' ideal cycles: ops / throughput
    bandwidth_cycles: int         # dram_bytes / peak DRAM bandwidth
    peak_bytes_per_cycle: int     # channels x bandwidth per channel
    compute_unit: str             # "matrix 16x16" or "vector 16 lanes"
    sram_cycles: int = 0          # kernels' SRAM bytes / SRAM bandwidth: a third, inner ceiling
    sram_bytes_per_cycle: int = 0

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

    def describe(self) -> str:
        if self.bound == "compute":
            return f"compute-bound ({self.compute_unit}, {self.peak_ops_per_cycle:.4g} ops/cycle)"
        return f"bandwidth-bound (DRAM, {self.peak_bytes_per_cycle} B/cycle)"


@dataclass(frozen=True, slots=True)
class Energy:
    """pJ per component: DRAM bytes moved, SRAM bytes through the ports, arithmetic, leakage."""

    dram_pj: float
    sram_pj: float
    compute_pj: float
    static_pj: float

    @property
    def total_pj(self) -> float:
        return self.dram_pj + self.sram_pj + self.compute_pj + self.static_pj


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
    roofline: Roofline
    sram_peak_bytes: int
    sram_capacity_bytes: int
    energy: Energy
    macs: int
    alu_ops: int
    special_ops: int
    dma_ops: int
    kernel_calls: int
    flags: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    # ---- construction ------------------------------------------------------------------
    @staticmethod
    def build(trace: Trace, config: HardwareConfig, stats: Any, sram_peak_bytes: int = 0,
              cycles: int | None = None, func: str = "", flags: Iterable[str] = ()) -> Report:
        """From a trace, the config it ran on and the run's counters (`RunStats`, or any object
        with `macs`, `alu_ops`, `special_ops`, `kernel_sram_bytes`, `dma_sram_bytes`,
        `ideal_compute_cycles`, `dma_ops`, `kernel_calls`)."""
        cols = _Columns(trace)
        if cycles is None:
            cycles = trace.metadata.get("cycles")
        total = int(cycles if cycles is not None else (cols.end.max() if len(cols.end) else 0))
        names = sorted(set(expected_units(config)) | set(cols.units), key=unit_sort_key)
        units = tuple(_unit_row(u, cols, total) for u in names)

        dma, comp, stall_m = cols.kind_mask("dma"), cols.kind_mask("kernel"), cols.kind_mask("stall")
        comp_cover = _Coverage.of(cols.start[comp], cols.end[comp])
        dma_cover = _Coverage.of(cols.start[dma], cols.end[dma])
        stall_cover = _Coverage.of(cols.start[stall_m], cols.end[stall_m])
        dma_busy, comp_busy, stall = dma_cover.total, comp_cover.total, stall_cover.total
        hidden = dma_cover.intersection(comp_cover)
        exposed = stall - stall_cover.intersection(comp_cover)

        read, written, copied = _dram_bytes(cols)
        moved = read + written + copied
        cc = config.compute
        unit_name = (f"matrix {cc.rows}x{cc.cols}" if cc.kind == "matrix" else f"vector {cc.lanes} lanes")
        peak_bw = config.dram.channels * config.dram.bandwidth_bytes_per_cycle
        ops = 2 * int(stats.macs) + int(stats.alu_ops) + int(stats.special_ops)
        sram_bw = config.sram.bytes_per_cycle
        roof = Roofline(ops, moved, int(stats.ideal_compute_cycles), -(-moved // peak_bw),
                        peak_bw, unit_name, -(-int(stats.kernel_sram_bytes) // sram_bw), sram_bw)

        e = config.energy
        seconds = total / (config.clock_ghz * 1e9)
        energy = Energy(
            dram_pj=moved * e.dram_pj_per_byte,
            sram_pj=(int(stats.kernel_sram_bytes) + int(stats.dma_sram_bytes)) * e.sram_pj_per_byte,
            compute_pj=(int(stats.macs) * e.mac_pj + int(stats.alu_ops) * e.alu_pj
                        + int(stats.special_ops) * e.special_pj),
            static_pj=e.static_mw * 1e-3 * seconds * 1e12)
        return Report(
            cycles=total, clock_ghz=config.clock_ghz, config=config.name,
            func=func or str(trace.metadata.get("func", "")), units=units,
            buffers=tuple(_buffer_rows(cols, comp_cover)), dram_bytes_read=read,
            dram_bytes_written=written, dram_bytes_copied=copied, dma_busy_cycles=dma_busy,
            compute_busy_cycles=comp_busy,
            hidden_dma_cycles=hidden, exposed_dma_cycles=exposed, stall_cycles=stall,
            roofline=roof, sram_peak_bytes=int(sram_peak_bytes),
            sram_capacity_bytes=config.sram.capacity_bytes, energy=energy, macs=int(stats.macs),
            alu_ops=int(stats.alu_ops), special_ops=int(stats.special_ops),
            dma_ops=int(stats.dma_ops), kernel_calls=int(stats.kernel_calls), flags=tuple(flags))

    @staticmethod
    def from_result(result: Any) -> Report:
        """From an `accelsim.simulate.SimResult`."""
        return Report.build(result.trace, result.config, result.stats, result.sram_peak_bytes,
                            cycles=result.cycles, func=result.func, flags=result.flags)

    # ---- derived -----------------------------------------------------------------------
    @property
    def seconds(self) -> float:
        return self.cycles / (self.clock_ghz * 1e9)

    @property
    def compute_utilization(self) -> float:
        return self.compute_busy_cycles / self.cycles if self.cycles else 0.0

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
    def roofline_ratio(self) -> float:
        return self.cycles / self.roofline.cycles if self.roofline.cycles else math.inf

    @property
    def dram_bytes_per_cycle(self) -> float:
        """Achieved DRAM bandwidth over the whole run (compare `roofline.peak_bytes_per_cycle`)."""
        return self.roofline.dram_bytes / self.cycles if self.cycles else 0.0

    @property
    def achieved_ops_per_cycle(self) -> float:
        return self.roofline.ops / self.cycles if self.cycles else 0.0

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
                "buffers": [b.to_dict() for b in self.buffers]}

    def figures(self) -> dict[str, Any]:
        """Scalar figures only (and `flags`), e.g. for one row of a DSE result table."""
        r = self.roofline
        return {
            "config": self.config, "func": self.func, "cycles": self.cycles,
            "seconds": self.seconds, "clock_ghz": self.clock_ghz,
            "dram_bytes_read": self.dram_bytes_read, "dram_bytes_written": self.dram_bytes_written,
            "dram_bytes_copied": self.dram_bytes_copied, "dram_bytes": r.dram_bytes,
            "compute_utilization": self.compute_utilization,
            "dma_utilization": self.dma_utilization, "overlap_fraction": self.overlap_fraction,
            "dma_hidden_fraction": self.dma_hidden_fraction,
            "dma_busy_cycles": self.dma_busy_cycles, "compute_busy_cycles": self.compute_busy_cycles,
            "hidden_dma_cycles": self.hidden_dma_cycles, "exposed_dma_cycles": self.exposed_dma_cycles,
            "stall_cycles": self.stall_cycles,
            "roofline_cycles": r.cycles,
            "roofline_ratio": self.roofline_ratio if r.cycles else None,
            "roofline_bound": r.bound, "roofline_compute_cycles": r.compute_cycles,
            "roofline_bandwidth_cycles": r.bandwidth_cycles, "ops": r.ops,
            "roofline_sram_cycles": r.sram_cycles, "sram_bound": r.sram_bound,
            "operational_intensity": r.intensity if r.dram_bytes else None,
            "achieved_ops_per_cycle": self.achieved_ops_per_cycle,
            "busiest_unit": self.busiest.unit, "busiest_utilization": self.busiest.utilization,
            "dram_bytes_per_cycle": self.dram_bytes_per_cycle,
            "dram_peak_bytes_per_cycle": r.peak_bytes_per_cycle,
            "sram_peak_bytes": self.sram_peak_bytes, "sram_capacity_bytes": self.sram_capacity_bytes,
            "energy_pj": self.energy.total_pj, "energy_dram_pj": self.energy.dram_pj,
            "energy_sram_pj": self.energy.sram_pj, "energy_compute_pj": self.energy.compute_pj,
            "energy_static_pj": self.energy.static_pj,
            "macs": self.macs, "alu_ops": self.alu_ops, "special_ops": self.special_ops,
            "dma_ops": self.dma_ops, "kernel_calls": self.kernel_calls,
            "flags": list(self.flags),
            **dict(self.extra),
        }

    def format_table(self, max_buffers: int = 20) -> str:
        """The readable default output of `accelsim run --target sim`; the DMA rows are the
        `max_buffers` with the most exposed cycles (all of them are in `to_dict()`)."""
        r = self.roofline
        en = self.energy
        us = self.seconds * 1e6
        lines = [
            f"@{self.func} on '{self.config}': {self.cycles:,} cycles ({us:,.3f} us at "
            f"{self.clock_ghz:g} GHz)",
            f"  roofline   {r.cycles:,} cycles, {r.describe()}; run is "
            + (f"{self.roofline_ratio:.3f}x the roofline" if r.cycles else "n/a (no ops, no DRAM traffic)"),
            f"             {r.ops:,} ops, {r.dram_bytes:,} DRAM bytes, intensity "
            f"{_num(r.intensity)} ops/B, achieved {self.achieved_ops_per_cycle:.4g} ops/cycle",
            *([f"             kernels are SRAM-bound: their SRAM traffic at {r.sram_bytes_per_cycle} "
               f"B/cycle takes {r.sram_cycles:,} cycles; run is {self.cycles / r.sram_cycles:.3f}x that"]
              if r.sram_bound else []),
            f"  DRAM       {self.dram_bytes_read:,} B read, {self.dram_bytes_written:,} B written"
            + (f", {self.dram_bytes_copied:,} B copied" if self.dram_bytes_copied else "")
            + f"; {self.dram_bytes_per_cycle:.2f} B/cycle of the {r.peak_bytes_per_cycle} peak "
            f"({_pct(self.dram_bytes_per_cycle / r.peak_bytes_per_cycle)})",
            f"  SRAM peak  {self.sram_peak_bytes:,} B of {self.sram_capacity_bytes:,} B "
            f"({_pct(self.sram_peak_bytes / self.sram_capacity_bytes)})",
            f"  DMA        busy {self.dma_busy_cycles:,} cycles: hidden {self.hidden_dma_cycles:,} "
            f"({_pct(self.dma_hidden_fraction)} overlapped by compute), exposed "
            f"{self.exposed_dma_cycles:,} (control stalled)",
            f"  compute    busy {self.compute_busy_cycles:,} cycles ({_pct(self.compute_utilization)}), "
            f"{_plural(self.kernel_calls, 'kernel call')}, {_plural(self.dma_ops, 'DMA')}",
            f"  busiest    {self.busiest.unit} ({_pct(self.busiest.utilization)} of the run)"
            if self.busiest.busy_cycles else "  busiest    -",
            f"  energy     {en.total_pj / 1e6:,.4g} uJ: DRAM {_share(en.dram_pj, en)}, "
            f"SRAM {_share(en.sram_pj, en)}, compute {_share(en.compute_pj, en)}, "
            f"static {_share(en.static_pj, en)}",
            "",
        ]
        lines += _table(["unit", "busy cycles", "util", "bytes", "B/cycle", "intervals"],
                        [[u.unit, f"{u.busy_cycles:,}", _pct(u.utilization), f"{u.bytes:,}",
                          f"{u.bytes_per_cycle:.2f}" if u.bytes else "-", f"{u.intervals:,}"]
                         for u in self.units])
        if self.buffers:
            lines.append("")
            lines += _table(["DMA (buffer)", "dir", "n", "bytes", "DMA cycles", "hidden", "exposed",
                             "dma_start at"],
                            [[b.label, b.direction, f"{b.transfers:,}", f"{b.bytes:,}",
                              f"{b.dma_cycles:,}", f"{b.hidden_cycles:,}", f"{b.exposed_cycles:,}",
                              b.loc] for b in self.buffers[:max_buffers]])
            if len(self.buffers) > max_buffers:
                rest = self.buffers[max_buffers:]
                exposed_rest = sum(b.exposed_cycles for b in rest)
                lines.append(f"  ... {len(rest)} more dma_start sites ({exposed_rest:,} exposed "
                             "cycles); --json lists them all")
        for flag in self.flags:
            lines.append(f"  note: {flag}")
        return "\n".join(lines)


def expected_units(config: HardwareConfig) -> list[str]:
    """Units the machine has even when the trace never saw them busy."""
    return (["cp"] + [f"dma{k}" for k in range(config.dma.engines)]
            + [f"dram.ch{k}" for k in range(config.dram.channels)] + ["compute0"])


class _Columns:
    """The trace as numpy columns (start, end, bytes, unit code, kind code): every figure is a
    vectorized pass, so a million-record trace reports in a few seconds."""

    def __init__(self, trace: Trace):
        recs = trace.records
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


def _unit_row(unit: str, cols: _Columns, total: int) -> UnitRow:
    m = cols.unit_mask(unit)
    busy = _Coverage.of(cols.start[m], cols.end[m]).total
    nbytes = int(cols.bytes[m].sum())
    return UnitRow(unit, unit_group(unit), busy, busy / total if total else 0.0, nbytes,
                   int(m.sum()), nbytes / total if total else 0.0)


def _dram_bytes(cols: _Columns) -> tuple[int, int, int]:
    """Bytes moved on the DRAM channels: read, written, and DRAM-to-DRAM copies."""
    dram = np.zeros(len(cols.start), dtype=bool)
    for u in cols.units:
        if u.startswith("dram"):
            dram |= cols.unit_mask(u)
    read = int(cols.bytes[dram & cols.kind_mask("read")].sum())
    written = int(cols.bytes[dram & cols.kind_mask("write")].sum())
    return read, written, int(cols.bytes[dram].sum()) - read - written


def _buffer_rows(cols: _Columns, cover: _Coverage) -> list[BufferRow]:
    """Group DMA records by (label, dma_start location); attribute each stall to its DMA."""
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
    rows = [BufferRow(label, loc, direction.get((label, loc), "copy" if label else "-"), *vals)
            for (label, loc), vals in acc.items()]
    rows.sort(key=lambda b: (-b.exposed_cycles, -b.dma_cycles, b.label, b.loc))
    return rows


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


class _Coverage:
    """The union of intervals as disjoint sorted segments with prefix lengths: `upto(x)` is how
    many covered cycles lie before x, so any overlap is two binary searches (vectorized)."""

    def __init__(self, s: np.ndarray, e: np.ndarray):
        self.s, self.e = s, e
        lengths = e - s
        self.total = int(lengths.sum())
        self.before = (np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
                       if len(s) else lengths)

    @staticmethod
    def of(starts: np.ndarray, ends: np.ndarray) -> _Coverage:
        """Merge possibly overlapping [start, end) intervals (empty ones ignored)."""
        keep = ends > starts
        s, e = starts[keep], ends[keep]
        if not len(s):
            return _Coverage(s, e)
        order = np.argsort(s, kind="stable")
        s, e = s[order], e[order]
        reach = np.maximum.accumulate(e)
        first = np.ones(len(s), dtype=bool)
        first[1:] = s[1:] > reach[:-1]
        heads = np.flatnonzero(first)
        tails = np.append(heads[1:], len(s)) - 1
        return _Coverage(s[heads], reach[tails])

    def upto(self, x: np.ndarray) -> np.ndarray:
        if not len(self.s):
            return np.zeros(len(x), dtype=np.int64)
        i = np.searchsorted(self.s, x, side="right") - 1
        j = np.maximum(i, 0)
        inside = np.clip(x - self.s[j], 0, self.e[j] - self.s[j])
        return np.where(i >= 0, self.before[j] + inside, 0)

    def intersection(self, other: _Coverage) -> int:
        """Cycles covered by both."""
        return int((other.upto(self.e) - other.upto(self.s)).sum())


def metrics(result: Any) -> dict[str, Any]:
    """The flat figures of a `SimResult` (`Report.figures()`), plus `config_hash`, `fidelity`
    and the result's `extra`: one scalar per key, for `--json` and DSE result rows."""
    out = Report.from_result(result).figures()
    out["config_hash"] = result.config.hash()
    out["fidelity"] = getattr(result, "fidelity", "event")
    out.update(getattr(result, "extra", {}) or {})
    return out


# ---- text ------------------------------------------------------------------------------

def _plural(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _num(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.4g}"


def _share(pj: float, e: Energy) -> str:
    return f"{pj / 1e6:,.4g} uJ ({_pct(pj / e.total_pj if e.total_pj else 0.0)})"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        out = [cells[0].ljust(widths[0])]
        out += [c.rjust(w) for c, w in zip(cells[1:-1], widths[1:-1])]
        if len(cells) > 1:
            out.append(cells[-1].ljust(widths[-1]) if not _numeric(cells[-1]) else
                       cells[-1].rjust(widths[-1]))
        return "  " + "  ".join(out).rstrip()

    return [line(header), "  " + "  ".join("-" * w for w in widths)] + [line(r) for r in rows]


def _numeric(cell: str) -> bool:
    return cell.replace(",", "").replace(".", "").replace("%", "").replace("x", "").isdigit()


# ---- A/B -------------------------------------------------------------------------------

# (label, getter, format, lower is better)
_COMPARE_ROWS: tuple[tuple[str, Any, str, bool], ...] = (
    ("cycles", lambda r: r.cycles, "int", True),
    ("seconds (us)", lambda r: r.seconds * 1e6, "float", True),
    ("roofline cycles", lambda r: r.roofline.cycles, "int", True),
    ("roofline ratio", lambda r: r.roofline_ratio, "float", True),
    ("DRAM bytes read", lambda r: r.dram_bytes_read, "int", True),
    ("DRAM bytes written", lambda r: r.dram_bytes_written, "int", True),
    ("DRAM B/cycle", lambda r: r.dram_bytes_per_cycle, "float", False),
    ("compute utilization", lambda r: r.compute_utilization, "pct", False),
    ("DMA utilization", lambda r: r.dma_utilization, "pct", False),
    ("DMA busy cycles", lambda r: r.dma_busy_cycles, "int", True),
    ("DMA hidden cycles", lambda r: r.hidden_dma_cycles, "int", False),
    ("DMA exposed cycles", lambda r: r.exposed_dma_cycles, "int", True),
    ("overlap fraction", lambda r: r.overlap_fraction, "pct", False),
    ("DMA hidden fraction", lambda r: r.dma_hidden_fraction, "pct", False),
    ("stall cycles", lambda r: r.stall_cycles, "int", True),
    ("SRAM peak bytes", lambda r: r.sram_peak_bytes, "int", True),
    ("DMA ops", lambda r: r.dma_ops, "int", True),
    ("kernel calls", lambda r: r.kernel_calls, "int", True),
    ("energy (uJ)", lambda r: r.energy.total_pj / 1e6, "float", True),
    ("  DRAM (uJ)", lambda r: r.energy.dram_pj / 1e6, "float", True),
    ("  SRAM (uJ)", lambda r: r.energy.sram_pj / 1e6, "float", True),
    ("  compute (uJ)", lambda r: r.energy.compute_pj / 1e6, "float", True),
    ("  static (uJ)", lambda r: r.energy.static_pj / 1e6, "float", True),
)


def compare_rows(a: Report, b: Report) -> list[tuple[str, float, float, float | None]]:
    """(metric, A, B, B/A) for every metric of the A/B table; ratio None when A is 0."""
    out = []
    for label, get, _, _ in _COMPARE_ROWS:
        va, vb = float(get(a)), float(get(b))
        out.append((label, va, vb, vb / va if va else None))
    return out


def compare(a: Report, b: Report, names: tuple[str, str] = ("A", "B")) -> str:
    """The two reports side by side with B/A ratios, then the headline speedup."""
    fmt = {label: f for label, _, f, _ in _COMPARE_ROWS}
    rows = []
    for label, va, vb, ratio in compare_rows(a, b):
        rows.append([label, _fmt(va, fmt[label]), _fmt(vb, fmt[label]),
                     "-" if ratio is None else f"{ratio:.3f}x"])
    lines = _table(["metric", names[0], names[1], f"{names[1]}/{names[0]}"], rows)
    if a.cycles and a.cycles == b.cycles:
        lines += ["", f"  {names[0]} and {names[1]} take the same number of cycles"]
    elif a.cycles and b.cycles:
        faster, slower = (names[1], names[0]) if b.cycles <= a.cycles else (names[0], names[1])
        lines.append("")
        lines.append(f"  {faster} takes {max(a.cycles, b.cycles) / min(a.cycles, b.cycles):.3f}x "
                     f"fewer cycles than {slower}")
    return "\n".join(lines)


def _fmt(v: float, kind: str) -> str:
    if kind == "int":
        return f"{round(v):,}"
    if kind == "pct":
        return _pct(v)
    return "inf" if math.isinf(v) else f"{v:,.4g}"


__all__ = ["BufferRow", "Energy", "Report", "Roofline", "UnitRow", "compare", "compare_rows",
           "expected_units", "metrics", "unit_group", "unit_sort_key"]
