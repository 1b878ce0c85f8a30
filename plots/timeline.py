"""Overlap timeline: one lane per unit (control, DMA engines, DRAM channels, compute units),
bars coloured by buffer or kernel, control stalls shaded across every lane.

    tl = plot_timeline(result.trace, "gemm.png", config=result.config, window=(0, 20_000))
    tl.bars   # what was drawn: Bar(lane, start, end, label, kind, count)

Drawn from the trace only. Neighbouring intervals narrower than one pixel that start in the same
pixel column are merged (`timeline_bars`), so a lane draws at most one narrow bar per pixel
column and a million-event trace renders in seconds; a merged bar takes the colour of the label
with the most cycles in it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from accelsim.report import unit_group, unit_sort_key
from accelsim.trace import Trace

STALL_COLOR = "#d62728"
ISSUE_COLOR = "#555555"
OTHER_COLOR = "#b0b0b0"
OTHER_LABEL = "other"
# tab20 without its reds (kept for stalls) and greys
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22",
           "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94", "#f7b6d2",
           "#dbdb8d", "#9edae5")
LEFT, RIGHT = 0.11, 0.80  # axes position in figure fractions (the legend sits on the right)


@dataclass(frozen=True, slots=True)
class Bar:
    """One drawn bar: `count` trace intervals of `lane` merged into [start, end)."""

    lane: str
    start: int
    end: int
    label: str
    kind: str
    count: int = 1
    level: int = 0   # sub-row of the lane: intervals of one unit that overlap stack up


@dataclass(slots=True)
class TimelinePlot:
    figure: Figure
    bars: list[Bar]
    lanes: list[str]
    window: tuple[int, int]
    cycles_per_pixel: float
    colors: dict[str, str] = field(default_factory=dict)

    def lane_bars(self, lane: str) -> list[Bar]:
        return [b for b in self.bars if b.lane == lane]


def plot_timeline(trace: Trace, out: str | Path | None = None, *, config: Any = None,
                  clock_ghz: float | None = None, window: tuple[int, int] | None = None,
                  units: Iterable[str] = (), width_px: int = 1400, lane_px: int = 34,
                  dpi: int = 100, title: str | None = None, max_legend: int = 12) -> TimelinePlot:
    """Draw `trace` (optionally only cycles [start, end) of `window`); save to `out` (PNG, SVG
    or PDF by extension) when given. `config` (or `clock_ghz`) gives the µs axis and idle units."""
    if clock_ghz is None:
        clock_ghz = config.clock_ghz if config is not None else 1.0
    lanes = set(units) | {r.unit for r in trace}
    if config is not None:
        from accelsim.report import expected_units

        lanes |= set(expected_units(config))
    lane_list = sorted(lanes, key=unit_sort_key)
    lo, hi = window if window is not None else (0, max(trace.end, 1))
    if not hi > lo:
        raise ValueError(f"window {lo}:{hi}: the end must be after the start")
    plot_px = width_px * (RIGHT - LEFT)
    cpp = (hi - lo) / plot_px

    bars = timeline_bars(trace, lane_list, (lo, hi), cpp)
    colors = _colors(bars, max_legend)

    top_px, bottom_px = (76 if title else 60), 52
    axes_px = max(lane_px * len(lane_list), 150)  # room for the legend
    height_px = axes_px + top_px + bottom_px
    fig = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi)
    ax = fig.add_axes((LEFT, bottom_px / height_px, RIGHT - LEFT, axes_px / height_px))
    y_of = {u: len(lane_list) - 1 - i for i, u in enumerate(lane_list)}
    levels: dict[str, int] = {}
    for b in bars:
        levels[b.lane] = max(levels.get(b.lane, 1), b.level + 1)
    groups: dict[tuple[str, int, str], list[tuple[int, int]]] = {}
    stalls: list[tuple[int, int]] = []
    for b in bars:
        groups.setdefault((b.lane, b.level, _color_of(b, colors)), []).append((b.start, b.end - b.start))
        if b.kind == "stall":
            stalls.append((b.start, b.end - b.start))
    if stalls:  # shade the stalled cycles across every lane
        ax.broken_barh(stalls, (-0.5, len(lane_list)), facecolors=STALL_COLOR, alpha=0.10,
                       linewidth=0, zorder=1)
    for (lane, level, color), spans in groups.items():
        hatch = "////" if color == STALL_COLOR else None
        # a thin white edge separates back-to-back bars that are wide enough to show it
        widths = [0.6 if w >= 4 * cpp else 0.0 for _, w in spans]
        h = 0.72 / levels[lane]
        ax.broken_barh(spans, (y_of[lane] + 0.36 - (level + 1) * h, h), facecolors=color,
                       edgecolor="white", linewidths=widths, hatch=hatch, zorder=2)
    for above, below in itertools.pairwise(lane_list):  # a rule between unit groups
        if unit_group(above) != unit_group(below):
            ax.axhline(y_of[above] - 0.5, color="#888888", linewidth=0.6, zorder=3)
    ax.set_ylim(-0.5, len(lane_list) - 0.5)
    ax.set_yticks([y_of[u] for u in lane_list], [_lane_name(u) for u in lane_list])
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ax.set_xlabel("cycles")
    us = 1.0 / (clock_ghz * 1e3)
    top = ax.secondary_xaxis("top", functions=(lambda c: c * us, lambda t: t / us))
    top.set_xlabel("time (µs)")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6, zorder=0)
    ax.set_axisbelow(True)
    handles = [Patch(facecolor=c, label=lab) for lab, c in colors.items()]
    if stalls or any(b.kind == "stall" for b in bars):
        handles.append(Patch(facecolor=STALL_COLOR, alpha=0.5, hatch="////", label="control stalled"))
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
                  frameon=False, title="buffer / kernel", title_fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10, x=LEFT + (RIGHT - LEFT) / 2, y=1 - 6 / height_px, va="top")
    if out is not None:
        fig.savefig(out, dpi=dpi)
    return TimelinePlot(fig, bars, lane_list, (lo, hi), cpp, colors)


def timeline_bars(trace: Trace, lanes: Sequence[str], window: tuple[int, int], cpp: float
                  ) -> list[Bar]:
    """The bars drawn for `trace` inside `window` at `cpp` cycles per pixel, lane by lane.

    Intervals are clipped to the window (empty ones dropped). Consecutive intervals of a lane
    merge into one bar when all are narrower than a pixel, start in the same pixel column, and
    the gaps between them are under a pixel; the bar takes the (label, kind) with the most
    cycles. Vectorized with numpy: a million intervals take about a second."""
    recs = trace.kept_records()  # an error for a run that kept only the summary
    n = len(recs)
    lane_idx = {u: i for i, u in enumerate(lanes)}
    keys: dict[tuple[str, str], int] = {}
    s = np.fromiter((r.start for r in recs), np.int64, n)
    e = np.fromiter((r.end for r in recs), np.int64, n)
    u = np.fromiter((lane_idx[r.unit] for r in recs), np.int64, n)
    k = np.fromiter((keys.setdefault((r.label, r.kind), len(keys)) for r in recs), np.int64, n)
    names = list(keys)
    lo, hi = window
    keep = (e > lo) & (s < hi) & (e > s)
    s, e, u, k = np.maximum(s[keep], lo), np.minimum(e[keep], hi), u[keep], k[keep]
    order = np.lexsort((e, s, u))
    s, e, u, k = s[order], e[order], u[order], k[order]
    bars: list[Bar] = []
    bounds = np.searchsorted(u, np.arange(len(lanes) + 1))
    for li, lane in enumerate(lanes):
        a, b = bounds[li], bounds[li + 1]
        if a < b:
            bars.extend(_stack(_merge_lane(lane, s[a:b], e[a:b], k[a:b], names, lo, cpp)))
    return bars


def _stack(bars: list[Bar]) -> list[Bar]:
    """First-fit sub-rows for a lane's bars (sorted by start): a bar takes the first sub-row
    free at its start, so overlapping intervals (a pipelined DMA engine) stay visible."""
    ends: list[int] = []
    out = []
    for b in bars:
        for level, end in enumerate(ends):
            if end <= b.start:
                ends[level] = b.end
                break
        else:
            level = len(ends)
            ends.append(b.end)
        out.append(b if level == 0 else replace(b, level=level))
    return out


def _merge_lane(lane: str, s: np.ndarray, e: np.ndarray, k: np.ndarray,
                names: list[tuple[str, str]], lo: int, cpp: float) -> list[Bar]:
    narrow = (e - s) < cpp
    col = np.floor((s - lo) / cpp).astype(np.int64)
    reach = np.maximum.accumulate(e)
    brk = np.ones(len(s), dtype=bool)
    if len(s) > 1:
        brk[1:] = (~narrow[1:] | ~narrow[:-1] | (col[1:] != col[:-1])
                   | (s[1:] - reach[:-1] >= cpp))
    first = np.flatnonzero(brk)
    ends = np.maximum.reduceat(e, first)
    counts = np.diff(np.append(first, len(s)))
    label = k[first]
    multi = np.flatnonzero(counts > 1)
    if multi.size:
        gid = np.cumsum(brk) - 1
        nk = len(names)
        if len(first) * nk <= 20_000_000:
            w = np.bincount(gid * nk + k, weights=(e - s), minlength=len(first) * nk)
            label = np.where(counts > 1, w.reshape(len(first), nk).argmax(axis=1), label)
    out = []
    for g, i in enumerate(first.tolist()):
        lab, kind = names[int(label[g])]
        out.append(Bar(lane, int(s[i]), int(ends[g]), lab, kind, int(counts[g])))
    return out


def _colors(bars: list[Bar], max_legend: int) -> dict[str, str]:
    """The `max_legend` labels with the most cycles (DMAs and kernels) get their own colour."""
    total: dict[str, int] = {}
    for b in bars:
        if b.kind in ("stall", "issue"):
            continue
        total[b.label] = total.get(b.label, 0) + (b.end - b.start)
    ranked = sorted(total, key=lambda lab: (-total[lab], lab))
    keep = sorted(ranked[:max_legend])
    colors = {lab: PALETTE[i % len(PALETTE)] for i, lab in enumerate(keep)}
    if len(ranked) > max_legend:
        colors[OTHER_LABEL] = OTHER_COLOR
    return colors


def _color_of(b: Bar, colors: dict[str, str]) -> str:
    if b.kind == "stall":
        return STALL_COLOR
    if b.kind == "issue":
        return ISSUE_COLOR
    return colors.get(b.label, OTHER_COLOR)


def _lane_name(unit: str) -> str:
    return "control" if unit == "cp" else unit


def main(argv: list[str] | None = None) -> int:
    """`python -m plots.timeline TRACE.json OUT.png [--window START:END]`: redraw a saved
    `--trace` file (Chrome trace-event JSON written by accelsim) without re-simulating."""
    import argparse

    from accelsim.report.chrome_trace import read_chrome_trace

    ap = argparse.ArgumentParser(allow_abbrev=False,
                                 description=main.__doc__.splitlines()[0] if main.__doc__ else None)
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--window", default=None, metavar="START:END")
    ap.add_argument("--title", default=None)
    args = ap.parse_args(argv)
    trace = read_chrome_trace(args.trace)
    window = None
    if args.window:
        lo, _, hi = args.window.partition(":")
        window = (int(lo or 0), int(hi) if hi else trace.end)
    clock = float(trace.metadata.get("clock_ghz", 1.0))
    tl = plot_timeline(trace, args.out, clock_ghz=clock, window=window, title=args.title)
    print(f"{args.out}: {len(tl.bars):,} bars from {len(trace):,} intervals")
    return 0


__all__ = ["Bar", "TimelinePlot", "main", "plot_timeline", "timeline_bars"]

if __name__ == "__main__":
    raise SystemExit(main())
