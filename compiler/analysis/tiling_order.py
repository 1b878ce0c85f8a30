"""Legality of tiling a loop tree (imperfect or triangular nests): the tiled execution order
as a schedule per statement, checked exactly (isl) against every dependence.

A tiled tree runs each statement (a group of ops executed atomically per iteration of the
tree loops around it, its `path`) at the key

    (tau_0, pos_0, tau_1, pos_1, ..., tau_d, pos_d, i_0, ..., i_d)

where `i_k` is the IV of path loop k, `tau_k` its tile index and `pos_k` the index, among the
children of path loop k, of the child holding the statement: tile loops nest like the
original loops, the children of a loop keep their order inside each of its tiles, and every
statement has its own intra-tile loops over its path. Tiling is legal iff no dependence
(src before dst in the original order) has its destination strictly before its source in
key order; two instances with equal keys are one statement instance (its ops keep their
order). Keys of different statements differ at the first `pos` where their paths part, so
padding them to one length never decides a comparison.

The same question decides fusion: statements of several nests put under shared loops are
statements whose paths list their own loops in the shared loops' order (a permutation, e.g.
mvt's second nest fused interchanged), with tile size 1 for loops fused but not tiled.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.dependence import Dependence, all_dependences
from compiler.analysis.domain import domain_frame
from compiler.analysis.isl_bridge import CTX, AnalysisError
from compiler.ir.core import Operation
from compiler.ir.ops import AffineForOp


@dataclass(frozen=True, slots=True)
class TileGrid:
    """How one loop is cut into tiles of `size` iterations: from its lower bound (`aligned`
    False: the tile loop keeps the loop's bounds, tile k starts at lb + k*step*size) or on
    multiples of step*size (`aligned` True: for bounds that depend on outer IVs)."""

    loop: AffineForOp
    size: int
    aligned: bool


@dataclass(frozen=True, slots=True)
class TiledStatement:
    """Ops run as one statement at each iteration of `path` (loops around them, in the order
    of the tiled or fused loops they map to: for a tiled tree the outermost loops, outer to
    inner); `positions[k]` is the index of the child of `path[k]` that holds the statement."""

    ops: tuple[Operation, ...]
    path: tuple[TileGrid, ...]
    positions: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.positions) != len(self.path):
            raise ValueError(f"expected one position per path loop ({len(self.path)}), "
                             f"got {len(self.positions)}")


def _schedule(op: Operation, st: TiledStatement, length: int) -> isl.Map:
    """`[symbols] -> { [ivs of op] -> [key] }` on the op's domain, padded to `length`."""
    frame, dom = domain_frame(op)
    where: list[int] = []
    for g in st.path:
        k = next((j for j, v in enumerate(frame.dims) if v is g.loop.iv), None)
        if k is None:
            raise AnalysisError(f"{op.NAME} at {op.loc} is not nested in the tiled loops of its "
                                "statement", op.loc)
        where.append(k)
    parts: list[isl.PwAff] = []
    for n, (k, g) in enumerate(zip(where, st.path, strict=True)):
        iv = frame.dim(k)
        span = isl.Val.int_from_si(CTX, g.loop.step * g.size)
        if g.aligned:
            tau = iv.scale_down_val(span).floor()
        else:
            lbs = frame.map_results(g.loop.lower_map, g.loop.lower_operands)
            lb = lbs[0]
            for other in lbs[1:]:
                lb = lb.max(other)
            tau = iv.sub(lb).scale_down_val(span).floor()
        parts += [tau, frame.constant(st.positions[n])]
    parts += [frame.dim(k) for k in where]
    parts += [frame.constant(0)] * (length - len(parts))
    sched = isl.Map.from_pw_aff(parts[0])
    for p in parts[1:]:
        sched = sched.flat_range_product(isl.Map.from_pw_aff(p))
    # [symbols] -> { [ivs] -> [tau_0, pos_0, ..., i_0, ...] }
    return sched.intersect_domain(dom)


def tiled_order_violation(roots: AffineForOp | Sequence[AffineForOp],
                          statements: Sequence[TiledStatement]) -> Dependence | None:
    """The first dependence among the accesses in `roots` (one nest, or the nests being fused,
    in program order) that the tiled order reverses.

    Every access op in `roots` must belong to one statement (be one of its ops or nested in
    one). Raises AnalysisError where the accesses cannot be modelled.
    """
    return reversed_dependence(
        all_dependences(roots if isinstance(roots, AffineForOp) else list(roots)), statements)


def reversed_dependence(deps: Iterable[Dependence],
                        statements: Sequence[TiledStatement]) -> Dependence | None:
    """The first of `deps` whose destination the tiled order puts strictly before its source.

    The keys cover the statements' path loops only: loops around them must be equal on both
    ends of each dependence (deps carried inside them), as they are for every dependence of
    `all_dependences(roots)` when the paths start at the outermost loop of `roots`, or of
    `all_dependences(band, min_depth=loop_depth(band))` for a band nested in other loops.
    Every access op of `deps` must belong to one statement. Raises AnalysisError where a
    bound or an access cannot be modelled.
    """
    owner: dict[int, TiledStatement] = {}
    for st in statements:
        for top in st.ops:
            for o in top.walk():
                owner[id(o)] = st
    length = max((3 * len(st.path) for st in statements), default=0)
    scheds: dict[int, isl.Map] = {}

    def sched(op: Operation) -> isl.Map:
        m = scheds.get(id(op))
        if m is None:
            st = owner.get(id(op))
            if st is None:
                raise AnalysisError(f"{op.NAME} at {op.loc} belongs to no tiled statement", op.loc)
            m = scheds[id(op)] = _schedule(op, st, length)
        return m

    for dep in deps:
        s_src, s_dst = sched(dep.src), sched(dep.dst)
        s_src = s_src.align_params(s_dst.get_space())
        s_dst = s_dst.align_params(s_src.get_space())
        # { [src ivs] -> [dst ivs] : key(src) > key(dst) }
        reversed_ = s_src.lex_gt_map(s_dst)
        rel = dep.relation
        rel = rel.align_params(reversed_.get_space())
        reversed_ = reversed_.align_params(rel.get_space())
        if not rel.intersect(reversed_).is_empty():
            return dep
    return None
