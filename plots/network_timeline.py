"""Layer-level timeline of a network run: each layer a bar from its start to its end cycle.

    plot_network_timeline(result, "resnet18.png")

Row i is layer i (top to bottom, in order), the x axis is time (cycles and microseconds);
bars are coloured by what bounds the layer (compute, bandwidth) and hatched where the layer
is not a matrix kernel. Drawn from a `NetworkResult` only; nothing is simulated here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

BOUND_COLORS = {"compute": "#1f77b4", "bandwidth": "#ff7f0e", "sram": "#2ca02c"}
OTHER_COLOR = "#b0b0b0"
MATRIX = ("direct", "gemm", "im2col+gemm", "matmul")


def plot_network_timeline(result: Any, out: str | Path | None = None, *, width_in: float = 12.0,
                          max_labels: int = 60, title: str | None = None) -> Figure:
    rows = result.layers
    n = len(rows)
    fig = Figure(figsize=(width_in, min(2.0 + 0.18 * n, 14.0)), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    for i, r in enumerate(rows):
        color = BOUND_COLORS.get(str(r.figures.get("bound")), OTHER_COLOR)
        hatch = None if r.layer.lowering in MATRIX else "//"
        ax.barh(i, max(r.cycles, 1), left=r.start_cycle, height=0.8, color=color, hatch=hatch,
                edgecolor="white" if hatch is None else "#444444", linewidth=0.3)
    ax.set_ylim(n - 0.5, -0.5)
    if n <= max_labels:
        ax.set_yticks(range(n), [r.layer.name for r in rows], fontsize=7 if n > 30 else 8)
    else:
        ax.set_ylabel(f"layer (1..{n})")
    total = result.totals()["cycles"]
    ax.set_xlim(0, max(total, 1))
    ax.set_xlabel(f"cycles (total {total:,} = {total / (result.clock_ghz * 1e3):,.1f} us at "
                  f"{result.clock_ghz:g} GHz)")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ax.grid(axis="x", alpha=0.3)
    handles = [Patch(color=c, label=f"{b}-bound") for b, c in BOUND_COLORS.items()
               if any(str(r.figures.get("bound")) == b for r in rows)]
    if any(r.layer.lowering not in MATRIX for r in rows):
        handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="//",
                             label="vector / layout kernel"))
    if handles:
        ax.legend(handles=handles, loc="upper right", fontsize=8)  # layers run top-left to bottom-right
    ax.set_title(title or f"{result.network.name} on {result.config}: one bar per layer "
                 f"({result.fidelity} simulation)", fontsize=10)
    fig.tight_layout()
    if out is not None:
        fig.savefig(out)
    return fig
