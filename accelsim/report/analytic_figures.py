"""What the analytic estimate can say beyond cycles, where no trace exists: the honest roofline
(the input program's op counts and compulsory DRAM traffic), MAC utilization, and an energy
estimate from the bytes the estimate moves on DRAM and the program's ops.

The energy here counts DRAM bytes (the estimate's), MACs / ALU / special ops (the input
program's top-level nests, as the event run counts its kernels') and static power over the
estimated time; SRAM accesses depend on the kernels' reuse, which only the event run counts,
so `energy_sram_pj` is None and `energy_basis` says what `energy_pj` holds.
"""

from __future__ import annotations

from typing import Any

from accelsim.config import HardwareConfig

ENERGY_BASIS = "analytic: DRAM bytes, ops and static power (SRAM accesses not counted)"


def analytic_report_figures(config: HardwareConfig, cycles: int, dram_bytes: int | None,
                            compulsory: Any) -> dict[str, Any]:
    """`dram_bytes` and, when the input program's op counts are known (`compulsory`: its
    `CompulsoryTraffic`, with top-level nests), the roofline, MAC utilization and (with
    `dram_bytes`; None: the estimate does not count them) energy."""
    from accelsim.report.roofline import honest_roofline, peak_compute_cycles

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
                               compulsory.input_derived_written_bytes)
        roof_cycles, bound = roof.cycles, roof.bound
    e = config.energy
    seconds = cycles / (config.clock_ghz * 1e9)
    dram_pj = (dram_bytes or 0) * e.dram_pj_per_byte
    compute_pj = macs * e.mac_pj + alu * e.alu_pj + special * e.special_pj
    static_pj = e.static_mw * 1e-3 * seconds * 1e12
    peak_macs = config.clusters * config.compute.macs_per_cycle
    out.update({
        "macs": macs, "alu_ops": alu, "special_ops": special, "ops": ops,
        "roofline_cycles": roof_cycles, "roofline_bound": bound,
        "roofline_ratio": cycles / roof_cycles if roof_cycles else None,
        "mac_utilization": macs / (cycles * peak_macs) if cycles and peak_macs else None,
        "peak_macs_per_cycle": peak_macs,
    })
    if dram_bytes is not None:
        out.update({
            "energy_pj": dram_pj + compute_pj + static_pj, "energy_dram_pj": dram_pj,
            "energy_sram_pj": None, "energy_compute_pj": compute_pj,
            "energy_static_pj": static_pj, "energy_basis": ENERGY_BASIS})
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
        lines.append(f"  energy     {m['energy_pj'] / 1e6:,.4g} uJ ({m['energy_basis']})")
    return lines
