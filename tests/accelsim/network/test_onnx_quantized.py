"""Quantized ONNX models (int8 data, int32 accumulation) built with onnx.helper, on the
simulator against onnx.reference.ReferenceEvaluator: a QDQ conv (per-channel weight scales,
int32 bias) -> relu fused into one integer kernel, QLinearMatMul, MatMulInteger, ConvInteger."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import workloads
from accelsim.network.functional import run_functional
from accelsim.network.model import NetworkError
from accelsim.network.onnx_import import import_model


def _t(name: str, value: object, dtype: object) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def _model(nodes: list, inputs: list, outputs: list, inits: list) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "q", inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 9
    onnx.checker.check_model(m)
    return m


def qdq_cnn(seed: int = 0) -> onnx.ModelProto:
    """x -> Q -> DQ -> Conv(DQ(w int8, per-channel), DQ(b int32)) -> Relu -> Q -> Reshape ->
    QLinearMatMul -> DQ -> y."""
    rng = np.random.default_rng(seed)
    K, C = 4, 2
    sw = rng.uniform(0.01, 0.03, K).astype(np.float32)
    sx, sy, s2, sz = 0.05, 0.1, 0.02, 0.2
    inits = [
        _t("sx", sx, np.float32), _t("zx", 3, np.int8),
        _t("w", rng.integers(-127, 128, (K, C, 3, 3)), np.int8), _t("sw", sw, np.float32),
        _t("zw", np.zeros(K), np.int8),
        _t("b", rng.integers(-300, 300, K), np.int32), _t("sb", sx * sw, np.float32),
        _t("zb", np.zeros(K), np.int32),
        _t("sy", sy, np.float32), _t("zy", -5, np.int8),
        _t("shape", [1, K * 36], np.int64),
        _t("w2", rng.integers(-127, 128, (K * 36, 10)), np.int8), _t("s2", s2, np.float32),
        _t("z2", 0, np.int8), _t("sz", sz, np.float32), _t("zz", 1, np.int8),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"], name="quant_x"),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"], name="dq_x"),
        helper.make_node("DequantizeLinear", ["w", "sw", "zw"], ["wd"], name="dq_w", axis=0),
        helper.make_node("DequantizeLinear", ["b", "sb", "zb"], ["bd"], name="dq_b", axis=0),
        helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("QuantizeLinear", ["r", "sy", "zy"], ["rq"], name="quant_r"),
        helper.make_node("Reshape", ["rq", "shape"], ["flat"], name="flatten"),
        helper.make_node("QLinearMatMul", ["flat", "sy", "zy", "w2", "s2", "z2", "sz", "zz"], ["zq"],
                         name="fc"),
        helper.make_node("DequantizeLinear", ["zq", "sz", "zz"], ["y"], name="dq_y"),
    ]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, 6, 6])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)


def test_qdq_cnn_is_integer_kernels_equal_to_the_reference() -> None:
    model = qdq_cnn()
    net = import_model(model, "qdq.onnx")
    ops = [layer.op for layer in net.layers]
    assert "QLinearConv" in ops and "Conv" not in ops and "Relu" not in ops  # fused
    fused = next(layer for layer in net.layers if layer.op == "QLinearConv")
    assert fused.name == "conv+relu+quant_r"
    x = np.random.default_rng(1).uniform(-1, 1, (1, 2, 6, 6)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    run = run_functional(net, "sim", progress=False, inputs={"x": x})
    got = run.outputs["y"]
    # the integer path (int32 accumulation, one requantization) equals the float reference here;
    # a rounding tie could differ by one step of the output scale, none occurs with this seed
    np.testing.assert_array_equal(got, want)
    kernels = [workloads.get(k.workload).arg_types() for k in fused.kernels]
    elements = [tuple(t.element.name for t in k.values()) for k in kernels]
    assert ("i8", "i8", "i32") in elements and elements[-1][-1] == "i8"  # int8 conv, int8 out


@pytest.mark.parametrize("op", ["MatMulInteger", "ConvInteger"])
def test_integer_ops_are_exact(op: str) -> None:
    rng = np.random.default_rng(2)
    if op == "MatMulInteger":
        a_shape, b = (3, 5), rng.integers(-128, 128, (5, 4))
        out_shape = [3, 4]
        node = helper.make_node(op, ["a", "b", "za", "zb"], ["y"], name="mmi")
    else:
        a_shape, b = (1, 2, 5, 5), rng.integers(-128, 128, (3, 2, 3, 3))
        out_shape = [1, 3, 5, 5]
        node = helper.make_node(op, ["a", "b", "za", "zb"], ["y"], name="ci", pads=[1, 1, 1, 1])
    model = _model([node], [helper.make_tensor_value_info("a", TensorProto.INT8, list(a_shape))],
                   [helper.make_tensor_value_info("y", TensorProto.INT32, out_shape)],
                   [_t("b", b, np.int8), _t("za", 7, np.int8), _t("zb", -2, np.int8)])
    a = rng.integers(-128, 128, a_shape).astype(np.int8)
    want = ReferenceEvaluator(model).run(None, {"a": a})[0]
    net = import_model(model, "i.onnx")
    got = run_functional(net, "sim", progress=False, inputs={"a": a}).outputs["y"]
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


def test_uint8_activations_int8_weights() -> None:
    """onnxruntime's default: uint8 activations (zero point 128), int8 weights."""
    rng = np.random.default_rng(3)
    nodes = [helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"], name="qx"),
             helper.make_node("QLinearMatMul", ["xq", "sx", "zx", "w", "sw", "zw", "sy", "zy"], ["yq"],
                              name="fc"),
             helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"], name="dqy")]
    inits = [_t("sx", 0.02, np.float32), _t("zx", 128, np.uint8),
             _t("w", rng.integers(-127, 128, (16, 8)), np.int8), _t("sw", 0.01, np.float32),
             _t("zw", 0, np.int8), _t("sy", 0.05, np.float32), _t("zy", 100, np.uint8)]
    model = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 16])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 8])], inits)
    x = rng.uniform(-2, 2, (3, 16)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    net = import_model(model, "u.onnx")
    got = run_functional(net, "sim", progress=False, inputs={"x": x}).outputs["y"]
    np.testing.assert_array_equal(got, want)


def test_a_quantization_without_zero_point_is_refused_by_name() -> None:
    node = helper.make_node("QuantizeLinear", ["x", "s"], ["y"], name="q8")
    model = _model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                   [helper.make_tensor_value_info("y", TensorProto.UINT8, [4])],
                   [_t("s", 0.1, np.float32)])
    with pytest.raises(NetworkError, match="node 'q8' \\(QuantizeLinear\\): y_zero_point: absent"):
        import_model(model, "u.onnx")


