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


def measure(sweep: Sweep, workers: int, tmp: Path) -> tuple[float, int, int]:
    db = tmp / f"{sweep.name}-{workers}.sqlite"
    t0 = time.perf_counter()
    summary = run_sweep(sweep, db, workers=workers, progress=False)
    wall = time.perf_counter() - t0
    assert len(load(db)) == summary.total
    return wall, summary.ran, summary.failed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer points (smoke run)")
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, python {sys.version.split()[0]}")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for fidelity in ("analytic", "event"):
            sweep = gemm_sweep(fidelity, args.quick)
            rates = {}
            for workers in (0, 1, 2):
                wall, ran, failed = measure(sweep, workers, tmp)
                rates[workers] = ran / wall
                rows.append((fidelity, workers, ran, failed, wall, ran / wall))
            eff = rates[2] / (2 * rates[1])
            print(f"{fidelity}: 1 worker {rates[1]:.2f} pts/s = {rates[1] / rates[0]:.2f}x in-process; "
                  f"2 workers {rates[2]:.2f} pts/s = {rates[2] / rates[1]:.2f}x 1 worker; "
                  f"scaling efficiency {eff:.0%}")
    print()
    print("| fidelity | workers | points | failed | wall s | points/s |")
    print("|---|---|---|---|---|---|")
    for fid, w, ran, failed, wall, rate in rows:
        label = "in-process" if w == 0 else str(w)
        print(f"| {fid} | {label} | {ran} | {failed} | {wall:.2f} | {rate:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
