"""A tiny, slow, obviously-correct interpreter of the IR the workload builders emit.

It lets the builder tests check "the IR computes what the reference computes" without the
native backend: tiny sizes, float64, one Python statement per op.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from compiler.ir import (
    AffineApplyOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineStoreOp,
    AffineYieldOp,
    BinaryOp,
    Block,
    ConstantOp,
    ModuleOp,
    Operation,
    ReturnOp,
    Value,
)
from compiler.ir.affine_eval import evaluate_map, set_contains

_BINARY: dict[str, Callable[[float, float], float]] = {
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": lambda a, b: a / b,
    "arith.maximumf": max,
    "arith.minimumf": min,
    "math.powf": math.pow,
}
_CMPF: dict[str, Callable[[float, float], bool]] = {
    "oeq": lambda a, b: a == b, "olt": lambda a, b: a < b, "ole": lambda a, b: a <= b,
    "ogt": lambda a, b: a > b, "oge": lambda a, b: a >= b, "one": lambda a, b: a != b,
}
_UNARY: dict[str, Callable[[float], float]] = {
    "math.exp": math.exp,
    "math.sqrt": math.sqrt,
    "arith.negf": lambda a: -a,
}


class _Interpreter:
    def __init__(self, arrays: dict[Value, np.ndarray]):
        self.env: dict[Value, object] = dict(arrays)

    def _ints(self, op: Operation, operands: list[Value], num_dims: int) -> tuple[list[int], list[int]]:
        vals = [int(self.env[v]) for v in operands]  # type: ignore[call-overload]
        return vals[:num_dims], vals[num_dims:]

    def block(self, block: Block) -> list[object]:
        for op in block.ops:
            if isinstance(op, AffineYieldOp | ReturnOp):
                return [self.env[v] for v in op.operands]
            self.op(op)
        return []

    def op(self, op: Operation) -> None:
        env = self.env
        if isinstance(op, AffineForOp):
            lo = max(evaluate_map(op.lower_map, *self._ints(op, op.lower_operands, op.lower_map.num_dims)))
            hi = min(evaluate_map(op.upper_map, *self._ints(op, op.upper_operands, op.upper_map.num_dims)))
            carried = [env[v] for v in op.inits]
            for iv in range(lo, hi, op.step):
                env[op.iv] = iv
                for arg, val in zip(op.region_iter_args, carried, strict=True):
                    env[arg] = val
                carried = self.block(op.body)
            for r, val in zip(op.results, carried, strict=True):
                env[r] = val
        elif isinstance(op, AffineIfOp):
            taken = set_contains(op.condition, *self._ints(op, op.operands, op.condition.num_dims))
            vals = self.block(op.then_block if taken else op.else_block)
            for r, val in zip(op.results, vals, strict=True):
                env[r] = val
        elif isinstance(op, AffineLoadOp):
            idx = evaluate_map(op.map, *self._ints(op, op.indices, op.map.num_dims))
            env[op.result] = float(env[op.memref][idx])  # type: ignore[index]
        elif isinstance(op, AffineStoreOp):
            idx = evaluate_map(op.map, *self._ints(op, op.indices, op.map.num_dims))
            env[op.memref][idx] = env[op.value]  # type: ignore[index]
        elif isinstance(op, AffineApplyOp):
            (env[op.result],) = evaluate_map(op.map, *self._ints(op, op.operands, op.map.num_dims))
        elif isinstance(op, ConstantOp):
            env[op.result] = op.value
        elif isinstance(op, BinaryOp) and op.NAME in _BINARY:
            env[op.result] = _BINARY[op.NAME](env[op.lhs], env[op.rhs])  # type: ignore[arg-type]
        elif op.NAME == "arith.cmpf":
            env[op.result] = _CMPF[op.predicate](env[op.operands[0]], env[op.operands[1]])  # type: ignore[attr-defined,arg-type]
        elif op.NAME == "arith.select":
            cond, a, b = (env[v] for v in op.operands)
            env[op.result] = a if cond else b
        elif op.NAME in _UNARY:
            env[op.result] = _UNARY[op.NAME](env[op.operands[0]])  # type: ignore[arg-type]
        else:
            raise NotImplementedError(f"test interpreter: {op.NAME}")


def interpret(module: ModuleOp, func_name: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run `func_name` on float64 copies of `inputs`; return every argument afterwards."""
    func = module.lookup(func_name)
    assert func is not None
    arrays = {name: np.array(inputs[name], dtype=np.float64) for name in func.arg_names()}
    bound = {arg: arrays[name] for arg, name in zip(func.args, func.arg_names(), strict=True)}
    _Interpreter(bound).block(func.body)
    return arrays


@pytest.fixture
def run_ir() -> Callable[[ModuleOp, str, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    return interpret
