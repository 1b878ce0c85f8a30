"""Multi-buffering: a fast buffer or tag gets a leading dimension of N slots, indexed by the
iteration modulo N; and whether a buffer is used outside the loop (then it cannot be)."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.ir.builder import IndexExpr
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineForOp,
    AllocOp,
    ConstantOp,
    DeallocOp,
    DimOp,
    FuncOp,
)
from compiler.ir.types import INDEX
from compiler.transforms.rewrite.memref_uses import access_sites, memref_type, rewrite_memref
from compiler.transforms.rewrite.structure import ancestor_in_block, users


@dataclass
class MultiBuffered:
    """What `multi_buffer` did, so that `undo` can put the single buffer back: the new alloc
    and dealloc, and each op it removed with the op it followed (None: the block's start)."""
    old: Value
    new: Value
    loop: AffineForOp
    made: list[Operation]
    removed: list[tuple[Operation, Block, Operation | None]] = field(default_factory=list)

    def undo(self) -> None:
        for op, block, prev in reversed(self.removed):
            if prev is None:
                block.insert(0, op)
            else:
                block.insert_after(prev, op)
        rewrite_memref(list(self.loop.body.ops), self.new, self.old, lambda idx: idx[1:])
        for op in self.made:
            op.erase()


def multi_buffer(old: Value, loop: AffineForOp, func: FuncOp, n: int,
                 slot: IndexExpr | None = None, anchor: Operation | None = None) -> MultiBuffered:
    """Give `old` a leading dimension of `n`, indexed by `(iv floordiv step) mod n` (or by
    `slot`) at every use inside `loop`; alloc before the loop (or `anchor`), dealloc after.
    The returned record can undo it."""
    t = memref_type(old)
    new_t = t.with_shape((n, *t.shape))
    where = anchor if anchor is not None else loop
    block = where.parent_block
    assert block is not None
    owner = getattr(old, "owner", None)
    made: list[Operation] = []
    sizes: list[Value] = []
    for k, d in enumerate(t.shape):  # a dynamic extent: `memref.dim` of the old buffer, as upstream
        if d is None:
            c = ConstantOp(k, INDEX, loc=loop.loc, name_hint=f"c{k}")
            dim = DimOp(old, c.result, loc=loop.loc)
            for op in (c, dim):
                block.insert_before(where, op)
                made.append(op)
            sizes.append(dim.result)
    alloc = AllocOp(new_t, sizes, loc=loop.loc,
                    name_hint=(old.name_hint + "_mb") if old.name_hint else None,
                    alignment=owner.alignment if isinstance(owner, AllocOp) else None)
    block.insert_before(where, alloc)
    dealloc = DeallocOp(alloc.result, loc=loop.loc)
    block.insert_after(where, dealloc)
    index = slot if slot is not None else (IndexExpr.of(loop.iv) // loop.step) % n
    rewrite_memref(list(loop.body.ops), old, alloc.result, lambda idx: [index, *idx])
    done = MultiBuffered(old, alloc.result, loop, [*made, alloc, dealloc])
    if isinstance(owner, AllocOp):
        dead = [u for u in users(func, old)]
        if all(isinstance(u, DeallocOp) for u in dead):
            for op in [*dead, owner]:
                blk = op.parent_block
                assert blk is not None
                at = blk.index_of(op)
                done.removed.append((op, blk, blk.ops[at - 1] if at > 0 else None))
                op.erase()
    return done


def escapes(buf: Value, loop: AffineForOp, func: FuncOp) -> bool:
    """`buf` is used outside `loop`, or anywhere other than by an access or a dealloc (an
    unregistered op or a call taking it: MLIR's non-dereferencing use)."""
    for u in users(func, buf):
        if isinstance(u, DeallocOp):
            continue
        if ancestor_in_block(u, loop.body) is None:
            return True
        if not any(mem is buf for _, mem, _, _ in access_sites(u)):
            return True
    return False


def accessed_directly(loop: AffineForOp, memref: Value) -> bool:
    """Any load/store of `memref` in the loop (not through a DMA)."""
    from compiler.ir.ops import AffineLoadOp, AffineStoreOp

    return any(isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref
               for op in loop.walk())
