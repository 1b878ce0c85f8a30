"""Uses and nesting: the enclosing function, users of a value, the op of a block that holds
another, whether a value is defined inside an op, shared index constants."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineApplyOp,
    AffineMaxOp,
    AffineMinOp,
    ConstantOp,
    FuncOp,
)
from compiler.ir.types import INDEX

PURE_INDEX_OPS = (ConstantOp, AffineApplyOp, AffineMinOp, AffineMaxOp)


def enclosing_func(op: Operation) -> FuncOp:
    for a in op.ancestors():
        if isinstance(a, FuncOp):
            return a
    raise ValueError(f"{op.NAME} is not inside a func.func")


def users(root: Operation, value: Value) -> list[Operation]:
    return [op for op in root.walk() if any(v is value for v in op.operands)]


def ancestor_in_block(op: Operation, block: Block) -> Operation | None:
    """The op of `block` that is `op` or contains it."""
    cur: Operation | None = op
    while cur is not None:
        if cur.parent_block is block:
            return cur
        cur = cur.parent_op
    return None


def defined_inside(v: Value, root: Operation) -> bool:
    owner = getattr(v, "owner", None)
    if owner is not None:
        return root.is_ancestor_of(owner)
    blk = getattr(v, "block", None)
    parent = blk.parent_op if blk is not None else None
    return parent is not None and (parent is root or root.is_ancestor_of(parent))


def constant_index(block_owner: FuncOp, value: int, loc: Location) -> Value:
    """An `arith.constant value : index` at the top of the function (reused when present)."""
    body = block_owner.body
    for op in body.ops:
        if isinstance(op, ConstantOp) and op.results[0].type == INDEX and op.value == value:
            return op.result
        if not isinstance(op, ConstantOp):
            break
    c = ConstantOp(value, INDEX, loc=loc)
    body.insert(0, c)
    return c.result
