"""Scalar op semantics for the ops the executor interprets (index arithmetic in the control
program; every scalar op in a kernel body it interprets): `SCALAR_OPS[type(op)](op, *args)`.

Index values are Python ints, element values numpy scalars of their element type (ml_dtypes'
for bf16, f8E4M3FN, f8E5M2 and i4: `ElementType.numpy_dtype`). The semantics are MLIR's, made
definite where MLIR leaves a result poison, the same way the host backend's lowering does:

- integers are signless two's complement of their width: every result wraps around; `*si`
  ops read their operands signed, `*ui` ops unsigned; division and remainder truncate toward
  zero, a zero divisor and `MIN / -1` are errors; a shift by the width or more gives 0 (the
  sign for `shrsi`);
- floats of narrow types compute in float32 and round to the type (ties to even), as
  ml_dtypes does; comparisons follow `arith.cmpf`'s ordered/unordered predicates,
  `maximumf`/`minimumf` propagate NaN;
- casts: `truncf`/`sitofp`/`uitofp` round to nearest even (an integer through float64 first,
  exact up to 2**53), overflow to inf (NaN in a format without inf: f8E4M3FN);
  `fptosi`/`fptoui` truncate toward zero and saturate out of range, NaN to 0 (LLVM's
  `fptosi.sat`); `bitcast` keeps the bits.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from accelsim.errors import SimulationError
from compiler.ir import ops as O
from compiler.ir.core import Operation
from compiler.ir.ops.math_ops import numpy_fn
from compiler.ir.types import ElementType, Type

Scalar = int | float | bool | np.generic  # a run-time index or element value
ScalarFn = Callable[..., Scalar]            # (op, *operands) -> result


def zero_of(t: Type) -> Scalar:
    """The value a timing-only run reads from memory: 0 of `t`."""
    if isinstance(t, ElementType):
        return 0 if t.is_index else t.numpy_dtype.type(0)
    return 0


# ---- integers --------------------------------------------------------------------------
def _width(t: Type) -> int:
    assert isinstance(t, ElementType)
    return 64 if t.is_index else t.bitwidth


def _signed(v: Scalar, w: int) -> int:
    """`v`'s bits (two's complement, `w` wide) read as a signed number (i1: 0 or -1)."""
    x = int(v) & ((1 << w) - 1)  # type: ignore[arg-type]
    return x - (1 << w) if x >> (w - 1) else x


def _unsigned(v: Scalar, w: int) -> int:
    return int(v) & ((1 << w) - 1)  # type: ignore[arg-type]


def _of(t: Type, v: int) -> Scalar:
    """The integer `v` as a value of `t`, wrapped to its width (index: a Python int)."""
    assert isinstance(t, ElementType)
    if t.is_index:
        return v
    if t.bitwidth == 1:
        return np.bool_(v & 1)
    return t.numpy_dtype.type(_signed(v, t.bitwidth))


def _int_op(fn: Callable[[int, int, int], int]) -> ScalarFn:
    """An integer op on signed readings, its result wrapped: `fn(a, b, width)`."""
    def run(op: Operation, a: Scalar, b: Scalar) -> Scalar:
        t = op.results[0].type
        if type(a) is int and type(b) is int and t.is_index:  # type: ignore[union-attr]
            return fn(a, b, 64)  # the control program's index arithmetic
        w = _width(t)
        return _of(t, fn(_signed(a, w), _signed(b, w), w))
    return run


def _uint_op(fn: Callable[[int, int, int], int]) -> ScalarFn:
    """An integer op on unsigned readings: `fn(ua, ub, width)`."""
    def run(op: Operation, a: Scalar, b: Scalar) -> Scalar:
        t = op.results[0].type
        w = _width(t)
        return _of(t, fn(_unsigned(a, w), _unsigned(b, w), w))
    return run


def _check_divisor(op: Operation, a: int, b: int, w: int, signed: bool) -> None:
    if b == 0:
        raise SimulationError(f"integer {'remainder' if 'rem' in op.NAME else 'division'} "
                              "by zero", op.loc)
    if signed and b == -1 and a == -(1 << (w - 1)) and not op.results[0].type.is_index:  # type: ignore[union-attr]
        raise SimulationError(f"integer division overflow ({a} / -1 in {op.results[0].type})",
                              op.loc)


def _divsi(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    t = op.results[0].type
    w = _width(t)
    x, y = _signed(a, w), _signed(b, w)
    _check_divisor(op, x, y, w, True)
    q = abs(x) // abs(y)
    q = q if (x >= 0) == (y >= 0) else -q
    return _of(t, x - y * q if isinstance(op, O.RemSIOp) else q)


def _divui(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    t = op.results[0].type
    w = _width(t)
    x, y = _unsigned(a, w), _unsigned(b, w)
    _check_divisor(op, x, y, w, False)
    return _of(t, x % y if isinstance(op, O.RemUIOp) else x // y)


def _shl(a: int, n: int, w: int) -> int:
    return 0 if n >= w else a << n


def _shrsi(a: int, n: int, w: int) -> int:
    return _signed(a, w) >> min(n, w - 1)


def _shrui(a: int, n: int, w: int) -> int:
    return 0 if n >= w else a >> n


# ---- floats ----------------------------------------------------------------------------
def _divf(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return a / b  # type: ignore[no-any-return, operator]


def _fmax(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    return a if (a != a or a > b) else b if b == b and b > a else a if a == b else b  # type: ignore[operator]


def _fmin(op: Operation, a: Scalar, b: Scalar) -> Scalar:
    return a if (a != a or a < b) else b if b == b and b < a else a if a == b else b  # type: ignore[operator]


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


def _cmpi(op: Operation, a: Scalar, b: Scalar) -> bool:
    p = op.predicate  # type: ignore[attr-defined]
    if p[0] == "u":
        w = _width(op.operands[0].type)
        a, b = _unsigned(a, w), _unsigned(b, w)
    elif type(a) is not int or type(b) is not int:
        w = _width(op.operands[0].type)
        a, b = _signed(a, w), _signed(b, w)
    return _CMP[p](a, b)


# ---- casts -----------------------------------------------------------------------------
def _to_float(t: Type, x: float) -> Scalar:
    assert isinstance(t, ElementType)
    with np.errstate(over="ignore", invalid="ignore"):
        return t.numpy_dtype.type(np.float64(x))  # type: ignore[no-any-return]


def _index_cast(op: Operation, a: Scalar) -> Scalar:
    t = op.results[0].type
    w = _width(op.operands[0].type)
    return _of(t, _signed(a, w))


def _extsi(op: Operation, a: Scalar) -> Scalar:
    return _of(op.results[0].type, _signed(a, _width(op.operands[0].type)))


def _extui(op: Operation, a: Scalar) -> Scalar:
    return _of(op.results[0].type, _unsigned(a, _width(op.operands[0].type)))


def _sitofp(op: Operation, a: Scalar) -> Scalar:
    return _to_float(op.results[0].type, float(_signed(a, _width(op.operands[0].type))))


def _uitofp(op: Operation, a: Scalar) -> Scalar:
    return _to_float(op.results[0].type, float(_unsigned(a, _width(op.operands[0].type))))


def _fpto(signed: bool) -> ScalarFn:
    def run(op: Operation, a: Scalar) -> Scalar:
        t = op.results[0].type
        w = _width(t)
        x = float(a)  # type: ignore[arg-type]
        lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if signed else (0, (1 << w) - 1)
        if x != x:
            v = 0
        elif x <= lo:
            v = lo
        elif x >= hi:
            v = hi
        else:
            v = int(x)  # toward zero
        return _of(t, v)
    return run


def _floatcast(op: Operation, a: Scalar) -> Scalar:
    return _to_float(op.results[0].type, float(a))  # type: ignore[arg-type]


def _bitcast(op: Operation, a: Scalar) -> Scalar:
    s, t = op.operands[0].type, op.results[0].type
    assert isinstance(s, ElementType) and isinstance(t, ElementType)
    if s.bitwidth < 8:  # i1, i4: to themselves only
        return _of(t, int(a))  # type: ignore[arg-type]
    bits = np.array(a, dtype=s.numpy_dtype).view(np.dtype(f"uint{s.bitwidth}"))
    return bits.view(t.numpy_dtype)[()]  # type: ignore[no-any-return]


SCALAR_OPS: dict[type[Operation], ScalarFn] = {
    O.AddFOp: lambda op, a, b: a + b, O.SubFOp: lambda op, a, b: a - b,
    O.MulFOp: lambda op, a, b: a * b, O.DivFOp: _divf,
    O.AddIOp: _int_op(lambda a, b, w: a + b), O.SubIOp: _int_op(lambda a, b, w: a - b),
    O.MulIOp: _int_op(lambda a, b, w: a * b),
    O.DivSIOp: _divsi, O.RemSIOp: _divsi, O.DivUIOp: _divui, O.RemUIOp: _divui,
    O.MaxSIOp: _int_op(lambda a, b, w: max(a, b)), O.MinSIOp: _int_op(lambda a, b, w: min(a, b)),
    O.MaxUIOp: _uint_op(lambda a, b, w: max(a, b)), O.MinUIOp: _uint_op(lambda a, b, w: min(a, b)),
    O.AndIOp: _int_op(lambda a, b, w: a & b), O.OrIOp: _int_op(lambda a, b, w: a | b),
    O.XOrIOp: _int_op(lambda a, b, w: a ^ b),
    O.ShLIOp: _uint_op(_shl), O.ShRSIOp: _uint_op(_shrsi), O.ShRUIOp: _uint_op(_shrui),
    O.MaximumFOp: _fmax, O.MinimumFOp: _fmin,
    O.NegFOp: lambda op, a: -a, O.AbsFOp: lambda op, a: abs(a),
    O.ExpOp: lambda op, a: np.exp(a), O.LogOp: lambda op, a: np.log(a), O.SqrtOp: lambda op, a: np.sqrt(a),
    O.CmpFOp: lambda op, a, b: bool(_CMP[op.predicate](a, b)),
    O.CmpIOp: _cmpi,
    O.SelectOp: lambda op, c, a, b: a if c else b,
    O.IndexCastOp: _index_cast, O.ExtSIOp: _extsi, O.ExtUIOp: _extui,
    O.TruncIOp: _extsi,  # the low bits: `_of` wraps
    O.SIToFPOp: _sitofp, O.UIToFPOp: _uitofp, O.FPToSIOp: _fpto(True), O.FPToUIOp: _fpto(False),
    O.ExtFOp: _floatcast, O.TruncFOp: _floatcast, O.BitcastOp: _bitcast,
}


def _math(name: str) -> ScalarFn:
    """A math op on scalars by its numpy function (a 0-d result made a scalar)."""
    f = numpy_fn(name)

    def run(op: Operation, *xs: Scalar) -> Scalar:
        r = f(*xs)
        return r[()] if isinstance(r, np.ndarray) else r  # type: ignore[no-any-return]
    return run


for _table in (O.MATH_UNARY, O.MATH_BINARY, O.MATH_TERNARY):
    for _name, _cls in _table.items():
        SCALAR_OPS[_cls] = _math(_name)
