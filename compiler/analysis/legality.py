"""Legality queries the loop transforms ask: parallel loops, permutable bands, op-wise shifts.

Conservative where the analysis cannot see: a `func.call` taking a memref, or a loop
carrying values through iter_args, is treated as a dependence.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import islpy as isl

from compiler.analysis.access import op_accesses
from compiler.analysis.dependence import (
    Dependence,
    _Cache,
    access_dependence,
    all_dependences,
    common_loops,
    loop_depth,
    precedes,
)
from compiler.ir.core import Operation
from compiler.ir.ops import AffineForOp, AffineParallelOp, CallOp, OpaqueOp
from compiler.ir.types import MemRefType


def opaque_memory_op(root: Operation) -> Operation | None:
    """An op the dependence analysis does not model: a call or an unregistered op taking a
    memref, or an affine.parallel band (its IVs are not loop dims to the analysis)."""
    for op in root.walk():
        if isinstance(op, AffineParallelOp):
            return op
        if isinstance(op, CallOp | OpaqueOp) and any(isinstance(v.type, MemRefType)
                                                     for v in op.operands):
            return op
    return None


def is_parallel(loop: AffineForOp) -> bool:
    """No dependence is carried by `loop` (input dependences do not count)."""
    if loop.inits or opaque_memory_op(loop) is not None:
        return False
    depth = loop_depth(loop)
    return not any(d.depth == depth for d in all_dependences(loop, min_depth=depth))


def band_violation(loops: Sequence[AffineForOp]) -> Dependence | None:
    """The first dependence with a negative (or unknown) component inside the band, if any.

    Dependences carried outside the band (by an enclosing loop) never block it.
    """
    if not loops:
        return None
    for outer, inner in pairwise(loops):
        if inner.parent_block is not outer.body:
            raise ValueError(f"loops do not form a nested band: {inner.NAME} at {inner.loc} is "
                             f"not directly in the body of the loop at {outer.loc}")
    start = loop_depth(loops[0]) - 1  # 0-based component of the band's outer loop
    band = range(start, start + len(loops))
    for dep in all_dependences(loops[0], min_depth=start + 1):
        for k in band:
            if k >= len(dep.components):
                break
            lo = dep.components[k][0]
            if lo is None or lo < 0:
                return dep
    return None


def is_band_permutable(loops: Sequence[AffineForOp]) -> bool:
    """Every dependence not carried outside the band is non-negative in all band loops."""
    if any(lp.inits for lp in loops) or (loops and opaque_memory_op(loops[0]) is not None):
        return False
    return band_violation(loops) is None


def shift_violation(loop: AffineForOp, shifts: Sequence[int]) -> str | None:
    """Why shifting each op of `loop.body` by `shifts[k]` iterations breaks the program, or None.

    Op k's instance of iteration i moves to iteration i + shifts[k] (MLIR's body skew). SSA:
    a value and its uses inside the body must shift together (MLIR isOpwiseShiftValid). Memory:
    for every dependence from op a to op b carried by `loop` with minimum distance `d`
    iterations, `d + shift[b] - shift[a]` must stay > 0 (or = 0 with a textually first); for
    a loop-independent one, `shift[b] >= shift[a]`.
    """
    body = loop.body.ops
    n_real = len(body) - (1 if loop.body.terminator is not None else 0)
    if len(shifts) not in (len(body), n_real):
        raise ValueError(f"expected one shift per op of the loop body ({len(body)} ops), "
                         f"got {len(shifts)}")
    if any(s < 0 for s in shifts):
        raise ValueError(f"shifts must be non-negative, got {list(shifts)}")
    owner: dict[int, int] = {}
    for k, op in enumerate(body[:n_real]):
        for nested in op.walk():
            for r in nested.results:
                owner[id(r)] = k
            for blk in nested.blocks:
                for a in blk.args:
                    owner[id(a)] = k
    for k, op in enumerate(body[:n_real]):
        for nested in op.walk():
            for v in nested.operands:
                j = owner.get(id(v))
                if j is not None and j != k and shifts[j] != shifts[k]:
                    return (f"{op.NAME} at {op.loc} (shift {shifts[k]}) uses a value defined by "
                            f"{body[j].NAME} at {body[j].loc} (shift {shifts[j]})")
    if loop.inits:
        return "the loop carries values through iter_args"
    depth = loop_depth(loop)
    cache = _Cache()
    accs = [(k, a) for k, op in enumerate(body[:n_real]) for nested in op.walk()
            for a in op_accesses(nested)]
    for i, sa in accs:
        for j, da in accs:
            if i == j or sa.memref is not da.memref or not (sa.is_write or da.is_write):
                continue
            if shifts[j] >= shifts[i]:
                # the target moves at least as far as the source: a carried dependence keeps
                # a distance >= 1 iteration, a same-iteration one stays in order
                continue
            n = len(common_loops(sa.op, da.op))
            if n < depth:
                continue
            # carried by `loop`: minimum distance in iterations
            dep = access_dependence(sa, da, depth, cache)
            if dep is not None:
                lo = dep.components[depth - 1][0]
                if lo is None:
                    return f"{dep} has an unbounded distance"
                slack = lo // loop.step + shifts[j] - shifts[i]
                if slack < 0 or (slack == 0 and i > j):
                    return f"shifting reverses the {dep}"
            # same iteration of `loop` (and of every enclosing loop), src first
            if i < j and precedes(sa.op, da.op):
                same = access_dependence(sa, da, depth + 1, cache) if n == depth else None
                if same is not None:
                    return f"shifting reverses the {same}"
    return None


def is_valid_shift(loop: AffineForOp, shifts: Sequence[int]) -> bool:
    """One shift per op of `loop.body` (the terminator's may be omitted); see shift_violation."""
    return shift_violation(loop, shifts) is None


def tiling_violation(loops: Sequence[AffineForOp], sizes: Sequence[int]) -> Dependence | None:
    """A dependence that rectangular tiling of the band with `sizes` would reverse, or None.

    Exact (isl): the tiled order is lexicographic on (tile indices, band IVs); a dependence
    is broken when its destination comes first in that order. Unlike permutability this
    accepts e.g. a reduction loop whose single tile spans its whole range. Bands whose lower
    bounds are not constants are judged by permutability alone.
    """
    first = band_violation(loops)
    if first is None:
        return None
    if len(sizes) != len(loops):
        raise ValueError(f"expected {len(loops)} tile sizes, got {len(sizes)}")
    lbs = [lp.constant_lower for lp in loops]
    if any(lb is None for lb in lbs):
        return first
    start = loop_depth(loops[0]) - 1
    n = len(loops)
    for dep in all_dependences(loops[0], min_depth=start + 1):
        if all(lo is not None and lo >= 0 for lo, _ in dep.components[start:start + n]):
            continue
        rel = dep.relation
        n_src = rel.dim(isl.dim_type.in_)
        # [symbols] -> { [src ivs, dst ivs] }
        pairs = rel.wrap()
        ls = isl.LocalSpace.from_space(pairs.get_space())

        def var(pos: int, ls: isl.LocalSpace = ls) -> isl.PwAff:
            return isl.PwAff.var_on_domain(ls, isl.dim_type.set, pos)

        src_key, dst_key = [], []
        for side, key in ((0, src_key), (n_src, dst_key)):
            for k, lp in enumerate(loops):
                x = var(side + start + k)
                tile = x.add_constant_val(isl.Val.int_from_si(x.get_ctx(), -int(lbs[k])))  # type: ignore[arg-type]
                key.append(tile.scale_down_val(isl.Val.int_from_si(x.get_ctx(), lp.step * sizes[k])).floor())
            for k in range(n):
                key.append(var(side + start + k))
        same_band = pairs
        for k in range(n):
            same_band = same_band.intersect(var(start + k).eq_set(var(n_src + start + k)))
        broken = pairs.subtract(same_band)
        # dst strictly before src in (tile indices, band IVs) order
        before = pairs.intersect(dst_key[0].lt_set(src_key[0]))
        prefix = pairs
        for m in range(1, len(src_key)):
            prefix = prefix.intersect(dst_key[m - 1].eq_set(src_key[m - 1]))
            before = before.union(prefix.intersect(dst_key[m].lt_set(src_key[m])))
        if not broken.intersect(before).is_empty():
            return dep
    return None
