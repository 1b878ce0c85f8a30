"""How fast the report side handles big traces: Report.build, the overlap timeline (with pixel
merging) against drawing every interval as its own rectangle, and the Chrome trace export.

    .venv/bin/python bench/bench_report.py [--events 1000000]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def synthetic_trace(n: int, seed: int = 0):  # type: ignore[no-untyped-def]
    """A pipelined-looking trace: DMA on two engines and channels, kernels, control stalls."""
    from accelsim.trace import Trace

    rng = random.Random(seed)
    t = Trace()
    clock = 0
    labels = ["A->a_buf", "B->b_buf", "C->c_buf", "c_buf->C"]
    while len(t) < n:
        lab = labels[rng.randrange(4)]
        d = rng.randint(20, 60)
        e = len(t) % 2
        t.add(f"dram.ch{e}", clock + 4, clock + 4 + d, "read", 256, lab, "f.mlir:3:5")
        t.add(f"dma{e}", clock, clock + d + 12, "dma", 256, lab, "f.mlir:3:5")
        k = rng.randint(10, 50)
        t.add("compute0", clock + 6, clock + 6 + k, "kernel", 1024, "kern", "f.mlir:9:5")
        if k < d:
            t.add("cp", clock + 6 + k, clock + d + 12, "stall", 0, f"wait {lab}", "f.mlir:5:5")
        clock += max(d, k) + 12
    t.metadata["cycles"] = t.end
    return t


def naive_timeline(trace, out: str) -> float:  # type: ignore[no-untyped-def]
    """The peer: one rectangle per interval, no merging."""
    from matplotlib.figure import Figure

    t0 = time.perf_counter()
    fig = Figure(figsize=(14, 3), dpi=100)
    ax = fig.add_subplot()
    lanes = sorted(trace.units())
    for i, u in enumerate(lanes):
        ax.broken_barh([(r.start, r.duration) for r in trace if r.unit == u], (i - 0.4, 0.8))
    ax.set_xlim(0, trace.end)
    fig.savefig(out)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    from accelsim.config import load_config
    from accelsim.report import Report
    from accelsim.report.chrome_trace import write_chrome_trace
    from plots.timeline import plot_timeline

    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    cfg = load_config("default")
    trace = synthetic_trace(args.events)
    n = len(trace)
    stats = type("S", (), dict(macs=0, alu_ops=0, special_ops=0, kernel_sram_bytes=0, dma_sram_bytes=0,
                               ideal_compute_cycles=0, dma_ops=0, kernel_calls=0))()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        rep = Report.build(trace, cfg, stats)
        t_report = time.perf_counter() - t0
        t0 = time.perf_counter()
        tl = plot_timeline(trace, os.path.join(tmp, "t.png"), config=cfg)
        t_plot = time.perf_counter() - t0
        t_naive = naive_timeline(trace, os.path.join(tmp, "n.png"))
        t0 = time.perf_counter()
        write_chrome_trace(os.path.join(tmp, "t.json"), trace, cfg.clock_ghz)
        t_json = time.perf_counter() - t0
        size = os.path.getsize(os.path.join(tmp, "t.json"))
    print(f"{n:,} trace records, {rep.cycles:,} cycles")
    print(f"Report.build            {t_report:6.2f} s  ({n / t_report:,.0f} records/s)")
    print(f"plot_timeline (merged)  {t_plot:6.2f} s  ({len(tl.bars):,} bars drawn)")
    print(f"naive timeline (peer)   {t_naive:6.2f} s  ({n:,} rectangles)  -> {t_naive / t_plot:.1f}x slower")
    print(f"Chrome trace JSON       {t_json:6.2f} s  ({size / 1e6:.0f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
