"""`accelsim run INPUT --target sim`: compile for the accelerator and simulate it.

    accelsim run gemm:M=256,N=256,K=256 --target sim --config server --json
    accelsim run tiled.mlir --target sim --as-is --timing-only
    accelsim run gemm:M=64,N=64,K=64 --target sim --fidelity analytic

By default the accelerator pipeline for the config runs first (tiling for the SRAM capacity,
data copies with DMA, pipelining: `accelsim.compile`, with the tile search's tiles where its
model applies; `--json` shows it as mlir-opt flags under `pipeline`). Pass flags given on the
command line replace that pipeline; `--as-is`
simulates INPUT exactly as given (e.g. upstream mlir-opt's output). Loop nests left outside
kernels are outlined (`outline-kernels`) in every case.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from accelsim.cli.common import RunOutcome, RunRequest, config_from_args
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.errors import InputError


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("--target sim")
    g.add_argument("--config", default="default", metavar="NAME|FILE",
                   help="hardware preset (default, edge, server, ...) or a TOML file (default: default)")
    g.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                   help="override one config key, dotted as in the TOML (repeatable): "
                        "--set sram.capacity_kib=128 --set dma.engines=4")
    g.add_argument("--as-is", action="store_true",
                   help="simulate INPUT exactly as given: no tiling/copy/pipelining passes")
    g.add_argument("--timing-only", action="store_true",
                   help="skip all data (no arrays, kernels not run): faster, for sweeps")
    g.add_argument("--fidelity", choices=("event", "analytic", "both"), default="event",
                   help="event: the SimPy machine (default); analytic: closed-form estimate; "
                        "both: both, with their divergence (analytic/event - 1) per run and "
                        "per DMA group")
    g.add_argument("--mapping", default=None, metavar="MAPPING",
                   help="an explicit mapping, Timeloop's loop nest per level, outermost first, e.g. "
                        "\"L3[WIO] K12 - L2[WI] K16X - L1[O] K4 C48 P4 C16X - L0[W] P32\": the "
                        "outermost level's loops are the tile loops, in that order, the rest one "
                        "tile (gemm and conv2d workload specs; docs/validation.md)")
    g.add_argument("--tile-policy", choices=("search", "gemmini"), default="search",
                   help="search: accelsim's tile search (default); gemmini: the tiles Gemmini's "
                        "software picks (gemmini-rocc-tests tiled_matmul_auto / tiled_conv_auto; "
                        "gemm and conv2d workload specs)")
    g.add_argument("--distribution", choices=("auto", "block", "cyclic", "block2d"),
                   default="auto", help="with clusters > 1: how parallel loops are spread over "
                   "the clusters (default auto: the tile search's pick of block / block2d)")
    from accelsim.cli.sim_report import add_arguments as add_report_arguments

    add_report_arguments(p)


def _compile_mapped(req: RunRequest, config: Any, module: Any) -> list[str]:
    """`--mapping` / `--tile-policy gemmini`: the workload's tiled program, compiled, in
    place of `module`'s body; the pipeline's flags."""
    from accelsim.compile.accelerator import adopt_module
    from accelsim.compile.mapping import compile_workload

    args, w = req.args, req.program.workload
    if args.as_is or getattr(args, "pass_flags", None):
        raise InputError("--mapping / --tile-policy: the program is compiled from the mapping; "
                         "no --as-is or pass flags with it")
    if w is None:
        raise InputError("--mapping / --tile-policy gemmini: expected a gemm or conv2d workload "
                         f"spec as INPUT, got {req.program.source!r}")
    compiled, pipe = compile_workload(config, w.name, dict(w.params), w.dtype,
                                      getattr(args, "mapping", None),
                                      getattr(args, "tile_policy", "search"))
    adopt_module(module, compiled)
    return pipe.flags()


def run_on_sim(req: RunRequest) -> RunOutcome:
    from accelsim.report import metrics
    from accelsim.sim.simulate import simulate

    args = req.args
    config = config_from_args(args)
    if config.clusters > 1:
        return _run_clusters(req, config)
    if getattr(args, "compare", None):
        from accelsim.cli.sim_report import run_compare

        return run_compare(req)
    module = req.program.module
    func = req.program.func_name
    # the honest roofline needs the traffic of the program as given, before any pass
    from accelsim.cli.sim_report import fresh_module
    from accelsim.report import input_traffic

    compulsory = input_traffic(fresh_module(req.program) if getattr(args, "pass_flags", None)
                               else module, func, config)
    t0 = time.perf_counter()
    applied: list[str] = list(req.program.lowered)
    mapped = getattr(args, "mapping", None) or getattr(args, "tile_policy", "search") != "search"
    if mapped:
        applied += _compile_mapped(req, config, module)
    elif not args.as_is and not getattr(args, "pass_flags", None):
        pipeline, remarks = compile_for_accelerator(config, module, func)
        for r in remarks:
            print(r, file=sys.stderr)
        applied += pipeline.flags()
    compile_seconds = time.perf_counter() - t0
    extra: dict[str, Any]
    if args.fidelity == "analytic":
        from accelsim.cli.sim_report import require_trace_outputs_unused
        from accelsim.estimate.analytic import estimate

        require_trace_outputs_unused(args)

        est = estimate(module, config, func=func, inputs=req.inputs)
        extra = {"fidelity": "analytic", "cycles": est.cycles, "seconds": est.seconds,
                 "config": config.name, "config_hash": config.hash(), "dma_ops": est.dma_ops,
                 "kernel_calls": est.kernel_calls, "dram_bytes": est.dram_bytes}
        from accelsim.report.roofline import traffic_figures

        extra.update(traffic_figures(compulsory, est.dram_bytes))
        arrays: dict[str, Any] = {}
        wall = est.wall_seconds
        outputs: tuple[str, ...] = ()
    else:
        from accelsim.cli.sim_report import records_wanted
        from accelsim.sim.options import SimOptions

        functional = not args.timing_only
        t1 = time.perf_counter()
        result = simulate(module, config, inputs=req.inputs if functional else None, func=func,
                          functional=functional, options=SimOptions(keep_records=records_wanted(args)))
        wall = time.perf_counter() - t1
        extra = metrics(result, compulsory)
        from accelsim.estimate.analytic import estimate

        est = estimate(module, config, func=func, inputs=req.inputs)
        extra["analytic_cycles"] = est.cycles
        extra["analytic_error"] = (est.cycles - result.cycles) / result.cycles if result.cycles else 0.0
        if args.fidelity == "both":
            from accelsim.report.divergence import divergence

            extra["fidelity"] = "both"
            extra["event_cycles"] = result.cycles
            extra["divergence"] = divergence(est.cycles, result.cycles)
        arrays = dict(result.outputs) if result.outputs is not None else {}
        outputs = tuple(arrays) if functional else ()
        from accelsim.cli.sim_report import emit

        # the report table (unless --json), --timeline/--roofline/--trace
        emit(args, result, extra, compulsory=compulsory)
    extra["pipeline"] = applied
    if args.check and not arrays:
        raise InputError("--check needs output data: drop --timing-only / --fidelity analytic")
    if not args.json and args.fidelity == "analytic":
        _print_summary(extra)
    return RunOutcome(arrays, wall, compile_seconds, outputs, extra)


def _print_summary(m: dict[str, Any]) -> None:
    print(f"sim [{m['fidelity']}] config {m['config']}: {m['cycles']} cycles "
          f"({m['seconds'] * 1e6:.2f} us)")
    if m["fidelity"] == "event":
        print(f"  DRAM read {m['dram_bytes_read']} B, written {m['dram_bytes_written']} B; "
              f"compute util {m['compute_utilization']:.1%}, DMA util {m['dma_utilization']:.1%}, "
              f"overlap {m['overlap_fraction']:.1%}, stalls {m['stall_cycles']} cycles")
        print(f"  roofline {m['roofline_cycles']} cycles (ratio {m['roofline_ratio']:.2f}), "
              f"SRAM peak {m['sram_peak_bytes']} B, energy {m['energy_pj'] / 1e6:.3f} uJ; "
              f"analytic estimate {m['analytic_cycles']} ({m['analytic_error']:+.2%})")
        for f in m["flags"]:
            print(f"  flag: {f}")


# the flags a many-cluster run refuses, and why (each cluster runs its own program, made by
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


def _run_clusters(req: RunRequest, config: Any) -> RunOutcome:
    """A machine of several clusters: per-cluster programs, the many-cluster event run and
    its report (`accelsim.dse.cluster_run.run_clusters`, which the DSE evaluator shares)."""

    from accelsim.dse.cluster_run import run_clusters
    from accelsim.report.chrome_trace import write_chrome_trace

    args = req.args
    for flag, why in CLUSTER_REFUSALS.items():
        if getattr(args, flag, None):
            name = "pass flags" if flag == "pass_flags" else f"--{flag.replace('_', '-')}"
            raise InputError(f"{name} with clusters = {config.clusters}: {why} "
                             "(or run one cluster: --set clusters=1)")
    if args.fidelity == "analytic":
        if getattr(args, "trace", None):
            raise InputError("--trace needs the event fidelity")
        if args.check:
            raise InputError("--check needs output data: drop --fidelity analytic")
    from accelsim.cli.sim_report import records_wanted

    functional = not args.timing_only and args.fidelity != "analytic"
    run = run_clusters(req.program.module, config, req.program.func_name,
                       distribution=getattr(args, "distribution", "auto"),
                       fidelity="analytic" if args.fidelity == "analytic" else "event",
                       inputs=req.inputs, functional=functional,
                       keep_records=records_wanted(args))
    progs, est, extra = run.programs, run.estimate, run.figures
    if run.result is None:
        if not args.json:
            print(f"sim [analytic] config {config.name}: {est.cycles} cycles, distribution "
                  f"{progs.distribution} (slowest of {config.clusters} clusters, each on its "
                  "fair share of DRAM and the interconnect)")
        return RunOutcome({}, run.sim_seconds, run.compile_seconds, (), extra)
    result = run.result
    if args.fidelity == "both":
        from accelsim.report.divergence import divergence

        extra["fidelity"] = "both"
        extra["event_cycles"] = result.cycles
        extra["divergence"] = divergence(est.cycles, result.cycles)
    for r in progs.remarks:
        print(r, file=sys.stderr)
    if getattr(args, "trace", None):
        write_chrome_trace(args.trace, result.trace, config.clock_ghz)
    if getattr(args, "timeline", None):
        from plots.cluster_timeline import plot_cluster_timeline

        plot_cluster_timeline(result.trace, args.timeline, config=config)
    if not args.json:
        from accelsim.report.clusters import run_cluster_report

        rep = run_cluster_report(result, config)
        print(f"sim [event] config {config.name}: {result.cycles} cycles "
              f"({result.seconds * 1e6:.2f} us), distribution {progs.distribution}")
        print(rep.text())
        print(f"  analytic estimate {est.cycles} ({extra['analytic_error']:+.2%}; {est.phases} "
              f"phase(s) between barriers, start-up wait {est.startup_cycles} cycles)")
        for loc in progs.serial:
            print(f"  on cluster 0 only: {loc}")
        for f in result.flags:
            print(f"  flag: {f}")
    arrays = dict(result.outputs) if result.outputs is not None else {}
    return RunOutcome(arrays, run.sim_seconds, run.compile_seconds,
                      tuple(arrays) if functional else (), extra)
