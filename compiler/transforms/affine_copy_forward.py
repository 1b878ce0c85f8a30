"""`affine-copy-forward`: a copy-in of a region that a fast buffer already holds is dropped,
and its nest reads that buffer instead (store-to-load forwarding of whole copies, across the
nests of a function's top level).

    affine.dma_start %E_fast[0, 0], %E[0, 0], %t1[0], %n     (nest 1 wrote E_fast; copy-out)
    affine.dma_wait %t1[0], %n
    memref.dealloc %E_fast                                   ->  (dealloc moved to E_fast_0's)
    %E_fast_0 = memref.alloc() : memref<40x50xf32, 1>
    affine.dma_start %E[0, 0], %E_fast_0[0, 0], %t2[0], %n   ->  (dropped, with its wait)
    affine.dma_wait %t2[0], %n
    affine.for ... %E_fast_0 ...                             ->  affine.for ... %E_fast ...

The copy pass places each nest's copies on its own (upstream's `affine-data-copy-generate`
does), so a result one nest writes back is read back by the next one through DRAM, and an
input every nest reads is copied in once per nest (PolyBench's 3mm, covariance). Not an
upstream mlir-opt pass; this project runs it after the pipelining pass.

A fast buffer B holds the slow region of a DMA between B and the slow memref X from that
DMA's start (a copy-in X -> B, or a copy-out B -> X) until an op writes B or X, or may (a
store, a DMA into it, a call, an op of a dialect we do not model). A later copy-in X -> B2 in
the same block whose transfer is the same (the slow side's map and indices, the element
count and strides, equal constants counting as equal; B2 of B's type, at the same indices)
is dropped when B2 is allocated in the block and the tag of the copy-in is used by nothing
but it and one wait: its start, wait and tag go, and B2's uses become B's. B's dealloc, if it
came earlier, goes (B2's dealloc, now B's, frees it), so B lives longer: only where the
fast memory's peak stays within `fast-mem-capacity`. A function whose memrefs may alias
(an op other than an alloc returns a memref: a view, a cast) is left alone.

Each load of the forwarded nest reads the value the dropped copy would have brought: the
value of X's element when the copy ran, which B holds since nothing wrote either; results
are bit-identical. A copy-out still in flight reads B while a later nest writes it: the
copy-out's wait, placed by `affine-dma-wait-sink`, comes before any op writing B.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineLoadOp,
    AllocOp,
    CallOp,
    ConstantOp,
    DeallocOp,
    FuncOp,
    ModuleOp,
)
from compiler.ir.ops.opaque import OpaqueOp
from compiler.ir.types import MemRefType
from compiler.transforms.data_copy.fast_memory import buffer_bytes
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.dma_motion import Capacity, FastMemoryOptions

Options = FastMemoryOptions


class AffineCopyForwardPass(Pass):
    name = "affine-copy-forward"
    summary = "drop a copy-in of a region a fast buffer already holds; read that buffer"
    Options = Options
    options: Options

    CAPACITY_OPTION = "fast_mem_capacity"   # decisions by comparisons: `capacity_range`

    def run(self, module: ModuleOp) -> None:
        self._cap = Capacity(self.options.fast_mem_capacity)
        for f in module.funcs:
            if f.is_declaration or _may_alias(f):
                continue
            while self._forward_one(f.body):
                pass
        self.capacity_range = self._cap.range

    def _forward_one(self, block: Block) -> bool:
        """Forward the first copy-in of `block` that can be; True when one was."""
        space = self.options.fast_mem_space
        held: list[_Held] = []
        for op in list(block.ops):
            if isinstance(op, AffineDmaStartOp):
                d = _direction(op, space)
                if d == "in":
                    key = _key(op, space)
                    for h in held:
                        if h.buffer is not op.dst and h.key == key and self._forward(block, op, h):
                            return True
            if isinstance(op, DeallocOp):
                held = [h for h in held if h.slow is not op.memref]
                for h in held:
                    if h.buffer is op.memref:
                        h.dealloc = op
                continue
            written = _written(op)
            held = [h for h in held if written is not None and id(h.slow) not in written
                    and (h.dealloc is not None or id(h.buffer) not in written)]
            if isinstance(op, AffineDmaStartOp) and _direction(op, space) is not None:
                fast, slow = _sides(op, space)
                if isinstance(fast.type, MemRefType) and fast.type.has_static_shape:
                    held.append(_Held(fast, slow, _key(op, space)))
        return False

    def _forward(self, block: Block, start: AffineDmaStartOp, h: _Held) -> bool:
        new = start.dst
        alloc = _alloc_in(block, new)
        if alloc is None or new.type != h.buffer.type:
            return False
        tag_ops = [o for o in block.walk() if any(v is start.tag for v in o.operands)]
        waits = [o for o in tag_ops if isinstance(o, AffineDmaWaitOp)]
        others = [o for o in tag_ops if o is not start and not isinstance(o, AffineDmaWaitOp | DeallocOp)]
        if len(waits) != 1 or others or waits[0].parent_block is not block \
                or block.index_of(waits[0]) < block.index_of(start):
            return False
        if h.dealloc is not None and not self._fits(block, h, alloc):
            return False
        tag_alloc = _alloc_in(block, start.tag)
        for o in tag_ops:
            if o is not start:
                o.erase()
        start.erase()
        if tag_alloc is not None:
            tag_alloc.erase()
        if h.dealloc is not None:
            h.dealloc.erase()
        alloc.erase()
        for o in block.ops:
            o.replace_uses_of(new, h.buffer)
        self.remark(start.loc, f"copy-in of {_name(new)} dropped: {_name(h.buffer)} holds the region")
        return True

    def _fits(self, block: Block, h: _Held, alloc: AllocOp) -> bool:
        """B kept live from its dealloc down to B2's alloc stays within the capacity."""
        cap = self._cap
        if cap.bytes is None:
            return True
        assert h.dealloc is not None
        lo, hi = block.index_of(h.dealloc), block.index_of(alloc)
        extra = buffer_bytes(h.buffer.type)  # type: ignore[arg-type]
        return all(cap.holds(p + extra)
                   for p in live_profile(block, self.options.fast_mem_space)[lo:hi + 1])


