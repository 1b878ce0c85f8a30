"""Figures of a run, derived from its trace and event counters (never from simulator state).

- utilization: busy cycles / total cycles (DMA: union over engines; compute: the unit).
- overlap_fraction: cycles where a DMA engine and the compute unit are both busy, over the
  shorter of the two busy times (1.0 = the smaller activity is fully hidden under the other).
- roofline_cycles: max(ideal compute cycles, DRAM bytes / peak DRAM bandwidth), the bound a
  perfect overlap would reach; roofline_ratio = cycles / roofline_cycles (>= 1).
- energy_pj: DRAM and SRAM bytes and op counts times the [energy] figures of the config.
"""

from __future__ import annotations

from typing import Any

from accelsim.simulate import SimResult
from accelsim.trace import intersection_length


def metrics(result: SimResult) -> dict[str, Any]:
    tr = result.trace
    cfg = result.config
    cycles = result.cycles
    dram_read = sum(r.bytes for r in tr.records if r.unit.startswith("dram") and r.kind == "read")
    dram_written = sum(r.bytes for r in tr.records if r.unit.startswith("dram") and r.kind == "write")
    dram_copy = sum(r.bytes for r in tr.records if r.unit.startswith("dram") and r.kind == "copy")
    dma_iv = [(r.start, r.end) for r in tr.records if r.kind == "dma"]
    k_iv = [(r.start, r.end) for r in tr.records if r.kind == "kernel"]
    dma_busy = tr.busy_cycles("dma", "dma")
    compute_busy = tr.busy_cycles("compute", "kernel")
    both = intersection_length(dma_iv, k_iv)
    shorter = min(dma_busy, compute_busy)
    stall = sum(r.duration for r in tr.records if r.unit == "cp" and r.kind == "stall")
    s = result.stats
    dram_total = dram_read + dram_written + dram_copy
    peak_bw = cfg.dram.channels * cfg.dram.bandwidth_bytes_per_cycle
    roofline = max(s.ideal_compute_cycles, -(-dram_total // peak_bw))
    e = cfg.energy
    sram_bytes = s.kernel_sram_bytes + s.dma_sram_bytes
    energy = (dram_total * e.dram_pj_per_byte + sram_bytes * e.sram_pj_per_byte
              + s.macs * e.mac_pj + s.alu_ops * e.alu_pj + s.special_ops * e.special_pj)
    return {
        "cycles": cycles,
        "seconds": result.seconds,
        "config": cfg.name,
        "config_hash": cfg.hash(),
        "fidelity": result.fidelity,
        "dram_bytes_read": dram_read,
        "dram_bytes_written": dram_written,
        "compute_utilization": compute_busy / cycles if cycles else 0.0,
        "dma_utilization": dma_busy / cycles if cycles else 0.0,
        "overlap_fraction": both / shorter if shorter else 0.0,
        "stall_cycles": stall,
        "roofline_cycles": roofline,
        "roofline_ratio": cycles / roofline if roofline else 0.0,
        "sram_peak_bytes": result.sram_peak_bytes,
        "energy_pj": energy,
        "dma_ops": s.dma_ops,
        "kernel_calls": s.kernel_calls,
        "macs": s.macs,
        "flags": result.flags,
        **result.extra,
    }
