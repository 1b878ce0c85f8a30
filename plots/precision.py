"""Figures of one network (or kernel) at several precisions: cycles, DRAM bytes and energy
side by side, one bar per precision (`examples/dse/resnet18_precision.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

PANELS = (("cycles", "cycles (M)", 1e6), ("dram_bytes", "DRAM bytes (MB)", 1e6),
          ("energy_pj", "energy (mJ)", 1e9))


def plot_precision(rows: Sequence[Mapping[str, object]], path: str, title: str = "") -> None:
    """`rows`: one mapping per precision with `dtype` and the PANELS' keys."""
    fig, axes = plt.subplots(1, len(PANELS), figsize=(10, 3.2))
    names = [str(r["dtype"]) for r in rows]
    colors = ["#4c72b0", "#55a868", "#c44e52", "#8172b2", "#ccb974"][:len(rows)]
    for ax, (key, label, scale) in zip(axes, PANELS, strict=True):
        values = [float(r[key]) / scale for r in rows]  # type: ignore[arg-type]
        bars = ax.bar(names, values, color=colors)
        ax.set_title(label, fontsize=10)
        ax.bar_label(bars, fmt="%.3g", fontsize=8)
        ax.set_ylim(0, max(values) * 1.18 if values else 1)
        ax.tick_params(labelsize=9)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
