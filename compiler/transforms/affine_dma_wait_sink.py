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

The deallocs of the transfer's buffer and tag that follow the wait move down with it (the
copy pass frees a copy-out's buffer right after its wait, which would stop the wait
there): so the copy-outs at the end of a function are all in flight before the first wait,
not one after the other. A buffer's dealloc carried so never passes an alloc in its memory space
(the peak of that memory stays as it was; a tag's may).

An op that only reads what the transfer reads (a load of a copy-out's buffer, a DMA from
it) does not stop the wait either: no transfer corrupts a read of the memory it reads, and
the race proof allows it (`analysis/races.py`: both only read). A buffer written back and
then only read by the nests after it (`affine-dma-forward` keeps it on chip) is written
back while they run.

A wait passes the waits of other transfers on its way (a buffer written back and then only
read waits at the end of the function, not at the next copy-in's wait), but stops above the
waits it would otherwise end right after (or after them and some allocs and deallocs): waits
that end up side by side keep their order,
and a second run moves nothing. An op can see a transfer when it, or any op nested in it,
uses the transfer's source or destination memref or its tag memref (another DMA on the tag,
a load or store of the buffer, a dealloc other than those it carries), is a call or an op of
a dialect we do not model (its memory effects are unknown: `OpaqueOp`), or is the block's
terminator. Distinct memref values are taken not to alias, as in the dependence analysis.
The wait moves within its block only, after its own start (a wait whose start is not earlier
in the block stays), so every start still has its wait, in the same order among the waits of
one tag; no value, operation or float order changes, so results are bit-identical: the same
stores of the same values, a transfer merely still in flight while ops that do not touch its
memory run. A wait that passed another wait splits no nest (the nest's first part would run
after that other transfer anyway).
"""

from __future__ import annotations

from compiler.analysis.dependence import dependence_list
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineLoadOp,
    AllocOp,
    CallOp,
    DeallocOp,
    FuncOp,
    ModuleOp,
)
from compiler.ir.ops.opaque import OpaqueOp
from compiler.ir.types import MemRefType
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
    stops at is split in two where that lets the wait pass its first part (`_distribute`)."""
    moved = 0
    # the last wait first: each one then sinks down to (or past) the waits already below it
    for wait in reversed([op for op in block.ops if isinstance(op, AffineDmaWaitOp)]):
        start = _start_of(block, wait)
        if start is None:
            continue
        seen = {id(v) for v in (start.src, start.dst, start.tag)}
        ops = block.ops
        i = block.index_of(wait)
        j = i + 1
        carried: list[Operation] = []     # deallocs of the transfer's memrefs, moved with it
        while j < len(ops):
            op = ops[j]
            if isinstance(op, DeallocOp) and id(op.operands[0]) in seen:
                carried.append(op)
            elif (isinstance(op, AllocOp) and _space(op.results[0]) in
                  {_space(d.operands[0]) for d in carried if d.operands[0] is not start.tag}) \
                    or _sees(op, seen, start.src):
                break   # (a buffer freed later must not raise the peak of its memory)
            j += 1
        passed = any(isinstance(o, AffineDmaWaitOp) for o in ops[i + 1:j])
        # (past another wait the nest's first part would run after that transfer anyway)
        if distribute and not passed and j < len(ops) and isinstance(ops[j], AffineForOp) \
                and _distribute(ops[j], seen):
            j += 1  # the first part, which does not see the transfer
        else:   # above the waits it would end right after (past deallocs): their order is kept
            k = j
            while k > i + 1 and (isinstance(ops[k - 1], AffineDmaWaitOp) or (
                    isinstance(ops[k - 1], DeallocOp | AllocOp) and ops[k - 1] not in carried)):
                k -= 1
            j = next((m for m in range(k, j) if isinstance(ops[m], AffineDmaWaitOp)), j)
        if j > i + 1 + len([d for d in carried if block.index_of(d) < j]):
            anchor = ops[j] if j < len(ops) else None
            for op in (wait, *(d for d in carried if block.index_of(d) < j)):
                op.detach()
                if anchor is None:
                    block.append(op)
                else:
                    block.insert_before(anchor, op)
            moved += 1
    return moved


def _space(v: Value) -> int | None:
    t = v.type
    return t.memory_space if isinstance(t, MemRefType) else None


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


def _distribute(nest: AffineForOp, seen: set[int]) -> bool:
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
    while p < len(body) and not _sees(body[p], seen):
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


def _sees(op: Operation, memrefs: set[int], read: Value | None = None) -> bool:
    """`op` (or an op nested in it) uses one of `memrefs`, other than by reading `read`
    (the memref the transfer reads: a load of it or a DMA from it only reads too, which no
    transfer corrupts), or has effects unknown, or ends the block."""
    if op.IS_TERMINATOR:
        return True
    for o in op.walk():
        if isinstance(o, CallOp | OpaqueOp):
            return True
        hit = [v for v in o.operands if isinstance(v, Value) and id(v) in memrefs]
        if hit and not (read is not None and all(v is read for v in hit) and _only_reads(o, read)):
            return True
    return False


def _only_reads(op: Operation, memref: Value) -> bool:
    if isinstance(op, AffineLoadOp):
        return op.memref is memref
    if isinstance(op, AffineDmaStartOp):
        return op.src is memref and op.dst is not memref
    return False


__all__ = ["AffineDmaWaitSinkPass", "sink_waits"]
