"""Exposed reads: the elements of a memref that some load in a range of ops reads before any
op of the same execution of that range wrote them (isl value-based dataflow).

The copy pass asks it (`affine-data-copy-generate`) whether a fast buffer needs its copy-in:
when no read is exposed and the range's stores write every element of the accessed bounding
box (the copy-out moves the whole box back), no value from before the range is ever seen
and the copy-in is dead (an accumulator initialized in place: a pool's running max, a
row sum started at 0). The tile search's model (`accelsim.compile.tile_model`) asks the same
question of one tile of the untiled band (`tiles`), so both count the same copies.

One execution of the range: the IVs of the loops around it are parameters (each value is
one execution); with `tiles`, the listed loops inside the range are cut into tiles of the
given number of iterations and the tile origins are parameters too (one execution per
tile: the copy point of a tiled band). The order inside an execution is the program's: a
schedule `[position, iv or branch, position, ...]` per access, compared lexicographically
(`isl.UnionAccessInfo.compute_flow`). Tiling reorders iterations only as its legality
allows (dependences kept), so a read covered by an earlier write in the original order is
covered in the tiled order too, and the answer on the untiled band is the tiled program's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import islpy as isl

from compiler.analysis.access import relation_in_frame
from compiler.analysis.domain import domain_in_frame, enclosing_loops
from compiler.analysis.isl_bridge import AnalysisError, Frame, isl_name
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineForOp, AffineIfOp, AffineLoadOp, AffineStoreOp


def exposed_reads(memref: Value, ops: Sequence[Operation],
                  tiles: Mapping[AffineForOp, int] | None = None) -> isl.Set | None:
    """`[params] -> { M[a] }`: elements of `memref` a load in `ops` (consecutive ops of one
    block, nested included) reads before the same execution of `ops` stored them; None when
    an op touches `memref` other than by affine.load / affine.store (a DMA, an opaque op) or
    an index is outside the analysis (then every read counts as exposed)."""
    found = _accesses(memref, ops, tiles or {})
    if found is None:
        return None
    reads, writes, sched, _ = found
    if reads.is_empty():
        return None
    if writes.is_empty():
        return _one_set(reads.range())
    info = isl.UnionAccessInfo.from_sink(reads).set_must_source(writes).set_schedule_map(sched)
    return _one_set(info.compute_flow().get_may_no_source().range(), reads.range())


def any_read_exposed(memref: Value, ops: Sequence[Operation]) -> bool:
    """`exposed_reads(memref, ops)` is None or not empty (for some value of the parameters),
    without the dataflow where the first access of one execution is a load."""
    found = _accesses(memref, ops, {})
    if found is None:
        return True
    reads, writes, sched, ctx = found
    if reads.is_empty() or writes.is_empty() or _first_access_reads(reads, sched, ctx):
        return True
    info = isl.UnionAccessInfo.from_sink(reads).set_must_source(writes).set_schedule_map(sched)
    return not _one_set(info.compute_flow().get_may_no_source().range(), reads.range()).is_empty()


def copy_in_needed(memref: Value, ops: Sequence[Operation],
                   tiles: Mapping[AffineForOp, int] | None = None) -> bool:
    """Does a fast buffer of `memref` for `ops` need its copy-in? False only when no read is
    exposed (`exposed_reads` empty) and the stores of one execution write every element of
    the bounding box of its accesses (a whole-box copy-out then leaves nothing stale)."""
    found = _accesses(memref, ops, tiles or {})
    if found is None:
        return True
    reads, writes, sched, ctx = found
    if reads.is_empty():
        return False
    if writes.is_empty() or _first_access_reads(reads, sched, ctx):
        return True
    info = isl.UnionAccessInfo.from_sink(reads).set_must_source(writes).set_schedule_map(sched)
    exposed = info.compute_flow().get_may_no_source().range()
    if not exposed.intersect_params(ctx).is_empty():
        return True
    touched = _one_set(reads.range().union(writes.range())).intersect_params(ctx)
    written = _one_set(writes.range()).intersect_params(ctx)
    return not _box(touched).intersect_params(ctx).is_subset(written)


def _first_access_reads(reads: isl.UnionMap, sched: isl.UnionMap, ctx: isl.Set) -> bool:
    """A cheap sufficient test that some read is exposed (the dataflow is not needed then): in
    one execution (the parameters fixed at one point of `ctx`), the first access instance in
    program order is a load, so no store precedes it. Schedule vectors of distinct statement
    instances differ (the block positions tell statements apart), so the first one is a read's
    exactly when it is in the reads' schedule image. False says nothing."""
    point = ctx.sample_point()
    if point.is_void():
        return False
    fixed = isl.Set.from_point(point)
    first = _one_set(sched.range()).intersect_params(fixed).lexmin()
    read_at = _one_set(sched.intersect_domain(reads.domain()).range()).intersect_params(fixed)
    return not first.intersect(read_at).is_empty()


