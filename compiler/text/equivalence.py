"""Structural equality of two modules, for round-trip and differential tests.

Two modules are equivalent when they have the same ops in the same order and nesting, with
equal attributes (maps, sets, steps, predicates, callee names; float constants compared at
their type's precision), equal types, and operands that correspond one-to-one: the k-th value
defined in one module is used wherever the k-th value of the other is. Names and locations
are ignored unless `compare_locs` is set.

Index maps of loads, stores and DMA ops are compared by meaning: `%A[%i + %j]` is the same
access whether `%i` is d0 or d1, because the inline syntax fixes no dim order.

With `semantic_maps`, affine maps and sets are equal when they agree on a fixed grid of sample
points instead of being identical expressions: upstream MLIR simplifies some expressions
differently on construction (`(s0 + 2) floordiv 2` becomes `s0 floordiv 2 + 1`).
"""

from __future__ import annotations

import random

import numpy as np

from compiler.ir.affine_eval import evaluate_expr
from compiler.ir.affine_expr import AffineExpr, Dim
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineLoadOp,
    AffineStoreOp,
    AffineYieldOp,
    ConstantOp,
    ModuleOp,
)
from compiler.ir.types import ElementType


def module_diff(a: ModuleOp, b: ModuleOp, compare_locs: bool = False,
                semantic_maps: bool = False) -> str | None:
    """None if `a` and `b` are structurally equal, else a description of the first difference."""
    return _Compare(compare_locs, semantic_maps).op(a, b, "module")


_rng = random.Random(1234)
_SAMPLES = [tuple(_rng.randint(-60, 60) for _ in range(16)) for _ in range(96)]


