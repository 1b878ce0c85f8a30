"""Choose loop orders for the host: move a unit-stride loop innermost so LLVM can vectorize.

LLVM does not vectorize an innermost float reduction without fast-math (`C[i,j] += A[i,k] *
B[k,j]` over k) and has no outer-loop vectorizer in its default pipeline; gcc -O3 gets there by
interchange. We do the same, only where it is provably legal: the loops from the chosen one
down to the innermost form a rectangular perfect band, and moving the chosen loop innermost
keeps every dependence's direction (isl dependences from compiler.analysis), so each memory
location sees the same sequence of reads and writes as before: results stay bit-identical.

The lowering emits the loops in the planned order; the IR is not modified.
"""

from __future__ import annotations

from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Block, Operation, OpResult, Value
from compiler.ir.ops import (
    AffineApplyOp,
    AffineForOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    AffineYieldOp,
    FuncOp,
)

MIN_TRIP = 8  # a loop shorter than this is not worth vectorizing
_SIMPLE = (AffineLoadOp, AffineStoreOp, AffineApplyOp, AffineMinOp, AffineMaxOp, AffineYieldOp)


def plan_interchanges(func: FuncOp) -> dict[AffineForOp, list[AffineForOp]]:
    """For each band to reorder: its outermost loop -> the band's loops in the new order."""
    plan: dict[AffineForOp, list[AffineForOp]] = {}
    for op in func.walk():
        if isinstance(op, AffineForOp) and _is_band_head(op):
            order = _plan_band(_perfect_band(op))
            if order is not None:
                plan[order[1][0]] = order[0]
    return plan


def _is_band_head(loop: AffineForOp) -> bool:
    parent = loop.parent_op
    return not (isinstance(parent, AffineForOp) and _only_child(parent) is loop)


def _only_child(loop: AffineForOp) -> AffineForOp | None:
    ops = [op for op in loop.body.ops if not isinstance(op, AffineYieldOp)]
    if len(ops) == 1 and isinstance(ops[0], AffineForOp) and not loop.inits:
        return ops[0]
    return None


def _perfect_band(head: AffineForOp) -> list[AffineForOp]:
    band = [head]
    while (child := _only_child(band[-1])) is not None:
        band.append(child)
    return band


def _plan_band(band: list[AffineForOp]) -> tuple[list[AffineForOp], list[AffineForOp]] | None:
    """(new order of the sub-band, the sub-band in original order) or None to keep it."""
    inner = band[-1]
    if len(band) < 2 or inner.inits or not _simple_body(inner.body):
        return None
    accesses = [op for op in inner.body.ops if isinstance(op, AffineLoadOp | AffineStoreOp)]
    if not accesses or _vectorizable(inner, accesses):
        return None
    for pos in range(len(band) - 2, -1, -1):
        cand = band[pos]
        trip = cand.constant_trip_count
        if (trip is not None and trip < MIN_TRIP) or not _vectorizable(cand, accesses):
            continue
        sub = band[pos:]
        if not _rectangular(sub) or not _can_sink(sub):
            continue
        return [*sub[1:], cand], sub
    return None


def _simple_body(block: Block) -> bool:
    """Straight-line scalar code: loads, stores, index and arith/math ops only."""
    return all(isinstance(op, _SIMPLE) or op.NAME.startswith(("arith.", "math.")) for op in block.ops)


def _vectorizable(loop: AffineForOp, accesses: list[Operation]) -> bool:
    """Every access is invariant in `loop` or unit-stride in it, and no store is invariant
    (an invariant store is a reduction, which LLVM only vectorizes with fast-math)."""
    for op in accesses:
        assert isinstance(op, AffineLoadOp | AffineStoreOp)
        kind = _stride_kind(op.map, op.indices, loop.iv)
        if kind == "other" or (kind == "invariant" and isinstance(op, AffineStoreOp)):
            return False
    return True


