"""Networks on a many-cluster machine: today's data-parallel schedule (every layer split over
all clusters, one after another) against `--schedule pipelined` (layers or layer ranges on
cluster groups, overlapping; accelsim/network/pipelined.py).

    PYTHONPATH=. .venv/bin/python bench/bench_pipelined.py [--config cluster16]
        [--networks mobilenetv2,resnet18] [--fidelity analytic] [--workers 1] [--save DIR]

Both figures come from the same run: the pipelined runner measures every layer on every group
size, the whole machine's group being the data-parallel schedule (`data_parallel_cycles`).
Printed per network: data-parallel cycles, pipelined cycles, their ratio, the segments the
model chose, the layers pipelined, wall and kernel CPU seconds. `--save DIR` also writes each
network's `NAME.json` (the `--json` object), `NAME.trace.json` (Perfetto, a track per cluster)
and `NAME.png` (the network timeline with a lane per cluster).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from accelsim.network.pipelined import run_pipelined
from accelsim.network.zoo import load_network


def main() -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("--config", default="cluster16")
    ap.add_argument("--networks", default="mobilenetv2,resnet18")
    ap.add_argument("--fidelity", default="analytic", choices=("analytic", "event"))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--save", type=Path, default=None)
    args = ap.parse_args()
    head = subprocess.run(["git", "log", "-1", "--format=%h"], capture_output=True, text=True,
                          check=False, cwd=Path(__file__).parent).stdout.strip()
    print(f"networks on {args.config} [{args.fidelity}], accelsim {head}")
    print("| network | data-parallel cycles | pipelined cycles | pipelined / data-parallel | "
          "layers pipelined | segments | wall s (kernel CPU s) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.networks.split(","):
        result = run_pipelined(load_network(name), args.config, {}, args.fidelity,
                               workers=args.workers, progress=False)
        dp = result.meta["data_parallel_cycles"]
        cyc = result.totals()["cycles"]
        print(f"| {name} | {dp:,} | {cyc:,} | {cyc / dp:.3f}x | {result.meta['pipelined_layers']} "
              f"of {len(result.layers)} | {len(result.meta['segments'])} | "
              f"{result.meta['wall_seconds']:.0f} ({result.meta['kernel_cpu_seconds']:.0f}) |",
              flush=True)
        if args.save is not None:
            _save(result, args.save / name)
        for row in result.rows():
            print(f"    {row['name']:<22} clusters {row['cluster']:<6} {row['start_cycle']:>9,} "
                  f"-> {row['end_cycle']:>9,} ({row['cycles']:,} busy)", flush=True)
    return 0


def _save(result: object, stem: Path) -> None:
    import json

    from accelsim.network.perfetto import write_network_trace
    from plots.network_timeline import plot_network_timeline

    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps(result.to_dict(), default=str))  # type: ignore[attr-defined]
    write_network_trace(stem.with_suffix(".trace.json"), result)  # type: ignore[arg-type]
    plot_network_timeline(result, stem.with_suffix(".png"))


if __name__ == "__main__":
    sys.exit(main())
