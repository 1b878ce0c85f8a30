"""Default accelerator pipeline: simulated cycles and roofline ratio per workload and config,
for the DMA model before/after engine pipelining + channel interleaving, and tile sizes from
the generic cache model (`cache-size`) vs the accelerator-aware tile search
(accelsim/compile/tile_search.py).

    .venv/bin/python bench/bench_tiling.py [--quick]
    .venv/bin/python bench/bench_tiling.py --choices [SPEC ...]    # every workload, default + edge

`--choices` prints, per workload and config, the cycles of the schedule the pipeline chooses
(event run, timing only, and the analytic estimate), the time to choose and compile it, and
its tile flag; it also runs on an older tree (`PYTHONPATH=DIR`, the flat layout before the
stage packages) for before/after tables.
"""

from __future__ import annotations

import sys
import time

import workloads
from accelsim import load_config, simulate
from accelsim.config import HardwareConfig
from accelsim.report import metrics
from compiler.ir.ops import ModuleOp
from compiler.transforms.registry import PassManager

OLD_DMA = {"dma.max_outstanding": 1, "dram.interleave": "none"}
CASES = [("gemm:M=256,N=256,K=256", "default"), ("gemm:M=512,N=512,K=512", "default"),
         ("gemm:M=256,N=256,K=256", "server"), ("gemm:M=512,N=512,K=512", "server"),
         ("conv2d", "default"), ("jacobi-2d", "default"), ("vector_add:N=65536", "default")]


def compile_default(cfg: HardwareConfig, mod: ModuleOp, func: str | None, search: bool) -> list[str]:
    """Compile `mod` in place with the default pipeline (the tile search's choice when
    `search`, else the cache model's tiles); its flags. Works on this tree and on the flat
    layout of an older one, whose `accelerator_pipeline` returned (flags, notes)."""
    try:
        from accelsim.compile.accelerator import accelerator_pipeline, compile_for_accelerator
    except ImportError:  # an older tree
        from accelsim.cli.sim_target import accelerator_pipeline  # type: ignore[no-redef]

        flags, _ = accelerator_pipeline(cfg, mod, func) if search else accelerator_pipeline(cfg)
        PassManager.from_flags(flags).run(mod)
        return list(flags)
    if search:
        pipe, _ = compile_for_accelerator(cfg, mod, func)
    else:
        pipe = accelerator_pipeline(cfg)
        PassManager(pipe.passes()).run(mod)
    return pipe.flags()


def run(spec: str, cfg: HardwareConfig, search: bool) -> tuple[int, float, str, float]:
    mod = workloads.get(spec).module()
    try:  # the honest roofline, from the program before the passes
        from accelsim.report import input_traffic

        extra = [input_traffic(workloads.get(spec).module(), None, cfg)]
    except ImportError:  # an older tree: its metrics had the moved-bytes roofline only
        extra = []
    t0 = time.perf_counter()
    flags = compile_default(cfg, mod, None, search)
    compile_s = time.perf_counter() - t0
    m = metrics(simulate(mod, cfg, functional=False), *extra)
    return m["cycles"], m["roofline_ratio"], _tiles(flags), compile_s


def _tiles(flags: list[str]) -> str:
    """The tiling pass's options (the first pass may be the sibling fusion)."""
    tile = next((f for f in flags if f.startswith("--affine-loop-tile=")), None)
    return tile.split("=", 1)[1] if tile else "-"


def choices(specs: list[str]) -> None:
    try:
        from accelsim.estimate.analytic import estimate
    except ImportError:  # an older tree
        from accelsim.analytic import estimate  # type: ignore[no-redef]
    specs = specs or [*workloads.names(), "gemm:M=256,N=256,K=256", "gemm:M=512,N=512,K=512"]
    print(f"{'workload':24} {'config':8} {'event':>11} {'analytic':>11} {'compile s':>9}  tiles")
    for preset in ("default", "edge"):
        cfg = load_config(preset)
        for spec in specs:
            w = workloads.get(spec)
            mod = w.module()
            t0 = time.perf_counter()
            flags = compile_default(cfg, mod, w.func_name, True)
            compile_s = time.perf_counter() - t0
            an = estimate(mod, cfg, func=w.func_name).cycles
            ev = simulate(mod, cfg, func=w.func_name, functional=False).cycles
            print(f"{spec:24} {preset:8} {ev:>11,} {an:>11,} {compile_s:>9.3f}  "
                  f"{_tiles(flags)}", flush=True)


def main() -> None:
    if "--choices" in sys.argv:
        choices([a for a in sys.argv[1:] if not a.startswith("--")])
        return
    cases = CASES[:2] if "--quick" in sys.argv else CASES
    print(f"{'workload':26} {'config':8} {'schedule':34} {'cycles':>10} {'roofline x':>10}  tiles")
    for spec, preset in cases:
        new = load_config(preset)
        old = new.with_overrides(OLD_DMA)
        rows = [("old DMA model, cache-size tiles", old, False),
                ("new DMA model, cache-size tiles", new, False),
                ("new DMA model, model tiles", new, True)]
        for label, cfg, search in rows:
            cyc, ratio, tile, cs = run(spec, cfg, search)
            print(f"{spec:26} {preset:8} {label:34} {cyc:>10,} {ratio:>9.3f}x  {tile} "
                  f"(compile {cs:.2f} s)", flush=True)


if __name__ == "__main__":
    main()
