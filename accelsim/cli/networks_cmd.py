"""`accelsim networks`: the model zoo; and `accelsim run NETWORK`, a whole network.

    accelsim networks
    accelsim run resnet18 --target sim --timing-only
    accelsim run topo.csv --target sim --json
    accelsim run model.onnx --target sim --check
    accelsim run model.onnx --target host

NETWORK is a SCALE-Sim topology (`.csv`), a layer list (`.layers`), an ONNX model (`.onnx`) or
a zoo name. `--target sim`: each distinct kernel compiled once and simulated (layers in
parallel processes when timing only; in order, data flowing, otherwise), a per-layer table and
network totals (`--json`: one object with `layers`), `--csv` per layer, `--timeline` (one bar
per layer) and `--trace` (Perfetto, one slice per layer). `--target host`: the whole model
natively. `--check` (ONNX) compares the outputs with onnx's ReferenceEvaluator. `--schedule`
layer-by-layer | fused | pipelined | auto (default) chooses how layers share the machine
(`accelsim.network.schedule`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from accelsim.errors import InputError


def register(sub: Any) -> None:
    p = sub.add_parser("networks", allow_abbrev=False,
                       help="list the model zoo (networks `accelsim run NAME` takes)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_networks)


def cmd_networks(args: argparse.Namespace, extra: list[str]) -> int:
    from accelsim.network.zoo import describe, zoo

    entries = {name: {"file": str(path), "format": path.suffix.lstrip("."), "about": describe(path)}
               for name, path in zoo().items()}
    if args.json:
        print(json.dumps({"networks": entries}))
        return 0
    for name, e in entries.items():
        print(f"{name:<20} {e['format']:<7} {e['about']}")
    return 0


# options of `run` that mean nothing for a network
_KERNEL_ONLY = ("func", "save", "as_is", "roofline", "window", "compare", "fast_math", "no_bounds_check")


def run_network(args: argparse.Namespace, extra: list[str]) -> int:

    given = [f"--{n.replace('_', '-')}" for n in _KERNEL_ONLY if getattr(args, n, None)]
    if extra:
        given.append(" ".join(extra))
    if given:
        raise InputError(f"{', '.join(given)}: not available for a network run (INPUT {args.input} "
                         "is a network; run one of its kernels as a workload spec instead)")
    if args.target not in ("sim", "host"):
        raise InputError(f"unknown target {args.target!r}; targets: host, sim")
    if args.target == "host":
        sim_only = [f"--{n.replace('_', '-')}" for n in ("timing_only", "csv", "timeline", "trace", "layer")
                    if getattr(args, n, None)]
        if sim_only:
            raise InputError(f"{', '.join(sim_only)}: only --target sim reads this (target is 'host')")
    if args.timeline:
        from accelsim.cli.common import check_figure_path

        check_figure_path("--timeline", args.timeline)
    if args.layer and not args.timeline:
        raise InputError("--layer NAME draws that layer's engine timeline: give --timeline OUT.png too")
    from accelsim.network.onnx_prep import parse_shapes

    try:
        shapes = parse_shapes(getattr(args, "shape", None))
    except ValueError as exc:
        raise InputError(str(exc)) from None
    from accelsim.api import network_run

    dtype = getattr(args, "dtype", None)
    network, skipped = network_run.load_network(args.input, args.conv_lowering, shapes, dtype)
    if args.layer and args.layer not in {layer.name for layer in network.layers}:
        names = [layer.name for layer in network.layers]
        shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        raise InputError(f"--layer {args.layer!r}: no such layer in {network.name} (layers: {shown})")
    from accelsim.config import parse_sets

    opts = network_run.NetworkOptions(target=args.target, fidelity=args.fidelity,
                                      timing_only=bool(args.timing_only),
                                      hardware=parse_sets(getattr(args, "set", None)), workers=args.workers,
                                      kernel_time_limit=getattr(args, "kernel_time_limit", None),
                                      check=bool(args.check), seed=args.seed, inputs_npz=args.inputs,
                                      progress=not args.json, schedule=args.schedule or "auto")
    from accelsim.network.timing import NetworkRunError

    try:
        run = network_run.run_network(network, args.config, opts, args.input)
    except NetworkRunError as exc:
        return _report_failure(args, exc)
    run.dtype, run.dtype_skipped = dtype, tuple(skipped)  # workloads left at f32
    result, report = run.result, run.to_dict(args.input)
    status = 0 if run.check_ok in (None, True) else 1
    if result is not None:
        _write_outputs(args, result)
    if args.json:
        print(json.dumps(report, default=_json_default))
    else:
        _print_text(report, result)
    return status


def _report_failure(args: argparse.Namespace, exc: Any) -> int:
    """A layer failed: the layers before it as a normal report (text, --json, --csv, with
    `complete: false` and `failed_layer`), then the error naming the layer; exit status 1."""
    import sys

    result = exc.partial
    report = (result.to_dict() if result is not None
              else {"layers": [{"name": name} for name in exc.finished]})
    report.update(target=args.target, input=args.input, complete=False,
                  failed_layer={"index": exc.index + 1, "name": exc.layer, "error": exc.message})
    if args.csv and result is not None:
        with open(args.csv, "w", encoding="utf-8") as fh:
            fh.write(result.to_csv())
    if args.json:
        print(json.dumps(report, default=_json_default))
    else:
        if result is not None:
            print(result.table(limit=None))
        else:
            print(f"finished layers: {', '.join(exc.finished) or '(none)'}")
        print(f"  stopped at layer {exc.index + 1} ({exc.layer}): the {exc.index} layer(s) above "
              "finished; the totals are theirs")
    print(exc.render(), file=sys.stderr)
    return 1


def _write_outputs(args: argparse.Namespace, result: Any) -> None:
    if args.csv:
        with open(args.csv, "w", encoding="utf-8") as fh:
            fh.write(result.to_csv())
    if args.timeline:
        from plots.network_timeline import plot_network_timeline

        plot_network_timeline(result, args.timeline)
    if args.trace:
        from accelsim.network.perfetto import write_network_trace

        write_network_trace(args.trace, result)
    if args.layer:
        _zoom(args, result)


def _zoom(args: argparse.Namespace, result: Any) -> None:
    """--layer NAME: that layer's engine timeline(s), OUT.NAME[.k].png next to --timeline."""
    import os

    from accelsim.network.zoom import layer_runs
    from plots.timeline import plot_timeline

    runs = layer_runs(result.network, args.layer, args.config)
    base, ext = os.path.splitext(args.timeline)
    for i, (spec, run) in enumerate(runs):
        suffix = f".{args.layer}" + (f".{i}" if len(runs) > 1 else "")
        plot_timeline(run.trace, base + suffix + ext, config=run.config,
                      title=f"{result.network.name} layer {args.layer}: {spec}")


