"""`affine-dma-forward`: a buffer written back to slow memory and read straight back into a
buffer of the same box is kept instead, and the write-back, when a later one of that box
from the same buffer makes it dead, dropped.

    %y_fast = alloc                                %y_fast = alloc
    affine.for ... { y_fast[i] = 0 }               affine.for ... { y_fast[i] = 0 }
    dma_start %y_fast[0], %y[0], %t[0], %n
    dma_wait %t[0], %n
    dealloc %y_fast
    %y_fast_0 = alloc                        ->
    dma_start %y[0], %y_fast_0[0], %t2[0], %n
    dma_wait %t2[0], %n
    affine.for ... { ... %y_fast_0 ... }           affine.for ... { ... %y_fast ... }
    dma_start %y_fast_0[0], %y[0], %t3[0], %n      dma_start %y_fast[0], %y[0], %t3[0], %n

The copy pass gives each nest of a function its own buffers (upstream's
`affine-data-copy-generate`: one block range per nest), so an array one nest writes and the
next one reads goes to slow memory and back between them (PolyBench's atax and bicg zero
an output vector in a nest of their own). Not an upstream mlir-opt pass; this project runs
it after the copies and their pipelining in the accelerator pipeline.

A copy-out whose next op touching its memref is a copy-out of the same box from the same
buffer is dead and goes (an earlier pass dropped the read-back between them: `affine-copy-
forward`). In a function's body, a copy-out (a start from a buffer of `fast-mem-space`,
allocated in the body, to a memref of another space) whose next op touching that memref is a
copy-in of the same box (same map and index values on the memref side and on the buffer
side, the same count, neither strided) into a buffer of the same type: the copy-in and its
waits go, its buffer's uses take the first buffer, which lives on (no op between uses it but
its dealloc, which goes; it moves only when the first buffer fits the fast memory beside
every op up to the second's alloc, `fast-mem-capacity` KiB). The copy-out then stays, unless
the next op touching the memref is a copy-out of the same box from the same buffer: no one
read what it wrote, and the later one writes it all again. A write-back of some rows of the
box read back (a scalar a function's prologue stores into the first element of a vector its
loop then reads: durbin's `y[0]`), when the next op touching the memref after the read-back
writes that whole box back from its buffer: the first buffer's loads and stores go to those
rows of the second buffer, whose copy-in starts, and is waited for, where the first buffer
was allocated (where the second fits the fast memory beside every op it then passes, and no
op it passes touches the memref); the write-back is dead and goes. Distinct memref values
are taken not to alias; a function holding a view op is left alone. The program computes the
same values in the same order; the memref ends with the same contents.
"""

from __future__ import annotations

from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Block, Operation, OpResult, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineLoadOp,
    AffineStoreOp,
    AllocOp,
    ConstantOp,
    DeallocOp,
    FuncOp,
    ModuleOp,
)
from compiler.ir.types import MemRefType
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.dma_motion import (
    Capacity,
    FastMemoryOptions,
    alloc_of,
    fits,
    has_views,
    live_profile,
    memory_space,
    unknown_effects,
)
from compiler.transforms.rewrite.memref_uses import rewrite_memref

Options = FastMemoryOptions


class AffineDmaForwardPass(Pass):
    name = "affine-dma-forward"
    summary = "keep a buffer written back and read straight back on chip"
    Options = Options
    options: Options

    CAPACITY_OPTION = "fast_mem_capacity"   # decisions by comparisons: `capacity_range`

    def run(self, module: ModuleOp) -> None:
        cap = Capacity(self.options.fast_mem_capacity)
        space = self.options.fast_mem_space
        for func in module.funcs:
            if func.is_declaration or has_views(func):
                continue
            while True:
                done = _forward_one(module, func, space, cap)
                if done is None:
                    break
                self.remark(done.loc, f"{_name(done.dst)} kept on chip: a write-back (and "
                                      "read-back) between nests dropped")
        self.capacity_range = cap.range


