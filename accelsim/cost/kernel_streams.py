"""A kernel's SRAM access streams, for the bank-conflict model (`accelsim.cost.sram_banks`):
each as (accesses, bytes per access, stride in bytes, accesses per group, repetitions, stride
of the repetitions in bytes).

- vector lanes: every `affine.load` / `affine.store` of a memref in the SRAM space is one
  stream: it runs once per iteration of its enclosing loops (the product of their trip
  counts), its stride is its address step along the innermost enclosing loop (the linearized
  row-major index's coefficient of that induction variable, times the element size), and
  `lanes` consecutive iterations of that loop issue together (one vector op). Needs the trip
  counts of a rectangular kernel (`accelsim.cost.kernel_shape`); None otherwise.
- the matrix array: its operands stream once per kernel (the footprint, as the bandwidth
  model counts it), each operand's box row by row: rows of `extent[-1]` elements, one
  memref row pitch (`shape[-1]` elements) apart; a box both read and written streams twice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from compiler.analysis.counting import access_boxes
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp, FuncOp
from compiler.ir.types import MemRefType, row_major_strides

Stream = tuple[int, int, int, int, int, int]  # as accelsim.cost.sram_banks.Stream
# per access: (enclosing loops by walk index, innermost first; element bytes; memory space;
# stride in elements along the innermost loop; along the next one out)
_Access = tuple[tuple[int, ...], int, int, int, int]
_STATIC: dict[int, tuple[FuncOp, list[_Access] | None]] = {}


def vector_streams(func: FuncOp, trips: Sequence[int], space: int, lanes: int) -> list[Stream] | None:
    """The streams of every access to `space` for one call with these loop trip counts."""
    accesses = _accesses(func)
    if accesses is None:
        return None
    out: list[Stream] = []
    for loops, eb, sp, stride, ostride in accesses:
        if sp != space:
            continue
        inner = trips[loops[0]] if loops else 1
        outer = math.prod(trips[i] for i in loops[1:])
        if inner and outer:
            out.append((inner, eb, stride * eb, lanes if loops else 1, outer, ostride * eb))
    return out


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


def _accesses(func: FuncOp) -> list[_Access] | None:
    hit = _STATIC.get(id(func))
    if hit is not None and hit[0] is func:
        return hit[1]
    out = _read_accesses(func)
    if len(_STATIC) > 1000:  # entries keep their function alive: stay bounded
        _STATIC.clear()
    _STATIC[id(func)] = (func, out)
    return out


def _read_accesses(func: FuncOp) -> list[_Access] | None:
    index: dict[int, int] = {}
    for op in func.walk():
        if isinstance(op, AffineForOp):
            index[id(op)] = len(index)
    out: list[_Access] = []
    for op in func.walk():
        if not isinstance(op, AffineLoadOp | AffineStoreOp):
            continue
        t = op.memref.type
        if not isinstance(t, MemRefType) or not t.has_static_shape:
            return None
        loops = [a for a in op.ancestors() if isinstance(a, AffineForOp)]
        steps = [0, 0]  # address steps (elements) along the innermost loop and the next out
        m = op.map
        strides = row_major_strides(tuple(t.shape))  # type: ignore[arg-type]
        for r, st in zip(m.results, strides, strict=True):
            lin = r.linear_coeffs(m.num_dims, m.num_symbols)
            if lin is None:
                return None
            for v, c in zip(op.indices, [*lin[0], *lin[1]], strict=True):
                for k, loop in enumerate(loops[:2]):
                    if c and v is loop.iv:
                        steps[k] += c * st * loop.step
        out.append((tuple(index[id(a)] for a in loops), t.element.byte_width, t.memory_space,
                    abs(steps[0]), abs(steps[1])))
    return out


def clear_caches() -> None:
    _STATIC.clear()
