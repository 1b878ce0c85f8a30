"""Matrix multiply: `gemm` (C += A·B) and `batched_gemm` (C[b] += A[b]·B[b])."""

from __future__ import annotations

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import (
    EVERY,
    Workload,
    acc_param,
    accumulation_tolerance,
    convert,
    dtype_param,
    out_param,
    reduce_sum,
    requantized,
    requantized_reference,
    size,
    wdtype_param,
)


def build_gemm(M: int, N: int, K: int, dtype: ElementType = F32, acc: ElementType | None = None,
               wdtype: ElementType | None = None, out: ElementType | None = None) -> ModuleOp:
    """C[M,N] += A[M,K] · B[K,N], loops i, j, k (k innermost). A is `dtype`, B `wdtype`
    (default dtype), C the accumulator `acc` (default dtype): each operand widened to acc
    (`arith.extsi` / `extf`) before the multiply-add when it is narrower. With `out`:
    C[M,N] = requantized(A · B) of type out, the sum carried in iter_args from zero."""
    acc, wdtype = acc or dtype, wdtype or dtype
    b = Builder()
    with b.func("gemm", A=memref((M, K), dtype), B=memref((K, N), wdtype),
                C=memref((M, N), out or acc)) as (A, B, C):
        for i in b.range(M):
            for j in b.range(N):
                if out is not None:
                    total = reduce_sum(b, [K], acc, lambda iv, i=i, j=j: (
                        convert(b, A[i, iv[0]], acc) * convert(b, B[iv[0], j], acc)))
                    C[i, j] = requantized(b, total, out)
                    continue
                for k in b.range(K):
                    C[i, j] = C[i, j] + convert(b, A[i, k], acc) * convert(b, B[k, j], acc)
    return b.module


def gemm_reference(A: np.ndarray, B: np.ndarray, C: np.ndarray, out: ElementType | None = None,
                   acc: ElementType | None = None, **_: object) -> dict[str, np.ndarray]:
    if out is not None:
        return {"C": requantized_reference(A @ B, out, acc)}  # type: ignore[arg-type]
    return {"C": C + A @ B}


def build_batched_gemm(batch: int, M: int, N: int, K: int, dtype: ElementType = F32,
                       acc: ElementType | None = None, wdtype: ElementType | None = None,
                       out: ElementType | None = None) -> ModuleOp:
    """C[batch,M,N] += A[batch,M,K] · B[batch,K,N], one independent gemm per batch entry
    (types and `out` as `build_gemm`'s)."""
    acc, wdtype = acc or dtype, wdtype or dtype
    b = Builder()
    with b.func("batched_gemm", A=memref((batch, M, K), dtype), B=memref((batch, K, N), wdtype),
                C=memref((batch, M, N), out or acc)) as (A, B, C):
        for n in b.range(batch):
            for i in b.range(M):
                for j in b.range(N):
                    if out is not None:
                        total = reduce_sum(b, [K], acc, lambda iv, n=n, i=i, j=j: (
                            convert(b, A[n, i, iv[0]], acc) * convert(b, B[n, iv[0], j], acc)))
                        C[n, i, j] = requantized(b, total, out)
                        continue
                    for k in b.range(K):
                        C[n, i, j] = C[n, i, j] + (convert(b, A[n, i, k], acc)
                                                   * convert(b, B[n, k, j], acc))
    return b.module


def batched_gemm_reference(A: np.ndarray, B: np.ndarray, C: np.ndarray, out: ElementType | None = None,
                           acc: ElementType | None = None, **_: object) -> dict[str, np.ndarray]:
    if out is not None:
        return {"C": requantized_reference(np.matmul(A, B), out, acc)}  # type: ignore[arg-type]
    return {"C": C + np.matmul(A, B)}


_DOT_REASON = "each output is a K-term dot product; rounding grows ~sqrt(K) ulps"

WORKLOADS = (
    Workload(
        name="gemm", func_name="gemm", summary="C += A·B",
        params=(size("M", 256, "rows of A and C"), size("N", 256, "columns of B and C"),
                size("K", 256, "columns of A, rows of B"), dtype_param(EVERY), acc_param(),
                wdtype_param(), out_param()),
        build=build_gemm, reference=gemm_reference, outputs=("C",),
        tolerance=lambda p: accumulation_tolerance(p["out"] or p["acc"], p["K"]),  # type: ignore[arg-type]
        tolerance_reason=_DOT_REASON,
    ),
    Workload(
        name="batched_gemm", func_name="batched_gemm", summary="C[b] += A[b]·B[b] for every b",
        params=(size("batch", 8, "number of independent products"), size("M", 64, "rows of A and C"),
                size("N", 64, "columns of B and C"), size("K", 64, "columns of A, rows of B"),
                dtype_param(EVERY), acc_param(), wdtype_param(), out_param()),
        build=build_batched_gemm, reference=batched_gemm_reference, outputs=("C",),
        tolerance=lambda p: accumulation_tolerance(p["out"] or p["acc"], p["K"]),  # type: ignore[arg-type]
        tolerance_reason=_DOT_REASON,
    ),
)
