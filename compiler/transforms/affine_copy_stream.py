"""`affine-copy-stream`: a whole-buffer copy around one nest is streamed in and out by
chunks of rows, the nest split along its outer loop into pieces that each wait only for
the rows they touch first, and write back the rows no later piece writes.

    dma_start A -> A_fast (all rows)      dma_start A[rows 0..r1) -> A_fast (tag t0); ...
    dma_wait                              dma_wait t0; for i in 0..c1 { ... }
    for i in 0..N { ... A_fast ... }  ->  dma_start A_fast[rows 0..w1) -> A (tag u0)
    dma_start A_fast -> A (all rows)      dma_wait t1; for i in c1..c2 { ... }; dma_start ...
    dma_wait                              ...; the write-backs' waits where the copy-out's was

Where everything fits on chip the copy pass copies each array whole above its nest and
back below it (the cache model: the whole array is one tile), so a one-nest kernel ran as
copy-in, kernel, copy-out with nothing overlapped: PolyBench's lu, cholesky and ludcmp at
SMALL spent half their run on the two transfers of A. A row-by-row factorization reads,
in its i-th outer iteration, rows <= i only and writes row i only, so A can arrive and
leave while it computes. Not an upstream mlir-opt pass; this project runs it after
`affine-dma-start-hoist`.

The copy-in (a DMA into a fresh buffer of `fast-mem-space`, non-strided, the buffer's
rows as long as its source's, at row 0) and its wait are at the function's top; the only
top-level ops using the buffer are its copy-in, one loop nest, the copy-out of the same
rows (if any), later nests that only read it, and its dealloc; nothing between the copy-in
and the copy-out touches the source. Every such copy around one nest streams around the
same pieces (the nest is split once: trisolv's `b` and `L`). The nest's outer loop (under
loops of one iteration) with constant bounds after those is split in `chunks` consecutive
ranges (its bounds get one more result each: the pieces run the same iterations in the
same order). isl gives each piece's rows of the
buffer: chunk p of the copy-in holds the rows piece p reaches beyond the chunks before it
(the last chunk the rest), waited for just before piece p; after piece p the rows no later
piece writes, and that arrived already, are written back, all waited for where the whole
copy-out was. Kept only when the pieces' rows grow with p (at least two chunks in, or
two out). The buffer, its contents when each op reads it and the values written back are
those of the whole copies: results are bit-identical.

A buffer with a copy-out and no copy-in (the copy pass found the copy-in dead) has its
copy-out streamed alone, around the last nest writing it (3mm's G, covariance's `cov`).
With `align` > 1 each piece but the last runs a multiple of `align` outer iterations (a
matrix unit's rows). Where the pass streamed in a function, each run of top-level copy-ins
is issued in the order the function waits for them (the DMA engines and DRAM serve in
issue order: ludcmp's `b`, which the first piece needs, queued behind all of A's chunks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.isl_bridge import AnalysisError
from compiler.ir.affine_expr import Const
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AllocOp,
    ConstantOp,
    DeallocOp,
    ModuleOp,
)
from compiler.ir.types import INDEX, MemRefType
from compiler.transforms.affine_copy_forward import _alloc_in, _direction
from compiler.transforms.pass_base import Pass


@dataclass(frozen=True)
class Options:
    fast_mem_space: int = 1
    chunks: int = 8
    # > 0: a chunk of a copy-in with no copy-out may move, instead of whole rows, one DMA per
    # row of the columns some op reaches in it, where that moves fewer bytes counting each
    # descriptor as this many (the bytes its setup is worth on the machine)
    descriptor_bytes: int = 0
    # each piece but the last runs a multiple of this many outer iterations (a matrix unit's
    # rows: a piece of fewer rows leaves part of the array idle)
    align: int = 1

    def __post_init__(self) -> None:
        if self.chunks < 2:
            raise ValueError(f"chunks must be >= 2, got {self.chunks}")
        if self.descriptor_bytes < 0:
            raise ValueError(f"descriptor-bytes must be >= 0, got {self.descriptor_bytes}")
        if self.align < 1:
            raise ValueError(f"align must be >= 1, got {self.align}")


class AffineCopyStreamPass(Pass):
    name = "affine-copy-stream"
    summary = "stream a whole-buffer copy in and out by rows around its nest, split along its outer loop"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        space = self.options.fast_mem_space
        for f in module.funcs:
            if f.is_declaration:
                continue
            self._split: set[int] = set()   # pieces made here: not split again
            plans: dict[int, list[_Plan]] = {}
            for s in [op for op in f.body.ops if isinstance(op, AffineDmaStartOp)]:
                if s.parent_block is f.body and _direction(s, space) == "in":
                    plan = _plan(f.body, s)
                    if plan is not None:
                        plans.setdefault(id(plan.nest), []).append(plan)
            streamed = False
            for group in plans.values():
                streamed |= self._stream(f.body, group)
            # a buffer the nest fills whole (its copy-in dead): the copy-out alone
            for s in [op for op in f.body.ops if isinstance(op, AffineDmaStartOp)]:
                if s.parent_block is f.body and _direction(s, space) == "out" and not any(
                        isinstance(o, AffineDmaStartOp) and o.dst is s.src for o in f.body.walk()):
                    streamed |= self._stream_out(f.body, s)
            if streamed:
                _order_starts(f.body, space)

    def _stream(self, block: Block, plans: list[_Plan]) -> bool:
        """Split the nest of `plans` (every whole-buffer copy around it) once and stream each
        buffer's copies around the same pieces."""
        nest = plans[0].nest
        cut = _outer(nest)
        if cut is None:
            return False
        depth, lo, hi = cut
        bounds = _piece_bounds(lo, hi, self.options.chunks, self.options.align)
        chunks = len(bounds) - 1
        if chunks < 2:
            return False
        pieces = _cut(nest, depth, bounds)
        streamed = self._evaluate(block, plans, nest, pieces)
        around: tuple[AffineForOp | None, AffineForOp | None] = (None, None)
        if not streamed and len(plans) == 1 and plans[0].out is None:
            # the outer loop's first piece reaches every row: its body distributed around its
            # inner loop, that loop interchanged outward, may stream
            split = _split_inner(nest, depth, block)
            cut2 = None if split is None else _outer(split[1])
            if split is not None and cut2 is not None:
                b2 = _piece_bounds(cut2[1], cut2[2], self.options.chunks, self.options.align)
                if len(b2) > 2:
                    p2 = _cut(split[1], cut2[0], b2)
                    streamed = self._evaluate(block, plans, nest, p2)
                    if streamed:
                        pieces, chunks, around = p2, len(b2) - 1, (split[0], split[2])
        if not streamed:
            return False
        self._split.update(id(p) for p in pieces)
        if around[0] is not None:
            block.insert_before(nest, around[0])
        if around[1] is not None:
            block.insert_after(nest, around[1])
        for piece in pieces:
            block.insert_before(nest, piece)
        nest.erase()
        for plan, ins, outs_, n_in, n_out, spans in streamed:
            self._rewrite(block, plan.start, plan.wait, plan.out, pieces, ins, outs_, plan.row0, spans)
            by_row = sum(sp is not None for sp in spans)
            self.remark(plan.start.loc, f"copies of {_name(plan.start.dst)} streamed: {n_in} chunk(s) in"
                                        + (f" ({by_row} of them row by row)" if by_row else "")
                                        + (f", {n_out} out" if plan.out is not None else "")
                                        + f" around {chunks} pieces of the nest"
                                        + (", its body distributed around its inner loop, that "
                                           "loop interchanged outward" if around != (None, None) else ""))
        return True

    def _evaluate(self, block: Block, plans: list[_Plan], nest: AffineForOp,
                  pieces: list[AffineForOp]) -> list[tuple]:  # type: ignore[type-arg]
        """The plans that stream around `pieces`: (plan, ins, outs, n_in, n_out, spans)."""
        chunks = len(pieces)
        streamed = []
        for plan in plans:
            buf = plan.start.dst
            rows = [_rows(piece, buf, block, nest) for piece in pieces]
            if any(r is None for r in rows):
                continue
            nrows = buf.type.shape[0]  # type: ignore[attr-defined]
            # copy-in chunk p: rows [ins[p], ins[p + 1])
            ins = [0]
            for p in range(chunks):
                reach = max((r[1] + 1 for r in rows[:p + 1] if r[1] is not None), default=0)  # type: ignore[index]
                ins.append(max(ins[-1], min(nrows, reach)))
            ins[-1] = nrows
            # copy-out after piece p: rows [outs_[p], outs_[p + 1])
            outs_ = [0]
            for p in range(chunks):
                later = [r[2] for r in rows[p + 1:] if r[2] is not None]  # type: ignore[index]
                end = min([nrows, *later, ins[p + 1]])
                outs_.append(max(outs_[-1], end))
            outs_[-1] = nrows
            n_in = sum(1 for p in range(chunks) if ins[p + 1] > ins[p])
            n_out = sum(1 for p in range(chunks) if outs_[p + 1] > outs_[p])
            if n_in < 2 and (plan.out is None or n_out < 2):
                continue
            # chunks smaller than a descriptor's worth of bytes: the whole copy is cheaper
            size = buf.type.size_bytes  # type: ignore[attr-defined]
            if size < self.options.descriptor_bytes * max(n_in, n_out if plan.out is not None else 0):
                continue
            spans = self._spans(plan, ins)
            streamed.append((plan, ins, outs_ if plan.out is not None else None, n_in, n_out, spans))
        return streamed

    def _stream_out(self, block: Block, out: AffineDmaStartOp) -> bool:
        """A whole-buffer copy-out with no copy-in streamed by rows around the last nest
        writing its buffer: after each piece, the rows no later piece writes leave."""
        buf, dst = out.src, out.dst
        bt = buf.type
        row0 = _whole_rows(block, out, buf, out.dst, (out.src_map, out.src_indices),
                           (out.dst_map, out.dst_indices))
        if row0 is None:
            return False
        users = [o for o in block.ops if o is not out and _uses(o, buf)]
        tag_users = [o for o in block.ops if _uses(o, out.tag)]
        waits = [o for o in tag_users if isinstance(o, AffineDmaWaitOp)]
        if len(waits) != 1 or any(not isinstance(o, AffineDmaStartOp | AffineDmaWaitOp | DeallocOp | AllocOp)
                                  for o in tag_users):
            return False
        nests = [o for o in users if isinstance(o, AffineForOp)]
        if any(not isinstance(o, AffineForOp | DeallocOp) for o in users) \
                or any(isinstance(x, AffineDmaStartOp) for n_ in nests for x in n_.walk()):
            return False
        i_out = block.index_of(out)
        writers = [o for o in nests if _writes(o, buf) and block.index_of(o) < i_out]
        if not writers or any(block.index_of(o) > i_out for o in nests):
            return False
        nest = writers[-1]
        if id(nest) in self._split or nest.results:
            return False
        i_nest = block.index_of(nest)
        if any(_uses(o, dst) for k, o in enumerate(block.ops) if i_nest < k < i_out):
            return False
        cut = _outer(nest)
        if cut is None:
            return False
        depth, lo, hi = cut
        bounds = _piece_bounds(lo, hi, self.options.chunks, self.options.align)
        chunks = len(bounds) - 1
        if chunks < 2:
            return False
        pieces = []
        for p in range(chunks):
            piece = nest.clone()
            loop = _at_depth(piece, depth)
            loop.set_lower_bound(_with(loop.lower_map, bounds[p]), loop.lower_operands)
            loop.set_upper_bound(_with(loop.upper_map, bounds[p + 1]), loop.upper_operands)
            pieces.append(piece)
        rows = [_rows(piece, buf, block, nest) for piece in pieces]
        if any(r is None for r in rows):
            return False
        nrows = bt.shape[0]
        outs_ = [0]
        for p in range(chunks):
            later = [r[2] for r in rows[p + 1:] if r[2] is not None]  # type: ignore[index]
            outs_.append(max(outs_[-1], min([nrows, *later])))
        outs_[-1] = nrows
        n_out = sum(1 for p in range(chunks) if outs_[p + 1] > outs_[p])
        if n_out < 2:
            return False
        self._split.update(id(p) for p in pieces)
        for piece in pieces:
            block.insert_before(nest, piece)
        nest.erase()
        rank, rowlen = bt.rank, math.prod(bt.shape[1:])
        const = _index_constants(block)

        out_waits = []
        for p, piece in enumerate(pieces):
            if outs_[p + 1] > outs_[p]:
                tag = AllocOp(out.tag.type, loc=out.loc)  # type: ignore[arg-type]
                zeros = [0] * (rank - 1)
                op = AffineDmaStartOp(buf, _cmap(outs_[p], *zeros), [], dst, _cmap(row0 + outs_[p], *zeros),
                                      [], tag.result, _cmap(0), [], const((outs_[p + 1] - outs_[p]) * rowlen),
                                      loc=out.loc)
                block.insert_after(piece, tag)
                block.insert_after(tag, op)
                out_waits.append((tag.result, (outs_[p + 1] - outs_[p]) * rowlen))
        for t, count in out_waits:
            block.insert_before(out, AffineDmaWaitOp(t, _cmap(0), [], const(count), loc=out.loc))
            block.insert_before(out, DeallocOp(t, loc=out.loc))
        for o in [o for o in block.ops if _uses(o, out.tag) and o is not out]:
            o.erase()
        out_alloc = getattr(out.tag, "owner", None)
        out.erase()
        if isinstance(out_alloc, AllocOp) and out_alloc.parent_block is block:
            out_alloc.erase()
        self.remark(out.loc, f"copies of {_name(buf)} streamed: {n_out} out around {chunks} pieces "
                             "of the nest")
        return True

    def _spans(self, plan: _Plan, ins: list[int]) -> list[list[tuple[int, int, int]] | None]:
        """Per copy-in chunk: None (whole rows), or (row, first column, columns) of each row
        some op reaches, one DMA each, where those move fewer bytes than the whole rows with
        `descriptor-bytes` per descriptor. Only for a 2-D buffer never written back (what no op
        reaches is never read)."""
        from compiler.analysis.region import memref_regions

        buf = plan.start.dst
        bt = buf.type
        none: list[list[tuple[int, int, int]] | None] = [None] * (len(ins) - 1)
        d = self.options.descriptor_bytes
        if d <= 0 or plan.out is not None or plan.written_later or not isinstance(bt, MemRefType) \
                or bt.rank != 2:
            return none
        try:
            reach = None
            for op in (plan.nest, *plan.readers):
                region = memref_regions([op]).get(buf)
                if region is None:
                    continue
                # { M[a0, a1] }: the elements of the buffer the op reaches
                reach = region.exact if reach is None else reach.union(region.exact)
        except (AnalysisError, isl.Error, ValueError):  # an access isl does not model
            return none
        if reach is None or reach.n_param() > 0:
            return none
        eb = bt.size_bytes // math.prod(bt.shape)
        width = bt.shape[1]
        out = list(none)
        for p in range(len(ins) - 1):
            rows = []
            for r in range(ins[p], ins[p + 1]):
                # { M[r, a1] }: row r's elements reached
                row = reach.fix_val(isl.dim_type.set, 0, isl.Val.int_from_si(reach.get_ctx(), r))
                if row.is_empty():
                    continue
                lo, hi = _col_bound(row, True), _col_bound(row, False)
                if lo is None or hi is None:
                    rows = None
                    break
                rows.append((r, lo, hi - lo + 1))
            if rows is None:
                continue
            by_row = sum(n * eb + d for _, _, n in rows)
            whole = (ins[p + 1] - ins[p]) * width * eb + d
            if by_row < whole:
                out[p] = rows
        return out

    def _rewrite(self, block: Block, start: AffineDmaStartOp, wait: AffineDmaWaitOp,
                 out: AffineDmaStartOp | None, pieces: list[AffineForOp],
                 ins: list[int], outs: list[int] | None, row0: int,
                 spans: list[list[tuple[int, int, int]] | None]) -> None:
        buf, src = start.dst, start.src
        rank = buf.type.rank  # type: ignore[attr-defined]
        rowlen = math.prod(buf.type.shape[1:])  # type: ignore[attr-defined]
        tag_t = start.tag.type
        const = _index_constants(block)

        def dma(s: Value, s_row: int, d: Value, d_row: int, rows: tuple[int, int], anchor: Operation,
                after: bool) -> tuple[AffineDmaStartOp, Value]:
            tag = AllocOp(tag_t, loc=start.loc)  # type: ignore[arg-type]
            zeros = [0] * (rank - 1)
            cnt = const((rows[1] - rows[0]) * rowlen)
            op = AffineDmaStartOp(s, _cmap(s_row + rows[0], *zeros), [],
                                  d, _cmap(d_row + rows[0], *zeros), [],
                                  tag.result, _cmap(0), [], cnt, loc=start.loc)
            if after:
                block.insert_after(anchor, tag)
                block.insert_after(tag, op)
            else:
                block.insert_before(anchor, tag)
                block.insert_before(anchor, op)
            return op, tag.result

        # the copy-in chunks where the whole copy-in was, each waited for before its piece
        in_tags: list[tuple[int, Value, int, int]] = []
        for p in range(len(pieces)):
            if spans[p] is not None:
                # a DMA per row of the columns reached, a tag element each
                rows = spans[p]
                assert rows is not None
                tag = AllocOp(MemRefType((max(1, len(rows)),), tag_t.element,  # type: ignore[attr-defined]
                                         tag_t.memory_space), loc=start.loc)  # type: ignore[attr-defined]
                block.insert_before(start, tag)
                for k, (r, c, n) in enumerate(rows):
                    block.insert_before(start, AffineDmaStartOp(
                        src, _cmap(row0 + r, c), [], buf, _cmap(r, c), [], tag.result, _cmap(k), [],
                        const(n), loc=start.loc))
                    in_tags.append((p, tag.result, n, k))
            elif ins[p + 1] > ins[p]:
                _, t = dma(src, row0, buf, 0, (ins[p], ins[p + 1]), start, False)
                in_tags.append((p, t, (ins[p + 1] - ins[p]) * rowlen, 0))
        old_tag = start.tag
        for o in [o for o in block.ops if _uses(o, old_tag)]:
            o.erase()
        tag_alloc = getattr(old_tag, "owner", None)
        if isinstance(tag_alloc, AllocOp) and tag_alloc.parent_block is block:
            tag_alloc.erase()
        del wait
        for p, t, count, k in in_tags:
            block.insert_before(pieces[p], AffineDmaWaitOp(t, _cmap(k), [], const(count),
                                                           loc=start.loc))
        if out is None or outs is None:
            return
        out_waits = []
        for p, piece in enumerate(pieces):
            if outs[p + 1] > outs[p]:
                _, t = dma(buf, 0, src, row0, (outs[p], outs[p + 1]), piece, True)
                out_waits.append((t, (outs[p + 1] - outs[p]) * rowlen))
        anchor = out
        for t, count in out_waits:
            w = AffineDmaWaitOp(t, _cmap(0), [], const(count), loc=out.loc)
            block.insert_before(anchor, w)
            block.insert_before(anchor, DeallocOp(t, loc=out.loc))
        for o in [o for o in block.ops if _uses(o, out.tag)]:
            o.erase()
        out_alloc = getattr(out.tag, "owner", None)
        out.erase()
        if isinstance(out_alloc, AllocOp) and out_alloc.parent_block is block:
            out_alloc.erase()


