"""Many-cluster benchmarks: scaling of gemm 1024^3, the DRAM-bound cap, an uneven split,
simulator throughput with 16 clusters.

    PYTHONPATH=. .venv/bin/python bench/bench_clusters.py [--quick] [--only N]

1. Compute-bound scaling: gemm 1024^3 (timing-only) on `cluster4` and `cluster16`, each
   against the same preset with `clusters = 1` (the peer: the one-cluster machine, measured
   in the same run). Goals: 4 clusters >= 3.5x, 16 >= 12x.
2. DRAM-bound: `cluster16` with 2 DRAM channels of 16 B/cycle: cycles at 1, 4, 16 clusters
   against the roofline max(MAC cycles / clusters, DRAM bytes / DRAM peak) of the same run;
   goal: within 5% of it, and the report's bound is DRAM.
3. Uneven split: gemm 1000x1000x64 on 16 clusters, block rows (62 or 63 each), functional,
   checked against numpy; the load imbalance the report shows.
4. Throughput: DMA + kernel ops per CPU second of the 16-cluster gemm 1024^3 timing-only run,
   with bare SimPy (a process yielding timeouts) measured in the same run as the peer. The CPU
   is all of `simulate_clusters`: the machine, each cluster's plans and generated code (the
   control program, the specialized handlers) and the run. "first run": the first simulation
   in a fresh process that has just compiled the programs (what `accelsim run --target sim`
   pays: Python's compile of the generated code too); "best of 3": the runs after it in the
   same process (a sweep's or a network's later points: the compiled code is memoized by
   source text, the source is generated again each run). The runs keep what
   `accelsim run --target sim` keeps without --trace/--timeline: the per-unit sums the
   cluster report reads (`SimOptions(keep_records=False)`, `accelsim.trace.tally`); the
   best of 3 keeping every record is shown beside it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np

from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.clusters import compile_for_clusters
from accelsim.config import load_config
from accelsim.report.clusters import cluster_report
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions
from accelsim.sim.simulate import simulate
from workloads.gemm import build_gemm

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_sim import bare_simpy_events_per_second

TIMING = SimOptions(functional=False)
TALLY = SimOptions(functional=False, keep_records=False)  # what the CLI keeps (section 4)


def run(cfg, n: int, m: int | None = None, k: int | None = None, dist: str = "auto"):  # type: ignore[no-untyped-def]
    m, k = m or n, k or n
    if cfg.clusters == 1:
        mod = build_gemm(n, m, k)
        compile_for_accelerator(cfg, mod)
        t = time.process_time()
        r = simulate(mod, cfg, functional=False)
        return r, time.process_time() - t, "-"
    progs = compile_for_clusters(cfg, build_gemm(n, m, k), None, dist)
    t = time.process_time()
    r = simulate_clusters(progs.modules, cfg, options=TIMING)
    return r, time.process_time() - t, progs.distribution


def scaling(n: int) -> None:
    print(f"== 1. compute-bound scaling, gemm {n}^3 (timing-only) ==")
    for preset, goal in (("cluster4", 3.5), ("cluster16", 12.0)):
        cfg = load_config(preset)
        base, _, _ = run(load_config(preset, {"clusters": 1}), n)
        r, _, dist = run(cfg, n)
        rep = cluster_report(r.trace, cfg, r.cycles, r.stats.ideal_compute_cycles)
        speed = base.cycles / r.cycles
        print(f"{preset:9s}: 1 cluster {base.cycles:>9} cycles, {cfg.clusters:>2} clusters "
              f"{r.cycles:>9} cycles ({dist}) -> {speed:5.2f}x  (goal >= {goal}x: "
              f"{'met' if speed >= goal else 'NOT met'}); bound {rep.bound}, imbalance "
              f"{rep.imbalance:.1%}, mean utilization "
              f"{np.mean([x.utilization for x in rep.rows]):.1%}")


def dram_bound(n: int) -> None:
    print(f"== 2. DRAM-bound: cluster16 with 2 DRAM channels x 16 B/cycle, gemm {n}^3 ==")
    base = None
    for c in (1, 4, 16):
        cfg = load_config("cluster16", {"clusters": c, "dram.channels": 2,
                                        "dram.bandwidth_bytes_per_cycle": 16})
        r, _, dist = run(cfg, n, dist="block2d" if c > 1 else "auto")
        base = base or r.cycles
        if c == 1:
            dram = sum(x.bytes for x in r.trace if x.unit.startswith("dram"))
            roof = max(r.stats.ideal_compute_cycles, -(-dram // 32))
            bound = "DRAM" if -(-dram // 32) >= r.stats.ideal_compute_cycles else "compute"
        else:
            rep = cluster_report(r.trace, cfg, r.cycles, r.stats.ideal_compute_cycles)
            roof, bound = max(rep.bounds.values()), rep.bound
        print(f"{c:>2} clusters ({dist}): {r.cycles:>9} cycles, speedup {base / r.cycles:5.2f}x; "
              f"roofline {roof} cycles (cap {base / roof:5.2f}x), sim/roofline "
              f"{r.cycles / roof:.3f} ({'within' if r.cycles <= 1.05 * roof else 'NOT within'} 5%); "
              f"bound {bound}")


def uneven() -> None:
    print("== 3. uneven split: gemm 1000x1000x64 on cluster16, block rows ==")
    cfg = load_config("cluster16")
    rng = np.random.default_rng(0)
    A = rng.standard_normal((1000, 64)).astype(np.float32)
    B = rng.standard_normal((64, 1000)).astype(np.float32)
    C = rng.standard_normal((1000, 1000)).astype(np.float32)
    progs = compile_for_clusters(cfg, build_gemm(1000, 1000, 64), None, "block")
    r = simulate_clusters(progs.modules, cfg, {"A": A, "B": B, "C": C})
    err = float(np.abs(r.outputs["C"] - (C + A @ B)).max())  # type: ignore[index]
    rep = cluster_report(r.trace, cfg, r.cycles, r.stats.ideal_compute_cycles)
    busy = [x.busy_cycles for x in rep.rows]
    print(f"{r.cycles} cycles, max abs error vs numpy {err:.2e} ({'OK' if err < 1e-3 else 'WRONG'}); "
          f"busy cycles per cluster {min(busy)}..{max(busy)}, load imbalance {rep.imbalance:.1%}")


def _first_run_cpu(n: int) -> float:
    """CPU s of the first `simulate_clusters` of the section-4 programs in a fresh process."""
    out = subprocess.run([sys.executable, __file__, "--first-run", str(n)], check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[-1])


def throughput(n: int) -> None:
    print(f"== 4. simulator throughput, 16 clusters, gemm {n}^3 timing-only ==")
    first = _first_run_cpu(n)
    cfg = load_config("cluster16")
    progs = compile_for_clusters(cfg, build_gemm(n, n, n), None, "block2d")
    best, best_rec, r = None, None, None
    for _ in range(3):
        for opts in (TALLY, TIMING):
            r = None  # (the last run's records are freed here, not inside the next timing)
            t = time.process_time()
            r = simulate_clusters(progs.modules, cfg, options=opts)
            cpu = time.process_time() - t
            if opts is TALLY:
                best = cpu if best is None else min(best, cpu)
            else:
                best_rec = cpu if best_rec is None else min(best_rec, cpu)
    ops = r.stats.dma_ops * 2 + r.stats.kernel_calls  # each DMA: its start and its wait
    simpy_rate = bare_simpy_events_per_second()
    rate, rate_first = ops / best, ops / first
    one = load_config("cluster16", {"clusters": 1})
    mod = build_gemm(n, n, n)
    compile_for_accelerator(one, mod)
    best1 = None
    for _ in range(3):
        t = time.process_time()
        r1 = simulate(mod, one, functional=False)
        cpu = time.process_time() - t
        best1 = cpu if best1 is None else min(best1, cpu)
    rate1 = (r1.stats.dma_ops * 2 + r1.stats.kernel_calls) / best1
    print(f"{ops} ops (DMA start + wait + kernel calls), {r.cycles} cycles; best of 3: "
          f"{best:.3f} s CPU -> {rate:,.0f} ops/s (goal >= 100k: "
          f"{'met' if rate >= 1e5 else 'NOT met'}); keeping every record {best_rec:.3f} s -> "
          f"{ops / best_rec:,.0f} ops/s; first run of a fresh process: {first:.3f} s "
          f"CPU -> {rate_first:,.0f} ops/s; bare SimPy {simpy_rate:,.0f} events/s in this run "
          f"-> {simpy_rate / rate:.1f} bare events per op; the same gemm on one cluster "
          f"(simulate, no hub): {rate1:,.0f} ops/s (16 clusters at {rate / rate1:.2f}x of it)")


def first_run(n: int) -> None:
    """`--first-run N`: compile the section-4 programs, print the CPU of one simulation."""
    cfg = load_config("cluster16")
    progs = compile_for_clusters(cfg, build_gemm(n, n, n), None, "block2d")
    t = time.process_time()
    simulate_clusters(progs.modules, cfg, options=TALLY)
    print(f"{time.process_time() - t:.6f}")


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--quick", action="store_true", help="gemm 256^3 instead of 1024^3")
    ap.add_argument("--only", type=int, choices=(1, 2, 3, 4), help="run one section")
    ap.add_argument("--first-run", type=int, metavar="N", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.first_run:
        first_run(a.first_run)
        return 0
    n = 256 if a.quick else 1024
    sections = {1: lambda: scaling(n), 2: lambda: dram_bound(n), 3: uneven, 4: lambda: throughput(n)}
    for k, run_section in sections.items():
        if a.only in (None, k):
            run_section()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
