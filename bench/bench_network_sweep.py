"""A network sweep's points at interactive speed (issue 28): `accelsim run NETWORK --timing-only
--fidelity F --schedule S --set sram.capacity_kib=X --json` in a fresh process per point, this
tree against a baseline tree in the same run.

    .venv/bin/python bench/bench_network_sweep.py --baseline main|REV|DIR [--network resnet50]
        [--capacities 176,208,240,304 | --points "sram.capacity_kib=176;dram.channels=4,..."]
        [--fidelity analytic,event] [--schedule layer-by-layer]

`--baseline` a directory (a tree to put first on PYTHONPATH) or a git revision of this
repository (`main`, a commit: exported with `git archive` into a temporary directory, removed
at the end). `--schedule` (default layer-by-layer: the issue's "54 layers" point; `auto` is the
CLI's default) is passed to both trees. `--points`: each point a comma-separated list of
`--set` overrides, points separated by ";" (instead of `--capacities`).

Every point is a hardware point neither tree has run before in this bench: the tile
search, the compile, the race proof and the estimate or simulation all run for it. Both trees
share one fresh `ACCELSIM_CACHE_DIR` (a temporary directory): this tree's compile cache
(`accelsim.compile.compile_cache`) starts empty, so its first point is fully cold and each
later point reuses what the points before it compiled (the layers' shapes and the tilings
they share); the baseline has no such cache. The trees run interleaved point by point
(baseline first, then this tree), so both see the same machine load. Per point: wall seconds
of the child, CPU seconds of the child plus its workers' kernel evaluations (`kernel_cpu_seconds`
of the --json; the workers' start-up is not in it, for either tree), the 1-minute load average, and the
per-layer figures (every column both report: cycles, DRAM bytes, energy, ...) compared
layer by layer — any difference is
reported and fails the bench (exit 1).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOT_FIGURES = ("where",)  # the layer's source line: the tree's own path


def run_point(tree: Path, network: str, fidelity: str, point: str, cache: str,
              schedule: str | None = None) -> tuple[dict[str, Any], float, float]:
    """(the --json result, wall s, CPU s of the child and its workers) of one CLI run;
    `point`: comma-separated `--set` overrides."""
    sets = [a for kv in point.split(",") if kv for a in ("--set", kv)]
    cmd = [sys.executable, "-m", "accelsim", "run", network, "--timing-only", "--fidelity",
           fidelity, *sets, "--json", *(("--schedule", schedule) if schedule else ())]
    env = {**os.environ, "PYTHONPATH": str(tree), "ACCELSIM_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result = json.loads(proc.stdout)
    if result.get("workers"):  # the pool's workers are not reaped children: their kernels' CPU
        cpu += float(result.get("kernel_cpu_seconds") or 0.0)
    return result, wall, cpu


def layer_rows(result: dict[str, Any], keys: set[str]) -> list[tuple[Any, ...]]:
    return [tuple(row.get(k) for k in sorted(keys)) for row in result["layers"]]


def common_keys(a: dict[str, Any], b: dict[str, Any]) -> set[str]:
    """Every figure of a layer row both trees report (a newer tree may add columns)."""
    return (set(a["layers"][0]) & set(b["layers"][0])) - set(NOT_FIGURES)


def baseline_tree(spec: str, stack: contextlib.ExitStack) -> tuple[Path, str]:
    """(the baseline's tree, how it was made): a directory as given, or a git revision of
    this repository exported into a temporary directory (removed when `stack` closes)."""
    if Path(spec).is_dir():
        return Path(spec).resolve(), str(Path(spec).resolve())
    rev = subprocess.run(["git", "rev-parse", "--short", spec], cwd=ROOT, capture_output=True,
                         text=True)
    if rev.returncode != 0:
        raise SystemExit(f"--baseline {spec}: neither a directory nor a git revision "
                         f"({rev.stderr.strip()})")
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-net-base-")))
    archive = subprocess.run(["git", "archive", rev.stdout.strip()], cwd=ROOT, capture_output=True,
                             check=True)
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
    return tmp, f"{spec} at {rev.stdout.strip()} (git archive into {tmp})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True,
                    help="a tree to compare with (PYTHONPATH), or a git revision (e.g. main)")
    ap.add_argument("--network", default="resnet50")
    ap.add_argument("--capacities", default="176,208,240,304",
                    help="SRAM KiB of the points, in sweep order")
    ap.add_argument("--points", default=None,
                    help='points as --set overrides: "k=v,k=v;k=v" (instead of --capacities)')
    ap.add_argument("--fidelity", default="analytic,event")
    ap.add_argument("--schedule", default="layer-by-layer",
                    help="passed to both trees (the CLI's default is auto)")
    args = ap.parse_args()
    with contextlib.ExitStack() as stack:
        base, made = baseline_tree(args.baseline, stack)
        return run(args, base, made)


def run(args: argparse.Namespace, base: Path, made: str) -> int:
    points = (args.points.split(";") if args.points else
              [f"sram.capacity_kib={int(c)}" for c in args.capacities.split(",")])
    bad = 0
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    print(f"{args.network}, --schedule {args.schedule}: one fresh process per point; ratio = "
          f"baseline / this tree (this tree {ROOT} at {head}, baseline {made})")
    for fidelity in args.fidelity.split(","):
        with tempfile.TemporaryDirectory(prefix="bench-net-sweep-") as cache:
            print(f"\n== --fidelity {fidelity} ==")
            print(f"{'point':>28s} {'cache':>10s} | {'base wall':>9s} {'base CPU':>8s} | "
                  f"{'ours wall':>9s} {'ours CPU':>8s} | {'wall x':>6s} {'CPU x':>6s} | load | layers")
            tot = [0.0, 0.0, 0.0, 0.0]
            for k, point in enumerate(points):
                theirs, bw, bc = run_point(base, args.network, fidelity, point, cache, args.schedule)
                ours, ow, oc = run_point(ROOT, args.network, fidelity, point, cache, args.schedule)
                keys = common_keys(theirs, ours)
                same = layer_rows(theirs, keys) == layer_rows(ours, keys)
                if not same:
                    bad += 1
                    diff = [(a, b) for a, b in zip(layer_rows(theirs, keys), layer_rows(ours, keys),
                                                   strict=False) if a != b]
                    print(f"   figures differ at {point}: {diff[:3]}")
                for i, v in enumerate((bw, bc, ow, oc)):
                    tot[i] += v
                state = "empty" if k == 0 else f"{k} before"
                print(f"{point:>28s} {state:>10s} | {bw:8.2f}s {bc:7.2f}s | {ow:8.2f}s {oc:7.2f}s | "
                      f"{bw / ow:5.2f}x {bc / oc:5.2f}x | {os.getloadavg()[0]:4.1f} | "
                      f"{len(ours['layers'])} {'identical' if same else 'DIFFER'}", flush=True)
            print(f"{'total':>39s} | {tot[0]:8.2f}s {tot[1]:7.2f}s | {tot[2]:8.2f}s {tot[3]:7.2f}s | "
                  f"{tot[0] / tot[2]:5.2f}x {tot[1] / tot[3]:5.2f}x |")
    print(f"\n{'all per-layer figures identical' if not bad else f'{bad} points DIFFER'}; "
          f"{os.cpu_count()} cores, load average now {os.getloadavg()[0]:.1f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
