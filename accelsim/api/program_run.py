"""`run_program`: the one orchestration of a program on the accelerator.

    compile for the machine (the tile search's pipeline, `accelsim.compile.accelerator`)
      -> compulsory traffic of the program as given (the honest roofline's bytes)
      -> simulate (event) or estimate (analytic), or both
      -> figures (`Report`, the cluster report, the `--json` figures)

`accelsim run INPUT --target sim` (`accelsim.cli.sim_target`), `accelsim.run` (`entry.py`),
the DSE's kernel points (`accelsim.dse.evaluate`) and networks' functional runs
(`accelsim.network.functional`) all call it, so a kernel's cycles are the same whichever way
it ran. It prints nothing and writes no file: the caller shows `ProgramRun.report` and writes
traces or figures from `ProgramRun.sim`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from accelsim.api.program import Program
from accelsim.config import HardwareConfig
from accelsim.errors import InputError

if TYPE_CHECKING:
    from accelsim.dse.cluster_run import ClusterRun
    from accelsim.estimate.analytic import AnalyticResult
    from accelsim.sim.simulate import SimResult
    from compiler.analysis.compulsory import CompulsoryTraffic
    from compiler.diagnostics import Remark
    from compiler.ir.ops import ModuleOp

FIDELITIES = ("event", "analytic", "both")
DISTRIBUTIONS = ("auto", "block", "cyclic", "block2d")


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How to run a program: the `accelsim run --target sim` flags that change what runs.

    `fidelity`: "event" (the SimPy machine), "analytic" (the closed-form estimate) or "both"
    (event, with the estimate's divergence). `timing_only`: no data (kernels not run).
    `as_is`: no accelerator pipeline (the module is simulated as given). `passes_given`: the
    caller already compiled the module with its own pass flags (the honest roofline then reads
    a fresh copy of the program as loaded). `distribution`: how parallel loops are spread over
    clusters when the config has more than one. `keep_records`: keep every trace record (for a
    timeline or a trace file), else only the summary the report needs. `estimate`: an event
    run also walks the analytic estimate (`analytic_cycles`, `analytic_error`) and puts the
    report's tables (units, buffers, levels, links) among the figures, as `--json` shows them;
    without, its figures are the report's scalars (`accelsim.report.metrics`)."""

    fidelity: str = "event"
    timing_only: bool = False
    as_is: bool = False
    passes_given: bool = False
    distribution: str = "auto"
    keep_records: bool = False
    estimate: bool = True
    mapping: str | None = None       # an explicit mapping (Timeloop's loop nest per level)
    tile_policy: str = "search"      # or "gemmini": the tiles Gemmini's software picks

    @property
    def mapped(self) -> bool:
        """Whether the program is compiled from a mapping or a tiling policy, not the search."""
        return bool(self.mapping) or self.tile_policy != "search"

    def __post_init__(self) -> None:
        if self.fidelity not in FIDELITIES:
            raise InputError(f"fidelity {self.fidelity!r}: expected one of {', '.join(FIDELITIES)}")
        if self.distribution not in DISTRIBUTIONS:
            raise InputError(f"distribution {self.distribution!r}: expected one of "
                             f"{', '.join(DISTRIBUTIONS)}")

    @property
    def functional(self) -> bool:
        """Whether data moves and kernels run (an event run that is not timing only)."""
        return not self.timing_only and self.fidelity != "analytic"


@dataclass(frozen=True, slots=True)
class AnalyticSummary:
    """What a one-cluster analytic run shows: the estimate's cycles (printed as one line)."""

    fidelity: str
    config: str
    cycles: int
    seconds: float
    lines: tuple[str, ...] = ()      # DRAM bytes, roofline, MAC utilization, energy

    def __str__(self) -> str:
        return "\n".join([f"sim [{self.fidelity}] config {self.config}: {self.cycles} cycles "
                          f"({self.seconds * 1e6:.2f} us)", *self.lines])


