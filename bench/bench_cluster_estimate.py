"""The barrier-aware cluster estimate against the event run on the cluster matrix's tiny shapes
(every integer parameter min(default, 8), jacobi-2d T = 2; block) on 4 clusters (bus) and 16
(bus, mesh), and on gemm 256^3 / 512^3 (block2d) on the presets; then `auto`'s weighing of
block, block2d and cyclic (`accelsim.compile.clusters.weigh`) against the event cycles of each.

    PYTHONPATH=. .venv/bin/python bench/bench_cluster_estimate.py [WORKLOAD,...|all]
"""

from __future__ import annotations

import sys

import workloads
from accelsim.compile.clusters import compile_for_clusters, weigh
from accelsim.config import load_config
from accelsim.estimate.clusters import estimate_clusters
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions

AUTO_SHAPES = [("cluster4", "gemm", {"M": "256", "N": "256", "K": "256"}),
               ("cluster16", "gemm", {"M": "500", "N": "32", "K": "32"}),
               ("cluster16", "gemm", {"M": "96", "N": "256", "K": "32"}),
               ("cluster16", "2mm", {"NI": "64", "NJ": "64", "NK": "32", "NL": "64"}),
               ("cluster4", "conv2d", {})]


def params_of(name: str, size: int) -> dict[str, str]:
    w = workloads.lookup(name)
    vals = {p.name: str(min(int(p.default), size)) for p in w.params if p.kind == "int"}
    if name == "jacobi-2d":
        vals["T"] = "2"
    return vals


def _event(modules: list, cfg: object, func: str) -> int:
    return simulate_clusters(modules, cfg, None, func, options=SimOptions(functional=False)).cycles


def main() -> None:
    pick = sys.argv[1] if len(sys.argv) > 1 else "all"
    names = workloads.names() if pick == "all" else pick.split(",")
    cells = [(n, 8, c, k) for n in names for c, k in ((4, "bus"), (16, "bus"), (16, "mesh"))]
    cells += [("gemm", m, c, k) for c, m in ((4, 256), (16, 256), (16, 512)) for k in ("bus", "mesh")]
    worst, within = 0.0, 0
    for name, size, n, kind in cells:
        cfg = load_config("cluster16" if n == 16 else "cluster4",
                          {"clusters": n, "interconnect.kind": kind})
        params = {"M": str(size), "N": str(size), "K": str(size)} if size > 8 else params_of(name, size)
        b = workloads.lookup(name).bind(params)
        p = compile_for_clusters(cfg, b.module(), b.func_name, "block2d" if size > 8 else "block")
        ev = _event(p.modules, cfg, b.func_name)
        a = estimate_clusters(p.modules, cfg, b.func_name).cycles
        err = a / ev - 1
        worst, within = max(worst, abs(err)), within + (abs(err) <= 0.10)
        print(f"| {name} | {size} | {n} {kind} | {ev:,} | {a:,} | {err:+.1%} |", flush=True)
    print(f"worst {worst:.1%}; within 10%: {within} of {len(cells)}")
    for preset, name, params in AUTO_SHAPES:
        cfg = load_config(preset)
        b = workloads.lookup(name).bind(params)
        w = weigh(cfg, b.module(), b.func_name)
        chosen = min(w, key=lambda d: w[d][1])
        row = [f"{d} {_event(p.modules, cfg, b.func_name):,} (analytic {a:,})" for d, (p, a) in w.items()]
        spec = f"{name}:" + ",".join(f"{k}={v}" for k, v in params.items())
        print(f"| {preset} | {spec} | " + " | ".join(row) + f" | {chosen} |", flush=True)


if __name__ == "__main__":
    main()
