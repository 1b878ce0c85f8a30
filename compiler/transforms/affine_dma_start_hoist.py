"""`affine-dma-start-hoist`: each copy-in `affine.dma_start` of a function's body (with the
allocs of its buffer and tag) moves up past every op that cannot change what it reads, so
the transfer starts while earlier nests run instead of after them.

    %y_fast = alloc                                   %y_fast = alloc
    affine.for ... { y_fast[i] = 0 }                  %A_fast = alloc
    dma_start %y_fast[0], %y[0], %t[0], %n            %t1 = alloc
    dma_wait %t[0], %n                          ->    dma_start %A[0, 0], %A_fast[0, 0], %t1[0], %m
    %A_fast = alloc                                   affine.for ... { y_fast[i] = 0 }
    %t1 = alloc                                       dma_start %y_fast[0], %y[0], %t[0], %n
    dma_start %A[0, 0], %A_fast[0, 0], %t1[0], %m     dma_wait %t[0], %n
    dma_wait %t1[0], %m                               dma_wait %t1[0], %m
    affine.for ... { ... %A_fast ... }                affine.for ... { ... %A_fast ... }

The copy pass places each nest's copy-in right above its nest (upstream's
`affine-data-copy-generate` does, one block range per nest), so in a function of several
nests the first transfer of a nest starts only when the nest before it (and its copy-out)
is done: PolyBench's atax waits for the write-back of `y = 0` before it starts reading `A`.
Not an upstream mlir-opt pass; this project runs it before `affine-dma-wait-sink` in the
accelerator pipeline.

A copy-in is a start whose destination is in `fast-mem-space` and whose source is not. It
rises in its block (a function's body only) past every op that, with every op nested in
it, neither writes its source memref (a store, a DMA into it, the wait of such a DMA, a
call taking it, an op of unknown effect: `OpaqueOp`, a callee that is external or itself
calls or holds such ops) nor uses its buffer or tag, nor defines one of its operands;
it never passes another copy-in (the copy-ins keep their issue order). Its buffer then
lives longer: it goes to the farthest place where every point of the function still holds
its live buffers in the fast memory (`fast-mem-capacity` KiB; `data_copy/fast_memory.py`
`peak_live_bytes`, the measure the copy pass bounds). A function holding an op that makes
a memref of another (a view) is left alone: distinct memref values are taken not to alias,
as in the dependence analysis. The transfer reads the same elements, which no op it passes
writes; results are bit-identical.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, AffineLoadOp, FuncOp, ModuleOp
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.dma_motion import alloc_of, fits, has_views, memory_space, unknown_effects


@dataclass(frozen=True)
class Options:
    fast_mem_space: int = 1
    fast_mem_capacity: int | None = None     # KiB; None: unlimited

    def __post_init__(self) -> None:
        if self.fast_mem_capacity is not None and self.fast_mem_capacity < 0:
            raise ValueError(f"fast-mem-capacity {self.fast_mem_capacity}: expected >= 0 KiB")


class AffineDmaStartHoistPass(Pass):
    name = "affine-dma-start-hoist"
    summary = "move each copy-in dma_start up past the ops that cannot change what it reads"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        cap = None if self.options.fast_mem_capacity is None else self.options.fast_mem_capacity * 1024
        for func in module.funcs:
            if func.is_declaration or has_views(func):
                continue
            moved = hoist_starts(func, module, self.options.fast_mem_space, cap)
            if moved:
                self.remark(func.loc, f"{moved} copy-in DMA start(s) moved above earlier ops")


def hoist_starts(func: FuncOp, module: ModuleOp, fast_space: int, capacity: int | None) -> int:
    """Hoist every copy-in start of `func`'s body (not of nested blocks); the number moved."""
    block = func.body
    moved = 0
    for start in [op for op in block.ops if _is_copy_in(op, fast_space)]:
        assert isinstance(start, AffineDmaStartOp)
        if _hoist(func, start, module, fast_space, capacity):
            moved += 1
    return moved


def _hoist(func: FuncOp, start: AffineDmaStartOp, module: ModuleOp, fast_space: int,
           capacity: int | None) -> bool:
    block = func.body
    ops = block.ops
    pos = block.index_of(start)
    group: list[Operation] = [start]
    for v in (start.dst, start.tag):
        d = alloc_of(v)
        if d is not None and d.parent_block is block and block.index_of(d) < pos and d not in group:
            group.append(d)
    group.sort(key=block.index_of)
    members = {id(o) for o in group}
    operands = {id(v) for o in group for v in o.operands}
    hidden = {id(start.dst), id(start.tag)}
    writes_src = {id(o.tag) for o in func.walk() if isinstance(o, AffineDmaStartOp) and o.dst is start.src}
    places = []        # the ops it may go above, nearest first
    for op in reversed(ops[:pos]):
        if id(op) in members:
            continue
        if any(id(r) in operands for r in op.results) or _is_copy_in(op, fast_space) \
                or _blocks(op, start.src, hidden, writes_src, module):
            break
        places.append(op)
    first = group[0]
    places = [p for p in places if block.index_of(p) < block.index_of(first)]
    if not places:
        return False
    before = [block.index_of(o) for o in group]
    # the farthest place where the buffer still fits the fast memory beside every op it passes
    for anchor in reversed(places):
        for o in group:
            o.detach()
            block.insert_before(anchor, o)
        if fits(func, fast_space, capacity):
            return True
        _restore(block, group, before)
    return False


def _restore(block: Block, group: list[Operation], before: list[int]) -> None:
    """Put `group` back at the indices `before` it had (ascending)."""
    for o in group:
        o.detach()
    for o, i in zip(group, before, strict=True):
        block.ops.insert(i, o)
        o.parent_block = block


def _is_copy_in(op: Operation, fast_space: int) -> bool:
    if not isinstance(op, AffineDmaStartOp):
        return False
    return memory_space(op.dst) == fast_space and memory_space(op.src) != fast_space


def _blocks(op: Operation, src: Value, hidden: set[int], writer_tags: set[int],
            module: ModuleOp) -> bool:
    """True when `op` (or an op nested in it) may write `src`, uses the start's buffer or
    tag, or has effects unknown."""
    if unknown_effects(module, op):
        return True
    for o in op.walk():
        if any(id(v) in hidden for v in o.operands):
            return True
        if isinstance(o, AffineDmaWaitOp) and id(o.tag) in writer_tags:
            return True
        if any(v is src for v in o.operands):
            if isinstance(o, AffineLoadOp):
                continue
            if isinstance(o, AffineDmaStartOp) and o.src is src and o.dst is not src:
                continue
            return True
    return False


__all__ = ["AffineDmaStartHoistPass", "hoist_starts"]
