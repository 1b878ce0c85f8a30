"""Plain-text helpers of the report tables: numbers, percentages, aligned columns."""

from __future__ import annotations

import math


def plural(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def num(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.4g}"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        out = [cells[0].ljust(widths[0])]
        out += [c.rjust(w) for c, w in zip(cells[1:-1], widths[1:-1])]
        if len(cells) > 1:
            out.append(cells[-1].ljust(widths[-1]) if not numeric(cells[-1]) else
                       cells[-1].rjust(widths[-1]))
        return "  " + "  ".join(out).rstrip()

    return [line(header), "  " + "  ".join("-" * w for w in widths)] + [line(r) for r in rows]


def numeric(cell: str) -> bool:
    return cell.replace(",", "").replace(".", "").replace("%", "").replace("x", "").isdigit()


__all__ = ["num", "numeric", "pct", "plural", "table"]
