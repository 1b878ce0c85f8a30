"""The fused schedule against layer-by-layer: cycles, DRAM bytes, the bytes saved, the honest
network bound and the wall time of each run (timing only).

    .venv/bin/python bench/bench_fused.py [--config default] [--fidelity analytic]
        [--set KEY=VALUE ...] [--dtype int8] [NETWORK ...]

Default networks: resnet18, mobilenetv2, bert_base_layer. Each runs `--schedule
layer-by-layer` and `--schedule fused` (`accelsim.network.schedule.run_schedule`) in this
process, one after the other; the fused run includes its own layer-by-layer estimate (the
grouping decision), so its wall time is the whole cost of choosing and running the groups.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

NETWORKS = ("resnet18", "mobilenetv2", "bert_base_layer")


def main(argv: list[str] | None = None) -> int:
    from accelsim.config import parse_sets
    from accelsim.network.schedule import run_schedule
    from accelsim.network.zoo import load_network

    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("networks", nargs="*", default=list(NETWORKS))
    ap.add_argument("--config", default="default")
    ap.add_argument("--fidelity", default="analytic", choices=("analytic", "event"))
    ap.add_argument("--set", action="append", default=None, metavar="KEY=VALUE")
    ap.add_argument("--dtype", default=None, help="the networks at this precision (--dtype)")
    args = ap.parse_args(argv)
    hw = parse_sets(args.set)
    print(f"config {args.config} {dict(hw) or ''} [{args.fidelity}]"
          + (f" at {args.dtype}" if args.dtype else ""))
    print("| network | schedule | cycles | DRAM bytes | saved vs layer-by-layer | honest bound B | "
          "DRAM / bound | fused groups | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.networks:
        net = load_network(name)
        if args.dtype:
            from accelsim.network.precision import with_precision

            net, _ = with_precision(net, args.dtype)
        base = None
        for schedule in ("layer-by-layer", "fused"):
            t0 = time.perf_counter()
            r = run_schedule(net, schedule, args.config, hw, fidelity=args.fidelity, workers=1,
                             progress=False)
            wall = time.perf_counter() - t0
            t = r.totals()
            if base is None:
                base = t
            saved = (f"{t['dram_bytes_saved']:,} ({t['dram_bytes_saved'] / base['dram_bytes']:.1%})"
                     if t.get("dram_bytes_saved") is not None and base["dram_bytes"] else "-")
            cyc = f"{t['cycles']:,}" + ("" if schedule == "layer-by-layer"
                                        else f" ({t['cycles'] / base['cycles']:.3f}x)")
            print(f"| {name} | {schedule} | {cyc} | {t['dram_bytes']:,} | {saved} | "
                  f"{t['honest_bound_bytes']:,} | {t['honest_bytes_ratio']:.2f}x | "
                  f"{r.meta.get('fused_groups', '-')} | {wall:.1f} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
