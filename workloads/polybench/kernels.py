"""PolyBench/C 4.2.1 linear-algebra/kernels: 2mm, 3mm, atax, bicg, doitgen, mvt.

Loop nests, statement order and argument order follow PolyBench's `kernel_*` functions;
`alpha` and `beta` are workload parameters (PolyBench's values 1.5 and 1.2 by default) that
the IR holds as `arith.constant`s of the element type. Default sizes are PolyBench's MEDIUM
dataset for 2mm, atax, bicg and mvt (their earlier defaults, which other callers use) and
SMALL for 3mm and doitgen.
"""

from __future__ import annotations

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import Workload, accumulation_tolerance, dtype_param, size
from workloads.polybench.common import ALPHA as _ALPHA
from workloads.polybench.common import BETA as _BETA


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


def build_3mm(NI: int, NJ: int, NK: int, NL: int, NM: int, dtype: ElementType = F32) -> ModuleOp:
    """E = A·B; F = C·D; G = E·F."""
    b = Builder()
    with b.func("mm3", E=memref((NI, NJ), dtype), A=memref((NI, NK), dtype), B=memref((NK, NJ), dtype),
                F=memref((NJ, NL), dtype), C=memref((NJ, NM), dtype), D=memref((NM, NL), dtype),
                G=memref((NI, NL), dtype)) as (E, A, B, F, C, D, G):
        zero = b.constant(0.0, dtype)
        for i in b.range(NI):
            for j in b.range(NJ):
                E[i, j] = zero
                for k in b.range(NK):
                    E[i, j] = E[i, j] + A[i, k] * B[k, j]
        for i in b.range(NJ):
            for j in b.range(NL):
                F[i, j] = zero
                for k in b.range(NM):
                    F[i, j] = F[i, j] + C[i, k] * D[k, j]
        for i in b.range(NI):
            for j in b.range(NL):
                G[i, j] = zero
                for k in b.range(NJ):
                    G[i, j] = G[i, j] + E[i, k] * F[k, j]
    return b.module


def reference_3mm(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray,
                  **_: object) -> dict[str, np.ndarray]:
    E, F = A @ B, C @ D
    return {"E": E, "F": F, "G": E @ F}


def build_doitgen(NR: int, NQ: int, NP: int, dtype: ElementType = F32) -> ModuleOp:
    """A[r, q, :] = A[r, q, :]·C4 through the scratch vector sum."""
    b = Builder()
    with b.func("doitgen", A=memref((NR, NQ, NP), dtype), C4=memref((NP, NP), dtype),
                sum=memref((NP,), dtype)) as (A, C4, acc):
        zero = b.constant(0.0, dtype)
        for r in b.range(NR):
            for q in b.range(NQ):
                for p in b.range(NP):
                    acc[p] = zero
                    for s in b.range(NP):
                        acc[p] = acc[p] + A[r, q, s] * C4[s, p]
                for p in b.range(NP):
                    A[r, q, p] = acc[p]
    return b.module


def reference_doitgen(A: np.ndarray, C4: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    out = np.einsum("rqs,sp->rqp", A, C4)
    return {"A": out, "sum": out[-1, -1]}


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
        name="3mm", func_name="mm3", suite="polybench",
        summary="E = A·B; F = C·D; G = E·F",
        params=(size("NI", 40, "rows of A, E, G"), size("NJ", 50, "columns of B, E; rows of C, F"),
                size("NK", 60, "columns of A, rows of B"), size("NL", 70, "columns of D, F, G"),
                size("NM", 80, "columns of C, rows of D"), dtype_param()),
        build=build_3mm, reference=reference_3mm, outputs=("E", "F", "G"),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], p["NJ"] * max(p["NK"], p["NM"])),  # type: ignore
        tolerance_reason="G sums NJ products of NK- and NM-term sums",
    ),
    Workload(
        name="doitgen", func_name="doitgen", suite="polybench",
        summary="A[r, q, :] = A[r, q, :]·C4 (multiresolution kernel)",
        params=(size("NR", 25, "first dimension of A"), size("NQ", 20, "second dimension of A"),
                size("NP", 30, "third dimension of A, C4 is NP x NP"), dtype_param()),
        build=build_doitgen, reference=reference_doitgen, outputs=("A", "sum"),
        tolerance=lambda p: accumulation_tolerance(p["dtype"], p["NP"]),  # type: ignore
        tolerance_reason="each output sums NP products; rounding grows ~sqrt(NP) ulps",
    ),
)
