"""PolyBench/C 4.2.1 stencils: adi, fdtd-2d, heat-3d, jacobi-1d, seidel-2d (SMALL sizes;
jacobi-2d is `workloads.stencil`'s, whose T counts sweeps: PolyBench's TSTEPS=40 is T=80).

Loop nests and statement order follow PolyBench's `kernel_*` functions; adi's back
substitution (j from N-2 down to 1) runs upwards over `N-1-j`, and its coefficients, which
the C computes from N and TSTEPS before the loops, are constants of the element type.
"""

from __future__ import annotations

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import Workload, dtype_param, in_dtype, size
from workloads.polybench.common import tol


def _adi_coefficients(N: int, TSTEPS: int) -> dict[str, float]:
    dx, dy, dt = 1.0 / N, 1.0 / N, 1.0 / TSTEPS
    mul1, mul2 = 2.0 * dt / (dx * dx), 1.0 * dt / (dy * dy)
    a, d = -mul1 / 2.0, -mul2 / 2.0
    return {"a": a, "b": 1.0 + mul1, "c": a, "d": d, "e": 1.0 + mul2, "f": d}


def build_adi(TSTEPS: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    """Alternating-direction implicit solver: a tridiagonal (Thomas) solve per column, then
    per row, each step."""
    b = Builder()
    with b.func("adi", u=memref((N, N), dtype), v=memref((N, N), dtype), p=memref((N, N), dtype),
                q=memref((N, N), dtype)) as (u, v, p, q):
        k = {n: b.constant(x, dtype) for n, x in _adi_coefficients(N, TSTEPS).items()}
        a, bb, c, d, e, f = (k[n] for n in "abcdef")
        one, zero, two = b.constant(1.0, dtype), b.constant(0.0, dtype), b.constant(2.0, dtype)
        for _t in b.range(1, TSTEPS + 1):
            for i in b.range(1, N - 1):  # column sweep
                v[0, i] = one
                p[i, 0] = zero
                q[i, 0] = v[0, i]
                for j in b.range(1, N - 1):
                    p[i, j] = -c / (a * p[i, j - 1] + bb)
                    q[i, j] = ((-d * u[j, i - 1] + (one + two * d) * u[j, i] - f * u[j, i + 1]
                                - a * q[i, j - 1]) / (a * p[i, j - 1] + bb))
                v[N - 1, i] = one
                for jj in b.range(N - 2):  # j = N-2 down to 1
                    j = N - 2 - jj
                    v[j, i] = p[i, j] * v[j + 1, i] + q[i, j]
            for i in b.range(1, N - 1):  # row sweep
                u[i, 0] = one
                p[i, 0] = zero
                q[i, 0] = u[i, 0]
                for j in b.range(1, N - 1):
                    p[i, j] = -f / (d * p[i, j - 1] + e)
                    q[i, j] = ((-a * v[i - 1, j] + (one + two * a) * v[i, j] - c * v[i + 1, j]
                                - d * q[i, j - 1]) / (d * p[i, j - 1] + e))
                u[i, N - 1] = one
                for jj in b.range(N - 2):
                    j = N - 2 - jj
                    u[i, j] = p[i, j] * u[i, j + 1] + q[i, j]
    return b.module


def _tridiagonal(n: int, lower: float, diag: float, upper: float) -> np.ndarray:
    return np.diag(np.full(n, diag)) + np.diag(np.full(n - 1, lower), -1) + np.diag(np.full(n - 1, upper), 1)


def reference_adi(u: np.ndarray, v: np.ndarray, TSTEPS: int, dtype: ElementType,
                  **_: object) -> dict[str, np.ndarray]:
    """Each sweep solves, for every interior line, the tridiagonal system
    lo·x[j-1] + di·x[j] + up·x[j+1] = rhs[j] with x = 1 at both ends."""
    n = u.shape[0]
    k = {name: in_dtype(x, dtype) for name, x in _adi_coefficients(n, TSTEPS).items()}
    u, v = u.copy(), v.copy()
    col = _tridiagonal(n - 2, k["a"], k["b"], k["c"])
    row = _tridiagonal(n - 2, k["d"], k["e"], k["f"])
    for _ in range(TSTEPS):
        # column sweep: v[:, i] from u's columns i-1, i, i+1 (rows 1..N-2)
        rhs = -k["d"] * u[1:-1, :-2] + (1 + 2 * k["d"]) * u[1:-1, 1:-1] - k["f"] * u[1:-1, 2:]
        rhs[0] -= k["a"]
        rhs[-1] -= k["c"]
        v[1:-1, 1:-1] = np.linalg.solve(col, rhs)
        v[0, 1:-1] = v[-1, 1:-1] = 1.0
        # row sweep: u[i, :] from v's rows i-1, i, i+1
        rhs = -k["a"] * v[:-2, 1:-1] + (1 + 2 * k["a"]) * v[1:-1, 1:-1] - k["c"] * v[2:, 1:-1]
        rhs[:, 0] -= k["d"]
        rhs[:, -1] -= k["f"]
        u[1:-1, 1:-1] = np.linalg.solve(row, rhs.T).T
        u[1:-1, 0] = u[1:-1, -1] = 1.0
    return {"u": u, "v": v}


def build_fdtd_2d(TMAX: int, NX: int, NY: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("fdtd_2d", ex=memref((NX, NY), dtype), ey=memref((NX, NY), dtype),
                hz=memref((NX, NY), dtype), fict=memref((TMAX,), dtype)) as (ex, ey, hz, fict):
        half, seven = b.constant(0.5, dtype), b.constant(0.7, dtype)
        for t in b.range(TMAX):
            for j in b.range(NY):
                ey[0, j] = fict[t]
            for i in b.range(1, NX):
                for j in b.range(NY):
                    ey[i, j] = ey[i, j] - half * (hz[i, j] - hz[i - 1, j])
            for i in b.range(NX):
                for j in b.range(1, NY):
                    ex[i, j] = ex[i, j] - half * (hz[i, j] - hz[i, j - 1])
            for i in b.range(NX - 1):
                for j in b.range(NY - 1):
                    hz[i, j] = hz[i, j] - seven * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])
    return b.module


