"""The real evaluation of a design point: build, compile, simulate, report.

`evaluate_point(point)` runs in a worker process: it builds the workload, applies the compiler
options as passes (tile -> data copy with DMA -> pipelining), loads the hardware config with the
point's overrides, simulates at the point's fidelity and returns every report figure as a flat
dict of numbers and strings. Anything that goes wrong raises, and the runner stores the error.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from accelsim.compile import compile_cache
from accelsim.dse.feasibility import capacity_refusals, check_buffers_fit, check_tiles_fit
from accelsim.dse.spec import Point, Scalar

if TYPE_CHECKING:
    from accelsim.compile.pipeline import AcceleratorPipeline
    from accelsim.config import HardwareConfig
    from compiler.ir.ops import ModuleOp

INPUT_SEED = 0


def point_pipeline(options: Mapping[str, Scalar], config: HardwareConfig) -> AcceleratorPipeline:
    """The accelerator pipeline the point's compiler options mean.

    `AcceleratorPipeline.for_config`'s capacity rule: with `stages` buffers per copied region,
    the copies get 1/stages of the SRAM and "auto" tiles (the cache model) aim at half of that,
    so the multi-buffered working set fits; the pipelining pass itself may use the whole SRAM.
    "search" (the default, what `accelsim run --target sim` compiles) is decided per module by
    the tile search (`compiled_module`); this pipeline then only groups points.
    """
    from accelsim.compile.pipeline import AcceleratorPipeline

    pipe = AcceleratorPipeline.for_config(config, stages=int(options["stages"]))
    tiles = str(options["tile_sizes"])  # "auto", "none" or "8,8" (`spec._tile_sizes`)
    if tiles == "none":
        pipe = pipe.replace(tile_cache_kib=None)
    elif tiles not in ("auto", "search"):  # "search" is decided per module (compiled_module)
        pipe = pipe.replace(tile_cache_kib=None, tile_sizes=tuple(int(t) for t in tiles.split(",")))
    return pipe.replace(copies=bool(options["data_copy"]),
                        copy_out_pipelining=bool(options.get("copy_out_pipelining", True)),
                        cross_tile_prefetch=bool(options.get("cross_tile_prefetch", True)))


def compile_flags(options: Mapping[str, Scalar], config: HardwareConfig) -> list[tuple[str, str]]:
    """The passes (name, mlir-opt option text) of `point_pipeline(options, config)`."""
    return point_pipeline(options, config).steps()


# Compiling (isl-backed passes) costs most of a point; simulating is cheap. Points that differ
# only in hardware keys the compiler does not read (DMA engines, DRAM channels, ...) share
# their compiled module: each worker keeps the last few and hands out clones.
_COMPILED: OrderedDict[tuple[str, tuple[tuple[str, str], ...]], ModuleOp] = OrderedDict()
COMPILE_CACHE_SIZE = 64


def compiled_module(point: Point, config: HardwareConfig) -> ModuleOp:
    """The point's workload compiled with its options: a fresh clone of a cached module."""
    import workloads

    search = str(point.options["tile_sizes"]) == "search"
    mapping = str(point.options.get("mapping", "") or "")
    policy = str(point.options.get("tile_policy", "auto"))
    mapped = bool(mapping) or policy == "gemmini"
    key = (point.workload, (("mapped", mapping, policy, config.hash()),) if mapped else
           (("search", config.hash()),) if search else
           tuple(compile_flags(point.options, config)))
    module = _COMPILED.get(key)
    if module is None:
        module = workloads.get(point.workload).module()
        if mapped:  # an explicit mapping or Gemmini's tiler: `accelsim run --mapping`'s program
            from accelsim.compile.mapping import compile_workload

            wl = workloads.get(point.workload)
            module, _ = compile_workload(config, wl.name, dict(wl.params), wl.dtype, mapping or None,
                                         "gemmini" if policy == "gemmini" else "search")
        elif search:  # the pipeline --target sim compiles with: its tile search decides
            from accelsim.compile.accelerator import compile_for_accelerator

            compile_for_accelerator(config, module)
        else:
            module = compile_point(point, module, config)
        _COMPILED[key] = module
        while len(_COMPILED) > COMPILE_CACHE_SIZE:
            _COMPILED.popitem(last=False)
    else:
        _COMPILED.move_to_end(key)
    from accelsim.compile.clone import clone_module

    return clone_module(module)


