"""`affine-pipeline-data-transfer`: overlap DMA transfers with computation.

MLIR's algorithm (AffinePipelineDataTransferPass.cpp): in each loop, pair every incoming
`affine.dma_start` with its `affine.dma_wait` through the tag; give the fast buffer and the tag
a leading dimension indexed by `(iv floordiv step) mod N`; skew the body so the start for
iteration i + N - 1 is issued before the computation of iteration i (prologue, steady state,
epilogue). Inner loops are done first.

Beyond MLIR (off with `mlir-compat`):
- `stages=N`: N buffers, N - 1 transfers in flight (MLIR: 2).
- symbolic trip counts are pipelined with guards (MLIR refuses); zero and short trip counts
  are exact (MLIR v19 runs its epilogue for iterations that do not exist).
- `pipeline-copy-out`: outgoing DMAs also get N buffers, and their wait moves one iteration
  later, so the write-back of tile t overlaps the computation of tile t + 1.
- conflicts between incoming and outgoing DMAs come from dependence analysis when it is
  available, not from memref identity.
- `fast-mem-capacity` (KiB): the multiplied buffers are counted; stages are lowered (with a
  remark) until every live copy fits.
- `cross-tile-prefetch`: see compiler/transforms/pipeline/cross_tile.py.
- `flatten-tile-loops`: perfect tile loops around a loop with a copy-out become one loop first
  (compiler/transforms/pipeline/flatten_tile_loops.py), so write-backs overlap across tile boundaries.
- a fast buffer that is both copied in and copied out (an accumulator tile) gets one more
  slot than the other buffers: tile t + S loads, tile t computes, tile t - 1 writes back.
- `level-only`: only the DMAs whose fast buffer is in `fast-mem-space` are pipelined, so a
  memory hierarchy is pipelined one level at a time, each run with its own level's
  capacity (`fast-mem-space=2 fast-mem-capacity=..` for the copies from level 1 into level 2).
  A DMA's data is there at its wait, not its start (dependences see the start): a copy whose
  source the level above fills by a DMA in the same loop is not prefetched, and a copy-out
  into a buffer another DMA of the loop reads is not left in flight across iterations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.analysis import shift_violation
from compiler.analysis.legality import opaque_memory_op
from compiler.ir.core import Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    FuncOp,
    ModuleOp,
)
from compiler.transforms.data_copy.fast_memory import buffer_bytes, peak_around
from compiler.transforms.pass_base import Pass
from compiler.transforms.pipeline import cross_tile
from compiler.transforms.pipeline.dma_pairs import (
    DmaPair,
    copies_out,
    dma_dependence,
    dma_unit,
    dma_write_overlap,
    shared_buffers,
    tags_match,
    unit_direction,
)
from compiler.transforms.pipeline.flatten_tile_loops import flatten_around
from compiler.transforms.pipeline.multi_buffer import (
    MultiBuffered,
    accessed_directly,
    escape_reason,
    escapes,
    multi_buffer,
)
from compiler.transforms.pipeline.shifts import privatize_pure_operands
from compiler.transforms.pipeline.skew import SkewError, skew_loop, trip_count
from compiler.transforms.rewrite.index_exprs import loop_bounds
from compiler.transforms.rewrite.memref_uses import memref_type


@dataclass(frozen=True)
class Options:
    stages: int = 2
    pipeline_copy_out: bool = True
    cross_tile_prefetch: bool = True
    flatten_tile_loops: bool = True
    mlir_compat: bool = False
    fast_mem_capacity: int | None = None   # KiB; None = unlimited (extension)
    fast_mem_space: int = 1
    level_only: bool = False               # extension: only the DMAs into/out of fast-mem-space

    def __post_init__(self) -> None:
        if self.stages < 2:
            raise ValueError(f"stages must be >= 2 (2 = double buffering), got {self.stages}")
        if self.fast_mem_capacity is not None and self.fast_mem_capacity < 0:
            raise ValueError(f"fast-mem-capacity must be >= 0 KiB, got {self.fast_mem_capacity}")


class AffinePipelineDataTransferPass(Pass):
    name = "affine-pipeline-data-transfer"
    summary = "Pipeline non-blocking data transfers between memory levels (multi-buffering)"
    Options = Options
    options: Options
    # The option the output depends on only through `_over` (and remarks that print it): after
    # a run, `capacity_range` holds the capacities in bytes (lo, hi) for which every capacity
    # decision of the run comes out the same, so the output is the same (a compile cache may
    # reuse it for another capacity in the range: accelsim.compile.compile_cache).
    CAPACITY_OPTION = "fast_mem_capacity"

    def run(self, module: ModuleOp) -> None:
        self.capacity_range = (0, 1 << 62)
        self._generated: set[int] = set()     # ops made by an earlier skew: never re-paired
        self._conflicts: dict[tuple[int, int, int], bool] = {}   # reset per loop (ids die)
        self._alive: list[Operation] = []     # keeps those ops alive so their ids stay unique
        opts = self.options
        for func in module.funcs:
            if func.is_declaration:
                continue
            if opts.flatten_tile_loops and opts.pipeline_copy_out and not opts.mlir_compat:

                for flat in flatten_around([func], copies_out):
                    self.remark(flat.loc, "tile loops flattened into one loop so that copy-out "
                                          "overlaps across tile boundaries")
            loops = [op for op in func.walk() if isinstance(op, AffineForOp)]
            for loop in reversed(loops):          # inner loops first
                if loop.parent_block is not None and _in_func(loop, func):
                    self.run_on_loop(loop, func)

    # ---- one loop ---------------------------------------------------------------------
    def run_on_loop(self, loop: AffineForOp, func: FuncOp) -> None:
        opts = self.options
        compat = opts.mlir_compat
        if dma_unit(loop)[0] is not None:
            return                              # a copy nest itself
        body_dma = [op for op in loop.body.ops
                    if dma_unit(op)[0] is not None and id(op) not in self._generated]
        if not body_dma:
            return
        opaque = opaque_memory_op(loop)
        if opaque is not None:
            self.remark(loop.loc, f"won't pipeline: '{opaque.NAME}' at {opaque.loc} is not modeled "
                                  "by the analysis (unknown memory effects, or a parallel band)")
            return
        T = trip_count(loop)
        if T is None and compat:
            self.remark(loop.loc, "won't pipeline: unknown trip count")
            return
        if T is None and (len(loop.lower_map.results) != 1 or len(loop.upper_map.results) != 1):
            self.remark(loop.loc, "won't pipeline: unknown trip count and a bound that is a max/min "
                                  "of several expressions (cannot guard it)")
            return
        self._conflicts = {}
        in_pairs = self.find_incoming_pairs(loop, func)
        if not in_pairs:
            self.remark(loop.loc, "won't pipeline: no DMA start/wait pairs to overlap")
            return
        out_pairs: list[DmaPair] = []
        if not compat and opts.pipeline_copy_out:
            out_pairs = self.find_outgoing_pairs(loop, func, in_pairs)
        stages = 2 if compat else opts.stages
        shared = shared_buffers(in_pairs, out_pairs)
        fitted = self.fit_stages(loop, func, in_pairs + out_pairs, stages, shared, last_try=False)
        if fitted < 2 and shared:
            out_pairs = [p for p in out_pairs if not any(p.fast_buffer is b for b in shared)]
            for b in shared:
                self.remark(loop.loc, f"copy-out of {_name(b)} not pipelined: its extra slot does "
                                      "not fit the fast memory")
            shared = []
            fitted = self.fit_stages(loop, func, in_pairs + out_pairs, stages, shared,
                                     last_try=False)
        if fitted < 2:
            in_pairs, out_pairs, fitted = self.fit_fewer_pairs(loop, func, in_pairs, out_pairs,
                                                               stages)
        stages = fitted
        if stages < 2:
            return
        S = stages - 1
        # Multi-buffer data buffers, then tags (MLIR order).
        buffers: list[Value] = []
        tags: list[Value] = []
        for p in in_pairs + out_pairs:
            if not any(p.fast_buffer is b for b in buffers):
                buffers.append(p.fast_buffer)
        for p in in_pairs + out_pairs:
            if not any(p.tag is t for t in tags):
                tags.append(p.tag)
        ct_plan = None
        if opts.cross_tile_prefetch and not compat and isinstance(loop.parent_op, AffineForOp):

            swapped = [p.fast_buffer for p in in_pairs + out_pairs] + [p.tag for p in in_pairs + out_pairs]
            got = cross_tile.plan(loop, [p.start for p in in_pairs], S, opts.fast_mem_space,
                                  replaced=swapped)
            if isinstance(got, str):
                self.remark(loop.loc, f"cross-tile prefetch not applied: {got}")
            else:
                ct_plan = got
        if ct_plan is not None and self._over(self.need_at(ct_plan.outermost, in_pairs + out_pairs,
                                                           stages, shared)):
            self.remark(loop.loc, "cross-tile prefetch not applied: its buffers, live across the "
                                  "tile loops, would not fit the fast memory")
            ct_plan = None
        done: list[MultiBuffered] = []
        for old in buffers + tags:
            n = stages + 1 if any(old is b for b in shared) else stages
            if ct_plan is not None:
                done.append(multi_buffer(old, loop, func, n, slot=ct_plan.slot(n),
                                         anchor=ct_plan.outermost))
            else:
                done.append(multi_buffer(old, loop, func, n))

        def undo() -> None:
            for d in reversed(done):
                d.undo()
        # Shifts: incoming starts 0, outgoing waits S + 1, everything else S.
        in_starts = {id(p.start) for p in in_pairs}
        out_waits = {id(p.wait) for p in out_pairs}
        shift_of = {}
        for op in loop.body.ops:
            if op.IS_TERMINATOR:
                continue
            if id(op) in in_starts:
                shift_of[id(op)] = 0
            elif id(op) in out_waits:
                shift_of[id(op)] = S + 1
            else:
                shift_of[id(op)] = S
        privatize_pure_operands(loop, shift_of)
        shifts = [shift_of.get(id(op), 0) for op in loop.body.ops]
        why = shift_violation(loop, shifts)
        if why is not None:
            undo()
            self.remark(loop.loc, f"won't pipeline: the skew would break a dependence: {why}")
            return
        tmap: dict[Value, Value] = {}
        template = [op.clone(tmap) for op in loop.body.ops if shift_of.get(id(op)) == 0]
        loop_iv, loop_lo, step = loop.iv, loop_bounds(loop)[0][0], loop.step
        try:
            res = skew_loop(loop, shifts, allow_guards=not compat)
        except SkewError as exc:
            undo()
            self.remark(loop.loc, f"won't pipeline: {exc}")
            return
        if ct_plan is not None:

            pro = next(ops for a, _, ops in res.pieces if a == 0)
            epi = next(ops for a, _, ops in res.pieces if a == ct_plan.trips)
            made = cross_tile.apply(ct_plan, loop_iv, loop_lo, step, S, template, pro, epi, func)
            for op in made:
                self._generated.update(id(o) for o in op.walk())
                self._alive.append(op)
            self.remark(loop.loc, "cross-tile prefetch: the next tile's first transfers are "
                                  "issued during this tile's last steps")
        for op in res.ops:
            if op is not res.steady:
                self._generated.update(id(o) for o in op.walk())
                self._alive.append(op)
        if res.guarded:
            self.remark(loop.loc, "pipelined with a symbolic trip count: prologue and epilogue guarded")

    # ---- pairing ------------------------------------------------------------------------
    def find_incoming_pairs(self, loop: AffineForOp, func: FuncOp) -> list[DmaPair]:
        opts = self.options
        body = loop.body.ops
        outgoing = [op for op in body if unit_direction(op) == "out"]
        waits = [op for op in body if dma_unit(op)[0] == "wait" and id(op) not in self._generated]
        pairs: list[DmaPair] = []
        for op in body:
            if unit_direction(op) != "in" or id(op) in self._generated:
                continue
            first = dma_unit(op)[1][0]
            assert isinstance(first, AffineDmaStartOp)
            conflict = next((o for o in outgoing if self.conflicts(o, op, loop)), None)
            if conflict is not None:
                self.remark(op.loc, f"won't pipeline this DMA: it reads {_name(first.src)}, which the "
                                    f"outgoing DMA at {conflict.loc} writes")
                continue
            if not self.this_level(first.dst):
                continue
            if opts.level_only and filled_by_other_dma(loop, first.src, op, opts.fast_mem_space):
                self.remark(op.loc, f"won't pipeline this DMA: its source {_name(first.src)} (the level "
                                    "above) is filled by a DMA in the loop, which a prefetch would "
                                    "overtake before its wait")
                continue
            why = escape_reason(first.dst, loop, func) or escape_reason(first.tag, loop, func)
            if why is not None:
                which = "fast buffer" if escapes(first.dst, loop, func) else "tag"
                name = _name(first.dst if which == "fast buffer" else first.tag)
                self.remark(op.loc, f"won't pipeline this DMA: its {which} {name} {why}")
                continue
            wait = next((w for w in waits if tags_match(op, w)), None)
            if wait is None:
                self.remark(op.loc, "won't pipeline this DMA: no matching dma_wait in the loop body")
                continue
            pairs.append(DmaPair(op, wait))
        return pairs

    def find_outgoing_pairs(self, loop: AffineForOp, func: FuncOp,
                            in_pairs: list[DmaPair]) -> list[DmaPair]:
        opts = self.options
        body = loop.body.ops
        waits = [op for op in body if dma_unit(op)[0] == "wait" and id(op) not in self._generated]
        incoming = [op for op in body if unit_direction(op) == "in"]
        outgoing = [op for op in body if unit_direction(op) == "out"]
        pairs: list[DmaPair] = []
        for op in body:
            if unit_direction(op) != "out" or id(op) in self._generated:
                continue
            first = dma_unit(op)[1][0]
            assert isinstance(first, AffineDmaStartOp)
            if not self.this_level(first.src):
                continue
            reader = next((i for i in incoming if self.conflicts(op, i, loop)), None)
            if reader is not None:
                self.remark(op.loc, f"copy-out not pipelined: a later iteration's DMA at {reader.loc} "
                                    f"reads what it writes to {_name(first.dst)}")
                continue
            if accessed_directly(loop, first.dst):
                self.remark(op.loc, f"copy-out not pipelined: {_name(first.dst)} is also accessed in "
                                    "the loop, so its write-back must finish within the iteration")
                continue
            why = escape_reason(first.src, loop, func) or escape_reason(first.tag, loop, func)
            if why is not None:
                which = "fast buffer" if escapes(first.src, loop, func) else "tag"
                name = _name(first.src if which == "fast buffer" else first.tag)
                self.remark(op.loc, f"copy-out not pipelined: its {which} {name} {why}")
                continue
            writer = next((o for o in outgoing if self._overlaps(op, o, loop)), None)
            if writer is not None:
                self.remark(op.loc, f"copy-out not pipelined: the DMA at {writer.loc} writes "
                                    f"elements of {_name(first.dst)} it writes, later in the loop, "
                                    "so its write-back must finish within the iteration")
                continue
            if opts.level_only and read_by_other_dma(loop, first.dst, op, opts.fast_mem_space):
                self.remark(op.loc, f"copy-out not pipelined: {_name(first.dst)} (the level above) is "
                                    "read by another DMA in the loop, so its write-back must finish "
                                    "within the iteration")
                continue
            wait = next((w for w in waits if tags_match(op, w)), None)
            if wait is None or body.index(wait) < body.index(op):
                continue
            if any(p.tag is first.tag for p in in_pairs):
                continue
            pairs.append(DmaPair(op, wait))
        return pairs

    def this_level(self, fast_buffer: Value) -> bool:
        """Whether a DMA with this fast buffer is this run's (always, without `level-only`)."""
        return not self.options.level_only or \
            memref_type(fast_buffer).memory_space == self.options.fast_mem_space

    def conflicts(self, out: Operation, inc: Operation, loop: AffineForOp) -> bool:
        """Does the outgoing DMA write what the incoming one reads (in any iteration)? Asked
        for the incoming and again for the outgoing pairs: the isl answer is kept per loop."""
        key = (id(loop), id(out), id(inc))
        hit = self._conflicts.get(key)
        if hit is None:
            hit = self._conflicts[key] = self._conflict(out, inc, loop)
        return hit

    def _overlaps(self, out: Operation, other: Operation, loop: AffineForOp) -> bool:
        """Does the outgoing DMA write what an outgoing one (maybe itself) writes later in
        the loop (`dma_write_overlap`; unknown: yes)?"""
        o0, x0 = dma_unit(out)[1][0], dma_unit(other)[1][0]
        assert isinstance(o0, AffineDmaStartOp) and isinstance(x0, AffineDmaStartOp)
        if o0.dst is not x0.dst:
            return False
        hit = dma_write_overlap(out, other, loop)
        return True if hit is None else hit

    def _conflict(self, out: Operation, inc: Operation, loop: AffineForOp) -> bool:
        o0, i0 = dma_unit(out)[1][0], dma_unit(inc)[1][0]
        assert isinstance(o0, AffineDmaStartOp) and isinstance(i0, AffineDmaStartOp)
        if o0.dst is not i0.src:
            return False
        if self.options.mlir_compat:
            return True
        dep = dma_dependence(out, inc, loop)
        return True if dep is None else dep

    # ---- capacity -----------------------------------------------------------------------
    def fit_fewer_pairs(self, loop: AffineForOp, func: FuncOp, in_pairs: list[DmaPair],
                        out_pairs: list[DmaPair], stages: int
                        ) -> tuple[list[DmaPair], list[DmaPair], int]:
        """Double buffering of every pair does not fit: leave the largest buffers single (their
        transfers stay blocking, in the iteration that uses them) until the rest fits. Returns
        the pairs still pipelined and their stages (1: none fits)."""
        space = self.options.fast_mem_space

        def size(p: DmaPair) -> int:
            t = memref_type(p.fast_buffer)
            return buffer_bytes(t) if t.memory_space == space else 0

        kept_in, kept_out = list(in_pairs), list(out_pairs)
        left: list[Value] = []
        while kept_in:
            fitted = self.fit_stages(loop, func, kept_in + kept_out, stages, (), last_try=False)
            if fitted >= 2:
                names = ", ".join(_name(b) for b in left)
                self.remark(loop.loc, f"pipelined without multi-buffering {names}: every buffer "
                                      f"double-buffered needs {self.need_at(loop, in_pairs + out_pairs, 2)} "
                                      f"bytes of fast memory, {self._capacity_shown()} available; "
                                      f"{fitted} stages for the rest")
                return kept_in, kept_out, fitted
            largest = max(kept_in + kept_out, key=size)
            if size(largest) == 0:
                break
            left.append(largest.fast_buffer)
            kept_in = [p for p in kept_in if p.fast_buffer is not largest.fast_buffer]
            kept_out = [p for p in kept_out if p.fast_buffer is not largest.fast_buffer]
        self.remark(loop.loc, f"won't pipeline: double buffering needs "
                              f"{self.need_at(loop, in_pairs + out_pairs, 2)} bytes of fast memory, "
                              f"{self._capacity_shown()} available, and so does any subset of its "
                              "buffers")
        return in_pairs, out_pairs, 1

    def fit_stages(self, loop: AffineForOp, func: FuncOp, pairs: list[DmaPair], stages: int,
                   shared: Sequence[Value] = (), last_try: bool = True) -> int:
        """The most stages (<= `stages`) whose buffers fit; a shared buffer has one more."""
        if self.options.fast_mem_capacity is None or self.options.mlir_compat:
            return stages

        def need(n: int) -> int:
            return self.need_at(loop, pairs, n, shared)

        n = stages
        while n >= 2 and self._over(need(n)):
            n -= 1
        if n < 2:
            if last_try and not shared:
                self.remark(loop.loc, f"won't pipeline: double buffering needs {need(2)} bytes of "
                                      f"fast memory, {self._capacity_shown()} available")
            return 1
        if n != stages:
            self.remark(loop.loc, f"pipelined with {n} stages instead of {stages}: {stages} would need "
                                  f"{need(stages)} bytes of fast memory, {self._capacity_shown()} "
                                  "available")
        return n

    def _over(self, need: int) -> bool:
        """`need` bytes exceed the fast memory; `capacity_range` narrowed to the capacities that
        answer the same."""
        cap = self.capacity_bytes()
        lo, hi = self.capacity_range
        if need > cap:
            self.capacity_range = (lo, min(hi, need - 1))
            return True
        self.capacity_range = (max(lo, need), hi)
        return False

    def _capacity_shown(self) -> int:
        """The capacity, for a remark that prints it: only this capacity gives that remark."""
        cap = self.capacity_bytes()
        self.capacity_range = (cap, cap)
        return cap


    def capacity_bytes(self) -> int:
        cap_kib = self.options.fast_mem_capacity
        return 1 << 62 if cap_kib is None or self.options.mlir_compat else cap_kib * 1024

    def need_at(self, where: Operation, pairs: list[DmaPair], stages: int,
                shared: Sequence[Value] = ()) -> int:
        """Peak fast-memory bytes while `where` runs once the pairs' buffers get `stages` slots
        (a shared buffer one more), allocated before `where`: they are all live together, with
        whatever else is live there and the peak of the other buffers inside."""
        space = self.options.fast_mem_space
        seen: list[Value] = []
        slots = 0
        for p in pairs:
            b = p.fast_buffer
            if any(b is s for s in seen):
                continue
            seen.append(b)
            t = memref_type(b)
            if t.memory_space == space:
                n = stages + 1 if any(b is s for s in shared) else stages
                slots += n * buffer_bytes(t)
        return peak_around(where, space, skip=seen) + slots


