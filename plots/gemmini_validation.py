"""Predicted vs measured Gemmini RTL cycles (docs/validation.md's figure), from the files
`bench/validate_gemmini.py` writes (it runs no simulation itself).

    python plots/gemmini_validation.py PRED_A.csv PRED_B.csv --out docs/img/gemmini_validation.png
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Sequence


def _num(v: str | None) -> float:
    try:
        return float(v or "")
    except ValueError:
        return 0.0


def scatter(paths: Sequence[str], out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = []
    for p in paths:
        with open(p, newline="") as f:
            rows += list(csv.DictReader(f))
    fig, axes = plt.subplots(1, 2, figsize=(11, 5), sharex=True, sharey=True)
    panels = (("target.gemmini_cycle", "row's mapping"), ("target.gemmini_auto_cycle", "Gemmini's tiler"))
    for ax, (target, title) in zip(axes, panels, strict=True):
        col = "pred_gemmini_cycle" if target == "target.gemmini_cycle" else "pred_gemmini_auto_cycle"
        pts = [(_num(r[target]), _num(r.get(col)), _num(r.get("target.cycle"))) for r in rows]
        pts = [p for p in pts if p[0] > 0 and p[1] > 0]
        meas = [p[0] for p in pts]
        ax.scatter(meas, [p[1] for p in pts], s=14, label="accelsim", color="tab:blue")
        if target == "target.gemmini_cycle":  # Timeloop predicts the mapping's run
            ax.scatter(meas, [p[2] for p in pts], s=14, marker="x", label="Timeloop",
                       color="tab:orange")
        lo, hi = min(meas) / 2, max(meas) * 2
        ax.plot([lo, hi], [lo, hi], color="gray", lw=0.8)
        ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="gray", alpha=0.15,
                        label="within 10%")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"measured RTL cycles ({target})")
        ax.set_title(f"Gemmini on FireSim: {title} ({len(pts)} rows)")
        ax.legend(loc="upper left")
    axes[0].set_ylabel("predicted cycles")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pred", nargs="+", help="PRED.csv files of bench/validate_gemmini.py")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    scatter(args.pred, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