@pytest.mark.parametrize("elem", [TensorProto.FLOAT16, TensorProto.BFLOAT16])
def test_half_precision_tensors_run_in_their_type(elem: int) -> None:
    """Conv -> Relu -> ReduceMean -> Softmax on f16 / bf16 tensors: each operand read in its
    own type, the math in f32, results rounded to the type once; vs the reference in that type."""
    import ml_dtypes

    np_t = np.float16 if elem == TensorProto.FLOAT16 else ml_dtypes.bfloat16
    rng = np.random.default_rng(4)
    w = numpy_helper.from_array(rng.uniform(-1, 1, (3, 2, 3, 3)).astype(np_t), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("ReduceMean", ["r", "axes"], ["m"], name="mean", keepdims=0),
             helper.make_node("Softmax", ["m"], ["y"], name="softmax", axis=-1)]
    axes = _t("axes", [2, 3], np.int64)
    model = _model(nodes, [helper.make_tensor_value_info("x", elem, [1, 2, 5, 5])],
                   [helper.make_tensor_value_info("y", elem, [1, 3])], [w, axes])
    x = rng.uniform(-1, 1, (1, 2, 5, 5)).astype(np_t)
    want = np.asarray(ReferenceEvaluator(model).run(None, {"x": x})[0], dtype=np.float64)
    net = import_model(model, "h.onnx")
    conv = next(layer for layer in net.layers if layer.op == "Conv")
    types = [tuple(t.element.name for t in workloads.get(k.workload).arg_types().values())
             for k in conv.kernels]
    assert any(t[0] == np_t.__name__.replace("float16", "f16").replace("bfloat16", "bf16") for t in types)
    got = run_functional(net, "sim", progress=False, inputs={"x": x}).outputs["y"]
    assert got.dtype == np.dtype(np_t)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-2, atol=2e-2)
