"""PolyBench/C 4.2.1 linear-algebra/blas: gemm (as `pb_gemm`), gemver, gesummv, symm, syr2k,
syrk, trmm. Loop nests and statement order follow PolyBench's `kernel_*` functions; C scalars
that accumulate (`temp2`) are iter_args. Default sizes: PolyBench's SMALL dataset, except
syrk's, which keeps its earlier MEDIUM defaults (N=240, M=200) for the callers that use them.
"""

from __future__ import annotations

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import Workload, dtype_param, size
from workloads.polybench.common import ALPHA, BETA, reduce, tol


def build_pb_gemm(NI: int, NJ: int, NK: int, alpha: float = 1.5, beta: float = 1.2,
                  dtype: ElementType = F32) -> ModuleOp:
    """C = beta·C + alpha·A·B, loops i, (j: scale), k, j as PolyBench writes them."""
    b = Builder()
    with b.func("pb_gemm", C=memref((NI, NJ), dtype), A=memref((NI, NK), dtype),
                B=memref((NK, NJ), dtype)) as (C, A, B):
        a, c = b.constant(alpha, dtype), b.constant(beta, dtype)
        for i in b.range(NI):
            for j in b.range(NJ):
                C[i, j] = C[i, j] * c
            for k in b.range(NK):
                for j in b.range(NJ):
                    C[i, j] = C[i, j] + a * A[i, k] * B[k, j]
    return b.module


def reference_pb_gemm(C: np.ndarray, A: np.ndarray, B: np.ndarray, alpha: float, beta: float,
                      **_: object) -> dict[str, np.ndarray]:
    return {"C": beta * C + alpha * A @ B}


