"""Default accelerator pipeline: simulated cycles and roofline ratio per workload and config,
for the DMA model before/after engine pipelining + channel interleaving, and tile sizes from
the generic cache model (`cache-size`) vs the accelerator-aware model (accelsim/tiling.py).

    .venv/bin/python bench/bench_tiling.py [--quick]
"""

from __future__ import annotations

import sys
import time

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from accelsim.report import input_traffic, metrics
from compiler.transforms.registry import PassManager

OLD_DMA = {"dma.max_outstanding": 1, "dram.interleave": "none"}
CASES = [("gemm:M=256,N=256,K=256", "default"), ("gemm:M=512,N=512,K=512", "default"),
         ("gemm:M=256,N=256,K=256", "server"), ("gemm:M=512,N=512,K=512", "server"),
         ("conv2d", "default"), ("jacobi-2d", "default"), ("vector_add:N=65536", "default")]


def run(spec: str, cfg, with_module: bool) -> tuple[int, float, str, float]:  # type: ignore[no-untyped-def]
    mod = workloads.get(spec).module()
    traffic = input_traffic(mod, None, cfg)  # before the passes: the honest roofline
    t0 = time.perf_counter()
    flags, _ = accelerator_pipeline(cfg, mod) if with_module else accelerator_pipeline(cfg)
    PassManager.from_flags(flags).run(mod)
    compile_s = time.perf_counter() - t0
    m = metrics(simulate(mod, cfg, functional=False), traffic)
    tile = flags[0].split("=", 1)[1]
    return m["cycles"], m["roofline_ratio"], tile, compile_s


def main() -> None:
    cases = CASES[:2] if "--quick" in sys.argv else CASES
    print(f"{'workload':26} {'config':8} {'schedule':34} {'cycles':>10} {'roofline x':>10}  tiles")
    for spec, preset in cases:
        new = load_config(preset)
        old = new.with_overrides(OLD_DMA)
        rows = [("old DMA model, cache-size tiles", old, False),
                ("new DMA model, cache-size tiles", new, False),
                ("new DMA model, model tiles", new, True)]
        for label, cfg, model in rows:
            cyc, ratio, tile, cs = run(spec, cfg, model)
            print(f"{spec:26} {preset:8} {label:34} {cyc:>10,} {ratio:>9.3f}x  {tile} "
                  f"(compile {cs:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
