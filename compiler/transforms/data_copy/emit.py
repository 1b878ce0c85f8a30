"""Emitting the copies for one memref region: fast buffer, copy-in, copy-out, DMA or loops.

The buffer is the region's bounding box; element `x` of the memref lives at `x - lower` in
the buffer. Where upstream MLIR is wrong this module is not:
- partial tiles: every transfer is clipped to the memref's shape (`min(lower + E, size)`), in
  DMA form through a clipped element count and, when an inner dimension is clipped, through
  one DMA per outer row (a loop nest) so the buffer keeps its pitch;
- multi-level strides (3-D tiles): a loop nest of single-stride DMAs, never no copy at all;
- sparse writes: when the nest does not write every element of the (clipped) box and the
  buffer was not filled by a copy-in, the copy-out replays the stores' loop nests and writes
  back exactly the elements written (upstream issue #54994); with `exact-copy-out` also a
  box that was read (a cluster's share), and with `exact-copy-in` a copy-in of a box holding
  elements the range never touches replays the loads' nests the same way;
- strided accesses (`lattice` k > 1 on the last dim): the buffer keeps one element in k and the
  DMAs move them with stride k, one element per chunk.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from compiler.diagnostics import Location
from compiler.ir.builder import Constraint, IndexExpr, affine_map_of, integer_set_of
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMinOp,
    AffineStoreOp,
    AffineYieldOp,
    AllocOp,
    DeallocOp,
    FuncOp,
)
from compiler.ir.types import I32, MemRefType
from compiler.transforms.rewrite.index_exprs import const_expr, make_for, map_exprs
from compiler.transforms.rewrite.memref_uses import rewrite_memref
from compiler.transforms.rewrite.structure import PURE_INDEX_OPS, constant_index


@dataclass(frozen=True, slots=True)
class CopySpec:
    """What to copy: a box `lower[d] <= x_d < lower[d] + extents[d]`, clipped to `shape`
    along the dims in `clipped`."""

    memref: Value
    lower: tuple[IndexExpr, ...]
    extents: tuple[int, ...]
    clipped: tuple[bool, ...]
    read: bool
    written: bool
    dense_write: bool           # every element of the clipped box is written
    loc: Location
    lattice: int = 1            # > 1: only every `lattice`-th element of the last dim is used
    # Exclusive upper limit per dim for clipping: the memref's extent, or less when no
    # iteration ever touches the elements above (a stencil writing only the interior).
    limits: tuple[int | None, ...] = ()
    # Per dim, further exclusive upper bounds (affine in the outer IVs): a tile of a buffer
    # of the level above, clipped to the part of it the level above's partial tile holds.
    exact_upper: tuple[tuple[IndexExpr, ...], ...] = ()
    # a box both read and written but not fully written: the copy-out writes back only the
    # stored elements (point-wise) instead of the whole box (`exact-copy-out`)
    exact_out: bool = False
    # a box with elements the range never touches: the copy-in reads only the loaded
    # elements (point-wise) instead of the whole box (`exact-copy-in`)
    exact_in: bool = False
    # > 0: a DMA moves at most this many rows (chunks of a strided transfer), as a DMA engine
    # whose descriptor is limited in rows (Gemmini's mvin: DIM rows); 0: no limit
    max_rows: int = 0

    def limit(self, d: int) -> int | None:
        if self.limits and self.limits[d] is not None:
            return self.limits[d]
        size = self.mtype.shape[d]
        return None if size is None else int(size)

    @property
    def buffer_shape(self) -> tuple[int, ...]:
        """The box, with the last dim compacted to its lattice points."""
        if self.lattice == 1:
            return self.extents
        return (*self.extents[:-1], (self.extents[-1] - 1) // self.lattice + 1)

    def buffer_index(self, idx: Sequence[IndexExpr]) -> list[IndexExpr]:
        out = [x - lo for x, lo in zip(idx, self.lower, strict=True)]
        if self.lattice > 1:
            out[-1] = out[-1] // self.lattice
        return out

    @property
    def mtype(self) -> MemRefType:
        t = self.memref.type
        assert isinstance(t, MemRefType)
        return t

    @property
    def num_elements(self) -> int:
        return math.prod(self.extents)

    def upper(self, d: int) -> list[IndexExpr]:
        ubs = [self.lower[d] + self.extents[d]]
        size = self.limit(d)
        if self.clipped[d] and size is not None:
            ubs.append(const_expr(size))
        if self.exact_upper:
            ubs.extend(self.exact_upper[d])
        return ubs


@dataclass(frozen=True, slots=True)
class Emitted:
    buffer: Value
    buffer_bytes: int
    copy_ops: tuple[Operation, ...]     # roots of the copy code (skipped by later rounds)
    notes: tuple[str, ...]


class Placement:
    """Insertion points: copy-in ops go before `before_op`, copy-out ops after `after_op`
    (both in the same block); deallocs come after every copy-out."""

    def __init__(self, before_op: Operation, after_op: Operation):
        self.block = before_op.parent_block
        assert self.block is not None and after_op.parent_block is self.block
        self.before_op = before_op
        self.after_op = after_op
        self._tail: Operation = after_op     # last copy-out op inserted so far
        self._deallocs: list[Operation] = []

    def put_in(self, op: Operation) -> Operation:
        self.block.insert_before(self.before_op, op)  # type: ignore[union-attr]
        return op

    def put_out(self, op: Operation) -> Operation:
        self.block.insert_after(self._tail, op)  # type: ignore[union-attr]
        self._tail = op
        return op

    def put_dealloc(self, op: Operation) -> None:
        self._deallocs.append(op)

    def finish(self) -> None:
        for op in reversed(self._deallocs):
            self.block.insert_after(self._tail, op)  # type: ignore[union-attr]
        self._deallocs.clear()


def emit_copies(spec: CopySpec, range_ops: Sequence[Operation], place: Placement, func: FuncOp,
                generate_dma: bool, fast_space: int, tag_space: int,
                only: set[int] | None = None, scope: Sequence[Operation] | None = None) -> Emitted:
    """Allocate the fast buffer, copy in/out, and rewrite the accesses in `range_ops`.
    `scope`: the ops the copies are placed around (the range, or the loop they were hoisted
    above), whose accesses a point-wise copy replays."""
    scope = range_ops if scope is None else scope
    mt = spec.mtype
    loc = spec.loc
    buf_t = MemRefType(spec.buffer_shape, mt.element, fast_space)
    alloc = AllocOp(buf_t, loc=loc, name_hint=(spec.memref.name_hint + "_fast") if spec.memref.name_hint
                    else None)
    place.put_in(alloc)
    buf = alloc.result
    copy_ops: list[Operation] = []
    notes: list[str] = []
    if spec.read and spec.exact_in:
        copy_ops += _replay(spec, buf, scope, place, only, loads=True)
        notes.append(f"copy-in of %{spec.memref.name_hint or '?'} reads only the elements the "
                     "nest loads (the box holds others), point-wise")
    elif spec.read:
        copy_ops += _copy(spec, buf, place, func, generate_dma, tag_space, outgoing=False)
    if spec.written:
        if spec.dense_write or (spec.read and not spec.exact_out):
            copy_ops += _copy(spec, buf, place, func, generate_dma, tag_space, outgoing=True)
        else:
            copy_ops += _replay(spec, buf, scope, place, only, loads=False)
            notes.append(f"copy-out of %{spec.memref.name_hint or '?'} writes back only the elements "
                         "the nest stores (the box is not fully written), point-wise")
    # Rewrite the accesses after the copies are built (they address the original memref).
    rewrite_memref(list(range_ops), spec.memref, buf, spec.buffer_index, only=only)
    place.put_dealloc(DeallocOp(buf, loc=loc))
    return Emitted(buf, buf_t.size_bytes, tuple(copy_ops), tuple(notes))


# ---- DMA and point-wise copies ------------------------------------------------------------------

def _copy(spec: CopySpec, buf: Value, place: Placement, func: FuncOp, dma: bool, tag_space: int,
          outgoing: bool) -> list[Operation]:
    put = place.put_out if outgoing else place.put_in
    if not dma:
        nest = _pointwise_nest(spec, buf, outgoing)
        put(nest)
        return [nest]
    return _dma_copy(spec, buf, place, func, tag_space, outgoing)


def _pointwise_nest(spec: CopySpec, buf: Value, outgoing: bool) -> AffineForOp:
    """for x in clipped box: buf[x - lower] = M[x]  (or the reverse for a copy-out)."""
    loops: list[AffineForOp] = []
    parent: Block | None = None
    r = len(spec.extents)
    for d in range(r):
        step = spec.lattice if d == r - 1 else 1
        lp = make_for([spec.lower[d]], spec.upper(d), step, spec.loc)
        if parent is not None:
            parent.insert_before(parent.ops[-1], lp)
        loops.append(lp)
        parent = lp.body
    assert parent is not None
    ivs = [IndexExpr.of(lp.iv) for lp in loops]
    buf_idx = spec.buffer_index(ivs)
    src, src_idx, dst, dst_idx = (buf, buf_idx, spec.memref, ivs) if outgoing else \
        (spec.memref, ivs, buf, buf_idx)
    sm, so = affine_map_of(src_idx)
    load = AffineLoadOp(src, sm, so, loc=spec.loc)
    dm, do = affine_map_of(dst_idx)
    store = AffineStoreOp(load.result, dst, dm, do, loc=spec.loc)
    parent.insert_before(parent.ops[-1], load)
    parent.insert_before(parent.ops[-1], store)
    return loops[0]


def stride_levels(extents: Sequence[int], shape: Sequence[int]) -> list[tuple[int, int, int]]:
    """MLIR's getMultiLevelStrides: (dim, stride, elements per stride), innermost first.

    A dim needs a stride where the box is shorter than the memref along it and holds more than
    one element along the dims outside it. (Upstream looks at the next outer dim only, so a
    box 8x1x256 of a 32x1x513 memref came out as one contiguous run of 2048 elements.)"""
    out = []
    stride, per = 1, 1
    for d in range(len(extents) - 1, 0, -1):
        stride *= shape[d]
        per *= extents[d]
        if extents[d] < shape[d] and math.prod(extents[:d]) > 1:
            out.append((d, stride, per))
    return out


def dma_outer_dims(spec: CopySpec) -> int:
    """How many outer dims a loop must walk so each DMA is single-stride and only its
    outermost dim is clipped (0 = one DMA for the whole box)."""
    shape = [int(s) for s in spec.mtype.shape]  # type: ignore[arg-type]
    r = len(spec.extents)
    if spec.lattice > 1:
        return r - 1                  # one strided (stride = lattice, 1 per chunk) DMA per row
    k_clip = max((d for d in range(r) if spec.clipped[d] and spec.extents[d] > 1), default=0)
    k = k_clip
    while len(stride_levels(spec.extents[k:], shape[k:])) > 1:
        k += 1
    return k


@dataclass(frozen=True, slots=True)
class _Layout:
    """How one copy is cut into DMAs: a loop (unit step) over each dim before `j`, then one
    DMA per block of `rows` rows of dim j (None: one DMA for all its rows), single-stride
    (`level`: (stride, elements per stride) or None when contiguous)."""

    j: int
    rows: int | None
    level: tuple[int, int] | None


def _layout(spec: CopySpec, k: int, shape: Sequence[int]) -> _Layout:
    """The DMAs of a copy whose first `k` dims are walked by loops (`dma_outer_dims`),
    blocks of at most `spec.max_rows` rows (stride chunks) each when the spec limits them."""
    if spec.lattice > 1:
        lv = (spec.lattice, 1) if spec.buffer_shape[-1] > 1 else None
        return _Layout(k, None, lv)
    levels = stride_levels(spec.extents[k:], shape[k:])
    if not levels:
        return _Layout(k, None, None)
    d, st, pe = levels[0]               # chunks run over dims k .. k + d - 1 (sub coordinates)
    level = (st, pe)
    if spec.max_rows <= 0 or math.prod(spec.extents[k:k + d]) <= spec.max_rows:
        return _Layout(k, None, level)
    # the outermost dim j whose inner chunks fit one descriptor, cut into blocks of rows
    j = next(j for j in range(k, k + d) if math.prod(spec.extents[j + 1:k + d]) <= spec.max_rows)
    rows = spec.max_rows // math.prod(spec.extents[j + 1:k + d])
    return _Layout(j, rows if rows < spec.extents[j] else None, level)


def _dma_copy(spec: CopySpec, buf: Value, place: Placement, func: FuncOp, tag_space: int,
              outgoing: bool) -> list[Operation]:
    loc = spec.loc
    shape = [int(s) for s in spec.mtype.shape]  # type: ignore[arg-type]
    r = len(spec.extents)
    k = dma_outer_dims(spec)
    forms = [(spec, _layout(spec, k, shape))]
    full = _full_rows(spec, k)
    if full is not None:
        # rows of dim k clipped: where they are whole (every iteration but a partial tile's)
        # the copy takes the unclipped form, fewer and longer DMAs, under an affine.if
        fspec = full[0]
        forms.insert(0, (fspec, _layout(fspec, dma_outer_dims(fspec), shape)))
    rank = min(r, max(f.j + (f.rows is not None) for _, f in forms))
    tag_shape = tuple(spec.extents[:rank])
    tag_t = MemRefType(tag_shape if any(e > 1 for e in tag_shape) else (1,) * max(1, rank), I32,
                       tag_space)
    tag_alloc = AllocOp(tag_t, loc=loc, name_hint="tag")
    put = place.put_out if outgoing else place.put_in
    put(tag_alloc)
    tag = tag_alloc.result

    def build(sp: CopySpec, lay: _Layout, into: Block, outer_ivs: list[IndexExpr], wait: bool) -> None:
        j = lay.j
        inner = math.prod(sp.extents[j + 1:]) if r - j > 1 else 1
        if lay.rows is None:
            # rows of dim j (clipped) times the full inner sub-box
            count = _count_value(sp, j, inner, outer_ivs, into, func)
            first = sp.lower[j:] if j < r else []
        else:
            # a block of `rows` rows of dim j from the loop's IV, the last one clipped
            b = outer_ivs[-1]
            outer_ivs = outer_ivs[:-1]
            ubs = [x - b for x in sp.upper(j)]
            m, ops = affine_map_of([const_expr(lay.rows * inner), *(u * inner for u in ubs)])
            mn = AffineMinOp(m, ops, loc=loc)
            into.insert_before(into.ops[-1], mn)
            count = mn.result
            first = [b, *sp.lower[j + 1:]]
        mem_idx = [*outer_ivs, *first]
        rel = [x - lo for x, lo in zip(mem_idx, sp.lower, strict=True)]
        buf_idx = sp.buffer_index(mem_idx) if sp.lattice > 1 else rel
        tag_idx = rel[:rank] or [const_expr(0)]
        tm, to = affine_map_of(tag_idx)
        if wait:
            into.insert_before(into.ops[-1], AffineDmaWaitOp(tag, tm, to, count, loc=loc))
            return
        stride = per = None
        if lay.level is not None:
            stride = constant_index(func, lay.level[0], loc)
            per = constant_index(func, lay.level[1], loc)
        mm, mo = affine_map_of(mem_idx)
        bm, bo = affine_map_of(buf_idx)
        if outgoing:
            op = AffineDmaStartOp(buf, bm, bo, sp.memref, mm, mo, tag, tm, to, count, stride, per, loc=loc)
        else:
            op = AffineDmaStartOp(sp.memref, mm, mo, buf, bm, bo, tag, tm, to, count, stride, per, loc=loc)
        into.insert_before(into.ops[-1], op)

    def nest(sp: CopySpec, lay: _Layout, parent: Block, wait: bool) -> None:
        outer: list[IndexExpr] = []
        for d in range(lay.j + (lay.rows is not None)):
            step = lay.rows if d == lay.j else 1
            if sp.extents[d] == 1:
                outer.append(sp.lower[d])
                continue
            lp = make_for([sp.lower[d]], sp.upper(d), step or 1, loc)
            parent.insert_before(parent.ops[-1], lp)
            parent = lp.body
            outer.append(IndexExpr.of(lp.iv))
        build(sp, lay, parent, outer, wait)

    out: list[Operation] = [tag_alloc]
    guard = _empty_guard(spec, k, place)
    for wait in (False, True):
        holder = Block()
        holder.append(AffineYieldOp(loc=loc))
        parent = holder
        if guard is not None:
            # the zero-count rule: where the rows of dim k can start past the memref's end (an
            # empty chunk of a partial tile), the copy runs under a loop of one trip, of none
            # when they do: no transfer of a negative element count, and the start and wait
            # nests keep one shape for the pipelining pass
            lp = make_for([const_expr(0)], guard, 1, loc)
            holder.insert_before(holder.ops[-1], lp)
            parent = lp.body
        if full is not None:
            iset, ops = integer_set_of([Constraint(c, False) for c in full[1]])
            iff = AffineIfOp(iset, ops, loc=loc)
            iff.then_block.append(AffineYieldOp(loc=loc))
            iff.else_block.append(AffineYieldOp(loc=loc))
            parent.insert_before(parent.ops[-1], iff)
            nest(*forms[0], iff.then_block, wait)
            nest(*forms[1], iff.else_block, wait)
        else:
            nest(*forms[0], parent, wait)
        for op in holder.ops[:-1]:
            put(op)
            out.append(op)
    place.put_dealloc(DeallocOp(tag, loc=loc))
    return out


def _full_rows(spec: CopySpec, k: int) -> tuple[CopySpec, list[IndexExpr]] | None:
    """With a row limit and dim k clipped: the spec with dim k whole and the conditions
    (each `>= 0`) under which it is, when that form takes fewer DMAs; else None."""
    r = len(spec.extents)
    if spec.max_rows <= 0 or spec.lattice > 1 or k >= r or not spec.clipped[k] or k == 0:
        return None
    clipped = tuple(False if d == k else c for d, c in enumerate(spec.clipped))
    uppers = spec.exact_upper
    if uppers:
        uppers = tuple(() if d == k else u for d, u in enumerate(uppers))
    fspec = dataclasses.replace(spec, clipped=clipped, exact_upper=uppers)
    if dma_outer_dims(fspec) >= k:
        return None
    end = spec.lower[k] + spec.extents[k]
    conds = [ub - end for ub in spec.upper(k)[1:]]
    return fspec, conds


def _empty_guard(spec: CopySpec, k: int, place: Placement) -> list[IndexExpr] | None:
    """The upper bounds of a 0-or-1-trip loop around a copy whose element count
    `min(E_k, limit_k - lower_k)` can be zero or less at the copy point (dim k clipped and
    its lower bound reaching the limit, or an exact upper bound, for some iteration of the
    enclosing loops: isl on their domain); None when it is positive at every iteration."""
    r = len(spec.extents)
    if k >= r or not spec.clipped[k]:
        return None
    size = spec.limit(k)
    ubs = ([] if size is None else [const_expr(size)]) + \
        (list(spec.exact_upper[k]) if spec.exact_upper else [])
    if not ubs:
        return None
    lower = spec.lower[k]
    if not _may_reach(lower, ubs, place.before_op):
        return None
    return [const_expr(1), *(ub - lower for ub in ubs)]


def _may_reach(lower: IndexExpr, ubs: Sequence[IndexExpr], at: Operation) -> bool:
    """Whether `lower >= ub` for one of `ubs` at some iteration of the loops around `at`
    (conservatively True where isl cannot say)."""
    import islpy as isl

    from compiler.analysis.domain import domain_frame
    from compiler.analysis.isl_bridge import AnalysisError

    try:
        m, ops = affine_map_of([lower, *ubs])
        frame, dom = domain_frame(at)
        vals = frame.map_results(m, ops)
        return any(not dom.intersect(vals[0].ge_set(ub)).is_empty() for ub in vals[1:])
    except (AnalysisError, isl.Error, KeyError, ValueError):
        return True


def _count_value(spec: CopySpec, k: int, inner: int, outer_ivs: list[IndexExpr], into: Block,
                 func: FuncOp) -> Value:
    """`min(E_k, size_k - lower_k) * inner` elements, a constant when dim k is not clipped."""
    loc = spec.loc
    r = len(spec.extents)
    step = spec.lattice if k == r - 1 else 1
    rows = spec.buffer_shape[k] if k < r else 1
    full = rows * inner if k < r else 1
    if k >= r or not spec.clipped[k]:
        return constant_index(func, full, loc)
    size = spec.limit(k)
    assert size is not None
    exprs = [const_expr(full), (const_expr(size) - spec.lower[k]).ceildiv(step) * inner]
    if spec.exact_upper:
        exprs += [(ub - spec.lower[k]).ceildiv(step) * inner for ub in spec.exact_upper[k]]
    m, ops = affine_map_of(exprs)
    mn = AffineMinOp(m, ops, loc=loc)
    into.insert_before(into.ops[-1], mn)
    return mn.result


# ---- exact copy-out for sparse writes -------------------------------------------------------------

def _replay(spec: CopySpec, buf: Value, scope: Sequence[Operation], place: Placement,
            only: set[int] | None, loads: bool) -> list[Operation]:
    """For each store to the memref (each load, `loads`): a copy of its loop/if nest that
    only moves the stored element from the buffer back to the memref (`M[f(i)] = buf[f(i) -
    lower]`; a load's the other way, before the range)."""
    out: list[Operation] = []
    kind = AffineLoadOp if loads else AffineStoreOp
    for root in scope:
        for op in root.walk():
            if isinstance(op, kind) and op.memref is spec.memref \
                    and (only is None or id(op) in only):
                for new in _replay_one(op, root, spec, buf):
                    (place.put_in if loads else place.put_out)(new)
                    out.append(new)
    return out


def _replay_one(access: AffineLoadOp | AffineStoreOp, root: Operation, spec: CopySpec,
                buf: Value) -> list[Operation]:
    """`access`'s loop/if nest within `root`, holding only the move of its element."""
    path: list[Operation] = []
    cur: Operation | None = access
    while cur is not None and cur is not root:
        cur = cur.parent_op
        if cur is not None:
            path.append(cur)
    path.reverse()                       # root ... innermost parent of the access
    keep: set[int] = {id(p) for p in path} | {id(access)}
    # Pure index ops feeding kept ops stay too.
    changed = True
    producers: dict[int, Operation] = {}
    for o in root.walk():
        for res in o.results:
            producers[id(res)] = o
    while changed:
        changed = False
        for o in list(root.walk()):
            if id(o) not in keep:
                continue
            for v in o.operands:
                p = producers.get(id(v))
                if p is not None and id(p) not in keep and isinstance(p, PURE_INDEX_OPS):
                    keep.add(id(p))
                    changed = True
    if not path:                         # the access itself is a range op
        return _moves(access, spec, buf)
    clone = root.clone({})
    orig_ops = list(root.walk())
    new_ops = list(clone.walk())
    pairs = dict(zip((id(o) for o in orig_ops), new_ops, strict=True))
    for o in reversed(orig_ops):
        if id(o) in keep or o is root:
            continue
        n = pairs[id(o)]
        if n.parent_block is not None and not n.IS_TERMINATOR:
            n.detach()
    new_access = pairs[id(access)]
    assert isinstance(new_access, AffineLoadOp | AffineStoreOp)
    blk = new_access.parent_block
    assert blk is not None
    for mv in _moves(new_access, spec, buf):
        blk.insert_before(new_access, mv)
    new_access.detach()
    return [clone]


def _moves(access: AffineLoadOp | AffineStoreOp, spec: CopySpec, buf: Value) -> list[Operation]:
    """The load and store moving `access`'s element: a store's from the buffer to the memref,
    a load's from the memref into the buffer."""
    bidx = spec.buffer_index(map_exprs(access.map, access.indices))
    m, ops = affine_map_of(bidx)
    if isinstance(access, AffineStoreOp):
        ld = AffineLoadOp(buf, m, ops, loc=access.loc)
        return [ld, AffineStoreOp(ld.result, access.memref, access.map, access.indices,
                                  loc=access.loc)]
    ld = AffineLoadOp(access.memref, access.map, access.indices, loc=access.loc)
    return [ld, AffineStoreOp(ld.result, buf, m, ops, loc=access.loc)]
