"""`affine-data-copy-generate`: copy the slow-memory data a loop nest touches into fast buffers.

Placement follows MLIR's AffineDataCopyGeneration.cpp: each block is cut into ranges (every
`affine.for` is its own range; a run of loads/stores between loops is one); a loop whose
footprint exceeds `fast-mem-capacity` is not copied at its level but recursed into. For each
range, one region per slow memref (bounding box of all its accesses, from the analysis), one
fast buffer, copy-in if read, copy-out if written, accesses rewritten relative to the box.
Copies are hoisted above surrounding loops the region does not depend on (MLIR's
findHighestBlockForPlacement), but only when no other op in those loops touches the memref.

Differences from upstream, all on purpose (see copy_emit.py): clipped partial tiles, exact
copy-out of sparse writes, multi-level-stride DMAs as loop nests, an error (not a warning)
when even the innermost level does not fit, and groups of references to one memref whose
elements never overlap get separate buffers when that is smaller than one bounding box (the
groups' regions come from the analysis, queried with a stand-in memref per group).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from compiler.diagnostics import PassError
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp, FuncOp, ModuleOp
from compiler.ir.types import MemRefType
from compiler.transforms.copy_emit import CopySpec, Placement, emit_copies
from compiler.transforms.copy_ir import ancestor_in_block, defined_inside
from compiler.transforms.pass_base import Pass
from compiler.transforms.registry import register


@dataclass(frozen=True)
class Options:
    generate_dma: bool = True
    fast_mem_space: int = 1
    slow_mem_space: int = 0
    tag_mem_space: int = 0
    fast_mem_capacity: int | None = None    # KiB; None = unlimited
    min_dma_transfer: int = 1024            # bytes (accepted for mlir-opt compatibility)
    skip_non_unit_stride_loops: bool = False

    def __post_init__(self) -> None:
        for name in ("fast_mem_space", "slow_mem_space", "tag_mem_space"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name.replace('_', '-')} must be >= 0, got {getattr(self, name)}")
        if self.fast_mem_space == self.slow_mem_space:
            raise ValueError(f"fast-mem-space and slow-mem-space are both {self.fast_mem_space}")
        if self.fast_mem_capacity is not None and self.fast_mem_capacity < 0:
            raise ValueError(f"fast-mem-capacity must be >= 0 KiB, got {self.fast_mem_capacity}")

    @property
    def capacity_bytes(self) -> int | None:
        return None if self.fast_mem_capacity is None else self.fast_mem_capacity * 1024


@register
class AffineDataCopyGenerate(Pass):
    name = "affine-data-copy-generate"
    summary = "Generate explicit copying for affine memory operations"
    Options = Options

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if func.is_declaration:
                continue
            self._func = func
            self._copy_nests: set[int] = set()
            self.run_on_block(func.body)

    # ---- ranges and recursion (MLIR's runOnBlock) ----------------------------------------
    def run_on_block(self, block: Block) -> None:
        def startable(op: Operation) -> bool:
            return (isinstance(op, AffineLoadOp | AffineStoreOp | AffineForOp)
                    and id(op) not in self._copy_nests)

        ops = list(block.ops)
        i = next((k for k, op in enumerate(ops) if startable(op)), len(ops))
        cur = i
        while i < len(ops):
            op = ops[i]
            if isinstance(op, AffineForOp) and id(op) not in self._copy_nests:
                self.generate(ops[cur:i])
                if self.options.skip_non_unit_stride_loops:
                    recurse = op.step != 1
                else:
                    recurse = self.exceeds_capacity(op)
                if recurse:
                    self.run_on_block(op.body)
                else:
                    self.generate([op])
                ops = list(block.ops)
                i = ops.index(op) + 1 if op.parent_block is block else len(ops)
                i = next((k for k in range(i, len(ops)) if startable(ops[k])), len(ops))
                cur = i
            else:
                i += 1
        tail = [op for op in ops[cur:] if not op.IS_TERMINATOR]
        self.generate(tail)

    def exceeds_capacity(self, loop: AffineForOp) -> bool:
        """MLIR's footprint test; when the bounding boxes do not fit, disjoint reference
        groups (which would get separate buffers) are counted separately before recursing."""
        cap = self.options.capacity_bytes
        if cap is None:
            return False
        from compiler.analysis import memref_regions

        regions = [(m, r) for m, r in memref_regions([loop]).items()
                   if m.type.memory_space == self.options.slow_mem_space  # type: ignore[attr-defined]
                   and not defined_inside(m, loop)]
        sizes = [r.size_bytes() for _, r in regions]
        if any(x is None for x in sizes):
            return False                  # unknown footprint: assume it fits, as MLIR does
        if sum(sizes) <= cap:  # type: ignore[arg-type]
            return False
        total = 0
        for m, r in regions:
            total += sum(p.size_bytes() for p, _ in split_disjoint(m, r, [loop]))  # type: ignore[misc]
        return total > cap

    # ---- one range (MLIR's affineDataCopyGenerate) --------------------------------------
    def generate(self, range_ops: Sequence[Operation]) -> None:
        range_ops = [op for op in range_ops if not op.IS_TERMINATOR]
        if not range_ops:
            return
        from compiler.analysis import memref_regions

        regions = memref_regions(range_ops)
        opts = self.options
        total = 0
        loc = range_ops[0].loc
        for memref, region in self._ordered(range_ops, regions):
            mt = memref.type
            assert isinstance(mt, MemRefType)
            if mt.memory_space != opts.slow_mem_space or mt.rank == 0:
                continue
            if any(defined_inside(memref, op) for op in range_ops):
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
            for part_region, part_ops in parts:
                total += self._emit_one(memref, part_region, range_ops, part_ops)
        cap = opts.capacity_bytes
        if cap is not None and total > cap:
            raise PassError(f"affine-data-copy-generate: the copy buffers for this block need {total} "
                            f"bytes of fast memory, {cap} bytes available (fast-mem-capacity="
                            f"{opts.fast_mem_capacity} KiB), even at the innermost level", loc)

    def _emit_one(self, memref: Value, region, range_ops: Sequence[Operation],  # type: ignore[no-untyped-def]
                  only: Sequence[Operation] | None) -> int:
        opts = self.options
        before, after = self._placement(memref, region, range_ops)
        place = Placement(before, after)
        accesses = [op for root in range_ops for op in root.walk()
                    if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref
                    and (only is None or any(op is o for o in only))]
        k = lattice_step(region, accesses)
        box = region.clipped_box if k == 1 else lattice_box(region, k)
        limits, clipped = accessed_limits(region)
        box = clip_box(box, limits)
        dense = region.written and box.is_subset(region.written_set)
        loc = only[0].loc if only else region_loc(range_ops, memref)
        spec = CopySpec(memref, tuple(region.lower), tuple(int(e) for e in region.extents),
                        clipped, region.read, region.written, dense, loc, k, limits)
        if k > 1:
            self.remark(loc, f"%{memref.name_hint or '?'}: one element in {k} of the last dimension is "
                             f"accessed; the buffer is compacted to {spec.buffer_shape}")
        emitted = emit_copies(spec, range_ops, place, self._func, opts.generate_dma,
                              opts.fast_mem_space, opts.tag_mem_space,
                              only=None if only is None else {id(o) for o in only})
        place.finish()
        for op in emitted.copy_ops:
            self._copy_nests.add(id(op))
        for note in emitted.notes:
            self.remark(spec.loc, note)
        return emitted.buffer_bytes

    def _ordered(self, range_ops: Sequence[Operation], regions: dict) -> list:  # type: ignore[type-arg]
        seen: list[Value] = []
        for root in range_ops:
            for op in root.walk():
                if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref in regions \
                        and not any(op.memref is s for s in seen):
                    seen.append(op.memref)
        return [(m, regions[m]) for m in seen]

    def _placement(self, memref: Value, region, range_ops: Sequence[Operation]  # type: ignore[no-untyped-def]
                   ) -> tuple[Operation, Operation]:
        """Hoist above enclosing loops whose IV the region does not involve, when nothing
        else in that loop touches the memref."""
        before, after = range_ops[0], range_ops[-1]
        cur = range_ops[0].parent_op
        inside = list(range_ops)
        while isinstance(cur, AffineForOp):
            if _depends_on(region, cur.iv):
                break
            if any(any(v is cur.iv for v in e.operands) for e in region.lower):
                break
            if defined_inside(memref, cur):
                break
            if _touched_elsewhere(cur, memref, inside):
                break
            before = after = cur
            inside = [cur]
            cur = cur.parent_op
        return before, after


def lattice_step(region, accesses: Sequence[Operation]) -> int:  # type: ignore[no-untyped-def]
    """k > 1 when every access's last index is `lower + k * (something)` (strided accesses:
    the buffer keeps only those elements); 1 otherwise."""
    from math import gcd

    from compiler.transforms.copy_ir import map_exprs

    if not accesses or not region.lower or (region.extents[-1] or 0) <= 1:
        return 1
    lower = region.lower[-1]
    g = 0
    for op in accesses:
        e = map_exprs(op.map, op.indices)[-1] - lower  # type: ignore[attr-defined]
        lin = e.expr.linear_coeffs(len(e.operands), 0)
        if lin is None:
            return 1
        for c in [*lin[0], lin[2]]:
            g = gcd(g, c)
    return g if g > 1 else 1


def accessed_limits(region) -> tuple[tuple[int | None, ...], tuple[bool, ...]]:  # type: ignore[no-untyped-def]
    """Per dim, one past the largest element index any iteration accesses (a constant, when the
    outer loops bound it), capped by the memref's extent; and whether a tile's box can reach it.

    Copies are clipped there instead of at the memref's extent, so a partial tile of a nest
    that never touches the border (a stencil's interior) still has a dense, DMA-able box.
    """
    ex = region.exact
    # [params] -> { M[a] } to { M[a, params] }, then forget the parameters: every accessed element.
    nparam = ex.dim(isl.dim_type.param)
    rank = ex.dim(isl.dim_type.set)
    flat = ex.move_dims(isl.dim_type.set, rank, isl.dim_type.param, 0, nparam)
    flat = flat.project_out(isl.dim_type.set, rank, nparam)
    mt = region.memref.type
    limits: list[int | None] = []
    clipped: list[bool] = []
    for d in range(rank):
        size = mt.shape[d]
        hi = flat.dim_max_val(d) if not flat.is_empty() else None
        lim = size
        if hi is not None and hi.is_int():
            top = int(hi.to_python()) + 1
            lim = top if size is None else min(int(size), top)
        limits.append(lim)
    box = region.box
    for d in range(rank):
        lim = limits[d]
        # A dim needs clipping when some tile's box (lower + extent) passes the limit.
        if lim is None:
            clipped.append(bool(region.clipped[d]))
        else:
            only_d = [None] * rank
            only_d[d] = lim
            clipped.append(not box.is_subset(clip_box(box, only_d)))
    return tuple(limits), tuple(clipped)


def clip_box(box, limits: Sequence[int | None]):  # type: ignore[no-untyped-def]
    """`box` with `a_d < limits[d]` added along every dim that has a limit."""
    for d, lim in enumerate(limits):
        if lim is None:
            continue
        space = box.get_space()
        c = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(space))
        c = c.set_coefficient_val(isl.dim_type.set, d, -1).set_constant_val(lim - 1)
        box = box.add_constraint(c)
    return box


def lattice_box(region, k: int):  # type: ignore[no-untyped-def]
    """The clipped box restricted to the last-dim residue class of the accessed elements."""
    ex = region.exact
    r = ex.dim(isl.dim_type.set)
    name = ex.get_tuple_name() if ex.has_tuple_name() else ""
    a = ", ".join(f"a{i}" for i in range(r))
    b = ", ".join(f"b{i}" for i in range(r))
    same = isl.Map(f"{{ {name}[{a}] -> {name}[{b}] : exists (q : b{r - 1} = a{r - 1} + {k} * q) }}",
                   context=ex.get_ctx())
    return region.clipped_box.intersect(ex.apply(same)).coalesce()


def split_disjoint(memref: Value, region, range_ops: Sequence[Operation]) -> list:  # type: ignore[no-untyped-def]
    """[(region, access ops)] per group of references to `memref` whose element sets never
    overlap another group's (for any outer IV values), when separate boxes are smaller than
    the one bounding box; else [(region, None)] (one buffer for every reference)."""
    accesses = [op for root in range_ops for op in root.walk()
                if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref]
    if len(accesses) < 2 or region.size_bytes() is None:
        return [(region, None)]
    patterns = {(str(op.map), tuple(id(v) for v in op.indices)) for op in accesses}  # type: ignore[attr-defined]
    if len(patterns) < 2:             # every reference touches the same elements
        return [(region, None)]
    singles = _probe(memref, range_ops, [[a] for a in accesses])
    if singles is None:
        return [(region, None)]
    parent = list(range(len(accesses)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    sets = [r.exact.reset_tuple_id() for r in singles]
    for a in range(len(accesses)):
        for b in range(a + 1, len(accesses)):
            if find(a) != find(b) and not sets[a].intersect(sets[b]).is_empty():
                parent[find(a)] = find(b)
    groups: dict[int, list[Operation]] = {}
    for k, op in enumerate(accesses):
        groups.setdefault(find(k), []).append(op)
    if len(groups) < 2:
        return [(region, None)]
    parts = _probe(memref, range_ops, list(groups.values()))
    if parts is None or any(p.size_bytes() is None for p in parts):
        return [(region, None)]
    if sum(p.size_bytes() for p in parts) >= region.size_bytes():
        return [(region, None)]
    return list(zip(parts, groups.values(), strict=True))


def _probe(memref: Value, range_ops: Sequence[Operation], groups: list[list[Operation]]) -> list | None:  # type: ignore[type-arg]
    """Regions of each group of accesses, from the analysis: each group is pointed at its own
    stand-in memref value for the query, then restored."""
    from compiler.analysis import memref_regions

    stand_ins = [Value(memref.type, memref.name_hint) for _ in groups]
    saved: list[tuple[Operation, list[Value]]] = []
    for group, fake in zip(groups, stand_ins, strict=True):
        for op in group:
            saved.append((op, list(op.operands)))
            op.operands = [fake if v is memref else v for v in op.operands]
    try:
        regions = memref_regions(range_ops)
    except Exception:
        return None
    finally:
        for op, operands in saved:
            op.operands = operands
    out = []
    for fake in stand_ins:
        r = regions.get(fake)
        if r is None or any(e is None for e in r.extents):
            return None
        out.append(_rebind(r, memref))
    return out


def _rebind(region, memref: Value):  # type: ignore[no-untyped-def]
    import dataclasses

    return dataclasses.replace(region, memref=memref)


def _depends_on(region, iv: Value) -> bool:  # type: ignore[no-untyped-def]
    """Does the accessed set change with `iv` (beyond the loop's own range constraints)?"""
    from compiler.analysis import isl_name

    if not any(p is iv for p in region.params):
        return False
    for s in (region.exact, region.written_set):
        pos = s.find_dim_by_name(isl.dim_type.param, isl_name(iv))
        if pos < 0:
            continue
        ctx = s.params()
        free = s.eliminate(isl.dim_type.param, pos, 1).intersect_params(ctx)
        if not free.is_equal(s):
            return True
    return False


def _touched_elsewhere(loop: AffineForOp, memref: Value, inside: Sequence[Operation]) -> bool:
    from compiler.transforms.copy_ir import access_sites

    for op in loop.walk():
        if op is loop:
            continue
        if any(mem is memref for _, mem, _, _ in access_sites(op)):
            top = ancestor_in_block(op, inside[0].parent_block)  # type: ignore[arg-type]
            if top is None or not any(top is r for r in inside):
                return True
    return False


def region_loc(range_ops: Sequence[Operation], memref: Value):  # type: ignore[no-untyped-def]
    """The location of the first access to `memref` in the range (copies take it)."""
    for root in range_ops:
        for op in root.walk():
            if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref:
                return op.loc
    return range_ops[0].loc


__all__ = ["AffineDataCopyGenerate", "Options", "FuncOp"]
