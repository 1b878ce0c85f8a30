"""PolyBench/C 4.2.1 at the SMALL dataset on one config: how far the default pipeline is
from the honest bounds, and from upstream mlir-opt-19's pipeline on the same tiles.

    .venv/bin/python bench/bench_polybench.py [--config default] [--kernels lu,trmm] [--no-upstream]

Per kernel (timing-only, event fidelity): cycles of `accelsim.run(spec, config)`; the
roofline ratio (cycles / max(ideal compute, compulsory DRAM bytes / peak bandwidth));
the latency-floor ratio; the critical path (`critical_path_cycles`: the longest chain of
flow dependences); `vs bound` = cycles / max(roofline, latency floor, critical path),
flagged `>1.5x`;
the traffic ratio (DRAM bytes moved / compulsory bytes); and, where the default pipeline
mlir-opt-19 is installed, upstream's cycles with the same tiling and copy capacity over ours
(> 1: ours is faster): `--affine-loop-tile=tile-sizes=...` with the tile search's sizes, or
`cache-size=KiB` where the default pipeline tiles by the cache model (upstream's own option of
that name, the same model), then `--affine-data-copy-generate=generate-dma
--affine-pipeline-data-transfer`, the output run --as-is. At the end, the tables of
docs/polybench.md and of the README (every kernel, three to a row).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# PolyBench's name -> our spec at PolyBench's SMALL dataset
SMALL: dict[str, str] = {
    "2mm": "2mm:NI=40,NJ=50,NK=70,NL=80", "3mm": "3mm", "adi": "adi", "atax": "atax:M=38,N=42",
    "bicg": "bicg:M=38,N=42", "cholesky": "cholesky", "correlation": "correlation",
    "covariance": "covariance", "deriche": "deriche", "doitgen": "doitgen", "durbin": "durbin",
    "fdtd-2d": "fdtd-2d", "floyd-warshall": "floyd-warshall", "gemm": "pb_gemm",
    "gemver": "gemver", "gesummv": "gesummv", "gramschmidt": "gramschmidt", "heat-3d": "heat-3d",
    "jacobi-1d": "jacobi-1d", "jacobi-2d": "jacobi-2d:N=90,T=80", "lu": "lu", "ludcmp": "ludcmp",
    "mvt": "mvt:N=120", "nussinov": "nussinov", "seidel-2d": "seidel-2d", "symm": "symm",
    "syr2k": "syr2k", "syrk": "syrk:N=80,M=60", "trisolv": "trisolv", "trmm": "trmm",
}


class _Timeout(Exception):
    pass


def _alarm(_signum, _frame):  # type: ignore[no-untyped-def]
    raise _Timeout()


def upstream_cycles(spec: str, tiling: str, cfg, copy_kib: int) -> int | str:  # type: ignore[no-untyped-def]
    import accelsim
    import workloads
    from compiler.text import parse_module, print_module

    w = workloads.get(spec)
    cmd = ["mlir-opt-19", "-", f"--affine-loop-tile={tiling}",
           f"--affine-data-copy-generate=generate-dma fast-mem-space={cfg.spaces.sram} "
           f"fast-mem-capacity={copy_kib}", "--affine-pipeline-data-transfer"]
    proc = subprocess.run(cmd, input=print_module(w.module()), capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        return "mlir-opt-19 failed: " + proc.stderr.strip().splitlines()[0][:80]
    module = parse_module(proc.stdout, filename=f"mlir-opt-19:{spec}")
    try:
        r = accelsim.run(module, cfg, as_is=True, timing_only=True, func=w.func_name, progress=False)
    except Exception as exc:  # a schedule the simulator rejects is a result
        return f"rejected: {type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
    return int(r.cycles)


def measure(kernel: str, spec: str, cfg, upstream: bool, limit: int,
            upstream_limit: int) -> dict:  # type: ignore[type-arg,no-untyped-def]
    import accelsim
    import workloads
    from accelsim.compile.accelerator import accelerator_pipeline

    row: dict = {"kernel": kernel, "spec": spec}  # type: ignore[type-arg]
    t0 = time.perf_counter()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(limit)
    try:
        r = accelsim.run(spec, cfg, timing_only=True, progress=False).to_dict()
        row.update(cycles=r["cycles"], roof=r["roofline_ratio"], roof_cycles=r["roofline_cycles"],
                   floor=r["latency_floor_ratio"],
                   crit=r.get("critical_path_cycles") or 0,
                   bound=r["cycles"] / max(r["roofline_cycles"], r["latency_floor_cycles"],
                                           r.get("critical_path_cycles") or 0),
                   critical=(r.get("critical_path_cycles") or 0) > max(r["roofline_cycles"],
                                                                     r["latency_floor_cycles"]),
                   traffic=r["dram_bytes"] / r["compulsory_bytes"], which=r["roofline_bound"],
                   exposed=r["exposed_dma_cycles"] / r["cycles"])
        pipe = accelerator_pipeline(cfg, workloads.get(spec).module())
        if pipe.tile_sizes:
            row["tiles"] = "tile-sizes=" + ",".join(map(str, pipe.tile_sizes))
        elif pipe.tile_cache_kib:
            row["tiles"] = f"cache-size={pipe.tile_cache_kib}"
        if upstream and row.get("tiles"):
            signal.alarm(upstream_limit)
            try:
                row["upstream"] = upstream_cycles(spec, row["tiles"], cfg, pipe.copy_capacity_kib)
            except _Timeout:
                row["upstream"] = f"not run: its simulation took over {upstream_limit} s"
    except _Timeout:
        row["error"] = f"over {limit} s"
    except Exception as exc:
        row["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
    finally:
        signal.alarm(0)
    row["seconds"] = time.perf_counter() - t0
    return row


def main(argv: list[str] | None = None) -> int:
    from accelsim import load_config

    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="default")
    ap.add_argument("--kernels", default="", help="comma-separated PolyBench names (default: all 30)")
    ap.add_argument("--no-upstream", action="store_true")
    ap.add_argument("--limit", type=int, default=900, help="seconds per kernel (ours)")
    ap.add_argument("--upstream-limit", type=int, default=180, help="seconds per upstream run")
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    kernels = args.kernels.split(",") if args.kernels else list(SMALL)
    unknown = [k for k in kernels if k not in SMALL]
    if unknown:
        ap.error(f"unknown kernels {unknown}; known: {', '.join(SMALL)}")
    upstream = not args.no_upstream and shutil.which("mlir-opt-19") is not None
    print(f"config '{cfg.name}' ({cfg.hash()}); PolyBench SMALL; mlir-opt-19 "
          f"{'used' if upstream else 'not used'}")
    print("| kernel | spec | cycles | roofline ratio | latency floor ratio | critical path | vs bound "
          "| traffic ratio | DMA exposed | tiles | upstream / ours | sim s |")
    print("|---" * 12 + "|")
    rows = []
    for k in kernels:
        row = measure(k, SMALL[k], cfg, upstream, args.limit, args.upstream_limit)
        rows.append(row)
        if "error" in row:
            print(f"| {k} | `{row['spec']}` | {row['error']} | | | | | | | | | {row['seconds']:.0f} |")
        else:
            up = row.get("upstream")
            vs = (f"{up / row['cycles']:.2f}x" if isinstance(up, int) else up if up else "-")
            if isinstance(up, int) and up < row["roof_cycles"]:  # the "floor" is not one here
                vs += " (upstream under our roofline)"
            flag = " >1.5x" if row["bound"] > 1.5 else ""
            tiles = f"`{row['tiles']}`" if row.get("tiles") else "-"
            print(f"| {k} | `{row['spec']}` | {row['cycles']:,} | {row['roof']:.2f}x ({row['which']}) | "
                  f"{row['floor']:.2f}x | {row['crit']:,} | {row['bound']:.2f}x{flag} | "
                  f"{row['traffic']:.2f} | {row['exposed']:.0%} | {tiles} | {vs} | {row['seconds']:.0f} |")
        sys.stdout.flush()
    ok = [r for r in rows if "error" not in r]
    if ok:
        ratios = sorted(r["bound"] for r in ok)
        within = sum(x <= 1.5 for x in ratios)
        print(f"\n{len(ok)} of {len(rows)} ran; {within} within 1.5x of max(roofline, latency floor, "
              f"critical path); median {ratios[len(ratios) // 2]:.2f}x")
        print("\ndocs/polybench.md:\n")
        print(docs_table(rows))
        print("\nREADME.md:\n")
        print(readme_table(rows))
    return 0


def _vs(row: dict) -> str:  # type: ignore[type-arg]
    up = row.get("upstream")
    return f"{up / row['cycles']:.2f}x" if isinstance(up, int) else "-"


def docs_table(rows: list[dict]) -> str:  # type: ignore[type-arg]
    """The table of docs/polybench.md (`vs bound`: the critical path marked where it is the
    bound)."""
    out = ["| kernel | cycles | vs max(roofline, latency floor, critical path) | roofline ratio | "
           "traffic ratio | DMA exposed | upstream / ours |", "|---" * 7 + "|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['kernel']} | {r['error']} | | | | | |")
            continue
        flag = " **>1.5x**" if r["bound"] > 1.5 else ""
        crit = " (critical path)" if r["critical"] else ""
        out.append(f"| {r['kernel']} | {r['cycles']:,} | {r['bound']:.2f}x{crit}{flag} | "
                   f"{r['roof']:.2f}x ({r['which']}) | {r['traffic']:.2f} | {r['exposed']:.0%} | "
                   f"{_vs(r)} |")
    return "\n".join(out)


def readme_table(rows: list[dict]) -> str:  # type: ignore[type-arg]
    """The README's compact table: every kernel, three to a row (cycles, ratio to the bound,
    traffic ratio, upstream's cycles over ours)."""
    head = "| kernel | cycles | vs bound | traffic | upstream / ours "
    out = [head * 3 + "|", "|---" * 15 + "|"]
    cells = []
    for r in rows:
        if "error" in r:
            cells.append(f"| {r['kernel']} | error | | | ")
        else:
            cells.append(f"| {r['kernel']} | {r['cycles']:,} | {r['bound']:.2f}x | "
                         f"{r['traffic']:.2f} | {_vs(r)} ")
    for k in range(0, len(cells), 3):
        part = cells[k:k + 3] + ["| | | | | "] * (3 - len(cells[k:k + 3]))
        out.append("".join(part) + "|")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
