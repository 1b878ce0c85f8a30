"""Legality queries the loop transforms ask: parallel loops, permutable bands, op-wise shifts.

Conservative where the analysis cannot see: a `func.call` taking a memref, or a loop
carrying values through iter_args, is treated as a dependence.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

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
from compiler.analysis.isl_bridge import AnalysisError
from compiler.analysis.tiling_order import TiledStatement, TileGrid, reversed_dependence
from compiler.ir.core import BlockArgument, Operation, OpResult, Value
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
                # slack 0: both land in the same time step, where the groups run in ascending
                # shift order, so the target (the smaller shift here) runs first
                if slack <= 0:
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

    Exact (isl): the tiled order is lexicographic on (tile indices, band IVs), the tile index
    of IV `i` being `floor((i - lb) / (step * size))` with `lb` the loop's lower bound (the max
    of its results), an affine function of the loops around the band and of symbols (e.g. the
    tile IVs of an outer level of tiling); a dependence is broken when its destination comes
    first in that order. Unlike permutability this accepts e.g. a reduction loop whose single
    tile spans its whole range. Where the tile index cannot be modelled (a lower bound using
    an IV of the band itself, a semi-affine bound) the band is judged by permutability alone.
    """
    first = band_violation(loops)
    if first is None:
        return None
    if len(sizes) != len(loops):
        raise ValueError(f"expected {len(loops)} tile sizes, got {len(sizes)}")
    root = loops[0]
    if any(_defined_in(v, root) for lp in loops for v in lp.lower_operands):
        return first
    start = loop_depth(root) - 1
    n = len(loops)
    # a dependence non-negative on every band loop keeps its order under any rectangular tiling
    suspects = [dep for dep in all_dependences(root, min_depth=start + 1)
                if not all(lo is not None and lo >= 0 for lo, _ in dep.components[start:start + n])]
    body = tuple(op for op in loops[-1].body.ops if not op.IS_TERMINATOR)
    grid = tuple(TileGrid(lp, t, aligned=False) for lp, t in zip(loops, sizes, strict=True))
    try:
        return reversed_dependence(suspects, [TiledStatement(body, grid, (0,) * n)])
    except AnalysisError:
        return first


def _defined_in(v: Value, root: Operation) -> bool:
    """`v` is defined inside `root` (an IV of it or of a loop in it, or an op result there)."""
    owner = v.owner if isinstance(v, OpResult) else (
        v.block.parent_op if isinstance(v, BlockArgument) else None)
    return owner is not None and (owner is root or root.is_ancestor_of(owner))
