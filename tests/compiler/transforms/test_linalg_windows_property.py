"""Windowed linalg ops (convolutions, depthwise, pooling) over random shapes, strides and
dilations: the lowered loops on the host equal a numpy reference computed from the op's
definition (the sum / max over the window of `I[n, oh * s + kh * d, ...]`)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.backend import run_host
from compiler.ir.verifier import verify
from compiler.text import parse_module
from compiler.transforms.registry import PassManager

KINDS = ["conv_2d_nhwc_hwcf", "conv_2d_nchw_fchw", "depthwise_conv_2d_nhwc_hwc",
         "pooling_nhwc_sum", "pooling_nhwc_max", "pooling_nchw_max"]


def _t(shape: tuple[int, ...]) -> str:
    return f"memref<{'x'.join(map(str, shape))}xf64>"


def _window(x: np.ndarray, r: int, c: int, oh: int, ow: int, s: tuple[int, int], d: tuple[int, int],
            nchw: bool) -> np.ndarray:
    rows = slice(r * d[0], r * d[0] + s[0] * (oh - 1) + 1, s[0])
    cols = slice(c * d[1], c * d[1] + s[1] * (ow - 1) + 1, s[1])
    return x[:, :, rows, cols] if nchw else x[:, rows, cols, :]


def reference(kind: str, img: np.ndarray, ker: np.ndarray, out: np.ndarray, s: tuple[int, int],
              d: tuple[int, int]) -> np.ndarray:
    nchw = "nchw" in kind
    oh, ow = (out.shape[2], out.shape[3]) if nchw else (out.shape[1], out.shape[2])
    kh, kw = (ker.shape[2], ker.shape[3]) if kind == "conv_2d_nchw_fchw" else ker.shape[:2]
    acc = out.copy()
    for r in range(kh):
        for c in range(kw):
            win = _window(img, r, c, oh, ow, s, d, nchw)
            if kind == "conv_2d_nhwc_hwcf":
                acc = acc + np.einsum("nhwc,cf->nhwf", win, ker[r, c])
            elif kind == "conv_2d_nchw_fchw":
                acc = acc + np.einsum("nchw,fc->nfhw", win, ker[:, :, r, c])
            elif kind == "depthwise_conv_2d_nhwc_hwc":
                acc = acc + win * ker[r, c]
            elif kind.endswith("sum"):
                acc = acc + win
            else:
                acc = np.maximum(acc, win)
    return acc


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(1, 2), ch=st.integers(1, 3), f=st.integers(1, 3),
       oh=st.integers(1, 4), ow=st.integers(1, 4), kh=st.integers(1, 3), kw=st.integers(1, 3),
       s=st.tuples(st.integers(1, 3), st.integers(1, 3)), d=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       seed=st.integers(0, 2**16))
def test_windowed_op_equals_its_definition(kind: str, n: int, ch: int, f: int, oh: int, ow: int,
                                           kh: int, kw: int, s: tuple[int, int], d: tuple[int, int],
                                           seed: int) -> None:
    ih, iw = (oh - 1) * s[0] + (kh - 1) * d[0] + 1, (ow - 1) * s[1] + (kw - 1) * d[1] + 1
    nchw = "nchw" in kind
    img_s = (n, ch, ih, iw) if nchw else (n, ih, iw, ch)
    ker_s = {"conv_2d_nhwc_hwcf": (kh, kw, ch, f), "conv_2d_nchw_fchw": (f, ch, kh, kw),
             "depthwise_conv_2d_nhwc_hwc": (kh, kw, ch)}.get(kind, (kh, kw))
    oc = f if kind.startswith("conv") else ch
    out_s = (n, oc, oh, ow) if nchw else (n, oh, ow, oc)
    attrs = (f"{{dilations = dense<[{d[0]}, {d[1]}]> : tensor<2xi64>, "
             f"strides = dense<[{s[0]}, {s[1]}]> : tensor<2xi64>}}")
    text = (f"func.func @main(%I: {_t(img_s)}, %K: {_t(ker_s)}, %O: {_t(out_s)}) {{\n"
            f"  linalg.{kind} {attrs} ins(%I, %K : {_t(img_s)}, {_t(ker_s)}) outs(%O : {_t(out_s)})\n"
            f"  return\n}}\n")
    m = parse_module(text)
    verify(m)
    PassManager.from_flags(["--convert-linalg-to-affine-loops"]).run(m)
    rng = np.random.default_rng(seed)
    x = {"I": rng.uniform(-1, 1, img_s), "K": rng.uniform(-1, 1, ker_s), "O": rng.uniform(-1, 1, out_s)}
    got = run_host(m, x, "main", bounds_check=True)["O"]
    np.testing.assert_allclose(got, reference(kind, x["I"], x["K"], x["O"], s, d), rtol=1e-12, atol=1e-12)
