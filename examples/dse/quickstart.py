"""The example sweep from Python: run it, print the Pareto front, draw the plot.

    .venv/bin/python examples/dse/quickstart.py [--db gemm.sqlite] [--plot gemm_pareto.png]

Same sweep as gemm_memory.toml (the TOML file is loaded, so the two never drift apart); the
Python API builds the same thing directly with `dse.Sweep(workloads=..., hardware=..., ...)`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from accelsim import dse
from plots.pareto import plot_pareto

HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="gemm.sqlite")
    ap.add_argument("--plot", default="gemm_pareto.png")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()

    sweep = dse.load_spec(HERE / "gemm_memory.toml")
    print(f"{len(sweep.points())} points; results in {args.db}")
    print(dse.run_sweep(sweep, args.db, workers=args.workers))

    df = dse.load(args.db)
    objectives = ["cycles", "energy_pj"]
    front = dse.pareto_front(df, objectives)
    cols = ["sram.capacity_kib", "dma.engines", "tile_sizes", "stages", *objectives, "roofline_ratio"]
    print(front[cols].to_string(index=False))
    plot_pareto(df, objectives, args.plot)
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