def _accesses(memref: Value, ops: Sequence[Operation], tiles: Mapping[AffineForOp, int]
              ) -> tuple[isl.UnionMap, isl.UnionMap, isl.UnionMap, isl.Set] | None:
    """(reads, writes, schedule) of the statement instances of `ops` touching `memref`, and
    the parameters' context (the outer loops' domain)."""
    from compiler.analysis.region import region_context

    if not ops:
        return None
    outer = enclosing_loops(ops[0])
    outer_ivs = [lp.iv for lp in outer]
    accs: list[Operation] = []
    for root in ops:
        for op in root.walk():
            touches = any(v is memref for v in op.operands)
            if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref:
                if any(v is memref for v in getattr(op, "indices", ())):
                    return None
                accs.append(op)
            elif touches:
                return None  # a DMA side, a call or an opaque op: not modelled here
    try:
        ctx, _ = region_context(list(ops), outer)
        reads = writes = sched = None
        top = {id(op): k for k, op in enumerate(ops)}
        for k, op in enumerate(accs):
            chain = _chain(op, top)
            loops = [a for a, _ in chain if isinstance(a, AffineForOp)]
            frame = Frame([lp.iv for lp in loops], outer_ivs)
            dom = domain_in_frame(op, frame)
            for lp, size in tiles.items():
                if any(lp is x for x in loops):
                    dom = dom.intersect(_tile(frame, loops.index(lp), lp, size))
            name = f"S{k}"
            rel = relation_in_frame(op, "", frame, dom).set_tuple_name(isl.dim_type.in_, name)
            s = _schedule(frame, dom, chain, op, top, name)
            umap = isl.UnionMap.from_map(rel)
            if isinstance(op, AffineStoreOp):
                writes = umap if writes is None else writes.union(umap)
            else:
                reads = umap if reads is None else reads.union(umap)
            sched = isl.UnionMap.from_map(s) if sched is None else sched.union(isl.UnionMap.from_map(s))
    except (AnalysisError, isl.Error):
        return None
    if sched is None:
        return None
    empty = isl.UnionMap.empty(sched.get_space())
    return (empty if reads is None else reads, empty if writes is None else writes, sched, ctx)


def _chain(op: Operation, top: Mapping[int, int]) -> list[tuple[Operation, int]]:
    """The ancestors of `op` from the range's root down, each with its position in its block
    (the root: its position in the range)."""
    out: list[tuple[Operation, int]] = []
    cur: Operation | None = op.parent_op
    path = [op]
    while cur is not None and id(path[-1]) not in top:
        path.append(cur)
        cur = cur.parent_op
    path.reverse()
    for a in path:
        pos = top[id(a)] if id(a) in top else _position(a)
        out.append((a, pos))
    return out


def _position(op: Operation) -> int:
    block = op.parent_block
    assert block is not None
    return block.index_of(op)