@dataclass(frozen=True)
class _Plan:
    """A whole-buffer copy-in at the function's top, its one wait, the nest it is around and
    the copy-out of the same rows (if any), checked as the module docstring says."""

    start: AffineDmaStartOp
    wait: AffineDmaWaitOp
    nest: AffineForOp
    out: AffineDmaStartOp | None
    row0: int
    readers: tuple[AffineForOp, ...] = ()   # later nests that only read the buffer
    # a later nest writes the buffer: its copy-out (if any) stays whole where it is
    written_later: bool = False


def _index_constants(block: Block) -> Callable[[int], Value]:
    """An index constant of a value, made once at the top of `block` (before its first op
    now) and reused."""
    consts: dict[int, Value] = {}
    first = block.ops[0]

    def const(v: int) -> Value:
        if v not in consts:
            c = ConstantOp(v, INDEX)
            block.insert_before(first, c)
            consts[v] = c.result
        return consts[v]

    return const


def _whole_rows(block: Block, dma: AffineDmaStartOp, buf: Value, full: Value,
                fast: tuple[AffineMap, Sequence[Value]], dram: tuple[AffineMap, Sequence[Value]]
                ) -> int | None:
    """The first row of `full` where `dma` moves the whole of `buf` (allocated in `block`, of
    `full`'s row shape) as consecutive rows, unstrided, at constant indices; else None."""
    bt, st = buf.type, full.type
    if dma.is_strided or _alloc_in(block, buf) is None or not isinstance(bt, MemRefType) \
            or not isinstance(st, MemRefType) or not bt.has_static_shape \
            or not st.has_static_shape or bt.rank < 1 or tuple(bt.shape[1:]) != tuple(st.shape[1:]):
        return None
    (fast_map, fast_idx), (dram_map, dram_idx) = fast, dram
    if fast_idx or dram_idx or not dram_map.is_constant \
            or any(r.value != 0 for r in fast_map.results) \
            or any(r.value != 0 for r in dram_map.results[1:]):
        return None
    if _const(dma.num_elements) != math.prod(bt.shape):
        return None
    return dram_map.results[0].value


