"""Streaming vector kernels: `vector_add` (z = x + y) and `saxpy` (y = a·x + y)."""

from __future__ import annotations

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import Workload, accumulation_tolerance, dtype_param, scalar, size

_MAX_LEN = 1 << 28  # 1 GiB of f32 per vector; the benchmarks use 16M


def build_vector_add(N: int, dtype: ElementType = F32) -> ModuleOp:
    """z[i] = x[i] + y[i]."""
    b = Builder()
    with b.func("vector_add", x=memref((N,), dtype), y=memref((N,), dtype),
                z=memref((N,), dtype)) as (x, y, z):
        for i in b.range(N):
            z[i] = x[i] + y[i]
    return b.module


def vector_add_reference(x: np.ndarray, y: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"z": x + y}


def build_saxpy(N: int, a: float = 2.0, dtype: ElementType = F32) -> ModuleOp:
    """y[i] = a·x[i] + y[i], with `a` an arith.constant of the element type."""
    b = Builder()
    with b.func("saxpy", x=memref((N,), dtype), y=memref((N,), dtype)) as (x, y):
        alpha = b.constant(a, dtype)
        for i in b.range(N):
            y[i] = alpha * x[i] + y[i]
    return b.module


def saxpy_reference(x: np.ndarray, y: np.ndarray, a: float, **_: object) -> dict[str, np.ndarray]:
    return {"y": a * x + y}


_ELEMENTWISE_REASON = "one or two roundings per element; the f64 reference differs by <= 1 ulp"

WORKLOADS = (
    Workload(
        name="vector_add", func_name="vector_add", summary="z = x + y",
        params=(size("N", 1 << 20, "vector length", hi=_MAX_LEN), dtype_param()),
        build=build_vector_add, reference=vector_add_reference, outputs=("z",),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], 1),  # type: ignore[arg-type]
        tolerance_reason=_ELEMENTWISE_REASON,
    ),
    Workload(
        name="saxpy", func_name="saxpy", summary="y = a·x + y",
        params=(size("N", 1 << 20, "vector length", hi=_MAX_LEN),
                scalar("a", 2.0, "the scalar multiplier (an arith.constant)"), dtype_param()),
        build=build_saxpy, reference=saxpy_reference, outputs=("y",),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], 1),  # type: ignore[arg-type]
        tolerance_reason=_ELEMENTWISE_REASON,
    ),
)
