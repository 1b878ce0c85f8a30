"""Pareto plots of DSE results: every point in grey, the non-dominated front highlighted.

Two objectives: one scatter with the front drawn as a staircase (the region it dominates).
Three objectives: the three pairwise projections side by side, the 3-D front highlighted in
each (a point on the 3-D front need not be on a 2-D projection's front, which is the point).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter, LogLocator, NullFormatter

from accelsim.dse.pareto import check_objectives, pareto_mask

FRONT_COLOR = "#d62728"
OTHER_COLOR = "#9e9e9e"
FRONT_LABEL = "Pareto front"
OTHER_LABEL = "dominated"


def _label(name: str) -> str:
    return {"cycles": "cycles", "energy_pj": "energy (pJ)", "sram_peak_bytes": "SRAM peak (bytes)",
            "dram_bytes": "DRAM traffic (bytes)"}.get(name, name)


def _use_log(values: np.ndarray) -> bool:
    v = values[values > 0]
    return v.size == values.size and v.size > 1 and v.max() / v.min() >= 10


MAX_LABELS = 12


def plot_pareto(df: Any, objectives: Sequence[str], out: str | Path | None = None, *,
                title: str | None = None, label_columns: Sequence[str] = ()) -> Any:
    """Draw the front of `objectives` (minimized) over the ok rows of a results DataFrame.

    Returns the matplotlib Figure; saves it to `out` (PNG/SVG/PDF by extension) when given.
    The front's scatter artist has the label "Pareto front" so a test can read its points back.
    With `label_columns` (e.g. the swept parameters), a 2-objective front of at most 12 points
    has each point annotated with its values of those columns ("which design is that?").
    """
    check_objectives(df, objectives)
    data = df[df["status"] == "ok"] if "status" in df.columns else df
    data = data.dropna(subset=list(objectives))
    values = data[list(objectives)].to_numpy(dtype=float)
    mask = pareto_mask(values) if len(values) else np.zeros(0, dtype=bool)
    pairs = [(0, 1)] if len(objectives) == 2 else [(0, 1), (0, 2), (1, 2)]
    # A bare Figure (no pyplot): renders with Agg, touches no global backend state.
    width = 7.5 if label_columns and len(pairs) == 1 else 5.5 * len(pairs)
    fig = Figure(figsize=(width, 4.5))
    axes = fig.subplots(1, len(pairs), squeeze=False)
    for ax, (a, b) in zip(axes[0], pairs):
        x, y = values[:, a], values[:, b]
        ax.scatter(x[~mask], y[~mask], s=14, c=OTHER_COLOR, alpha=0.7, label=OTHER_LABEL, zorder=2)
        ax.scatter(x[mask], y[mask], s=36, c=FRONT_COLOR, edgecolors="black", linewidths=0.5,
                   label=FRONT_LABEL, zorder=3)
        if len(pairs) == 1 and mask.any():
            order = np.argsort(x[mask], kind="stable")
            ax.step(x[mask][order], y[mask][order], where="post", color=FRONT_COLOR, lw=1.2, zorder=1)
            if label_columns and mask.sum() <= MAX_LABELS:
                _annotate_front(ax, data[mask], x[mask], y[mask], label_columns)
        ax.set_xlabel(_label(objectives[a]))
        ax.set_ylabel(_label(objectives[b]))
        for axis, vals, set_scale in ((ax.xaxis, x, ax.set_xscale), (ax.yaxis, y, ax.set_yscale)):
            if _use_log(vals):  # wide ranges: log, ticks at 1-2-5 per decade
                set_scale("log")
                axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                axis.set_minor_formatter(NullFormatter())
            axis.set_major_formatter(EngFormatter())  # 20k, 100M: readable cycles and pJ
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right" if label_columns else "best", fontsize="small")
    n_front = int(mask.sum())
    fig.suptitle(title or f"Pareto front of {', '.join(objectives)}: {n_front} of {len(values)} points "
                          "(lower is better)")
    fig.tight_layout()
    if out is not None:
        fig.savefig(out, dpi=120)
    return fig


def front_labels(rows: Any, columns: Sequence[str]) -> list[str]:
    """One short label per front row: the columns whose values differ along the front."""
    cols = [c for c in columns if rows[c].nunique(dropna=False) > 1] or list(columns)[:1]
    names = short_names(cols)
    return [" ".join(f"{names[c]}={row[c]}" for c in cols) for _, row in rows.iterrows()]


def short_names(columns: Sequence[str]) -> dict[str, str]:
    """Each dotted column by its shortest suffix no other column shares (`sram.capacity_kib`
    -> `capacity_kib`; `memory.glb.capacity_kib` beside `memory.spad.capacity_kib` ->
    `glb.capacity_kib`, `spad.capacity_kib`)."""
    out = {}
    for c in columns:
        parts = c.split(".")
        for k in range(1, len(parts) + 1):
            tail = ".".join(parts[-k:])
            if not any(o != c and (o == tail or o.endswith("." + tail)) for o in columns):
                break
        out[c] = tail
    return out


def _annotate_front(ax: Any, rows: Any, xs: np.ndarray, ys: np.ndarray, columns: Sequence[str]) -> None:
    """Label the front points in a column of text inside the axes, each tied to its point by
    a thin line; points at the same place share one label."""
    placed: dict[tuple[float, float], list[str]] = {}
    for text, px, py in zip(front_labels(rows, columns), xs, ys):
        placed.setdefault((float(px), float(py)), []).append(text)
    # top label for the highest point, so the leader lines do not cross much
    for k, ((px, py), texts) in enumerate(sorted(placed.items(), key=lambda kv: -kv[0][1])):
        texts = list(dict.fromkeys(texts))
        text = " / ".join(texts) if len(texts) <= 2 else f"{texts[0]} (+{len(texts) - 1} alike)"
        ax.annotate(text, (px, py), xytext=(0.16, 0.93 - 0.065 * k),
                    textcoords="axes fraction", fontsize=7, color="#333333", va="center",
                    arrowprops={"arrowstyle": "-", "color": "#999999", "lw": 0.6},
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "alpha": 0.8, "lw": 0})


def front_points(fig: Any, panel: int = 0) -> np.ndarray:
    """The (x, y) points drawn as the front in one panel, read back from the figure."""
    ax = fig.axes[panel]
    for coll in ax.collections:
        if coll.get_label() == FRONT_LABEL:
            return np.asarray(coll.get_offsets(), dtype=float)
    raise LookupError("no Pareto front in this panel")
