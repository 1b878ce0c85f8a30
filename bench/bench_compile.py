"""Compile time of tile -> data copy -> pipeline, ours vs upstream mlir-opt-19 on the same input.

For gemm, conv2d and jacobi-2d: the same MLIR text goes through
  --affine-loop-tile=tile-size=T --affine-data-copy-generate="generate-dma fast-mem-capacity=C"
  --affine-pipeline-data-transfer
in our pass manager (CPU time of the three passes, and of parse + passes + print) and in an
`mlir-opt-19` process (its CPU time, and its wall time). Best of N runs each. Run:

    .venv/bin/python bench/bench_compile.py [--repeat 3] [--sim] [--search-only]

`--sim` also simulates the compiled programs (accelsim, default hardware) and prints cycles
with no pipelining, MLIR's pipelining (mlir-compat) and ours, as ratios to MLIR's.

Then the default accelerator pipeline as `accelsim run --target sim` compiles it: tile search
+ passes (CPU, best of N, in a warm process), and mlir-opt-19 running the passes alone with
the chosen tile sizes and copy capacity (upstream options only). `--search-only` runs just
that section; it also runs on an older tree (`PYTHONPATH=DIR`) for before/after numbers.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import time

import workloads
from compiler.text import parse_module, print_module
from compiler.transforms.registry import PassManager

CASES = [
    ("gemm", "M=256,N=256,K=256", 32, 16),
    ("conv2d", "N=1,C=16,H=34,W=34,K=16,R=3,S=3,stride=1", 8, 16),
    ("jacobi-2d", "N=258,T=4", 32, 16),
]


def flags(tile: int, cap: int, extra: str = "") -> list[str]:
    pipe = "--affine-pipeline-data-transfer" + (f"={extra}" if extra else "")
    return [f"--affine-loop-tile=tile-size={tile}",
            f"--affine-data-copy-generate=generate-dma fast-mem-capacity={cap}", pipe]


def ours(text: str, fl: list[str]) -> tuple[float, float, int]:
    """(CPU seconds of the passes, CPU seconds parse+passes+print, output ops)."""
    t0 = time.process_time()
    m = parse_module(text)
    t1 = time.process_time()
    pm = PassManager.from_flags(fl)
    pm.verify_each = False
    pm.run(m)
    t2 = time.process_time()
    out = print_module(m)
    t3 = time.process_time()
    return t2 - t1, t3 - t0, out.count("affine.dma_start")


def upstream(mlir_opt: str, text: str, fl: list[str]) -> tuple[float, float, int]:
    """(CPU seconds of the child process, wall seconds, dma_start ops in the output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    proc = subprocess.run([mlir_opt, "-", *fl], input=text, capture_output=True, text=True)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"mlir-opt failed: {proc.stderr[:500]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout.count("affine.dma_start")


SIM_CASES = [
    ("gemm", "M=64,N=64,K=64", 16, 8),
    ("saxpy", "N=8192", 256, 4),
    ("jacobi-2d", "N=66,T=2", 16, 4),
    ("2mm", "NI=32,NJ=32,NK=32,NL=32", 8, 2),
]

SIM_MODES = [
    ("no pipelining", None),
    ("mlir-compat", "mlir-compat"),
    ("ours stages=2", "stages=2 fast-mem-capacity={cap}"),
    ("ours stages=3", "stages=3 fast-mem-capacity={cap}"),
    ("ours 3, no x-tile", "stages=3 fast-mem-capacity={cap} cross-tile-prefetch=false"),
]


def simulate_cycles() -> None:
    import numpy as np

    from accelsim import simulate
    from accelsim.config import load_config

    cfg = load_config("default")
    print(f"\n{'kernel':<32} " + " ".join(f"{m:>18}" for m, _ in SIM_MODES))
    for name, spec, tile, cap in SIM_CASES:
        w = workloads.get(f"{name}:{spec}")
        inputs = w.random_inputs(0)
        ref = w.reference(inputs)
        cycles: list[int] = []
        for _, opts in SIM_MODES:
            fl = [f"--affine-loop-tile=tile-size={tile}",
                  f"--affine-data-copy-generate=generate-dma fast-mem-capacity={cap}"]
            if opts is not None:
                fl.append("--affine-pipeline-data-transfer=" + opts.format(cap=cap))
            m = w.module()
            PassManager.from_flags(fl).run(m)
            r = simulate(m, cfg, inputs=inputs, func=w.func_name)
            for out in w.outputs:
                if not np.allclose(r.outputs[out], ref[out], rtol=w.rtol, atol=w.atol):
                    raise SystemExit(f"{name}: wrong result with {opts}")
            cycles.append(int(r.cycles))
        mlir = cycles[1]
        cells = " ".join(f"{c:>9} ({c / mlir:4.2f}x)" for c in cycles)
        print(f"{name + ':' + spec:<32} {cells}")


SEARCH_CASES = [("gemm", "M=256,N=256,K=256", "default"), ("gemm", "M=512,N=512,K=512", "default"),
                ("conv2d", "", "default"), ("gemm", "M=256,N=256,K=256", "edge")]


def search_and_passes(repeat: int, mlir_opt: str | None) -> None:
    """Tile search + passes of the default pipeline (what `--target sim` pays before simulating)."""
    from bench_tiling import compile_default

    from accelsim.config import load_config

    print(f"\n{'kernel':<26} {'config':<8} {'search+passes':>14} {'mlir-opt passes cpu':>20}  tiles")
    for name, spec, preset in SEARCH_CASES:
        w = workloads.get(f"{name}:{spec}" if spec else name)
        cfg = load_config(preset)
        compile_default(cfg, w.module(), w.func_name, True)  # imports, caches of the process
        best = float("inf")
        flags: list[str] = []
        for _ in range(repeat):
            m = w.module()
            t0 = time.process_time()
            flags = compile_default(cfg, m, w.func_name, True)
            best = min(best, time.process_time() - t0)
        up = "-"
        tile = next(f for f in flags if f.startswith("--affine-loop-tile=")).split("=", 1)[1]
        if mlir_opt is not None and tile.startswith("tile-sizes="):
            cap = next(f.rsplit("fast-mem-capacity=", 1)[1] for f in flags if "data-copy" in f)
            fl_up = [f"--affine-loop-tile={tile}",
                     f"--affine-data-copy-generate=generate-dma fast-mem-capacity={cap}",
                     "--affine-pipeline-data-transfer"]
            text = print_module(w.module())
            up = f"{min(upstream(mlir_opt, text, fl_up)[0] for _ in range(repeat)) * 1e3:.1f}ms"
        print(f"{name + (':' + spec if spec else ''):<26} {preset:<8} {best * 1e3:12.1f}ms {up:>20}  {tile}")


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sim", action="store_true", help="also compare simulated cycles")
    ap.add_argument("--search-only", action="store_true",
                    help="only the tile search + passes section")
    args = ap.parse_args()
    mlir_opt = shutil.which("mlir-opt-19")
    if args.search_only:
        search_and_passes(max(args.repeat, 5), mlir_opt)
        return
    if mlir_opt is None:
        raise SystemExit("mlir-opt-19 not found: the peer is needed for the ratios")
    print(f"{'kernel':<10} {'mode':<11} {'ours passes':>12} {'ours total':>11} {'mlir-opt cpu':>13} "
          f"{'mlir-opt wall':>14} {'passes/cpu':>11} {'total/cpu':>10} {'total/wall':>11} {'DMA ops':>9}")
    for name, spec, tile, cap in CASES:
        text = print_module(workloads.get(f"{name}:{spec}").module())
        for mode, extra in (("default", ""), ("mlir-compat", "mlir-compat")):
            fl = flags(tile, cap, extra)
            fl_up = flags(tile, cap)
            best_p = best_t = best_c = best_w = float("inf")
            for _ in range(args.repeat):
                p, t, n_ours = ours(text, fl)
                c, w, n_up = upstream(mlir_opt, text, fl_up)
                best_p, best_t = min(best_p, p), min(best_t, t)
                best_c, best_w = min(best_c, c), min(best_w, w)
            print(f"{name:<10} {mode:<11} {best_p * 1e3:10.1f}ms {best_t * 1e3:9.1f}ms "
                  f"{best_c * 1e3:11.1f}ms "
                  f"{best_w * 1e3:12.1f}ms {best_p / best_c:10.1f}x {best_t / best_c:9.1f}x "
                  f"{best_t / best_w:10.1f}x {n_ours:>4}/{n_up:<4}")
    if args.sim:
        simulate_cycles()
    search_and_passes(max(args.repeat, 5), mlir_opt)


if __name__ == "__main__":
    main()
