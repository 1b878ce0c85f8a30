"""`accelsim run INPUT --target host`: run a kernel and report (or save) its outputs.

    accelsim run gemm:M=512,N=512,K=512 --target host --json
    accelsim run kernel.mlir --func main --inputs in.npz --save out.npz
    accelsim run gemm:M=64,N=64,K=64 --affine-loop-tile="tile-size=16" --check

INPUT is a `.mlir` file (`-` = stdin) or a workload spec. Inputs come from `--inputs in.npz`
(keys: argument names as written, `%A` -> `A`, or arg0, arg1, ...) or are generated from
`--seed` (default 0; floats uniform in [-1, 1)). Pass flags (`--affine-loop-tile=...`) are
applied, in order, before running. `--save` writes every memref argument after the run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from accelsim.cli.common import (
    Program,
    RunOutcome,
    RunRequest,
    check_figure_path,
    load_inputs,
    load_program,
)
from accelsim.errors import InputError
from compiler.ir.types import to_file_array

# Target name -> "module:function" taking a RunRequest and returning a RunOutcome. Imported on
# use, so a target with heavy dependencies costs nothing when not chosen.
TARGETS: dict[str, str] = {
    "host": "accelsim.cli.run_cmd:run_on_host",
    "sim": "accelsim.cli.sim_target:run_on_sim",
}


def run_on_host(req: RunRequest) -> RunOutcome:
    """Natively, bounds-checked for `--check` and for `.mlir` input unless `--no-bounds-check`
    (an access outside its memref is then a located error, never a crash or garbage)."""
    from compiler.backend import CACHE, compile_module

    args = req.args
    bounds_check = ((args.check or req.program.workload is None)
                    and not getattr(args, "no_bounds_check", False))
    hits = CACHE.info().hits
    t0 = time.perf_counter()
    compiled = compile_module(req.program.module, fast_math=args.fast_math, bounds_check=bounds_check)
    compile_seconds = time.perf_counter() - t0
    sig = compiled.signature(req.program.func_name)
    arrays = {k: np.array(v, copy=True) for k, v in req.inputs.items()}
    t1 = time.perf_counter()
    result = compiled.call(sig.name, arrays)
    wall = time.perf_counter() - t1
    extra: dict[str, Any] = {"cached": CACHE.info().hits > hits, "bounds_check": bounds_check}
    if result is not None:
        extra["result"] = result
    memrefs = {a.name: arrays[a.name] for a in sig.memref_args}
    return RunOutcome(memrefs, wall, compile_seconds, sig.outputs, extra)


def register(sub: Any) -> None:
    p = sub.add_parser("run", allow_abbrev=False, help="run a kernel on a target and report its outputs",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help=".mlir file, '-' for stdin, a workload spec such as gemm:M=64, or a "
                                 "network (.csv, .layers, .onnx, or a name from `accelsim networks`)")
    p.add_argument("--target", default=None,
                   help=f"where to run: {', '.join(TARGETS)} (default: sim when an option only the "
                        "simulator reads is given, such as --config, --set or --fidelity, or INPUT "
                        "is a network of layer shapes; else host)")
    p.add_argument("--func", default=None, help="function to run (default: the entry function)")
    p.add_argument("--inputs", default=None, metavar="IN.npz", help="argument arrays by name")
    p.add_argument("--seed", type=_seed, default=None,
                   help="seed for generated inputs, 0 to 2**32-1 (default 0)")
    p.add_argument("--save", default=None, metavar="OUT.npz",
                   help="write every memref argument after the run")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument("--check", action="store_true",
                   help="workload specs only: compare with the numpy reference; exit 1 on mismatch")
    p.add_argument("--fast-math", action="store_true",
                   help="host: let LLVM reassociate float math (faster, results change bits)")
    p.add_argument("--no-bounds-check", action="store_true",
                   help="host: no bounds checks (on by default for --check and for .mlir input: an "
                        "access outside its memref stops the run with its file:line:col)")
    from accelsim.cli.sim_target import add_arguments as add_sim_arguments

    add_sim_arguments(p)
    from accelsim.cli.networks_cmd import add_run_arguments as add_network_arguments

    add_network_arguments(p)
    p.set_defaults(handler=cmd_run, accepts_extra=True)


def resolve_target(name: str) -> Callable[[RunRequest], RunOutcome]:
    if name not in TARGETS:
        raise InputError(f"unknown target {name!r}; targets: {', '.join(TARGETS)}")
    module, _, func = TARGETS[name].partition(":")
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"{value} is not in [0, 2**32 - 1]")
    return value


# options that only an event run on the simulator reads: given to another target or to the
# analytic fidelity they would be silently ignored
_SIM_ONLY = ("timeline", "roofline", "trace", "window", "compare")


def check_options(args: argparse.Namespace) -> None:
    """Refuse, before anything runs, options the run would ignore or fail to honour at its end."""
    given = [f"--{n}" for n in _SIM_ONLY if getattr(args, n, None)]
    if args.target != "sim":
        from accelsim.cli.target_choice import given_sim_options

        given = given_sim_options(args)
        if given:
            raise InputError(f"{', '.join(given)}: only --target sim reads this (target is "
                             f"{args.target!r})")
    elif getattr(args, "no_bounds_check", False):
        raise InputError("--no-bounds-check: only --target host reads this (the simulator "
                         "always checks every access)")
    else:  # a bad --config / --set is refused before the program is even read
        from accelsim.cli.common import config_from_args

        config_from_args(args)
    for opt in ("timeline", "roofline"):
        path = getattr(args, opt, None)
        if path:
            check_figure_path(f"--{opt}", path)
    if args.save and os.path.isdir(args.save):
        raise InputError(f"--save {args.save}: is a directory; give the file to write, e.g. "
                         f"{os.path.join(args.save, 'outputs.npz')}")


def cmd_run(args: argparse.Namespace, extra: list[str]) -> int:
    from accelsim.cli.networks_cmd import is_network, run_network
    from accelsim.cli.suggest import check_known_input
    from accelsim.cli.target_choice import choose_target

    check_known_input(args.input)  # a name of neither kind: the closest of both
    choose_target(args, network=is_network(args.input))
    if is_network(args.input):  # a whole network: its own run (accelsim.network)
        return run_network(args, extra)
    if getattr(args, "schedule", None):
        raise InputError(f"--schedule {args.schedule}: for a network INPUT (how its layers run); "
                         f"{args.input} is one program")
    if getattr(args, "dtype", None):
        raise InputError(f"--dtype {args.dtype}: for a network INPUT; a workload spec takes "
                         "dtype= (and acc=, wdtype=), e.g. gemm:M=512,dtype=i8")
    target = resolve_target(args.target)
    check_options(args)
    program = load_program(args.input, args.func)
    args.pass_flags = list(extra)
    if extra:
        if args.target == "sim":  # the simulator checks the program it is given: this one
            from accelsim.compile.accelerator import check_input_program

            check_input_program(program.module)
        _apply_passes(program, extra)
    moves_data = args.target != "sim" or not (args.timing_only or args.fidelity == "analytic")
    inputs = load_inputs(program, args.inputs, args.seed, data=moves_data or bool(args.check))
    outcome = target(RunRequest(program, inputs, args))
    if args.save:
        try:
            # bf16/fp8 as raw bits, i4 as int8 (docs/precision.md)
            np.savez(args.save, **{k: to_file_array(v) for k, v in outcome.arrays.items()})
        except OSError as exc:
            raise InputError(f"cannot write {args.save}: {exc.strerror}") from None
    report = _report(args, program, outcome)
    status = 0
    if args.check:
        report["check"], ok = _check(program, inputs, outcome.arrays)
        status = 0 if ok else 1
    if args.json:
        print(json.dumps(report, default=_json_default))
    else:
        _print_text(report)
    return status


def _apply_passes(program: Program, flags: list[str]) -> None:
    from compiler.transforms.registry import PassManager, is_pass_flag

    unknown = [f for f in flags if not is_pass_flag(f)]
    if unknown:
        raise InputError(f"unrecognized arguments: {' '.join(unknown)} (not options of 'run' nor passes)")
    pm = PassManager.from_flags(flags)
    pm.run(program.module)
    for remark in pm.remarks:
        print(remark, file=sys.stderr)


def _report(args: argparse.Namespace, program: Program, outcome: RunOutcome) -> dict[str, Any]:
    from accelsim.api.result import run_report

    return run_report(args.target, program, outcome.arrays, outcome.outputs, outcome.wall_seconds,
                      outcome.compile_seconds, outcome.extra)


def _check(program: Program, inputs: Mapping[str, np.ndarray],
           arrays: Mapping[str, np.ndarray]) -> tuple[dict[str, Any], bool]:
    from accelsim.api.program import check_outputs

    return check_outputs(program, inputs, arrays)


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot encode {type(value).__name__}")


def _print_text(report: dict[str, Any]) -> None:
    print(f"target {report['target']}  func @{report['func']}  "
          f"run {report['wall_seconds'] * 1e3:.3f} ms  compile {report['compile_seconds'] * 1e3:.1f} ms")
    for name, d in report["outputs"].items():
        shape = "x".join(map(str, d["shape"])) or "scalar"
        print(f"  {name}: {shape} {d['dtype']}  sum {d['sum']}  sha256 {d['sha256'][:16]}")
    if "result" in report:
        print(f"  result: {report['result']}")
    if "check" in report:
        c = report["check"]
        verdict = "OK" if c["ok"] else "MISMATCH"
        errs = ", ".join(f"{k} {v:.3g}" for k, v in c["max_abs_error"].items())
        print(f"  check vs reference: {verdict} (max abs error: {errs}; rtol {c['rtol']:.3g}, "
              f"atol {c['atol']:.3g})")
