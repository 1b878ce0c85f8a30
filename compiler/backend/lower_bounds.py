"""Which bounds checks a function's loads and stores get, and the ones hoisted out of loops.

Per affine.load/store in bounds-checked mode: the dimensions isl proves in bounds get no
check (bounds_proof.py); of the rest, those of an access check_hoist.py can hoist are
checked once before the loop band (two corner indices per dimension); what is left is
checked at the access itself (checks.FunctionChecks.index).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from llvmlite import ir

from compiler.backend.bounds_proof import proven_dims
from compiler.backend.check_hoist import HoistedCheck, plan_hoisting
from compiler.backend.checks import CheckSite, FunctionChecks
from compiler.backend.llvm_types import MemRefHandle, i64
from compiler.ir.affine_expr import AffineExpr
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp, FuncOp
from compiler.ir.types import MemRefType


class Lowering(Protocol):
    """What this needs from the function lowering (lower._FunctionLowering)."""

    b: ir.IRBuilder
    llfunc: ir.Function

    @property
    def checks(self) -> FunctionChecks: ...

    def memref(self, v: Value) -> MemRefHandle: ...

    def scalar(self, v: Value) -> ir.Value: ...

    def map_results(self, m: AffineMap | IntegerSet, operands: Sequence[Value],
                    at: Operation) -> list[ir.Value]: ...

    def eval_expr(self, e: AffineExpr, num_dims: int, values: Sequence[ir.Value],
                  at: Operation) -> ir.Value: ...


def access_site(op: Operation, subject: str, memref: Value, t: MemRefType) -> CheckSite:
    name = f"%{memref.name_hint}" if memref.name_hint else "%?"
    return CheckSite(op.NAME, op.loc, f"{subject} {name}", str(t), tuple(t.shape))


def access_subject(op: Operation) -> str:
    return "from" if isinstance(op, AffineLoadOp) else "into"


class BoundsPlan:
    """The bounds checks of one function: per access, the dimensions checked at the access;
    per loop, the checks to emit before it."""

    def __init__(self, func: FuncOp, prove: bool, hoist: bool,
                 not_targets: Collection[AffineForOp] = ()):
        self.at_access: dict[Operation, tuple[int, ...]] = {}
        for op in func.walk():
            if isinstance(op, AffineLoadOp | AffineStoreOp):
                t = op.memref.type
                assert isinstance(t, MemRefType)
                proven = proven_dims(op, t) if prove else frozenset()
                self.at_access[op] = tuple(k for k in range(t.rank) if k not in proven)
        self.before_loop: dict[AffineForOp, list[HoistedCheck]] = (
            plan_hoisting(func, self.at_access, not_targets) if hoist else {})
        for checks in self.before_loop.values():
            for h in checks:
                self.at_access[h.access] = tuple(k for k in self.at_access[h.access] if k not in h.dims)

    def dims_at(self, op: Operation) -> tuple[int, ...]:
        return self.at_access.get(op, ())

    def emit_before(self, lw: Lowering, loop: AffineForOp) -> None:
        """The hoisted checks of the bands `loop` heads, at the builder's position."""
        hoisted = self.before_loop.get(loop)
        if not hoisted:
            return
        b = lw.b
        for h in hoisted:
            # Each loop's bounds are computed only once the loops around it are known to
            # run, as the loops themselves would (a bound may divide by a zero symbol).
            done = lw.llfunc.append_basic_block("hoisted.done")
            ends: dict[AffineForOp, tuple[ir.Value, ir.Value, ir.Value]] = {}
            for band_loop in h.band:
                ends[band_loop] = _loop_ends(lw, band_loop)
                lb, ub, _ = ends[band_loop]
                runs = lw.llfunc.append_basic_block("hoisted.check")
                b.cbranch(b.icmp_signed("<", lb, ub), runs, done)
                b.position_at_end(runs)
            _emit_corners(lw, h, ends)
            b.branch(done)
            b.position_at_end(done)


def _loop_ends(lw: Lowering, loop: AffineForOp) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(first, bound, last) of the IV; `last` is meaningful when first < bound."""
    b = lw.b
    lb = _fold(b, lw.map_results(loop.lower_map, loop.lower_operands, loop), ">")
    ub = _fold(b, lw.map_results(loop.upper_map, loop.upper_operands, loop), "<")
    span = b.sub(b.sub(ub, i64(1)), lb)
    step = i64(loop.step)
    last = b.add(lb, b.mul(b.sdiv(span, step), step)) if loop.step != 1 else b.sub(ub, i64(1))
    return lb, ub, last


def _fold(b: ir.IRBuilder, values: Sequence[ir.Value], pred: str) -> ir.Value:
    acc = values[0]
    for v in values[1:]:
        acc = b.select(b.icmp_signed(pred, v, acc), v, acc)
    return acc


def _emit_corners(lw: Lowering, h: HoistedCheck,
                  ends: dict[AffineForOp, tuple[ir.Value, ir.Value, ir.Value]]) -> None:
    access = h.access
    handle = lw.memref(access.memref)
    site = lw.checks.site(access_site(access, access_subject(access), access.memref, handle.type))
    position = {id(loop.iv): j for j, loop in enumerate(h.band)}
    for d, coeffs in zip(h.dims, h.coeffs, strict=True):
        corners = []
        for smallest in (True, False):
            values = []
            for v in access.indices:
                j = position.get(id(v))
                if j is None:
                    values.append(lw.scalar(v))
                    continue
                first, _, last = ends[h.band[j]]
                values.append(first if (coeffs[j] >= 0) == smallest else last)
            corners.append(lw.eval_expr(access.map.results[d], access.map.num_dims, values, access))
        lw.checks.index_range(site, d, corners[0], corners[1], handle.sizes[d])
