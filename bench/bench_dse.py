"""DSE throughput: points per second of gemm sweeps, analytic and event fidelity, 1 and 2 workers.

Peers measured in the same run: the same sweep evaluated in this process (no pool, no IPC: the
runner's overhead shows as the gap to it), and 1 local worker vs 2 (scaling efficiency =
rate(2) / (2 * rate(1))). Every run writes a fresh SQLite file, so commits are included.

    .venv/bin/python bench/bench_dse.py [--quick]
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


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer points (smoke run)")
    ap.add_argument("--repeat", type=int, default=2, help="runs per measurement, best kept")
    args = ap.parse_args()
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
