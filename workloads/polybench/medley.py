"""PolyBench/C 4.2.1 medley: deriche, floyd-warshall, nussinov (SMALL sizes).

Loop nests and statement order follow PolyBench's `kernel_*` functions. Loops PolyBench runs
downwards run upwards over the reflected index (`H-1-j`, `N-1-i`); C scalars carried along a
row (deriche's `ym1`, `xp2`, ...) are iter_args; the C conditionals `a < b ? a : b` and
`max_score` are `arith.cmpf` + `select`, nussinov's `match` too. deriche computes its
coefficients in the IR with `math.exp` / `math.powf` as the C does.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, Value, memref
from compiler.ir.ops.math_ops import MATH_BINARY
from workloads.model import ParamValue, Workload, dtype_param, scalar, size
from workloads.polybench.common import tol


def _powf(b: Builder, x: Value, y: Value) -> Value:
    return b.insert(MATH_BINARY["math.powf"](x, y, loc=b.loc())).result


def _deriche_coefficients(b: Builder, alpha: Value, dtype: ElementType) -> dict[str, Value]:
    one, two = b.constant(1.0, dtype), b.constant(2.0, dtype)
    e = b.exp(-alpha)
    k = (one - e) * (one - e) / (one + two * alpha * e - b.exp(two * alpha))
    a2 = k * e * (alpha - one)
    a3 = k * e * (alpha + one)
    a4 = -k * b.exp(b.constant(-2.0, dtype) * alpha)
    return {"a1": k, "a2": a2, "a3": a3, "a4": a4, "b1": _powf(b, two, -alpha),
            "b2": -b.exp(b.constant(-2.0, dtype) * alpha), "c1": one}


def build_deriche(W: int, H: int, alpha: float = 0.25, dtype: ElementType = F32) -> ModuleOp:
    """Deriche's recursive edge detector: causal and anti-causal IIR passes along rows, then
    along columns (a5..a8 = a1..a4, c2 = c1 as in PolyBench)."""
    b = Builder()
    with b.func("deriche", imgIn=memref((W, H), dtype), imgOut=memref((W, H), dtype),
                y1=memref((W, H), dtype), y2=memref((W, H), dtype)) as (imgIn, imgOut, y1, y2):
        zero = b.constant(0.0, dtype)
        c = _deriche_coefficients(b, b.constant(alpha, dtype), dtype)
        a1, a2, a3, a4, b1, b2, c1 = (c[n] for n in ("a1", "a2", "a3", "a4", "b1", "b2", "c1"))
        for i in b.range(W):
            with b.loop(0, H, iter_args=[zero, zero, zero]) as lp:  # ym1, ym2, xm1
                j, (ym1, ym2, xm1) = lp.iv, lp.region_iter_args
                y1[i, j] = a1 * imgIn[i, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
                b.yield_([y1[i, j], ym1, imgIn[i, j]])
        for i in b.range(W):
            with b.loop(0, H, iter_args=[zero, zero, zero, zero]) as lp:  # yp1, yp2, xp1, xp2
                j, (yp1, yp2, xp1, xp2) = H - 1 - lp.iv, lp.region_iter_args
                y2[i, j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
                b.yield_([y2[i, j], yp1, imgIn[i, j], xp1])
        for i in b.range(W):
            for j in b.range(H):
                imgOut[i, j] = c1 * (y1[i, j] + y2[i, j])
        for j in b.range(H):
            with b.loop(0, W, iter_args=[zero, zero, zero]) as lp:  # tm1, ym1, ym2
                i, (tm1, ym1, ym2) = lp.iv, lp.region_iter_args
                y1[i, j] = a1 * imgOut[i, j] + a2 * tm1 + b1 * ym1 + b2 * ym2
                b.yield_([imgOut[i, j], y1[i, j], ym1])
        for j in b.range(H):
            with b.loop(0, W, iter_args=[zero, zero, zero, zero]) as lp:  # tp1, tp2, yp1, yp2
                i, (tp1, tp2, yp1, yp2) = W - 1 - lp.iv, lp.region_iter_args
                y2[i, j] = a3 * tp1 + a4 * tp2 + b1 * yp1 + b2 * yp2
                b.yield_([imgOut[i, j], tp1, y2[i, j], yp1])
        for i in b.range(W):
            for j in b.range(H):
                imgOut[i, j] = c1 * (y1[i, j] + y2[i, j])
    return b.module


def _iir(x: np.ndarray, ff: tuple[float, float, float], fb: tuple[float, float]) -> np.ndarray:
    """y[n] = ff0·x[n] + ff1·x[n-1] + ff2·x[n-2] + fb0·y[n-1] + fb1·y[n-2] along the last axis,
    every other axis at once."""
    xp = np.concatenate([np.zeros((*x.shape[:-1], 2)), x], axis=-1)
    y = np.zeros(xp.shape)
    for n in range(2, xp.shape[-1]):
        y[..., n] = (ff[0] * xp[..., n] + ff[1] * xp[..., n - 1] + ff[2] * xp[..., n - 2]
                     + fb[0] * y[..., n - 1] + fb[1] * y[..., n - 2])
    return y[..., 2:]


def reference_deriche(imgIn: np.ndarray, alpha: float, **_: object) -> dict[str, np.ndarray]:
    e = np.exp(-alpha)
    k = (1 - e) ** 2 / (1 + 2 * alpha * e - np.exp(2 * alpha))
    a1, a2, a3, a4 = k, k * e * (alpha - 1), k * e * (alpha + 1), -k * np.exp(-2 * alpha)
    b1, b2 = 2.0 ** -alpha, -np.exp(-2 * alpha)
    causal, anti = (a1, a2, 0.0), (0.0, a3, a4)   # anti-causal: the causal filter on x reversed

    def both(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _iir(x, causal, (b1, b2)), _iir(x[..., ::-1], anti, (b1, b2))[..., ::-1]

    r1, r2 = both(imgIn)
    mid = r1 + r2
    c1, c2 = both(mid.T)
    return {"imgOut": (c1 + c2).T, "y1": c1.T, "y2": c2.T}


def build_floyd_warshall(N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("floyd_warshall", path=memref((N, N), dtype)) as (path,):
        for k in b.range(N):
            for i in b.range(N):
                for j in b.range(N):
                    through = path[i, k] + path[k, j]
                    here = path[i, j]
                    path[i, j] = b.select(b.cmp("olt", here, through), here, path[i, k] + path[k, j])
    return b.module


def reference_floyd_warshall(path: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    d = path.copy()
    for k in range(d.shape[0]):
        d = np.minimum(d, d[:, k, None] + d[None, k, :])
    return {"path": d}


def _floyd_inputs(p: Mapping[str, ParamValue], rng: np.random.Generator) -> dict[str, np.ndarray]:
    # PolyBench's pattern: small integer weights, 999 for a missing edge (no negative cycles)
    n: int = p["N"]  # type: ignore[assignment]
    w = rng.integers(1, 8, size=(n, n)).astype(np.float64)
    return {"path": np.where(rng.uniform(size=(n, n)) < 0.3, 999.0, w)}


def build_nussinov(N: int, dtype: ElementType = F32) -> ModuleOp:
    """RNA folding: table[i][j] the best pairing score of seq[i..j]; i runs from N-1 down.
    PolyBench's guards `j-1 >= 0` and `i+1 < N` always hold inside the loops' bounds and are
    left out; `i < j-1` is an affine.if."""
    b = Builder()
    with b.func("nussinov", seq=memref((N,), dtype), table=memref((N, N), dtype)) as (seq, table):
        one, zero, three = b.constant(1.0, dtype), b.constant(0.0, dtype), b.constant(3.0, dtype)

        def max_score(s1: Value, s2: Value) -> Value:
            return b.select(b.cmp("oge", s1, s2), s1, s2)

        for ii in b.range(N):
            i = N - 1 - ii
            for j in b.range(N - ii, N):
                table[i, j] = max_score(table[i, j], table[i, j - 1])
                table[i, j] = max_score(table[i, j], table[i + 1, j])
                with b.if_(j - 2 - i >= 0) as op:
                    match = b.select(b.cmp("oeq", seq[i] + seq[j], three), one, zero)
                    table[i, j] = max_score(table[i, j], table[i + 1, j - 1] + match)
                with b.else_(op):
                    table[i, j] = max_score(table[i, j], table[i + 1, j - 1])
                for k in b.range(N - ii, j):
                    table[i, j] = max_score(table[i, j], table[i, k] + table[k + 1, j])
    return b.module


def reference_nussinov(seq: np.ndarray, table: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    """The recurrence by increasing span d = j - i, all cells of one span at once."""
    t, n = table.copy(), seq.shape[0]
    pair = (seq[:, None] + seq[None, :] == 3).astype(np.float64)
    for d in range(1, n):
        i = np.arange(n - d)
        j = i + d
        best = np.maximum.reduce([t[i, j], t[i, j - 1], t[i + 1, j],
                                  t[i + 1, j - 1] + np.where(d >= 2, pair[i, j], 0.0)])
        for k in range(1, d):  # split points i < k < j
            best = np.maximum(best, t[i, i + k] + t[i + k + 1, j])
        t[i, j] = best
    return {"table": t}


def _nussinov_inputs(p: Mapping[str, ParamValue], rng: np.random.Generator) -> dict[str, np.ndarray]:
    n: int = p["N"]  # type: ignore[assignment]
    return {"seq": rng.integers(0, 4, size=n).astype(np.float64), "table": np.zeros((n, n))}


WORKLOADS = (
    Workload(
        name="deriche", func_name="deriche", suite="polybench",
        summary="Deriche's recursive edge detector (2-D IIR)",
        params=(size("W", 192, "image width (rows of the arrays)"), size("H", 128, "image height"),
                scalar("alpha", 0.25, "the filter's alpha (PolyBench's 0.25)"), dtype_param()),
        build=build_deriche, reference=reference_deriche, outputs=("imgOut", "y1", "y2"),
        tolerance=tol(lambda p: p["W"] + p["H"], 4.0),  # type: ignore[operator,return-value]
        tolerance_reason="recursive filters along rows then columns; errors decay at rate b1",
    ),
    Workload(
        name="floyd-warshall", func_name="floyd_warshall", suite="polybench",
        summary="all-pairs shortest paths",
        params=(size("N", 180, "path is N x N"), dtype_param()),
        build=build_floyd_warshall, reference=reference_floyd_warshall, outputs=("path",),
        inputs=_floyd_inputs,
        tolerance=lambda p: (0.0, 0.0),
        tolerance_reason="sums and minima of small integers are exact in floating point",
    ),
    Workload(
        name="nussinov", func_name="nussinov", suite="polybench",
        summary="RNA secondary structure (dynamic programming)",
        params=(size("N", 180, "length of seq, table is N x N", lo=2), dtype_param()),
        build=build_nussinov, reference=reference_nussinov, outputs=("table",),
        inputs=_nussinov_inputs,
        tolerance=lambda p: (0.0, 0.0),
        tolerance_reason="sums and maxima of small integers are exact in floating point",
    ),
)

