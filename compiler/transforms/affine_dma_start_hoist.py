"""`affine-dma-start-hoist`: each copy at a function's top level starts earlier, above the
nests before it that do not touch what it moves, so a nest's inputs arrive while the nests
before it compute (prefetch across nests), and a result leaves as soon as it is final.

    affine.dma_start %A[0], %A_fast[0], %t0[0], %n          affine.dma_start %A[0], %A_fast[0], %t0[0], %n
    affine.dma_wait %t0[0], %n                              %C_fast = memref.alloc() ...
    affine.for ... { ... %A_fast ... }                      affine.dma_start %C[0], %C_fast[0], %t1[0], %n
    %C_fast = memref.alloc() ...                       ->   affine.dma_wait %t0[0], %n
    affine.dma_start %C[0], %C_fast[0], %t1[0], %n          affine.for ... { ... %A_fast ... }
    affine.dma_wait %t1[0], %n                              affine.dma_wait %t1[0], %n
    affine.for ... { ... %C_fast ... }                      affine.for ... { ... %C_fast ... }

The copy pass places each nest's copies just above it (upstream's `affine-data-copy-generate`
does) and the pipelining pass overlaps copies with compute inside a loop only: where a nest's
data fits whole, the nests of a function run one after the other, each waiting for its own
copies first. Not an upstream mlir-opt pass; this project runs it after the pipelining pass
(and `affine-copy-forward`), before `affine-dma-wait-sink` sinks the waits.

A copy-in (a DMA from another memory space into a buffer of `fast-mem-space`) moves up with
the allocs of its buffer and tag when they are in the same block, past each op above it
that: is not another copy-in's start (copy-ins keep their issue order: the earlier nest's
inputs are queued first); holds no DMA (a pipelined nest's transfers are not delayed behind
it); defines none of its operands; may not write its source (no store, DMA into it, dealloc
of it, call or op of unknown effect; no wait on a tag some DMA into the source uses: the
data it reads are final); does not use its buffer or tag; and where the buffer, live from
there, keeps the fast memory's peak within `fast-mem-capacity`. A copy-out (a DMA from a
buffer of `fast-mem-space` to another space) moves up with its tag's alloc the same way,
past ops that do not write its buffer and do not touch its destination at all (no wait on
a tag some DMA into its buffer, or from or into its destination, uses): it starts right
after the last write of what it writes back (ludcmp's A, final after its first nest, leaves
while the substitutions run). Each copy reads the same elements, which no op in between
writes, into memory no op in between reads: results are bit-identical.
"""

from __future__ import annotations

from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, ModuleOp
from compiler.transforms.affine_copy_forward import _alloc_in, _direction, _written, live_profile
from compiler.transforms.data_copy.fast_memory import buffer_bytes
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.dma_motion import Capacity, FastMemoryOptions

Options = FastMemoryOptions


class AffineDmaStartHoistPass(Pass):
    name = "affine-dma-start-hoist"
    summary = "start each top-level copy-in above the nests before it that do not touch its data"
    Options = Options
    options: Options

    CAPACITY_OPTION = "fast_mem_capacity"   # decisions by comparisons: `capacity_range`

    def run(self, module: ModuleOp) -> None:
        self._cap = Capacity(self.options.fast_mem_capacity)
        for f in module.funcs:
            if f.is_declaration:
                continue
            starts = [op for op in f.body.ops if isinstance(op, AffineDmaStartOp)
                      and _direction(op, self.options.fast_mem_space) is not None]
            for s in starts:
                self._hoist(f.body, s, f)
        self.capacity_range = self._cap.range

    def _hoist(self, block: Block, start: AffineDmaStartOp, root: Operation) -> None:
        space = self.options.fast_mem_space
        inward = _direction(start, space) == "in"
        buffer = start.dst if inward else start.src
        fresh = _alloc_in(block, start.dst) if inward else None
        group: list[Operation] = [a for a in (fresh, _alloc_in(block, start.tag))
                                  if a is not None and block.index_of(a) < block.index_of(start)]
        group.append(start)
        ids = {id(o) for o in group}
        defined = {id(r) for o in group for r in o.results}
        needs = {id(v) for o in group for v in o.operands if id(v) not in defined}
        # a copy-in must not pass a write of its source; a copy-out a write of its buffer
        # nor any access of its destination
        src = start.src
        kept = {id(src)} if inward else {id(buffer)}
        untouched = {id(start.dst), id(start.tag)}
        tags_in_conflict = {id(o.tag) for o in root.walk() if isinstance(o, AffineDmaStartOp)
                            and (o.dst is src if inward else
                                 o.dst is buffer or start.dst in (o.src, o.dst))}
        grows = buffer_bytes(start.dst.type) if fresh is not None else 0  # type: ignore[arg-type]
        cap = self._cap
        profile = live_profile(block, space) if cap.bytes is not None and grows else []

        def passable(k: int) -> bool:
            p = block.ops[k]
            if id(p) in ids or p.IS_TERMINATOR:
                return False
            if isinstance(p, AffineDmaStartOp) and _direction(p, space) == "in":
                return False
            if any(isinstance(o, AffineDmaStartOp | AffineDmaWaitOp) for o in p.walk() if o is not p):
                return False
            if any(id(r) in needs for r in p.results):
                return False
            if any(id(v) in untouched for o in p.walk() for v in o.operands):
                return False
            written = _written(p)
            if written is None or kept & written:
                return False
            if isinstance(p, AffineDmaWaitOp) and id(p.tag) in tags_in_conflict:
                return False
            return not grows or cap.holds(profile[k] + grows)

        first = min(block.index_of(o) for o in group)
        if not all(passable(k) for k in range(first, block.index_of(start))
                   if id(block.ops[k]) not in ids):
            return
        k = first - 1
        while k >= 0 and passable(k):
            k -= 1
        passed = block.ops[k + 1:first]
        if not passed:
            return
        anchor = block.ops[k + 1]
        for o in group:
            o.detach()
            block.insert_before(anchor, o)
        nests = sum(1 for p in passed if p.blocks)
        waits = sum(1 for p in passed if isinstance(p, AffineDmaWaitOp))
        if nests or waits:
            what = f"copy-in of {_name(start.dst)}" if inward else f"copy-out of {_name(buffer)}"
            self.remark(start.loc, f"{what} started above {nests} loop nest(s) and {waits} wait(s)")


def _name(v: Value) -> str:
    return f"%{v.name_hint}" if getattr(v, "name_hint", None) else "a buffer"


__all__ = ["AffineDmaStartHoistPass"]
