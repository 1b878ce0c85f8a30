"""Which loop of a matmul-like kernel is which GEMM dimension, so that a dataflow can map the
kernel onto the array (`accelsim.cost.systolic`): the roles are the IR analysis
`compiler.analysis.loop_roles` (shared with the roofline's compute roof, `accelsim.cost.peak`);
this module makes the GEMM of one call from them. The extent of a role is the product of its
loops' trip counts. A kernel with no roles keeps the `fixed` rule at the array's full rate.
"""

from __future__ import annotations

from collections.abc import Sequence

from accelsim.cost.systolic import GemmView
from compiler.analysis.loop_roles import clear_caches, loop_roles
from compiler.ir.ops import AffineForOp, FuncOp


def gemm_view(roles: Sequence[str], trips: Sequence[int],
              single: Sequence[bool] | None = None) -> GemmView:
    """The GEMM of one call from the loops' roles and trip counts (both in walk order, outer
    loops first), with the trip count of each role's innermost loop (`GemmView.m_run` ...:
    the loop our ws / is dataflows map onto the array); a loop of one iteration by its
    constant bounds (`single`, from `one_trip_loops`; a 1x1 kernel's r and s) is no loop
    there, one that runs once in this call (a partial tile's last channel) is."""
    ext = {"m": 1, "n": 1, "k": 1, "batch": 1, "": 1}
    run = {"m": 0, "n": 0, "k": 0, "batch": 0, "": 0}
    for i, (role, trip) in enumerate(zip(roles, trips, strict=True)):
        ext[role] *= trip
        if not (single[i] if single is not None else trip == 1):
            run[role] = trip
    return GemmView(ext["m"], ext["n"], ext["k"], ext["batch"], run["m"], run["n"], run["k"])


def one_trip_loops(func: FuncOp) -> tuple[bool, ...]:
    """Per `affine.for` of `func` in walk order: whether its constant bounds make it run once."""
    return tuple(op.constant_trip_count == 1 for op in func.walk() if isinstance(op, AffineForOp))


__all__ = ["clear_caches", "gemm_view", "loop_roles", "one_trip_loops"]
