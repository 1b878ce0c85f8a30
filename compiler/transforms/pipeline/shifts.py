"""Before the skew: every op may only use body values computed at its own shift, so pure index
ops (constants, affine.apply/min/max) are cloned next to users with another shift."""

from __future__ import annotations

from compiler.ir.core import Block, Operation
from compiler.ir.ops import (
    AffineForOp,
)
from compiler.transforms.rewrite.structure import PURE_INDEX_OPS


def privatize_pure_operands(loop: AffineForOp, shift_of: dict[int, int]) -> None:
    """An op must only use body values computed at its own shift: clone pure index ops
    (constants, affine.apply/min/max) next to each user whose shift differs."""
    body = loop.body
    for op in list(body.ops):
        if op.IS_TERMINATOR or isinstance(op, PURE_INDEX_OPS):
            continue
        d = shift_of[id(op)]
        for inner in op.walk():
            for k, v in enumerate(inner.operands):
                owner = getattr(v, "owner", None)
                if owner is None or owner.parent_block is not body or shift_of.get(id(owner)) == d:
                    continue
                if not isinstance(owner, PURE_INDEX_OPS):
                    continue
                clone = _clone_chain(owner, body, op, d, shift_of)
                inner.operands[k] = clone.results[v.index]  # type: ignore[attr-defined]


def _clone_chain(pure: Operation, body: Block, before: Operation, d: int,
                 shift_of: dict[int, int]) -> Operation:
    c = pure.clone({})
    for k, v in enumerate(c.operands):
        owner = getattr(v, "owner", None)
        if owner is not None and owner.parent_block is body and isinstance(owner, PURE_INDEX_OPS) \
                and shift_of.get(id(owner)) != d:
            cc = _clone_chain(owner, body, before, d, shift_of)
            c.operands[k] = cc.results[v.index]  # type: ignore[attr-defined]
    body.insert_before(before, c)
    shift_of[id(c)] = d
    return c
