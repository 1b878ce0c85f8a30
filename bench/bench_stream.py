"""Against Stream, both measured in this run. Two cases (`--case`):

`scaling` (the default): gemm M x N x K on 1, 4 and 16 compute-bound cores/clusters of 16 x 16
MACs.

    PYTHONPATH=. .venv/bin/python bench/bench_stream.py [--size 1024] [--cores 1,4,16]

`two-conv`: Stream's shipped two-convolution example (`make_2_conv.py`: conv 3x3 pad 1 -> conv
3x3 pad 1, int8) on its shipped `tpu_like_quad_core` hardware, layer by layer and fused
(`bench/peers/stream_network_driver.py`), against ours on the closest machine: `cluster4` with
four 32 x 32 arrays, 2 MB of SRAM each, one DRAM channel of 8 B/cycle (Stream's 64-bit off-chip
port) at 1 cycle latency, a 16 B/cycle bus (its 128-bit bus), the same two layers at int8
(`--dtype i8`), layer by layer, pipelined over the clusters, and fused where that schedule is
available. Printed: cycles and DRAM bytes of each, and the modelling differences.

    PYTHONPATH=. .venv/bin/python bench/bench_stream.py --case two-conv [--conv-size 32]
        [--conv-channels 32] [--fidelity analytic]

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


# the closest accelsim machine to Stream's tpu_like_quad_core (module docstring)
TPU_QUAD = {"compute.rows": 32, "compute.cols": 32, "sram.capacity_kib": 2048, "dram.channels": 1,
            "dram.bandwidth_bytes_per_cycle": 8, "dram.latency_cycles": 1,
            "interconnect.bandwidth_bytes_per_cycle": 16}


def ours_two_conv(size: int, channels: int, fidelity: str) -> list[dict]:  # type: ignore[type-arg]
    """Our schedules of the two convolutions on the closest machine: cycles, DRAM bytes, wall s."""
    from accelsim.network.layerlist import parse_layer_list
    from accelsim.network.precision import with_precision
    from accelsim.network.schedule import available, runner

    text = "".join(f"Conv{i} conv:C={channels},H={size},W={size},K={channels},R=3,S=3,pad=1\n"
                   for i in (1, 2))
    network, _ = with_precision(parse_layer_list(text, "two_conv.layers"), "i8")
    rows = []
    for schedule in [s for s in ("layer-by-layer", "pipelined", "fused") if s in available()]:
        wall = time.perf_counter()
        result = runner(schedule)(network, "cluster4", dict(TPU_QUAD), fidelity, workers=0,
                                  progress=False)
        t = result.totals()
        rows.append({"schedule": schedule, "cycles": t["cycles"], "dram_bytes": t["dram_bytes"],
                     "dram_bytes_read": t["dram_bytes_read"],
                     "dram_bytes_written": t["dram_bytes_written"],
                     "clusters": " ".join(f"{r.layer.name}@{r.cluster or '0-3'}"
                                          for r in result.layers),
                     "wall_s": time.perf_counter() - wall})
    return rows


def stream_two_conv(size: int, channels: int) -> list[dict] | None:  # type: ignore[type-arg]
    py = PEERS / ".venv-stream" / "bin" / "python"
    if not py.exists():
        return None
    proc = subprocess.run([str(py), str(PEERS / "stream_network_driver.py"), "--size", str(size),
                           "--channels", str(channels)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"stream driver failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]


def two_conv(size: int, channels: int, fidelity: str) -> None:
    macs = 2 * size * size * channels * channels * 9
    print(f"Stream's two-conv example: 2 x conv 3x3 pad 1, {channels} -> {channels} channels, "
          f"{size}x{size}, int8, {macs:,} MACs; ours [{fidelity}] on cluster4 + {TPU_QUAD}")
    peer = stream_two_conv(size, channels)
    if peer is None:
        print("SKIPPED stream: no venv at bench/peers/.venv-stream; run bench/peers/setup.sh stream")
    print("| tool | schedule | cycles | DRAM read B | DRAM written B | DRAM B | where | wall s |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    for row in peer or []:
        total = (None if row["dram_bytes_read"] is None
                 else row["dram_bytes_read"] + row["dram_bytes_written"])
        print(f"| {row['tool']} | {row['schedule']} | {row['cycles']:,.0f} | "
              f"{_n(row['dram_bytes_read'])} | {_n(row['dram_bytes_written'])} | {_n(total)} | "
              f"each conv split over cores 0-3 | {row['wall_s']:.1f} |")
    for row in ours_two_conv(size, channels, fidelity):
        print(f"| accelsim | {row['schedule']} | {row['cycles']:,} | {_n(row['dram_bytes_read'])} | "
              f"{_n(row['dram_bytes_written'])} | {_n(row['dram_bytes'])} | {row['clusters']} | "
              f"{row['wall_s']:.1f} |")


def _n(v: object) -> str:
    return "n/a" if v is None else f"{int(v):,}"  # type: ignore[call-overload]


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--case", choices=("scaling", "two-conv"), default="scaling")
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--cores", default="1,4,16")
    ap.add_argument("--conv-size", type=int, default=32)
    ap.add_argument("--conv-channels", type=int, default=32)
    ap.add_argument("--fidelity", choices=("analytic", "event"), default="analytic")
    args = ap.parse_args()
    if args.case == "two-conv":
        two_conv(args.conv_size, args.conv_channels, args.fidelity)
        return 0
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
