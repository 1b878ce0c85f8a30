"""A loop nest left in the control program, costed where it is, as the kernel that
`outline-kernels` would make of it.

Outlining (cloning the nest into a private function, promoting dims to symbols, rewriting the
caller) costs more than the whole analytic walk of most programs, and the analytic estimate
only needs the nest's cost. `NestKernel` presents the nest through the few attributes the cost
model reads from a kernel function (`args`, `body.ops`, `walk()`): its arguments are the
values the nest uses from outside (constants included, passed by value, which is what the
cloned constants of the outlined kernel evaluate to), so op counts, access boxes and the
matmul classification are those of the outlined kernel. `inline_kernel` says when that holds:
a maximal DMA-free `affine.for` whose results nobody uses after it (those stay inline, as the
pass leaves them) and whose outside values are index values, memrefs or constants (a float
computed outside would change the multiply-add pairing the cost model sees).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from compiler.analysis import counting
from compiler.analysis.loop_roles import loop_roles
from compiler.ir.core import Operation, OpResult, Value
from compiler.ir.ops import AffineForOp, CallOp, ConstantOp, FuncOp
from compiler.ir.types import INDEX, MemRefType


class _Body:
    __slots__ = ("ops",)

    def __init__(self, ops: list[Operation]):
        self.ops = ops


class NestKernel:
    """Duck-typed as a `FuncOp` for `accelsim.cost.kernel` and `compiler.analysis.counting`.
    `walk()` replays one recorded pre-order walk: the cost model walks a kernel many times."""

    __slots__ = ("__weakref__", "args", "body", "nest", "ops", "sym_name")

    def __init__(self, nest: AffineForOp, args: list[Value], ops: list[Operation]):
        self.nest = nest
        self.args = args
        self.ops = ops
        self.body = _Body([nest])
        self.sym_name = f"<nest at {nest.loc}>"

    def walk(self) -> Iterator[Operation]:
        return iter(self.ops)


def captured(nest: AffineForOp, ops: list[Operation] | None = None) -> list[Value]:
    """Values used inside `nest` (whose pre-order walk is `ops`) but defined outside it, in
    first-use order."""
    inside: set[Value] = set()
    ops = preorder(nest) if ops is None else ops
    for o in ops:
        inside.update(o.results)
        for b in o.blocks:
            inside.update(b.args)
    seen: set[Value] = set()
    out: list[Value] = []
    for o in ops:
        for v in o.operands:
            if v not in inside and v not in seen:
                seen.add(v)
                out.append(v)
    return out


def inline_kernel(nest: AffineForOp) -> NestKernel | None:
    """The nest as a kernel, or None when the cost model must see the outlined function."""
    if nest.results:
        return None
    ops = preorder(nest)
    args = captured(nest, ops)
    for v in args:
        t = v.type
        if isinstance(t, MemRefType) or t == INDEX:
            continue
        if isinstance(v, OpResult) and isinstance(v.owner, ConstantOp):
            continue
        return None
    # its loop depth (the matmul classification needs 3) is the outlined kernel's: the
    # counting module stops at the nest, not at the control loops around it
    return NestKernel(nest, args, ops)


def preorder(op: Operation) -> list[Operation]:
    """`list(op.walk())` without a generator per nesting level."""
    out: list[Operation] = []
    stack = [op]
    while stack:
        o = stack.pop()
        out.append(o)
        for b in reversed(o.blocks):
            stack.extend(reversed(b.ops))
    return out


@dataclass(frozen=True, slots=True)
class NestFigures:
    """One top-level nest of a program, taken before any pass: its op counts, the GEMM role
    of each of its loops in walk order (`loop_roles`, None without one mappable reduction)
    and each loop's trip count (None where not constant)."""

    counts: counting.OpCounts
    roles: tuple[str, ...] | None
    trips: tuple[int | None, ...]


def top_nests(func: FuncOp) -> tuple[NestFigures, ...] | None:
    """The figures of every top-level `affine.for` of `func` (called with the integer
    constants it captures), or None when the body holds work that is not in such a nest (a
    call, an `affine.if` or `affine.parallel` at the top, a nest whose loop bounds read a
    value that is not a constant)."""
    out: list[NestFigures] = []
    for op in func.body.ops:
        if not op.blocks:
            if isinstance(op, CallOp):
                return None
            continue
        if not isinstance(op, AffineForOp):
            return None
        ops = preorder(op)
        if any(isinstance(o, CallOp) for o in ops):
            return None
        args = captured(op, ops)
        vals: list[int | None] = []
        for v in args:
            owner = v.owner if isinstance(v, OpResult) else None
            if isinstance(owner, ConstantOp) and type(owner.value) is int:
                vals.append(owner.value)
            elif isinstance(v.type, MemRefType) or v.type != INDEX:
                vals.append(None)
            else:
                return None  # an index value from outside the nest: its trip counts are unknown
        k = NestKernel(op, args, ops)
        try:
            counts = counting.count_ops(k, vals)  # type: ignore[arg-type]
        except counting.CountError:  # a nest the counting cannot walk: the roof falls back to the run's ops
            return None
        trips = tuple(counting.static_trip_count(o) for o in ops if isinstance(o, AffineForOp))
        out.append(NestFigures(counts, loop_roles(k), trips))  # type: ignore[arg-type]
    return tuple(out)
