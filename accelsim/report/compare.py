"""A/B: two reports side by side with B/A ratios, and the headline speedup.

    print(compare(report_a, report_b, ("as-is", "default")))
"""

from __future__ import annotations

import math
from typing import Any

from accelsim.report.figures import Report
from accelsim.report.text import pct, table

# (label, getter, format, lower is better)
_COMPARE_ROWS: tuple[tuple[str, Any, str, bool], ...] = (
    ("cycles", lambda r: r.cycles, "int", True),
    ("seconds (us)", lambda r: r.seconds * 1e6, "float", True),
    ("roofline cycles", lambda r: _or_nan(r.roofline.cycles if r.roofline else None), "int", True),
    ("roofline ratio", lambda r: _or_nan(r.roofline_ratio), "float", True),
    ("traffic ratio", lambda r: _or_nan(r.traffic_ratio), "float", True),
    ("schedule roofline ratio", lambda r: r.schedule_roofline_ratio, "float", True),
    ("DRAM bytes read", lambda r: r.dram_bytes_read, "int", True),
    ("DRAM bytes written", lambda r: r.dram_bytes_written, "int", True),
    ("DRAM B/cycle", lambda r: r.dram_bytes_per_cycle, "float", False),
    ("compute utilization", lambda r: r.compute_utilization, "pct", False),
    ("DMA utilization", lambda r: r.dma_utilization, "pct", False),
    ("DMA busy cycles", lambda r: r.dma_busy_cycles, "int", True),
    ("DMA hidden cycles", lambda r: r.hidden_dma_cycles, "int", False),
    ("DMA exposed cycles", lambda r: r.exposed_dma_cycles, "int", True),
    ("overlap fraction", lambda r: r.overlap_fraction, "pct", False),
    ("DMA hidden fraction", lambda r: r.dma_hidden_fraction, "pct", False),
    ("stall cycles", lambda r: r.stall_cycles, "int", True),
    ("SRAM peak bytes", lambda r: r.sram_peak_bytes, "int", True),
    ("DMA ops", lambda r: r.dma_ops, "int", True),
    ("kernel calls", lambda r: r.kernel_calls, "int", True),
    ("energy (uJ)", lambda r: r.energy.total_pj / 1e6, "float", True),
    ("  DRAM (uJ)", lambda r: r.energy.dram_pj / 1e6, "float", True),
    ("  SRAM (uJ)", lambda r: r.energy.sram_pj / 1e6, "float", True),
    ("  compute (uJ)", lambda r: r.energy.compute_pj / 1e6, "float", True),
    ("  static (uJ)", lambda r: r.energy.static_pj / 1e6, "float", True),
)


def _or_nan(x: float | None) -> float:
    return math.nan if x is None else float(x)


def compare_rows(a: Report, b: Report) -> list[tuple[str, float, float, float | None]]:
    """(metric, A, B, B/A) for every metric of the A/B table; ratio None when A is 0."""
    out = []
    for label, get, _, _ in _COMPARE_ROWS:
        va, vb = float(get(a)), float(get(b))
        out.append((label, va, vb, vb / va if va and not math.isnan(va) else None))
    return out


def compare(a: Report, b: Report, names: tuple[str, str] = ("A", "B")) -> str:
    """The two reports side by side with B/A ratios, then the headline speedup."""
    fmt = {label: f for label, _, f, _ in _COMPARE_ROWS}
    rows = []
    for label, va, vb, ratio in compare_rows(a, b):
        rows.append([label, _fmt(va, fmt[label]), _fmt(vb, fmt[label]),
                     "-" if ratio is None else f"{ratio:.3f}x"])
    lines = table(["metric", names[0], names[1], f"{names[1]}/{names[0]}"], rows)
    if a.cycles and a.cycles == b.cycles:
        lines += ["", f"  {names[0]} and {names[1]} take the same number of cycles"]
    elif a.cycles and b.cycles:
        faster, slower = (names[1], names[0]) if b.cycles <= a.cycles else (names[0], names[1])
        lines.append("")
        lines.append(f"  {faster} takes {max(a.cycles, b.cycles) / min(a.cycles, b.cycles):.3f}x "
                     f"fewer cycles than {slower}")
    return "\n".join(lines)


def _fmt(v: float, kind: str) -> str:
    if math.isnan(v):
        return "-"
    if kind == "int":
        return f"{round(v):,}"
    if kind == "pct":
        return pct(v)
    return "inf" if math.isinf(v) else f"{v:,.4g}"


__all__ = ["compare", "compare_rows"]
