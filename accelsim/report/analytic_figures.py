"""What the analytic estimate can say beyond cycles, where no trace exists: the honest roofline
(the input program's op counts and compulsory DRAM traffic), MAC utilization, and an energy
estimate from the bytes the estimate moves on DRAM and the program's ops.

The energy is the one formula's (`accelsim.cost.energy`): on the estimate's own counts where
the caller has them (`AnalyticResult.energy`: its DRAM and SRAM bytes, its kernels' ops), else
on the DRAM bytes and the input program's top-level nests' ops, SRAM accesses not counted
(`energy_sram_pj` None); `energy_basis` says which.
"""

from __future__ import annotations

from typing import Any

from accelsim.config import HardwareConfig
from accelsim.cost.energy import Energy, energy, technology_of

ENERGY_BASIS = "analytic: DRAM bytes, ops and static power (SRAM accesses not counted)"
ESTIMATE_BASIS = "analytic: the estimate's DRAM and SRAM bytes, its kernels' ops, static power"


def analytic_report_figures(config: HardwareConfig, cycles: int, dram_bytes: int | None,
                            compulsory: Any, estimated: Energy | None = None) -> dict[str, Any]:
    """`dram_bytes` and, when the input program's op counts are known (`compulsory`: its
    `CompulsoryTraffic`, with top-level nests), the roofline, MAC utilization and (with
    `dram_bytes`; None: the estimate does not count them) energy: `estimated`, the estimate's
    own (`AnalyticResult.energy`, SRAM bytes counted), else the one formula
    (`accelsim.cost.energy`) on the DRAM bytes and the input program's ops."""
    from accelsim.report.roofline import critical_path, honest_roofline, peak_compute_cycles

    out: dict[str, Any] = {} if dram_bytes is None else {"dram_bytes": int(dram_bytes)}
    nests = getattr(compulsory, "nests", None) if compulsory is not None else None
    if compulsory is None or not compulsory.known or nests is None:
        return out
    macs = sum(n.counts.mac for n in nests)
    alu = sum(n.counts.mul + n.counts.add + n.counts.other for n in nests)
    special = sum(n.counts.special for n in nests)
    ops = 2 * macs + alu + special
    if config.clusters > 1:  # as the many-cluster event run's (`cluster_honest_roofline`)
        from types import SimpleNamespace

        from accelsim.report.clusters import cluster_honest_roofline

        counts = SimpleNamespace(macs=macs, alu_ops=alu, special_ops=special)
        roof_cycles, bound = cluster_honest_roofline(config, counts, compulsory) or (0, "-")
    else:
        peak = peak_compute_cycles(config, macs, alu, special, nests)
        roof = honest_roofline(config, ops, peak, compulsory.bytes, compulsory.read_bytes,
                               compulsory.input_derived_written_bytes, compulsory.recurrence)
        roof_cycles, bound = roof.cycles, roof.bound
    seconds = cycles / (config.clock_ghz * 1e9)
    peak_macs = config.clusters * config.compute.macs_per_cycle
    out.update({
        "macs": macs, "alu_ops": alu, "special_ops": special, "ops": ops,
        "roofline_cycles": roof_cycles, "roofline_bound": bound,
        "roofline_ratio": cycles / roof_cycles if roof_cycles else None,
        "mac_utilization": macs / (cycles * peak_macs) if cycles and peak_macs else None,
        "peak_macs_per_cycle": peak_macs,
        # the recurrence bound (`roofline.critical_path`): the same on any number of clusters
        "critical_path_cycles": critical_path(config, compulsory.recurrence)[0],
    })
    if estimated is not None:
        out.update({
            "energy_pj": estimated.total_pj, "energy_dram_pj": estimated.dram_pj,
            "energy_sram_pj": estimated.sram_pj, "energy_compute_pj": estimated.compute_pj,
            "energy_static_pj": estimated.static_pj, "energy_basis": ESTIMATE_BASIS,
            "energy_technology": technology_of(config)})
    elif dram_bytes is not None:
        e = energy(config, dram_bytes=int(dram_bytes), sram_bytes=0, macs=macs, alu_ops=alu,
                   special_ops=special, seconds=seconds)
        out.update({
            "energy_pj": e.total_pj, "energy_dram_pj": e.dram_pj,
            "energy_sram_pj": None, "energy_compute_pj": e.compute_pj,
            "energy_static_pj": e.static_pj, "energy_basis": ENERGY_BASIS,
            "energy_technology": technology_of(config)})
    return out


def summary_lines(m: dict[str, Any]) -> list[str]:
    """The text lines of `analytic_report_figures`' figures (those present)."""
    lines = []
    if m.get("dram_bytes") is not None:
        lines.append(f"  DRAM       {m['dram_bytes']:,} B moved"
                     + (f" = {m['traffic_ratio']:.3g}x the compulsory {m['compulsory_bytes']:,} B"
                        if m.get("traffic_ratio") else ""))
    if m.get("roofline_cycles"):
        lines.append(f"  roofline   {m['roofline_cycles']:,} cycles, {m['roofline_bound']}-bound; "
                     f"estimate is {m['roofline_ratio']:.3f}x the roofline")
    if m.get("mac_utilization") is not None:
        lines.append(f"  compute    MAC utilization {m['mac_utilization']:.1%} "
                     f"({m['macs']:,} MACs)")
    if m.get("energy_pj") is not None:
        lines.append(f"  energy     {m['energy_pj'] / 1e6:,.4g} uJ ({m['energy_basis']}; "
                     f"{m.get('energy_technology', '-')} table)")
    return lines
