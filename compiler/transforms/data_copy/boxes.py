"""The box a fast buffer holds for a memref region: the accessed lattice of a strided last
dimension, the limits of what any iteration accesses, and boxes clipped to them."""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl

from compiler.analysis.region import MemRefRegion
from compiler.ir.core import Operation
from compiler.transforms.rewrite.index_exprs import map_exprs


def lattice_step(region: MemRefRegion, accesses: Sequence[Operation]) -> int:
    """k > 1 when every access's last index is `lower + k * (something)` (strided accesses:
    the buffer keeps only those elements); 1 otherwise."""
    from math import gcd

    if not accesses or not region.lower or (region.extents[-1] or 0) <= 1:
        return 1
    lower = region.lower[-1]
    g = 0
    for op in accesses:
        e = map_exprs(op.map, op.indices)[-1] - lower  # type: ignore[attr-defined]
        lin = e.expr.linear_coeffs(len(e.operands), 0)
        if lin is None:
            return 1
        for c in [*lin[0], lin[2]]:
            g = gcd(g, c)
    return g if g > 1 else 1


def accessed_limits(region: MemRefRegion) -> tuple[tuple[int | None, ...], tuple[bool, ...]]:
    """Per dim, one past the largest element index any iteration accesses (a constant, when the
    outer loops bound it), capped by the memref's extent; and whether a tile's box can reach it.

    Copies are clipped there instead of at the memref's extent, so a partial tile of a nest
    that never touches the border (a stencil's interior) still has a dense, DMA-able box.
    """
    ex = region.exact
    # [params] -> { M[a] } to { M[a, params] }, then forget the parameters: every accessed element.
    nparam = ex.dim(isl.dim_type.param)
    rank = ex.dim(isl.dim_type.set)
    flat = ex.move_dims(isl.dim_type.set, rank, isl.dim_type.param, 0, nparam)
    flat = flat.project_out(isl.dim_type.set, rank, nparam)
    mt = region.memref.type
    limits: list[int | None] = []
    clipped: list[bool] = []
    for d in range(rank):
        size = mt.shape[d]
        hi = flat.dim_max_val(d) if not flat.is_empty() else None
        lim = size
        if hi is not None and hi.is_int():
            top = int(hi.to_python()) + 1
            lim = top if size is None else min(int(size), top)
        limits.append(lim)
    box = region.box
    for d in range(rank):
        lim = limits[d]
        # A dim needs clipping when some tile's box (lower + extent) passes the limit.
        if lim is None:
            clipped.append(bool(region.clipped[d]))
        else:
            only_d = [None] * rank
            only_d[d] = lim
            clipped.append(not box.is_subset(clip_box(box, only_d)))
    return tuple(limits), tuple(clipped)


def clip_box(box: isl.Set, limits: Sequence[int | None]) -> isl.Set:
    """`box` with `a_d < limits[d]` added along every dim that has a limit."""
    for d, lim in enumerate(limits):
        if lim is None:
            continue
        space = box.get_space()
        c = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(space))
        c = c.set_coefficient_val(isl.dim_type.set, d, -1).set_constant_val(lim - 1)
        box = box.add_constraint(c)
    return box


def lattice_box(region: MemRefRegion, k: int) -> isl.Set:
    """The clipped box restricted to the last-dim residue class of the accessed elements."""
    ex = region.exact
    r = ex.dim(isl.dim_type.set)
    name = ex.get_tuple_name() if ex.has_tuple_name() else ""
    a = ", ".join(f"a{i}" for i in range(r))
    b = ", ".join(f"b{i}" for i in range(r))
    same = isl.Map(f"{{ {name}[{a}] -> {name}[{b}] : exists (q : b{r - 1} = a{r - 1} + {k} * q) }}",
                   context=ex.get_ctx())
    return region.clipped_box.intersect(ex.apply(same)).coalesce()