def _exprs_agree(xs: tuple[AffineExpr, ...], ys: tuple[AffineExpr, ...]) -> bool:
    """Same values on every sample point (the variables are the dims the expressions use)."""
    if len(xs) != len(ys):
        return False
    used = sorted({a.pos for e in xs + ys for a in e.atoms() if isinstance(a, Dim)})
    local = [Dim(0)] * (max(used) + 1 if used else 0)
    for k, pos in enumerate(used):
        local[pos] = Dim(k)
    xs = tuple(e.substitute(local, ()) for e in xs)
    ys = tuple(e.substitute(local, ()) for e in ys)
    for point in _SAMPLES:
        vals = [point[k % len(point)] + 7 * (k // len(point)) for k in range(len(used))]
        for x, y in zip(xs, ys, strict=True):
            if x != y and _value(x, vals) != _value(y, vals):
                return False
    return True


def _value(e: AffineExpr, vals: list[int]) -> int | None:
    """`e` at `vals`; None where it divides by zero (a semi-affine divisor at 0: both sides
    undefined there agree, one side undefined does not)."""
    try:
        return evaluate_expr(e, vals)
    except ZeroDivisionError:
        return None


def _maps_agree(x: object, y: object) -> bool:
    if isinstance(x, AffineMap) and isinstance(y, AffineMap):
        if (x.num_dims, x.num_symbols) != (y.num_dims, y.num_symbols):
            return False
        dims = [Dim(k) for k in range(x.num_inputs)]
        xs = tuple(r.substitute(dims[: x.num_dims], dims[x.num_dims:]) for r in x.results)
        ys = tuple(r.substitute(dims[: y.num_dims], dims[y.num_dims:]) for r in y.results)
        return _exprs_agree(xs, ys)
    if isinstance(x, IntegerSet) and isinstance(y, IntegerSet):
        if (x.num_dims, x.num_symbols, x.eq_flags) != (y.num_dims, y.num_symbols, y.eq_flags):
            return False
        return _maps_agree(AffineMap(x.num_dims, x.num_symbols, x.constraints),
                           AffineMap(y.num_dims, y.num_symbols, y.constraints))
    return x == y


def _same_attr(op: Operation, name: str, x: object, y: object) -> bool:
    if isinstance(op, ConstantOp) and name == "value":
        t = op.results[0].type
        if isinstance(t, ElementType) and t.is_float:
            dtype = t.numpy_dtype
            xa, ya = np.array(x, dtype=dtype), np.array(y, dtype=dtype)
            return bool(xa.tobytes() == ya.tobytes() or (np.isnan(xa) and np.isnan(ya)))
    return x == y


def _access_parts(op: Operation) -> tuple[list[Value], list[tuple[AffineMap, list[Value]]]] | None:
    """(plain operands, [(index map, its operands)]) for ops written with inline index lists."""
    if isinstance(op, AffineLoadOp):
        return [op.memref], [(op.map, op.indices)]
    if isinstance(op, AffineStoreOp):
        return [op.value, op.memref], [(op.map, op.indices)]
    if isinstance(op, AffineDmaStartOp):
        tail = op.operands[len(op.operands) - (3 if op.is_strided else 1):]
        return [op.src, op.dst, op.tag, *tail], [
            (op.src_map, op.src_indices), (op.dst_map, op.dst_indices), (op.tag_map, op.tag_indices)]
    if isinstance(op, AffineDmaWaitOp):
        return [op.tag, op.num_elements], [(op.tag_map, op.tag_indices)]
    return None


class _Compare:
    def __init__(self, compare_locs: bool, semantic_maps: bool = False):
        self.compare_locs = compare_locs
        self.semantic_maps = semantic_maps
        self.pairs: dict[int, Value] = {}
        self.numbering: dict[int, int] = {}

    def bind(self, x: Value, y: Value, where: str) -> str | None:
        if x.type != y.type:
            return f"{where}: value types differ ({x.type} vs {y.type})"
        self.pairs[id(x)] = y
        return None

    def op(self, x: Operation, y: Operation, where: str) -> str | None:
        where = f"{where} > {x.NAME}"
        if type(x) is not type(y):
            return f"{where}: op differs ({x.NAME} vs {y.NAME})"
        implicit = isinstance(x, AffineYieldOp) and not x.operands
        if self.compare_locs and x.loc != y.loc and not implicit:
            return f"{where}: location differs ({x.loc} vs {y.loc})"
        px, py = _access_parts(x), _access_parts(y)
        if px is not None and py is not None:
            found = self.operands(px[0], py[0], where)
            if found:
                return found
            for k, ((mx, ox), (my, oy)) in enumerate(zip(px[1], py[1], strict=True)):
                ex, ey = self.access(mx, ox, True), self.access(my, oy, False)
                if ex is None:
                    return f"{where}: index operands of access #{k} are not defined earlier"
                same = (_exprs_agree(ex, ey) if self.semantic_maps
                        else ex == ey)
                if not same:
                    return f"{where}: access #{k} differs ({mx} vs {my})"
        else:
            for attr in x.ATTRS:
                xv, yv = getattr(x, attr), getattr(y, attr)
                if self.semantic_maps and isinstance(xv, AffineMap | IntegerSet):
                    if not _maps_agree(xv, yv):
                        return f"{where}: attribute '{attr}' differs in value ({xv} vs {yv})"
                elif not _same_attr(x, attr, xv, yv):
                    return f"{where}: attribute '{attr}' differs ({xv} vs {yv})"
            found = self.operands(x.operands, y.operands, where)
            if found:
                return found
        if len(x.blocks) != len(y.blocks):
            return f"{where}: {len(x.blocks)} vs {len(y.blocks)} regions"
        for bi, (bx, by) in enumerate(zip(x.blocks, y.blocks, strict=True)):
            found = self.block(bx, by, f"{where} region #{bi}")
            if found:
                return found
        if len(x.results) != len(y.results):
            return f"{where}: {len(x.results)} vs {len(y.results)} results"
        for k, (u, v) in enumerate(zip(x.results, y.results, strict=True)):
            found = self.bind(u, v, f"{where} result #{k}")
            if found:
                return found
        return None

    def operands(self, xs: list[Value], ys: list[Value], where: str) -> str | None:
        if len(xs) != len(ys):
            return f"{where}: {len(xs)} vs {len(ys)} operands"
        for k, (u, v) in enumerate(zip(xs, ys, strict=True)):
            mapped = self.pairs.get(id(u))
            if mapped is None:
                return f"{where}: operand #{k} is not defined earlier in the first module"
            if mapped is not v:
                return f"{where}: operand #{k} refers to a different value"
        return None

    def access(self, m: AffineMap, operands: list[Value], first: bool) -> tuple[AffineExpr, ...] | None:
        """The map's results over one variable per (corresponding) value."""
        variables: list[AffineExpr] = []
        for v in operands:
            w = self.pairs.get(id(v)) if first else v
            if w is None:
                return None
            k = self.numbering.setdefault(id(w), len(self.numbering))
            variables.append(Dim(k))
        return tuple(r.substitute(variables[: m.num_dims], variables[m.num_dims:])
                     for r in m.results)

    def block(self, x: Block, y: Block, where: str) -> str | None:
        if len(x.args) != len(y.args):
            return f"{where}: {len(x.args)} vs {len(y.args)} block arguments"
        for k, (u, v) in enumerate(zip(x.args, y.args, strict=True)):
            found = self.bind(u, v, f"{where} argument #{k}")
            if found:
                return found
        if len(x.ops) != len(y.ops):
            names_x = [o.NAME for o in x.ops]
            names_y = [o.NAME for o in y.ops]
            return f"{where}: {len(x.ops)} vs {len(y.ops)} ops ({names_x} vs {names_y})"
        for k, (ox, oy) in enumerate(zip(x.ops, y.ops, strict=True)):
            found = self.op(ox, oy, f"{where} op #{k}")
            if found:
                return found
        return None