def _stride_kind(m: AffineMap, operands: list[Value], iv: Value) -> str:
    """'invariant', 'unit' (iv only in the last index, coefficient 1) or 'other'."""
    positions = [k for k, v in enumerate(operands) if v is iv]
    if not all(v is iv or _independent(v, iv) for v in operands):
        return "other"
    if not positions:
        return "invariant"
    if len(positions) != 1 or positions[0] >= m.num_dims:
        return "other"
    coeffs = []
    for r in m.results:
        if not r.uses_dim(positions[0]):
            coeffs.append(0)
            continue
        lin = r.linear_coeffs(m.num_dims, m.num_symbols)
        if lin is None:
            return "other"
        coeffs.append(lin[0][positions[0]])
    return "unit" if coeffs and coeffs[-1] == 1 and not any(coeffs[:-1]) else "other"


def _independent(v: Value, iv: Value) -> bool:
    """v does not vary with `iv`: a block argument (function argument, or the IV of another loop
    of a rectangular band) or a result computed outside `iv`'s loop."""
    if not isinstance(v, OpResult):
        return True
    loop = iv.block.parent_op  # type: ignore[attr-defined]
    return not loop.is_ancestor_of(v.owner)


def _rectangular(sub: list[AffineForOp]) -> bool:
    """No loop's bounds use another sub-band loop's IV (any order then has the same domain)."""
    ivs = {id(lp.iv) for lp in sub}
    return all(id(v) not in ivs for lp in sub for v in (*lp.lower_operands, *lp.upper_operands))


def _pinned(m: AffineMap, operands: list[Value], ivs: set[int], outer_iv: Value) -> set[int]:
    """Band IVs whose value this index determines: a result `±iv + (terms fixed while the
    band runs)`; `outer_iv` is the IV of the band's outermost loop."""
    pinned: set[int] = set()
    for r in m.results:
        lin = r.linear_coeffs(m.num_dims, m.num_symbols)
        if lin is None:
            continue
        coeffs = [*lin[0], *lin[1]]
        band_terms = [(id(v), c) for v, c in zip(operands, coeffs) if c and id(v) in ivs]
        varying = [v for v, c in zip(operands, coeffs) if c and id(v) not in ivs
                   and not _independent(v, outer_iv)]
        if len(band_terms) == 1 and abs(band_terms[0][1]) == 1 and not varying:
            pinned.add(band_terms[0][0])
    return pinned


def _sink_is_obviously_legal(sub: list[AffineForOp]) -> bool:
    """Cheap sufficient test: every pair of accesses to one memref, one of them a store, uses
    the same index map and operands and that index pins the sunk loop's IV, so every
    dependence has distance 0 in that loop."""
    ivs = {id(lp.iv) for lp in sub}
    cand = id(sub[0].iv)
    accesses = [op for op in sub[-1].body.ops if isinstance(op, AffineLoadOp | AffineStoreOp)]
    for a in accesses:
        if not isinstance(a, AffineStoreOp):
            continue
        for b in accesses:
            if b.memref is not a.memref:
                continue
            if b.map != a.map or list(b.indices) != list(a.indices):
                return False
            if cand not in _pinned(a.map, list(a.indices), ivs, sub[0].iv):
                return False
    return True


def _can_sink(sub: list[AffineForOp]) -> bool:
    """Moving sub[0] below the other loops of `sub` keeps every dependence's direction.

    Per dependence not carried outside `sub` (distances in sub order `(d0, rest...)`): if d0 is
    always 0, the new vector `(rest..., 0)` is as lexicographically positive as `(0, rest...)`
    was; if every component is >= 0, any order of them is. Otherwise refuse."""
    if _sink_is_obviously_legal(sub):
        return True
    import islpy as isl

    from compiler.analysis.isl_bridge import AnalysisError

    try:
        from compiler.analysis import all_dependences, loop_depth

        start = loop_depth(sub[0]) - 1
        for dep in all_dependences(sub[0], min_depth=start + 1):
            comps = dep.components[start:start + len(sub)]
            if comps and comps[0] == (0, 0):
                continue
            if all(lo is not None and lo >= 0 for lo, _ in comps):
                continue
            return False
        return True
    except (AnalysisError, isl.Error):  # the analysis cannot model something: keep the order
        return False
