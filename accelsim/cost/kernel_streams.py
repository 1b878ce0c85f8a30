"""A kernel's SRAM access streams, for the bank-conflict model (`accelsim.cost.sram_banks`):
each as (accesses, bytes per access, stride in bytes, accesses per group, repetitions, stride
of the repetitions in bytes).

- vector lanes: every `affine.load` / `affine.store` of a memref in the SRAM space is one
  stream: it runs once per iteration of its enclosing loops (the product of their trip
  counts), its stride is its address step along the innermost enclosing loop (the linearized
  row-major index's coefficient of that induction variable, times the element size), and
  `lanes` consecutive iterations of that loop issue together (one vector op). Needs the trip
  counts of a rectangular kernel (`accelsim.cost.kernel_shape`); None otherwise. With a
  register file (`compute.vector_registers`) an access held in registers or broadcast streams
  only as often as `accelsim.cost.vector_reuse` counts it.
- the matrix array: its operands stream once per kernel (the footprint, as the bandwidth
  model counts it), each operand's box row by row: rows of `extent[-1]` elements, one
  memref row pitch (`shape[-1]` elements) apart; a box both read and written streams twice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from accelsim.cost import vector_reuse
from compiler.analysis.counting import access_boxes
from compiler.ir.ops import FuncOp
from compiler.ir.types import MemRefType

Stream = tuple[int, int, int, int, int, int]  # as accelsim.cost.sram_banks.Stream


def vector_streams(func: FuncOp, trips: Sequence[int], space: int, lanes: int,
                   registers: int = 0) -> list[Stream] | None:
    """The streams of every access to `space` for one call with these loop trip counts, each
    as often as the vector unit's registers leave it (`accelsim.cost.vector_reuse`)."""
    counted = vector_reuse.plan(func, trips, lanes, registers)
    if counted is None:
        return None
    return [c.stream for c in counted if c.access.space == space and c.stream is not None]


def box_streams(func: FuncOp, args: Sequence[int | None], space: int) -> list[Stream]:
    """The matrix array's operand streams: each box in `space` row by row."""
    out: list[Stream] = []
    for ab in access_boxes(func, args):
        t = func.args[ab.arg].type
        assert isinstance(t, MemRefType)
        if t.memory_space != space or not ab.box:
            continue
        ext = [hi - lo + 1 for lo, hi in ab.box]
        if min(ext) <= 0:
            continue
        eb = t.element.byte_width
        pitch = int(t.shape[-1]) * eb if t.shape and isinstance(t.shape[-1], int) else ext[-1] * eb
        s = (1, ext[-1] * eb, 0, 1, math.prod(ext[:-1]), pitch)  # rows, one pitch apart
        out += [s, s] if ab.read and ab.written else [s]
    return out


def clear_caches() -> None:
    vector_reuse.clear_caches()
