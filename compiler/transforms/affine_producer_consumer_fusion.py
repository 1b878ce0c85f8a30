"""`affine-producer-consumer-fusion`: a nest that reads a memref the nest just before it
writes is fused into that nest's loops, at the deepest depth the dependences allow, so each
element is consumed while it is still close (upstream: `affine-loop-fusion mode=producer`).

    affine.for %i = 0 to 64 {                  affine.for %i = 0 to 64 {
      affine.for %j = 0 to 64 {                  affine.for %j = 0 to 64 {
        s[i] += X[i][j] * X[i][j]                  s[i] += X[i][j] * X[i][j]
    affine.for %i2 = 0 to 64 {          ->       affine.for %j2 = 0 to 64 {
      affine.for %j2 = 0 to 64 {                   Y[i][j2] = X[i][j2] * s[i]
        Y[i2][j2] = X[i2][j2] * s[i2]

(rmsnorm: depth 2 would read `s[i]` before its last update, depth 1 is legal.) Candidates:
adjacent nests (no op between them) where the second reads or writes a memref the first
writes; their outer `d` loops must be a chain (each but the last holding only the next one),
with equal constant bounds and steps and no iter_args. The depth is the deepest `d` for which
the fused order (in every iteration of the `d` shared loops: the first nest's body, then the
second's) reverses no dependence among the two nests' accesses, checked exactly by isl
(`analysis.tiling_order.tiled_order_violation`, tile size 1: the question the sibling fusion
asks). Every op keeps the order of the float operations it feeds, so results are
bit-identical. Unlike upstream, the consumer is not sliced: the shared loops must have equal
bounds (upstream computes the producer slice a consumer iteration needs and may recompute it).

Private buffers (as upstream's `createPrivateMemRef`): a memref made by `memref.alloc` in
the same block, used by nothing but the fused nest (and its dealloc), shrinks along every
dimension that all its accesses index by the same shared loop's IV alone: that dimension
becomes extent 1 (index 0), since each iteration of the shared loop writes and reads its own
element. A buffer indexed only by shared IVs becomes `memref<1x..x1>`, a scalar per iteration.
With `private-memory-space=N` the shrunk buffer lives in memory space N (the accelerator
pipeline: its fast memory, so no copy moves it); by default it keeps its space.

Fusions repeat left to right: the fused nest may fuse with the next one (layernorm's six
nests become one loop over its rows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from compiler.analysis.isl_bridge import AnalysisError
from compiler.analysis.legality import opaque_memory_op
from compiler.analysis.tiling_order import TiledStatement, TileGrid, tiled_order_violation
from compiler.diagnostics import Location
from compiler.ir.affine_expr import Dim
from compiler.ir.builder import IndexExpr
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineLoadOp,
    AffineStoreOp,
    AllocOp,
    CallOp,
    DeallocOp,
    ModuleOp,
)
from compiler.ir.types import MemRefType
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.index_exprs import const_expr
from compiler.transforms.rewrite.memref_uses import access_sites, rewrite_memref
from compiler.transforms.rewrite.structure import users


@dataclass(frozen=True)
class Options:
    private_memory_space: int | None = None  # memory space of shrunk private buffers (None: keep)


class AffineProducerConsumerFusionPass(Pass):
    name = "affine-producer-consumer-fusion"
    summary = ("fuse a nest reading what the nest before it writes into that nest's loops, at the "
               "deepest depth the dependences allow; private buffers shrink")
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if not func.is_declaration:
                for block in [b for o in func.walk() for b in o.blocks]:
                    fuse_producer_consumer(block, self.remark, self.options.private_memory_space)


def fuse_producer_consumer(block: Block, remark: Callable[[Location, str], None] | None = None,
                           private_space: int | None = None) -> int:
    """Fuse adjacent producer-consumer nests of `block`, left to right; the number of fusions."""
    done = 0
    k = 0
    while k + 1 < len(block.ops):
        first, second = block.ops[k], block.ops[k + 1]
        if isinstance(first, AffineForOp) and isinstance(second, AffineForOp) \
                and _feeds(first, second):
            depth, why = _fusion_depth(first, second)
            if depth:
                a, b = _chain(first)[:depth], _chain(second)[:depth]
                _fuse(a, b)
                _shrink_private(block, first, a, private_space, remark)
                if remark is not None:
                    remark(second.loc, f"fused into the nest at {first.loc} at depth {depth}")
                done += 1
                continue  # the fused nest may feed the next one
            if remark is not None:
                remark(second.loc, f"not fused with the nest at {first.loc}: {why}")
        k += 1
    return done


def _written(root: Operation) -> set[int]:
    return {id(o.memref) for o in root.walk() if isinstance(o, AffineStoreOp)}


def _feeds(first: AffineForOp, second: AffineForOp) -> bool:
    """`second` uses (accesses, passes on) a memref `first` stores to."""
    out = _written(first)
    return any(id(v) in out for o in second.walk() for v in o.operands)


def _chain(root: AffineForOp) -> list[AffineForOp]:
    """The loops from `root` inwards while each holds exactly one op, a loop."""
    out = [root]
    while True:
        body = [o for o in out[-1].body.ops if not o.IS_TERMINATOR]
        if len(body) == 1 and isinstance(body[0], AffineForOp):
            out.append(body[0])
        else:
            return out


def _shareable(a: AffineForOp, b: AffineForOp) -> bool:
    return (not a.inits and not b.inits and a.constant_lower is not None
            and a.constant_upper is not None and a.step == b.step
            and (a.constant_lower, a.constant_upper) == (b.constant_lower, b.constant_upper))


def _unmodelled(root: Operation) -> str | None:
    for o in root.walk():
        if isinstance(o, CallOp | AffineDmaStartOp | AffineDmaWaitOp) or opaque_memory_op(o):
            return f"{o.NAME} at {o.loc} has effects the dependence analysis does not model"
    return None


def _fusion_depth(first: AffineForOp, second: AffineForOp) -> tuple[int, str]:
    """The deepest legal fusion depth (0: none) and, when 0, why."""
    why = _unmodelled(first) or _unmodelled(second)
    if why is not None:
        return 0, why
    a, b = _chain(first), _chain(second)
    depth = 0
    while depth < min(len(a), len(b)) and _shareable(a[depth], b[depth]):
        depth += 1
    if depth == 0:
        return 0, "the outermost loops differ in bounds or step (or carry iter_args)"
    reason = ""
    for d in range(depth, 0, -1):
        why = _violation(a[:d], b[:d])
        if why is None:
            return d, ""
        reason = reason or why
    return 0, reason


def _violation(a: Sequence[AffineForOp], b: Sequence[AffineForOp]) -> str | None:
    """Why fusing at depth len(a) is illegal (a reversed dependence, accesses isl cannot
    model), or None."""
    d = len(a)
    first = TiledStatement(tuple(o for o in a[-1].body.ops if not o.IS_TERMINATOR),
                           tuple(TileGrid(lp, 1, False) for lp in a), (0,) * d)
    second = TiledStatement(tuple(o for o in b[-1].body.ops if not o.IS_TERMINATOR),
                            tuple(TileGrid(lp, 1, False) for lp in b), (0,) * (d - 1) + (1,))
    try:
        dep = tiled_order_violation([a[0], b[0]], [first, second])
    except AnalysisError as exc:
        return f"the accesses cannot be modelled ({exc})"
    return None if dep is None else f"depth {d} would reverse {dep}"


def _fuse(a: Sequence[AffineForOp], b: Sequence[AffineForOp]) -> None:
    """Move the body of `b[-1]` (IVs renamed to `a`'s) to the end of `a[-1]`'s; erase `b`."""
    inner = a[-1].body
    term = inner.terminator
    for op in [o for o in b[-1].body.ops if not o.IS_TERMINATOR]:
        op.detach()
        for old, new in zip(b, a, strict=True):
            op.replace_uses_of(old.iv, new.iv)
        if term is not None:
            inner.insert_before(term, op)
        else:
            inner.append(op)
    b[0].erase()


def _shrink_private(block: Block, nest: AffineForOp, shared: Sequence[AffineForOp],
                    space: int | None, remark: Callable[[Location, str], None] | None) -> None:
    """Shrink every alloc of `block` that only `nest` uses along the dims its accesses index
    by one shared IV alone."""
    func = block.parent_op
    assert func is not None
    for alloc in [o for o in block.ops if isinstance(o, AllocOp)]:
        mem = alloc.results[0]
        t = mem.type
        if not isinstance(t, MemRefType) or not t.has_static_shape or alloc.operands:
            continue
        uses = users(func, mem)
        inside = [u for u in uses if nest.is_ancestor_of(u)]
        if not inside or any(not isinstance(u, DeallocOp) and u not in inside for u in uses) \
                or any(not isinstance(u, AffineLoadOp | AffineStoreOp) for u in inside):
            continue
        dims = _private_dims(inside, mem, shared, t.rank)
        if not dims:
            continue
        shape = tuple(1 if k in dims else n for k, n in enumerate(t.shape))
        new_t = MemRefType(shape, t.element, t.memory_space if space is None else space,
                           t.space_attr if space is None else None)
        new = AllocOp(new_t, loc=alloc.loc, name_hint=mem.name_hint, alignment=alloc.alignment)
        block.insert_before(alloc, new)

        def remap(idx: list[IndexExpr], dims: frozenset[int] = dims) -> list[IndexExpr]:
            return [const_expr(0) if k in dims else e for k, e in enumerate(idx)]

        rewrite_memref([nest], mem, new.results[0], remap)
        for u in uses:
            if isinstance(u, DeallocOp):
                u.replace_uses_of(mem, new.results[0])
        alloc.erase()
        if remark is not None:
            remark(alloc.loc, f"private buffer {t} shrunk to {new_t}")


def _private_dims(accesses: Sequence[Operation], mem: Value, shared: Sequence[AffineForOp],
                  rank: int) -> frozenset[int]:
    """Dims of `mem` that every access indexes by the same shared loop's IV alone."""
    ivs = [lp.iv for lp in shared]
    out = set()
    for k in range(rank):
        which: set[int] = set()
        for op in accesses:
            for _, m_mem, m, idx in access_sites(op):
                if m_mem is not mem:
                    continue
                e = m.results[k]
                pos = e.pos if isinstance(e, Dim) else None
                v = idx[pos] if pos is not None and pos < m.num_dims else None
                hit = next((j for j, iv in enumerate(ivs) if iv is v), None)
                which.add(-1 if hit is None else hit)
        if len(which) == 1 and -1 not in which:
            out.add(k)
    return frozenset(out)
