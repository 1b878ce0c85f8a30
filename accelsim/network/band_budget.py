"""What a depth-first group (`accelsim.network.depthfirst`) holds and moves, in closed form:
its band's height (`band_plan`: the tallest band whose buffers, and the weights held beside
them, leave every kernel its tiles) and the floor under its DRAM bytes (`bytes_floor`), by
which the fused grouping (`accelsim.network.fused`) refuses a candidate before compiling it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from accelsim.network.depthfirst import (
    NotBandable,
    _bytes_of,
    _chain,
    _loaded,
    _out_rows,
    full_layout,
    layout,
    resident,
    stationary,
)
from accelsim.network.links import kernel_args

if TYPE_CHECKING:
    from accelsim.network.group_model import Group, _Plan


def band_plan(plan: _Plan, group: Group, extra: int = 0) -> int | None:
    """The tallest band of `group` whose buffers (and `extra` bytes held beside them: its
    weights) leave every kernel its tiles (`depthfirst` module docstring); None when none
    does or the group cannot be banded. The band buffers grow with the band's height, so the
    heights (one per band count) are bisected: a handful of layouts, not one per height."""
    from accelsim.network.group_model import MIN_TILE_KIB, RESIDENT_SHARE, _capacity

    cap = _capacity(plan.config)

    def fits(h: int) -> bool:
        live = extra + resident(plan, layout(plan, group, h, limit=3))
        return live <= RESIDENT_SHARE * cap and cap - live >= MIN_TILE_KIB * 1024

    try:
        total = _out_rows(plan, _chain(plan, group))
        heights = list(dict.fromkeys(-(-total // nb) for nb in range(2, total + 1)))  # tallest first
        if not heights or not fits(heights[-1]):
            return None
        lo, hi = 0, len(heights) - 1     # heights[hi] fits; the first that fits is in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            if fits(heights[mid]):
                hi = mid
            else:
                lo = mid + 1
        return heights[lo]
    except NotBandable:
        return None


def bytes_floor(plan: _Plan, group: Group) -> int:
    """A floor under the banded group's DRAM bytes, in closed form (no compile): every
    kernel's DRAM operands (weights: not read row by row, read whole by each band that
    computes rows of its output, as the compiled band kernel streams them) once per band it
    computes rows in, every row of a DRAM tensor read row by row (its input, a residual) that
    a band's window holds read once, plus the group's output written once. The grouping
    refuses a candidate whose floor is already no fewer bytes than layer-by-layer before
    compiling it. Weights held on chip (`stationary`) count once."""
    lay = full_layout(plan, group)
    held = stationary(plan, group, lay)
    total = sum(held.values())
    for band in lay.bands:
        for n, bk in enumerate(band):
            if not bk.idle:
                a = kernel_args(plan.flat[bk.p][1].workload)
                total += sum(a.nbytes(a.index(name)) for name in _loaded(bk, bk.dram)
                             if (n, name) not in held)
    for k, wins in lay.windows.items():   # DRAM tensors read row by row: each row once
        if isinstance(k[0], int):
            bk = lay.bands[0][k[0]]
            total += _covered(wins) * _bytes_of(bk.full[k[1]], 1, bk.axes[k[1]])
    last = lay.bands[0][-1]
    r, unit = last.axes[last.out]
    return total + _bytes_of(last.full[last.out], last.full[last.out].shape[r] // unit,
                             last.axes[last.out])


def _covered(wins: Sequence[tuple[int, int]]) -> int:
    """How many rows the union of the windows [lo, hi) holds."""
    total, end = 0, None
    for lo, hi in sorted(w for w in wins if w[1] > w[0]):
        start = lo if end is None else max(lo, end)
        if hi > start:
            total += hi - start
        end = hi if end is None else max(end, hi)
    return total


__all__ = ["band_plan", "bytes_floor"]