def _plan(block: Block, start: AffineDmaStartOp) -> _Plan | None:
    buf, src = start.dst, start.src
    row0 = _whole_rows(block, start, buf, src, (start.dst_map, start.dst_indices),
                       (start.src_map, start.src_indices))
    if row0 is None:
        return None
    n = math.prod(buf.type.shape)  # type: ignore[attr-defined]
    users = [o for o in block.ops if o is not start and _uses(o, buf)]
    tag_users = [o for o in block.ops if _uses(o, start.tag)]
    waits = [o for o in tag_users if isinstance(o, AffineDmaWaitOp)]
    if len(waits) != 1 or any(not isinstance(o, AffineDmaStartOp | AffineDmaWaitOp | DeallocOp | AllocOp)
                              for o in tag_users) or sum(isinstance(o, AffineDmaStartOp)
                                                         for o in tag_users) != 1:
        return None
    nests = [o for o in users if isinstance(o, AffineForOp)]
    outs = [o for o in users if isinstance(o, AffineDmaStartOp)]
    rest = [o for o in users if not isinstance(o, AffineForOp | AffineDmaStartOp | DeallocOp)]
    if not nests or rest or len(outs) > 1:
        return None
    nest = nests[0]
    # later nests may read the buffer (every row has arrived before them); where one writes
    # it, only the copy-in streams and the copy-out stays whole where it is
    written_later = any(_writes(o, buf) for o in nests[1:])
    out = outs[0] if outs else None
    if out is not None and not (out.src is buf and out.dst is src and not out.is_strided
                                and _const(out.num_elements) == n and out.dst_map == start.src_map
                                and out.src_map == start.dst_map and not out.dst_indices):
        return None
    i_start, i_nest = block.index_of(start), block.index_of(nest)
    i_end = block.index_of(out) if out is not None else i_nest
    if block.index_of(waits[0]) > i_nest or (out is not None and i_end < i_nest):
        return None
    if any(_uses(o, src) for k, o in enumerate(block.ops)
           if i_start < k <= i_end and o is not out and o is not start) \
            or nest.results:
        return None
    assert isinstance(waits[0], AffineDmaWaitOp)
    if written_later:
        return _Plan(start, waits[0], nest, None, row0, (), True)
    return _Plan(start, waits[0], nest, out, row0, tuple(nests[1:]))