def _schedule(frame: Frame, dom: isl.Set, chain: Sequence[tuple[Operation, int]], op: Operation,
              top: Mapping[int, int], name: str) -> isl.Map:
    """`{ S[ivs] -> [p0, x0, p1, x1, ..., pn, 0, ...] }`: positions in blocks and, per loop,
    its IV (per affine.if: 0 in the then block, 1 in the else block), padded to a common
    length (`_DEPTH` levels) with zeros."""
    dims = [isl_name(v) for v in frame.dims]
    terms: list[str] = []
    for k, (a, pos) in enumerate(chain):
        terms.append(str(pos))
        if a is op:
            break
        if isinstance(a, AffineForOp):
            terms.append(isl_name(a.iv))
        elif isinstance(a, AffineIfOp):
            child = chain[k + 1][0]
            terms.append("1" if child.parent_block is a.else_block else "0")
        else:
            terms.append("0")
    if len(terms) > 2 * _DEPTH + 1:
        raise AnalysisError("nesting deeper than the exposed-reads schedule models")
    terms += ["0"] * (2 * _DEPTH + 1 - len(terms))
    params = sorted({dom.get_dim_name(isl.dim_type.param, i)
                     for i in range(dom.dim(isl.dim_type.param))})
    text = (f"[{', '.join(params)}] -> {{ {name}[{', '.join(dims)}] -> "
            f"[{', '.join(terms)}] }}")
    return isl.Map(text).intersect_domain(dom.set_tuple_name(name))


_DEPTH = 24


def _tile(frame: Frame, k: int, lp: AffineForOp, size: int) -> isl.Set:
    """One tile of `size` iterations of loop `lp` (frame dim `k`) per value of a new
    parameter, its origin: `origin = lb + m * size * step` (m >= 0) and
    `origin <= iv <= origin + (size - 1) * step`, as `affine-loop-tile` cuts the loop."""
    ctx = frame.space.get_ctx()
    iv = frame.dim(k)
    lb = frame.map_results(lp.lower_map, lp.lower_operands)
    if len(lb) != 1:
        raise AnalysisError("a tiled loop with a max of lower bounds")
    name = f"tile_{isl_name(lp.iv)}"
    sp = isl.Space.create_from_names(ctx, set=[isl_name(d) for d in frame.dims], params=[name])
    origin = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(sp), isl.dim_type.param, 0)
    iv = iv.align_params(sp)
    origin = origin.align_params(iv.get_space())
    low = lb[0].align_params(iv.get_space())
    span = isl.PwAff.val_on_domain(iv.domain(), isl.Val.int_from_si(ctx, (size - 1) * lp.step))
    zero = isl.PwAff.val_on_domain(iv.domain(), isl.Val.int_from_si(ctx, 0))
    start = origin.ge_set(low).intersect(
        origin.sub(low).mod_val(isl.Val.int_from_si(ctx, size * lp.step)).eq_set(zero))
    return start.intersect(iv.ge_set(origin)).intersect(iv.le_set(origin.add(span)))


def _one_set(u: isl.UnionSet, like: isl.UnionSet | None = None) -> isl.Set:
    """The one set of `u` (the elements of one memref); empty in `like`'s space when `u` is."""
    sets = u.get_set_list()
    if sets.n_set() == 0 and like is not None:
        return isl.Set.empty(like.get_set_list().get_at(0).get_space())
    assert sets.n_set() == 1, f"expected the elements of one memref, got {sets.n_set()} spaces"
    return sets.get_at(0)


def _box(s: isl.Set) -> isl.Set:
    """The bounding box of `s` per dimension, its bounds functions of the parameters (the
    copy pass's region box)."""
    space = s.get_space()
    rank = s.dim(isl.dim_type.set)
    if rank == 0:
        return s
    lo = isl.PwAffList.alloc(s.get_ctx(), rank)
    hi = isl.PwAffList.alloc(s.get_ctx(), rank)
    for d in range(rank):
        proj = s.project_out(isl.dim_type.set, d + 1, rank - d - 1).project_out(isl.dim_type.set, 0, d)
        lo = lo.add(proj.dim_min(0))
        hi = hi.add(proj.dim_max(0))
    box = isl.Set.universe(space).lower_bound_multi_pw_aff(isl.MultiPwAff.from_pw_aff_list(space, lo))
    box = box.upper_bound_multi_pw_aff(isl.MultiPwAff.from_pw_aff_list(space, hi))
    return box.intersect_params(s.params())
