"""Row-wise reduction: sums[i] = Σ_j A[i, j], in two IR shapes.

`row_sum` accumulates in memory (sums[i] is zeroed, then updated in the j loop), the shape
data-copy and tiling passes like; `row_sum_iter` carries the partial sum in an affine.for
iter_arg, the shape a scalar-replacing compiler produces.
"""

from __future__ import annotations

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import EVERY, Workload, acc_param, accumulation_tolerance, convert, dtype_param, size


def build_row_sum(M: int, N: int, dtype: ElementType = F32, acc: ElementType | None = None) -> ModuleOp:
    """sums[i] = Σ_j A[i, j], A of `dtype`, the sums of `acc` (each element widened to it)."""
    acc = acc or dtype
    b = Builder()
    with b.func("row_sum", A=memref((M, N), dtype), sums=memref((M,), acc)) as (A, sums):
        zero = b.constant(0, acc)
        for i in b.range(M):
            sums[i] = zero
            for j in b.range(N):
                sums[i] = sums[i] + convert(b, A[i, j], acc)
    return b.module


def build_row_sum_iter(M: int, N: int, dtype: ElementType = F32,
                       acc: ElementType | None = None) -> ModuleOp:
    acc = acc or dtype
    b = Builder()
    with b.func("row_sum_iter", A=memref((M, N), dtype), sums=memref((M,), acc)) as (A, sums):
        zero = b.constant(0, acc)
        for i in b.range(M):
            with b.loop(0, N, iter_args=[zero]) as row:
                j, partial = row.iv, row.region_iter_args[0]
                b.yield_([partial + convert(b, A[i, j], acc)])
            sums[i] = row.results[0]
    return b.module


def row_sum_reference(A: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"sums": A.sum(axis=1)}


def _params() -> tuple:
    return (size("M", 512, "rows"), size("N", 512, "columns (the reduced extent)"),
            dtype_param(EVERY), acc_param())


_REASON = "each output sums N terms; rounding grows ~sqrt(N) ulps"

WORKLOADS = (
    Workload(
        name="row_sum", func_name="row_sum", summary="sums[i] = Σ_j A[i,j], accumulated in memory",
        params=_params(), build=build_row_sum, reference=row_sum_reference, outputs=("sums",),
        tolerance=lambda p: accumulation_tolerance(p["acc"], p["N"]),  # type: ignore[arg-type]
        tolerance_reason=_REASON,
    ),
    Workload(
        name="row_sum_iter", func_name="row_sum_iter",
        summary="sums[i] = Σ_j A[i,j], partial sum carried in iter_args",
        params=_params(), build=build_row_sum_iter, reference=row_sum_reference, outputs=("sums",),
        tolerance=lambda p: accumulation_tolerance(p["acc"], p["N"]),  # type: ignore[arg-type]
        tolerance_reason=_REASON,
    ),
)