def _forward_one(module: ModuleOp, func: FuncOp, space: int, capacity: Capacity
                 ) -> AffineDmaStartOp | None:
    """Forward one round trip of `func`'s body; the copy-out it starts from, or None."""
    block = func.body
    for out in [op for op in block.ops if _is_copy_out(op, space)]:
        assert isinstance(out, AffineDmaStartOp)
        buf1, mem = out.src, out.dst
        alloc1 = _alloc_in(block, buf1)
        if alloc1 is None:
            continue
        nxt = _next_touching(module, block, out, mem)
        if isinstance(nxt, AffineDmaStartOp) and nxt.src is buf1 and nxt.dst is mem \
                and _same_box(out, nxt, flip=False):
            _drop_transfer(block, out)     # no one reads what it writes; the next writes it all
            return out
        if not (isinstance(nxt, AffineDmaStartOp) and nxt.src is mem and memory_space(nxt.dst) == space):
            continue
        if not (nxt.dst.type == buf1.type and _same_box(out, nxt, flip=True)):
            if _merge(module, func, out, nxt, alloc1, space, capacity):
                return out
            continue
        inn = nxt
        buf2 = inn.dst
        alloc2 = _alloc_in(block, buf2)
        if alloc2 is None or block.index_of(alloc2) > block.index_of(inn):
            continue
        i_out, i_in = block.index_of(out), block.index_of(inn)
        between = block.ops[i_out + 1:i_in]
        if not any(isinstance(o, AffineDmaWaitOp) and o.tag is out.tag for o in between):
            continue     # the write-back must be done before the read-back starts
        dealloc1 = [o for o in between if isinstance(o, DeallocOp) and o.operands[0] is buf1]
        if any(_uses(o, buf1) for o in between if o not in dealloc1):
            continue
        if any(_uses(o, buf2) for o in block.ops[block.index_of(alloc2) + 1:i_in]):
            continue
        # the first buffer lives on to the second's uses: kept only where it fits
        where = [(o, block.index_of(o)) for o in dealloc1]
        for o in dealloc1:
            o.detach()
        if not fits(func, space, capacity):
            for o, k in where:
                block.ops.insert(k, o)
                o.parent_block = block
            continue
        _drop_transfer(block, inn)
        func.replace_uses_of(buf2, buf1)
        alloc2.erase()
        later = _next_touching(module, block, out, mem)
        if isinstance(later, AffineDmaStartOp) and later.src is buf1 and later.dst is mem \
                and _same_box(out, later, flip=False):
            _drop_transfer(block, out)
        return out
    return None


def _merge(module: ModuleOp, func: FuncOp, out: AffineDmaStartOp, inn: AffineDmaStartOp,
           alloc1: AllocOp, space: int, capacity: Capacity) -> bool:
    """The write-back `out` of a part of the box the copy-in `inn` reads back (rows
    [o1, o1 + a1) of `inn`'s [o2, o2 + a2), the other dimensions alike), when the next op
    touching the memref after `inn` writes `inn`'s box back from `inn`'s buffer: the first
    buffer's loads and stores go to those rows of the second, whose copy-in then starts (and
    is waited for) where the first buffer was allocated; `out` is dead. True when done."""
    block = func.body
    buf1, buf2, mem = out.src, inn.dst, out.dst
    alloc2 = _alloc_in(block, buf2)
    rows = _rows(out, buf1, out.dst_map, out.dst_indices, mem)
    rows2 = _rows(inn, buf2, inn.src_map, inn.src_indices, mem)
    if alloc2 is None or rows is None or rows2 is None:
        return False
    (o1, rest1), (o2, rest2) = rows, rows2
    t1, t2 = alloc1.memref_type, alloc2.memref_type
    if rest1 != rest2 or t1.shape[1:] != t2.shape[1:] or t1.element != t2.element \
            or not (o2 <= o1 and o1 + t1.shape[0] <= o2 + t2.shape[0]):
        return False
    # the first buffer: loads, stores, the write-back, deallocs; nothing else
    users = [o for top in block.ops for o in top.walk() if any(v is buf1 for v in o.operands)]
    if any(not (isinstance(o, AffineLoadOp | AffineStoreOp | DeallocOp) or o is out) for o in users):
        return False
    later = _next_touching(module, block, inn, mem)
    if not (isinstance(later, AffineDmaStartOp) and later.src is buf2 and later.dst is mem
            and _same_box(inn, later, flip=True)):
        return False     # `out` must be dead: `inn`'s whole box is written back later
    top, i_in = block.index_of(alloc1), block.index_of(inn)
    if block.index_of(alloc2) < top:
        return False
    waits = [o for o in block.ops[i_in + 1:] if isinstance(o, AffineDmaWaitOp) and o.tag is inn.tag]
    group = [o for o in (alloc2, alloc_of(inn.tag)) if o is not None and o.parent_block is block]
    defined = {id(r) for o in block.ops[top:i_in] for r in o.results}
    if any(id(v) in defined for o in (*group, inn, *waits) for v in o.operands
           if v is not alloc2.result and v is not inn.tag):
        return False
    if any(o is not out and (_uses(o, mem) or unknown_effects(module, o) or _uses(o, buf2)
                             or _uses(o, inn.tag)) for o in block.ops[top:i_in] if o not in group):
        return False
    size2 = t2.size_bytes
    prof = live_profile(block, space)
    if not all(capacity.holds(prof[k] + size2) for k in range(top, i_in)):
        return False
    delta = o1 - o2
    rewrite_memref(block.ops, buf1, buf2, lambda ix: [ix[0] + delta, *ix[1:]])
    for o in users:
        if isinstance(o, DeallocOp):
            o.erase()
    for o in (*group, inn, *waits):
        o.detach()
        block.insert_before(alloc1, o)
    _drop_transfer(block, out)
    alloc1.erase()
    return True


