"""Brute-force ground truth for the polyhedral analysis: execute the control of a function
(loops, ifs, index arithmetic) in Python and record every access instance."""

from __future__ import annotations

import types
from dataclasses import dataclass

import islpy as isl
import pytest

from compiler.ir.affine_eval import evaluate_map, set_contains
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AffineApplyOp,
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    ConstantOp,
    FuncOp,
)


@dataclass(frozen=True)
class Inst:
    """One executed access: op, side, IVs of the enclosing loops (outer->inner), element."""

    seq: int
    op: Operation
    side: str
    ivs: tuple[int, ...]
    loops: tuple[AffineForOp, ...]
    element: tuple[int, ...]
    is_write: bool
    memref: Value


def _vals(env: dict[int, int], operands) -> list[int]:  # type: ignore[no-untyped-def]
    return [env[id(v)] for v in operands]


def _eval_map(m, operands, env):  # type: ignore[no-untyped-def]
    vals = _vals(env, operands)
    return evaluate_map(m, vals[: m.num_dims], vals[m.num_dims:])


def run_control(func: FuncOp, symbols: dict[str, int]) -> list[Inst]:
    env: dict[int, int] = {}
    for a in func.args:
        if getattr(a.type, "is_index", False):
            env[id(a)] = symbols[a.name_hint]
    out: list[Inst] = []

    def record(op, side, memref, m, operands, write, ivs, loops):  # type: ignore[no-untyped-def]
        out.append(Inst(len(out), op, side, tuple(ivs), tuple(loops),
                        tuple(_eval_map(m, operands, env)), write, memref))

    def block(b: Block, ivs: list[int], loops: list[AffineForOp]) -> None:
        for op in b.ops:
            if isinstance(op, ConstantOp) and isinstance(op.value, int):
                env[id(op.result)] = int(op.value)
            elif isinstance(op, AffineApplyOp):
                env[id(op.result)] = _eval_map(op.map, op.operands, env)[0]
            elif isinstance(op, AffineMinOp):
                env[id(op.result)] = min(_eval_map(op.map, op.operands, env))
            elif isinstance(op, AffineMaxOp):
                env[id(op.result)] = max(_eval_map(op.map, op.operands, env))
            elif isinstance(op, AffineForOp):
                lo = max(_eval_map(op.lower_map, op.lower_operands, env))
                hi = min(_eval_map(op.upper_map, op.upper_operands, env))
                for i in range(lo, hi, op.step):
                    env[id(op.iv)] = i
                    block(op.body, [*ivs, i], [*loops, op])
            elif isinstance(op, AffineIfOp):
                vals = _vals(env, op.operands)
                nd = op.condition.num_dims
                taken = set_contains(op.condition, vals[:nd], vals[nd:])
                block(op.then_block if taken else op.else_block, ivs, loops)
            elif isinstance(op, AffineLoadOp):
                record(op, "", op.memref, op.map, op.indices, False, ivs, loops)
            elif isinstance(op, AffineStoreOp):
                record(op, "", op.memref, op.map, op.indices, True, ivs, loops)
            elif isinstance(op, AffineDmaStartOp):
                record(op, "src", op.src, op.src_map, op.src_indices, False, ivs, loops)
                record(op, "dst", op.dst, op.dst_map, op.dst_indices, True, ivs, loops)
                record(op, "tag", op.tag, op.tag_map, op.tag_indices, True, ivs, loops)
            elif isinstance(op, AffineDmaWaitOp):
                record(op, "tag", op.tag, op.tag_map, op.tag_indices, False, ivs, loops)

    block(func.body, [], [])
    return out


def points(s: isl.Set) -> set[tuple[int, ...]]:
    """All integer points of a bounded, parameter-free set."""
    pts: set[tuple[int, ...]] = set()
    n = s.dim(isl.dim_type.set)

    def take(p: isl.Point) -> None:
        pts.add(tuple(int(p.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(n)))

    s.foreach_point(take)
    return pts


def fix_params(obj, values: dict[str, int]):  # type: ignore[no-untyped-def]
    """Fix every named parameter of an isl set/map to the given value."""
    for k in range(obj.dim(isl.dim_type.param)):
        name = obj.get_dim_name(isl.dim_type.param, k)
        if name in values:
            obj = obj.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(isl.DEFAULT_CONTEXT, values[name]))
    return obj


@pytest.fixture(scope="session")
def brute() -> types.SimpleNamespace:
    return types.SimpleNamespace(run_control=run_control, points=points, fix_params=fix_params,
                                 Inst=Inst)
