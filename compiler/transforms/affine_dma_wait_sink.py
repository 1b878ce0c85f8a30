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

An op can see a transfer when it, or any op nested in it, uses the transfer's source or
destination memref or its tag memref (another DMA on the tag, a load or store of the
buffer, a dealloc), is a call or an op of a dialect we do not model (its memory effects are
unknown: `OpaqueOp`), or is the block's terminator. Distinct memref values are taken not to
alias, as in the dependence analysis. The wait moves within its block only, after its own
start (a wait whose start is not earlier in the block stays), so every start still has its
wait, in the same order among the waits of one tag; no value, operation or float order
changes, so results are bit-identical: the same stores of the same values, a transfer
merely still in flight while ops that do not touch its memory run.
"""

from __future__ import annotations

from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, CallOp, ModuleOp
from compiler.ir.ops.opaque import OpaqueOp
from compiler.transforms.pass_base import Pass


class AffineDmaWaitSinkPass(Pass):
    name = "affine-dma-wait-sink"
    summary = "move each dma_wait down to the first op that touches its transfer's memory"

    def run(self, module: ModuleOp) -> None:
        blocks: list[Block] = []
        for op in module.walk():
            blocks.extend(op.blocks)
        for block in blocks:
            sink_waits(block)


def sink_waits(block: Block) -> int:
    """Sink every wait of `block` (not of nested blocks); the number of waits moved."""
    moved = 0
    for wait in [op for op in block.ops if isinstance(op, AffineDmaWaitOp)]:
        start = _start_of(block, wait)
        if start is None:
            continue
        seen = {id(v) for v in (start.src, start.dst, start.tag)}
        ops = block.ops
        i = block.index_of(wait)
        j = i + 1
        while j < len(ops) and not _sees(ops[j], seen):
            j += 1
        if j > i + 1:
            anchor = ops[j] if j < len(ops) else None
            wait.detach()
            if anchor is None:
                block.append(wait)
            else:
                block.insert_before(anchor, wait)
            moved += 1
    return moved


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
