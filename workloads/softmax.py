"""Softmax over rows: Y[i, :] = exp(X[i, :] - max X[i, :]) / Σ exp(X[i, :] - max X[i, :]).

Three passes per row, the numerically stable form: the row maximum (an iter_arg seeded with
X[i, 0], so no -inf constant is needed), exp and its sum (Y holds the exponentials), divide.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import ParamValue, Tolerance, Workload, accumulation_tolerance, dtype_param, size


def build_softmax(M: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("softmax", X=memref((M, N), dtype), Y=memref((M, N), dtype)) as (X, Y):
        zero = b.constant(0.0, dtype)
        for i in b.range(M):
            with b.loop(1, N, iter_args=[X[i, 0]]) as row_max:
                j, running = row_max.iv, row_max.region_iter_args[0]
                b.yield_([b.max(running, X[i, j])])
            m = row_max.results[0]
            with b.loop(0, N, iter_args=[zero]) as row_sum:
                j, partial = row_sum.iv, row_sum.region_iter_args[0]
                e = b.exp(X[i, j] - m)
                Y[i, j] = e
                b.yield_([partial + e])
            total = row_sum.results[0]
            for j in b.range(N):
                Y[i, j] = Y[i, j] / total
    return b.module


def softmax_reference(X: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return {"Y": e / e.sum(axis=1, keepdims=True)}


def _tolerance(p: Mapping[str, ParamValue]) -> Tolerance:
    """Outputs are about 1/N, so an absolute tolerance scaled like a sum's would accept anything;
    the error is relative (exp within a few ulps, the row sum ~sqrt(N) ulps)."""
    rtol, _ = accumulation_tolerance(p["dtype"], p["N"])  # type: ignore[arg-type]
    return rtol, rtol / p["N"]  # type: ignore[operator]


WORKLOADS = (
    Workload(
        name="softmax", func_name="softmax", summary="row-wise softmax with math.exp",
        params=(size("M", 256, "rows"), size("N", 256, "columns (softmax extent)"), dtype_param()),
        build=build_softmax, reference=softmax_reference, outputs=("Y",),
        tolerance=_tolerance,
        tolerance_reason="outputs are ~1/N: relative error only (exp a few ulps, row sum ~sqrt(N) ulps)",
    ),
)
