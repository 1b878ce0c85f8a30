"""Roofline: operational intensity (ops per DRAM byte) against ops per cycle, log-log.

Ceilings from the config: the DRAM bandwidth slope (channels x bytes/cycle), the matrix array
(2 x rows x cols ops/cycle, a MAC counting as two ops) and the vector lanes (2 x lanes: the
cost model issues a MAC as one fused lane-op);
the program's own compute ceiling (its ops over its ideal kernel cycles) dashed; the measured
point (ops / cycles) and its roofline bound, from a `Report`.

    rf = plot_roofline(report, "roof.png", config=cfg)
    rf.point   # (intensity, achieved ops/cycle) == report's
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from accelsim.report import Report

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
    roof = named[0][1].roofline
    bw = float(roof.peak_bytes_per_cycle)
    ceilings: dict[str, float] = {"DRAM bandwidth (B/cycle)": bw}
    if config is not None:
        cc = config.compute
        if cc.kind == "matrix":
            ceilings[f"matrix {cc.rows}x{cc.cols}"] = float(2 * cc.rows * cc.cols)
        ceilings[f"vector {cc.lanes} lanes (FMA)"] = float(2 * cc.lanes)  # a MAC is one lane-op
    if roof.compute_cycles:
        ceilings["this program's compute roof"] = roof.peak_ops_per_cycle

    points = [(name, r.roofline.intensity, r.achieved_ops_per_cycle) for name, r in named]
    finite_x = [x for _, x, _ in points if math.isfinite(x) and x > 0]
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
    for (name, px, py), (_, r) in zip(points, named):
        if not (math.isfinite(px) and px > 0 and py > 0):  # not drawable on log axes
            continue
        c = next(colors)
        attainable = r.roofline.attainable_ops_per_cycle(px)
        if attainable > py:  # the gap to the roof at this intensity
            ax.plot([px, px], [py, attainable], color=c, ls=":", lw=1.0, zorder=4)
        ax.scatter([px], [py], s=60, marker=next(markers), color=c, zorder=5,
                   edgecolors="black", linewidths=0.6,
                   label=f"{name}: {py:.3g} ops/cycle, {r.roofline_ratio:.2f}x roofline "
                         f"({r.roofline.bound})")
    ax.set_xlim(x_lo, x_hi)
    y_lo = 10 ** math.floor(math.log10(max(min([y for _, _, y in points if y > 0] + [x_lo * bw]) / 4,
                                           1e-6)))
    ax.set_ylim(y_lo, 10 ** math.ceil(math.log10(top * 2)))
    ax.set_xlabel("operational intensity (ops / DRAM byte)")
    ax.set_ylabel("performance (ops / cycle)")
    ax.grid(True, which="major", color="#dddddd", lw=0.6)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), fontsize=8, frameon=False, ncol=1)
    ax.set_title(title or f"roofline: {named[0][1].func} on '{named[0][1].config}'", fontsize=10)
    if out is not None:
        fig.savefig(out)
    return RooflinePlot(fig, (points[0][1], points[0][2]), points, ceilings)


__all__ = ["POINT_LABEL", "RooflinePlot", "plot_roofline"]
