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
from typing import Any

from accelsim.cli.common import RunOutcome, RunRequest, config_from_args
from accelsim.errors import InputError


def add_arguments(p: argparse.ArgumentParser) -> None:
    from accelsim.cli.target_choice import StoreGiven

    g = p.add_argument_group("--target sim (any of these without --target means --target sim)")
    g.add_argument("--config", default="default", metavar="NAME|FILE", action=StoreGiven,
                   help="hardware preset (default, edge, server, ...) or a TOML file (default: default)")
    g.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set",
                   help="override one config key, dotted as in the TOML (repeatable): "
                        "--set sram.capacity_kib=128 --set dma.engines=4")
    g.add_argument("--as-is", action="store_true",
                   help="simulate INPUT exactly as given: no tiling/copy/pipelining passes")
    g.add_argument("--timing-only", action="store_true",
                   help="skip all data (no arrays, kernels not run): faster, for sweeps")
    g.add_argument("--fidelity", choices=("event", "analytic", "both"), default="event",
                   action=StoreGiven,
                   help="event: the SimPy machine (default); analytic: closed-form estimate; "
                        "both: both, with their divergence (analytic/event - 1) per run and "
                        "per DMA group")
    g.add_argument("--distribution", choices=("auto", "block", "cyclic", "block2d"),
                   default="auto", action=StoreGiven,
                   help="with clusters > 1: how parallel loops are spread over the clusters "
                        "(default auto: the tile search's pick of block / block2d)")
    from accelsim.cli.sim_report import add_arguments as add_report_arguments

    add_report_arguments(p)


def run_on_sim(req: RunRequest) -> RunOutcome:
    """`accelsim.api.run_program` on the request, then the CLI's part: remarks on stderr, the
    report table (unless --json), --timeline/--roofline/--trace files."""
    args = req.args
    config = config_from_args(args)
    if config.clusters > 1:
        return _run_clusters(req, config)
    if getattr(args, "compare", None):
        from accelsim.cli.sim_report import run_compare

        return run_compare(req)
    if args.fidelity == "analytic":
        from accelsim.cli.sim_report import require_trace_outputs_unused

        require_trace_outputs_unused(args)
    from accelsim.api.program_run import run_program

    run = run_program(req.program, config, req.inputs, run_options(args))
    for r in run.remarks:
        print(r, file=sys.stderr)
    files: list[str] = []
    if run.sim is not None:
        from accelsim.cli.sim_report import show

        files = show(args, run)  # the report table (unless --json), --timeline/--roofline/--trace
    extra = run.json_figures(files)
    if args.check and not run.arrays:
        raise InputError("--check needs output data: drop --timing-only / --fidelity analytic")
    if not args.json and args.fidelity == "analytic":
        print(run.report)
    return RunOutcome(run.arrays, run.wall_seconds, run.compile_seconds, run.outputs, extra)


def run_options(args: argparse.Namespace) -> Any:
    """The `RunOptions` the flags of `accelsim run --target sim` mean."""
    from accelsim.api.program_run import RunOptions
    from accelsim.cli.sim_report import records_wanted

    return RunOptions(fidelity=args.fidelity, timing_only=bool(args.timing_only),
                      as_is=bool(args.as_is), passes_given=bool(getattr(args, "pass_flags", None)),
                      distribution=getattr(args, "distribution", "auto"),
                      keep_records=records_wanted(args))


def _run_clusters(req: RunRequest, config: Any) -> RunOutcome:
    """A machine of several clusters: per-cluster programs, the many-cluster event run and
    its report (`accelsim.api.run_program`, which the DSE evaluator shares)."""
    from accelsim.api.program_run import CLUSTER_REFUSALS, run_program
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
    run = run_program(req.program, config, req.inputs, run_options(args))
    extra = run.json_figures()
    if run.sim is None:
        if not args.json:
            print(run.report)
        return RunOutcome({}, run.wall_seconds, run.compile_seconds, (), extra)
    result = run.sim
    for r in run.remarks:
        print(r, file=sys.stderr)
    if getattr(args, "trace", None):
        write_chrome_trace(args.trace, result.trace, config.clock_ghz)
    if getattr(args, "timeline", None):
        from plots.cluster_timeline import plot_cluster_timeline

        plot_cluster_timeline(result.trace, args.timeline, config=config)
    if not args.json:
        print(run.report)
    return RunOutcome(run.arrays, run.wall_seconds, run.compile_seconds, run.outputs, extra)
