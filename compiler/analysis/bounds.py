"""Accesses outside their memref, proven on the program as written.

For every load, store and DMA side whose iteration domain and index map isl can model, the
set of elements it touches is compared with the memref's extents; a non-empty difference is
an out-of-bounds access for certain (no symbol is involved) and comes back with a witness:
the element, the dimension it leaves and the loop values that reach it. An access whose range
depends on symbols (values only known at run time) is left to the run-time checks of the
simulator and the bounds-checked host backend.

The accelerator pipeline refuses such a program before tiling: its copies clip to the memref,
so the out-of-bounds access would otherwise vanish instead of being reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.access import Access, accesses_in, relation_in_frame
from compiler.analysis.domain import domain_in_frame, enclosing_loops
from compiler.analysis.isl_bridge import CTX, AnalysisError, Frame, isl_name
from compiler.diagnostics import DiagnosticError, Location
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineDmaStartOp, AffineForOp, ConstantOp, FuncOp
from compiler.ir.types import MemRefType


class OutOfBoundsError(DiagnosticError):
    """An access of the input program leaves its memref (found before anything runs)."""


@dataclass(frozen=True, slots=True)
class OutOfBounds:
    op: Operation
    side: str                           # "" for load/store, "src"/"dst"/"tag" for a DMA
    memref_name: str
    memref_type: MemRefType
    element: tuple[int, ...]            # an element outside the memref the access touches
    dim: int                            # the first dimension of `element` out of range
    ivs: tuple[tuple[str, int], ...]    # loop values at which it does

    @property
    def loc(self) -> Location:
        return self.op.loc

    def message(self) -> str:
        side = f" {self.side}" if self.side else ""
        where = ", ".join(f"{n} = {v}" for n, v in self.ivs)
        extent = self.memref_type.shape[self.dim]
        return (f"{self.op.NAME}{side} accesses {self.memref_name}{list(self.element)} outside "
                f"{self.memref_type}: index {self.element[self.dim]} of dimension {self.dim} "
                f"not in [0, {extent - 1}]" + (f" (at {where})" if where else ""))  # type: ignore[operator]


def out_of_bounds_accesses(func: FuncOp) -> list[OutOfBounds]:
    """Every access of `func` proven to leave its memref, in program order (one per access)."""
    out = []
    for acc in accesses_in(func):
        found = _check(acc)
        if found is not None:
            out.append(found)
    return out


def first_out_of_bounds(root: Operation) -> OutOfBounds | None:
    """The first access inside `root` proven to leave its memref, or None. (The dependence
    analysis reasons on subscripts: such an access may alias any element, so a transform
    that reorders `root` cannot rely on it.)"""
    for acc in accesses_in(root):
        found = _check(acc)
        if found is not None:
            return found
    return None


def check_in_bounds(func: FuncOp) -> None:
    """Raise `OutOfBoundsError` for the first access of `func` proven out of bounds."""
    bad = out_of_bounds_accesses(func)
    if bad:
        first = bad[0]
        more = f" ({len(bad) - 1} more access(es) out of bounds)" if len(bad) > 1 else ""
        raise OutOfBoundsError(first.message() + more, first.loc)


def _check(acc: Access) -> OutOfBounds | None:
    op, side, memref = acc.op, acc.side, acc.memref
    mt = memref.type
    if not isinstance(mt, MemRefType) or not mt.has_static_shape or mt.rank == 0:
        return None
    loops = enclosing_loops(op)
    try:
        frame = Frame([lp.iv for lp in loops])
        dom = domain_in_frame(op, frame)
        # [symbols] -> { [ivs] -> M[a0, ...] }: the element accessed (a DMA: its first one)
        rel = relation_in_frame(op, side, frame, dom, full_range=False)
    except (AnalysisError, isl.Error):
        return None
    if rel.dim(isl.dim_type.param):
        return None  # symbolic: the run-time checks decide
    shape = [int(d) for d in mt.shape]  # type: ignore[arg-type]
    name = isl_name(memref)
    names = [f"a{k}" for k in range(mt.rank)]
    inside = " and ".join(f"0 <= {a} < {d}" for a, d in zip(names, shape))
    box = isl.Set.read_from_str(CTX, f"{{ {name}[{', '.join(names)}] : {inside} }}")
    outside = rel.range().subtract(box)
    if not outside.is_empty():
        point = outside.lexmin().sample_point()  # the first such element, row-major
        element = tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python()
                        for k in range(mt.rank))
        witness = rel.intersect_range(isl.Set.from_point(point)).domain().lexmin().sample_point()
        return _found(op, side, memref.name_hint, mt, element, loops, witness)
    if isinstance(op, AffineDmaStartOp) and side in ("src", "dst"):
        return _dma_overrun(op, side, memref.name_hint, mt, shape, rel, loops)
    return None


def _dma_overrun(op: AffineDmaStartOp, side: str, name: str | None, mt: MemRefType,
                 shape: list[int], rel: isl.Map, loops: list[AffineForOp]) -> OutOfBounds | None:
    """A transfer whose first element is inside but whose last one is past the memref's end
    (row-major linear order), for constant counts and strides."""
    n, stride, per = (_constant(v) for v in (op.num_elements, op.stride, op.elements_per_stride))
    if n is None or n <= 0 or (op.is_strided and (stride is None or per is None or per <= 0)):
        return None
    strided_side = "src" if op.src.type.memory_space <= op.dst.type.memory_space else "dst"  # type: ignore[union-attr]
    extent = n
    if op.is_strided and side == strided_side:
        chunks = -(-n // per)  # type: ignore[operator]
        extent = (chunks - 1) * stride + (n - (chunks - 1) * per)  # type: ignore[operator]
    strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    numel = math.prod(shape)
    # { [ivs] -> [lin] }: the first element's linear index
    lin = " + ".join(f"{st}*a{k}" for k, st in enumerate(strides))
    to_lin = isl.Map.read_from_str(
        CTX, f"{{ {rel.get_tuple_name(isl.dim_type.out)}[{', '.join(f'a{k}' for k in range(len(shape)))}]"
             f" -> L[{lin}] }}")
    starts = rel.apply_range(to_lin)
    late = starts.intersect_range(isl.Set.read_from_str(CTX, f"{{ L[l] : l >= {numel - extent + 1} }}"))
    if late.is_empty():
        return None
    witness = late.domain().lexmin().sample_point()
    # the first element it reaches past the end: linear index numel
    element = (shape[0], *([0] * (len(shape) - 1)))
    return _found(op, side, name, mt, element, loops, witness)


def _constant(v: Value | None) -> int | None:
    owner = getattr(v, "owner", None)
    if isinstance(owner, ConstantOp) and isinstance(owner.value, int):
        return int(owner.value)
    return None


def _found(op: Operation, side: str, name: str | None, mt: MemRefType, element: tuple[int, ...],
           loops: list[AffineForOp], witness: isl.Point) -> OutOfBounds:
    dim = next(k for k, (i, n) in enumerate(zip(element, mt.shape)) if not 0 <= i < n)  # type: ignore[operator]
    ivs = tuple((lp.iv.name_hint or f"d{k}",
                 witness.get_coordinate_val(isl.dim_type.set, k).to_python())
                for k, lp in enumerate(loops))
    return OutOfBounds(op, side, name or "memref", mt, element, dim, ivs)
