"""`affine-dma-wait-sink`: each `affine.dma_wait` moves down its block past every op that
cannot see the transfer, to just before the first one that can, so the transfer overlaps
the work in between instead of stalling the control processor at once.

    affine.dma_start %g[0], %g_fast[0], %t[0], %n        affine.dma_start %g[0], %g_fast[0], %t[0], %n
    affine.dma_wait %t[0], %n                             affine.dma_start %b[0], %b_fast[0], %t2[0], %n
    affine.dma_start %b[0], %b_fast[0], %t2[0], %n   ->   affine.dma_start %X[0], %X_fast[0], %t3[0], %m
    affine.dma_wait %t2[0], %n                            affine.dma_wait %t[0], %n
    affine.dma_start %X[0], %X_fast[0], %t3[0], %m        affine.dma_wait %t2[0], %n
    affine.dma_wait %t3[0], %m                            affine.dma_wait %t3[0], %m
    affine.for ... { ... %g_fast ... %X_fast ... }        affine.for ... { ... }

The copy pass places a hoisted copy-in's wait right after its start (upstream's
`affine-data-copy-generate` does), and the pipelining pass double-buffers copies in loops
only: the copies above a tile loop (a row vector every tile reads, the first tile of a
pipeline) are waited for one after the other before any of them overlaps anything. Not an
upstream mlir-opt pass; this project runs it last in the accelerator pipeline.

A wait passes the waits on other tag memrefs (waits only stall the control processor: in
any order, it resumes once all of them returned), never one on its own tag; waits that stop
before the same op keep their order, and a second run moves nothing. An op can see a
transfer when it, or any op nested in it, writes the transfer's source, or uses its
destination or its tag memref in any way (another DMA on the tag, a load or store of the
buffer, a dealloc), is a call or an op of a dialect we do not model (its memory effects are
unknown: `OpaqueOp`), or is the block's terminator; a load of the source, or a DMA reading
it, reads what the transfer reads and may run while it is in flight (a copy-out's wait
passes a nest that only reads the buffer written back). Distinct memref values are taken not to
alias, as in the dependence analysis. The wait moves within its block only, after its own
start (a wait whose start is not earlier in the block stays), so every start still has its
wait, in the same order among the waits of one tag; no value, operation or float order
changes, so results are bit-identical: the same stores of the same values, a transfer
merely still in flight while ops that do not touch its memory run.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.analysis.dependence import dependence_list
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineLoadOp,
    CallOp,
    DeallocOp,
    FuncOp,
    ModuleOp,
)
from compiler.ir.ops.opaque import OpaqueOp
from compiler.transforms.pass_base import Pass


class AffineDmaWaitSinkPass(Pass):
    name = "affine-dma-wait-sink"
    summary = "move each dma_wait down to the first op that touches its transfer's memory"

    def run(self, module: ModuleOp) -> None:
        blocks: list[tuple[Block, bool]] = []
        for op in module.walk():
            top = isinstance(op, FuncOp)
            blocks.extend((b, top) for b in op.blocks)
        for block, top in blocks:
            sink_waits(block, distribute=top)


def sink_waits(block: Block, distribute: bool = False) -> int:
    """Sink every wait of `block` (not of nested blocks); the number of waits moved. With
    `distribute` (a function's body: the copies hoisted above every loop), a nest the wait
    stops at is split in two where that lets the wait pass its first part (`_distribute`),
    unless the wait passed another wait to get there (that part would run after the other
    transfer anyway, as a kernel call of its own: bicg's zeroing of `q`)."""
    moved = 0
    # the last wait first: each one then sinks down to the waits already below it
    for wait in reversed([op for op in block.ops if isinstance(op, AffineDmaWaitOp)]):
        start = _start_of(block, wait)
        if start is None:
            continue
        seen = _Transfer(id(start.src), id(start.dst), id(start.tag))
        ops = block.ops
        # the tag's dealloc just below the wait (nothing between uses the tag) goes with it
        free = _tag_dealloc(block, wait)
        at = block.index_of(free) if free is not None else -1
        if free is not None:
            free.detach()
        i = block.index_of(wait)
        j = i + 1
        while j < len(ops) and not seen.seen_by(ops[j]):
            j += 1
        # past another wait, a nest's first part would run after that transfer anyway: no split
        passed = any(isinstance(o, AffineDmaWaitOp) for o in ops[i + 1:j])
        if distribute and not passed and j < len(ops) and isinstance(ops[j], AffineForOp) \
                and _distribute(ops[j], seen):
            j += 1  # the first part, which does not see the transfer
        # before the waits, sunk already, that stop at the same op: they keep their order
        while j > i + 1 and isinstance(ops[j - 1], AffineDmaWaitOp):
            j -= 1
        if j > i + 1:
            anchor = ops[j] if j < len(ops) else None
            wait.detach()
            if anchor is None:
                block.append(wait)
            else:
                block.insert_before(anchor, wait)
            moved += 1
            if free is not None:
                block.insert_after(wait, free)
        elif free is not None:
            block.insert(at, free)
    return moved


def _tag_dealloc(block: Block, wait: AffineDmaWaitOp) -> DeallocOp | None:
    """The dealloc of the wait's tag memref after it in the block, when no op in between
    uses the tag."""
    for op in block.ops[block.index_of(wait) + 1:]:
        if isinstance(op, DeallocOp) and op.memref is wait.tag:
            return op
        if _sees(op, {id(wait.tag)}):
            return None
    return None


def _start_of(block: Block, wait: AffineDmaWaitOp) -> AffineDmaStartOp | None:
    """The last start on the wait's tag memref before it in the block (None when there is
    none, or an op in between that can see the tag is not a start: the wait stays)."""
    tag = wait.tag
    for op in reversed(block.ops[:block.index_of(wait)]):
        if isinstance(op, AffineDmaStartOp) and op.tag is tag:
            return op
        if _sees(op, {id(tag)}):
            return None
    return None


@dataclass(frozen=True, slots=True)
class _Transfer:
    """The memrefs of one DMA (by id): what an op must not touch while it is in flight."""

    src: int
    dst: int
    tag: int

    def seen_by(self, op: Operation) -> bool:
        """`op` (or an op nested in it) writes the source, uses the destination or the tag,
        has unknown effects, or is a terminator."""
        if op.IS_TERMINATOR:
            return True
        for o in op.walk():
            if isinstance(o, CallOp | OpaqueOp):
                return True
            for k, v in enumerate(o.operands):
                if not isinstance(v, Value):
                    continue
                if id(v) in (self.dst, self.tag):
                    return True
                if id(v) == self.src and not _reads_only(o, k):
                    return True
        return False


def _reads_only(op: Operation, k: int) -> bool:
    """Operand `k` of `op` is a memref the op only reads: a load's, a DMA's source."""
    if isinstance(op, AffineLoadOp):
        return k == 0
    if isinstance(op, AffineDmaStartOp):
        return k == 0 and op.dst is not op.src and op.tag is not op.src
    return False


def _distribute(nest: AffineForOp, seen: _Transfer) -> bool:
    """Split `nest` in two after the leading ops of its first body with more than one op
    that do not see the transfer (`_sees`), the rest in a copy of the loops placed after it,
    where that is legal; True when split.

        for c { fill(c); copy(c) }    ->    for c { fill(c) }  for c { copy(c) }

    The loops down to that body must hold nothing else and carry no values; no value of
    the first part may be used by the second; and no dependence may run from an access of
    the second part to one of the first part in a later iteration of the split loops (after
    the split every instance of the first part runs before every one of the second: isl,
    `analysis.dependence`). Each op keeps its operands and order within its part."""
    chain = [nest]
    while True:
        loop = chain[-1]
        if loop.results or loop.region_iter_args:
            return False
        body = [o for o in loop.body.ops if not o.IS_TERMINATOR]
        if len(body) == 1 and isinstance(body[0], AffineForOp):
            chain.append(body[0])
            continue
        break
    p = 0
    while p < len(body) and not seen.seen_by(body[p]):
        p += 1
    if p == 0 or p == len(body):
        return False
    first, second = body[:p], body[p:]
    if any(isinstance(x, CallOp | OpaqueOp) for o in second for x in o.walk()):
        return False  # memory effects the dependence analysis cannot see
    defined = {id(r) for o in first for x in o.walk() for r in x.results}
    if any(id(v) in defined for o in second for x in o.walk() for v in x.operands):
        return False
    n = len(chain)
    for b in (x for o in second for x in o.walk()):
        for a in (x for o in first for x in o.walk()):
            for d in range(1, n + 1):
                if dependence_list(b, a, d, include_input=False):
                    return False
    mapping: dict[Value, Value] = {}
    twin = nest.clone(mapping)
    inner = twin
    for _ in range(n - 1):
        inner = next(o for o in inner.body.ops if isinstance(o, AffineForOp))  # type: ignore[assignment]
    in_first = {id(o) for o in first}
    for o, c in zip(body, [o for o in inner.body.ops if not o.IS_TERMINATOR], strict=True):
        if id(o) in in_first:
            c.detach()
    for o in second:
        o.detach()
    parent = nest.parent_block
    assert parent is not None
    parent.insert_after(nest, twin)
    return True


def _sees(op: Operation, memrefs: set[int]) -> bool:
    if op.IS_TERMINATOR:
        return True
    for o in op.walk():
        if isinstance(o, CallOp | OpaqueOp):
            return True
        if any(id(v) in memrefs for v in o.operands if isinstance(v, Value)):
            return True
    return False


__all__ = ["AffineDmaWaitSinkPass", "sink_waits"]
