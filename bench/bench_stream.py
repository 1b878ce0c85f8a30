"""Many-core scaling against Stream, both measured in this run: gemm M x N x K on 1, 4 and 16
compute-bound cores/clusters of 16 x 16 MACs.

    PYTHONPATH=. .venv/bin/python bench/bench_stream.py [--size 1024] [--cores 1,4,16]

Ours: the `cluster16` preset (16 x 16 array per cluster, DRAM and bus wide enough that gemm
1024^3 is compute-bound) with `--set clusters=N`, compiled for the N clusters and simulated by
event, timing-only. The peer: Stream 2.1.1 (`bench/peers/stream_driver.py` in
bench/peers/.venv-stream; `bash bench/peers/setup.sh stream`) on its own example TPU-like core
resized to 16 x 16, N cores on one bus, off-chip and bus widened so the layer is compute-bound,
its own mapping generator choosing the split. Printed per core count: cycles, the speedup over
one core of the same tool, the distribution/split each chose, and wall/CPU seconds.

The two tools model different machines in their details (Stream: ZigZag's per-core loop
mapping and a steady-state allocation; ours: the compiled DMA program run by event), so the
anchor is the scaling, not the cycle count: both give the speedup of the same layer on the same
MAC count.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.clusters import compile_for_clusters
from accelsim.config import load_config
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions
from accelsim.sim.simulate import simulate
from workloads.gemm import build_gemm

PEERS = Path(__file__).resolve().parent / "peers"


def ours(n: int, clusters: int) -> tuple[int, str, float, float]:
    """Cycles, distribution, wall s, CPU s (compile + simulate) of gemm n^3 on `clusters`."""
    wall, cpu = time.perf_counter(), time.process_time()
    cfg = load_config("cluster16", {"clusters": clusters})
    if clusters == 1:
        mod = build_gemm(n, n, n)
        compile_for_accelerator(cfg, mod)
        cycles, dist = simulate(mod, cfg, functional=False).cycles, "-"
    else:
        progs = compile_for_clusters(cfg, build_gemm(n, n, n), None, "auto")
        cycles = simulate_clusters(progs.modules, cfg, options=SimOptions(functional=False)).cycles
        dist = progs.distribution
    return cycles, dist, time.perf_counter() - wall, time.process_time() - cpu


def stream(n: int, cores: int) -> dict | None:  # type: ignore[type-arg]
    py = PEERS / ".venv-stream" / "bin" / "python"
    if not py.exists():
        return None
    proc = subprocess.run([str(py), str(PEERS / "stream_driver.py"), "--m", str(n), "--n", str(n),
                           "--k", str(n), "--cores", str(cores), "--array", "16"],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"stream driver failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--cores", default="1,4,16")
    args = ap.parse_args()
    counts = [int(c) for c in args.cores.split(",")]
    head = subprocess.run(["git", "log", "-1", "--format=%h"], capture_output=True, text=True,
                          check=False, cwd=Path(__file__).parent).stdout.strip()
    print(f"gemm {args.size}^3, 16x16 MACs per core, compute-bound; accelsim {head}")
    rows = []
    for c in counts:
        ours_row = ours(args.size, c)
        peer = stream(args.size, c)
        rows.append((c, ours_row, peer))
    if rows[0][2] is None:
        print("SKIPPED stream: no venv at bench/peers/.venv-stream; run bench/peers/setup.sh stream")
    base_ours = rows[0][1][0]
    base_peer = rows[0][2]["cycles"] if rows[0][2] else None
    print("| cores | accelsim cycles | accelsim speedup | distribution | accelsim wall s (CPU s) "
          "| Stream cycles | Stream speedup | Stream split | Stream wall s (CPU s) |")
    print("|---:|---:|---:|---|---:|---:|---:|---|---:|")
    for c, (cyc, dist, wall, cpu), peer in rows:
        peer_cols = ("n/a", "n/a", "n/a", "n/a") if peer is None else (
            f"{peer['cycles']:,.0f}", f"{base_peer / peer['cycles']:.2f}x",
            peer["inter_core_split"], f"{peer['wall_s']:.2f} ({peer['cpu_s']:.2f})")
        print(f"| {c} | {cyc:,} | {base_ours / cyc:.2f}x | {dist} | {wall:.2f} ({cpu:.2f}) | "
              + " | ".join(peer_cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
