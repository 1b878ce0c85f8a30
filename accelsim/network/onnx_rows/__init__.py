"""The general ONNX lowering: every op becomes one or more *rows* (`workloads.generic.Row`:
loop extents, an affine index map per operand, a scalar body, a combining op for reductions),
each one generated kernel. Elementwise ops are a scalar body over numpy-broadcast maps (one
table, `UNARY` / `NARY`), reductions a body plus `combine`, data movement copies whose maps
carry the offsets, strides, reflections and permutations; convolutions, pooling and
contractions are window / einsum maps with a multiply-add or max body.

A tensor is a flat buffer, so a row may view an operand under any shape of the same size (a
Gather's output as (outer, indices, inner)). A row that writes part of a tensor another row
wrote before reads that tensor as its output's start; an output nothing wrote starts at zero.
Booleans are 0/1 and integers their values, all in f32 (the importer refuses runtime f64 data).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from accelsim.network.model import Layer
from accelsim.network.onnx_rows.core import Ctx, Unsupported
from accelsim.network.onnx_rows.movement import (
    lower_concat,
    lower_depth_space,
    lower_expand,
    lower_gather,
    lower_pad,
    lower_resize,
    lower_slice,
    lower_split,
    lower_tile,
    lower_transpose,
)
from accelsim.network.onnx_rows.pointwise import (
    NARY,
    UNARY,
    lower_batchnorm,
    lower_cast,
    lower_instancenorm,
    lower_layernorm,
    lower_lrn,
    lower_nary,
    lower_reduce,
    lower_softmax,
    lower_unary,
)
from accelsim.network.onnx_rows.quantized import fuse_qdq, lower_dequantize, lower_qlinear, lower_quantize
from accelsim.network.onnx_rows.windows import (
    lower_conv,
    lower_conv_transpose,
    lower_einsum,
    lower_gemm,
    lower_matmul,
    lower_pool,
)

# ---- the table ---------------------------------------------------------------------------------

VIEWS = ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout")

LOWER: dict[str, tuple[str, Callable[[Ctx], None]]] = {
    **{op: ("vector", lower_unary) for op in UNARY},
    **{op: ("vector", lower_nary) for op in NARY},
    "Cast": ("vector", lower_cast),
    **{op: ("vector", lower_reduce) for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                               "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare",
                                               "ReduceLogSumExp", "ReduceLogSum")},
    "InstanceNormalization": ("vector", lower_instancenorm),
    "LayerNormalization": ("vector", lower_layernorm),
    "BatchNormalization": ("vector", lower_batchnorm),
    "LRN": ("vector", lower_lrn),
    "Transpose": ("layout", lower_transpose),
    "Concat": ("layout", lower_concat),
    "Split": ("layout", lower_split),
    "Slice": ("layout", lower_slice),
    "Gather": ("layout", lower_gather),
    "Pad": ("layout", lower_pad),
    "Expand": ("layout", lower_expand),
    "Tile": ("layout", lower_tile),
    "DepthToSpace": ("layout", lower_depth_space),
    "SpaceToDepth": ("layout", lower_depth_space),
    "Resize": ("layout", lower_resize),
    "Upsample": ("layout", lower_resize),
    "Einsum": ("matmul", lower_einsum),
    "MatMul": ("matmul", lower_matmul),
    "Gemm": ("matmul", lower_gemm),
    "Conv": ("direct", lower_conv),
    "ConvTranspose": ("direct", lower_conv_transpose),
    **{op: ("vector", lower_pool) for op in ("MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool")},
    "DequantizeLinear": ("vector", lower_dequantize),
    "QuantizeLinear": ("vector", lower_quantize),
    "QLinearMatMul": ("matmul", lower_qlinear),
    "MatMulInteger": ("matmul", lower_qlinear),
    "QLinearConv": ("direct", lower_qlinear),
    "ConvInteger": ("direct", lower_qlinear),
}


def lower_node(node: Any, shapes: dict[str, tuple[int, ...]], consts: dict[str, np.ndarray],
               add_constant: Callable[[str, np.ndarray], None], where: str, opset: int,
               used: Callable[[str], bool] = bool, elem_types: dict[str, int] | None = None) -> Layer:
    """The node's layer by the general lowering; raises Unsupported. `used(tensor)`: whether
    anything reads an output (an unused optional output is not computed)."""
    ctx = Ctx(node, shapes, consts, add_constant, used, elem_types)
    op = node.op_type
    if op in VIEWS:
        if op == "Dropout" and len(node.output) > 1 and used(node.output[1]):
            raise Unsupported("the mask output of Dropout")
        ctx.views.append((node.output[0], node.input[0]))
        return Layer(ctx.name, op, "view", (), where, views=tuple(ctx.views))
    if op in ("Softmax", "LogSoftmax"):
        lower_softmax(ctx, opset)
        kind = "vector"
    elif op in LOWER:
        kind, fn = LOWER[op]
        fn(ctx)
    else:
        raise Unsupported(f"op type {op!r} is not supported")
    if not ctx.kernels:
        return Layer(ctx.name, op, "view", (), where, views=tuple(ctx.views))
    return Layer(ctx.name, op, kind, tuple(ctx.kernels), where, macs=ctx.macs, views=tuple(ctx.views))


__all__ = ["LOWER", "VIEWS", "Unsupported", "fuse_qdq", "lower_node"]
