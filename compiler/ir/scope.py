"""MLIR's rules for which index values may be affine dims and which may be symbols."""

from __future__ import annotations

from compiler.ir.core import BlockArgument, OpResult, Value
from compiler.ir.ops import (
    AffineApplyOp,
    AffineForOp,
    AffineParallelOp,
    ConstantOp,
    FuncOp,
)


def _is_index(v: Value) -> bool:
    return getattr(v.type, "is_index", False) is True


def is_top_level(v: Value) -> bool:
    """Defined directly in a function body (the affine scope), not inside a loop or if."""
    if isinstance(v, BlockArgument):
        return isinstance(v.block.parent_op, FuncOp)
    assert isinstance(v, OpResult)
    blk = v.owner.parent_block
    return blk is not None and isinstance(blk.parent_op, FuncOp)


def is_valid_symbol(v: Value) -> bool:
    """Top-level values, constants, and affine.apply of symbols."""
    if not _is_index(v):
        return False
    if is_top_level(v):
        return True
    if isinstance(v, OpResult):
        op = v.owner
        if isinstance(op, ConstantOp):
            return True
        if isinstance(op, AffineApplyOp):
            return all(is_valid_symbol(o) for o in op.operands)
    return False


def is_valid_dim(v: Value) -> bool:
    """Symbols, loop induction variables, and affine.apply of dims."""
    if not _is_index(v):
        return False
    if is_valid_symbol(v):
        return True
    if isinstance(v, BlockArgument):
        parent = v.block.parent_op
        return (isinstance(parent, AffineForOp) and v.index == 0) or isinstance(parent, AffineParallelOp)
    op = v.owner  # type: ignore[attr-defined]
    if isinstance(op, AffineApplyOp):
        return all(is_valid_dim(o) for o in op.operands)
    return False
