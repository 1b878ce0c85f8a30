"""Memory footprint of a loop (or ops of one block): bytes of the regions' bounding boxes."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.analysis.region import memref_regions
from compiler.ir.core import Operation
from compiler.ir.types import MemRefType


def footprint_bytes(op_or_ops: Operation | Sequence[Operation],
                    memory_space: int | None = None) -> int | None:
    """Sum over the memrefs accessed (in `memory_space`, or all) of their region's box size.

    The regions are parameterized by the enclosing IVs, and each box extent is the maximum
    over those IVs, so this is what one execution of the ops needs at most. None when some
    region has no constant extent (e.g. it spans a symbolic bound).
    """
    ops = [op_or_ops] if isinstance(op_or_ops, Operation) else list(op_or_ops)
    total = 0
    for memref, region in memref_regions(ops).items():
        mt = memref.type
        assert isinstance(mt, MemRefType)
        if memory_space is not None and mt.memory_space != memory_space:
            continue
        size = region.size_bytes()
        if size is None:
            return None
        total += size
    return total
