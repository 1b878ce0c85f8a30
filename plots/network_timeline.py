"""Layer-level timeline of a network run: each layer a bar from its start to its end cycle.

    plot_network_timeline(result, "resnet18.png")

Row i is layer i (top to bottom, in order), the x axis is time (cycles and microseconds);
bars are coloured by what bounds the layer (compute, bandwidth) and hatched where the layer
is not a matrix kernel. Drawn from a `NetworkResult` only; nothing is simulated here.

When the rows name the clusters that ran them (a many-cluster schedule, `--schedule pipelined`:
`cluster` "0-3"), a panel above has one lane per cluster: each layer a bar on every cluster of
its group from its start to its end, labelled where it is wide enough, so layers running at the
same time on different clusters show side by side.
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
    from accelsim.network.pipeline_model import cluster_span

    rows = result.layers
    n = len(rows)
    spans = [cluster_span(r.cluster) if r.cluster else None for r in rows]
    lanes = sorted({c for s in spans if s for c in s})
    height = min(2.0 + 0.18 * n, 14.0)
    if lanes:
        lane_h = min(0.9 + 0.22 * len(lanes), 6.0)
        fig = Figure(figsize=(width_in, height + lane_h), dpi=100)
        top, ax = fig.subplots(2, 1, sharex=True, height_ratios=[lane_h, height])
        _cluster_lanes(top, result, spans, lanes)
    else:
        fig = Figure(figsize=(width_in, height), dpi=100)
        ax = fig.add_subplot(1, 1, 1)
    for i, r in enumerate(rows):
        color = BOUND_COLORS.get(str(r.figures.get("bound")), OTHER_COLOR)
        hatch = None if r.layer.lowering in MATRIX else "//"
        ax.barh(i, max(r.end_cycle - r.start_cycle, 1), left=r.start_cycle, height=0.8, color=color,
                hatch=hatch,
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
                 f"({result.fidelity} simulation"
                 + (f", {result.schedule} schedule)" if lanes else ")"), fontsize=10)
    fig.tight_layout()
    if out is not None:
        fig.savefig(out)
    return fig


LAYER_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
                "#ff9da7", "#9c755f", "#bab0ac")


def _cluster_lanes(ax: Any, result: Any, spans: list[Any], lanes: list[int]) -> None:
    """One lane per cluster; layer i a bar on each cluster of its group (colours cycle by layer)."""
    total = max(result.totals()["cycles"], 1)
    for i, (r, span) in enumerate(zip(result.layers, spans, strict=True)):
        if span is None:
            continue
        width = max(r.end_cycle - r.start_cycle, 1)
        color = LAYER_COLORS[i % len(LAYER_COLORS)]
        for c in span:
            ax.barh(c, width, left=r.start_cycle, height=0.8, color=color, edgecolor="white",
                    linewidth=0.3)
        if width > total / 25:
            ax.text(r.start_cycle + width / 2, (span[0] + span[-1]) / 2, r.layer.name,
                    ha="center", va="center", fontsize=6, clip_on=True)
    ax.set_ylim(max(lanes) + 0.5, min(lanes) - 0.5)
    step = max(1, len(lanes) // 16)
    ax.set_yticks(lanes[::step], [f"cluster {c}" for c in lanes[::step]], fontsize=7)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"one lane per cluster: layers overlapping on different clusters "
                 f"({result.schedule} schedule)", fontsize=9)
