"""Jacobi 2-D, PolyBench's 5-point stencil, counted in sweeps.

One sweep computes the interior of one array from the other:
    dst[i, j] = 0.2 · (src[i, j] + src[i, j-1] + src[i, j+1] + src[i+1, j] + src[i-1, j])
for 1 <= i, j < N-1; the boundary rows and columns are never written. Sweeps alternate
A -> B, B -> A, A -> B, ...; `T` counts sweeps, so T=1 is a single A -> B nest and
PolyBench's TSTEPS=t is T=2t (whose time loop holds exactly the two sweeps A->B, B->A).
"""

from __future__ import annotations

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, Value, memref
from workloads.model import Workload, accumulation_tolerance, dtype_param, in_dtype, size


def _sweep(b: Builder, src: Value, dst: Value, N: int, fifth: Value) -> None:
    for i in b.range(1, N - 1):
        for j in b.range(1, N - 1):
            dst[i, j] = fifth * (src[i, j] + src[i, j - 1] + src[i, j + 1] + src[i + 1, j] + src[i - 1, j])


def build_jacobi_2d(N: int, T: int = 1, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("jacobi_2d", A=memref((N, N), dtype), B=memref((N, N), dtype)) as (A, B):
        fifth = b.constant(0.2, dtype)
        if T >= 2:
            for _t in b.range(T // 2):
                _sweep(b, A, B, N, fifth)
                _sweep(b, B, A, N, fifth)
        if T % 2 == 1:
            _sweep(b, A, B, N, fifth)
    return b.module


def jacobi_2d_reference(A: np.ndarray, B: np.ndarray, T: int, dtype: ElementType,
                        **_: object) -> dict[str, np.ndarray]:
    fifth = in_dtype(0.2, dtype)
    for sweep in range(T):
        src, dst = (A, B) if sweep % 2 == 0 else (B, A)
        inner = src[1:-1, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:] + src[2:, 1:-1] + src[:-2, 1:-1]
        dst[1:-1, 1:-1] = fifth * inner
    return {"A": A, "B": B} if T >= 2 else {"B": B}


WORKLOADS = (
    Workload(
        name="jacobi-2d", func_name="jacobi_2d", summary="5-point Jacobi stencil, T sweeps A->B, B->A, ...",
        params=(size("N", 256, "the arrays are N x N, boundary included", lo=3),
                size("T", 1, "number of sweeps (PolyBench TSTEPS = T / 2)", hi=100_000), dtype_param()),
        build=build_jacobi_2d, reference=jacobi_2d_reference,
        outputs=lambda p: ("A", "B") if p["T"] >= 2 else ("B",),  # type: ignore[operator]
        tolerance=lambda p: accumulation_tolerance(p["dtype"], 5 * p["T"]),  # type: ignore
        tolerance_reason="5 adds and a multiply per sweep; averaging keeps the error from compounding",
    ),
)
