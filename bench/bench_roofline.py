"""The honest roofline of every workload in the registry: default parameters, one config
(`default`), the default accelerator pipeline (`--target sim` without flags), event fidelity,
timing only.

For each workload: the simulated cycles; the honest roofline (the larger of the compute roof,
per loop nest its ops at the best rate any unit reaches on it by the kernel cost model
(`accelsim.cost.peak`), and the *compulsory* DRAM bytes, each input element read once and each
output written once, over the peak DRAM bandwidth) and the ratio to it; `traffic_ratio` (DRAM bytes
moved / compulsory bytes); which roof binds; the ratio to the old moved-bytes ("schedule")
roofline for comparison; the latency floor (the dependent DRAM read -> write chain,
`report.roofline.latency_floor`) and the ratio to the larger of it and the roofline; the
write chain (`report.roofline.write_chain`: the input-derived output bytes, after the first
input arrives; where it is above 1.5x that larger bound, no schedule comes within 1.5x); and
the I/O lower bound ratio where one is known (gemm-like contractions, Kwasniewski et al.
2019). Prints a Markdown table (the one in bench/RESULTS.md).

    .venv/bin/python bench/bench_roofline.py                    # every workload on default
    .venv/bin/python bench/bench_roofline.py --config edge gemm syrk
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Row:
    workload: str
    cycles: int
    roofline_cycles: int
    ratio: float
    traffic_ratio: float
    bound: str
    schedule_ratio: float
    io_bound_ratio: float | None
    compulsory_bytes: int
    moved_bytes: int
    seconds: float
    latency_floor_cycles: int = 0
    floor_ratio: float = 0.0  # cycles / max(roofline, latency floor)
    write_chain_cycles: int = 0  # the input-derived writes after the first read (report.roofline.write_chain)


def measure(name: str, config_name: str) -> Row:
    import workloads
    from accelsim.compile.accelerator import accelerator_pipeline
    from accelsim.config import load_config
    from accelsim.report import Report, input_traffic
    from accelsim.sim.simulate import simulate
    from compiler.transforms.registry import PassManager

    t0 = time.perf_counter()
    cfg = load_config(config_name)
    wl = workloads.get(name)
    module = wl.module()
    need = input_traffic(module, wl.func_name, cfg)  # the program as given, before any pass
    flags = accelerator_pipeline(cfg, module, wl.func_name).flags()
    PassManager.from_flags(flags).run(module)
    rep = Report.from_result(simulate(module, cfg, func=wl.func_name, functional=False), need)
    if rep.roofline is None or rep.roofline_ratio is None or rep.traffic_ratio is None:
        raise RuntimeError(f"{name}: no honest roofline ({rep.roofline_basis})")
    if need.bytes > rep.dram_bytes:
        raise RuntimeError(f"{name}: moved {rep.dram_bytes:,} B, less than the compulsory {need.bytes:,} B")
    return Row(name, rep.cycles, rep.roofline.cycles, rep.roofline_ratio, rep.traffic_ratio,
               rep.roofline.bound, rep.schedule_roofline_ratio, rep.io_bound_ratio, need.bytes,
               rep.dram_bytes, time.perf_counter() - t0, rep.roofline.latency_floor_cycles,
               rep.cycles / rep.roofline.floor_cycles if rep.roofline.floor_cycles else 0.0,
               rep.roofline.write_chain_cycles)


def main(argv: list[str] | None = None) -> int:
    import workloads

    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", help="registry names (default: all)")
    ap.add_argument("--config", default="default")
    args = ap.parse_args(argv)
    names = args.workloads or workloads.names()
    print(f"config {args.config}, default pipeline, event fidelity, timing only\n")
    print("| workload | cycles | honest roofline cycles | honest ratio | traffic_ratio | bound | "
          "schedule ratio (old) | I/O-bound ratio | compulsory B | moved B | latency floor cycles | "
          "ratio to max(roofline, floor) | write chain cycles |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    worst = 0.0
    for name in names:
        r = measure(name, args.config)
        worst = max(worst, r.ratio)
        io = f"{r.io_bound_ratio:.2f}" if r.io_bound_ratio is not None else "none known"
        print(f"| {r.workload} | {r.cycles:,} | {r.roofline_cycles:,} | {r.ratio:.3f} | "
              f"{r.traffic_ratio:.2f} | {r.bound} | {r.schedule_ratio:.3f} | {io} | "
              f"{r.compulsory_bytes:,} | {r.moved_bytes:,} | {r.latency_floor_cycles:,} | "
              f"{r.floor_ratio:.3f} | {r.write_chain_cycles:,} |", flush=True)
        print(f"  ({r.seconds:.1f} s)", file=sys.stderr)
    print(f"\nworst honest ratio: {worst:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
