"""Network-layer kernels beyond gemm/conv: activations, elementwise, pooling, norms, layout.

The ops a network needs between its convolutions and matrix products (`accelsim.network`
lowers ONNX nodes and zoo layers to these): `relu`, `sigmoid`, `silu`, `gelu` (the tanh form,
ONNX `Gelu(approximate="tanh")`), `vector_mul`, `maxpool2d`, `avgpool2d`, `layernorm`,
`rmsnorm`, and the layout kernels `pad2d`, `permute` (a rank-4 transpose) and `im2col` (the
patch matrix of a convolution, `cols[(c, r, s), (p, q)]`, with strides and dilations).
Pooling windows do not pad: a padded pool is `pad2d` (value -inf for max) and then the pool.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import (
    EVERY,
    ParamValue,
    Workload,
    accumulation_tolerance,
    dtype_param,
    scalar,
    size,
)

_MAX_LEN = 1 << 28
_GELU_C = math.sqrt(2.0 / math.pi)


def _length() -> tuple:
    return (size("N", 1 << 16, "elements", hi=_MAX_LEN), dtype_param())


# ---------------------------------------------------------------------------------------------
# elementwise

def build_relu(N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("relu", x=memref((N,), dtype), y=memref((N,), dtype)) as (x, y):
        zero = b.constant(0.0, dtype)
        for i in b.range(N):
            y[i] = b.max(x[i], zero)
    return b.module


def build_sigmoid(N: int, dtype: ElementType = F32) -> ModuleOp:
    """y = 1 / (1 + exp(-x))."""
    b = Builder()
    with b.func("sigmoid", x=memref((N,), dtype), y=memref((N,), dtype)) as (x, y):
        one = b.constant(1.0, dtype)
        for i in b.range(N):
            y[i] = one / (one + b.exp(b.neg(x[i])))
    return b.module


def build_silu(N: int, dtype: ElementType = F32) -> ModuleOp:
    """y = x / (1 + exp(-x)) (SiLU, Llama's activation)."""
    b = Builder()
    with b.func("silu", x=memref((N,), dtype), y=memref((N,), dtype)) as (x, y):
        one = b.constant(1.0, dtype)
        for i in b.range(N):
            v = x[i]
            y[i] = v / (one + b.exp(b.neg(v)))
    return b.module


def build_gelu(N: int, dtype: ElementType = F32) -> ModuleOp:
    """y = x/2 · (1 + tanh(√(2/π)(x + 0.044715 x³))), tanh(z) = 1 - 2/(exp(2z) + 1)."""
    b = Builder()
    with b.func("gelu", x=memref((N,), dtype), y=memref((N,), dtype)) as (x, y):
        half, one, two = b.constant(0.5, dtype), b.constant(1.0, dtype), b.constant(2.0, dtype)
        c, k = b.constant(_GELU_C, dtype), b.constant(0.044715, dtype)
        for i in b.range(N):
            v = x[i]
            z = c * (v + k * v * v * v)
            t = one - two / (b.exp(two * z) + one)
            y[i] = half * v * (one + t)
    return b.module


def build_vector_mul(N: int, dtype: ElementType = F32) -> ModuleOp:
    b = Builder()
    with b.func("vector_mul", x=memref((N,), dtype), y=memref((N,), dtype),
                z=memref((N,), dtype)) as (x, y, z):
        for i in b.range(N):
            z[i] = x[i] * y[i]
    return b.module


def _relu_ref(x: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"y": np.maximum(x, 0.0)}


def _sigmoid_ref(x: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"y": 1.0 / (1.0 + np.exp(-x))}


def _silu_ref(x: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"y": x / (1.0 + np.exp(-x))}


def _gelu_ref(x: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"y": 0.5 * x * (1.0 + np.tanh(_GELU_C * (x + 0.044715 * x**3)))}


def _mul_ref(x: np.ndarray, y: np.ndarray, **_: object) -> dict[str, np.ndarray]:
    return {"z": x * y}


# ---------------------------------------------------------------------------------------------
# pooling (NCHW, no padding)

def _pool_extent(extent: int, window: int, stride: int) -> int:
    return (extent - window) // stride + 1


def build_maxpool2d(N: int, C: int, H: int, W: int, R: int, S: int, stride: int,
                    dtype: ElementType = F32) -> ModuleOp:
    P, Q = _pool_extent(H, R, stride), _pool_extent(W, S, stride)
    b = Builder()
    with b.func("maxpool2d", input=memref((N, C, H, W), dtype),
                output=memref((N, C, P, Q), dtype)) as (inp, out):
        for n in b.range(N):
            for c in b.range(C):
                for p in b.range(P):
                    for q in b.range(Q):
                        out[n, c, p, q] = inp[n, c, p * stride, q * stride]
                        for r in b.range(R):
                            for s in b.range(S):
                                out[n, c, p, q] = b.max(out[n, c, p, q],
                                                        inp[n, c, p * stride + r, q * stride + s])
    return b.module


def build_avgpool2d(N: int, C: int, H: int, W: int, R: int, S: int, stride: int,
                    dtype: ElementType = F32) -> ModuleOp:
    P, Q = _pool_extent(H, R, stride), _pool_extent(W, S, stride)
    b = Builder()
    with b.func("avgpool2d", input=memref((N, C, H, W), dtype),
                output=memref((N, C, P, Q), dtype)) as (inp, out):
        zero, inv = b.constant(0.0, dtype), b.constant(1.0 / (R * S), dtype)
        for n in b.range(N):
            for c in b.range(C):
                for p in b.range(P):
                    for q in b.range(Q):
                        out[n, c, p, q] = zero
                        for r in b.range(R):
                            for s in b.range(S):
                                out[n, c, p, q] = out[n, c, p, q] + inp[n, c, p * stride + r, q * stride + s]
                        out[n, c, p, q] = out[n, c, p, q] * inv
    return b.module


def _windows(x: np.ndarray, R: int, S: int, stride: int) -> np.ndarray:
    """[..., P, Q, R, S] views of every window."""
    v = np.lib.stride_tricks.sliding_window_view(x, (R, S), axis=(2, 3))
    return v[:, :, ::stride, ::stride]


def _maxpool_ref(input: np.ndarray, R: int, S: int, stride: int, **_: object) -> dict[str, np.ndarray]:
    return {"output": _windows(input, R, S, stride).max(axis=(4, 5))}


def _avgpool_ref(input: np.ndarray, R: int, S: int, stride: int, **_: object) -> dict[str, np.ndarray]:
    return {"output": _windows(input, R, S, stride).mean(axis=(4, 5))}


def _pool_fits(p: Mapping[str, ParamValue]) -> str | None:
    if p["R"] > p["H"] or p["S"] > p["W"]:  # type: ignore[operator]
        return f"the window ({p['R']}x{p['S']}) must fit in the image ({p['H']}x{p['W']})"
    return None


# ---------------------------------------------------------------------------------------------
# norms over the last axis of an M x N matrix

def build_layernorm(M: int, N: int, eps: float = 1e-5, dtype: ElementType = F32) -> ModuleOp:
    """Y[i, j] = (X[i, j] - mean[i]) · rstd[i] · gamma[j] + beta[j], rstd = 1/sqrt(var + eps).

    `mean` and `rstd` are outputs too (ONNX LayerNormalization's optional Mean, InvStdDev),
    accumulated in memory over perfect (i, j) nests, so the row loops tile like row_sum's and
    a row need not fit in fast memory."""
    b = Builder()
    with b.func("layernorm", X=memref((M, N), dtype), gamma=memref((N,), dtype),
                beta=memref((N,), dtype), Y=memref((M, N), dtype), mean=memref((M,), dtype),
                rstd=memref((M,), dtype)) as (X, gamma, beta, Y, mean, rstd):
        zero, one = b.constant(0.0, dtype), b.constant(1.0, dtype)
        inv_n, e = b.constant(1.0 / N, dtype), b.constant(eps, dtype)
        for i in b.range(M):
            mean[i] = zero
            rstd[i] = zero
        for i in b.range(M):
            for j in b.range(N):
                mean[i] = mean[i] + X[i, j]
        for i in b.range(M):
            mean[i] = mean[i] * inv_n
        for i in b.range(M):
            for j in b.range(N):
                d = X[i, j] - mean[i]
                rstd[i] = rstd[i] + d * d
        for i in b.range(M):
            rstd[i] = one / b.sqrt(rstd[i] * inv_n + e)
        for i in b.range(M):
            for j in b.range(N):
                Y[i, j] = (X[i, j] - mean[i]) * rstd[i] * gamma[j] + beta[j]
    return b.module


def build_rmsnorm(M: int, N: int, eps: float = 1e-6, dtype: ElementType = F32) -> ModuleOp:
    """Y[i, j] = X[i, j] · rstd[i] · gamma[j], rstd = 1/sqrt(mean_j X[i, j]² + eps) (Llama's
    norm); `rstd` is an output, accumulated in memory as in `layernorm`."""
    b = Builder()
    with b.func("rmsnorm", X=memref((M, N), dtype), gamma=memref((N,), dtype),
                Y=memref((M, N), dtype), rstd=memref((M,), dtype)) as (X, gamma, Y, rstd):
        zero, one = b.constant(0.0, dtype), b.constant(1.0, dtype)
        inv_n, e = b.constant(1.0 / N, dtype), b.constant(eps, dtype)
        for i in b.range(M):
            rstd[i] = zero
        for i in b.range(M):
            for j in b.range(N):
                rstd[i] = rstd[i] + X[i, j] * X[i, j]
        for i in b.range(M):
            rstd[i] = one / b.sqrt(rstd[i] * inv_n + e)
        for i in b.range(M):
            for j in b.range(N):
                Y[i, j] = X[i, j] * rstd[i] * gamma[j]
    return b.module


def _layernorm_ref(X: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float,
                   **_: object) -> dict[str, np.ndarray]:
    mean = X.mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(((X - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    return {"Y": (X - mean) * rstd * gamma + beta, "mean": mean[:, 0], "rstd": rstd[:, 0]}


def _rmsnorm_ref(X: np.ndarray, gamma: np.ndarray, eps: float, **_: object) -> dict[str, np.ndarray]:
    rstd = 1.0 / np.sqrt((X**2).mean(axis=1, keepdims=True) + eps)
    return {"Y": X * rstd * gamma, "rstd": rstd[:, 0]}


def _eps_positive(p: Mapping[str, ParamValue]) -> str | None:
    return None if p["eps"] > 0 else f"eps must be > 0, got {p['eps']}"  # type: ignore[operator]


# ---------------------------------------------------------------------------------------------
# layout

def build_pad2d(N: int, C: int, H: int, W: int, top: int, left: int, bottom: int, right: int,
                value: float = 0.0, dtype: ElementType = F32) -> ModuleOp:
    """output (H + top + bottom) x (W + left + right) holds `value` around a copy of input."""
    HO, WO = H + top + bottom, W + left + right
    b = Builder()
    with b.func("pad2d", input=memref((N, C, H, W), dtype),
                output=memref((N, C, HO, WO), dtype)) as (inp, out):
        fill = b.constant(value, dtype)
        for n in b.range(N):
            for c in b.range(C):
                for h in b.range(HO):
                    for w in b.range(WO):
                        out[n, c, h, w] = fill
        for n in b.range(N):
            for c in b.range(C):
                for h in b.range(H):
                    for w in b.range(W):
                        out[n, c, h + top, w + left] = inp[n, c, h, w]
    return b.module


def _pad_ref(input: np.ndarray, top: int, left: int, bottom: int, right: int, value: float,
             **_: object) -> dict[str, np.ndarray]:
    return {"output": np.pad(input, ((0, 0), (0, 0), (top, bottom), (left, right)),
                             constant_values=value)}


def _permuted(d: tuple[int, ...], p: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(d[i] for i in p)


def build_permute(d0: int, d1: int, d2: int, d3: int, p0: int, p1: int, p2: int, p3: int,
                  dtype: ElementType = F32) -> ModuleOp:
    """output[i_p0, i_p1, i_p2, i_p3] = input[i0, i1, i2, i3] (numpy `transpose(input, p)`)."""
    dims, perm = (d0, d1, d2, d3), (p0, p1, p2, p3)
    b = Builder()
    with b.func("permute", input=memref(dims, dtype),
                output=memref(_permuted(dims, perm), dtype)) as (inp, out):
        for i0 in b.range(d0):
            for i1 in b.range(d1):
                for i2 in b.range(d2):
                    for i3 in b.range(d3):
                        ivs = (i0, i1, i2, i3)
                        out[tuple(ivs[k] for k in perm)] = inp[i0, i1, i2, i3]
    return b.module


def _permute_ref(input: np.ndarray, p0: int, p1: int, p2: int, p3: int, **_: object) -> dict[str, np.ndarray]:
    return {"output": np.transpose(input, (p0, p1, p2, p3))}


def _permute_check(p: Mapping[str, ParamValue]) -> str | None:
    perm = sorted(int(p[f"p{i}"]) for i in range(4))  # type: ignore[arg-type]
    return None if perm == [0, 1, 2, 3] else "p0..p3 must be a permutation of 0, 1, 2, 3"


def im2col_extent(extent: int, window: int, stride: int, dilation: int) -> int:
    return (extent - dilation * (window - 1) - 1) // stride + 1


def build_im2col(C: int, H: int, W: int, R: int, S: int, stride: int, dilation: int,
                 dtype: ElementType = F32) -> ModuleOp:
    """cols[c·R·S + r·S + s, p·Q + q] = input[c, p·stride + r·dilation, q·stride + s·dilation]."""
    P, Q = im2col_extent(H, R, stride, dilation), im2col_extent(W, S, stride, dilation)
    b = Builder()
    with b.func("im2col", input=memref((C, H, W), dtype),
                cols=memref((C * R * S, P * Q), dtype)) as (inp, cols):
        for c in b.range(C):
            for r in b.range(R):
                for s in b.range(S):
                    for p in b.range(P):
                        for q in b.range(Q):
                            cols[c * (R * S) + r * S + s, p * Q + q] = inp[
                                c, p * stride + r * dilation, q * stride + s * dilation]
    return b.module


def _im2col_ref(input: np.ndarray, cols: np.ndarray, R: int, S: int, stride: int, dilation: int,
                **_: object) -> dict[str, np.ndarray]:
    C, H, W = input.shape
    P, Q = im2col_extent(H, R, stride, dilation), im2col_extent(W, S, stride, dilation)
    out = np.empty((C, R, S, P, Q))
    for r in range(R):
        for s in range(S):
            out[:, r, s] = input[:, r * dilation: r * dilation + stride * (P - 1) + 1: stride,
                                 s * dilation: s * dilation + stride * (Q - 1) + 1: stride]
    return {"cols": out.reshape(C * R * S, P * Q)}


def _im2col_fits(p: Mapping[str, ParamValue]) -> str | None:
    for ext, win in (("H", "R"), ("W", "S")):
        if p["dilation"] * (p[win] - 1) + 1 > p[ext]:  # type: ignore[operator]
            return f"the dilated window along {ext} must fit: dilation·({win} - 1) + 1 <= {ext}"
    return None


# ---------------------------------------------------------------------------------------------

def _exact(p: Mapping[str, ParamValue]) -> tuple[float, float]:
    return accumulation_tolerance(p["dtype"], 1)  # type: ignore[arg-type]


def _special(p: Mapping[str, ParamValue]) -> tuple[float, float]:
    rtol, atol = accumulation_tolerance(p["dtype"], 4)  # type: ignore[arg-type]
    return 10 * rtol, 10 * atol


def _row(p: Mapping[str, ParamValue]) -> tuple[float, float]:
    """Row statistics are sums over N divided by N: the sum's absolute error, divided by N
    (so a 1% error of a small mean is still caught); Y is within rtol of its value."""
    rtol, atol = accumulation_tolerance(p["dtype"], p["N"])  # type: ignore[arg-type]
    return rtol, atol / p["N"]  # type: ignore[operator]


def _pool_params() -> tuple:
    return (size("N", 1, "images"), size("C", 16, "channels"), size("H", 8, "height"),
            size("W", 8, "width"), size("R", 2, "window height", hi=256),
            size("S", 2, "window width", hi=256), size("stride", 2, "window step", hi=256))


_ELEMENTWISE = "one rounding per element; the f64 reference differs by <= 1 ulp"
_SPECIAL = "exp and a division per element: a few ulps"
_NORM = "row statistics are sums of N terms over N: ~sqrt(N) ulps of the sum, divided by N"

WORKLOADS = (
    Workload(name="relu", func_name="relu", summary="y = max(x, 0)", params=_length(),
             build=build_relu, reference=_relu_ref, outputs=("y",), tolerance=_exact,
             tolerance_reason=_ELEMENTWISE),
    Workload(name="sigmoid", func_name="sigmoid", summary="y = 1 / (1 + exp(-x))", params=_length(),
             build=build_sigmoid, reference=_sigmoid_ref, outputs=("y",), tolerance=_special,
             tolerance_reason=_SPECIAL),
    Workload(name="silu", func_name="silu", summary="y = x / (1 + exp(-x))", params=_length(),
             build=build_silu, reference=_silu_ref, outputs=("y",), tolerance=_special,
             tolerance_reason=_SPECIAL),
    Workload(name="gelu", func_name="gelu", summary="y = GELU(x), tanh form", params=_length(),
             build=build_gelu, reference=_gelu_ref, outputs=("y",), tolerance=_special,
             tolerance_reason=_SPECIAL),
    Workload(name="vector_mul", func_name="vector_mul", summary="z = x · y", params=_length(),
             build=build_vector_mul, reference=_mul_ref, outputs=("z",), tolerance=_exact,
             tolerance_reason=_ELEMENTWISE),
    Workload(name="maxpool2d", func_name="maxpool2d", summary="max over R x S windows (NCHW)",
             params=(*_pool_params(), dtype_param()), build=build_maxpool2d, reference=_maxpool_ref,
             outputs=("output",), tolerance=_exact, tolerance_reason="a maximum is exact",
             check=_pool_fits),
    Workload(name="avgpool2d", func_name="avgpool2d", summary="mean over R x S windows (NCHW)",
             params=(*_pool_params(), dtype_param()), build=build_avgpool2d, reference=_avgpool_ref,
             outputs=("output",), tolerance=lambda p: accumulation_tolerance(  # type: ignore[arg-type]
                 p["dtype"], p["R"] * p["S"]),  # type: ignore[operator]
             tolerance_reason="each output sums R·S terms", check=_pool_fits),
    Workload(name="layernorm", func_name="layernorm", summary="row-wise layer norm with gamma, beta",
             params=(size("M", 64, "rows"), size("N", 64, "normalized extent"),
                     scalar("eps", 1e-5, "added to the variance"), dtype_param()),
             build=build_layernorm, reference=_layernorm_ref, outputs=("Y", "mean", "rstd"), tolerance=_row,
             tolerance_reason=_NORM, check=_eps_positive),
    Workload(name="rmsnorm", func_name="rmsnorm", summary="row-wise RMS norm with gamma",
             params=(size("M", 64, "rows"), size("N", 64, "normalized extent"),
                     scalar("eps", 1e-6, "added to the mean square"), dtype_param()),
             build=build_rmsnorm, reference=_rmsnorm_ref, outputs=("Y", "rstd"), tolerance=_row,
             tolerance_reason=_NORM, check=_eps_positive),
    Workload(name="pad2d", func_name="pad2d", summary="NCHW zero (or value) padding of H and W",
             params=(size("N", 1, "images"), size("C", 4, "channels"), size("H", 8, "height"),
                     size("W", 8, "width"), size("top", 1, "rows above", lo=0, hi=256),
                     size("left", 1, "columns left", lo=0, hi=256),
                     size("bottom", 1, "rows below", lo=0, hi=256),
                     size("right", 1, "columns right", lo=0, hi=256),
                     scalar("value", 0.0, "the padding value"), dtype_param(EVERY)),
             build=build_pad2d, reference=_pad_ref, outputs=("output",), tolerance=_exact,
             tolerance_reason="a copy is exact"),
    Workload(name="permute", func_name="permute", summary="rank-4 transpose: output = input.transpose(p)",
             params=(*(size(f"d{i}", 4, f"input extent {i}") for i in range(4)),
                     *(size(f"p{i}", (0, 2, 1, 3)[i], f"input axis of output axis {i}", lo=0, hi=3)
                       for i in range(4)), dtype_param(EVERY)),
             build=build_permute, reference=_permute_ref, outputs=("output",), tolerance=_exact,
             tolerance_reason="a copy is exact", check=_permute_check),
    Workload(name="im2col", func_name="im2col", summary="convolution patches as a (C·R·S) x (P·Q) matrix",
             params=(size("C", 4, "channels"), size("H", 8, "height"), size("W", 8, "width"),
                     size("R", 3, "filter height", hi=64), size("S", 3, "filter width", hi=64),
                     size("stride", 1, "window step", hi=16), size("dilation", 1, "tap spacing", hi=16),
                     dtype_param(EVERY)),
             build=build_im2col, reference=_im2col_ref, outputs=("cols",), tolerance=_exact,
             tolerance_reason="a copy is exact", check=_im2col_fits),
)
