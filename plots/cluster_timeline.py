"""Timeline of a many-cluster run, one lane group per cluster — control (stalls, barrier
waits), DMA (every engine of the cluster on one lane), compute — then the shared parts:
DRAM (every channel on one lane) and the busiest interconnect links. Readable at 16
clusters: 3 thin lanes a cluster, groups separated by rules.

    plot_cluster_timeline(result.trace, "t.png", config=result.config)

Drawn from the trace only (no simulation). Intervals of a lane that overlap (several engines
or channels) are drawn merged: the lane shows when any of them was busy.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from accelsim.trace import Trace

_CLUSTER = re.compile(r"c(\d+)\.(.*)")
COLORS = {"compute": "#4c72b0", "dma": "#55a868", "stall": "#c44e52", "barrier": "#8172b2",
          "dram": "#dd8452", "noc": "#937860"}


def cluster_lanes(trace: Trace, links: int = 4) -> dict[str, list[tuple[int, int, str]]]:
    """Lane name -> merged (start, end, colour key) intervals, in drawing order."""
    raw: dict[str, list[tuple[int, int, str]]] = {}
    clusters: set[int] = set()
    noc: dict[str, int] = {}
    for r in trace:
        m = _CLUSTER.match(r.unit)
        if m:
            k, unit = int(m.group(1)), m.group(2)
            clusters.add(k)
            if unit == "cp":
                if r.kind in ("stall", "barrier"):
                    raw.setdefault(f"c{k} control", []).append((r.start, r.end, r.kind))
            elif unit.startswith("compute"):
                raw.setdefault(f"c{k} compute", []).append((r.start, r.end, "compute"))
            else:
                raw.setdefault(f"c{k} dma", []).append((r.start, r.end, "dma"))
        elif r.unit.startswith("dram"):
            raw.setdefault("DRAM", []).append((r.start, r.end, "dram"))
        elif r.unit.startswith("noc."):
            raw.setdefault(r.unit, []).append((r.start, r.end, "noc"))
            noc[r.unit] = noc.get(r.unit, 0) + r.end - r.start
    order = [f"c{k} {w}" for k in sorted(clusters) for w in ("control", "dma", "compute")]
    order += ["DRAM", *sorted(noc, key=lambda u: -noc[u])[:links]]
    return {lane: _merge(raw.get(lane, [])) for lane in order}


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for s, e, k in sorted(spans):
        if out and s <= out[-1][1] and out[-1][2] == k:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e, k)
        else:
            out.append((s, e, k))
    return out


def plot_cluster_timeline(trace: Trace, out: str | Path | None = None, *, config: Any = None,
                          lane_px: int = 11, width_px: int = 1400, dpi: int = 100) -> Figure:
    lanes = cluster_lanes(trace)
    names = list(lanes)
    height = lane_px * len(names) + 110
    fig = Figure(figsize=(width_px / dpi, height / dpi), dpi=dpi)
    ax = fig.add_axes((0.09, 60 / height, 0.80, (height - 100) / height))
    for i, lane in enumerate(names):
        y = len(names) - 1 - i
        by_kind: dict[str, list[tuple[int, int]]] = {}
        for s, e, k in lanes[lane]:
            by_kind.setdefault(k, []).append((s, e - s))
        for k, spans in by_kind.items():
            ax.broken_barh(spans, (y - 0.4, 0.8), facecolors=COLORS[k], linewidth=0)
        if lane.endswith(" control") and i:
            ax.axhline(y + 0.5, color="#888888", linewidth=0.5)
    ax.set_ylim(-0.5, len(names) - 0.5)
    ax.set_yticks([len(names) - 1 - i for i in range(len(names))], names, fontsize=6)
    ax.set_xlim(0, max(trace.end, 1))
    ax.set_xlabel("cycles")
    ax.legend(handles=[Patch(facecolor=c, label=k) for k, c in COLORS.items()],
              loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if config is not None:
        fig.suptitle(f"{config.name}: {config.clusters} clusters, {trace.end} cycles", fontsize=10)
    if out is not None:
        fig.savefig(out, dpi=dpi)
    return fig