def _cut(nest: AffineForOp, depth: int, bounds: list[int]) -> list[AffineForOp]:
    """Clones of `nest`, its loop at `depth` restricted to each [bounds[p], bounds[p + 1])."""
    pieces = []
    for p in range(len(bounds) - 1):
        piece = nest.clone()
        loop = _at_depth(piece, depth)
        loop.set_lower_bound(_with(loop.lower_map, bounds[p]), loop.lower_operands)
        loop.set_upper_bound(_with(loop.upper_map, bounds[p + 1]), loop.upper_operands)
        pieces.append(piece)
    return pieces


def _split_inner(nest: AffineForOp, depth: int, block: Block
                 ) -> tuple[AffineForOp | None, AffineForOp, AffineForOp | None] | None:
    """The loop C at `depth` of `nest` (the loops above it of one iteration) whose body is
    `pre; for L { ... }; post` distributed in three nests, the middle one interchanged to
    `for L { for C { ... } }`: (pre nest or None, middle nest, post nest or None), none of
    them placed; None where that is not legal (isl: no dependence from a later part to an
    earlier one carried by C or a loop above it; the interchange allowed by the dependence
    analysis) or the shapes do not fit (one inner loop, unit steps, no values across the
    parts, no calls). `nest` is unchanged.

        for j { m[j] = 0; for i { m[j] += a[i][j] }; m[j] /= n }
          ->  for j { m[j] = 0 }  for i { for j { m[j] += a[i][j] } }  for j { m[j] /= n }"""
    from compiler.analysis.dependence import dependence_list
    from compiler.ir.ops import CallOp
    from compiler.ir.ops.opaque import OpaqueOp
    from compiler.transforms.rewrite.permute import legal_orders, permutable_band, permute_band
    from compiler.transforms.rewrite.promote import promote_if_single_iteration

    c = _at_depth(nest, depth)
    body = [o for o in c.body.ops if not o.IS_TERMINATOR]
    inner = [k for k, o in enumerate(body) if isinstance(o, AffineForOp)]
    if len(inner) != 1 or c.step != 1:
        return None
    k = inner[0]
    lp = body[k]
    assert isinstance(lp, AffineForOp)
    if lp.results or lp.region_iter_args or lp.step != 1 or c.results or c.region_iter_args:
        return None
    parts = [body[:k], [lp], body[k + 1:]]
    if any(isinstance(x, CallOp | OpaqueOp | AffineDmaStartOp | AffineDmaWaitOp)
           for o in body for x in o.walk()):
        return None
    for a in range(3):
        defined = {id(r) for o in parts[a] for x in o.walk() for r in x.results}
        if any(id(v) in defined for b in range(a + 1, 3) for o in parts[b] for x in o.walk()
               for v in x.operands):
            return None
    for a in range(3):
        for b in range(a + 1, 3):
            for ob in (x for o in parts[b] for x in o.walk()):
                for oa in (x for o in parts[a] for x in o.walk()):
                    for d in range(1, depth + 2):
                        if dependence_list(ob, oa, d, include_input=False):
                            return None
    spans = [range(0, k), range(k, k + 1), range(k + 1, len(body))]
    clones: list[AffineForOp | None] = []
    for keep in range(3):
        if not parts[keep]:
            clones.append(None)
            continue
        twin = nest.clone()
        for q, o in enumerate([o for o in _at_depth(twin, depth).body.ops if not o.IS_TERMINATOR]):
            if q not in spans[keep]:
                o.erase()
        clones.append(twin)
    pre, mid, post = clones
    assert mid is not None
    # the middle nest alone, its loops of one iteration above C inlined, then [C, L] -> [L, C]
    block.insert_before(nest, mid)
    placed: AffineForOp = mid
    try:
        for _ in range(depth):
            nxt = next(o for o in placed.body.ops if isinstance(o, AffineForOp))
            if not promote_if_single_iteration(placed):
                return None
            placed = nxt
        band = [placed, *[o for o in placed.body.ops if isinstance(o, AffineForOp)]]
        if len(band) != 2 or not permutable_band(band) or legal_orders(band, [(1, 0)]) != [(1, 0)]:
            return None
        before = _strided(band[1])
        placed = permute_band(band, (1, 0))
        # never trade contiguous innermost accesses for strided ones (a row-major matrix
        # walked down its columns: gesummv's A, B)
        if _strided(next(o for o in placed.body.ops if isinstance(o, AffineForOp))) > before:
            return None
    except (AnalysisError, isl.Error, ValueError, StopIteration):  # a shape isl or the rebuild refuses
        return None
    finally:
        if placed.parent_block is block:
            placed.detach()
    return pre, placed, post


