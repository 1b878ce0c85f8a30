"""The report side of `accelsim run ... --target sim`: the table (or --json dict), figures,
the Perfetto trace, and `--compare A B`.

    accelsim run gemm:M=256,N=256,K=256 --target sim --timeline gemm.png --window 0:20000
    accelsim run gemm:M=256,N=256,K=256 --target sim --roofline roof.svg --trace gemm.json
    accelsim run gemm:M=256,N=256,K=256 --target sim --compare no-pipeline default

A `--compare` side is `as-is` (the input as given), `default` (the accelerator pipeline for
the config), `no-pipeline` (that pipeline without `affine-pipeline-data-transfer`), or a string
of pass flags such as "affine-loop-tile=tile-size=32 affine-data-copy-generate=generate-dma
fast-mem-capacity=64 affine-pipeline-data-transfer" (the leading `--` may be left out, so that
argparse leaves the string alone; a word that is not a pass is an option of the pass before it).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

from accelsim.cli.common import Program, RunOutcome, RunRequest
from accelsim.errors import InputError

if TYPE_CHECKING:
    from accelsim.compile.pipeline import AcceleratorPipeline
    from accelsim.config import HardwareConfig
    from compiler.diagnostics import Remark
    from compiler.ir.ops import ModuleOp

PRESETS = ("as-is", "default", "no-pipeline")


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("--target sim: report, figures, traces")
    g.add_argument("--timeline", metavar="OUT.png|svg|pdf", default=None,
                   help="draw the overlap timeline (one lane per DMA engine, DRAM channel, compute unit)")
    g.add_argument("--window", metavar="START:END", default=None,
                   help="timeline zoom: only cycles [START, END) (either side may be empty)")
    g.add_argument("--roofline", metavar="OUT.png|svg|pdf", default=None,
                   help="draw the roofline with the measured point")
    g.add_argument("--trace", metavar="OUT.json", default=None,
                   help="write Chrome trace-event JSON (open it in https://ui.perfetto.dev)")
    g.add_argument("--compare", nargs=2, metavar=("A", "B"), default=None,
                   help=f"run two pipelines and print the reports side by side with B/A ratios; "
                        f"each is {', '.join(PRESETS)} or a string of pass flags")


def parse_window(text: str | None, end: int) -> tuple[int, int] | None:
    """`START:END` in cycles; an empty side means the trace's start or end."""
    if text is None:
        return None
    lo_s, sep, hi_s = text.partition(":")
    try:
        if not sep:
            raise ValueError
        lo = int(lo_s) if lo_s.strip() else 0
        hi = int(hi_s) if hi_s.strip() else end
    except ValueError:
        raise InputError(f"--window {text!r}: expected START:END in cycles, e.g. 0:20000") from None
    if lo < 0 or hi <= lo:
        raise InputError(f"--window {text!r}: expected 0 <= START < END, found START {lo}, END {hi}")
    return lo, hi


def records_wanted(args: argparse.Namespace) -> bool:
    """Whether the run must keep every trace record (--timeline, --window, --trace); without
    them it keeps only the streaming summary the report needs (`SimOptions.keep_records`)."""
    return any(getattr(args, n, None) for n in ("timeline", "window", "trace"))


def require_trace_outputs_unused(args: argparse.Namespace) -> None:
    """The analytic estimate has no trace: figures and traces need an event run."""
    given = [f"--{n}" for n in ("timeline", "roofline", "trace") if getattr(args, n, None)]
    if given:
        raise InputError(f"{', '.join(given)} need(s) a trace: use --fidelity event (the default), "
                         "not --fidelity analytic")


def show(args: argparse.Namespace, run: Any) -> list[str]:
    """After one event run (`accelsim.api.ProgramRun`): write --timeline/--roofline/--trace
    and print the table (unless --json). Returns the files written."""
    written = write_outputs(args, run.sim, run.report)
    if not getattr(args, "json", False):
        figures = run.figures
        print(run.report.format_table())
        if figures.get("fidelity") == "both":
            from accelsim.report.divergence import format_divergence

            print(format_divergence(figures["event_cycles"], figures["analytic_cycles"],
                                    figures["dma_groups"]))
        elif "analytic_cycles" in figures:
            print(f"  analytic estimate {figures['analytic_cycles']:,} cycles "
                  f"({figures['analytic_error']:+.2%} from this run)")
        for path in written:
            print(f"  wrote {path}")
    return written


def write_outputs(args: argparse.Namespace, result: Any, report: Any, suffix: str = "") -> list[str]:
    written: list[str] = []
    window = parse_window(getattr(args, "window", None), result.trace.end or 1)
    if getattr(args, "timeline", None):
        from plots.timeline import plot_timeline

        path = _suffixed(args.timeline, suffix)
        plot_timeline(result.trace, path, config=result.config, window=window,
                      title=f"@{result.func} on '{result.config.name}'{' - ' + suffix if suffix else ''}: "
                            f"{result.cycles:,} cycles")
        written.append(path)
    if getattr(args, "roofline", None):
        from plots.roofline import plot_roofline

        path = _suffixed(args.roofline, suffix)
        plot_roofline(report, path, config=result.config)
        written.append(path)
    if getattr(args, "trace", None):
        from accelsim.report.chrome_trace import write_result_trace

        path = _suffixed(args.trace, suffix)
        try:
            write_result_trace(path, result)
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror}") from None
        written.append(path)
    return written


def _suffixed(path: str, suffix: str) -> str:
    if not suffix:
        return path
    stem, ext = os.path.splitext(path)
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in suffix)[:40]
    return f"{stem}-{safe}{ext}"


