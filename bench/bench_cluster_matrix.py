"""Every workload of the registry on 1, 4 and 16 clusters over a bus and a mesh: the run's
correctness (`accelsim run --target sim --check`), its event cycles and the divergence of the
analytic estimate (analytic / event - 1); then gemm on the presets, the barrier-aware
estimate against the fair share alone (the estimate before it, computed in the same run from
the same programs) and the event run.

    PYTHONPATH=. .venv/bin/python bench/bench_cluster_matrix.py [--size 12]

Sizes: every integer parameter min(default, --size) (jacobi-2d: T = 2 sweeps, a barrier).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import time

import workloads
from accelsim.cli import main
from accelsim.compile.clusters import compile_for_clusters
from accelsim.config import load_config
from accelsim.estimate.analytic import estimate
from accelsim.estimate.clusters import estimate_clusters, share_config
from accelsim.sim.clusters import simulate_clusters
from accelsim.sim.options import SimOptions
from workloads.gemm import build_gemm

SHAPES = [(1, "bus"), (1, "mesh"), (4, "bus"), (4, "mesh"), (16, "bus"), (16, "mesh")]


def spec_of(name: str, size: int) -> str:
    w = workloads.lookup(name)
    vals = {p.name: min(int(p.default), size) for p in w.params if p.kind == "int"}
    if name == "jacobi-2d":
        vals["T"] = 2
    return name + ":" + ",".join(f"{k}={v}" for k, v in vals.items())


def cell(spec: str, clusters: int, kind: str) -> tuple[str, float | None]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["run", spec, "--target", "sim", "--config",
                   "cluster16" if clusters == 16 else "cluster4", "--set", f"clusters={clusters}",
                   "--set", f"interconnect.kind={kind}", "--json", "--check"])
    if rc != 0:
        return f"FAIL ({err.getvalue().strip().splitlines()[-1][:60]})", None
    f = json.loads(out.getvalue())
    serial = " (c0 only: 1 nest)" if f.get("serial_nests") else ""
    return f"ok {f['cycles']:,}{serial}", f.get("analytic_error")


def matrix(size: int) -> None:
    print(f"size {size}: cell = check, event cycles; (analytic / event - 1)")
    print("| workload | " + " | ".join(f"{n} {k}" for n, k in SHAPES) + " |")
    print("|---|" + "---|" * len(SHAPES))
    divs: list[float] = []
    for name in workloads.names():
        row = []
        for n, k in SHAPES:
            text, div = cell(spec_of(name, size), n, k)
            if div is not None:
                if n > 1:
                    divs.append(div)
                text += f" ({div:+.1%})"
            row.append(text)
        print(f"| {name} | " + " | ".join(row) + " |", flush=True)
    inside = sum(abs(d) < 0.10 for d in divs)
    print(f"\nmany-cluster cells with |analytic/event - 1| < 10%: {inside} of {len(divs)}; "
          f"worst {max(divs, key=abs):+.1%}")


def gemm_table() -> None:
    print("\n| preset | gemm | event | fair share alone | barrier-aware | start-up wait |")
    print("|---|---|---|---|---|---|")
    for preset, over in [("cluster4", {}), ("cluster4", {"interconnect.kind": "mesh"}),
                         ("cluster4", {"dram.channels": 2}), ("cluster16", {}),
                         ("cluster16", {"interconnect.kind": "mesh"}),
                         ("cluster16", {"dram.channels": 2})]:
        cfg = load_config(preset, over)
        for n in (256, 512):
            progs = compile_for_clusters(cfg, build_gemm(n, n, n), None, "block2d")
            ev = simulate_clusters(progs.modules, cfg, options=SimOptions(functional=False)).cycles
            fair = max(estimate(m, share_config(cfg)).cycles for m in progs.modules)
            est = estimate_clusters(progs.modules, cfg)
            name = preset + "".join(f" {k}={v}" for k, v in over.items())
            print(f"| {name} | {n}³ | {ev:,} | {fair:,} ({fair / ev - 1:+.1%}) | "
                  f"{est.cycles:,} ({est.cycles / ev - 1:+.1%}) | {est.startup_cycles:,} |", flush=True)


def main_bench() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--size", type=int, default=12)
    ap.add_argument("--skip-matrix", action="store_true")
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    if not args.skip_matrix:
        matrix(args.size)
    gemm_table()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(f"\nwall {time.perf_counter() - t0:.0f} s, CPU {time.process_time() - c0:.0f} s "
          f"(maxrss {ru.ru_maxrss // 1024} MiB), load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main_bench()
