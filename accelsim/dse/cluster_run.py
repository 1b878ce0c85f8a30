"""One program on a machine of `config.clusters` > 1 clusters: the per-cluster programs
(`accelsim.compile.clusters.compile_for_clusters`), their analytic estimate
(`accelsim.estimate.clusters.estimate_clusters`) and, at the event fidelity, the many-cluster
run (`accelsim.sim.clusters.simulate_clusters`) with its figures
(`accelsim.report.clusters.cluster_figures`).

`accelsim run KERNEL --target sim` (`accelsim.cli.sim_target`) and the DSE evaluator
(`accelsim.dse.evaluate`, hence every network run) both call `run_clusters`, so a kernel's
cycles are the same whichever way it ran.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from accelsim.config import HardwareConfig
from compiler.ir.ops import ModuleOp


@dataclass
class ClusterRun:
    programs: Any                     # accelsim.compile.clusters.ClusterPrograms
    estimate: Any                     # accelsim.estimate.clusters.ClusterEstimate
    result: Any | None                # the event run's SimResult (None: analytic only)
    figures: dict[str, Any]           # the report figures (`--json` keys)
    compile_seconds: float
    sim_seconds: float


def run_clusters(module: ModuleOp, config: HardwareConfig, func: str | None, *,
                 distribution: str = "auto", fidelity: str = "event",
                 inputs: Mapping[str, np.ndarray] | None = None,
                 functional: bool = False, keep_records: bool = False) -> ClusterRun:
    """Compile `module` for the clusters, estimate it and (fidelity "event") simulate it;
    `keep_records`: the run's trace keeps every record (for a trace file or a timeline), else
    only the per-unit sums the figures need (`accelsim.trace.tally`)."""
    from accelsim.compile.clusters import compile_for_clusters
    from accelsim.estimate.clusters import estimate_clusters
    from accelsim.report import input_traffic
    from accelsim.report.clusters import cluster_analytic_figures, cluster_figures

    compulsory = input_traffic(module, func, config)  # of the program as given, for the roofline
    t0 = time.perf_counter()
    progs = compile_for_clusters(config, module, func, distribution)
    compile_seconds = time.perf_counter() - t0
    est = estimate_clusters(progs.modules, config, func)
    if fidelity == "analytic":
        figures = cluster_analytic_figures(est.cycles, est.per_cluster, config,
                                           progs.distribution, progs.flags)
        figures["serial_nests"] = progs.serial
        figures["active_clusters"] = progs.active or config.clusters
        from accelsim.report.analytic_figures import analytic_report_figures
        from accelsim.report.roofline import traffic_figures

        figures.update(traffic_figures(compulsory, est.dram_bytes))
        figures.update(analytic_report_figures(config, est.cycles, est.dram_bytes, compulsory,
                                               est.energy(config)))
        return ClusterRun(progs, est, None, figures, compile_seconds, time.perf_counter() - t0)
    from accelsim.sim.clusters import simulate_clusters
    from accelsim.sim.options import SimOptions

    t1 = time.perf_counter()
    result = simulate_clusters(progs.modules, config, inputs if functional else None, func,
                               options=SimOptions(functional=functional,
                                                  keep_records=keep_records))
    sim_seconds = time.perf_counter() - t1
    figures = cluster_figures(result, config, est.cycles, progs.distribution, progs.flags,
                              compulsory)
    figures["serial_nests"] = progs.serial
    figures["active_clusters"] = progs.active or config.clusters
    return ClusterRun(progs, est, result, figures, compile_seconds, sim_seconds)