def side_flags(spec: str, config: HardwareConfig, module: ModuleOp | None = None,
               func: str | None = None) -> list[str]:
    """The pass flags one `--compare` side means; with `module`, "default" picks its tile
    sizes as `--target sim` does (and "no-pipeline" keeps them, so only pipelining differs)."""
    if spec == "as-is":
        return []
    if spec in ("default", "no-pipeline"):
        return side_pipeline(spec, config, module, func).flags()
    try:
        tokens = shlex.split(spec)
    except ValueError as exc:
        raise InputError(f"--compare side {spec!r}: {exc}") from None
    from compiler.transforms.registry import is_pass_flag

    flags: list[str] = []
    for t in tokens:
        flag = t if t.startswith("--") else "--" + t
        if is_pass_flag(flag):
            flags.append(flag)
        elif flags and not t.startswith("--"):
            # an option of the pass before it: "pass=opt1 opt2" reads as --pass="opt1 opt2"
            flags[-1] += (" " if "=" in flags[-1] else "=") + t
        else:
            raise InputError(f"--compare side {spec!r}: expected {', '.join(PRESETS)} or pass "
                             f"flags; not a pass: {flag}")
    return flags


def side_pipeline(spec: str, config: HardwareConfig, module: ModuleOp | None = None,
                  func: str | None = None) -> AcceleratorPipeline:
    """The accelerator pipeline of the "default" or "no-pipeline" side."""
    from accelsim.compile.accelerator import accelerator_pipeline

    pipe = accelerator_pipeline(config, module, func)
    return pipe.replace(stages=1) if spec == "no-pipeline" else pipe


def compile_side(spec: str, config: HardwareConfig, module: ModuleOp, func: str | None
                 ) -> tuple[list[str], list[Remark]]:
    """Compile `module` in place as one `--compare` side: its pass flags and the remarks."""
    from compiler.transforms.registry import PassManager

    if spec == "default":
        from accelsim.compile.accelerator import compile_for_accelerator

        pipe, remarks = compile_for_accelerator(config, module, func)
        return pipe.flags(), remarks
    if spec == "no-pipeline":
        pipe = side_pipeline(spec, config, module, func)
        flags, pm = pipe.flags(), PassManager(pipe.passes())
    else:
        flags = side_flags(spec, config, module, func)
        pm = PassManager.from_flags(flags)
    if flags:
        pm.run(module)
    return flags, list(pm.remarks)


def run_compare(req: RunRequest) -> RunOutcome:
    """`--compare A B`: compile the input twice, simulate both on the same config and inputs,
    print both reports side by side with B/A ratios (and both in --json)."""
    import time

    from accelsim.api.program_run import RunOptions, run_program
    from accelsim.cli.common import config_from_args
    from accelsim.report import compare

    args = req.args
    if getattr(args, "pass_flags", None) or getattr(args, "as_is", False):
        raise InputError("--compare takes the pipelines as its two sides (as-is, default, "
                         "no-pipeline or pass flags); drop --as-is and the pass flags")
    if getattr(args, "fidelity", "event") != "event":
        raise InputError("--compare needs --fidelity event (the reports come from the trace)")
    config = config_from_args(args)
    functional = not args.timing_only
    names = tuple(args.compare)
    from accelsim.report import input_traffic

    compulsory = input_traffic(fresh_module(req.program), req.program.func_name, config)
    options = RunOptions(timing_only=args.timing_only, keep_records=records_wanted(args),
                         estimate=False)
    sides: list[dict[str, Any]] = []
    runs = []
    compile_seconds = wall = 0.0
    for name in names:
        module = fresh_module(req.program)
        t0 = time.perf_counter()
        flags, remarks = compile_side(name, config, module, req.program.func_name)
        for r in remarks:
            print(r, file=sys.stderr)
        compile_seconds += time.perf_counter() - t0
        run = run_program(req.program, config, req.inputs, options, compiled=module,
                          compulsory=compulsory)
        wall += run.wall_seconds
        figs = dict(run.figures)  # `accelsim.report.metrics` of the side's run
        figs["side"] = name
        figs["pipeline"] = flags
        runs.append(run)
        sides.append(figs)
    reports = [run.report for run in runs]
    distinct = names[0] != names[1]
    for k, (name, run) in enumerate(zip(names, runs, strict=True)):
        sides[k]["files"] = write_outputs(args, run.sim, run.report,
                                          suffix=name if distinct else "AB"[k])
    shown = tuple(n if len(n) <= 20 else ab for n, ab in zip(names, ("A", "B"), strict=True))
    if shown[0] == shown[1]:
        shown = ("A", "B")
    table = compare(reports[0], reports[1], (shown[0], shown[1]))
    if not args.json:
        for n, ab, sh in zip(names, ("A", "B"), shown, strict=True):
            if sh != n:
                print(f"  {ab} = {n}")
        print(table)
        for figs in sides:
            for path in figs["files"]:
                print(f"  wrote {path}")
    a, b = sides
    ratios = {k: (b[k] / a[k] if a[k] else None) for k in a
              if isinstance(a[k], int | float) and not isinstance(a[k], bool)
              and isinstance(b.get(k), int | float)}
    extra = {"compare": {"A": a, "B": b, "ratios": ratios}}
    arrays = runs[1].arrays
    if args.check and not arrays:
        raise InputError("--check needs output data: drop --timing-only")
    return RunOutcome(arrays, wall, compile_seconds, tuple(arrays) if functional else (), extra)


def fresh_module(program: Program) -> ModuleOp:
    """A new copy of the input module (passes mutate theirs): an IR clone of the module as
    loaded, which no pass has touched."""
    from accelsim.compile.clone import clone_module

    return clone_module(program.module)


__all__ = ["PRESETS", "add_arguments", "compile_side", "fresh_module", "parse_window",
           "require_trace_outputs_unused", "run_compare", "show", "side_flags", "side_pipeline",
           "write_outputs"]
