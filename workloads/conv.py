"""2-D convolution without padding: `conv2d` (NCHW input, KCRS filter) and `depthwise_conv2d`.

Output extents are P = (H - R) // stride + 1 and Q = (W - S) // stride + 1; the output is
accumulated into (output += conv), like gemm's C += A·B.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from compiler.ir import F32, Builder, ElementType, ModuleOp, memref
from workloads.model import (
    EVERY,
    ParamValue,
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


def output_extent(extent: int, window: int, stride: int) -> int:
    return (extent - window) // stride + 1


def build_conv2d(N: int, C: int, H: int, W: int, K: int, R: int, S: int, stride: int,
                 dtype: ElementType = F32, acc: ElementType | None = None,
                 wdtype: ElementType | None = None, out: ElementType | None = None) -> ModuleOp:
    """output[n,k,p,q] += Σ_{c,r,s} input[n,c,p·stride+r,q·stride+s] · filter[k,c,r,s]; the
    input `dtype`, the filter `wdtype`, the output the accumulator `acc` (operands widened to
    it before the multiply-add, as `build_gemm`). With `out` (`build_gemm`'s): output =
    requantized(Σ) of type out, the sum carried in iter_args from zero."""
    acc, wdtype = acc or dtype, wdtype or dtype
    rq = out
    P, Q = output_extent(H, R, stride), output_extent(W, S, stride)
    b = Builder()
    with b.func("conv2d", input=memref((N, C, H, W), dtype), filter=memref((K, C, R, S), wdtype),
                output=memref((N, K, P, Q), rq or acc)) as (inp, filt, out):
        for n in b.range(N):
            for k in b.range(K):
                for p in b.range(P):
                    for q in b.range(Q):
                        if rq is not None:
                            total = reduce_sum(b, [C, R, S], acc, lambda iv, n=n, k=k, p=p, q=q: (
                                convert(b, inp[n, iv[0], p * stride + iv[1], q * stride + iv[2]], acc)
                                * convert(b, filt[k, iv[0], iv[1], iv[2]], acc)))
                            out[n, k, p, q] = requantized(b, total, rq)
                            continue
                        for c in b.range(C):
                            for r in b.range(R):
                                for s in b.range(S):
                                    pixel = convert(b, inp[n, c, p * stride + r, q * stride + s], acc)
                                    out[n, k, p, q] = (out[n, k, p, q]
                                                       + pixel * convert(b, filt[k, c, r, s], acc))
    return b.module


def _window(x: np.ndarray, r: int, s: int, P: int, Q: int, stride: int) -> np.ndarray:
    """x[..., p·stride + r, q·stride + s] for all p < P, q < Q."""
    return x[..., r: r + stride * (P - 1) + 1: stride, s: s + stride * (Q - 1) + 1: stride]


def conv2d_reference(input: np.ndarray, filter: np.ndarray, output: np.ndarray, stride: int,
                     out: ElementType | None = None, acc: ElementType | None = None,
                     **_: object) -> dict[str, np.ndarray]:
    _, _, P, Q = output.shape
    _, _, R, S = filter.shape
    result = output.copy() if out is None else np.zeros_like(output)
    for r in range(R):
        for s in range(S):
            result += np.einsum("nchw,kc->nkhw", _window(input, r, s, P, Q, stride), filter[:, :, r, s])
    if out is not None:
        result = requantized_reference(result, out, acc)  # type: ignore[arg-type]
    return {"output": result}


def build_depthwise_conv2d(N: int, C: int, H: int, W: int, R: int, S: int, stride: int,
                           dtype: ElementType = F32, acc: ElementType | None = None,
                           wdtype: ElementType | None = None, out: ElementType | None = None) -> ModuleOp:
    """output[n,c,p,q] += Σ_{r,s} input[n,c,p·stride+r,q·stride+s] · filter[c,r,s] (types and
    `out` as `build_conv2d`'s)."""
    acc, wdtype = acc or dtype, wdtype or dtype
    rq = out
    P, Q = output_extent(H, R, stride), output_extent(W, S, stride)
    b = Builder()
    with b.func("depthwise_conv2d", input=memref((N, C, H, W), dtype),
                filter=memref((C, R, S), wdtype),
                output=memref((N, C, P, Q), rq or acc)) as (inp, filt, out):
        for n in b.range(N):
            for c in b.range(C):
                for p in b.range(P):
                    for q in b.range(Q):
                        if rq is not None:
                            total = reduce_sum(b, [R, S], acc, lambda iv, n=n, c=c, p=p, q=q: (
                                convert(b, inp[n, c, p * stride + iv[0], q * stride + iv[1]], acc)
                                * convert(b, filt[c, iv[0], iv[1]], acc)))
                            out[n, c, p, q] = requantized(b, total, rq)
                            continue
                        for r in b.range(R):
                            for s in b.range(S):
                                pixel = convert(b, inp[n, c, p * stride + r, q * stride + s], acc)
                                out[n, c, p, q] = (out[n, c, p, q]
                                                   + pixel * convert(b, filt[c, r, s], acc))
    return b.module


def depthwise_conv2d_reference(input: np.ndarray, filter: np.ndarray, output: np.ndarray, stride: int,
                               out: ElementType | None = None, acc: ElementType | None = None,
                               **_: object) -> dict[str, np.ndarray]:
    _, _, P, Q = output.shape
    _, R, S = filter.shape
    result = output.copy() if out is None else np.zeros_like(output)
    for r in range(R):
        for s in range(S):
            result += _window(input, r, s, P, Q, stride) * filter[None, :, r, s, None, None]
    if out is not None:
        result = requantized_reference(result, out, acc)  # type: ignore[arg-type]
    return {"output": result}


def _window_fits(p: Mapping[str, ParamValue]) -> str | None:
    if p["R"] > p["H"] or p["S"] > p["W"]:  # type: ignore[operator]
        return (f"the filter ({p['R']}x{p['S']}) must fit in the image ({p['H']}x{p['W']}): "
                "need R <= H and S <= W (no padding)")
    return None


def _image_params() -> tuple:
    return (size("N", 1, "images in the batch"), size("C", 16, "input channels"),
            size("H", 34, "image height"), size("W", 34, "image width"))


def _window_params() -> tuple:
    return (size("R", 3, "filter height", hi=64), size("S", 3, "filter width", hi=64),
            size("stride", 1, "step of the window in both directions", hi=16))


WORKLOADS = (
    Workload(
        name="conv2d", func_name="conv2d", summary="output += conv(input NCHW, filter KCRS), no padding",
        params=(*_image_params(), size("K", 32, "output channels"), *_window_params(),
                dtype_param(EVERY), acc_param(), wdtype_param(), out_param()),
        build=build_conv2d, reference=conv2d_reference, outputs=("output",),
        tolerance=lambda p: accumulation_tolerance(p["out"] or p["acc"], p["C"] * p["R"] * p["S"]),  # type: ignore
        tolerance_reason="each output sums C·R·S products; rounding grows ~sqrt(C·R·S) ulps",
        check=_window_fits,
    ),
    Workload(
        name="depthwise_conv2d", func_name="depthwise_conv2d",
        summary="output += per-channel conv(input NCHW, filter CRS), no padding",
        params=(*_image_params(), *_window_params(), dtype_param(EVERY), acc_param(), wdtype_param(),
                out_param()),
        build=build_depthwise_conv2d, reference=depthwise_conv2d_reference, outputs=("output",),
        tolerance=lambda p: accumulation_tolerance(p["out"] or p["acc"], p["R"] * p["S"]),  # type: ignore
        tolerance_reason="each output sums R·S products; rounding grows ~sqrt(R·S) ulps",
        check=_window_fits,
    ),
)
