"""What the passes that move or drop DMAs of a function's body (`affine-dma-forward`,
`affine-dma-start-hoist`) ask of it: memory spaces, views, callees that touch only what they
are given, and whether the fast memory still holds every buffer after a move."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.ir.core import Block, Operation, OpResult, Value
from compiler.ir.ops import AllocOp, CallOp, DeallocOp, FuncOp, ModuleOp
from compiler.ir.ops.opaque import OpaqueOp
from compiler.ir.types import MemRefType
from compiler.transforms.data_copy.fast_memory import peak_live_bytes


@dataclass(frozen=True)
class FastMemoryOptions:
    """The options of the passes that move DMAs within a fast memory (`affine-copy-forward`,
    `affine-dma-forward`, `affine-dma-start-hoist`): its space and its capacity."""

    fast_mem_space: int = 1
    fast_mem_capacity: int | None = None   # KiB; None: unlimited

    def __post_init__(self) -> None:
        if self.fast_mem_capacity is not None and self.fast_mem_capacity < 0:
            raise ValueError(f"fast-mem-capacity must be >= 0 KiB, got {self.fast_mem_capacity}")


def memory_space(v: Value) -> int | None:
    t = v.type
    return t.memory_space if isinstance(t, MemRefType) else None


def alloc_of(v: Value) -> AllocOp | None:
    """The `memref.alloc` that defines `v` (None for an argument or another op's result)."""
    owner = v.owner if isinstance(v, OpResult) else None
    return owner if isinstance(owner, AllocOp) else None


def has_views(func: FuncOp) -> bool:
    """An op, other than an alloc, making a memref value from a memref operand (distinct
    memref values may then alias)."""
    for o in func.walk():
        if isinstance(o, AllocOp):
            continue
        if any(isinstance(r.type, MemRefType) for r in o.results) \
                and any(isinstance(v.type, MemRefType) for v in o.operands):
            return True
    return False


def plain_callee(module: ModuleOp, name: str) -> bool:
    """A callee that touches only the memrefs it is given: defined here, no calls, no ops of
    unknown effect (a global's get is one)."""
    f = module.lookup(name)
    if f is None or f.is_declaration:
        return False
    return not any(isinstance(o, CallOp | OpaqueOp) for o in f.walk())


def unknown_effects(module: ModuleOp, op: Operation) -> bool:
    """`op` or an op nested in it may touch memory it is not given: an op of a dialect we
    do not model, or a call of a callee that is not `plain_callee`."""
    for o in op.walk():
        if isinstance(o, OpaqueOp):
            return True
        if isinstance(o, CallOp) and not plain_callee(module, o.callee):
            return True
    return False


class Capacity:
    """The fast memory's capacity in bytes (`kib` None: unlimited), asked `holds(need)`.
    `range` (bytes, inclusive) is every capacity for which each answer given so far is the
    same: a run of the pass at another capacity in it takes the same decisions and gives the
    same output (the pass's `capacity_range`, which the compile cache of sweeps reads:
    `accelsim.compile.compile_cache.run_passes`)."""

    __slots__ = ("bytes", "range")

    def __init__(self, kib: int | None):
        self.bytes = None if kib is None else kib * 1024
        self.range = (0, 1 << 62)

    def holds(self, need: int) -> bool:
        """`need` bytes fit (always, when unlimited)."""
        if self.bytes is None:
            return True
        lo, hi = self.range
        if need <= self.bytes:
            self.range = (max(lo, need), hi)
            return True
        self.range = (lo, min(hi, need - 1))
        return False


def fits(func: FuncOp, space: int, capacity: Capacity) -> bool:
    """Every point of `func` holds its live `space` buffers in `capacity` (unlimited: any)."""
    return capacity.bytes is None or capacity.holds(peak_live_bytes(func, space))


def live_profile(block: Block, space: int) -> list[int]:
    """Per op of `block`: the most `space` bytes live while it runs, counting the block's
    buffers allocated before it (or by it) and not yet freed, and its nested blocks' peaks
    (the measure of `data_copy/fast_memory.py`; buffers of enclosing blocks left out)."""
    live: dict[int, int] = {}
    out = []
    for op in block.ops:
        if isinstance(op, AllocOp):
            t = op.memref_type
            if t.memory_space == space:
                live[id(op.result)] = t.size_bytes if t.has_static_shape else 1 << 62
        elif isinstance(op, DeallocOp):
            live.pop(id(op.operands[0]), None)
        now = sum(live.values())
        inner = max((_nested_peak(b, space) for b in op.blocks), default=0)
        out.append(now + inner)
    return out


def _nested_peak(block: Block, space: int) -> int:
    return max(live_profile(block, space), default=0)
