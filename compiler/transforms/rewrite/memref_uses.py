"""Where ops address memrefs (loads, stores, the three sides of a DMA, waits), and rewriting
those accesses onto another memref with remapped indices."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from compiler.ir.affine_map import AffineMap
from compiler.ir.builder import IndexExpr, affine_map_of
from compiler.ir.core import Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineLoadOp,
    AffineStoreOp,
)
from compiler.ir.types import MemRefType
from compiler.transforms.rewrite.index_exprs import map_exprs


def access_sites(op: Operation) -> list[tuple[str, Value, AffineMap, list[Value]]]:
    """Every (side, memref, map, indices) through which `op` addresses a memref."""
    if isinstance(op, AffineLoadOp | AffineStoreOp):
        return [("mem", op.memref, op.map, op.indices)]
    if isinstance(op, AffineDmaStartOp):
        return [("src", op.src, op.src_map, op.src_indices),
                ("dst", op.dst, op.dst_map, op.dst_indices),
                ("tag", op.tag, op.tag_map, op.tag_indices)]
    if isinstance(op, AffineDmaWaitOp):
        return [("tag", op.tag, op.tag_map, op.tag_indices)]
    return []


def set_access(op: Operation, side: str, memref: Value, exprs: Sequence[IndexExpr]) -> None:
    m, operands = affine_map_of(list(exprs)) if exprs else (AffineMap(0, 0, ()), [])
    if isinstance(op, AffineLoadOp | AffineStoreOp):
        op.set_access(memref, m, operands)
    elif isinstance(op, AffineDmaStartOp):
        op.set_side(side, memref, m, operands)
    elif isinstance(op, AffineDmaWaitOp):
        op.set_tag(memref, m, operands)
    else:  # pragma: no cover - callers only pass access ops
        raise TypeError(f"{op.NAME} has no memref access")


def rewrite_memref(root_ops: Sequence[Operation], old: Value, new: Value,
                   remap: Callable[[list[IndexExpr]], list[IndexExpr]],
                   only: set[int] | None = None) -> int:
    """Point every dereferencing use of `old` inside `root_ops` (nested included; only the
    ops whose id is in `only` when given) at `new`, with indices `remap(old indices)`.
    Deallocs are left alone, as MLIR does. Returns the number of rewritten sites."""
    count = 0
    for root in root_ops:
        for op in root.walk():
            if only is not None and id(op) not in only:
                continue
            for side, mem, m, idx in access_sites(op):
                if mem is old:
                    set_access(op, side, new, remap(map_exprs(m, idx)))
                    count += 1
    return count


def memref_type(v: Value) -> MemRefType:
    t = v.type
    if not isinstance(t, MemRefType):
        raise TypeError(f"expected a memref, got {t}")
    return t