def _rows(dma: AffineDmaStartOp, buf: Value, map_: AffineMap, indices: list[Value], mem: Value
          ) -> tuple[int, tuple[int, ...]] | None:
    """(first row, the other offsets) of the box a DMA of the whole of `buf` moves at `mem`'s
    constant offsets (its buffer side at 0, its count `buf`'s size, not strided), or None."""
    t = buf.type
    if not isinstance(t, MemRefType) or not t.has_static_shape or dma.is_strided or not t.shape:
        return None
    side = (dma.src_map, dma.src_indices) if dma.src is buf else (dma.dst_map, dma.dst_indices)
    if not side[0].is_constant or any(r.value != 0 for r in side[0].results):  # type: ignore[attr-defined]
        return None
    count = dma.num_elements.owner if isinstance(dma.num_elements, OpResult) else None
    if not (isinstance(count, ConstantOp) and count.value == t.num_elements):
        return None
    if not map_.is_constant or len(map_.results) != len(t.shape):
        return None
    offs = [r.value for r in map_.results]  # type: ignore[attr-defined]
    mt = mem.type
    if not isinstance(mt, MemRefType) or list(mt.shape[1:]) != list(t.shape[1:]) \
            or any(offs[1:]):
        return None     # (a contiguous box: whole rows)
    del indices
    return offs[0], tuple(offs[1:])


def _drop_transfer(block: Block, start: AffineDmaStartOp) -> None:
    """Erase `start`, the waits on its tag in `block` and its tag's alloc and dealloc when
    nothing else uses the tag."""
    tag = start.tag
    start.erase()
    for o in [o for o in block.ops if isinstance(o, AffineDmaWaitOp) and o.tag is tag]:
        o.erase()
    users = [o for top in block.ops for o in top.walk() if any(v is tag for v in o.operands)]
    if all(isinstance(o, DeallocOp) for o in users):
        for o in users:
            o.erase()
        owner = alloc_of(tag)
        if owner is not None and owner.parent_block is block:
            owner.erase()


def _is_copy_out(op: Operation, space: int) -> bool:
    return isinstance(op, AffineDmaStartOp) and memory_space(op.src) == space \
        and memory_space(op.dst) != space and not op.is_strided


def _alloc_in(block: Block, v: Value) -> AllocOp | None:
    a = alloc_of(v)
    return a if a is not None and a.parent_block is block and a.memref_type.has_static_shape else None


def _uses(op: Operation, v: Value) -> bool:
    return any(x is v for o in op.walk() for x in o.operands)


def _next_touching(module: ModuleOp, block: Block, after: Operation, mem: Value) -> Operation | None:
    """The first op of `block` after `after` that uses `mem` (with its nested ops), or may
    touch memory it is not given (`unknown_effects`)."""
    for op in block.ops[block.index_of(after) + 1:]:
        if _uses(op, mem) or unknown_effects(module, op):
            return op
    return None


def _same_box(a: AffineDmaStartOp, b: AffineDmaStartOp, flip: bool) -> bool:
    """The same box moved: `a`'s slow side is `b`'s slow side (`flip`: `b` moves the other
    way), the buffer sides alike, the same count; neither strided."""
    if a.is_strided or b.is_strided or not _same_value(a.num_elements, b.num_elements):
        return False
    a_sides = [(a.src_map, a.src_indices), (a.dst_map, a.dst_indices)]
    b_sides = [(b.src_map, b.src_indices), (b.dst_map, b.dst_indices)]
    if flip:
        b_sides.reverse()
    for (ma, ia), (mb, ib) in zip(a_sides, b_sides, strict=True):
        if ma != mb or len(ia) != len(ib) or not all(map(_same_value, ia, ib)):
            return False
    return True


def _same_value(x: Value, y: Value) -> bool:
    if x is y:
        return True
    cx = x.owner if isinstance(x, OpResult) else None
    cy = y.owner if isinstance(y, OpResult) else None
    return isinstance(cx, ConstantOp) and isinstance(cy, ConstantOp) and cx.value == cy.value \
        and x.type == y.type


def _name(v: Value) -> str:
    return f"%{v.name_hint}" if v.name_hint else "a buffer"


__all__ = ["AffineDmaForwardPass"]
