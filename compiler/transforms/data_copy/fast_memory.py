"""How many bytes of fast-memory buffers are live at once, recomputed from the IR.

A buffer is live from its `memref.alloc` to its `memref.dealloc` in the same block (to the end
of the block when it has none); everything nested in between sees it. This is the measure the
capacity option bounds, so the passes and the tests use the same function.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import AllocOp, DeallocOp, FuncOp, ModuleOp
from compiler.ir.types import MemRefType


def buffer_bytes(t: MemRefType) -> int:
    if not t.has_static_shape:
        raise ValueError(f"{t} has a dynamic shape; its size is unknown")
    return t.size_bytes


def peak_live_bytes(root: Operation, space: int) -> int:
    """Largest total size of `space` buffers live at one point anywhere under `root`."""
    if isinstance(root, ModuleOp):
        return max((peak_live_bytes(f, space) for f in root.funcs if not f.is_declaration), default=0)
    if isinstance(root, FuncOp):
        return _block_peak(root.body, space, 0)
    return max((_block_peak(b, space, 0) for b in root.blocks), default=0)


def _block_peak(block: Block, space: int, outer: int, skip: frozenset[int] = frozenset()) -> int:
    live: dict[int, int] = {}
    peak = outer
    for op in block.ops:
        if isinstance(op, AllocOp):
            t = op.memref_type
            if t.memory_space == space and id(op.result) not in skip:
                live[id(op.result)] = buffer_bytes(t)
        elif isinstance(op, DeallocOp):
            live.pop(id(op.memref), None)
        now = outer + sum(live.values())
        peak = max(peak, now)
        for b in op.blocks:
            peak = max(peak, _block_peak(b, space, now, skip))
    return peak


def live_buffers_at(op: Operation, space: int) -> list[AllocOp]:
    """Allocs in `space` live where `op` runs (from enclosing blocks, alloc before op)."""
    out: list[AllocOp] = []
    cur: Operation | None = op
    while cur is not None and cur.parent_block is not None:
        blk = cur.parent_block
        live: dict[int, AllocOp] = {}
        for o in blk.ops:
            if o is cur:
                break
            if isinstance(o, AllocOp) and o.memref_type.memory_space == space:
                live[id(o.result)] = o
            elif isinstance(o, DeallocOp):
                live.pop(id(o.memref), None)
        out.extend(live.values())
        cur = cur.parent_op
    return out


def peak_around(op: Operation, space: int, skip: Sequence[Value] = ()) -> int:
    """Peak live bytes while `op` runs: buffers live where it starts plus its own peak;
    the buffers in `skip` are left out (they are about to be replaced)."""
    ids = frozenset(id(v) for v in skip)
    outer = sum(buffer_bytes(a.memref_type) for a in live_buffers_at(op, space)
                if id(a.result) not in ids)
    inner = max((_block_peak(b, space, 0, ids) for b in op.blocks), default=0)
    return outer + inner