def compile_point(point: Point, module: ModuleOp, config: HardwareConfig) -> ModuleOp:
    from compiler.transforms import PassManager

    return PassManager(point_pipeline(point.options, config).passes()).run(module)


def evaluate_point(point: Point) -> dict[str, Scalar | None]:
    """Every report figure of one point (plus `config_hash`, which the store keeps apart):
    `accelsim.api.run_program` on the point's compiled module, as `accelsim run --target sim`."""
    import workloads
    from accelsim.config import load_config

    wl = workloads.get(point.workload)
    config = load_config(point.config).with_overrides(point.hw)
    if config.clusters > 1:
        return cluster_point_figures(point, config)
    with compile_cache.enabled():  # a sweep's points share the work their hardware does not change
        return _point_figures(point, wl, config)


def _point_figures(point: Point, wl: Any, config: HardwareConfig) -> dict[str, Scalar | None]:
    from accelsim.api.program import Program, pick_function
    from accelsim.api.program_run import RunOptions, run_program

    with capacity_refusals():  # a point whose buffers cannot fit is infeasible, never simulated
        check_tiles_fit(point, config, compile_flags(point.options, config))
        module = compiled_module(point, config)
        check_buffers_fit(module, config)
    compulsory = workload_traffic(point.workload, config)
    program = Program(point.workload, module, pick_function(module, wl.func_name), wl)
    analytic = point.fidelity in ("analytic", "both")
    # a point stores report figures only: the trace summary, not the records
    inputs = wl.random_inputs(INPUT_SEED) if point.functional and not analytic else None
    run = run_program(program, config, inputs,
                      RunOptions(fidelity="analytic" if analytic else "event",
                                 timing_only=not point.functional),
                      compiled=module, compulsory=compulsory)
    assert run.estimate is not None
    if analytic:
        figures = estimate_figures(run.estimate, compulsory)
        if point.fidelity == "both":  # the event figures come if the point is on the front
            figures["analytic_cycles"] = figures["cycles"]
            figures["confirmed"] = False
    else:
        assert run.sim is not None
        figures = report_figures(run.report)
        # the analytic estimate of the same program, so a sweep shows how far the two differ
        est, cycles = run.estimate.cycles, run.sim.cycles
        figures["analytic_cycles"] = est
        figures["analytic_error"] = (est - cycles) / cycles if cycles else None
        if point.functional:
            figures.update(_check_outputs(wl, inputs, run.sim.outputs))
    figures["config_hash"] = config.hash()
    return figures


# With clusters > 1 a point compiles as `accelsim run --target sim` does (the tile search on the
# largest cluster's share, `compile_for_clusters`): only these tile choices mean that.
CLUSTER_TILE_SIZES = ("auto", "search")


def cluster_point_figures(point: Point, config: HardwareConfig) -> dict[str, Scalar | None]:
    """A point on a machine of several clusters: `accelsim.dse.cluster_run.run_clusters`, the
    code of `accelsim run KERNEL --target sim` with clusters > 1, timing only (event, or
    analytic for `fidelity = "analytic"`); its scalar figures, the per-cluster tables left out."""
    import workloads
    from accelsim.api.program import Program, pick_function
    from accelsim.api.program_run import RunOptions, run_program
    from accelsim.errors import InputError

    tiles = str(point.options["tile_sizes"])
    if tiles not in CLUSTER_TILE_SIZES:
        raise InputError(f"tile_sizes = {tiles!r} with clusters = {config.clusters}: a many-cluster "
                         f"point compiles with the tile search (allowed: {', '.join(CLUSTER_TILE_SIZES)})")
    if point.functional:
        raise InputError(f"functional = true with clusters = {config.clusters}: many-cluster "
                         "points are timing only")
    wl = workloads.get(point.workload)
    fidelity = "analytic" if point.fidelity == "analytic" else "event"
    module = wl.module()
    program = Program(point.workload, module, pick_function(module, wl.func_name), wl)
    ran = run_program(program, config, None, RunOptions(fidelity=fidelity, timing_only=True))
    run = ran.clusters
    assert run is not None
    figures: dict[str, Scalar | None] = {}
    for k, v in run.figures.items():
        if k not in _NOT_FIGURES and isinstance(v, int | float | str) and not isinstance(v, bool):
            figures[k] = v
    rep = run.figures
    figures["pipeline"] = " ".join(map(str, rep.get("pipeline") or ()))
    figures["flags"] = "; ".join(map(str, rep.get("flags") or ()))
    if run.result is not None:
        st = run.result.stats
        for name in ("macs",):
            if isinstance(getattr(st, name, None), int):
                figures[name] = getattr(st, name)
        roof = rep.get("cluster_roofline") or {}
        if isinstance(roof, dict):  # of the schedule: the DRAM bytes it moved
            figures["cluster_roofline_cycles"] = roof.get("roofline_cycles")
            figures["cluster_roofline_bound"] = roof.get("bound")
        # the honest roofline (roofline_cycles, _bound, _ratio, compulsory_bytes) comes with
        # run.figures, as `accelsim run` reports it (`cluster_figures`)
        figures["load_imbalance"] = rep.get("load_imbalance")
    if point.fidelity == "both":
        figures["confirmed"] = False
    figures["config_hash"] = config.hash()
    return figures