@dataclass(frozen=True, slots=True)
class ClusterSummary:
    """What a many-cluster run shows: the header line, the cluster report (event) and the
    analytic estimate beside it; `str()` is the text `accelsim run` prints."""

    config: str
    clusters: int
    distribution: str
    cycles: int
    seconds: float
    analytic_cycles: int
    report: Any = None               # accelsim.report.clusters.ClusterReport (event runs)
    analytic_error: float = 0.0
    phases: int = 0
    startup_cycles: int = 0
    serial: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    summary: tuple[str, ...] = ()    # roofline, traffic, MAC utilization, energy

    def __str__(self) -> str:
        if self.report is None:
            return "\n".join([
                f"sim [analytic] config {self.config}: {self.cycles} cycles, distribution "
                f"{self.distribution} (slowest of {self.clusters} clusters, each on its "
                "fair share of DRAM and the interconnect)", *self.summary])
        lines = [f"sim [event] config {self.config}: {self.cycles} cycles "
                 f"({self.seconds * 1e6:.2f} us), distribution {self.distribution}",
                 self.report.text(), *self.summary,
                 f"  analytic estimate {self.analytic_cycles} ({self.analytic_error:+.2%}; "
                 f"{self.phases} phase(s) between barriers, start-up wait {self.startup_cycles} "
                 "cycles)"]
        lines += [f"  on cluster 0 only: {loc}" for loc in self.serial]
        lines += [f"  flag: {f}" for f in self.flags]
        return "\n".join(lines)