def filled_by_other_dma(loop: AffineForOp, memref: Value, unit: Operation, space: int) -> bool:
    """Whether a DMA of another level (not from a `space` buffer) fills `memref` with its start
    or its wait in `loop`: the level above's copy into the buffer an incoming DMA reads, its
    data there only after that DMA's wait. A wait alone counts: after the level above was
    pipelined, its epilogue holds the waits of copies started before the loop, and a prefetch
    hoisted over such a wait reads the buffer while it is being filled. (This level's own
    copy-outs are the dependence check's.)"""
    mine = {id(o) for o in unit.walk()}
    fillers = [o for o in _func_of(loop).walk()
               if isinstance(o, AffineDmaStartOp) and o.dst is memref and id(o) not in mine
               and memref_type(o.src).memory_space != space]
    if not fillers:
        return False
    tags = [o.tag for o in fillers]
    return any((isinstance(o, AffineDmaStartOp) and any(o is f for f in fillers))
               or (isinstance(o, AffineDmaWaitOp) and any(o.tag is t for t in tags))
               for o in loop.walk())


def _func_of(op: Operation) -> Operation:
    """The outermost op above `op` below the module (its function)."""
    top = op
    for a in op.ancestors():
        if isinstance(a, ModuleOp):
            break
        top = a
    return top


def read_by_other_dma(loop: AffineForOp, memref: Value, unit: Operation, space: int) -> bool:
    """Whether a DMA of another level (not into a `space` buffer) in `loop` reads `memref`:
    the level above's copy-out of the buffer a copy-out writes, which must see the write-back
    completed. (This level's own copy-ins are the dependence check's.)"""
    mine = {id(o) for o in unit.walk()}
    return any(isinstance(o, AffineDmaStartOp) and o.src is memref and id(o) not in mine
               and memref_type(o.dst).memory_space != space for o in loop.walk())


def _name(v: Value) -> str:
    return f"%{v.name_hint}" if v.name_hint else str(v.type)


def _in_func(op: Operation, func: FuncOp) -> bool:
    return any(a is func for a in op.ancestors())
