"""The figures of a many-cluster run, from its trace and config: per cluster busy (compute
unit), stall and barrier cycles (control processor) and utilization; the load imbalance;
each interconnect link's utilization and the hottest; the bandwidth of DRAM and of every
shared on-chip level (a global buffer: through its ports); and the
roofline of the whole machine — the slowest of the clusters' MAC arrays, the DRAM channels
and the hottest link — naming the bound.

`--json` gets `clusters` (one object per cluster: `busy_cycles`, `stall_cycles`,
`barrier_cycles`, `utilization`, and `dram_bytes_read` / `dram_bytes_written` when the link into
the cluster's level is DRAM's: counted by `accelsim.hw.interconnect.Interconnect`),
`interconnect` and `cluster_roofline`.

`cluster_figures` also gives the run's totals as a one-cluster report names them:
`dram_bytes_read`, `dram_bytes_written`, `dram_bytes_copied` (the DRAM channels' records by
kind), `compute_busy_cycles` (the clusters' mean) and `compute_utilization` (the clusters' mean
utilization), `energy_pj` and its parts `energy_dram_pj`, `energy_sram_pj`,
`energy_compute_pj`, `energy_static_pj` (`cluster_energy`: every cluster's SRAM bytes and
arithmetic, the DRAM bytes, the machine's static power) and, with memory levels, `levels`
(`cluster_levels`: a row per level as a one-cluster report has, its energy the level's bytes
at its own pJ per byte, the SRAM part their sum over the on-chip levels).

Every figure is a sum over the records per (unit, kind), so a run that kept only its
`UnitTally` (`accelsim.trace.tally`) has the same report as one that kept every record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accelsim.config import HardwareConfig
from accelsim.cost.energy import technology_of
from accelsim.cost.rate import cycles_for
from accelsim.report.figures import Energy
from accelsim.report.levels import LevelRow, level_traffic, rows_of
from accelsim.report.roofline import peak_dram_bytes_per_cycle
from accelsim.trace import Trace
from accelsim.trace.tally import sums_of


@dataclass(frozen=True, slots=True)
class ClusterRow:
    cluster: int
    busy_cycles: int
    stall_cycles: int
    barrier_cycles: int
    utilization: float
    dram_bytes_read: int | None = None      # None: its link is not the one from DRAM
    dram_bytes_written: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "busy_cycles": self.busy_cycles,
                "stall_cycles": self.stall_cycles, "barrier_cycles": self.barrier_cycles,
                "utilization": self.utilization, "dram_bytes_read": self.dram_bytes_read,
                "dram_bytes_written": self.dram_bytes_written}


@dataclass(frozen=True, slots=True)
class ClusterReport:
    cycles: int
    rows: tuple[ClusterRow, ...]
    imbalance: float                 # max busy / mean busy - 1
    links: dict[str, float]          # interconnect link -> utilization
    hottest_link: str | None
    dram_bytes: int
    dram_bytes_per_cycle: float
    dram_peak_bytes_per_cycle: int
    bounds: dict[str, int]           # cycles each shared resource needs at its peak
    bound: str
    # a shared on-chip level (a global buffer) -> (bytes per cycle through its ports, peak)
    shared_levels: dict[str, tuple[float, int]]
    dram_read: int = 0               # the DRAM channels' bytes by kind
    dram_written: int = 0
    dram_copied: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"clusters": [r.as_json() for r in self.rows],
                "load_imbalance": self.imbalance,
                "interconnect": {"links": self.links, "hottest_link": self.hottest_link},
                "dram_bytes_per_cycle": self.dram_bytes_per_cycle,
                "dram_peak_bytes_per_cycle": self.dram_peak_bytes_per_cycle,
                "shared_levels": {k: {"bytes_per_cycle": v[0], "peak_bytes_per_cycle": v[1]}
                                  for k, v in self.shared_levels.items()},
                "cluster_roofline": {"bounds": self.bounds, "bound": self.bound,
                                     "roofline_cycles": max(self.bounds.values())},
                "dram_bytes_read": self.dram_read, "dram_bytes_written": self.dram_written,
                "dram_bytes_copied": self.dram_copied}

    def __str__(self) -> str:
        return self.text()

    def text(self) -> str:
        out = [f"clusters: {len(self.rows)}, {self.cycles} cycles; load imbalance "
               f"{self.imbalance:.1%}; bound: {self.bound} (roofline "
               + ", ".join(f"{k} {v}" for k, v in self.bounds.items()) + " cycles)"]
        out.append("  cluster   busy cycles  stall cycles  barrier cycles   array busy")
        for r in self.rows:
            out.append(f"  c{r.cluster:<7} {r.busy_cycles:>11} {r.stall_cycles:>13} "
                       f"{r.barrier_cycles:>15} {r.utilization:>11.1%}")
        out.append(f"  DRAM: {self.dram_bytes} B ({self.dram_read} read, {self.dram_written} "
                   f"written), {self.dram_bytes_per_cycle:.1f} of "
                   f"{self.dram_peak_bytes_per_cycle} B/cycle")
        for name, (bw, peak) in self.shared_levels.items():
            out.append(f"  {name} (shared): {bw:.1f} of {peak} B/cycle")
        if self.hottest_link is not None:
            out.append(f"  interconnect: hottest link {self.hottest_link} "
                       f"{self.links[self.hottest_link]:.1%} busy ({len(self.links)} links)")
        return "\n".join(out)


def cluster_report(trace: Trace, config: HardwareConfig, cycles: int, ideal_compute: int,
                   link_bytes: dict[str, int] | None = None,
                   cluster_dram: dict[str, list[int]] | None = None) -> ClusterReport:
    """`ideal_compute`: the MAC-array cycles of all clusters' kernels together (the stats'
    `ideal_compute_cycles`); `cluster_dram`: each cluster's DRAM bytes by kind (the
    interconnect's `dram_bytes`; None: not counted)."""
    n = config.clusters
    busy, stall, barrier = [0] * n, [0] * n, [0] * n
    links: dict[str, int] = {}
    dram_bytes = 0
    by_kind = {"read": 0, "write": 0, "copy": 0}
    shared = {lv.name: lv for lv in config.shared_levels()[1:]}
    level_bytes = dict.fromkeys(shared, 0)
    # every figure is a sum per (unit, kind): of the records, or the run's tally of them
    sums = trace.tally.sums() if trace.tally is not None else sums_of(trace.kept_records())
    for (u, kind), (_, nbytes, dur) in sums.items():
        if u[0] == "c" and "." in u and u[1].isdigit():
            k_text, _, unit = u.partition(".")
            k = int(k_text[1:])
            if unit.startswith("compute"):
                busy[k] += dur
            elif unit == "cp":
                if kind == "barrier":
                    barrier[k] += dur
                elif kind == "stall":
                    stall[k] += dur
        elif u.startswith("noc."):
            links[u] = links.get(u, 0) + dur
        elif u.startswith("dram"):
            dram_bytes += nbytes
            if kind in by_kind:
                by_kind[kind] += nbytes
        elif u.startswith("port.") and u.split(".")[1] in level_bytes:
            level_bytes[u.split(".")[1]] += nbytes
    span = max(cycles, 1)
    # the interconnect counts a cluster's DRAM bytes when its one link is the one from DRAM
    own = cluster_dram if config.single_link else None
    rows = tuple(ClusterRow(k, busy[k], stall[k], barrier[k], busy[k] / span,
                            own["read"][k] if own else None, own["write"][k] if own else None)
                 for k in range(n))
    mean = sum(busy) / n
    imbalance = max(busy) / mean - 1.0 if mean else 0.0
    util = {k: v / span for k, v in sorted(links.items())}
    hottest = max(util, key=lambda k: util[k]) if util else None
    peak = peak_dram_bytes_per_cycle(config)  # with dram.model = "timing": the technology's
    bounds = {"compute": -(-ideal_compute // n), "DRAM": cycles_for(dram_bytes, peak)}
    if hottest is not None:
        ic = config.interconnect
        bw = ic.bandwidth_bytes_per_cycle if ic.kind == "bus" else ic.link_bytes_per_cycle
        hot_bytes = (link_bytes or {}).get(hottest, 0)
        bounds["interconnect"] = -(-hot_bytes // bw)
    bound = max(bounds, key=lambda k: bounds[k])
    levels = {name: (level_bytes[name] / span, lv.ports * lv.read_bytes_per_cycle)
              for name, lv in shared.items()}
    return ClusterReport(cycles, rows, imbalance, util, hottest, dram_bytes, dram_bytes / span,
                         peak, bounds, bound, levels, by_kind["read"], by_kind["write"],
                         by_kind["copy"])


def run_cluster_report(result: Any, config: HardwareConfig) -> ClusterReport:
    """`cluster_report` of a `simulate_clusters` run (its trace, stats and interconnect)."""
    ic = result.extra.get("interconnect")
    link_bytes = dict(zip(ic.model.names, ic.bytes, strict=True)) if ic is not None else {}
    return cluster_report(result.trace, config, result.cycles, result.stats.ideal_compute_cycles,
                          link_bytes, ic.dram_bytes if ic is not None else None)


def cluster_levels(rep: ClusterReport, stats: Any, config: HardwareConfig,
                   peaks: dict[str, int]) -> tuple[LevelRow, ...]:
    """A row per memory level of a many-cluster run of a machine with memory levels, counted
    as one cluster's (`accelsim.report.levels`): DRAM's bytes from its channels, every other
    level's from every cluster's DMAs and kernels (`stats`: `simulate_clusters`' sums); a
    cluster's own level (the last) its bytes over all clusters, its peak the largest
    cluster's."""
    dram = (rep.dram_read, rep.dram_written, rep.dram_copied)
    return rows_of(config, level_traffic(config, dram, stats), peaks)


def cluster_energy(rep: ClusterReport, stats: Any, config: HardwareConfig, seconds: float,
                   levels: tuple[LevelRow, ...] = ()) -> Energy:
    """The energy of a many-cluster run, as `Report.build` counts one cluster's: DRAM bytes
    moved, SRAM bytes through every cluster's ports (with memory levels: every level's bytes
    at its own energies, `levels` from `cluster_levels`), every cluster's arithmetic, and the
    configured static power over the run (`energy.static_mw`: the machine's)."""
    from accelsim.cost.energy import energy

    per_level: dict[str, float] = {}
    if not config.single_link:
        per_level = {"dram_pj": levels[0].energy_pj, "sram_pj": sum(lv.energy_pj for lv in levels[1:])}
    return energy(config, dram_bytes=rep.dram_read + rep.dram_written + rep.dram_copied,
                  sram_bytes=int(stats.kernel_sram_bytes) + int(stats.dma_sram_bytes),
                  macs=int(stats.macs), alu_ops=int(stats.alu_ops),
                  special_ops=int(stats.special_ops), seconds=seconds,
                  compute_pj=getattr(stats, "compute_pj", None), **per_level)


def cluster_figures(result: Any, config: HardwareConfig, analytic_cycles: int, distribution: str,
                    pipeline: list[str], compulsory: Any = None) -> dict[str, Any]:
    """The figures of a many-cluster event run (`result`: `simulate_clusters`' SimResult), with
    its cluster report and the analytic estimate's cycles beside the event ones; the figures a
    one-cluster report has under the same names: `dram_bytes` (moved: read, written, copied),
    `array_busy_fraction` (the clusters' mean busy time) and `mac_utilization` (MACs over every
    cluster's peak), and with `compulsory` (the input program's `CompulsoryTraffic`) the honest
    roofline (`cluster_honest_roofline`: `roofline_cycles`, `roofline_bound`,
    `roofline_ratio`), `compulsory_bytes` and `traffic_ratio`."""
    rep = run_cluster_report(result, config)
    n = max(len(rep.rows), 1)
    busy = sum(r.busy_cycles for r in rep.rows) / n
    levels = cluster_levels(rep, result.stats, config, result.level_peaks or {}) \
        if not config.single_link else ()
    energy = cluster_energy(rep, result.stats, config, result.seconds, levels)
    totals: dict[str, Any] = {
        "compute_busy_cycles": busy,
        "compute_utilization": busy / result.cycles if result.cycles else 0.0,
        "energy_pj": energy.total_pj, "energy_dram_pj": energy.dram_pj,
        "energy_sram_pj": energy.sram_pj, "energy_compute_pj": energy.compute_pj,
        "energy_static_pj": energy.static_pj, "energy_technology": technology_of(config)}
    macs = int(result.stats.macs)
    peak_macs = config.clusters * config.compute.macs_per_cycle
    moved = rep.dram_read + rep.dram_written + rep.dram_copied
    totals.update({
        "array_busy_fraction": totals["compute_utilization"], "macs": macs,
        "mac_utilization": macs / (result.cycles * peak_macs) if result.cycles else None,
        "peak_macs_per_cycle": peak_macs, "dram_bytes": moved,
        "roofline_cycles": None, "roofline_bound": None, "roofline_ratio": None,
        "compulsory_bytes": None, "traffic_ratio": None})
    honest = cluster_honest_roofline(config, result.stats, compulsory)
    if honest is not None:
        totals["roofline_cycles"], totals["roofline_bound"] = honest
        totals["roofline_ratio"] = result.cycles / honest[0] if honest[0] else None
    if compulsory is not None and compulsory.known:
        totals["compulsory_bytes"] = int(compulsory.bytes)
        totals["traffic_ratio"] = moved / compulsory.bytes if compulsory.bytes else None
    if levels:
        totals["levels"] = [lv.to_dict() for lv in levels]
    return {"fidelity": "event", "cycles": result.cycles, "seconds": result.seconds,
            "config": config.name, "config_hash": config.hash(), "distribution": distribution,
            "dma_ops": result.stats.dma_ops, "kernel_calls": result.stats.kernel_calls,
            "flags": result.flags, "pipeline": pipeline, "analytic_cycles": analytic_cycles,
            "analytic_error": (analytic_cycles - result.cycles) / result.cycles
            if result.cycles else 0.0, **rep.as_json(), **totals}


def cluster_summary_lines(figures: dict[str, Any]) -> list[str]:
    """The lines a one-cluster report has and the cluster table does not: the honest
    roofline, MAC utilization beside array busy, and energy (`cluster_figures`' figures)."""
    f = figures
    lines = []
    if f.get("roofline_cycles"):
        lines.append(f"  roofline   {f['roofline_cycles']:,} cycles, {f['roofline_bound']}-bound "
                     f"(compulsory DRAM traffic {f['compulsory_bytes']:,} B); run is "
                     f"{f['roofline_ratio']:.3f}x the roofline")
    else:
        lines.append("  roofline   - (the program's compulsory traffic is unknown)")
    if f.get("dram_bytes") is not None:
        ratio = f.get("traffic_ratio")
        lines.append(f"  traffic    {f['dram_bytes']:,} DRAM bytes moved"
                     + (f" = {ratio:.3g}x the compulsory" if ratio else ""))
    mac = f.get("mac_utilization")
    lines.append(f"  compute    array busy {f['array_busy_fraction']:.1%} (clusters' mean); MAC "
                 f"utilization {mac:.1%} ({f['macs']:,} MACs over {f['peak_macs_per_cycle']} a "
                 "cycle)" if mac is not None else "  compute    -")
    if f.get("energy_pj") is not None:
        total = f["energy_pj"] or 1.0
        parts = ", ".join(f"{name} {f[key] / 1e6:,.4g} uJ ({f[key] / total:.1%})"
                          for name, key in (("DRAM", "energy_dram_pj"), ("SRAM", "energy_sram_pj"),
                                            ("compute", "energy_compute_pj"),
                                            ("static", "energy_static_pj")))
        lines.append(f"  energy     {f['energy_pj'] / 1e6:,.4g} uJ "
                     f"({f.get('energy_technology', '-')} table): {parts}")
    return lines


def cluster_honest_roofline(config: HardwareConfig, stats: Any, compulsory: Any
                            ) -> tuple[int, str] | None:
    """The honest roofline of a many-cluster run, (cycles, bound): the program's ops at every
    cluster's peak compute together (`peak_compute_cycles` over the clusters), its compulsory
    DRAM bytes (`compulsory`, the input program's `CompulsoryTraffic`) at DRAM's peak and,
    on a bus, at the bus's; None when the compulsory traffic is unknown."""
    from accelsim.report.roofline import peak_compute_cycles

    if compulsory is None or not compulsory.known:
        return None
    n = config.clusters
    one = peak_compute_cycles(config, int(stats.macs), int(stats.alu_ops), int(stats.special_ops))
    nbytes = int(compulsory.bytes)
    # named as a one-cluster roofline's bounds: compute, bandwidth (DRAM's), interconnect
    bounds = {"compute": -(-one // n),
              "bandwidth": cycles_for(nbytes, peak_dram_bytes_per_cycle(config))}
    ic = config.interconnect
    if ic.kind == "bus":
        bounds["interconnect"] = -(-nbytes // ic.bandwidth_bytes_per_cycle)
    bound = max(bounds, key=lambda k: bounds[k])
    return bounds[bound], bound


def cluster_analytic_figures(cycles: int, per_cluster: tuple[int, ...], config: HardwareConfig,
                             distribution: str, pipeline: list[str]) -> dict[str, Any]:
    """The figures of a many-cluster analytic estimate (`estimate_clusters`)."""
    return {"fidelity": "analytic", "cycles": cycles, "seconds": cycles / (config.clock_ghz * 1e9),
            "config": config.name, "config_hash": config.hash(), "distribution": distribution,
            "cluster_cycles": list(per_cluster), "pipeline": pipeline}
