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


def gemm_view(roles: Sequence[str], trips: Sequence[int]) -> GemmView:
    """The GEMM of one call from the loops' roles and trip counts (both in walk order, outer
    loops first), with the trip count of each role's innermost loop of more than one trip
    (`GemmView.m_run` ...: the loop our ws / is dataflows map onto the array)."""
    ext = {"m": 1, "n": 1, "k": 1, "batch": 1, "": 1}
    run = {"m": 0, "n": 0, "k": 0, "batch": 0, "": 0}
    for role, trip in zip(roles, trips, strict=True):
        ext[role] *= trip
        if trip > 1:
            run[role] = trip
    return GemmView(ext["m"], ext["n"], ext["k"], ext["batch"], run["m"], run["n"], run["k"])


__all__ = ["clear_caches", "gemm_view", "loop_roles"]
