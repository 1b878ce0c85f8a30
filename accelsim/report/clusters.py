"""The figures of a many-cluster run, from its trace and config: per cluster busy (compute
unit), stall and barrier cycles (control processor) and utilization; the load imbalance;
each interconnect link's utilization and the hottest; the bandwidth of DRAM and of every
shared on-chip level (a global buffer: through its ports); and the
roofline of the whole machine — the slowest of the clusters' MAC arrays, the DRAM channels
and the hottest link — naming the bound.

`--json` gets `clusters` (one object per cluster: `busy_cycles`, `stall_cycles`,
`barrier_cycles`, `utilization`), `interconnect` and `cluster_roofline`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accelsim.config import HardwareConfig
from accelsim.trace import Trace


@dataclass(frozen=True, slots=True)
class ClusterRow:
    cluster: int
    busy_cycles: int
    stall_cycles: int
    barrier_cycles: int
    utilization: float

    def as_json(self) -> dict[str, Any]:
        return {"cluster": self.cluster, "busy_cycles": self.busy_cycles,
                "stall_cycles": self.stall_cycles, "barrier_cycles": self.barrier_cycles,
                "utilization": self.utilization}


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

    def as_json(self) -> dict[str, Any]:
        return {"clusters": [r.as_json() for r in self.rows],
                "load_imbalance": self.imbalance,
                "interconnect": {"links": self.links, "hottest_link": self.hottest_link},
                "dram_bytes_per_cycle": self.dram_bytes_per_cycle,
                "dram_peak_bytes_per_cycle": self.dram_peak_bytes_per_cycle,
                "shared_levels": {k: {"bytes_per_cycle": v[0], "peak_bytes_per_cycle": v[1]}
                                  for k, v in self.shared_levels.items()},
                "cluster_roofline": {"bounds": self.bounds, "bound": self.bound,
                                     "roofline_cycles": max(self.bounds.values())}}

    def text(self) -> str:
        out = [f"clusters: {len(self.rows)}, {self.cycles} cycles; load imbalance "
               f"{self.imbalance:.1%}; bound: {self.bound} (roofline "
               + ", ".join(f"{k} {v}" for k, v in self.bounds.items()) + " cycles)"]
        out.append("  cluster   busy cycles  stall cycles  barrier cycles  utilization")
        for r in self.rows:
            out.append(f"  c{r.cluster:<7} {r.busy_cycles:>11} {r.stall_cycles:>13} "
                       f"{r.barrier_cycles:>15} {r.utilization:>11.1%}")
        out.append(f"  DRAM: {self.dram_bytes} B, {self.dram_bytes_per_cycle:.1f} of "
                   f"{self.dram_peak_bytes_per_cycle} B/cycle")
        for name, (bw, peak) in self.shared_levels.items():
            out.append(f"  {name} (shared): {bw:.1f} of {peak} B/cycle")
        if self.hottest_link is not None:
            out.append(f"  interconnect: hottest link {self.hottest_link} "
                       f"{self.links[self.hottest_link]:.1%} busy ({len(self.links)} links)")
        return "\n".join(out)


def cluster_report(trace: Trace, config: HardwareConfig, cycles: int, ideal_compute: int,
                   link_bytes: dict[str, int] | None = None) -> ClusterReport:
    """`ideal_compute`: the MAC-array cycles of all clusters' kernels together (the stats'
    `ideal_compute_cycles`)."""
    n = config.clusters
    busy, stall, barrier = [0] * n, [0] * n, [0] * n
    links: dict[str, int] = {}
    dram_bytes = 0
    shared = {lv.name: lv for lv in config.shared_levels()[1:]}
    level_bytes = dict.fromkeys(shared, 0)
    for r in trace:
        u = r.unit
        if u[0] == "c" and "." in u and u[1].isdigit():
            k_text, _, unit = u.partition(".")
            k = int(k_text[1:])
            if unit.startswith("compute"):
                busy[k] += r.end - r.start
            elif unit == "cp":
                if r.kind == "barrier":
                    barrier[k] += r.end - r.start
                elif r.kind == "stall":
                    stall[k] += r.end - r.start
        elif u.startswith("noc."):
            links[u] = links.get(u, 0) + r.end - r.start
        elif u.startswith("dram"):
            dram_bytes += r.bytes
        elif u.startswith("port.") and u.split(".")[1] in level_bytes:
            level_bytes[u.split(".")[1]] += r.bytes
    span = max(cycles, 1)
    rows = tuple(ClusterRow(k, busy[k], stall[k], barrier[k], busy[k] / span) for k in range(n))
    mean = sum(busy) / n
    imbalance = max(busy) / mean - 1.0 if mean else 0.0
    util = {k: v / span for k, v in sorted(links.items())}
    hottest = max(util, key=lambda k: util[k]) if util else None
    d = config.dram
    peak = d.channels * d.bandwidth_bytes_per_cycle
    bounds = {"compute": -(-ideal_compute // n), "DRAM": -(-dram_bytes // peak)}
    if hottest is not None:
        ic = config.interconnect
        bw = ic.bandwidth_bytes_per_cycle if ic.kind == "bus" else ic.link_bytes_per_cycle
        hot_bytes = (link_bytes or {}).get(hottest, 0)
        bounds["interconnect"] = -(-hot_bytes // bw)
    bound = max(bounds, key=lambda k: bounds[k])
    levels = {name: (level_bytes[name] / span, lv.ports * lv.read_bytes_per_cycle)
              for name, lv in shared.items()}
    return ClusterReport(cycles, rows, imbalance, util, hottest, dram_bytes, dram_bytes / span,
                         peak, bounds, bound, levels)


def run_cluster_report(result: Any, config: HardwareConfig) -> ClusterReport:
    """`cluster_report` of a `simulate_clusters` run (its trace, stats and interconnect)."""
    ic = result.extra.get("interconnect")
    link_bytes = dict(zip(ic.model.names, ic.bytes, strict=True)) if ic is not None else {}
    return cluster_report(result.trace, config, result.cycles, result.stats.ideal_compute_cycles,
                          link_bytes)


def cluster_figures(result: Any, config: HardwareConfig, analytic_cycles: int, distribution: str,
                    pipeline: list[str]) -> dict[str, Any]:
    """The figures of a many-cluster event run (`result`: `simulate_clusters`' SimResult), with
    its cluster report and the analytic estimate's cycles beside the event ones."""
    rep = run_cluster_report(result, config)
    return {"fidelity": "event", "cycles": result.cycles, "seconds": result.seconds,
            "config": config.name, "config_hash": config.hash(), "distribution": distribution,
            "dma_ops": result.stats.dma_ops, "kernel_calls": result.stats.kernel_calls,
            "flags": result.flags, "pipeline": pipeline, "analytic_cycles": analytic_cycles,
            "analytic_error": (analytic_cycles - result.cycles) / result.cycles
            if result.cycles else 0.0, **rep.as_json()}


def cluster_analytic_figures(cycles: int, per_cluster: tuple[int, ...], config: HardwareConfig,
                             distribution: str, pipeline: list[str]) -> dict[str, Any]:
    """The figures of a many-cluster analytic estimate (`estimate_clusters`)."""
    return {"fidelity": "analytic", "cycles": cycles, "seconds": cycles / (config.clock_ghz * 1e9),
            "config": config.name, "config_hash": config.hash(), "distribution": distribution,
            "cluster_cycles": list(per_cluster), "pipeline": pipeline}
