"""`affine-data-copy-generate`: copy the slow-memory data a loop nest touches into fast buffers.

Placement follows MLIR's AffineDataCopyGeneration.cpp: each block is cut into ranges (every
`affine.for` is its own range; a run of loads/stores between loops is one); a loop whose
footprint exceeds `fast-mem-capacity` is not copied at its level but recursed into. For each
range, one region per slow memref (bounding box of all its accesses, from the analysis), one
fast buffer, copy-in if read, copy-out if written, accesses rewritten relative to the box.
Copies are hoisted above surrounding loops the region does not depend on (MLIR's
findHighestBlockForPlacement), but only when no other op in those loops touches the memref.

`fast-mem-space` equal to `slow-mem-space` (upstream's `fast-mem-space=0`) copies inside one
memory space with point-wise loops. A memref that an op of unknown memory effect (an
unregistered op) takes inside a range is not copied there. A memref defined by an op of the
range (an alloc, a get_global after the range's first access) is copied for the ops between
its definition and its dealloc, never before it exists (upstream issue 216630).

Differences from upstream, all on purpose (see data_copy/emit.py): clipped partial tiles,
exact copy-out of sparse writes, multi-level-stride DMAs as loop nests, an error (not a
warning) when even the innermost level does not fit (with `skip-oversized`, this project's
extension the accelerator pipeline falls back to: the memrefs whose buffers fit are copied,
smallest first, the rest accessed in slow memory, with a remark; `exact-copy-out`: a region
read and written but not written whole is written back element by element, never as its whole
box, for a cluster's share whose box spans elements another cluster writes), and groups of
references to one memref whose elements never overlap get separate buffers when that is
smaller than one bounding box (the groups' regions come from the analysis, queried with a
stand-in memref per group), and no copy-in of a buffer whose every load reads what the same
execution of the copy point stored first and whose stores write its whole box (an accumulator
initialized in place; `compiler/analysis/exposed.py`, the rule the tile search's model shares;
`elide-dead-copy-in=false` restores upstream's copy-in).

Copies over dependent loops (this project's extension, `hoist-over-dependent-loops`): where
MLIR's placement stops at a loop because the region depends on its IV, a region whose
iterations overlap (`data_copy/placement.py` `reused_across`) rises above the loop anyway,
its buffer the bounding box of the union of the loop's iterations (isl: the accesses with the
loop's IV projected out), when that box fits beside every fast buffer live there: those of
the other copies of the range, of the ranges already copied inside the loop and those earlier
hoisted around it (which later ranges' capacity test then counts). A remark names each such
hoist. Triangular, trapezoidal and skewed nests then copy a re-read operand once, as a
rectangular nest in any loop order does.

Explicitly tiled programs (this project's extension): `copy-depth=N` places the copies at
the bodies of the loops at depth N (the tile loops) whatever the capacity, and with
`hoist-read-copies=false` a read-only region is copied there on every iteration (an
accelerator's software reloads each tile: Gemmini's mvin per tile) while a written region
still rises above the loops it does not depend on (a partial-sum tile kept across the
reduction, written back once: the accumulator). `accelsim.compile.mapping` uses them.

Memory hierarchies (this project's extension, same options): runs compose level by level,
`slow-mem-space=0 fast-mem-space=1` then `slow-mem-space=1 fast-mem-space=2`, each with its
own `fast-mem-capacity`. A later run copies tiles of the earlier run's buffers: it recurses
below the loops that allocate them (its copies go inside the level above's tile), never copies
the level above's DMA nests again, and clips each copy to the part of a partial level-above
tile that is accessed (`data_copy/levels.py`), so partial tiles stay exact at every level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.domain import enclosing_loops
from compiler.analysis.exposed import copy_in_needed
from compiler.analysis.region import MemRefRegion, region_context
from compiler.diagnostics import Location, PassError
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineLoadOp,
    AffineParallelOp,
    AffineStoreOp,
    AllocOp,
    DeallocOp,
    FuncOp,
    ModuleOp,
    opaque_memref_uses,
)
from compiler.ir.types import MemRefType
from compiler.transforms.data_copy.boxes import accessed_limits, clip_box, lattice_box, lattice_step
from compiler.transforms.data_copy.emit import CopySpec, Placement, emit_copies
from compiler.transforms.data_copy.groups import split_disjoint
from compiler.transforms.data_copy.levels import allocates_slow_buffer, exact_uppers, is_dma_nest
from compiler.transforms.data_copy.placement import (
    depends_on,
    region_loc,
    reused_across,
    touched_elsewhere,
)
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.structure import defined_inside

# a buffer `generate` makes: memref, region, the ops it serves, the group's accesses (None: all)
_Job = tuple[Value, MemRefRegion, Sequence[Operation], Sequence[Operation] | None]


class CopyCapacityError(PassError):
    """The copy buffers of a block exceed `fast-mem-capacity` even at the innermost level."""


@dataclass(frozen=True)
class Options:
    generate_dma: bool = True
    fast_mem_space: int = 1
    slow_mem_space: int = 0
    tag_mem_space: int = 0
    fast_mem_capacity: int | None = None    # KiB; None = unlimited
    min_dma_transfer: int = 1024            # bytes (accepted for mlir-opt compatibility)
    skip_non_unit_stride_loops: bool = False
    # no copy-in of a buffer no load can read a value from before the copy point in
    # (`compiler.analysis.exposed.copy_in_needed`); false: upstream's copy-in of every read
    # region (its test pass, `test-affine-data-copy`)
    elide_dead_copy_in: bool = True
    # this project's extension: copies at the bodies of the loops at this depth (1 = inside
    # the outermost loop), whatever the capacity: the tile loops of an explicitly tiled
    # program, one copy per tile as an accelerator's software loads it (Gemmini's mvin per
    # tile). 0: upstream's placement (the first loop whose footprint fits)
    copy_depth: int = 0
    # with copy-depth: false keeps a read-only region's copies at that depth (reloaded every
    # tile); a written region (a partial-sum tile) still rises above the loops it does not
    # depend on: it stays in fast memory across the reduction and is written back once
    hoist_read_copies: bool = True
    # this project's extension (the accelerator pipeline sets it; upstream's placement without
    # it): a region that depends on an enclosing loop's IV, and whose iterations re-read
    # elements (a triangular `j <= i` reading `A[j, k]` in every `i`), is copied once above
    # that loop as the union of its iterations when that union's box, with every buffer live
    # there, fits `fast-mem-capacity`; the placement then no longer depends on the loop order
    hoist_over_dependent_loops: bool = False
    # this project's extension: when even the innermost level's buffers exceed
    # fast-mem-capacity, copy the memrefs whose buffers fit (smallest first) and leave the
    # others in slow memory, accessed in place, with a remark, instead of the error. The
    # accelerator pipeline sets it when a program it generated would not fit otherwise
    # (`accelsim.compile.accelerator`); where everything fits it changes nothing
    skip_oversized: bool = False
    # this project's extension: a region both read and written whose box the range does not
    # write whole gets a copy-out of the stored elements only (point-wise), never the whole
    # box: the box's other elements, read or not accessed, may be written meanwhile by another
    # cluster (a share of a parallel loop; `accelsim.compile.clusters` sets it)
    exact_copy_out: bool = False
    # this project's extension: a read region whose box holds elements the range never
    # touches gets a copy-in of the loaded elements only (point-wise, the loads' loop nests
    # replayed), never the whole box: those other elements may be written meanwhile by
    # another cluster, and reading them races (`accelsim.compile.clusters` sets it when the
    # box copy-ins of the clusters' shares race)
    exact_copy_in: bool = False
    # this project's extension: a DMA moves at most this many rows (the chunks of a strided
    # transfer); a longer copy is a loop of DMAs of that many rows each, as an engine whose
    # descriptor is limited in rows issues it (Gemmini's mvin: at most DIM rows; the
    # accelerator pipeline sets it from `dma.max_rows`). 0: no limit (upstream's one DMA)
    max_dma_rows: int = 0

    def __post_init__(self) -> None:
        for name in ("fast_mem_space", "slow_mem_space", "tag_mem_space"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name.replace('_', '-')} must be >= 0, got {getattr(self, name)}")
        if self.fast_mem_capacity is not None and self.fast_mem_capacity < 0:
            raise ValueError(f"fast-mem-capacity must be >= 0 KiB, got {self.fast_mem_capacity}")
        if self.copy_depth < 0:
            raise ValueError(f"copy-depth must be >= 0, got {self.copy_depth}")
        if self.max_dma_rows < 0:
            raise ValueError(f"max-dma-rows must be >= 0, got {self.max_dma_rows}")

    @property
    def one_space(self) -> bool:
        """`fast-mem-space` = `slow-mem-space` (upstream's `fast-mem-space=0` tests): buffers in
        the same memory space, filled by point-wise copy loops (a DMA needs two spaces)."""
        return self.fast_mem_space == self.slow_mem_space

    @property
    def capacity_bytes(self) -> int | None:
        return None if self.fast_mem_capacity is None else self.fast_mem_capacity * 1024


def _starts_below_zero(region: MemRefRegion) -> bool:
    """Whether the region's box (lower bounds as chosen, constant extents) reaches below
    index 0 along some dimension for some value of the outer IVs."""
    box = region.box
    neg = isl.Val.int_from_si(box.get_ctx(), -1)
    return any(not box.upper_bound_val(isl.dim_type.set, d, neg).is_empty()
               for d in range(region.rank))


class AffineDataCopyGeneratePass(Pass):
    name = "affine-data-copy-generate"
    summary = "Generate explicit copying for affine memory operations"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if func.is_declaration:
                continue
            self.start_func(func)
            self.run_on_block(func.body)

    # ---- ranges and recursion (MLIR's runOnBlock) ----------------------------------------
    def run_on_block(self, block: Block) -> None:
        def startable(op: Operation) -> bool:
            return (isinstance(op, AffineLoadOp | AffineStoreOp | AffineForOp)
                    and id(op) not in self._copy_nests and not is_dma_nest(op))

        ops = list(block.ops)
        i = next((k for k, op in enumerate(ops) if startable(op)), len(ops))
        cur = i
        while i < len(ops):
            op = ops[i]
            if isinstance(op, AffineForOp) and id(op) not in self._copy_nests and not is_dma_nest(op):
                self.generate(ops[cur:i])
                if self.options.skip_non_unit_stride_loops:
                    recurse = op.step != 1
                elif self._depth < self.options.copy_depth:
                    recurse = True
                else:
                    recurse = self.exceeds_capacity(op)
                if recurse:
                    self._regions_of = None  # the body changes below
                    self._depth += 1
                    self.run_on_block(op.body)
                    self._depth -= 1
                else:
                    self.generate([op])
                ops = list(block.ops)
                i = ops.index(op) + 1 if op.parent_block is block else len(ops)
                i = next((k for k in range(i, len(ops)) if startable(ops[k])), len(ops))
                cur = i
            elif isinstance(op, AffineDmaStartOp | AffineDmaWaitOp):
                # a copy of the level above ends a range: a range holding it would rewrite
                # its buffer operand to this level's buffer and place this level's copy-out
                # after it and after the level above's dealloc (fuzz seed 2022)
                self.generate(ops[cur:i])
                ops = list(block.ops)
                i = ops.index(op) + 1
                i = next((k for k in range(i, len(ops)) if startable(ops[k])), len(ops))
                cur = i
            else:
                i += 1
        tail = [op for op in ops[cur:] if not op.IS_TERMINATOR]
        self.generate(tail)

    def exceeds_capacity(self, loop: AffineForOp) -> bool:
        """MLIR's footprint test; when the bounding boxes do not fit, disjoint reference
        groups (which would get separate buffers) are counted separately before recursing."""
        if allocates_slow_buffer(loop, self.options.slow_mem_space):
            return True                   # its copies can only go below the buffer's alloc
        cap = self.options.capacity_bytes
        if cap is None or any(isinstance(op, AffineParallelOp) for op in loop.walk()):
            return False
        from compiler.analysis import memref_regions

        found = memref_regions([loop])
        self._regions_of = (loop, found)  # `generate([loop])` next when it fits: not again
        regions = [(m, r) for m, r in found.items()
                   if m.type.memory_space == self.options.slow_mem_space  # type: ignore[attr-defined]
                   and not defined_inside(m, loop)]
        sizes = [r.size_bytes() for _, r in regions]
        if any(x is None for x in sizes):
            return False                  # unknown footprint: assume it fits, as MLIR does
        cap -= self._held_during(loop)    # buffers hoisted around it stay live inside it
        if sum(sizes) <= cap:  # type: ignore[arg-type]
            return False
        total = 0
        for m, r in regions:
            total += sum(p.size_bytes() for p, _ in split_disjoint(m, r, [loop]))  # type: ignore[misc]
        return total > cap

    # ---- one range (MLIR's affineDataCopyGenerate) --------------------------------------
    def start_func(self, func: FuncOp) -> None:
        """Copy into `func` one range at a time (upstream's test pass drives `generate`)."""
        self._func = func
        self._depth = 0                       # loops entered by run_on_block (copy-depth)
        self._copy_nests: set[int] = set()
        # the regions `exceeds_capacity` computed for a loop, which `generate` takes when it is
        # asked for that loop next (nothing changes the IR in between); None once taken
        self._regions_of: tuple[Operation, dict[Value, MemRefRegion]] | None = None
        self.copy_roots: list[Operation] = []   # the roots of every copy emitted, in order
        # buffers hoisted over loops their region depends on (`hoist-over-dependent-loops`):
        # (the loop they were placed before, bytes); live during that loop's execution
        self._held: list[tuple[Operation, int]] = []
        # the range being copied, for hoisting: fast allocs inside its outermost loop before
        # its copies, its regions' bytes, the original bytes of its regions hoisted so far
        self._range_allocs: list[tuple[Operation, int]] = []
        self._range_bytes = 0
        self._range_hoisted = 0

    def generate(self, range_ops: Sequence[Operation], only_memref: Value | None = None,
                 strict_capacity: bool = True) -> None:
        """Copies for every slow memref the range accesses (`only_memref`: that one alone,
        upstream's filterMemRef). Buffers over `fast-mem-capacity` in total are an error, or
        with `strict_capacity=False` a remark, the copies kept (upstream's warning)."""
        range_ops = [op for op in range_ops if not op.IS_TERMINATOR]
        if not range_ops:
            return
        from compiler.analysis import memref_regions

        par = next((op for root in range_ops for op in root.walk() if isinstance(op, AffineParallelOp)),
                   None)
        if par is not None:
            self.remark(par.loc, "no copies around an affine.parallel band (the analysis does not "
                                 "model it)")
            return
        kept, self._regions_of = self._regions_of, None
        regions = kept[1] if kept is not None and len(range_ops) == 1 and range_ops[0] is kept[0] \
            else memref_regions(range_ops)
        opts = self.options
        loc = range_ops[0].loc
        if opts.hoist_over_dependent_loops:
            self._start_range(range_ops, regions)
        jobs = self._jobs(range_ops, regions, only_memref, loc)
        cap = opts.capacity_bytes
        if cap is not None and opts.skip_oversized:
            jobs = self._fitting(jobs, cap, loc)
        total = 0
        for memref, region, ops, only in jobs:
            # one buffer for all the memref's references of the range: it may be widened
            total += self._emit_one(memref, region, ops, only,
                                    union=only is None and ops is range_ops)
        if cap is not None and total > cap and not strict_capacity:
            self.remark(loc, f"the copy buffers for this block need {total} bytes of fast memory, "
                             f"more than fast-mem-capacity ({cap} bytes); copies kept (upstream "
                             "warns alike)")
        elif cap is not None and total > cap:
            raise CopyCapacityError(f"affine-data-copy-generate: the copy buffers for this block need "
                                    f"{total} bytes of fast memory, {cap} bytes available "
                                    f"(fast-mem-capacity={opts.fast_mem_capacity} KiB), even at the "
                                    "innermost level", loc)

    def _jobs(self, range_ops: Sequence[Operation], regions: Mapping[Value, MemRefRegion],
              only_memref: Value | None, loc: Location) -> list[_Job]:
        """The buffers `generate` makes for the range, in order: (memref, region, the ops it
        serves, the accesses of a disjoint group or None for all)."""
        opts = self.options
        jobs: list[_Job] = []
        for memref, region in self._ordered(range_ops, regions):
            mt = memref.type
            assert isinstance(mt, MemRefType)
            if mt.memory_space != opts.slow_mem_space or mt.rank == 0:
                continue
            if only_memref is not None and memref is not only_memref:
                continue
            if any(defined_inside(memref, op) or any(r is memref for r in op.results)
                   for op in range_ops):
                after = self._after_definition(memref, range_ops)
                if after:    # defined by an op of the range: copies go after it (upstream's too)
                    job = self._copy_after_definition(memref, after, loc)
                    if job is not None:
                        jobs.append(job)
                continue
            if any(opaque_memref_uses(op, memref) for op in range_ops):
                self.remark(loc, f"no copy for %{memref.name_hint or '?'}: an op of unknown memory "
                                 "effect takes it in this range")
                continue
            if any(e is None for e in region.extents) or not mt.has_static_shape:
                self.remark(loc, f"no copy for %{memref.name_hint or '?'}: its region has no constant "
                                 "size at this depth")
                continue
            if region.num_elements == 0:
                continue
            parts = split_disjoint(memref, region, range_ops)
            if len(parts) > 1:
                self.remark(region_loc(range_ops, memref),
                            f"%{memref.name_hint or '?'}: {len(parts)} disjoint groups of references get "
                            "separate fast buffers instead of one bounding box")
            jobs += [(memref, part_region, range_ops, part_ops) for part_region, part_ops in parts]
        return jobs

    def _fitting(self, jobs: list[_Job], cap: int, loc: Location) -> list[_Job]:
        """`jobs` when their buffers fit in `cap` bytes together; else the memrefs whose
        buffers fit, smallest first (a memref's groups all or none), the others left in slow
        memory with a remark (`skip-oversized`)."""
        sizes = [self._buffer_bytes(*job) for job in jobs]
        if sum(sizes) <= cap:
            return jobs
        per: dict[int, int] = {}
        for (memref, *_), size in zip(jobs, sizes, strict=True):
            per[id(memref)] = per.get(id(memref), 0) + size
        kept: set[int] = set()
        used = 0
        for key, size in sorted(per.items(), key=lambda kv: kv[1]):
            if used + size <= cap:
                kept.add(key)
                used += size
        for memref in {id(j[0]): j[0] for j in jobs if id(j[0]) not in kept}.values():
            self.remark(loc, f"no copy for %{memref.name_hint or '?'}: its buffers need "
                             f"{per[id(memref)]} bytes, and the block's buffers do not fit "
                             f"fast-mem-capacity ({cap} bytes) even at the innermost level; "
                             "accessed in slow memory (skip-oversized)")
        return [job for job in jobs if id(job[0]) in kept]

    @staticmethod
    def _buffer_bytes(memref: Value, region: MemRefRegion, range_ops: Sequence[Operation],
                      only: Sequence[Operation] | None) -> int:
        """The bytes of the fast buffer `_emit_one` allocates for this job (its box, the last
        dim compacted to the accessed lattice)."""
        mt = memref.type
        assert isinstance(mt, MemRefType)
        accesses = [op for root in range_ops for op in root.walk()
                    if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref
                    and (only is None or any(op is o for o in only))]
        k = lattice_step(region, accesses)
        extents = [int(e) for e in region.extents]
        if k > 1:
            extents[-1] = (extents[-1] - 1) // k + 1
        return MemRefType(tuple(extents), mt.element, 0).size_bytes

    @staticmethod
    def _after_definition(memref: Value, range_ops: Sequence[Operation]) -> list[Operation]:
        """The ops of the range after the one defining `memref` and before its dealloc; []
        unless a top-level op of the range defines it."""
        for k, op in enumerate(range_ops):
            if any(r is memref for r in op.results):
                out: list[Operation] = []
                for o in range_ops[k + 1:]:
                    if o.IS_TERMINATOR or (isinstance(o, DeallocOp) and o.operands[0] is memref):
                        break
                    out.append(o)
                return out
        return []

    def _copy_after_definition(self, memref: Value, ops: Sequence[Operation], loc: Location
                               ) -> _Job | None:
        from compiler.analysis import memref_regions

        region = memref_regions(ops).get(memref)
        if region is None or region.num_elements == 0:
            return None
        if any(e is None for e in region.extents):
            self.remark(loc, f"no copy for %{memref.name_hint or '?'}: its region has no constant "
                             "size at this depth")
            return None
        if any(opaque_memref_uses(op, memref) for op in ops):
            return None
        return (memref, region, ops, None)

    def _emit_one(self, memref: Value, region: MemRefRegion, range_ops: Sequence[Operation],
                  only: Sequence[Operation] | None, union: bool = False) -> int:
        opts = self.options
        asked = region
        before, after, region = self._placement(memref, region, range_ops, union)
        # the ops the region covers: the range, or (widened over a loop) the loop hoisted over
        scope = list(range_ops) if region is asked else [before]
        place = Placement(before, after)
        accesses = [op for root in range_ops for op in root.walk()
                    if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref
                    and (only is None or any(op is o for o in only))]
        k = lattice_step(region, accesses)
        box = region.clipped_box if k == 1 else lattice_box(region, k)
        limits, clipped = accessed_limits(region)
        box = clip_box(box, limits)
        # a buffer of the level above (a partial tile of it): clip to what is accessed
        uppers, box = exact_uppers(region, box) if k == 1 else ((), box)
        clipped = tuple(c or bool(uppers and uppers[d]) for d, c in enumerate(clipped))
        # a box starting below index 0 for some outer IVs (a lower bound of the accessed
        # elements that is a max of affine functions, e.g. a tile of a triangular loop inside
        # a level-above buffer starting at the diagonal): a DMA would move elements outside
        # the memref, so both copies go point-wise, element by element
        below = _starts_below_zero(region)
        dense = region.written and not below and box.is_subset(region.written_set) \
            and _box_everywhere(region, scope, box)
        loc = only[0].loc if only else region_loc(range_ops, memref)
        # no copy-in where no load can see a value from before one execution of the copy
        # point and the copy-out writes back only stored elements (`analysis/exposed.py`)
        block = list(range_ops) if before is range_ops[0] else [before]
        read = region.read and (not (dense and opts.elide_dead_copy_in)
                                or copy_in_needed(memref, block))
        spec = CopySpec(memref, tuple(region.lower), tuple(int(e) for e in region.extents),
                        clipped, read, region.written, dense, loc, k, limits, uppers,
                        opts.exact_copy_out or below,
                        read and (below or (opts.exact_copy_in and not box.is_subset(region.exact))),
                        opts.max_dma_rows)
        if k > 1:
            self.remark(loc, f"%{memref.name_hint or '?'}: one element in {k} of the last dimension is "
                             f"accessed; the buffer is compacted to {spec.buffer_shape}")
        emitted = emit_copies(spec, range_ops, place, self._func, opts.generate_dma and not opts.one_space,
                              opts.fast_mem_space, opts.tag_mem_space,
                              only=None if only is None else {id(o) for o in only}, scope=block)
        place.finish()
        for op in emitted.copy_ops:
            self._copy_nests.add(id(op))
            self.copy_roots.append(op)
        for note in emitted.notes:
            self.remark(spec.loc, note)
        return emitted.buffer_bytes

    def _ordered(self, range_ops: Sequence[Operation], regions: Mapping[Value, MemRefRegion]
                 ) -> list[tuple[Value, MemRefRegion]]:
        seen: list[Value] = []
        for root in range_ops:
            for op in root.walk():
                if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref in regions \
                        and not any(op.memref is s for s in seen):
                    seen.append(op.memref)
        return [(m, regions[m]) for m in seen]

    def _placement(self, memref: Value, region: MemRefRegion, range_ops: Sequence[Operation],
                   union: bool = False) -> tuple[Operation, Operation, MemRefRegion]:
        """Hoist above enclosing loops whose IV the region does not involve, when nothing
        else in that loop touches the memref; with `hoist-over-dependent-loops` (and `union`:
        one buffer for the memref's references) also above a loop it involves whose
        iterations re-read elements, the region widened to the union of the loop's
        iterations, when that fits (`_union_over`). The region the copies take is returned."""
        before, after = range_ops[0], range_ops[-1]
        cur = range_ops[0].parent_op
        inside = list(range_ops)
        if self.options.copy_depth and not self.options.hoist_read_copies and not region.written:
            return before, after, region
        original = region
        while isinstance(cur, AffineForOp):
            if defined_inside(memref, cur):
                break
            if touched_elsewhere(cur, memref, inside):
                break
            if depends_on(region, cur.iv) or any(any(v is cur.iv for v in e.operands)
                                                 for e in region.lower):
                wider = self._union_over(cur, memref, region, original) \
                    if union and self.options.hoist_over_dependent_loops else None
                if wider is None:
                    break
                region = wider
            before = after = cur
            inside = [cur]
            cur = cur.parent_op
        if region is not original:
            self._held.append((before, region.size_bytes() or 0))
            self._range_hoisted += original.size_bytes() or 0
        return before, after, region

    # ---- hoisting over dependent loops (`hoist-over-dependent-loops`) ------------------------
    def _start_range(self, range_ops: Sequence[Operation], regions: Mapping[Value, MemRefRegion]
                     ) -> None:
        """What the capacity test of a hoist needs to know of the range before its copies."""
        top: Operation | None = None
        cur = range_ops[0].parent_op
        while isinstance(cur, AffineForOp):
            top, cur = cur, cur.parent_op
        space = self.options.fast_mem_space
        self._range_allocs = [] if top is None else [
            (op, op.result.type.size_bytes) for op in top.walk()  # type: ignore[attr-defined]
            if isinstance(op, AllocOp) and op.result.type.memory_space == space]  # type: ignore[attr-defined]
        self._range_bytes = sum(r.size_bytes() or 0 for m, r in regions.items()
                                if m.type.memory_space == self.options.slow_mem_space)  # type: ignore[attr-defined]
        self._range_hoisted = 0

    def _held_during(self, loop: Operation) -> int:
        """Bytes of the buffers hoisted around `loop` or a loop enclosing it (none when no
        function is being copied: `exceeds_capacity` asked alone, as the DSE feasibility does)."""
        held = getattr(self, "_held", None)
        if not held:
            return 0
        chain: list[Operation] = []
        cur: Operation | None = loop
        while cur is not None:
            chain.append(cur)
            cur = cur.parent_op
        return sum(b for op, b in held if any(op is c for c in chain))

    def _union_over(self, loop: AffineForOp, memref: Value, region: MemRefRegion,
                    original: MemRefRegion) -> MemRefRegion | None:
        """The region of `memref` over every iteration of `loop` (its IV projected out), when
        the loop's iterations re-read elements of `region` and the union's box fits beside the
        buffers live in the loop; else None."""
        from compiler.analysis import memref_regions

        if not reused_across(region, loop.iv):
            return None
        wide = memref_regions([loop]).get(memref)
        if wide is None or any(e is None for e in wide.extents) or wide.num_elements == 0:
            return None
        cap = self.options.capacity_bytes
        new = wide.size_bytes() or 0
        if cap is not None:
            inside = sum(b for op, b in self._range_allocs if _encloses(loop, op))
            live = (self._held_during(loop) + inside + self._range_bytes - self._range_hoisted
                    - (original.size_bytes() or 0) + new)
            if live > cap:
                return None
        self.remark(region_loc([loop], memref),
                    f"copies of %{memref.name_hint or '?'} hoisted over the loop at {loop.loc}, whose "
                    f"iterations re-read its elements: one copy of their union ({new} bytes)")
        return wide


def _encloses(loop: Operation, op: Operation) -> bool:
    cur = op.parent_op
    while cur is not None:
        if cur is loop:
            return True
        cur = cur.parent_op
    return False


def _box_everywhere(region: MemRefRegion, range_ops: Sequence[Operation], box: isl.Set) -> bool:
    """Is the box non-empty wherever the copy runs (the outer loops' domain at the copy point)?
    Where the nest accesses nothing (its loops are empty for those symbol values) the box is
    empty, yet a whole-box copy-out would still run and write back what no one wrote."""
    outer = enclosing_loops(range_ops[0])
    param_loops = [lp for lp in outer if any(lp.iv is p for p in region.params)]
    ctx, _ = region_context(list(range_ops), param_loops)
    # [symbols, outer IVs] -> { : the copy point is reached }
    ctx = ctx.align_params(box.get_space())
    return ctx.is_subset(box.params().align_params(ctx.get_space()))
