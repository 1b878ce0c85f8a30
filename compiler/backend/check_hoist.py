"""Bounds checks hoisted out of loop nests: one check per nest instead of one per access.

An access whose index is affine (linear, constant coefficients) in the IVs of a rectangular
band of loops around it, and which runs at every point of that band, touches its extremes
at the band's corners: per dimension, the smallest index is reached with every IV at its
first or last value (by the sign of its coefficient) and the largest at the opposite ends.
So the two corner values are checked once, before the band runs, when every loop of the
band has at least one iteration; if they are in bounds, every access is, and the access
goes unchecked inside. Exact: a corner is a point the access really reaches.

Conditions (anything else keeps its per-access check):
- the access sits directly in the innermost loop's body, each loop directly in the next
  (no affine.if in between): it runs at every point of the band;
- the bounds of every band loop, the memref and every index operand that is not a band IV
  are defined outside the band (so all of them can be computed before it);
- each checked index is linear in the band IVs (other operands may appear in any way).

A failure is reported before the band runs, at the access, with the corner's index (an
index the access would reach if the run went on, not necessarily the first one out of
bounds) and says so; nothing of the band has run then. Per-access checks
(`LoweringOptions(hoist_checks=False)`) stop at the first bad access instead.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym
from compiler.ir.core import Operation, OpResult, Value
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp, FuncOp

Access = AffineLoadOp | AffineStoreOp


@dataclass(frozen=True, slots=True)
class HoistedCheck:
    """`access`'s dimensions `dims`, checked before `band` (outer to inner) runs.
    `coeffs[i][j]`: the coefficient of band[j]'s IV in the index of dims[i]."""

    access: Access
    dims: tuple[int, ...]
    band: tuple[AffineForOp, ...]
    coeffs: tuple[tuple[int, ...], ...]


def plan_hoisting(func: FuncOp, to_check: Mapping[Operation, Sequence[int]],
                  not_targets: Collection[AffineForOp] = ()) -> dict[AffineForOp, list[HoistedCheck]]:
    """For each loop, the checks to emit before it (it is the band's outermost loop).
    `to_check`: per load/store, the dimensions that need a run-time check. `not_targets`:
    loops no check may be emitted before (the inner loops of an interchanged band, which
    are not emitted where they stand in the IR)."""
    plan: dict[AffineForOp, list[HoistedCheck]] = {}
    for op, dims in to_check.items():
        if dims and isinstance(op, AffineLoadOp | AffineStoreOp):
            hoisted = _hoist(op, tuple(dims), not_targets)
            if hoisted is not None:
                plan.setdefault(hoisted.band[0], []).append(hoisted)
    return plan


def _hoist(access: Access, dims: tuple[int, ...],
           not_targets: Collection[AffineForOp]) -> HoistedCheck | None:
    """The widest band the checks of `access` can be hoisted over (each wider band is valid
    only if the narrower ones are, so the first failure ends the search)."""
    best: HoistedCheck | None = None
    band: list[AffineForOp] = []  # inner to outer
    node: Operation = access
    while isinstance(node.parent_op, AffineForOp):
        loop = node.parent_op
        band.append(loop)
        outer_first = tuple(reversed(band))
        found = _check_over(access, dims, outer_first)
        if found is None:
            break
        if loop not in not_targets:
            best = found
        node = loop
    return best


def _check_over(access: Access, dims: tuple[int, ...], band: tuple[AffineForOp, ...]
                ) -> HoistedCheck | None:
    target = band[0]
    ivs = {id(loop.iv): j for j, loop in enumerate(band)}
    if not _outside(access.memref, target):
        return None
    for loop in band:
        if not all(_outside(v, target) for v in (*loop.lower_operands, *loop.upper_operands)):
            return None
    operands = list(access.indices)
    band_pos: dict[int, int] = {}  # map position -> band index of the IV bound there
    for pos, v in enumerate(operands):
        if id(v) in ivs:
            band_pos[pos] = ivs[id(v)]
        elif not _outside(v, target):
            return None
    m = access.map
    coeffs = []
    for d in dims:
        lin = linear_coefficients(m.results[d], m.num_dims, set(band_pos))
        if lin is None:
            return None
        per_iv = [0] * len(band)
        for pos, c in lin.items():
            per_iv[band_pos[pos]] += c
        coeffs.append(tuple(per_iv))
    return HoistedCheck(access, dims, band, tuple(coeffs))


def linear_coefficients(e: AffineExpr, num_dims: int, positions: set[int]) -> dict[int, int] | None:
    """The coefficient of each operand position of `positions` (dims first, then symbols) in
    `e`, or None when one of them appears other than linearly. Positions outside the set
    may appear in any way (they are constant over the band)."""
    if isinstance(e, Const):
        return {}
    if isinstance(e, Dim | Sym):
        pos = e.pos if isinstance(e, Dim) else num_dims + e.pos
        return {pos: 1} if pos in positions else {}
    assert isinstance(e, Binary)
    lhs = linear_coefficients(e.lhs, num_dims, positions)
    rhs = linear_coefficients(e.rhs, num_dims, positions)
    if lhs is None or rhs is None:
        return None
    if e.kind == "add":
        out = dict(lhs)
        for p, c in rhs.items():
            out[p] = out.get(p, 0) + c
        return out
    if not lhs and not rhs:
        return {}  # a product or quotient of values constant over the band
    if e.kind == "mul":
        if isinstance(e.rhs, Const):
            return {p: c * e.rhs.value for p, c in lhs.items()}
        if isinstance(e.lhs, Const):
            return {p: c * e.lhs.value for p, c in rhs.items()}
    return None


def _outside(v: Value, loop: AffineForOp) -> bool:
    """`v` is defined outside `loop` (not by an op in it, not one of its block arguments)."""
    owner: Operation | None = v.owner if isinstance(v, OpResult) else v.block.parent_op  # type: ignore[attr-defined]
    while owner is not None:
        if owner is loop:
            return False
        owner = owner.parent_op
    return True