def reference_fdtd_2d(ex: np.ndarray, ey: np.ndarray, hz: np.ndarray, fict: np.ndarray,
                      dtype: ElementType, **_: object) -> dict[str, np.ndarray]:
    ex, ey, hz = ex.copy(), ey.copy(), hz.copy()
    c5, c7 = in_dtype(0.5, dtype), in_dtype(0.7, dtype)
    for t in range(fict.shape[0]):
        ey[0, :] = fict[t]
        ey[1:, :] -= c5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= c5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= c7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return {"ex": ex, "ey": ey, "hz": hz}


def _heat_sweep(b: Builder, src, dst, N: int, eighth, two) -> None:  # type: ignore[no-untyped-def]
    for i in b.range(1, N - 1):
        for j in b.range(1, N - 1):
            for k in b.range(1, N - 1):
                dst[i, j, k] = (eighth * (src[i + 1, j, k] - two * src[i, j, k] + src[i - 1, j, k])
                                + eighth * (src[i, j + 1, k] - two * src[i, j, k] + src[i, j - 1, k])
                                + eighth * (src[i, j, k + 1] - two * src[i, j, k] + src[i, j, k - 1])
                                + src[i, j, k])


def build_heat_3d(TSTEPS: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("heat_3d", A=memref((N, N, N), dtype), B=memref((N, N, N), dtype)) as (A, B):
        eighth, two = b.constant(0.125, dtype), b.constant(2.0, dtype)
        for _t in b.range(1, TSTEPS + 1):
            _heat_sweep(b, A, B, N, eighth, two)
            _heat_sweep(b, B, A, N, eighth, two)
    return b.module


def reference_heat_3d(A: np.ndarray, B: np.ndarray, TSTEPS: int, **_: object) -> dict[str, np.ndarray]:
    A, B = A.copy(), B.copy()

    def step(s: np.ndarray, d: np.ndarray) -> None:
        c = s[1:-1, 1:-1, 1:-1]
        lap = (s[2:, 1:-1, 1:-1] + s[:-2, 1:-1, 1:-1] + s[1:-1, 2:, 1:-1] + s[1:-1, :-2, 1:-1]
               + s[1:-1, 1:-1, 2:] + s[1:-1, 1:-1, :-2] - 6 * c)
        d[1:-1, 1:-1, 1:-1] = c + 0.125 * lap

    for _ in range(TSTEPS):
        step(A, B)
        step(B, A)
    return {"A": A, "B": B}


def build_jacobi_1d(TSTEPS: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("jacobi_1d", A=memref((N,), dtype), B=memref((N,), dtype)) as (A, B):
        third = b.constant(0.33333, dtype)
        for _t in b.range(TSTEPS):
            for i in b.range(1, N - 1):
                B[i] = third * (A[i - 1] + A[i] + A[i + 1])
            for i in b.range(1, N - 1):
                A[i] = third * (B[i - 1] + B[i] + B[i + 1])
    return b.module


def reference_jacobi_1d(A: np.ndarray, B: np.ndarray, TSTEPS: int, dtype: ElementType,
                        **_: object) -> dict[str, np.ndarray]:
    A, B = A.copy(), B.copy()
    third = in_dtype(0.33333, dtype)
    kernel = np.array([1.0, 1.0, 1.0])
    for _ in range(TSTEPS):
        B[1:-1] = third * np.convolve(A, kernel, mode="valid")
        A[1:-1] = third * np.convolve(B, kernel, mode="valid")
    return {"A": A, "B": B}


def build_seidel_2d(TSTEPS: int, N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("seidel_2d", A=memref((N, N), dtype)) as (A,):
        nine = b.constant(9.0, dtype)
        for _t in b.range(TSTEPS):
            for i in b.range(1, N - 1):
                for j in b.range(1, N - 1):
                    A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1]
                               + A[i, j - 1] + A[i, j] + A[i, j + 1]
                               + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / nine
    return b.module


def reference_seidel_2d(A: np.ndarray, TSTEPS: int, **_: object) -> dict[str, np.ndarray]:
    """Gauss-Seidel in place: along a row x[j] = (s[j] + x[j-1]) / 9, where s holds the
    eight other terms (row i-1 already updated, row i+1 not yet); the recurrence is solved
    as x = T·s with T[j, m] = 9^-(j-m+1) for m <= j (x[0] the boundary)."""
    A = A.copy()
    n = A.shape[0]
    m = n - 2
    idx = np.arange(m)
    powers = np.where(idx[:, None] >= idx[None, :], 9.0 ** -(idx[:, None] - idx[None, :] + 1.0), 0.0)
    for _ in range(TSTEPS):
        for i in range(1, n - 1):
            up, row, down = A[i - 1], A[i], A[i + 1]
            s = (up[:-2] + up[1:-1] + up[2:] + row[1:-1] + row[2:] + down[:-2] + down[1:-1] + down[2:])
            s[0] += row[0]  # the boundary x[j-1] of the first interior point
            A[i, 1:-1] = powers @ s
    return {"A": A}


WORKLOADS = (
    Workload(
        name="adi", func_name="adi", suite="polybench",
        summary="alternating-direction implicit 2-D heat solver",
        params=(size("TSTEPS", 40, "time steps", hi=100_000), size("N", 60, "the arrays are N x N", lo=3),
                dtype_param()),
        build=build_adi, reference=reference_adi, outputs=("u", "v"),
        tolerance=tol(lambda p: p["N"] * p["TSTEPS"], 4.0),  # type: ignore[operator,return-value]
        tolerance_reason="a Thomas solve per line per step; errors are damped but compound over steps",
    ),
    Workload(
        name="fdtd-2d", func_name="fdtd_2d", suite="polybench",
        summary="2-D finite-difference time domain (ex, ey, hz)",
        params=(size("TMAX", 40, "time steps", hi=100_000), size("NX", 60, "rows", lo=2),
                size("NY", 80, "columns", lo=2), dtype_param()),
        build=build_fdtd_2d, reference=reference_fdtd_2d, outputs=("ex", "ey", "hz"),
        tolerance=tol(lambda p: 16 * p["TMAX"], 4.0),  # type: ignore[operator,return-value]
        tolerance_reason="a few adds per point per step; the field's error grows over TMAX steps",
    ),
    Workload(
        name="heat-3d", func_name="heat_3d", suite="polybench",
        summary="3-D heat equation, 7-point stencil, A->B->A per step",
        params=(size("TSTEPS", 40, "time steps (two sweeps each)", hi=100_000),
                size("N", 20, "the arrays are N x N x N", lo=3), dtype_param()),
        build=build_heat_3d, reference=reference_heat_3d, outputs=("A", "B"),
        tolerance=tol(lambda p: 10 * p["TSTEPS"]),  # type: ignore[operator,return-value]
        tolerance_reason="ten operations per point per sweep; averaging keeps errors from compounding",
    ),
    Workload(
        name="jacobi-1d", func_name="jacobi_1d", suite="polybench",
        summary="3-point Jacobi stencil, A->B->A per step",
        params=(size("TSTEPS", 40, "time steps (two sweeps each)", hi=100_000),
                size("N", 120, "length of A and B", lo=3), dtype_param()),
        build=build_jacobi_1d, reference=reference_jacobi_1d, outputs=("A", "B"),
        tolerance=tol(lambda p: 3 * p["TSTEPS"]),  # type: ignore[operator,return-value]
        tolerance_reason="3 adds and a multiply per sweep; averaging keeps errors from compounding",
    ),
    Workload(
        name="seidel-2d", func_name="seidel_2d", suite="polybench",
        summary="9-point Gauss-Seidel stencil in place",
        params=(size("TSTEPS", 40, "time steps", hi=100_000), size("N", 120, "A is N x N", lo=3),
                dtype_param()),
        build=build_seidel_2d, reference=reference_seidel_2d, outputs=("A",),
        tolerance=tol(lambda p: 9 * p["TSTEPS"]),  # type: ignore[operator,return-value]
        tolerance_reason="9 adds and a divide per point per step; averaging keeps errors small",
    ),
)
