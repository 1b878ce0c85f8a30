"""Roofline: operational intensity (ops per DRAM byte) against ops per cycle, log-log.

Ceilings from the config: the DRAM bandwidth slope (channels x bytes/cycle), the matrix array
(2 x rows x cols ops/cycle, a MAC counting as two ops) and the vector lanes (2 x lanes: the
cost model issues a MAC as one fused lane-op); the program's own compute ceiling (its ops at
the machine's peak) dashed. Each run is a filled point at its *compulsory* intensity (ops per
byte the program needs: each input read once, each output written once) and its achieved ops
per cycle, with the gap to the roof at that intensity: the report's honest `roofline_ratio`.
A hollow marker at the same height shows the intensity of the bytes the schedule *moved*, the
arrow between them the `traffic_ratio`. A report without compulsory traffic is drawn at its
moved intensity only, and its label says so.

    rf = plot_roofline(report, "roof.png", config=cfg)
    rf.point   # (compulsory intensity, achieved ops/cycle) == report's
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from accelsim.report import Report, Roofline

POINT_LABEL = "measured"


@dataclass(slots=True)
class RooflinePlot:
    figure: Figure
    point: tuple[float, float]            # (ops/byte, ops/cycle) of the first report
    points: list[tuple[str, float, float]]  # (name, ops/byte, ops/cycle) of every report
    ceilings: dict[str, float] = field(default_factory=dict)  # name -> ops/cycle (bandwidth: B/cycle)


def plot_roofline(report: Report | Sequence[tuple[str, Report]], out: str | Path | None = None, *,
                  config: Any = None, title: str | None = None) -> RooflinePlot:
    """One report, or several `(name, report)` (e.g. before/after) on the same roofs."""
    named = [(POINT_LABEL, report)] if isinstance(report, Report) else list(report)
    if not named:
        raise ValueError("plot_roofline needs at least one report")
    first = named[0][1]
    roof = first.roofline or first.schedule_roofline
    bw = float(roof.peak_bytes_per_cycle)
    ceilings: dict[str, float] = {"DRAM bandwidth (B/cycle)": bw}
    if config is not None:
        cc = config.compute
        if cc.kind == "matrix":
            ceilings[f"matrix {cc.rows}x{cc.cols}"] = float(2 * cc.rows * cc.cols)
        ceilings[f"vector {cc.lanes} lanes (FMA)"] = float(2 * cc.lanes)  # a MAC is one lane-op
    if roof.compute_cycles:
        ceilings["this program's compute roof"] = roof.peak_ops_per_cycle

    points = [(name, _roof(r).intensity, r.achieved_ops_per_cycle) for name, r in named]
    moved = [r.schedule_roofline.intensity for _, r in named]
    finite_x = [x for x in [p[1] for p in points] + moved if math.isfinite(x) and x > 0]
    flat = [v for k, v in ceilings.items() if not k.startswith("DRAM")]
    top = max(flat + [y for _, _, y in points] + [1.0])
    knee = top / bw
    xs = [*finite_x, knee]
    x_lo = 10 ** math.floor(math.log10(min(xs) / 4))
    x_hi = 10 ** math.ceil(math.log10(max(xs) * 4))

    fig = Figure(figsize=(7.0, 6.0), dpi=100)
    ax = fig.add_axes((0.11, 0.33, 0.85, 0.61))
    ax.set_xscale("log")
    ax.set_yscale("log")
    x = np.geomspace(x_lo, x_hi, 256)
    ax.plot(x, np.minimum(x * bw, top), color="black", lw=1.6, label=f"DRAM {bw:g} B/cycle")
    styles = iter([("#1f77b4", "-"), ("#2ca02c", "-"), ("#9467bd", "--")])
    for name, value in ceilings.items():
        if name.startswith("DRAM"):
            continue
        color, ls = next(styles)
        x0 = value / bw
        ax.plot([x0, x_hi], [value, value], color=color, ls=ls, lw=1.4, label=f"{name}: {value:g} ops/cycle")
    markers = iter(["o", "s", "^", "D", "v"])
    colors = iter(["#d62728", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"])
    drawn = [(p, mx, r) for p, mx, (_, r) in zip(points, moved, named, strict=True)
             if math.isfinite(p[1]) and p[1] > 0 and p[2] > 0]  # drawable on log axes
    styled = [(p, mx, r, next(colors), next(markers)) for p, mx, r in drawn]
    for (name, px, py), _, r, c, mk in styled:
        rf = _roof(r)
        attainable = rf.attainable_ops_per_cycle(px)
        if attainable > py:  # the gap to the roof at this intensity
            ax.plot([px, px], [py, attainable], color=c, ls=":", lw=1.0, zorder=4)
        ax.scatter([px], [py], s=60, marker=mk, color=c, zorder=5, edgecolors="black",
                   linewidths=0.6, label=_label(name, py, r))
    for (name, px, py), mx, r, c, mk in styled:  # hollow: the intensity of the bytes moved
        if r.roofline is None or not (math.isfinite(mx) and mx > 0) or mx == px:
            continue
        ax.annotate("", xy=(mx, py), xytext=(px, py), zorder=4,
                    arrowprops={"arrowstyle": "->", "color": c, "lw": 0.9})
        ax.scatter([mx], [py], s=60, marker=mk, facecolors="none", edgecolors=c, linewidths=1.2,
                   zorder=5, label=f"{name} as scheduled: moves {r.traffic_ratio:.3g}x the "
                                   "compulsory bytes")
    ax.set_xlim(x_lo, x_hi)
    y_lo = 10 ** math.floor(math.log10(max(min([y for _, _, y in points if y > 0] + [x_lo * bw]) / 4,
                                           1e-6)))
    ax.set_ylim(y_lo, 10 ** math.ceil(math.log10(top * 2)))
    ax.set_xlabel("operational intensity (ops / DRAM byte; filled: compulsory bytes, hollow: moved)")
    ax.set_ylabel("performance (ops / cycle)")
    ax.grid(True, which="major", color="#dddddd", lw=0.6)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize=8, frameon=False, ncol=1)
    ax.set_title(title or f"roofline: {first.func} on '{first.config}'", fontsize=10)
    if out is not None:
        fig.savefig(out)
    return RooflinePlot(fig, (points[0][1], points[0][2]), points, ceilings)


def _roof(r: Report) -> Roofline:
    """The honest roofline, or the schedule's when the compulsory traffic is unknown."""
    return r.roofline if r.roofline is not None else r.schedule_roofline


def _label(name: str, py: float, r: Report) -> str:
    if r.roofline is None:
        return (f"{name}: {py:.3g} ops/cycle, {r.schedule_roofline_ratio:.2f}x the schedule "
                f"roofline ({r.schedule_roofline.bound}; compulsory traffic unknown)")
    return f"{name}: {py:.3g} ops/cycle, {r.roofline_ratio:.2f}x roofline ({r.roofline.bound})"


__all__ = ["POINT_LABEL", "RooflinePlot", "plot_roofline"]
