"""Scalar op semantics for the ops the executor interprets (index arithmetic in the control
program; every scalar op in a kernel body it interprets): `SCALAR_OPS[type(op)](op, *args)`.

Index values are Python ints, element values numpy scalars of their element type; integer
division and remainder truncate toward zero (as `arith.divsi`/`arith.remsi`), float
comparisons follow `arith.cmpf`'s ordered/unordered predicates, `maximumf`/`minimumf`
propagate NaN.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from accelsim.errors import SimulationError
from compiler.ir import ops as O
from compiler.ir.core import Operation
from compiler.ir.types import ElementType, Type

Scalar = int | float | bool | np.generic  # a run-time index or element value
ScalarFn = Callable[..., Scalar]            # (op, *operands) -> result


def zero_of(t: Type) -> Scalar:
    """The value a timing-only run reads from memory: 0 of `t`."""
    if isinstance(t, ElementType):
        return 0 if t.is_index else t.numpy_dtype.type(0)
    return 0


def _fdiv(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    if isinstance(a, np.floating):
        with np.errstate(divide="ignore", invalid="ignore"):
            return a / b  # type: ignore[no-any-return]
    if b == 0:
        raise SimulationError("integer division by zero", op.loc)
    q = abs(a) // abs(b)  # type: ignore[arg-type, operator]
    return q if (a >= 0) == (b >= 0) else -q  # type: ignore[operator]


def _rem(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    if b == 0:
        raise SimulationError("integer remainder by zero", op.loc)
    return a - b * _fdiv(op, a, b)  # type: ignore[operator]


_CMP: dict[str, Callable[[Scalar, Scalar], bool]] = {
    "oeq": lambda a, b: a == b, "ogt": lambda a, b: a > b, "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b, "ole": lambda a, b: a <= b, "one": lambda a, b: a < b or a > b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
    "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b,
    "uge": lambda a, b: a >= b, "ueq": lambda a, b: a == b or a != a or b != b,
    "une": lambda a, b: a != b, "ord": lambda a, b: a == a and b == b,
    "uno": lambda a, b: a != a or b != b, "true": lambda a, b: True, "false": lambda a, b: False,
}


def _cast(op: Operation, a: Scalar) -> Scalar:
    t = op.results[0].type
    assert isinstance(t, ElementType)
    if t.is_index:
        return int(a)  # type: ignore[arg-type]
    return t.numpy_dtype.type(a)  # type: ignore[no-any-return]


def _fmax(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    return a if (a != a or a > b) else b if b == b and b > a else a if a == b else b  # type: ignore[operator]


def _fmin(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    return a if (a != a or a < b) else b if b == b and b < a else a if a == b else b  # type: ignore[operator]


SCALAR_OPS: dict[type[Operation], ScalarFn] = {
    O.AddFOp: lambda op, a, b: a + b, O.SubFOp: lambda op, a, b: a - b,
    O.MulFOp: lambda op, a, b: a * b, O.DivFOp: _fdiv,
    O.AddIOp: lambda op, a, b: a + b, O.SubIOp: lambda op, a, b: a - b,
    O.MulIOp: lambda op, a, b: a * b, O.DivSIOp: _fdiv, O.RemSIOp: _rem,
    O.MaxSIOp: lambda op, a, b: max(a, b), O.MinSIOp: lambda op, a, b: min(a, b),
    O.MaximumFOp: _fmax, O.MinimumFOp: _fmin,
    O.NegFOp: lambda op, a: -a, O.AbsFOp: lambda op, a: abs(a),
    O.ExpOp: lambda op, a: np.exp(a), O.LogOp: lambda op, a: np.log(a), O.SqrtOp: lambda op, a: np.sqrt(a),
    O.CmpFOp: lambda op, a, b: bool(_CMP[op.predicate](a, b)),
    O.CmpIOp: lambda op, a, b: bool(_CMP[op.predicate](a, b)),
    O.SelectOp: lambda op, c, a, b: a if c else b,
    O.IndexCastOp: _cast, O.SIToFPOp: _cast, O.FPToSIOp: _cast, O.ExtFOp: _cast,
    O.TruncFOp: _cast,
}