def _print_text(report: dict[str, Any], result: Any) -> None:
    if report.get("dtype"):
        skipped = report.get("dtype_skipped") or []
        print(f"precision {report['dtype']}" + (f" ({', '.join(skipped)} left at f32: they do not "
                                                 "take it)" if skipped else ""))
    if result is not None:
        print(result.table(limit=None))
    else:
        print(f"network {report['network']} on host: {report['layer_count']} layers in "
              f"{report['wall_seconds']:.3f} s")
    for name, d in report.get("outputs", {}).items():
        shape = "x".join(map(str, d["shape"])) or "scalar"
        print(f"  output {name}: {shape} {d['dtype']}  sum {d['sum']}")
    c = report.get("check")
    if c is not None:
        verdict = "OK" if c["ok"] else "MISMATCH"
        errs = ", ".join(f"{k} {v:.3g}" for k, v in c["max_abs_error"].items())
        print(f"  check vs onnx.reference.ReferenceEvaluator: {verdict} (max abs error: {errs}; "
              f"rtol {c['rtol']:.3g}, atol {c['atol']:.3g})")


def _json_default(value: object) -> object:
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot encode {type(value).__name__}")


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The options `run` takes for a network INPUT."""
    g = p.add_argument_group("network INPUT (.csv, .layers, .onnx, or a name from `accelsim networks`)")
    g.add_argument("--csv", metavar="OUT.csv", default=None, help="write the per-layer table as CSV")
    g.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes simulating layers (default: one per core; 0: this process)")
    g.add_argument("--kernel-time-limit", type=float, default=None, metavar="S",
                   help="timing only: wall seconds one kernel may take before the run fails "
                        "(default: no limit)")
    g.add_argument("--layer", metavar="NAME", default=None,
                   help="with --timeline OUT.png: also draw layer NAME's engine timeline (OUT.NAME.png)")
    g.add_argument("--shape", action="append", metavar="NAME=DIMS", default=None,
                   help="ONNX: bind input NAME's symbolic dimensions, e.g. --shape input_ids=1x128 "
                        "(repeatable; a symbolic dimension left unbound is an error naming it)")
    g.add_argument("--conv-lowering", choices=("auto", "direct", "im2col"), default="auto",
                   help="convolutions: the compiler's choice (auto), direct, or im2col + gemm")
    from accelsim.network.schedule import SCHEDULES

    g.add_argument("--schedule", choices=SCHEDULES, default=None,
                   help="how layers run: layer-by-layer (every tensor in DRAM), fused (consecutive "
                        "layers one program, intermediates on chip), pipelined (layers on clusters, "
                        "overlapping), auto (the best by the analytic estimate, never worse than "
                        "layer-by-layer by it; the default); docs/networks.md")
    g.add_argument("--dtype", default=None, metavar="int8|int4|bf16|fp8|f16|f32",
                   help="zoo, topology and layer-list networks: weights and activations in this "
                        "precision, the matmul family accumulating wider (i32 / f32) and "
                        "requantizing its outputs (docs/precision.md); default f32")


def is_network(source: str) -> bool:
    from accelsim.network.zoo import is_network_input

    return is_network_input(source)