@dataclass(slots=True)
class _Held:
    """`buffer` (fast) holds the region `key` of `slow` (since a DMA between them)."""

    buffer: Value
    slow: Value
    key: tuple[object, ...]
    dealloc: DeallocOp | None = None


def live_profile(block: Block, space: int) -> list[int]:
    """Per op of `block`: the peak bytes of `space` buffers live while it runs (the
    buffers of the enclosing blocks not counted), `fast_memory`'s measure."""
    from compiler.transforms.data_copy.fast_memory import _block_peak

    live: dict[int, int] = {}
    out = []
    for op in block.ops:
        if isinstance(op, AllocOp) and op.memref_type.memory_space == space \
                and op.memref_type.has_static_shape:
            live[id(op.result)] = buffer_bytes(op.memref_type)
        now = sum(live.values())
        out.append(max([now, *(_block_peak(b, space, now) for b in op.blocks)]))
        if isinstance(op, DeallocOp):
            live.pop(id(op.memref), None)
    return out


def _direction(op: AffineDmaStartOp, space: int) -> str | None:
    """"in" (slow -> fast `space`), "out" (fast -> slow), or None (another kind)."""
    s, d = (getattr(v.type, "memory_space", None) for v in (op.src, op.dst))
    if d == space and s != space:
        return "in"
    if s == space and d != space:
        return "out"
    return None


def _sides(op: AffineDmaStartOp, space: int) -> tuple[Value, Value]:
    """(fast memref, slow memref) of a DMA between `space` and another."""
    return (op.dst, op.src) if _direction(op, space) == "in" else (op.src, op.dst)


def _key(op: AffineDmaStartOp, space: int) -> tuple[object, ...]:
    """What the DMA moves, seen from the buffer: the slow side, the count and strides, the
    fast side's type and indices."""
    inward = _direction(op, space) == "in"
    slow, slow_map, slow_idx = ((op.src, op.src_map, op.src_indices) if inward
                                else (op.dst, op.dst_map, op.dst_indices))
    fast, fast_map, fast_idx = ((op.dst, op.dst_map, op.dst_indices) if inward
                                else (op.src, op.src_map, op.src_indices))
    tail = [op.num_elements, op.stride, op.elements_per_stride]
    return (id(slow), slow_map, tuple(_value_key(v) for v in slow_idx), fast.type, fast_map,
            tuple(_value_key(v) for v in fast_idx), tuple(_value_key(v) for v in tail))


def _value_key(v: Value | None) -> object:
    if v is None:
        return None
    owner = getattr(v, "owner", None)
    if isinstance(owner, ConstantOp):
        return ("const", owner.value, str(v.type))
    return id(v)


def _written(op: Operation) -> set[int] | None:
    """Ids of the memrefs `op` (or an op nested in it) may write; None: any (a call, an op
    of unknown effects)."""
    out: set[int] = set()
    for o in op.walk():
        if isinstance(o, CallOp | OpaqueOp):
            return None
        if isinstance(o, AffineLoadOp | AffineDmaWaitOp):
            continue
        if isinstance(o, AffineDmaStartOp):
            out.add(id(o.dst))
            continue
        for v in o.operands:
            if isinstance(getattr(v, "type", None), MemRefType):
                out.add(id(v))
    return out


def _alloc_in(block: Block, v: Value) -> AllocOp | None:
    owner = getattr(v, "owner", None)
    return owner if isinstance(owner, AllocOp) and owner.parent_block is block else None


def _may_alias(f: FuncOp) -> bool:
    """An op other than an alloc returns a memref (a view or cast: two names, one memory)."""
    return any(isinstance(r.type, MemRefType) for o in f.walk() if not isinstance(o, AllocOp)
               for r in o.results)


def _name(v: Value) -> str:
    return f"%{v.name_hint}" if getattr(v, "name_hint", None) else "a buffer"


__all__ = ["AffineCopyForwardPass", "live_profile"]