def _strided(loop: AffineForOp) -> int:
    """Loads and stores in `loop` whose element moves by more than one, or along a dimension
    other than the last, from one iteration of `loop` to the next."""
    from compiler.ir.ops import AffineLoadOp, AffineStoreOp

    iv, n = loop.iv, 0
    for o in loop.walk():
        if not isinstance(o, AffineLoadOp | AffineStoreOp):
            continue
        m, idx = o.map, list(o.indices)
        pos = [k for k, v in enumerate(idx) if v is iv]
        if not pos:
            continue
        coeffs = []
        for r in m.results:
            lin = r.linear_coeffs(m.num_dims, m.num_symbols)
            if lin is None:
                coeffs = None
                break
            dc, sc, _ = lin
            coeffs.append(sum((dc + sc)[k] for k in pos))
        if coeffs is None or any(coeffs[:-1]) or abs(coeffs[-1]) > 1:
            n += 1
    return n


def _piece_bounds(lo: int, hi: int, chunks: int, align: int) -> list[int]:
    """Bounds of at most `chunks` consecutive pieces of [lo, hi): equal pieces, or with
    `align` > 1 pieces of a multiple of `align` iterations (the last takes the rest)."""
    trip = hi - lo
    if align <= 1:
        n = min(chunks, trip)
        return [lo + (trip * p) // n for p in range(n + 1)] if n > 0 else [lo]
    units = -(-trip // align)
    per = align * -(-units // chunks)
    return [lo + min(trip, k * per) for k in range(-(-trip // per) + 1)]


def _order_starts(block: Block, space: int) -> None:
    """Each run of consecutive top-level copy-ins (with the allocs and constants between
    them) issued in the order the block waits for them: the DMA engines serve in issue
    order, so a chunk the second piece needs no longer goes ahead of a whole copy the first
    one needs. Allocs and constants (no operands) move to the run's front."""
    def movable(o: Operation) -> bool:
        return (isinstance(o, AllocOp | ConstantOp) and not o.operands) or (
            isinstance(o, AffineDmaStartOp) and _direction(o, space) == "in")

    ops = list(block.ops)
    first_wait: dict[int, int] = {}
    for k, o in enumerate(ops):
        for w in o.walk():
            if isinstance(w, AffineDmaWaitOp):
                first_wait.setdefault(id(w.tag), k)
    k = 0
    while k < len(ops):
        if not movable(ops[k]):
            k += 1
            continue
        j = k
        while j < len(ops) and movable(ops[j]):
            j += 1
        run = ops[k:j]
        starts = [o for o in run if isinstance(o, AffineDmaStartOp)]
        order = sorted(starts, key=lambda o: first_wait.get(id(o.tag), len(ops)))
        if order != starts:
            anchor = ops[j] if j < len(ops) else None
            for o in [o for o in run if not isinstance(o, AffineDmaStartOp)] + order:
                o.detach()
                if anchor is None:
                    block.append(o)
                else:
                    block.insert_before(anchor, o)
        k = j


def _outer(nest: AffineForOp) -> tuple[int, int, int] | None:
    """(depth, lower, upper) of the first loop of more than one iteration down `nest`'s
    chain of single-loop bodies, its bounds constant once the loops above (one iteration
    each, constant lower bound) are fixed; None when there is none."""
    from compiler.ir.affine_eval import evaluate_map

    known: dict[int, int] = {}
    loop, depth = nest, 0
    while True:
        if loop.results or loop.region_iter_args:
            return None
        vals = []
        for v in loop.operands:
            c = _const(v)
            if c is None and id(v) not in known:
                return None
            vals.append(known.get(id(v), c))
        nl = loop.lower_map.num_inputs
        lo_ops, hi_ops = vals[:nl], vals[nl:]
        lo = max(evaluate_map(loop.lower_map, lo_ops[:loop.lower_map.num_dims],  # type: ignore[arg-type]
                              lo_ops[loop.lower_map.num_dims:]))  # type: ignore[arg-type]
        hi = min(evaluate_map(loop.upper_map, hi_ops[:loop.upper_map.num_dims],  # type: ignore[arg-type]
                              hi_ops[loop.upper_map.num_dims:]))  # type: ignore[arg-type]
        if hi - lo > loop.step:
            return (depth, lo, hi) if loop.step == 1 else None
        if hi - lo < 1:
            return None
        body = [o for o in loop.body.ops if not o.IS_TERMINATOR]
        if len(body) != 1 or not isinstance(body[0], AffineForOp):
            return None
        known[id(loop.iv)] = lo
        loop, depth = body[0], depth + 1


def _at_depth(nest: AffineForOp, depth: int) -> AffineForOp:
    loop = nest
    for _ in range(depth):
        loop = next(o for o in loop.body.ops if isinstance(o, AffineForOp))
    return loop


def _cmap(*values: int) -> AffineMap:
    """`() -> (values)`."""
    return AffineMap(0, 0, tuple(Const(v) for v in values))


def _with(m: AffineMap, c: int) -> AffineMap:
    """`m` with one more (constant) result: a lower bound's max, an upper bound's min."""
    return AffineMap(m.num_dims, m.num_symbols, (*m.results, Const(c)))


def _rows(piece: AffineForOp, buf: Value, block: Block, anchor: AffineForOp
          ) -> tuple[int, int | None, int | None] | None:
    """(lowest row reached, highest row reached, lowest row written) of `buf` in `piece`
    (placed in `block` for the analysis, then taken out); None where isl cannot tell."""
    from compiler.analysis.region import memref_regions

    block.insert_before(anchor, piece)
    try:
        region = memref_regions([piece]).get(buf)
    except (AnalysisError, isl.Error, ValueError):  # an access isl does not model
        return None
    finally:
        piece.detach()
    if region is None:
        return (0, None, None)
    reach = region.exact
    if reach.is_empty():
        return (0, None, None)
    lo, hi = _bound(reach, True), _bound(reach, False)
    if lo is None or hi is None:
        return None
    wrote = region.written_set
    w = None if wrote.is_empty() else _bound(wrote, True)
    return lo, hi, w


def _col_bound(s: isl.Set, low: bool) -> int | None:
    v = s.dim_min_val(1) if low else s.dim_max_val(1)
    if not v.is_int():
        return None
    return int(v.to_python())


def _bound(s: isl.Set, low: bool) -> int | None:
    v = s.dim_min_val(0) if low else s.dim_max_val(0)
    if not v.is_int():
        return None
    return int(v.to_python())


def _const(v: Value | None) -> int | None:
    owner = getattr(v, "owner", None)
    return owner.value if isinstance(owner, ConstantOp) and isinstance(owner.value, int) else None


def _writes(op: Operation, v: Value) -> bool:
    """`op` (or an op nested in it) may write `v`: a store, a DMA into it, a call or an op
    of unknown effects."""
    from compiler.ir.ops import AffineStoreOp, CallOp
    from compiler.ir.ops.opaque import OpaqueOp

    for o in op.walk():
        if isinstance(o, CallOp | OpaqueOp) or (isinstance(o, AffineStoreOp) and o.memref is v) \
                or (isinstance(o, AffineDmaStartOp) and o.dst is v):
            return True
    return False


def _uses(op: Operation, v: Value) -> bool:
    return any(x is v for o in op.walk() for x in o.operands)


def _name(v: Value) -> str:
    return f"%{v.name_hint}" if getattr(v, "name_hint", None) else "a buffer"


__all__ = ["AffineCopyStreamPass"]
