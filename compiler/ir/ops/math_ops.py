"""The `math` dialect's float ops beyond exp/log/sqrt/absf (those four live in `arith.py`): every
elementwise float op mlir-opt-19 accepts on f32 that the host and the simulator can run.

Each has its numpy function (`NUMPY`: the simulator's scalar path and the reference of the
tests) and its LLVM lowering (`LLVM`: an intrinsic, or the C library's function of that name,
`f` suffix for f32)."""

from __future__ import annotations

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.core import Operation, Value
from compiler.ir.ops.arith import BinaryOp, UnaryOp


class TernaryOp(Operation):
    """Three operands of one type, one result of that type (`math.fma`)."""

    __slots__ = ()

    def __init__(self, a: Value, b: Value, c: Value, loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[a, b, c], result_types=[a.type], loc=loc)


def _unary(name: str) -> type[UnaryOp]:
    cls_name = "".join(w.capitalize() for w in name.split(".")[1].split("_")) + "Op"
    return type(cls_name, (UnaryOp,), {"__slots__": (), "NAME": name})   # type: ignore[return-value]


def _binary(name: str) -> type[BinaryOp]:
    cls_name = "".join(w.capitalize() for w in name.split(".")[1].split("_")) + "Op"
    return type(cls_name, (BinaryOp,), {"__slots__": (), "NAME": name, "FLOAT": True})  # type: ignore[return-value]


class FmaOp(TernaryOp):
    __slots__ = ()
    NAME = "math.fma"


# op -> (LLVM intrinsic base or C function, is an intrinsic)
_UNARY_LLVM = {
    "math.log2": ("llvm.log2", True),
    "math.log10": ("llvm.log10", True), "math.exp2": ("llvm.exp2", True),
    "math.sin": ("llvm.sin", True), "math.cos": ("llvm.cos", True),
    "math.floor": ("llvm.floor", True), "math.ceil": ("llvm.ceil", True),
    "math.round": ("llvm.round", True), "math.roundeven": ("llvm.roundeven", True),
    "math.trunc": ("llvm.trunc", True),
    "math.log1p": ("log1p", False), "math.expm1": ("expm1", False),
    "math.tan": ("tan", False), "math.atan": ("atan", False), "math.asin": ("asin", False),
    "math.acos": ("acos", False), "math.sinh": ("sinh", False), "math.cosh": ("cosh", False),
    "math.tanh": ("tanh", False), "math.asinh": ("asinh", False),
    "math.acosh": ("acosh", False), "math.atanh": ("atanh", False),
    "math.erf": ("erf", False), "math.cbrt": ("cbrt", False),
    "math.rsqrt": ("rsqrt", False),   # 1 / llvm.sqrt (no C function of that name)
}
_BINARY_LLVM = {
    "math.powf": ("llvm.pow", True), "math.copysign": ("llvm.copysign", True),
    "math.atan2": ("atan2", False),
}

MATH_UNARY: dict[str, type[UnaryOp]] = {n: _unary(n) for n in _UNARY_LLVM}
MATH_BINARY: dict[str, type[BinaryOp]] = {n: _binary(n) for n in _BINARY_LLVM}
MATH_TERNARY: dict[str, type[TernaryOp]] = {"math.fma": FmaOp}
LLVM: dict[str, tuple[str, bool]] = {**_UNARY_LLVM, **_BINARY_LLVM, "math.fma": ("llvm.fma", True)}

# cheap on any unit (a rounding or a sign), the rest are transcendental ("special" ops)
CHEAP = frozenset({"math.floor", "math.ceil", "math.round", "math.roundeven", "math.trunc",
                   "math.copysign"})


def numpy_fn(name: str):  # type: ignore[no-untyped-def]
    """The numpy function of a math op, keeping the operands' dtype."""
    import math

    import numpy as np

    table = {
        "math.log2": np.log2, "math.log10": np.log10,
        "math.exp2": np.exp2, "math.sin": np.sin, "math.cos": np.cos, "math.floor": np.floor,
        "math.ceil": np.ceil, "math.trunc": np.trunc, "math.roundeven": np.rint,
        "math.log1p": np.log1p, "math.expm1": np.expm1, "math.tan": np.tan,
        "math.atan": np.arctan, "math.asin": np.arcsin, "math.acos": np.arccos,
        "math.sinh": np.sinh, "math.cosh": np.cosh, "math.tanh": np.tanh,
        "math.asinh": np.arcsinh, "math.acosh": np.arccosh, "math.atanh": np.arctanh,
        "math.cbrt": np.cbrt, "math.powf": np.power, "math.copysign": np.copysign,
        "math.atan2": np.arctan2,
    }
    if name in table:
        return table[name]
    if name == "math.round":   # half away from zero (C round), not numpy's half to even
        return lambda a: (np.sign(a) * np.floor(np.abs(a) + np.asarray(0.5, dtype=np.asarray(a).dtype))
                          ).astype(np.asarray(a).dtype)
    if name == "math.rsqrt":
        return lambda a: (np.asarray(1, dtype=np.asarray(a).dtype) / np.sqrt(a))
    if name == "math.erf":
        verf = np.vectorize(math.erf, otypes=[np.float64])
        return lambda a: verf(a).astype(np.asarray(a).dtype)
    if name == "math.fma":
        return lambda a, b, c: (np.asarray(a, np.float64) * b + c).astype(np.asarray(a).dtype)
    raise KeyError(name)
