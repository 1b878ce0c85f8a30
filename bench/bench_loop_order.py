"""Cycles of the default pipeline on the 3-deep kernels of `workloads/loop_orders.py` in every
legal loop order: does the schedule depend on how the loops were written (issue 31 item 2)?

    .venv/bin/python bench/bench_loop_order.py [--config default] [--kernels syrk,trmm]
        [--sizes syrk:N=200,M=125] [--set sram.capacity_kib=64] [--fidelity analytic]

Per kernel and order: cycles (timing-only), the honest-roofline ratio and the traffic ratio
(DRAM bytes moved / compulsory); per kernel the worst order's cycles over the best's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _sizes(text: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for item in filter(None, text.split(";")):
        name, _, rest = item.partition(":")
        out[name] = {k: int(v) for k, v in (kv.split("=") for kv in rest.split(","))}
    return out


def main() -> int:
    import accelsim
    from workloads.loop_orders import NESTS, loop_orders

    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="default")
    ap.add_argument("--kernels", default=",".join(NESTS))
    ap.add_argument("--sizes", default="", help="kernel:K=V,...;kernel:... (default: PolyBench SMALL)")
    ap.add_argument("--set", action="append", default=[], help="config override KEY=VALUE")
    ap.add_argument("--fidelity", default="analytic", choices=("analytic", "event"))
    args = ap.parse_args()
    sizes = _sizes(args.sizes)
    over = {k: int(v) if v.lstrip("-").isdigit() else v
            for k, v in (kv.split("=", 1) for kv in args.set)}
    print(f"config {args.config} {over or ''}, fidelity {args.fidelity}")
    print("| kernel | order | cycles | roofline ratio | traffic ratio |")
    print("|---|---|---|---|---|")
    spread = []
    for name in args.kernels.split(","):
        cycles = {}
        for order, module in loop_orders(NESTS[name], **sizes.get(name, {})):
            t0 = time.perf_counter()
            r = accelsim.run(module, args.config, set=over or None, fidelity=args.fidelity,
                             timing_only=True, progress=False).to_dict()
            cycles["".join(order)] = r["cycles"]
            print(f"| {name} | {''.join(order)} | {r['cycles']:,} | {r['roofline_ratio']:.2f}x | "
                  f"{r['traffic_ratio']:.2f} |  <!-- {time.perf_counter() - t0:.1f} s -->", flush=True)
        spread.append((name, max(cycles.values()) / min(cycles.values())))
    print()
    print("| kernel | worst order / best order |")
    print("|---|---|")
    for name, s in spread:
        print(f"| {name} | {s:.3f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
