"""Small ONNX models built with onnx.helper for the network tests (random weights, seeded)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 20


def _w(rng: np.random.Generator, name: str, *shape: int) -> onnx.TensorProto:
    return numpy_helper.from_array(rng.uniform(-1, 1, size=shape).astype(np.float32), name)


def _model(nodes: list, inputs: list, outputs: list, inits: list, name: str) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    return model


def _vi(name: str, *shape: int) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def convnet(seed: int = 0) -> onnx.ModelProto:
    """Conv(pad 1) + BatchNorm + Relu, depthwise Conv (stride 2), 1x1 Conv, MaxPool (pad),
    a dilated Conv, residual Add, GlobalAveragePool, Flatten, Gemm (transB, bias)."""
    rng = np.random.default_rng(seed)
    c = 4
    inits = [
        _w(rng, "w1", 8, c, 3, 3), _w(rng, "b1", 8),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bn_s"),
        _w(rng, "bn_b", 8), _w(rng, "bn_m", 8),
        numpy_helper.from_array(rng.uniform(0.5, 2.0, 8).astype(np.float32), "bn_v"),
        _w(rng, "wdw", 8, 1, 3, 3), _w(rng, "w1x1", 8, 8, 1, 1), _w(rng, "wdil", 8, 8, 3, 3),
        _w(rng, "fc_w", 10, 8), _w(rng, "fc_b", 10),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn_s", "bn_b", "bn_m", "bn_v"], ["bn1"], name="bn1",
                         epsilon=1e-5),
        helper.make_node("Relu", ["bn1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "wdw"], ["dw"], name="dw", group=8, strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["dw", "w1x1"], ["pw"], name="pw"),
        helper.make_node("MaxPool", ["pw"], ["mp"], name="pool", kernel_shape=[3, 3], strides=[1, 1],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["mp", "wdil"], ["dil"], name="dilated", dilations=[2, 2],
                         pads=[2, 2, 2, 2]),
        helper.make_node("Add", ["dil", "pw"], ["res"], name="residual"),
        helper.make_node("GlobalAveragePool", ["res"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], name="fc", transB=1),
    ]
    return _model(nodes, [_vi("x", 1, c, 9, 9)], [_vi("y", 1, 10)], inits, "convnet")


def attention(seed: int = 0, seq: int = 6, hidden: int = 8, heads: int = 2) -> onnx.ModelProto:
    """LayerNorm, MatMul with a weight, Reshape + Transpose into heads, batched MatMul,
    Mul by a constant, Softmax, batched MatMul, Transpose back, Sigmoid, Gelu."""
    rng = np.random.default_rng(seed)
    d = hidden // heads
    inits = [
        _w(rng, "ln_s", hidden), _w(rng, "ln_b", hidden), _w(rng, "wq", hidden, hidden),
        _w(rng, "wk", hidden, hidden), _w(rng, "wv", hidden, hidden),
        numpy_helper.from_array(np.array([1, seq, heads, d], dtype=np.int64), "heads_shape"),
        numpy_helper.from_array(np.array([1, seq, hidden], dtype=np.int64), "merged_shape"),
        numpy_helper.from_array(np.array(1.0 / np.sqrt(d), dtype=np.float32), "scale"),
    ]
    nodes = [helper.make_node("LayerNormalization", ["x", "ln_s", "ln_b"], ["ln"], name="ln", axis=-1)]
    for t in "qkv":
        nodes += [helper.make_node("MatMul", ["ln", f"w{t}"], [f"{t}0"], name=f"proj_{t}"),
                  helper.make_node("Reshape", [f"{t}0", "heads_shape"], [f"{t}1"], name=f"split_{t}")]
    nodes += [
        helper.make_node("Transpose", ["q1"], ["q"], name="q_heads", perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["k1"], ["kt"], name="k_heads_t", perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["v1"], ["v"], name="v_heads", perm=[0, 2, 1, 3]),
        helper.make_node("MatMul", ["q", "kt"], ["s0"], name="scores"),
        helper.make_node("Mul", ["s0", "scale"], ["s1"], name="scale"),
        helper.make_node("Softmax", ["s1"], ["p"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["ctx"], name="context"),
        helper.make_node("Transpose", ["ctx"], ["ctx_t"], name="merge", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ctx_t", "merged_shape"], ["m"], name="merge_reshape"),
        helper.make_node("Sigmoid", ["m"], ["sg"], name="sigmoid"),
        helper.make_node("Gelu", ["sg"], ["y"], name="gelu", approximate="tanh"),
    ]
    return _model(nodes, [_vi("x", 1, seq, hidden)], [_vi("y", 1, seq, hidden)], inits, "attention")


def unsupported_op() -> onnx.ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="ok"),
             helper.make_node("Hardmax", ["r"], ["y"], name="the_hardmax")]
    return _model(nodes, [_vi("x", 1, 4)], [_vi("y", 1, 4)], [], "hardmax")


def save(model: onnx.ModelProto, path: Path) -> Path:
    onnx.save(model, str(path))
    return path