def confirm_point(point: Point) -> dict[str, Scalar | None]:
    """`fidelity = "both"`, a point on the analytic front: its event figures (which replace the
    analytic ones in its row), with both cycle figures and their divergence."""
    import dataclasses

    from accelsim.report.divergence import divergence

    figures = evaluate_point(dataclasses.replace(point, fidelity="event"))
    event = figures["cycles"]
    analytic = figures["analytic_cycles"]
    figures["event_cycles"] = event
    figures["divergence"] = (divergence(float(analytic), float(event))  # type: ignore[arg-type]
                             if isinstance(event, int) and isinstance(analytic, int) else None)
    figures["confirmed"] = True
    return figures


def workload_traffic(workload: str, config: Any) -> Any:
    """The compulsory traffic of the workload as built (before any pass), for the honest
    roofline columns; the same for every point of the workload on configs with its DRAM space."""
    return _workload_traffic(workload, config.spaces.dram)


@lru_cache(maxsize=64)
def _workload_traffic(workload: str, dram_space: int) -> Any:
    import workloads
    from compiler.analysis.compulsory import CompulsoryTraffic, compulsory_traffic
    from compiler.diagnostics import DiagnosticError

    wl = workloads.get(workload)
    module = wl.module()

    def traffic() -> CompulsoryTraffic:
        try:
            return compulsory_traffic(module, wl.func_name, memory_space=dram_space)
        except DiagnosticError as exc:
            return CompulsoryTraffic.unknown(wl.func_name, dram_space, str(exc))

    # by the program's content: a new process (the next network run) reads it from disk
    return compile_cache.memo("compulsory", (compile_cache.module_key(module), wl.func_name,
                                             dram_space), traffic)


@lru_cache(maxsize=256)
def _config(name: str, hardware: tuple[tuple[str, Scalar], ...]) -> Any:
    from accelsim.config import load_config

    return load_config(name).with_overrides(dict(hardware))


def compile_group(point: Point) -> tuple[Any, ...]:
    """Points with equal groups compile to the same program (the local runner sends them to
    one worker, whose compile cache then hits)."""
    from accelsim.errors import ConfigError

    try:
        config = _config(point.config, point.hardware)
    except ConfigError:  # a bad config fails in the worker, where its error is stored
        return ("unconfigurable", point.key)
    return (point.workload, tuple(compile_flags(point.options, config)))


evaluate_point.group_key = compile_group  # type: ignore[attr-defined]
evaluate_point.confirm = confirm_point  # type: ignore[attr-defined]
confirm_point.group_key = compile_group  # type: ignore[attr-defined]
# Imported once by the local runner's fork server, so each worker starts with them loaded.
PRELOAD = ("workloads", "accelsim.config", "accelsim.sim.simulate", "accelsim.estimate.analytic",
           "accelsim.report", "compiler.transforms.registry")
evaluate_point.preload = PRELOAD  # type: ignore[attr-defined]
confirm_point.preload = PRELOAD  # type: ignore[attr-defined]


# Report keys that are inputs of the point (already columns), or per-row tables.
_NOT_FIGURES = ("config", "func", "fidelity", "flags", "warnings", "units", "buffers", "levels", "links")


