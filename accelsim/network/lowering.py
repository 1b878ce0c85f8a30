"""Convolution layers to kernels: direct convolution, a matrix product, or im2col + gemm.

The choice (`conv_lowering`) follows the cost model: the matrix unit costs a direct
convolution and a gemm the same per multiply-add (`accelsim.cost.kernel`: MACs over the array
size), so im2col's patch matrix is pure extra traffic (written once, read once) except where
it is free or the direct kernel cannot express the layer:

- a 1x1, stride-1, unpadded convolution of one image *is* a gemm (filter K x C times input
  C x HW, output K x HW already NCHW): `gemm`, no data moved;
- dilation > 1 (the direct kernel has none): `im2col+gemm`;
- depthwise (groups = C = K): the direct `depthwise_conv2d`;
- everything else: `direct`.

`choice="direct"` / `"im2col"` forces one for group-1 convolutions (for comparing them; a
depthwise one stays direct); padding is a `pad2d` kernel
of the same layer, before the convolution.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from accelsim.network.model import Kernel, Layer

CHOICES = ("auto", "direct", "im2col")


@dataclass(frozen=True, slots=True)
class ConvShape:
    N: int
    C: int
    H: int      # unpadded
    W: int
    K: int
    R: int
    S: int
    stride: int = 1
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)  # top, left, bottom, right
    dilation: int = 1
    groups: int = 1

    @property
    def padded(self) -> tuple[int, int]:
        t, left, b, r = self.pads
        return self.H + t + b, self.W + left + r

    @property
    def out(self) -> tuple[int, int]:
        hp, wp = self.padded
        span_r, span_s = self.dilation * (self.R - 1) + 1, self.dilation * (self.S - 1) + 1
        return (hp - span_r) // self.stride + 1, (wp - span_s) // self.stride + 1

    @property
    def depthwise(self) -> bool:
        return self.groups > 1 and self.groups == self.C == self.K

    @property
    def macs(self) -> int:
        p, q = self.out
        per_out = (self.C // self.groups) * self.R * self.S
        return self.N * self.K * p * q * per_out


@dataclass(frozen=True, slots=True)
class ConvTensors:
    """Network tensor names of a functional conv: input, output, filter (K, C/groups, R, S) and
    the bias (K,) or None. `add_constant(name, array)` stores what the lowering derives."""

    x: str
    y: str
    w: str
    bias: str | None
    add_constant: Callable[[str, np.ndarray], None]
    constant: Callable[[str], np.ndarray]


def conv_lowering(s: ConvShape, choice: str = "auto") -> str:
    """`direct`, `gemm` or `im2col+gemm` (see the module doc); raises ValueError with the
    reason when the layer has no lowering."""
    if choice not in CHOICES:
        raise ValueError(f"conv lowering {choice!r}: expected one of {', '.join(CHOICES)}")
    if s.groups != 1 and not s.depthwise:
        raise ValueError(f"groups={s.groups} with C={s.C}, K={s.K}: only groups=1 and depthwise "
                         "(groups = C = K) convolutions are supported")
    if s.depthwise:
        if s.dilation != 1:
            raise ValueError("a dilated depthwise convolution is not supported")
        return "direct"  # im2col + gemm is for group-1 convolutions; `im2col` leaves these direct
    if s.dilation > 1 or choice == "im2col":
        if s.N != 1:
            raise ValueError(f"im2col+gemm lowers one image at a time (N={s.N}); "
                             + ("dilation needs it" if s.dilation > 1 else "use the direct form"))
        return "im2col+gemm"
    if choice == "auto" and s.R == s.S == 1 and s.stride == 1 and s.pads == (0, 0, 0, 0) and s.N == 1:
        return "gemm"
    return "direct"


def conv_layer(name: str, where: str, s: ConvShape, choice: str = "auto",
               io: ConvTensors | None = None, op: str = "conv") -> Layer:
    """The layer's kernels for the chosen lowering (with data bindings when `io` is given)."""
    lowering = conv_lowering(s, choice)
    P, Q = s.out
    HP, WP = s.padded
    kernels: list[Kernel] = []
    x = io.x if io else ""
    if s.pads != (0, 0, 0, 0):
        t, left, b, r = s.pads
        padded = f"{name}.padded"
        kernels.append(Kernel(f"pad2d:N={s.N},C={s.C},H={s.H},W={s.W},top={t},left={left},"
                              f"bottom={b},right={r}",
                              _bind(io, ("input", x)), _bind(io, ("output", padded))))
        x = padded
    if lowering == "gemm":
        kernels.append(Kernel(f"gemm:M={s.K},N={HP * WP},K={s.C}",
                              *_gemm_io(io, name, x, s.K, P * Q, s.C)))
    elif lowering == "im2col+gemm":
        crs = s.C * s.R * s.S
        cols = f"{name}.cols"
        kernels.append(Kernel(f"im2col:C={s.C},H={HP},W={WP},R={s.R},S={s.S},stride={s.stride},"
                              f"dilation={s.dilation}", _bind(io, ("input", x)), _bind(io, ("cols", cols))))
        kernels.append(Kernel(f"gemm:M={s.K},N={P * Q},K={crs}", *_gemm_io(io, name, cols, s.K, P * Q, crs)))
    elif s.depthwise:
        kernels.append(Kernel(f"depthwise_conv2d:N={s.N},C={s.C},H={HP},W={WP},R={s.R},S={s.S},"
                              f"stride={s.stride}", *_direct_io(io, name, x, s, (s.C, s.R, s.S))))
    else:
        kernels.append(Kernel(f"conv2d:N={s.N},C={s.C},H={HP},W={WP},K={s.K},R={s.R},S={s.S},"
                              f"stride={s.stride}", *_direct_io(io, name, x, s, (s.K, s.C, s.R, s.S))))
    return Layer(name, op, lowering, tuple(kernels), where, macs=s.macs)


def _bind(io: ConvTensors | None, *pairs: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    return pairs if io is not None else ()


def _bias_init(io: ConvTensors, name: str, shape: tuple[int, ...], channel_axis: int) -> str | None:
    """The accumulator's starting value: the bias broadcast over the output (None: zeros)."""
    if io.bias is None:
        return None
    bias = io.constant(io.bias)
    view = [1] * len(shape)
    view[channel_axis] = bias.size
    init = f"{name}.bias_init"
    io.add_constant(init, np.broadcast_to(bias.reshape(view), shape).copy())
    return init


def _gemm_io(io: ConvTensors | None, name: str, b_tensor: str, M: int, N: int,
             K: int) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """C[K_out, PQ] (+)= W[K_out, CRS] · B[CRS, PQ]; the filter is a constant, viewed K x CRS."""
    if io is None:
        return (), ()
    reads = [("A", io.w), ("B", b_tensor)]
    init = _bias_init(io, name, (M, N), 0)
    if init is not None:
        reads.append(("C", init))
    return tuple(reads), (("C", io.y),)


Bindings = tuple[tuple[str, str], ...]


def _direct_io(io: ConvTensors | None, name: str, x: str, s: ConvShape,
               filter_shape: tuple[int, ...]) -> tuple[Bindings, Bindings]:
    if io is None:
        return (), ()
    P, Q = s.out
    filt = f"{name}.filter"
    io.add_constant(filt, io.constant(io.w).reshape(filter_shape))
    reads = [("input", x), ("filter", filt)]
    init = _bias_init(io, name, (s.N, s.K, P, Q), 1)
    if init is not None:
        reads.append(("output", init))
    return tuple(reads), (("output", io.y),)
