"""What a network is once read: an ordered list of layers, each one or more kernels.

A `Kernel` is one workload spec (`conv2d:N=1,C=64,...`) with, for functional runs, which
network tensor feeds each of its arguments and which tensor each written argument becomes.
A `Layer` is what the source called one layer (a topology row, an ONNX node, a zoo line) and
how it was lowered: `direct` convolution, `im2col+gemm`, `gemm` (a 1x1 convolution read as a
matrix product: no data moves), `vector`, `layout`, or `view` (a reshape: no kernel at all);
`fused`: a row of the fused schedule, layers run as one program (`accelsim.network.fused`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from compiler.diagnostics import DiagnosticError, Location

LOWERINGS = ("direct", "im2col+gemm", "gemm", "matmul", "vector", "layout", "view", "fused")


class NetworkError(DiagnosticError):
    """A network description that cannot be read or lowered: names the file, line, column
    (or the ONNX node) and the value. An ONNX model has no lines: `model.onnx: error: ...`."""

    def __str__(self) -> str:
        if self.loc.line > 0:
            return super().__str__()
        return f"{self.loc.file}: error: {self.message}"

    def render(self) -> str:
        return super().render() if self.loc.line > 0 else str(self)


@dataclass(frozen=True, slots=True)
class Kernel:
    """One workload run. `reads`: argument -> tensor whose values it starts with; `writes`:
    argument -> tensor it produces (an output argument not read starts at zero)."""

    workload: str
    reads: tuple[tuple[str, str], ...] = ()
    writes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Layer:
    name: str
    op: str                        # as the source names it: conv, gemm, Relu, MatMul, ...
    lowering: str                  # one of LOWERINGS
    kernels: tuple[Kernel, ...]
    where: str                     # "file:line" or "model.onnx: node 'name'"
    macs: int = 0
    views: tuple[tuple[str, str], ...] = ()  # (new tensor, old tensor): free reshapes after the kernels

    def __post_init__(self) -> None:
        if self.lowering not in LOWERINGS:
            raise ValueError(f"layer {self.name}: lowering {self.lowering!r} not in {LOWERINGS}")


@dataclass(frozen=True)
class Network:
    """`constants` (ONNX initializers after folding), `inputs` (name -> shape) and `outputs`
    (name -> shape) are what a functional run needs; a topology has none of them."""

    name: str
    source: str
    layers: tuple[Layer, ...]
    inputs: dict[str, tuple[int, ...]] = field(default_factory=dict)
    outputs: dict[str, tuple[int, ...]] = field(default_factory=dict)
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    # numpy dtype names of inputs and outputs that are not float32 (uint8 data is held as the
    # same bits in int8 by the kernels)
    input_dtypes: dict[str, str] = field(default_factory=dict)

    @property
    def functional(self) -> bool:
        """Whether the layers say where their data comes from (ONNX), so values can flow."""
        return bool(self.outputs)

    def distinct_workloads(self) -> list[str]:
        """Every workload spec once, in first-use order: what is compiled and simulated."""
        return list(dict.fromkeys(k.workload for layer in self.layers for k in layer.kernels))


def error_at(message: str, file: str, line: int, col: int, text: str | None = None) -> NetworkError:
    return NetworkError(message, Location(file, line, col), text)
