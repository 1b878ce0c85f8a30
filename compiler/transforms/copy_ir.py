"""Small IR utilities shared by the data-copy and pipelining passes.

Maps are handled through `IndexExpr`s (an affine expression over index Values), so that
combining bounds from different ops never has to renumber dims and symbols by hand:
`affine_map_of` rebuilds a canonical map with MLIR's dim/symbol classification.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from compiler.ir.affine_expr import Const, Dim
from compiler.ir.affine_map import AffineMap
from compiler.ir.builder import IndexExpr, affine_map_of
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineApplyOp,
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    AllocOp,
    ConstantOp,
    DeallocOp,
    FuncOp,
)
from compiler.ir.types import INDEX, MemRefType

PURE_INDEX_OPS = (ConstantOp, AffineApplyOp, AffineMinOp, AffineMaxOp)


# ---- maps as index expressions ------------------------------------------------------------

def map_exprs(m: AffineMap, operands: Sequence[Value]) -> list[IndexExpr]:
    """One IndexExpr per result of `m` applied to `operands` (dims first, then symbols)."""
    ops = tuple(operands)
    subs_d = [Dim(i) for i in range(m.num_dims)]
    subs_s = [Dim(m.num_dims + j) for j in range(m.num_symbols)]
    return [IndexExpr(r.substitute(subs_d, subs_s), ops) for r in m.results]


def const_expr(v: int) -> IndexExpr:
    return IndexExpr(Const(v), ())


def substitute_value(e: IndexExpr, old: Value, new: IndexExpr) -> IndexExpr:
    """Replace every occurrence of `old` in `e` by the expression `new`."""
    if not any(v is old for v in e.operands):
        return e
    parts: list[IndexExpr] = []
    for v in e.operands:
        parts.append(new if v is old else IndexExpr.of(v))
    # Rebuild: substitute each Dim(k) by the k-th part.
    acc_ops: list[Value] = []
    subs = []
    for p in parts:
        remap = []
        for v in p.operands:
            for k, w in enumerate(acc_ops):
                if w is v:
                    remap.append(Dim(k))
                    break
            else:
                acc_ops.append(v)
                remap.append(Dim(len(acc_ops) - 1))
        subs.append(p.expr.substitute(remap, ()))
    return IndexExpr(e.expr.substitute(subs, ()), tuple(acc_ops))


def expr_constant(e: IndexExpr) -> int | None:
    return e.expr.value if isinstance(e.expr, Const) else None  # type: ignore[attr-defined]


# ---- access sites -------------------------------------------------------------------------

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


# ---- uses and structure -------------------------------------------------------------------

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


def walk_blocks(root: Operation) -> Iterator[Block]:
    for op in root.walk():
        yield from op.blocks


def erase_dead_alloc(func: Operation, memref: Value) -> bool:
    """Drop `memref`'s alloc when nothing but deallocs use it any more."""
    owner = getattr(memref, "owner", None)
    if not isinstance(owner, AllocOp):
        return False
    uses = users(func, memref)
    if any(not isinstance(u, DeallocOp) for u in uses):
        return False
    for u in uses:
        u.erase()
    owner.erase()
    return True


def memref_type(v: Value) -> MemRefType:
    t = v.type
    if not isinstance(t, MemRefType):
        raise TypeError(f"expected a memref, got {t}")
    return t


def constant_index(block_owner: FuncOp, value: int, loc) -> Value:  # type: ignore[no-untyped-def]
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


def loop_bounds(loop: AffineForOp) -> tuple[list[IndexExpr], list[IndexExpr]]:
    return map_exprs(loop.lower_map, loop.lower_operands), map_exprs(loop.upper_map, loop.upper_operands)


def make_for(lo: Sequence[IndexExpr], hi: Sequence[IndexExpr], step: int, loc,  # type: ignore[no-untyped-def]
             iv_name: str | None = None) -> AffineForOp:
    from compiler.ir.ops import AffineYieldOp

    lmap, lops = affine_map_of(list(lo))
    umap, uops = affine_map_of(list(hi))
    op = AffineForOp(lmap, lops, umap, uops, step, loc=loc, iv_name=iv_name)
    op.body.append(AffineYieldOp(loc=loc))
    return op