@dataclass(slots=True)
class ProgramRun:
    """One program's run: what compiled, what ran, and every figure.

    `figures` is the `--json` object's run part (an I/O edge: plain values); `report` is what
    `accelsim run` prints (`Report`, `ClusterSummary` or `AnalyticSummary`); `sim` the event
    run's `SimResult` (its trace), `estimate` the analytic one."""

    program: Program
    config: HardwareConfig
    options: RunOptions
    pipeline: tuple[str, ...]
    remarks: tuple[Remark, ...]
    compile_seconds: float
    wall_seconds: float
    figures: dict[str, Any]
    arrays: dict[str, np.ndarray]
    outputs: tuple[str, ...]
    report: Any
    compulsory: CompulsoryTraffic | None = None
    sim: SimResult | None = None
    estimate: AnalyticResult | None = None
    clusters: ClusterRun | None = None
    dma_groups: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cycles(self) -> int:
        return int(self.figures["cycles"])

    def json_figures(self, files: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
        """The run's `--json` figures, with the files the caller wrote (`files`) and, for one
        cluster, the pipeline's pass flags last (a many-cluster run has them among its own)."""
        out = dict(self.figures)
        if files:
            out["files"] = list(files)
        if self.clusters is None:
            out["pipeline"] = list(self.pipeline)
        return out


def run_program(program: Program, config: HardwareConfig,
                inputs: Mapping[str, np.ndarray] | None = None,
                options: RunOptions | None = None, *, compiled: ModuleOp | None = None,
                compulsory: CompulsoryTraffic | None = None) -> ProgramRun:
    """Run `program` on `config` as `accelsim run --target sim` does.

    The module of `program` is compiled in place by the accelerator pipeline unless
    `options.as_is` or `options.passes_given`; `compiled` gives an already compiled module
    instead (the DSE's compile cache; `program.module` is then the program as written).
    `compulsory`: the program's compulsory traffic when the caller has it (else analysed
    here). Raises `InputError` for option combinations a run cannot honour."""
    opts = options or RunOptions()
    if config.clusters > 1:
        return _run_clusters(program, config, inputs, opts)
    module = compiled if compiled is not None else program.module
    func = program.func_name
    if compulsory is None:
        from accelsim.report import input_traffic

        # the honest roofline needs the traffic of the program as given, before any pass
        source = program.module
        if opts.passes_given and compiled is None:
            from accelsim.compile.clone import clone_module

            source = clone_module(program.module)  # pass flags ran on it: reload-equivalent
        compulsory = input_traffic(source, func, config)
    t0 = time.perf_counter()
    applied: list[str] = list(program.lowered)
    remarks: tuple[Remark, ...] = ()
    if compiled is None and opts.mapped:
        applied += _compile_mapped(program, config, module, opts)
    elif compiled is None and not opts.as_is and not opts.passes_given:
        from accelsim.compile.accelerator import compile_for_accelerator

        pipeline, found = compile_for_accelerator(config, module, func)
        remarks = tuple(found)
        applied += pipeline.flags()
    elif opts.as_is:
        from accelsim.compile.race_check import check_user_program

        check_user_program(module)   # the user's own DMAs: a race is theirs, on every fidelity
    compile_seconds = time.perf_counter() - t0
    if opts.fidelity == "analytic":
        return _analytic(program, config, module, inputs, opts, compulsory, applied, remarks,
                         compile_seconds)
    return _event(program, config, module, inputs, opts, compulsory, applied, remarks,
                  compile_seconds)


def _compile_mapped(program: Program, config: HardwareConfig, module: ModuleOp,
                    opts: RunOptions) -> list[str]:
    """`mapping` / `tile_policy = "gemmini"`: the workload's tiled program, compiled, in place
    of `module`'s body; the pipeline's flags."""
    from accelsim.compile.accelerator import adopt_module
    from accelsim.compile.mapping import compile_workload

    w = program.workload
    if opts.as_is or opts.passes_given:
        raise InputError("--mapping / --tile-policy: the program is compiled from the mapping; "
                         "no --as-is or pass flags with it")
    if w is None:
        raise InputError("--mapping / --tile-policy gemmini: expected a gemm or conv2d workload "
                         f"spec as INPUT, got {program.source!r}")
    compiled, pipe = compile_workload(config, w.name, dict(w.params), w.dtype, opts.mapping,
                                      opts.tile_policy)
    adopt_module(module, compiled)
    return pipe.flags()


def _analytic(program: Program, config: HardwareConfig, module: ModuleOp,
              inputs: Mapping[str, np.ndarray] | None, opts: RunOptions,
              compulsory: CompulsoryTraffic, applied: list[str], remarks: tuple[Remark, ...],
              compile_seconds: float) -> ProgramRun:
    from accelsim.compile.compile_cache import estimated
    from accelsim.estimate.analytic import estimate
    from accelsim.report.roofline import traffic_figures

    # in a sweep (`compile_cache.active()`) the tile search already estimated its winner
    est = (estimate(module, config, func=program.func_name, inputs=inputs) if inputs is not None
           else estimated(module, config, program.func_name))
    figures: dict[str, Any] = {
        "fidelity": "analytic", "cycles": est.cycles, "seconds": est.seconds,
        "config": config.name, "config_hash": config.hash(), "dma_ops": est.dma_ops,
        "kernel_calls": est.kernel_calls, "dram_bytes": est.dram_bytes}
    figures.update(traffic_figures(compulsory, est.dram_bytes))
    from accelsim.report.analytic_figures import analytic_report_figures, summary_lines

    figures.update(analytic_report_figures(config, est.cycles, est.dram_bytes, compulsory,
                                           est.energy))
    summary = AnalyticSummary("analytic", config.name, est.cycles, est.seconds,
                              tuple(summary_lines(figures)))
    return ProgramRun(program, config, opts, tuple(applied), remarks, compile_seconds,
                      est.wall_seconds, figures, {}, (), summary, compulsory, estimate=est)


def _event(program: Program, config: HardwareConfig, module: ModuleOp,
           inputs: Mapping[str, np.ndarray] | None, opts: RunOptions,
           compulsory: CompulsoryTraffic, applied: list[str], remarks: tuple[Remark, ...],
           compile_seconds: float) -> ProgramRun:
    from accelsim.compile.compile_cache import estimated
    from accelsim.estimate.analytic import estimate
    from accelsim.report import Report
    from accelsim.sim.options import SimOptions
    from accelsim.sim.simulate import simulate

    functional = opts.functional
    func = program.func_name
    t1 = time.perf_counter()
    result = simulate(module, config, inputs=inputs if functional else None, func=func,
                      functional=functional, options=SimOptions(keep_records=opts.keep_records))
    wall = time.perf_counter() - t1
    report = Report.from_result(result, compulsory)
    figures = report.figures()  # `accelsim.report.metrics`, with the report built once
    figures["config_hash"] = result.config.hash()
    figures["fidelity"] = getattr(result, "fidelity", "event")
    figures.update(result.extra or {})
    arrays = dict(result.outputs) if result.outputs is not None else {}
    outputs = tuple(arrays) if functional else ()
    if not opts.estimate:  # the report's scalars only (`--compare`'s sides)
        return ProgramRun(program, config, opts, tuple(applied), remarks, compile_seconds, wall,
                          figures, arrays, outputs, report, compulsory, result)
    est = (estimate(module, config, func=func, inputs=inputs) if inputs is not None
           else estimated(module, config, func))
    figures["analytic_cycles"] = est.cycles
    figures["analytic_error"] = (est.cycles - result.cycles) / result.cycles if result.cycles else 0.0
    if opts.fidelity == "both":
        from accelsim.report.divergence import divergence

        figures["fidelity"] = "both"
        figures["event_cycles"] = result.cycles
        figures["divergence"] = divergence(est.cycles, result.cycles)
    tables = report.to_dict()
    for key in ("units", "buffers", "levels", "links", "precisions"):
        figures[key] = tables[key]
    groups: list[dict[str, Any]] = []
    if opts.fidelity == "both":
        from accelsim.report.divergence import group_rows

        groups = group_rows(report.buffers, result.config)  # type: ignore[arg-type]
        figures["dma_groups"] = groups
    return ProgramRun(program, config, opts, tuple(applied), remarks, compile_seconds, wall,
                      figures, arrays, outputs, report, compulsory, result, est,
                      dma_groups=groups)


def _run_clusters(program: Program, config: HardwareConfig,
                  inputs: Mapping[str, np.ndarray] | None, opts: RunOptions) -> ProgramRun:
    """A machine of several clusters: per-cluster programs, the many-cluster event run (or
    analytic estimate) and its figures (`accelsim.dse.cluster_run.run_clusters`)."""
    from accelsim.dse.cluster_run import run_clusters

    if opts.mapped:
        raise InputError(f"--mapping / --tile-policy with clusters = {config.clusters}: a mapping "
                         "describes one cluster's program (run one cluster: --set clusters=1)")
    for given, why in ((opts.as_is, "as_is"), (opts.passes_given, "pass_flags")):
        if given:
            raise InputError(f"{_CLUSTER_FLAG_NAMES[why]} with clusters = {config.clusters}: "
                             f"{CLUSTER_REFUSALS[why]} (or run one cluster: --set clusters=1)")
    fidelity = "analytic" if opts.fidelity == "analytic" else "event"
    run = run_clusters(program.module, config, program.func_name,
                       distribution=opts.distribution, fidelity=fidelity, inputs=inputs,
                       functional=opts.functional, keep_records=opts.keep_records)
    progs, est, figures = run.programs, run.estimate, run.figures
    pipeline = tuple(map(str, figures.get("pipeline") or ()))
    result = run.result
    if result is None:
        from accelsim.report.analytic_figures import summary_lines

        summary = ClusterSummary(config.name, config.clusters, progs.label(config.clusters), est.cycles,
                                 est.cycles / (config.clock_ghz * 1e9), est.cycles,
                                 summary=tuple(summary_lines(figures)))
        return ProgramRun(program, config, opts, pipeline, tuple(progs.remarks),
                          run.compile_seconds, run.sim_seconds, figures, {}, (), summary,
                          clusters=run)
    if opts.fidelity == "both":
        from accelsim.report.divergence import divergence

        figures["fidelity"] = "both"
        figures["event_cycles"] = result.cycles
        figures["divergence"] = divergence(est.cycles, result.cycles)
    from accelsim.report.clusters import cluster_summary_lines, run_cluster_report

    summary = ClusterSummary(config.name, config.clusters, progs.label(config.clusters), result.cycles,
                             result.seconds, est.cycles, run_cluster_report(result, config),
                             float(figures["analytic_error"]), est.phases, est.startup_cycles,
                             tuple(map(str, progs.serial)), tuple(map(str, result.flags)),
                             tuple(cluster_summary_lines(figures)))
    arrays = dict(result.outputs) if result.outputs is not None else {}
    return ProgramRun(program, config, opts, pipeline, tuple(progs.remarks), run.compile_seconds,
                      run.sim_seconds, figures, arrays, tuple(arrays) if opts.functional else (),
                      summary, sim=result, clusters=run)


# the options a many-cluster run refuses, and why (each cluster runs its own program, made by
# affine-cluster-distribute and the accelerator pipeline; the report is the cluster report)
CLUSTER_REFUSALS = {
    "as_is": "every cluster needs its own share of the program (affine-cluster-distribute), "
             "so the input cannot be simulated as given",
    "pass_flags": "each cluster's program comes from affine-cluster-distribute and the "
                  "accelerator pipeline; pass flags would replace it",
    "compare": "--compare sets two pipelines against each other on one cluster; compare "
               "cluster counts with two runs (--set clusters=N) or `accelsim dse`",
    "roofline": "the plot is one cluster's roofline; the machine's (clusters' arrays, DRAM, "
                "the hottest link) is the report's `bound` line and --json cluster_roofline",
}
_CLUSTER_FLAG_NAMES = {"as_is": "--as-is", "pass_flags": "pass flags"}


__all__ = ["CLUSTER_REFUSALS", "AnalyticSummary", "ClusterSummary", "ProgramRun", "RunOptions",
           "run_program"]
