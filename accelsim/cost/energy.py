"""The one energy formula: pJ per component from a run's counts and the config's `[energy]`.

`Report.build` (an event run's trace and counters), the many-cluster report
(`report/clusters.py` `cluster_energy`) and the analytic estimate
(`estimate/analytic.py` `AnalyticResult.energy`) all call it, so the event report and the
analytic estimate of one program differ only in the counts they feed it:

    DRAM   bytes moved x dram_pj_per_byte        (with memory levels: each level's bytes
    SRAM   bytes through the ports x sram_pj_per_byte   at its own pJ/B, `dram_pj`/`sram_pj`)
    compute  each op at its precision's energy (`accelsim.cost.precision`: the `[energy]
             technology` table, or `mac_pj` / `alu_pj` when set): the kernels' sum when
             the run kept it (`compute_pj`), else MACs, ALU and special ops at f32
    static   static_mw over the run's seconds
"""

from __future__ import annotations

from dataclasses import dataclass

from accelsim.config import HardwareConfig
from accelsim.cost import precision


@dataclass(frozen=True, slots=True)
class Energy:
    """pJ per component: DRAM bytes moved, SRAM bytes through the ports, arithmetic, leakage."""

    dram_pj: float
    sram_pj: float
    compute_pj: float
    static_pj: float
    units_pj: float = 0.0  # user-defined units (`accelsim.hw.units`), as they count it

    @property
    def total_pj(self) -> float:
        return self.dram_pj + self.sram_pj + self.compute_pj + self.static_pj + self.units_pj


def energy(config: HardwareConfig, *, dram_bytes: int, sram_bytes: int, macs: int, alu_ops: int,
           special_ops: int, seconds: float, dram_pj: float | None = None,
           sram_pj: float | None = None, compute_pj: float | None = None,
           units_pj: float = 0.0) -> Energy:
    """The energy of a run on `config` from its counts. `dram_pj` / `sram_pj`, when given,
    replace the flat per-byte terms (a machine with memory levels counts each level's bytes at
    that level's energy: `report/levels.py`); `compute_pj`, when given, is the kernels' compute
    energy by precision (`precision.compute_pj` summed per call), else the counts at f32;
    `units_pj` what user-defined units report."""
    e = config.energy
    if compute_pj is None:
        compute_pj = precision.ops_pj(e, macs, alu_ops, special_ops)
    return Energy(
        dram_pj=dram_bytes * e.dram_pj_per_byte if dram_pj is None else dram_pj,
        sram_pj=sram_bytes * e.sram_pj_per_byte if sram_pj is None else sram_pj,
        compute_pj=compute_pj,
        static_pj=e.static_mw * 1e-3 * seconds * 1e12, units_pj=units_pj)


def technology_of(config: HardwareConfig) -> str:
    """The name of the energy table `config`'s [energy] figures come from (`energy.technology`;
    a key the section does not give takes that table's figure), which every report names so
    that nobody reads 45 nm fp32 figures without being told."""
    return config.energy.technology


__all__ = ["Energy", "energy", "technology_of"]
