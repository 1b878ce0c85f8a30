"""PolyBench/C 4.2.1 linear-algebra/solvers: cholesky, durbin, gramschmidt, lu, ludcmp, trisolv.

Loop nests and statement order follow PolyBench's `kernel_*` functions; C scalars carried
across iterations (`w`, `nrm`, `sum`, durbin's `alpha` and `beta`) are iter_args, and a loop
PolyBench runs downwards (ludcmp's back substitution) runs upwards over `N-1-i`. Default
sizes: PolyBench's SMALL dataset (gramschmidt: M and N exchanged, see below). Inputs follow
the data pattern the math needs: symmetric positive-definite matrices for cholesky, lu and
ludcmp (PolyBench builds A·Aᵀ too), a diagonally dominant L for trisolv, a stable Toeplitz
sequence for durbin.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import ParamValue, Workload, dtype_param, size
from workloads.polybench.common import reduce, spd, tol


def build_cholesky(N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("cholesky", A=memref((N, N), dtype)) as (A,):
        for i in b.range(N):
            for j in b.range(i):
                for k in b.range(j):
                    A[i, j] = A[i, j] - A[i, k] * A[j, k]
                A[i, j] = A[i, j] / A[j, j]
            for k in b.range(i):
                A[i, i] = A[i, i] - A[i, k] * A[i, k]
            A[i, i] = b.sqrt(A[i, i])
    return b.module


def reference_cholesky(A: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    lower = np.tril(np.ones(A.shape, dtype=bool))
    return {"A": np.where(lower, np.linalg.cholesky(A), A)}


def _spd_A(p: Mapping[str, ParamValue], rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"A": spd(p["N"], rng)}  # type: ignore[arg-type]


def build_durbin(N: int, dtype: ElementType = F32) -> ModuleOp:
    """Levinson-Durbin: y solves the Toeplitz system T(1, r[0..N-2])·y = -r."""
    b = Builder()
    with b.func("durbin", r=memref((N,), dtype), y=memref((N,), dtype),
                z=memref((N,), dtype)) as (r, y, z):
        zero, one = b.constant(0.0, dtype), b.constant(1.0, dtype)
        y[0] = -r[0]
        with b.loop(1, N, iter_args=[-r[0], one]) as lk:
            k = lk.iv
            alpha, beta = lk.region_iter_args
            beta = (one - alpha * alpha) * beta
            total = reduce(b, 0, k, zero, lambda i, s, k=k: s + r[k - i - 1] * y[i])
            alpha = -(r[k] + total) / beta
            for i in b.range(k):
                z[i] = y[i] + alpha * y[k - i - 1]
            for i in b.range(k):
                y[i] = z[i]
            y[k] = alpha
            b.yield_([alpha, beta])
    return b.module


def reference_durbin(r: np.ndarray, z: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    n = r.shape[0]
    coeff = np.concatenate([[1.0], r[:-1]])
    idx = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    y = np.linalg.solve(coeff[idx], -r)
    z_out = z.copy()
    z_out[: n - 1] = y[: n - 1]  # the last step's z is y but for its last entry
    return {"y": y, "z": z_out if n > 1 else z}


def _durbin_inputs(p: Mapping[str, ParamValue], rng: np.random.Generator) -> dict[str, np.ndarray]:
    # the autocorrelation of an AR(1) process, rho^k, perturbed by at most 5%: its Toeplitz
    # matrix has eigenvalues in [1/3, 3] less the perturbation, so every reflection |alpha| < 1
    n: int = p["N"]  # type: ignore[assignment]
    k = np.arange(1, n + 1)
    return {"r": 0.5 ** k * (1 + 0.05 * rng.uniform(-1, 1, n))}


def build_gramschmidt(M: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    """QR of A (M x N) by modified Gram-Schmidt; A is left orthogonalised."""
    b = Builder()
    with b.func("gramschmidt", A=memref((M, N), dtype), R=memref((N, N), dtype),
                Q=memref((M, N), dtype)) as (A, R, Q):
        zero = b.constant(0.0, dtype)
        for k in b.range(N):
            nrm = reduce(b, 0, M, zero, lambda i, s, k=k: s + A[i, k] * A[i, k])
            R[k, k] = b.sqrt(nrm)
            for i in b.range(M):
                Q[i, k] = A[i, k] / R[k, k]
            for j in b.range(k + 1, N):
                R[k, j] = zero
                for i in b.range(M):
                    R[k, j] = R[k, j] + Q[i, k] * A[i, j]
                for i in b.range(M):
                    A[i, j] = A[i, j] - Q[i, k] * R[k, j]
    return b.module


def reference_gramschmidt(A: np.ndarray, R: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    q, r = np.linalg.qr(A)
    sign = np.sign(np.diag(r))  # Gram-Schmidt's R has a positive diagonal
    q, r = q * sign, r * sign[:, None]
    # A ends as the projections left after each column's own step: A[:, j] = r[j, j]·q[:, j]
    return {"Q": q, "R": np.where(np.triu(np.ones(R.shape, dtype=bool)), r, R), "A": q * np.diag(r)}


def build_lu(N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("lu", A=memref((N, N), dtype)) as (A,):
        for i in b.range(N):
            for j in b.range(i):
                for k in b.range(j):
                    A[i, j] = A[i, j] - A[i, k] * A[k, j]
                A[i, j] = A[i, j] / A[j, j]
            for j in b.range(i, N):
                for k in b.range(i):
                    A[i, j] = A[i, j] - A[i, k] * A[k, j]
    return b.module


def _doolittle(A: np.ndarray) -> np.ndarray:
    """L (unit, strictly below the diagonal) and U packed in one matrix, by rank-1 updates."""
    a = A.copy()
    for k in range(a.shape[0]):
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a


def reference_lu(A: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"A": _doolittle(A)}


def build_ludcmp(N: int, dtype: ElementType = F32) -> ModuleOp:
    """LU of A, then L·y = b and U·x = y."""
    b = Builder()
    with b.func("ludcmp", A=memref((N, N), dtype), b=memref((N,), dtype), x=memref((N,), dtype),
                y=memref((N,), dtype)) as (A, bv, x, y):
        for i in b.range(N):
            for j in b.range(i):
                w = reduce(b, 0, j, A[i, j], lambda k, w, i=i, j=j: w - A[i, k] * A[k, j])
                A[i, j] = w / A[j, j]
            for j in b.range(i, N):
                w = reduce(b, 0, i, A[i, j], lambda k, w, i=i, j=j: w - A[i, k] * A[k, j])
                A[i, j] = w
        for i in b.range(N):
            w = reduce(b, 0, i, bv[i], lambda j, w, i=i: w - A[i, j] * y[j])
            y[i] = w
        for ii in b.range(N):  # i = N-1 down to 0
            i = N - 1 - ii
            w = reduce(b, N - ii, N, y[i], lambda j, w, i=i: w - A[i, j] * x[j])
            x[i] = w / A[i, i]
    return b.module


def reference_ludcmp(A: np.ndarray, b: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    packed = _doolittle(A)
    lower = np.tril(packed, -1) + np.eye(A.shape[0])
    return {"A": packed, "y": np.linalg.solve(lower, b), "x": np.linalg.solve(A, b)}


def build_trisolv(N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("trisolv", L=memref((N, N), dtype), x=memref((N,), dtype),
                b=memref((N,), dtype)) as (L, x, bv):
        for i in b.range(N):
            x[i] = bv[i]
            for j in b.range(i):
                x[i] = x[i] - L[i, j] * x[j]
            x[i] = x[i] / L[i, i]
    return b.module


def reference_trisolv(L: np.ndarray, b: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"x": np.linalg.solve(np.tril(L), b)}


def _trisolv_inputs(p: Mapping[str, ParamValue], rng: np.random.Generator) -> dict[str, np.ndarray]:
    n: int = p["N"]  # type: ignore[assignment]
    L = rng.uniform(-1.0, 1.0, size=(n, n))
    np.fill_diagonal(L, n * rng.uniform(1.0, 2.0, n))  # |L[i,i]| > sum of the row's others
    return {"L": L}


def _n_cubed(p: Mapping[str, ParamValue]) -> int:
    return p["N"] * p["N"]  # type: ignore[operator,no-any-return]


WORKLOADS = (
    Workload(
        name="cholesky", func_name="cholesky", suite="polybench",
        summary="A = L·Lᵀ, L written over A's lower triangle",
        params=(size("N", 120, "A is N x N"), dtype_param()),
        build=build_cholesky, reference=reference_cholesky, outputs=("A",), inputs=_spd_A,
        tolerance=tol(_n_cubed, 4.0),
        tolerance_reason="a sqrt or divide after up to N products per entry; error compounds down the rows",
    ),
    Workload(
        name="durbin", func_name="durbin", suite="polybench",
        summary="Toeplitz solve by the Levinson-Durbin recurrence",
        params=(size("N", 120, "length of r, y, z"), dtype_param()),
        build=build_durbin, reference=reference_durbin, outputs=("y", "z"), inputs=_durbin_inputs,
        tolerance=tol(_n_cubed, 4.0),
        tolerance_reason="N steps, each a k-term sum and a divide; error compounds with k",
    ),
    Workload(
        name="gramschmidt", func_name="gramschmidt", suite="polybench",
        summary="QR by modified Gram-Schmidt",
        # PolyBench SMALL is M=60 < N=80: more columns than rows, so R is singular and the
        # kernel divides by ~0; the defaults exchange them (a tall A of independent columns)
        params=(size("M", 80, "rows of A and Q"), size("N", 60, "columns of A, Q; R is N x N"),
                dtype_param()),
        build=build_gramschmidt, reference=reference_gramschmidt, outputs=("A", "R", "Q"),
        check=lambda p: None if p["M"] >= p["N"] else  # type: ignore[operator]
        f"M={p['M']} < N={p['N']}: the columns are dependent and R is singular",
        tolerance=tol(lambda p: p["M"] * p["N"], 4.0),  # type: ignore[operator]
        tolerance_reason="each column is orthogonalised against all before it; error compounds",
    ),
    Workload(
        name="lu", func_name="lu", suite="polybench",
        summary="A = L·U (Doolittle, no pivoting) in place",
        params=(size("N", 120, "A is N x N"), dtype_param()),
        build=build_lu, reference=reference_lu, outputs=("A",), inputs=_spd_A,
        tolerance=tol(_n_cubed, 4.0),
        tolerance_reason="each entry sums up to N products of earlier results; error compounds",
    ),
    Workload(
        name="ludcmp", func_name="ludcmp", suite="polybench",
        summary="LU of A, then forward and back substitution",
        params=(size("N", 120, "A is N x N"), dtype_param()),
        build=build_ludcmp, reference=reference_ludcmp, outputs=("A", "x", "y"), inputs=_spd_A,
        tolerance=tol(_n_cubed, 4.0),
        tolerance_reason="LU's error compounds, then two substitutions of N terms",
    ),
    Workload(
        name="trisolv", func_name="trisolv", suite="polybench",
        summary="x = L⁻¹·b, L lower triangular",
        params=(size("N", 120, "L is N x N"), dtype_param()),
        build=build_trisolv, reference=reference_trisolv, outputs=("x",), inputs=_trisolv_inputs,
        tolerance=tol(_n_cubed),
        tolerance_reason="x[i] sums i products of earlier results; error compounds down the rows",
    ),
)
