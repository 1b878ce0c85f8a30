"""One lowering per ONNX op type: node -> Layer (kernels bound to the graph's tensor names).

Conv (group 1 or depthwise, strides, pads, dilations; `accelsim.network.lowering` chooses the
kernels), Gemm (transA/transB, alpha, beta, bias), MatMul (2-D weights or batched), Relu,
Sigmoid, Gelu (tanh form), Add and Mul (equal shapes, or a constant broadcast at import),
MaxPool/AveragePool/GlobalAveragePool, Softmax and LayerNormalization over the last axis,
Transpose (rank <= 4, the `permute` kernel), and the views Reshape, Flatten, Squeeze,
Unsqueeze, Identity (no kernel: the same bytes under another shape).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from accelsim.network.lowering import ConvShape, ConvTensors, conv_layer
from accelsim.network.model import Kernel, Layer, NetworkError
from accelsim.network.onnx_graph import Graph, node_name

Node = Any
Lowering = Callable[[Node, Graph, str, str], Layer]


def _attrs(node: Node) -> dict[str, Any]:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _name(node: Node) -> str:
    return node_name(node)


def _size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def _same(values: Any, what: str, node: Node, graph: Graph) -> int:
    vals = list(values)
    if len(set(vals)) != 1:
        raise graph.error(node, f"{what} {vals}: only equal values in both directions are supported")
    return int(vals[0])


# ---------------------------------------------------------------------------------------------
# convolution

def fold_batchnorm(nodes: list[Node], graph: Graph) -> list[Node]:
    """BatchNormalization right after a Conv (whose output nothing else reads; constant
    weights) is folded into the Conv's filter and bias (others are left for the general
    lowering): w' = w·scale, b' = (b - mean)·scale + bias with
    scale = gamma/sqrt(var + eps)."""
    from onnx import helper

    producer = {out: n for n in nodes for out in n.output}
    out: list[Node] = []
    for node in nodes:
        if node.op_type != "BatchNormalization":
            out.append(node)
            continue
        conv = producer.get(node.input[0])
        if conv is None or conv.op_type != "Conv" or graph.uses.get(node.input[0], 0) != 1 \
                or not all(graph.is_constant(n) for n in node.input[1:5]) \
                or not graph.is_constant(conv.input[1]) or any(o for o in node.output[1:]) \
                or (len(conv.input) > 2 and conv.input[2] and not graph.is_constant(conv.input[2])):
            out.append(node)  # standalone: the general lowering (onnx_rows)
            continue
        eps = float(_attrs(node).get("epsilon", 1e-5))
        gamma, beta, mean, var = (graph.constant(n).astype(np.float64) for n in node.input[1:5])
        w = graph.constant(conv.input[1]).astype(np.float64)
        b = graph.constant(conv.input[2]).astype(np.float64) if len(conv.input) > 2 and conv.input[2] \
            else np.zeros(w.shape[0])
        scale = gamma / np.sqrt(var + eps)
        wname, bname = f"{_name(conv)}.bn_weight", f"{_name(conv)}.bn_bias"
        graph.add_constant(wname, w * scale.reshape(-1, *([1] * (w.ndim - 1))))
        graph.add_constant(bname, (b - mean) * scale + beta)
        folded = helper.make_node("Conv", [conv.input[0], wname, bname], [node.output[0]],
                                  name=f"{_name(conv)}+{_name(node)}", **_attrs(conv))
        graph.shapes[node.output[0]] = graph.shape(node.output[0], node)
        idx = next(i for i, n in enumerate(out) if n is conv)
        out[idx] = folded
    return out


def lower_conv(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    a = _attrs(node)
    x, w = node.input[0], node.input[1]
    bias = node.input[2] if len(node.input) > 2 and node.input[2] else None
    if not graph.is_constant(w) or (bias is not None and not graph.is_constant(bias)):
        raise graph.error(node, "the filter and bias must be constants (initializers)")
    xs, ws = graph.shape(x, node), graph.shape(w, node)
    if len(xs) != 4:
        raise graph.error(node, f"input of rank {len(xs)}: only 2-D convolutions (NCHW) are supported")
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise graph.error(node, "auto_pad is not supported: give explicit pads")
    N, C, H, W = xs
    K, _, R, S = ws
    stride = _same(a.get("strides", [1, 1]), "strides", node, graph)
    dilation = _same(a.get("dilations", [1, 1]), "dilations", node, graph)
    pads = list(a.get("pads", [0, 0, 0, 0]))
    shape = ConvShape(N, C, H, W, K, R, S, stride, (pads[0], pads[1], pads[2], pads[3]), dilation,
                      int(a.get("group", 1)))
    io = ConvTensors(x, node.output[0], w, bias, graph.add_constant, graph.constant)
    try:
        layer = conv_layer(_name(node), where, shape, choice, io, op="Conv")
    except ValueError as exc:
        raise graph.error(node, str(exc)) from None
    want = graph.shape(node.output[0], node)
    if want != (N, K, *shape.out):
        raise graph.error(node, f"output shape {want} differs from the lowering's {(N, K, *shape.out)}")
    return layer


# ---------------------------------------------------------------------------------------------
# matrix products

def _transposed(name: str, graph: Graph, node: Node, rows: int, cols: int,
                kernels: list[Kernel]) -> str:
    """`name` (rows x cols) transposed: folded if a constant, else a permute kernel."""
    out = f"{name}.T@{_name(node)}"
    if graph.is_constant(name):
        graph.add_constant(out, graph.constant(name).reshape(rows, cols).T)
    else:
        kernels.append(Kernel(f"permute:d0=1,d1=1,d2={rows},d3={cols},p0=0,p1=1,p2=3,p3=2",
                              (("input", name),), (("output", out),)))
    return out


def lower_gemm(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    a = _attrs(node)
    A, B = node.input[0], node.input[1]
    C = node.input[2] if len(node.input) > 2 and node.input[2] else None
    (ar, ac), (br, bc) = graph.shape(A, node), graph.shape(B, node)
    kernels: list[Kernel] = []
    if a.get("transA", 0):
        A, (ar, ac) = _transposed(A, graph, node, ar, ac, kernels), (ac, ar)
    if a.get("transB", 0):
        B, (br, bc) = _transposed(B, graph, node, br, bc, kernels), (bc, br)
    M, K, N = ar, ac, bc
    alpha, beta = float(a.get("alpha", 1.0)), float(a.get("beta", 1.0))
    if alpha != 1.0:
        if not graph.is_constant(B):
            raise graph.error(node, "alpha != 1 needs a constant B (it is folded into B)")
        graph.add_constant(f"{B}*alpha", graph.constant(B) * alpha)
        B = f"{B}*alpha"
    reads = [("A", A), ("B", B)]
    if C is not None and beta != 0.0:
        if not graph.is_constant(C):
            raise graph.error(node, "the bias C must be a constant (it starts the accumulator)")
        init = f"{_name(node)}.bias_init"
        graph.add_constant(init, np.broadcast_to(graph.constant(C) * beta, (M, N)))
        reads.append(("C", init))
    kernels.append(Kernel(f"gemm:M={M},N={N},K={K}", tuple(reads), (("C", node.output[0]),)))
    return Layer(_name(node), "Gemm", "matmul", tuple(kernels), where, macs=M * N * K)


def lower_matmul(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    A, B = node.input
    sa, sb = graph.shape(A, node), graph.shape(B, node)
    if len(sa) < 2 or len(sb) < 2:
        raise graph.error(node, "1-D operands are not supported (reshape them to matrices)")
    M, K = sa[-2:]
    N = sb[-1]
    if len(sb) == 2:  # rows of every batch of A against one matrix
        rows = _size(sa[:-1])
        kernel = Kernel(f"gemm:M={rows},N={N},K={K}", (("A", A), ("B", B)), (("C", node.output[0]),))
        return Layer(_name(node), "MatMul", "matmul", (kernel,), where, macs=rows * N * K)
    if sa[:-2] != sb[:-2]:
        raise graph.error(node, f"batch dimensions {sa[:-2]} and {sb[:-2]} differ: broadcasting "
                                "batched MatMul is not supported")
    batch = _size(sa[:-2])
    kernel = Kernel(f"batched_gemm:batch={batch},M={M},N={N},K={K}", (("A", A), ("B", B)),
                    (("C", node.output[0]),))
    return Layer(_name(node), "MatMul", "matmul", (kernel,), where, macs=batch * M * N * K)


# ---------------------------------------------------------------------------------------------
# elementwise

_UNARY = {"Relu": "relu", "Sigmoid": "sigmoid"}


def lower_unary(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    kind = _UNARY.get(node.op_type)
    if node.op_type == "Gelu":
        if _attrs(node).get("approximate", b"none") not in (b"tanh", "tanh"):
            raise graph.error(node, "only approximate=\"tanh\" is supported (the erf form is not)")
        kind = "gelu"
    n = _size(graph.shape(node.input[0], node))
    kernel = Kernel(f"{kind}:N={n}", (("x", node.input[0]),), (("y", node.output[0]),))
    return Layer(_name(node), node.op_type, "vector", (kernel,), where)


def lower_binary(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    out_shape = graph.shape(node.output[0], node)
    operands = []
    for i, name in enumerate(node.input):
        if graph.shape(name, node) != out_shape:
            if not graph.is_constant(name):
                raise graph.error(node, f"operand {name!r} of shape {graph.shape(name, node)} is "
                                        f"broadcast to {out_shape}: only a constant operand can be")
            wide = f"{name}@{_name(node)}.{i}"
            graph.add_constant(wide, np.broadcast_to(graph.constant(name), out_shape))
            name = wide
        operands.append(name)
    kind = "vector_add" if node.op_type == "Add" else "vector_mul"
    kernel = Kernel(f"{kind}:N={_size(out_shape)}", (("x", operands[0]), ("y", operands[1])),
                    (("z", node.output[0]),))
    return Layer(_name(node), node.op_type, "vector", (kernel,), where)


# ---------------------------------------------------------------------------------------------
# pooling, softmax, norms

def lower_pool(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    a = _attrs(node)
    N, C, H, W = graph.shape(node.input[0], node)
    if node.op_type == "GlobalAveragePool":
        R, S, stride, pads = H, W, 1, [0, 0, 0, 0]
    else:
        if a.get("ceil_mode", 0) or any(d != 1 for d in a.get("dilations", [1, 1])):
            raise graph.error(node, "ceil_mode and dilations are not supported")
        R, S = a["kernel_shape"]
        stride = _same(a.get("strides", [1, 1]), "strides", node, graph)
        pads = list(a.get("pads", [0, 0, 0, 0]))
        if node.op_type == "AveragePool" and any(pads) and not a.get("count_include_pad", 0):
            raise graph.error(node, "a padded AveragePool needs count_include_pad=1 (the divisor "
                                    "is then R·S everywhere)")
    kernels: list[Kernel] = []
    x = node.input[0]
    if any(pads):
        value = "-3.4028234663852886e+38" if node.op_type == "MaxPool" else "0"  # f32 lowest
        padded = f"{_name(node)}.padded"
        kernels.append(Kernel(f"pad2d:N={N},C={C},H={H},W={W},top={pads[0]},left={pads[1]},"
                              f"bottom={pads[2]},right={pads[3]},value={value}",
                              (("input", x),), (("output", padded),)))
        x, H, W = padded, H + pads[0] + pads[2], W + pads[1] + pads[3]
    kind = "maxpool2d" if node.op_type == "MaxPool" else "avgpool2d"
    kernels.append(Kernel(f"{kind}:N={N},C={C},H={H},W={W},R={R},S={S},stride={stride}",
                          (("input", x),), (("output", node.output[0]),)))
    return Layer(_name(node), node.op_type, "vector", tuple(kernels), where)


def _last_axis(node: Node, graph: Graph, axis: int) -> tuple[int, int]:
    shape = graph.shape(node.input[0], node)
    if axis not in (-1, len(shape) - 1):
        raise graph.error(node, f"axis {axis}: only the last axis is supported")
    return _size(shape[:-1]), shape[-1]


def lower_softmax(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    M, N = _last_axis(node, graph, int(_attrs(node).get("axis", -1)))
    kernel = Kernel(f"softmax:M={M},N={N}", (("X", node.input[0]),), (("Y", node.output[0]),))
    return Layer(_name(node), "Softmax", "vector", (kernel,), where)


def lower_layernorm(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    a = _attrs(node)
    M, N = _last_axis(node, graph, int(a.get("axis", -1)))
    scale = node.input[1]
    bias = node.input[2] if len(node.input) > 2 and node.input[2] else None
    if not graph.is_constant(scale) or (bias is not None and not graph.is_constant(bias)):
        raise graph.error(node, "scale and bias must be constants")
    if bias is None:
        bias = f"{_name(node)}.zero_bias"
        graph.add_constant(bias, np.zeros(N))
    eps = float(a.get("epsilon", 1e-5))
    writes = [("Y", node.output[0])]
    for arg, name in zip(("mean", "rstd"), node.output[1:]):  # the optional Mean, InvStdDev
        if name:
            writes.append((arg, name))
    kernel = Kernel(f"layernorm:M={M},N={N},eps={eps!r}",
                    (("X", node.input[0]), ("gamma", scale), ("beta", bias)), tuple(writes))
    return Layer(_name(node), "LayerNormalization", "vector", (kernel,), where)


# ---------------------------------------------------------------------------------------------
# layout

def lower_transpose(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    shape = graph.shape(node.input[0], node)
    rank = len(shape)
    perm = list(_attrs(node).get("perm", range(rank - 1, -1, -1)))
    if rank > 4:
        raise graph.error(node, f"rank {rank}: Transpose of rank <= 4 is supported")
    lead = 4 - rank
    dims = (1,) * lead + tuple(shape)
    full = list(range(lead)) + [p + lead for p in perm]
    spec = "permute:" + ",".join([f"d{i}={d}" for i, d in enumerate(dims)]
                                 + [f"p{i}={p}" for i, p in enumerate(full)])
    kernel = Kernel(spec, (("input", node.input[0]),), (("output", node.output[0]),))
    return Layer(_name(node), "Transpose", "layout", (kernel,), where)


def lower_view(node: Node, graph: Graph, where: str, choice: str) -> Layer:
    src, dst = node.input[0], node.output[0]
    if _size(graph.shape(src, node)) != _size(graph.shape(dst, node)):
        raise graph.error(node, "a view must keep the number of elements")
    return Layer(_name(node), node.op_type, "view", (), where, views=((dst, src),))


LOWER: dict[str, Lowering] = {
    "Conv": lower_conv, "Gemm": lower_gemm, "MatMul": lower_matmul,
    "Relu": lower_unary, "Sigmoid": lower_unary, "Gelu": lower_unary,
    "Add": lower_binary, "Mul": lower_binary,
    "MaxPool": lower_pool, "AveragePool": lower_pool, "GlobalAveragePool": lower_pool,
    "Softmax": lower_softmax, "LayerNormalization": lower_layernorm,
    "Transpose": lower_transpose,
    "Reshape": lower_view, "Flatten": lower_view, "Squeeze": lower_view, "Unsqueeze": lower_view,
    "Identity": lower_view,
}


def unsupported(node: Node, graph: Graph) -> NetworkError:
    return graph.error(node, f"op type {node.op_type!r} is not supported; supported: "
                             f"{', '.join(sorted(LOWER))}, BatchNormalization (after a Conv), Constant")
