"""DSE throughput: points per second of gemm sweeps, analytic and event fidelity, 1 and 2 workers.

Peers measured in the same run: the same sweep evaluated in this process (no pool, no IPC: the
runner's overhead shows as the gap to it), and 1 local worker vs 2 (scaling efficiency =
rate(2) / (2 * rate(1))). Every run writes a fresh SQLite file, so commits are included.

    .venv/bin/python bench/bench_dse.py [--quick]
    .venv/bin/python bench/bench_dse.py --network-sweep [--points 100] [--baseline DIR
        [--baseline-points 8]]

`--network-sweep` (issue 28): a ResNet-50 sweep of `--points` hardware points (SRAM capacity x
DMA engines x DRAM channels, analytic fidelity, timing only), 2 local workers, each point the
whole network (`accelsim.network.sweep.evaluate`), into a fresh SQLite file with a fresh
`ACCELSIM_CACHE_DIR` (the compile cache starts empty): its wall time, and the points' CPU
seconds. `--baseline DIR` runs the first `--baseline-points` points of the same sweep on that
tree (a child process with PYTHONPATH=DIR, 2 workers, its own fresh cache directory) and
compares CPU per point on those points and their network cycles (which must be equal).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from accelsim.dse import Sweep, load, run_sweep


def gemm_sweep(fidelity: str, quick: bool) -> Sweep:
    return Sweep(
        name=f"bench-{fidelity}",
        workloads=["gemm:M=128,N=128,K=128"],
        hardware={"sram.capacity_kib": [64, 128] if quick else [32, 64, 128, 256],
                  "dma.engines": [1, 2]},
        compiler={"tile_sizes": [[16, 16, 16], [32, 32, 32]] if quick else
                  [[16, 16, 16], [32, 32, 32], [64, 32, 32], [32, 64, 16]],
                  "stages": [1, 2]},
        fidelity=fidelity,
    )


def stage_breakdown(quick: bool) -> None:
    """Where one point's time goes, in this process: build, compile, analytic, event."""
    import workloads
    from accelsim.config import load_config
    from accelsim.dse.evaluate import analytic_figures, compile_point, event_figures
    from accelsim.sim.simulate import simulate

    p = gemm_sweep("event", quick).points()[-1]
    reps = 3
    t = {"build": 0.0, "compile": 0.0, "analytic": 0.0, "event": 0.0}
    for _ in range(reps):
        t0 = time.perf_counter()
        wl = workloads.get(p.workload)
        cfg = load_config(p.config).with_overrides(p.hw)
        module = wl.module()
        t1 = time.perf_counter()
        module = compile_point(p, module, cfg)
        t2 = time.perf_counter()
        analytic_figures(module, cfg, wl.func_name)
        t3 = time.perf_counter()
        event_figures(simulate(module, cfg, func=wl.func_name, functional=False))
        t4 = time.perf_counter()
        for k, dt in zip(t, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            t[k] += dt / reps
    total = sum(t.values())
    parts = ", ".join(f"{k} {v * 1e3:.0f} ms ({v / total:.0%})" for k, v in t.items())
    print(f"one event point ({p.options['tile_sizes']} tiles, {p.options['stages']} stages), in-process: "
          f"{parts}")


SLEEP_S = 0.05


def sleeping_point(point: Any) -> dict[str, int]:
    """A point that costs 50 ms of waiting and no CPU: isolates the runner's own scaling from
    the CPU contention of a shared machine."""
    time.sleep(SLEEP_S)
    return {"cycles": len(point.key)}


def runner_scaling(tmp: Path) -> None:
    sweep = gemm_sweep("analytic", quick=False)
    n = len(sweep.points())
    t0 = time.perf_counter()  # the first pool of a process also starts the fork server
    run_sweep(sweep.points()[:2], tmp / "warm.sqlite", evaluate=sleeping_point, workers=2, progress=False)
    print(f"first pool start-up (fork server, preloading the simulator) + 2 points: "
          f"{time.perf_counter() - t0:.2f} s")
    rates = {}
    for workers in (1, 2):
        t0 = time.perf_counter()
        run_sweep(sweep, tmp / f"sleep-{workers}.sqlite", evaluate=sleeping_point, workers=workers,
                  progress=False)
        rates[workers] = n / (time.perf_counter() - t0)
    ideal = 1 / SLEEP_S
    print(f"runner only ({n} points of {SLEEP_S * 1e3:.0f} ms sleep): 1 worker {rates[1]:.1f} pts/s "
          f"({rates[1] / ideal:.0%} of ideal {ideal:.0f}), 2 workers {rates[2]:.1f} pts/s "
          f"({rates[2] / (2 * ideal):.0%} of ideal {2 * ideal:.0f}); scaling efficiency "
          f"{rates[2] / (2 * rates[1]):.0%}")


def measure(sweep: Sweep, workers: int, tmp: Path) -> tuple[float, int, int, float]:
    """Wall seconds, points run, points failed, and the points' summed worker CPU seconds."""
    from accelsim.dse import evaluate

    evaluate._COMPILED.clear()  # the in-process peer starts as cold as a fresh worker
    tmp.mkdir(parents=True, exist_ok=True)
    db = tmp / f"{sweep.name}-{workers}.sqlite"
    t0 = time.perf_counter()
    summary = run_sweep(sweep, db, workers=workers, progress=False)
    wall = time.perf_counter() - t0
    df = load(db)
    assert len(df) == summary.total
    return wall, summary.ran, summary.failed, float(df["cpu_s"].sum())


NETWORK_LIMIT_S = 3600.0  # a whole network per point: no wall-clock cut on a loaded machine


def network_sweep_points(n: int) -> list[Any]:
    """The first `n` points of the ResNet-50 sweep: 10 SRAM capacities x 2 DMA engine counts x
    5 DRAM channel counts, capacities outermost so every few points is a new SRAM size."""
    sweep = Sweep(
        name="bench-resnet50",
        workloads=["network:resnet50"],
        hardware={"sram.capacity_kib": [64, 96, 128, 160, 192, 224, 256, 320, 384, 512],
                  "dma.engines": [1, 2], "dram.channels": [1, 2, 4, 8, 16]},
        fidelity="analytic",
    )
    return sweep.points()[:n]


def network_child(n: int, db: str) -> None:
    """Run the first `n` network sweep points on the tree imported (the baseline's child)."""
    from accelsim.network.sweep import evaluate

    t0 = time.perf_counter()
    run_sweep(network_sweep_points(n), db, evaluate=evaluate, workers=2, progress=False,
              time_limit_s=NETWORK_LIMIT_S)
    print(f"{time.perf_counter() - t0:.3f}")


def _by_point(db: Path) -> dict[tuple[Any, ...], tuple[float, Any, str]]:
    df = load(db)
    cols = ["sram.capacity_kib", "dma.engines", "dram.channels"]
    return {tuple(r[c] for c in cols): (float(r["cpu_s"]), r["cycles"], str(r["status"]))
            for _, r in df.iterrows()}


def network_sweep(points: int, baseline: str | None, baseline_points: int) -> int:
    import subprocess

    from accelsim.network.sweep import evaluate

    print(f"== ResNet-50 sweep: {points} hardware points, analytic, timing only, 2 workers; "
          f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} ==")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows: dict[str, dict[tuple[Any, ...], tuple[float, Any, str]]] = {}
        walls: dict[str, float] = {}
        if baseline:  # first: both sides start with an empty cache directory
            env = dict(os.environ, PYTHONPATH=str(Path(baseline).resolve()),
                       ACCELSIM_CACHE_DIR=str(tmp / "cache-base"))
            res = subprocess.run([sys.executable, __file__, "--network-child", str(baseline_points),
                                  str(tmp / "base.sqlite")], env=env, capture_output=True, text=True,
                                 cwd=baseline)
            if res.returncode != 0:
                print(res.stderr[-3000:])
                return 1
            walls["base"] = float(res.stdout.split()[-1])
            rows["base"] = _by_point(tmp / "base.sqlite")
        os.environ["ACCELSIM_CACHE_DIR"] = str(tmp / "cache-ours")
        t0 = time.perf_counter()
        summary = run_sweep(network_sweep_points(points), tmp / "ours.sqlite", evaluate=evaluate,
                            workers=2, progress=False, time_limit_s=NETWORK_LIMIT_S)
        walls["ours"] = time.perf_counter() - t0
        rows["ours"] = _by_point(tmp / "ours.sqlite")
    ours = rows["ours"]
    cpu = sum(v[0] for v in ours.values())
    print(f"this tree: {summary.ran} points ({summary.failed} failed) in {walls['ours']:.1f} s wall "
          f"({walls['ours'] / max(summary.ran, 1):.2f} s per point), {cpu:.1f} s CPU in the workers "
          f"({cpu / max(len(ours), 1):.2f} s per point); load average now {os.getloadavg()[0]:.1f}")
    if baseline:
        base = rows["base"]
        same = [k for k in base if k in ours]
        b_cpu = sum(base[k][0] for k in same)
        o_cpu = sum(ours[k][0] for k in same)
        differ = [k for k in same if base[k][1:] != ours[k][1:]]
        print(f"baseline {baseline}: its first {len(base)} points in {walls['base']:.1f} s wall, "
              f"{b_cpu:.1f} s CPU ({b_cpu / max(len(same), 1):.2f} s per point); this tree on the same "
              f"points {o_cpu:.1f} s CPU: {b_cpu / max(o_cpu, 1e-9):.2f}x; per point over the whole "
              f"sweep {b_cpu / max(len(same), 1) / (cpu / max(len(ours), 1)):.2f}x; network cycles "
              f"{'identical on every shared point' if not differ else f'DIFFER on {differ}'}")
        print(f"baseline, {points} points at its per-point wall rate: about "
              f"{walls['base'] / max(len(base), 1) * points:.0f} s wall (not run)")
        if differ:
            return 1
    return 0 if not summary.failed else 1


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer points (smoke run)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per measurement, best kept")
    ap.add_argument("--network-sweep", action="store_true", help="the ResNet-50 sweep (issue 28)")
    ap.add_argument("--points", type=int, default=100, help="--network-sweep: points")
    ap.add_argument("--baseline", help="--network-sweep: a tree to compare with (PYTHONPATH)")
    ap.add_argument("--baseline-points", type=int, default=8,
                    help="--network-sweep: the baseline runs this many of the points")
    ap.add_argument("--network-child", nargs=2, metavar=("N", "DB"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.network_child:
        network_child(int(args.network_child[0]), args.network_child[1])
        return 0
    if args.network_sweep:
        return network_sweep(args.points, args.baseline, args.baseline_points)
    loadavg = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"cores: {os.cpu_count()}, load average {loadavg} (other work on the machine skews scaling), "
          f"python {sys.version.split()[0]}")
    stage_breakdown(args.quick)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        runner_scaling(tmp)
        for fidelity in ("analytic", "event"):
            sweep = gemm_sweep(fidelity, args.quick)
            rates = {}
            for workers in (0, 1, 2):
                # best of --repeat runs: other load on the machine only ever slows a run down
                wall, ran, failed, cpu = min(measure(sweep, workers, tmp / f"r{i}")
                                             for i in range(args.repeat))
                rates[workers] = ran / wall
                rows.append((fidelity, workers, ran, failed, wall, ran / wall, cpu))
            eff = rates[2] / (2 * rates[1])
            print(f"{fidelity}: 1 worker {rates[1]:.2f} pts/s = {rates[1] / rates[0]:.2f}x in-process; "
                  f"2 workers {rates[2]:.2f} pts/s = {rates[2] / rates[1]:.2f}x 1 worker; "
                  f"scaling efficiency {eff:.0%}")
    print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    print("busy = the points' CPU seconds / (wall seconds x workers): 1.0 means the workers computed")
    print("all the time; the rest is start-up, scheduling, IPC, commits, or CPU taken by other jobs.")
    print()
    print("| fidelity | workers | points | failed | wall s | points/s | CPU ms/point | busy |")
    print("|---|---|---|---|---|---|---|---|")
    for fid, w, ran, failed, wall, rate, cpu in rows:
        label = "in-process" if w == 0 else str(w)
        busy = cpu / (wall * max(w, 1))
        print(f"| {fid} | {label} | {ran} | {failed} | {wall:.2f} | {rate:.2f} | {cpu / ran * 1e3:.0f} | "
              f"{busy:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
