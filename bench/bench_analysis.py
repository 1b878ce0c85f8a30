"""Polyhedral analysis time (regions + dependences) for gemm, conv2d and jacobi-2d nests.

Goal: under 50 ms per nest (CPU time of this process, robust to other load). Peer, measured
in the same run: answering the region question
by enumeration (every iteration point evaluated with numpy, then per memref the distinct
elements and their bounding box) — what the analysis replaces. isl's time does not depend on
the loop bounds; the enumeration grows with the iteration count.

    .venv/bin/python bench/bench_analysis.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import workloads
from compiler.analysis import all_dependences, memref_regions
from compiler.analysis.domain import enclosing_loops
from compiler.ir.affine_eval import evaluate_expr
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp, FuncOp
from compiler.transforms.registry import create_pass

NESTS = [
    ("gemm", "gemm:M=64,N=64,K=64", "tile-sizes=32,32,32"),
    ("conv2d", "conv2d:N=1,C=8,H=18,W=18,K=16,R=3,S=3", "tile-sizes=1,8,8,8,4,3,3"),
    ("jacobi-2d", "jacobi-2d:N=130,T=2", "tile-sizes=1"),
]


def best_ms(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append((time.process_time() - t) * 1e3)
    return min(times)


def analyse(root: AffineForOp) -> tuple[int, int]:
    regions = memref_regions([root])
    deps = all_dependences(root)
    return len(regions), len(deps)


def innermost_tile_loop(func: FuncOp, n_band: int) -> AffineForOp:
    loops = [o for o in func.walk() if isinstance(o, AffineForOp)]
    return loops[n_band]  # first intra-tile loop: its block is the tile body


def enumerate_regions(func: FuncOp) -> dict[str, tuple[int, tuple[tuple[int, int], ...]]]:
    """Peer: distinct elements and box per memref, by evaluating every iteration point."""
    out: dict[str, tuple[int, tuple[tuple[int, int], ...]]] = {}
    coords: dict[str, list[np.ndarray]] = {}
    for op in func.walk():
        if not isinstance(op, AffineLoadOp | AffineStoreOp):
            continue
        loops = enclosing_loops(op)
        ranges = [np.arange(lp.constant_lower, lp.constant_upper, lp.step) for lp in loops]  # type: ignore[arg-type]
        grid = np.meshgrid(*ranges, indexing="ij")
        env = {id(lp.iv): g.ravel() for lp, g in zip(loops, grid, strict=True)}
        vals = [env[id(v)] for v in op.indices]
        idx = [evaluate_expr(r, vals[: op.map.num_dims], vals[op.map.num_dims:]) for r in op.map.results]
        name = op.memref.name_hint or "?"
        stacked = np.stack([np.broadcast_to(np.asarray(c), grid[0].size if grid else 1) for c in idx], 1)
        coords.setdefault(name, []).append(stacked)
    for name, parts in coords.items():
        elems = np.unique(np.concatenate(parts), axis=0)
        box = tuple((int(elems[:, d].min()), int(elems[:, d].max())) for d in range(elems.shape[1]))
        out[name] = (len(elems), box)
    return out


def main() -> None:
    print(f"{'nest':<10} {'iterations':>10} {'regions+deps (ms)':>18} {'tiled (ms)':>11} "
          f"{'enumeration (ms)':>17} {'enum/isl':>9}  goal <50 ms")
    for label, spec, tile_opts in NESTS:
        w = workloads.get(spec)
        func = w.module().lookup(w.func_name)
        assert func is not None
        root = next(o for o in func.body.ops if isinstance(o, AffineForOp))
        isl_ms = best_ms(lambda root=root: analyse(root))
        tiled = w.module()
        create_pass("affine-loop-tile", tile_opts).run(tiled)
        tfunc = tiled.lookup(w.func_name)
        assert tfunc is not None
        n_band = len(tile_opts.split("=")[1].split(","))
        tile_loop = innermost_tile_loop(tfunc, n_band)
        troot = next(o for o in tfunc.body.ops if isinstance(o, AffineForOp))
        tiled_ms = best_ms(lambda t=tile_loop, r=troot: (memref_regions([t]), all_dependences(r)))
        enum_ms = best_ms(lambda f=func: enumerate_regions(f), repeat=2)
        iters = sum(np.prod([len(range(lp.constant_lower, lp.constant_upper, lp.step))  # type: ignore[arg-type]
                             for lp in [*enclosing_loops(op)]])
                    for op in func.walk() if isinstance(op, AffineStoreOp))
        ok = "ok" if isl_ms < 50 else "SLOW"
        print(f"{label:<10} {iters:>10} {isl_ms:>18.1f} {tiled_ms:>11.1f} {enum_ms:>17.1f} "
              f"{enum_ms / isl_ms:>8.1f}x  {ok}")
    print("(CPU ms, best of 5 runs; enumeration best of 2. 'tiled': regions at the tile body of\n"
          " the tiled nest (params = tile IVs) + all dependences of the tiled nest, for information)")


if __name__ == "__main__":
    main()
