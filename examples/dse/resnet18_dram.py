"""Dataflow x DRAM technology x SRAM size for a ResNet-18 layer: run, print the front, plot.

    .venv/bin/python examples/dse/resnet18_dram.py [--db rn18.sqlite] [--plot rn18_pareto.png]

The sweep is `resnet18_dram.toml` (loaded, so the two never drift apart): the analytic
estimate prunes, the event machine (with the DRAM timing model) confirms the front
(`fidelity = "both"`). The table gives, per confirmed point, both cycle figures and their
divergence (analytic/event - 1); the plot draws every point (event figures where confirmed)
and marks the front.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from accelsim import dse
from plots.pareto import plot_pareto

HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="rn18.sqlite")
    ap.add_argument("--plot", default="rn18_pareto.png")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()

    sweep = dse.load_spec(HERE / "resnet18_dram.toml")
    print(f"{len(sweep.points())} points; results in {args.db}")
    print(dse.run_sweep(sweep, args.db, workers=args.workers))

    df = dse.load(args.db)
    objectives = list(sweep.objectives)
    cols = ["compute.dataflow", "dram.technology", "sram.capacity_kib", "analytic_cycles",
            "event_cycles", "divergence"]
    confirmed = df[df["confirmed"] == 1].sort_values(["sram.capacity_kib", "cycles"])
    print(f"confirmed by the event machine ({len(confirmed)} of {len(df)}):")
    print(confirmed[cols].to_string(index=False))
    front = dse.pareto_front(df, objectives)
    print("front:")
    print(front[["compute.dataflow", "dram.technology", *objectives]].to_string(index=False))
    plot_pareto(df, objectives, args.plot)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
