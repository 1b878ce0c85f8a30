"""Simulated cycles of our default pipeline against upstream mlir-opt-19's, same tile sizes,
same fast-memory capacity, same hardware config; each with its roofline ratio.

    .venv/bin/python bench/bench_schedule.py [--config default] [--quick]

Per case, three schedules of the same workload, all simulated timing-only on one config:
- ours:     our affine-loop-tile -> affine-data-copy-generate -> affine-pipeline-data-transfer
            with its defaults (copy-out pipelining, cross-tile prefetch, flattened tile loops)
            and the case's stages, within the config's SRAM capacity;
- ours-mlir: 2 stages, pipeline-copy-out=false cross-tile-prefetch=false
            flatten-tile-loops=false (MLIR's scope);
- upstream: `mlir-opt-19` with the same three passes and options, its output run --as-is.
The ratio column is upstream cycles / ours (> 1: ours is faster). Roofline ratio = cycles /
max(ideal compute cycles, DRAM bytes / peak DRAM bandwidth) from accelsim.report.
A schedule that the simulator rejects (e.g. a DMA outside its memref) is reported as such.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# (workload spec, tile sizes, fast-memory capacity KiB, our stages, note)
CASES: list[tuple[str, str, int, int, str]] = [
    ("gemm:M=128,N=128,K=128", "32,32,32", 16, 2, "README case"),
    ("gemm:M=256,N=256,K=256", "128,128,32", 200, 2, ""),
    ("gemm:M=256,N=256,K=256", "128,64,64", 200, 2, ""),
    ("gemm:M=256,N=256,K=256", "64,128,64", 128, 3, "default pipeline's choice"),
    ("gemm:M=512,N=512,K=512", "64,128,64", 128, 3, "default pipeline's choice"),
    ("gemm:M=128,N=128,K=1024", "128,128,32", 200, 2, "K-deep"),
    ("conv2d:N=1,C=16,H=34,W=34,K=32,R=3,S=3,stride=1", "1,8,8,32", 64, 2, ""),
    ("jacobi-2d:N=256,T=2", "1,32,256", 64, 2, ""),
    ("vector_add:N=65536", "4096", 64, 2, "vector op"),
]
QUICK = {"gemm:M=128,N=128,K=128", "vector_add:N=65536"}


@dataclass
class Row:
    spec: str
    schedule: str
    cycles: int | None = None
    roofline_cycles: int | None = None
    ratio: float | None = None
    bound: str = ""
    overlap: float | None = None
    dma_ops: int | None = None
    error: str = ""
    seconds: float = 0.0


def ours_flags(tiles: str, cap: int, cfg, mlir_scope: bool,  # type: ignore[no-untyped-def]
               stages: int = 2) -> list[str]:
    sp = cfg.spaces
    pipe = (f"--affine-pipeline-data-transfer=stages={2 if mlir_scope else stages} "
            f"fast-mem-space={sp.sram} fast-mem-capacity={cfg.sram.capacity_kib}")
    if mlir_scope:
        pipe += " pipeline-copy-out=false cross-tile-prefetch=false flatten-tile-loops=false"
    return [f"--affine-loop-tile=tile-sizes={tiles}",
            f"--affine-data-copy-generate=generate-dma fast-mem-space={sp.sram} "
            f"slow-mem-space={sp.dram} tag-mem-space={sp.tag} fast-mem-capacity={cap}", pipe]


def upstream_module(spec: str, tiles: str, cap: int, cfg):  # type: ignore[no-untyped-def]
    import workloads
    from compiler.text import parse_module, print_module

    text = print_module(workloads.get(spec).module())
    cmd = ["mlir-opt-19", "-", f"--affine-loop-tile=tile-sizes={tiles}",
           f"--affine-data-copy-generate=generate-dma fast-mem-space={cfg.spaces.sram} "
           f"fast-mem-capacity={cap}", "--affine-pipeline-data-transfer"]
    proc = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"mlir-opt-19 failed: {proc.stderr.strip()[:200]}")
    return parse_module(proc.stdout, filename=f"mlir-opt-19:{spec}")


def measure(spec: str, schedule: str, build, cfg) -> Row:  # type: ignore[no-untyped-def]
    import workloads
    from accelsim import simulate
    from accelsim.report import Report, input_traffic

    row = Row(spec, schedule)
    t0 = time.perf_counter()
    try:
        module = build()
        # the honest roofline: the compulsory traffic of the workload before any pass
        traffic = input_traffic(workloads.get(spec).module(), None, cfg)
        rep = Report.from_result(simulate(module, cfg, functional=False), traffic)
    except Exception as exc:  # a rejected schedule is a result, not a crash of the bench
        row.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        row.seconds = time.perf_counter() - t0
        return row
    row.seconds = time.perf_counter() - t0
    roof = rep.roofline or rep.schedule_roofline
    row.cycles, row.roofline_cycles = rep.cycles, roof.cycles
    row.ratio, row.bound = roof.ratio(rep.cycles), roof.bound
    row.overlap, row.dma_ops = rep.overlap_fraction, rep.dma_ops
    return row


def main(argv: list[str] | None = None) -> int:
    import workloads
    from accelsim import load_config
    from compiler.transforms.registry import PassManager

    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="default")
    ap.add_argument("--quick", action="store_true", help="two cases only")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    have_upstream = shutil.which("mlir-opt-19") is not None
    print(f"config '{cfg.name}' ({cfg.hash()}); mlir-opt-19 {'found' if have_upstream else 'NOT FOUND'}")
    header = ("| workload | tiles | cap KiB | schedule | cycles | roofline | ratio to roofline | bound "
              "| overlap | DMAs | upstream/this |")
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for spec, tiles, cap, stages, note in CASES:
        if args.quick and spec not in QUICK:
            continue

        def ours(mlir_scope: bool, spec=spec, tiles=tiles, cap=cap, stages=stages):  # type: ignore[no-untyped-def]
            m = workloads.get(spec).module()
            PassManager.from_flags(ours_flags(tiles, cap, cfg, mlir_scope, stages)).run(m)
            return m

        rows = [measure(spec, "ours", lambda: ours(False), cfg),
                measure(spec, "ours, MLIR scope", lambda: ours(True), cfg)]
        if have_upstream:
            def upstream(spec=spec, tiles=tiles, cap=cap):  # type: ignore[no-untyped-def]
                return upstream_module(spec, tiles, cap, cfg)

            rows.append(measure(spec, "upstream --as-is", upstream, cfg))
        up = rows[-1].cycles if have_upstream else None
        label = spec + (f" ({note})" if note else "")
        for r in rows:
            if r.error:
                print(f"| {label} | {tiles} | {cap} | {r.schedule} | rejected: {r.error} | | | | | | |")
                continue
            vs = f"{up / r.cycles:.3f}x" if up and r.cycles else "-"
            print(f"| {label} | {tiles} | {cap} | {r.schedule} | {r.cycles:,} | {r.roofline_cycles:,} | "
                  f"{r.ratio:.3f}x | {r.bound} | {r.overlap:.0%} | {r.dma_ops:,} | {vs} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