def build_gemver(N: int, alpha: float = 1.5, beta: float = 1.2, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("gemver", A=memref((N, N), dtype), u1=memref((N,), dtype), v1=memref((N,), dtype),
                u2=memref((N,), dtype), v2=memref((N,), dtype), w=memref((N,), dtype),
                x=memref((N,), dtype), y=memref((N,), dtype),
                z=memref((N,), dtype)) as (A, u1, v1, u2, v2, w, x, y, z):
        a, c = b.constant(alpha, dtype), b.constant(beta, dtype)
        for i in b.range(N):
            for j in b.range(N):
                A[i, j] = A[i, j] + u1[i] * v1[j] + u2[i] * v2[j]
        for i in b.range(N):
            for j in b.range(N):
                x[i] = x[i] + c * A[j, i] * y[j]
        for i in b.range(N):
            x[i] = x[i] + z[i]
        for i in b.range(N):
            for j in b.range(N):
                w[i] = w[i] + a * A[i, j] * x[j]
    return b.module


def reference_gemver(A: np.ndarray, u1: np.ndarray, v1: np.ndarray, u2: np.ndarray, v2: np.ndarray,
                     w: np.ndarray, x: np.ndarray, y: np.ndarray, z: np.ndarray, alpha: float,
                     beta: float, **_: object) -> dict[str, np.ndarray]:
    A2 = A + np.outer(u1, v1) + np.outer(u2, v2)
    x2 = x + beta * A2.T @ y + z
    return {"A": A2, "x": x2, "w": w + alpha * A2 @ x2}


def build_gesummv(N: int, alpha: float = 1.5, beta: float = 1.2, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("gesummv", A=memref((N, N), dtype), B=memref((N, N), dtype), tmp=memref((N,), dtype),
                x=memref((N,), dtype), y=memref((N,), dtype)) as (A, B, tmp, x, y):
        zero, a, c = b.constant(0.0, dtype), b.constant(alpha, dtype), b.constant(beta, dtype)
        for i in b.range(N):
            tmp[i] = zero
            y[i] = zero
            for j in b.range(N):
                tmp[i] = A[i, j] * x[j] + tmp[i]
                y[i] = B[i, j] * x[j] + y[i]
            y[i] = a * tmp[i] + c * y[i]
    return b.module


def reference_gesummv(A: np.ndarray, B: np.ndarray, x: np.ndarray, alpha: float, beta: float,
                      **_: object) -> dict[str, np.ndarray]:
    return {"tmp": A @ x, "y": alpha * A @ x + beta * B @ x}


def build_symm(M: int, N: int, alpha: float = 1.5, beta: float = 1.2, dtype: ElementType = F32) -> ModuleOp:
    """C = beta·C + alpha·A·B with A symmetric, only its lower triangle read."""
    b = Builder()
    with b.func("symm", C=memref((M, N), dtype), A=memref((M, M), dtype),
                B=memref((M, N), dtype)) as (C, A, B):
        zero, a, c = b.constant(0.0, dtype), b.constant(alpha, dtype), b.constant(beta, dtype)
        for i in b.range(M):
            for j in b.range(N):
                def step(k, temp2, i=i, j=j):  # type: ignore[no-untyped-def]
                    C[k, j] = C[k, j] + a * B[i, j] * A[i, k]
                    return temp2 + B[k, j] * A[i, k]
                temp2 = reduce(b, 0, i, zero, step)
                C[i, j] = c * C[i, j] + a * B[i, j] * A[i, i] + a * temp2
    return b.module


def reference_symm(C: np.ndarray, A: np.ndarray, B: np.ndarray, alpha: float, beta: float,
                   **_: object) -> dict[str, np.ndarray]:
    sym = np.tril(A) + np.tril(A, -1).T
    return {"C": beta * C + alpha * sym @ B}


def build_syr2k(N: int, M: int, alpha: float = 1.5, beta: float = 1.2, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("syr2k", C=memref((N, N), dtype), A=memref((N, M), dtype),
                B=memref((N, M), dtype)) as (C, A, B):
        a, c = b.constant(alpha, dtype), b.constant(beta, dtype)
        for i in b.range(N):
            for j in b.range(i + 1):
                C[i, j] = C[i, j] * c
            for k in b.range(M):
                for j in b.range(i + 1):
                    C[i, j] = C[i, j] + (A[j, k] * a * B[i, k] + B[j, k] * a * A[i, k])
    return b.module


def reference_syr2k(C: np.ndarray, A: np.ndarray, B: np.ndarray, alpha: float, beta: float,
                    **_: object) -> dict[str, np.ndarray]:
    lower = np.tril(np.ones(C.shape, dtype=bool))
    return {"C": np.where(lower, beta * C + alpha * (A @ B.T + B @ A.T), C)}


def build_syrk(N: int, M: int, alpha: float = 1.5, beta: float = 1.2, dtype: ElementType = F32) -> ModuleOp:
    """Lower triangle (j <= i) of C = beta·C + alpha·A·Aᵀ; the strict upper triangle is untouched."""
    b = Builder()
    with b.func("syrk", C=memref((N, N), dtype), A=memref((N, M), dtype)) as (C, A):
        a, c = b.constant(alpha, dtype), b.constant(beta, dtype)
        for i in b.range(N):
            for j in b.range(i + 1):
                C[i, j] = C[i, j] * c
            for k in b.range(M):
                for j in b.range(i + 1):
                    C[i, j] = C[i, j] + a * A[i, k] * A[j, k]
    return b.module


def reference_syrk(C: np.ndarray, A: np.ndarray, alpha: float, beta: float,
                   **_: object) -> dict[str, np.ndarray]:
    lower = np.tril(np.ones(C.shape, dtype=bool))
    return {"C": np.where(lower, beta * C + alpha * A @ A.T, C)}


def build_trmm(M: int, N: int, alpha: float = 1.5, dtype: ElementType = F32) -> ModuleOp:
    """B = alpha·(I + Aᵀ)·B with A's strict lower triangle (A unit lower-triangular)."""
    b = Builder()
    with b.func("trmm", A=memref((M, M), dtype), B=memref((M, N), dtype)) as (A, B):
        a = b.constant(alpha, dtype)
        for i in b.range(M):
            for j in b.range(N):
                for k in b.range(i + 1, M):
                    B[i, j] = B[i, j] + A[k, i] * B[k, j]
                B[i, j] = a * B[i, j]
    return b.module


def reference_trmm(A: np.ndarray, B: np.ndarray, alpha: float, **_: object) -> dict[str, np.ndarray]:
    unit_upper = np.eye(A.shape[0]) + np.tril(A, -1).T
    return {"B": alpha * unit_upper @ B}


WORKLOADS = (
    Workload(
        name="pb_gemm", func_name="pb_gemm", suite="polybench",
        summary="PolyBench gemm: C = beta·C + alpha·A·B",
        params=(size("NI", 60, "rows of A and C"), size("NJ", 70, "columns of B and C"),
                size("NK", 80, "columns of A, rows of B"), ALPHA, BETA, dtype_param()),
        build=build_pb_gemm, reference=reference_pb_gemm, outputs=("C",),
        tolerance=tol(lambda p: p["NK"]),  # type: ignore[arg-type,return-value]
        tolerance_reason="each output sums NK products; rounding grows ~sqrt(NK) ulps",
    ),
    Workload(
        name="gemver", func_name="gemver", suite="polybench",
        summary="A += u1·v1ᵀ + u2·v2ᵀ; x += beta·Aᵀ·y + z; w += alpha·A·x",
        params=(size("N", 120, "A is N x N"), ALPHA, BETA, dtype_param()),
        build=build_gemver, reference=reference_gemver, outputs=("A", "x", "w"),
        tolerance=tol(lambda p: p["N"] * p["N"]),  # type: ignore[arg-type,return-value]
        tolerance_reason="w sums N products of N-term sums; rounding grows ~N ulps",
    ),
    Workload(
        name="gesummv", func_name="gesummv", suite="polybench",
        summary="y = alpha·A·x + beta·B·x",
        params=(size("N", 90, "A and B are N x N"), ALPHA, BETA, dtype_param()),
        build=build_gesummv, reference=reference_gesummv, outputs=("tmp", "y"),
        tolerance=tol(lambda p: p["N"]),  # type: ignore[arg-type,return-value]
        tolerance_reason="each output sums N products; rounding grows ~sqrt(N) ulps",
    ),
    Workload(
        name="symm", func_name="symm", suite="polybench",
        summary="C = beta·C + alpha·A·B, A symmetric (lower triangle)",
        params=(size("M", 60, "rows of B and C, A is M x M"), size("N", 80, "columns of B and C"),
                ALPHA, BETA, dtype_param()),
        build=build_symm, reference=reference_symm, outputs=("C",),
        tolerance=tol(lambda p: p["M"]),  # type: ignore[arg-type,return-value]
        tolerance_reason="each output sums M products; rounding grows ~sqrt(M) ulps",
    ),
    Workload(
        name="syr2k", func_name="syr2k", suite="polybench",
        summary="lower triangle of C = beta·C + alpha·(A·Bᵀ + B·Aᵀ)",
        params=(size("N", 80, "C is N x N"), size("M", 60, "columns of A and B"), ALPHA, BETA,
                dtype_param()),
        build=build_syr2k, reference=reference_syr2k, outputs=("C",),
        tolerance=tol(lambda p: 2 * p["M"]),  # type: ignore[arg-type,return-value]
        tolerance_reason="each output sums 2·M products; rounding grows ~sqrt(2M) ulps",
    ),
    Workload(
        name="syrk", func_name="syrk", summary="lower triangle of C = beta·C + alpha·A·Aᵀ",
        params=(size("N", 240, "C is N x N, A is N x M"), size("M", 200, "columns of A"),
                ALPHA, BETA, dtype_param()),
        build=build_syrk, reference=reference_syrk, outputs=("C",),
        tolerance=tol(lambda p: p["M"]),  # type: ignore[arg-type,return-value]
        tolerance_reason="each output sums M products; rounding grows ~sqrt(M) ulps",
    ),
    Workload(
        name="trmm", func_name="trmm", suite="polybench",
        summary="B = alpha·Aᵀ·B, A unit lower-triangular",
        params=(size("M", 60, "rows of B, A is M x M"), size("N", 80, "columns of B"), ALPHA,
                dtype_param()),
        build=build_trmm, reference=reference_trmm, outputs=("B",),
        tolerance=tol(lambda p: p["M"]),  # type: ignore[arg-type,return-value]
        tolerance_reason="each output sums up to M products; rounding grows ~sqrt(M) ulps",
    ),
)
