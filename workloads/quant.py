"""Requantization: an accumulator tensor back to the activations' precision, between layers.

`requantize` reads `x` in the accumulator type `acc` and writes `y` in `dtype`:

- integers (the fixed-point scheme of TFLite / gemmlowp with a power-of-two scale):
  y = trunci(clamp((x * mult) >> shift, min(dtype), max(dtype))): `arith.muli`, `shrsi`,
  `maxsi`, `minsi`, `trunci`, five lane ops an element;
- floats: y = truncf(x) (f32 -> bf16 / f16 / fp8, rounding to nearest even): one lane op.
"""

from __future__ import annotations

import numpy as np

from compiler.ir import Builder, ElementType, ModuleOp, memref
from compiler.ir.ops import MaxSIOp, MinSIOp, MulIOp, ShRSIOp
from workloads.model import (
    DTYPES,
    EVERY,
    Param,
    Workload,
    acc_param,
    accumulation_tolerance,
    accumulator,
    convert,
    dtype_param,
    size,
)


def build_requantize(N: int, mult: int = 1, shift: int = 8, dtype: ElementType = DTYPES["i8"],
                     acc: ElementType | None = None) -> ModuleOp:
    acc = acc or accumulator(dtype)
    b = Builder()
    with b.func("requantize", x=memref((N,), acc), y=memref((N,), dtype)) as (x, y):
        if dtype.is_int and acc.is_int:
            lo = b.constant(-(1 << (dtype.bitwidth - 1)), acc)
            hi = b.constant((1 << (dtype.bitwidth - 1)) - 1, acc)
            m, s = b.constant(mult, acc), b.constant(shift, acc)
            for i in b.range(N):
                v = b.insert(MulIOp(x[i], m, loc=b.loc())).result
                v = b.insert(ShRSIOp(v, s, loc=b.loc())).result
                v = b.insert(MaxSIOp(v, lo, loc=b.loc())).result
                v = b.insert(MinSIOp(v, hi, loc=b.loc())).result
                y[i] = convert(b, v, dtype)
        else:
            for i in b.range(N):
                y[i] = convert(b, x[i], dtype)
    return b.module


def requantize_reference(x: np.ndarray, mult: int, shift: int, dtype: ElementType, acc: ElementType,
                         **_: object) -> dict[str, np.ndarray]:
    if dtype.is_int and acc.is_int:
        lo, hi = -(1 << (dtype.bitwidth - 1)), (1 << (dtype.bitwidth - 1)) - 1
        v = np.floor(x * mult / (1 << shift))  # an arithmetic shift rounds toward -inf
        return {"y": np.clip(v, lo, hi)}
    return {"y": x}  # rounded to dtype once, as truncf does


def _check(p: dict) -> str | None:  # type: ignore[type-arg]
    dtype, acc = p["dtype"], p["acc"]
    if dtype.is_int != acc.is_int:
        return f"dtype {dtype.name} and acc {acc.name} must both be integers or both floats"
    if acc.bitwidth < dtype.bitwidth:
        return f"acc {acc.name} is narrower than dtype {dtype.name}"
    return None


WORKLOADS = (
    Workload(
        name="requantize", func_name="requantize",
        summary="y = clamp((x * mult) >> shift) as dtype (integers) / x rounded to dtype (floats)",
        params=(size("N", 1 << 16, "elements", hi=1 << 28), size("mult", 1, "integer multiplier", hi=1 << 15),
                Param("shift", 8, "right shift (integers)", "int", 0, 31),
                dtype_param(EVERY), acc_param()),
        build=build_requantize, reference=requantize_reference, outputs=("y",),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], 1),  # type: ignore[arg-type]
        tolerance_reason="integers exact; floats one rounding", check=_check,
    ),
)