def event_figures(result: Any, compulsory: Any = None) -> dict[str, Scalar | None]:
    """Every scalar report figure of an event run (the honest roofline ones from `compulsory`,
    the workload's `CompulsoryTraffic`), plus one utilization column per unit."""
    from accelsim.report import Report

    return report_figures(Report.from_result(result, compulsory))


def report_figures(report: Any) -> dict[str, Scalar | None]:
    """Every scalar figure of a `Report` (a point's row), plus one utilization column per unit."""
    m = dict(report.to_dict())
    figures: dict[str, Scalar | None] = {k: v for k, v in m.items() if k not in _NOT_FIGURES}
    if "dram_bytes" not in figures:
        figures["dram_bytes"] = int(m["dram_bytes_read"]) + int(m["dram_bytes_written"])
    figures["flags"] = "; ".join(map(str, [*(f"warning: {w}" for w in m.get("warnings") or ()),
                                           *(m.get("flags") or ())]))
    for row in m.get("units") or ():
        if isinstance(row, dict) and "unit" in row and "utilization" in row:
            figures[f"{str(row['unit']).replace('.', '_')}_utilization"] = float(row["utilization"])
    for k, v in list(figures.items()):
        if isinstance(v, float) and v != v:
            figures[k] = None
        elif not (v is None or isinstance(v, int | float | str)):
            figures[k] = v.item() if hasattr(v, "item") else str(v)
    return figures


def analytic_figures(module: Any, config: Any, func: str | None,
                     compulsory: Any = None) -> dict[str, Scalar | None]:
    """`estimate_figures` of the analytic estimate of `module` on `config`."""
    from accelsim.estimate.analytic import estimate

    return estimate_figures(estimate(module, config, func=func), compulsory)


def estimate_figures(est: Any, compulsory: Any = None) -> dict[str, Scalar | None]:
    """Every scalar field of an analytic estimate (`accelsim.estimate.analytic.AnalyticResult`):
    no trace, so fewer figures than an event run (cycles, DMA ops, kernel calls, DRAM bytes,
    compute cycles, the kernels' work), its energy by the event report's formula
    (`energy_pj` and its parts, `AnalyticResult.energy`), plus `compulsory_bytes` and
    `traffic_ratio` (DRAM bytes / the compulsory ones) from `compulsory`. New fields of the
    estimate become columns by themselves."""
    import dataclasses

    figures: dict[str, Scalar | None] = {}
    for f in dataclasses.fields(est):
        v = getattr(est, f.name)
        if f.name != "wall_seconds" and isinstance(v, int | float | str) and not isinstance(v, bool):
            figures[f.name] = v
    figures["seconds"] = float(est.seconds)
    e = est.energy  # the event report's formula on the estimate's counts
    figures.update(energy_pj=e.total_pj, energy_dram_pj=e.dram_pj, energy_sram_pj=e.sram_pj,
                   energy_compute_pj=e.compute_pj, energy_static_pj=e.static_pj)
    if compulsory is not None:
        from accelsim.report.analytic_figures import analytic_report_figures
        from accelsim.report.roofline import traffic_figures

        figures.update(traffic_figures(compulsory, int(est.dram_bytes)))
        # the roofline, MAC utilization and an energy estimate (energy_basis says what it holds)
        figures.update(analytic_report_figures(est.config, int(est.cycles), int(est.dram_bytes),
                                               compulsory, e))
    return figures


def _check_outputs(wl: Any, inputs: Any, outputs: Mapping[str, Any] | None) -> dict[str, Scalar | None]:
    """Functional points also say whether the simulated arrays match the numpy reference."""
    import numpy as np

    if outputs is None:
        return {"outputs_match": None, "max_abs_error": None}
    expected = wl.reference(inputs)
    worst, match = 0.0, True
    for name in wl.outputs:
        got, want = np.asarray(outputs[name], dtype=np.float64), np.asarray(expected[name], dtype=np.float64)
        worst = max(worst, float(np.max(np.abs(got - want), initial=0.0)))
        match = match and bool(np.allclose(got, want, rtol=wl.rtol, atol=wl.atol))
    return {"outputs_match": match, "max_abs_error": worst}
