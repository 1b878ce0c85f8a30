"""PolyBench/C 4.2 linear-algebra kernels: 2mm, atax, bicg, mvt, syrk.

Loop nests, statement order and argument order follow PolyBench's `kernel_*` functions;
`alpha` and `beta` are workload parameters (PolyBench's values 1.5 and 1.2 by default) that
the IR holds as `arith.constant`s of the element type. Default sizes are PolyBench's MEDIUM
dataset.
"""

from __future__ import annotations

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import Workload, accumulation_tolerance, dtype_param, scalar, size

_ALPHA = scalar("alpha", 1.5, "scale of the product (arith.constant)")
_BETA = scalar("beta", 1.2, "scale of the previous output (arith.constant)")


def build_2mm(NI: int, NJ: int, NK: int, NL: int, alpha: float = 1.5, beta: float = 1.2,
              dtype: ElementType = F32) -> ModuleOp:
    """tmp = alpha·A·B; D = beta·D + tmp·C."""
    b = Builder()
    with b.func("mm2", tmp=memref((NI, NJ), dtype), A=memref((NI, NK), dtype), B=memref((NK, NJ), dtype),
                C=memref((NJ, NL), dtype), D=memref((NI, NL), dtype)) as (tmp, A, B, C, D):
        zero, a, c = b.constant(0.0, dtype), b.constant(alpha, dtype), b.constant(beta, dtype)
        for i in b.range(NI):
            for j in b.range(NJ):
                tmp[i, j] = zero
                for k in b.range(NK):
                    tmp[i, j] = tmp[i, j] + a * A[i, k] * B[k, j]
        for i in b.range(NI):
            for j in b.range(NL):
                D[i, j] = D[i, j] * c
                for k in b.range(NJ):
                    D[i, j] = D[i, j] + tmp[i, k] * C[k, j]
    return b.module


def reference_2mm(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray, alpha: float, beta: float,
                  **_: object) -> dict[str, np.ndarray]:
    tmp = alpha * A @ B
    return {"tmp": tmp, "D": beta * D + tmp @ C}


def build_atax(M: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    """y = Aᵀ·(A·x), with tmp = A·x kept."""
    b = Builder()
    with b.func("atax", A=memref((M, N), dtype), x=memref((N,), dtype), y=memref((N,), dtype),
                tmp=memref((M,), dtype)) as (A, x, y, tmp):
        zero = b.constant(0.0, dtype)
        for i in b.range(N):
            y[i] = zero
        for i in b.range(M):
            tmp[i] = zero
            for j in b.range(N):
                tmp[i] = tmp[i] + A[i, j] * x[j]
            for j in b.range(N):
                y[j] = y[j] + A[i, j] * tmp[i]
    return b.module


def reference_atax(A: np.ndarray, x: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    tmp = A @ x
    return {"tmp": tmp, "y": A.T @ tmp}


def build_bicg(M: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    """s = Aᵀ·r and q = A·p in one sweep over A."""
    b = Builder()
    with b.func("bicg", A=memref((N, M), dtype), s=memref((M,), dtype), q=memref((N,), dtype),
                p=memref((M,), dtype), r=memref((N,), dtype)) as (A, s, q, p, r):
        zero = b.constant(0.0, dtype)
        for i in b.range(M):
            s[i] = zero
        for i in b.range(N):
            q[i] = zero
            for j in b.range(M):
                s[j] = s[j] + r[i] * A[i, j]
                q[i] = q[i] + A[i, j] * p[j]
    return b.module


def reference_bicg(A: np.ndarray, p: np.ndarray, r: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"s": A.T @ r, "q": A @ p}


def build_mvt(N: int, dtype: ElementType = F32) -> ModuleOp:
    """x1 += A·y_1; x2 += Aᵀ·y_2."""
    b = Builder()
    with b.func("mvt", x1=memref((N,), dtype), x2=memref((N,), dtype), y_1=memref((N,), dtype),
                y_2=memref((N,), dtype), A=memref((N, N), dtype)) as (x1, x2, y_1, y_2, A):
        for i in b.range(N):
            for j in b.range(N):
                x1[i] = x1[i] + A[i, j] * y_1[j]
        for i in b.range(N):
            for j in b.range(N):
                x2[i] = x2[i] + A[j, i] * y_2[j]
    return b.module


def reference_mvt(x1: np.ndarray, x2: np.ndarray, y_1: np.ndarray, y_2: np.ndarray, A: np.ndarray,
                  **_: object) -> dict[str, np.ndarray]:
    return {"x1": x1 + A @ y_1, "x2": x2 + A.T @ y_2}


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


WORKLOADS = (
    Workload(
        name="2mm", func_name="mm2", summary="tmp = alpha·A·B; D = beta·D + tmp·C",
        params=(size("NI", 180, "rows of A, tmp, D"), size("NJ", 190, "columns of B and tmp, rows of C"),
                size("NK", 210, "columns of A, rows of B"), size("NL", 220, "columns of C and D"),
                _ALPHA, _BETA, dtype_param()),
        build=build_2mm, reference=reference_2mm, outputs=("tmp", "D"),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], p["NK"] * p["NJ"]),  # type: ignore
        tolerance_reason="D sums NJ products of NK-term sums; rounding grows ~sqrt(NK·NJ) ulps",
    ),
    Workload(
        name="atax", func_name="atax", summary="tmp = A·x; y = Aᵀ·tmp",
        params=(size("M", 390, "rows of A"), size("N", 410, "columns of A"), dtype_param()),
        build=build_atax, reference=reference_atax, outputs=("y", "tmp"),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], p["M"] * p["N"]),  # type: ignore
        tolerance_reason="y sums M products of N-term sums; rounding grows ~sqrt(M·N) ulps",
    ),
    Workload(
        name="bicg", func_name="bicg", summary="s = Aᵀ·r; q = A·p",
        params=(size("M", 390, "columns of A"), size("N", 410, "rows of A"), dtype_param()),
        build=build_bicg, reference=reference_bicg, outputs=("s", "q"),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], max(p["M"], p["N"])),  # type: ignore
        tolerance_reason="s sums N terms and q sums M terms; rounding grows ~sqrt(max) ulps",
    ),
    Workload(
        name="mvt", func_name="mvt", summary="x1 += A·y_1; x2 += Aᵀ·y_2",
        params=(size("N", 400, "A is N x N"), dtype_param()),
        build=build_mvt, reference=reference_mvt, outputs=("x1", "x2"),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], p["N"]),  # type: ignore
        tolerance_reason="each output sums N products; rounding grows ~sqrt(N) ulps",
    ),
    Workload(
        name="syrk", func_name="syrk", summary="lower triangle of C = beta·C + alpha·A·Aᵀ",
        params=(size("N", 240, "C is N x N, A is N x M"), size("M", 200, "columns of A"),
                _ALPHA, _BETA, dtype_param()),
        build=build_syrk, reference=reference_syrk, outputs=("C",),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], p["M"]),  # type: ignore
        tolerance_reason="each output sums M products; rounding grows ~sqrt(M) ulps",
    ),
)
