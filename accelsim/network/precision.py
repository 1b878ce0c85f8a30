"""A network at another precision (`accelsim run NETWORK --dtype int8|bf16|fp8|f16|f32`).

Weights and activations in that precision, accumulation wider, requantization between layers
counted as lane work:

- every kernel whose workload takes the precision (`dtype=`) runs at it; the matmul family
  (gemm, batched_gemm, conv2d, depthwise_conv2d) accumulates in the wider type its `acc=`
  defaults to (i32 for integers, f32 for floats), in the PEs (iter_args from zero: the
  accumulator never goes to memory), and requantizes each output to the activations'
  precision in the same kernel (`out=`: integers shift, clamp and narrow, four lane ops an
  output; floats one rounding), as an int8 accelerator's output path does (Gemmini's
  scaled `mvout`);
- `--dtype f32` is the network as written (`output += ...`, the convention of the zoo and of
  SCALE-Sim). Not the in-PE form: `affine-loop-tile` does not tile loops carrying iter_args,
  so an in-PE sum keeps each output's whole reduction in one tile, which at 4 B an element
  does not fit the default 256 KiB SRAM well (ResNet-18 at f32 in that form: 7.5x the
  cycles, 13x the DRAM bytes of the network as written); at 1-2 B it does (docs/precision.md);
- a kernel whose workload does not take the precision (softmax, layernorm, gelu, ... in an
  int8 network) stays at f32, as integer accelerators run those layers in floating point;
  it is named in `skipped` (`with_precision` returns them) and the report says so.

Only layer-shape networks (zoo, SCALE-Sim topology, layer lists): an ONNX model carries its
own element types.
"""

from __future__ import annotations

import dataclasses

from accelsim.network.model import Kernel, Layer, Network
from workloads.model import DTYPES
from workloads.registry import lookup
from workloads.spec import parse_spec

# the names `--dtype` takes (MLIR's and the usual ones)
NAMES: dict[str, str] = {"int8": "i8", "int4": "i4", "int16": "i16", "bf16": "bf16",
                         "fp8": "f8E4M3FN", "fp8e5m2": "f8E5M2", "f16": "f16", "fp16": "f16",
                         "f32": "f32", "fp32": "f32"}
MATMUL_FAMILY = ("gemm", "batched_gemm", "conv2d", "depthwise_conv2d")


def dtype_name(text: str) -> str:
    """MLIR's name of a `--dtype` value; a ValueError naming the choices otherwise."""
    name = NAMES.get(text.lower()) if isinstance(text, str) else None
    if name is None and isinstance(text, str) and text in DTYPES:
        name = text
    if name is None:
        raise ValueError(f"--dtype {text!r}: expected one of int8, int4, int16, bf16, fp8, "
                         "fp8e5m2, f16, f32")
    return name


def with_precision(network: Network, dtype: str) -> tuple[Network, list[str]]:
    """`network` at `dtype` (MLIR's name or a `--dtype` value) and the workloads left at f32
    (they do not take the precision)."""
    dt = dtype_name(dtype)
    if dt == "f32":
        return network, []
    if network.functional:
        raise ValueError(f"--dtype: {network.source} is an ONNX model, which carries its own "
                         "element types; --dtype is for zoo, topology and layer-list networks")
    skipped: list[str] = []
    layers = tuple(_layer(layer, dt, skipped) for layer in network.layers)
    return dataclasses.replace(network, layers=layers,
                               name=f"{network.name}@{dt}"), list(dict.fromkeys(skipped))


def _layer(layer: Layer, dt: str, skipped: list[str]) -> Layer:
    kernels: list[Kernel] = []
    for k in layer.kernels:
        name, values = parse_spec(k.workload)
        w = lookup(name)
        if values.get("dtype", "f32") != "f32":  # the layer names a precision of its own
            kernels.append(k)
            continue
        if dt not in w.param("dtype").choices:
            skipped.append(name)
            kernels.append(k)
            continue
        values = {key: v for key, v in values.items() if key != "dtype"}
        extra = {"out": dt} if name in MATMUL_FAMILY else {}
        kernels.append(dataclasses.replace(k, workload=_with(name, **values, dtype=dt, **extra)))
    return dataclasses.replace(layer, kernels=tuple(kernels))


def _with(name: str, **values: str) -> str:
    return name + ":" + ",".join(f"{k}={v}" for k, v in values.items())


__all__ = ["MATMUL_FAMILY", "NAMES", "dtype_name", "with_precision"]
