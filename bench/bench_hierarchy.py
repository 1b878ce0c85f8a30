"""A memory hierarchy of three levels vs two: tile-search time and the schedules it gives.

    .venv/bin/python bench/bench_hierarchy.py [--rounds N] [--skip-sim]

1. Search time for gemm (512^3 and 1024^3): the hierarchy search on `three_level`
   (`accelsim/compile/tile_search.py` `search_levels`; choosing the sizes per level, then choosing and
   compiling) against the two-level search (`tile_search.search`: choose, compile and estimate
   its finalists) on `default` with the same total SRAM (640 KiB), in the same run, rounds
   interleaved, best of N each (the machine is shared: the best is the least disturbed).
2. gemm 1024^3, timing-only event runs of what `compile_for_accelerator` makes: cycles, DRAM
   bytes and energy on `three_level`, on the two-level machine with the same total SRAM (its
   own search's best schedule), and that machine forced to the three-level choice's first-level
   tiles (so the table says how much is the tiling and how much is the level split).
3. A functional check: gemm 256^3 on `three_level` with real data equals numpy.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.compile.tile_search import choose_levels, search, search_levels
from accelsim.report import Report
from compiler.transforms.outline_kernels import ensure_outlined
from compiler.transforms.registry import PassManager

SIZES = (512, 1024)


def two_level_same_sram():  # type: ignore[no-untyped-def]
    three = load_config("three_level")
    total = sum(lv.capacity_kib for lv in three.memory_chain()[1:])
    return load_config("default").with_overrides({"sram.capacity_kib": total})


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def search_times(rounds: int) -> None:
    three, two = load_config("three_level"), two_level_same_sram()
    print("1. tile-search time, gemm, best of", rounds, "rounds (ms)")
    print(f"{'size':>6} {'3-level choose':>15} {'3-level search':>15} {'2-level search':>15} "
          f"{'choose / 2-level':>17} {'search / 2-level':>17}")
    for n in SIZES:
        spec = f"gemm:M={n},N={n},K={n}"
        best = {"choose": 1e9, "levels": 1e9, "two": 1e9}
        for _ in range(rounds):
            m = workloads.get(spec).module()
            best["choose"] = min(best["choose"], timed(lambda m=m: choose_levels(m, three)))
            m = workloads.get(spec).module()
            best["levels"] = min(best["levels"], timed(lambda m=m: search_levels(m, three)))
            m = workloads.get(spec).module()
            best["two"] = min(best["two"], timed(lambda m=m: search(m, two)))
        ms = {k: v * 1e3 for k, v in best.items()}
        print(f"{n:>6} {ms['choose']:>15.0f} {ms['levels']:>15.0f} {ms['two']:>15.0f} "
              f"{ms['choose'] / ms['two']:>17.2f} {ms['levels'] / ms['two']:>17.2f}")


def tiles_flag(flags: list[str]) -> str:
    """The tiling pass's options (the pipeline may start with sibling fusion)."""
    return next(f for f in flags if f.startswith("--affine-loop-tile=")).split("=", 1)[1]


def sim_row(label: str, cfg, mod, flags: list[str]) -> None:  # type: ignore[no-untyped-def]
    ensure_outlined(mod)
    res = simulate(mod, cfg, functional=False)
    rep = Report.from_result(res)
    print(f"{label:48} {res.cycles:>10} {rep.dram_bytes:>12} {rep.energy.total_pj / 1e6:>10.1f}  "
          f"{tiles_flag(flags)}")


def gemm_1024() -> None:
    print("\n2. gemm 1024^3, event runs (timing only)")
    print(f"{'machine / schedule':48} {'cycles':>10} {'DRAM bytes':>12} {'energy uJ':>10}  tiles")
    spec = "gemm:M=1024,N=1024,K=1024"
    three, two = load_config("three_level"), two_level_same_sram()
    m3 = workloads.get(spec).module()
    pipe3, _ = compile_for_accelerator(three, m3)
    sim_row("three_level (glb 512 + spad 128 KiB), search", three, m3, pipe3.flags())
    m2 = workloads.get(spec).module()
    pipe2, _ = compile_for_accelerator(two, m2)
    sim_row("two-level, 640 KiB SRAM, search", two, m2, pipe2.flags())
    assert pipe3.tile_sizes is not None
    fp = 4 * sum(a * b for a, b in ((pipe3.tile_sizes[0], pipe3.tile_sizes[2]),
                                    (pipe3.tile_sizes[2], pipe3.tile_sizes[1]),
                                    (pipe3.tile_sizes[0], pipe3.tile_sizes[1])))
    forced = AcceleratorPipeline.for_config(two).with_tiles(pipe3.tile_sizes, -(-fp // 1024))
    mf = workloads.get(spec).module()
    PassManager(forced.passes()).run(mf)
    sim_row("two-level, 640 KiB SRAM, three_level's L1 tiles", two, mf, forced.flags())


def functional() -> None:
    print("\n3. functional: gemm 256^3 on three_level with real data")
    w = workloads.get("gemm:M=256,N=256,K=256")
    cfg = load_config("three_level")
    inputs = w.random_inputs(seed=0)
    m = w.module()
    pipe, _ = compile_for_accelerator(cfg, m)
    ensure_outlined(m)
    res = simulate(m, cfg, inputs=inputs)
    ref = w.reference(inputs)["C"]
    ok = np.allclose(res.outputs["C"], ref, rtol=w.rtol, atol=w.atol)
    print(f"equals numpy: {ok}  (max abs error {np.max(np.abs(res.outputs['C'] - ref)):.2e}); "
          f"{res.cycles} cycles; {tiles_flag(pipe.flags())}")


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-sim", action="store_true")
    args = ap.parse_args()
    search_times(args.rounds)
    if not args.skip_sim:
        gemm_1024()
        functional()


if __name__ == "__main__":
    main()
