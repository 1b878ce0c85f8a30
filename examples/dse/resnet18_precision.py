"""ResNet-18 at int8, bf16 and f32 on one chip: cycles, DRAM bytes, energy; table and plot.

    .venv/bin/python examples/dse/resnet18_precision.py [--db rn18_precision.sqlite]
                                                        [--plot resnet18_precision.png]

The sweep is `resnet18_precision.toml` (loaded, so the two never drift apart): `dtype` swept
over the whole network on the multi-precision chip `multiprec.toml`, event fidelity (energy
is an event-machine figure).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from accelsim import dse
from accelsim.network.sweep import evaluate
from plots.precision import plot_precision

HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="rn18_precision.sqlite")
    ap.add_argument("--plot", default="resnet18_precision.png")
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()

    sweep = dse.load_spec(HERE / "resnet18_precision.toml")
    print(f"{len(sweep.points())} points; results in {args.db}")
    print(dse.run_sweep(sweep, args.db, evaluate=evaluate, workers=args.workers))

    df = dse.load(args.db)
    df = df[df["status"] == "ok"].copy()
    order = {d: k for k, d in enumerate(sweep.dtype)}
    df = df.sort_values("dtype", key=lambda s: s.map(order))
    df["dram_bytes"] = df["dram_bytes_read"] + df["dram_bytes_written"]
    f32 = df[df["dtype"] == "f32"].iloc[0] if (df["dtype"] == "f32").any() else None
    cols = ["dtype", "cycles", "dram_bytes", "energy_pj", "roofline_ratio"]
    print(df[cols].to_string(index=False))
    if f32 is not None:
        for _, r in df.iterrows():
            print(f"{r['dtype']:>5}: cycles x{r['cycles'] / f32['cycles']:.3f}, DRAM bytes "
                  f"x{r['dram_bytes'] / f32['dram_bytes']:.3f}, energy "
                  f"x{r['energy_pj'] / f32['energy_pj']:.3f} of f32's")
    plot_precision(df[cols].to_dict("records"), args.plot,
                   title="ResNet-18 on one multi-precision chip (multiprec.toml)")
    print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
