"""What onnx's tools raise is caught by name: an unreadable file, a version conversion or
shape inference that fails, a constant fold onnx.reference refuses, test data onnx cannot
parse — each still a clear error or a fallback; a bug of ours is not caught with them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

from accelsim.network.model import NetworkError


def _f32(name: str, *shape: int):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def _model(nodes: list, inputs: list, outputs: list, opset: int):
    graph = helper.make_graph(nodes, "t", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("content", [b"\x00\xff not a protobuf \x12\x34", None])
def test_an_unreadable_model_file_is_a_clear_error(tmp_path: Path, content: bytes | None) -> None:
    from accelsim.network.onnx_import import read_onnx

    path = tmp_path / "m.onnx"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(NetworkError, match="cannot read the ONNX model"):
        read_onnx(str(path))


def test_version_converter_failure_is_a_clear_error_or_a_kept_opset() -> None:
    from accelsim.network.onnx_prep import prepare

    # the converter has no schema for the op: a C++ assertion, raised as RuntimeError
    old = _model([helper.make_node("NoSuchOp", ["x"], ["y"])], [_f32("x", 2)], [_f32("y", 2)], 5)
    with pytest.raises(NetworkError, match="opset 5: the version converter cannot bring it to opset"):
        prepare(old, "m.onnx")
    kept = _model([helper.make_node("NoSuchOp", ["x"], ["y"])], [_f32("x", 2)], [_f32("y", 2)], 8)
    assert any(n.startswith("kept opset 8 (version converter: ") for n in prepare(kept, "m.onnx").notes)


def test_shape_inference_failure_is_a_clear_error() -> None:
    from accelsim.network.onnx_prep import prepare

    add = _model([helper.make_node("Add", ["x", "z"], ["y"])], [_f32("x", 2, 3), _f32("z", 4, 5)],
                 [_f32("y", 2, 3)], 17)
    with pytest.raises(NetworkError, match=r"ONNX shape inference failed: .*Incompatible dimensions"):
        prepare(add, "m.onnx")


def test_a_fold_the_reference_evaluator_refuses_is_left_to_the_lowering(monkeypatch) -> None:
    from onnx import helper as onnx_helper

    from accelsim.network import onnx_prep

    reshape = helper.make_node("Reshape", ["a", "s"], ["y"])
    constants = {"a": np.arange(6, dtype=np.float32), "s": np.array([4], dtype=np.int64)}
    assert onnx_prep._evaluate(reshape, constants, 17, "m.onnx") is None  # 6 elements into 4
    constants["s"] = np.array([2, 3], dtype=np.int64)
    (value,) = onnx_prep._evaluate(reshape, constants, 17, "m.onnx")
    assert value.shape == (2, 3)

    def broken(*args, **kw):
        raise AttributeError("a bug building the fold's model")

    monkeypatch.setattr(onnx_helper, "make_tensor_value_info", broken)
    with pytest.raises(AttributeError, match="a bug building the fold's model"):
        onnx_prep._evaluate(reshape, constants, 17, "m.onnx")


def test_backend_case_whose_data_onnx_cannot_parse_is_refused(tmp_path: Path) -> None:
    from accelsim.network.onnx_suite import run_case

    case = tmp_path / "test_broken"
    (case / "test_data_set_0").mkdir(parents=True)
    (case / "model.onnx").write_bytes(b"\x00\xff not a protobuf \x12\x34")
    out = run_case(str(case), "host")
    assert out.status == "refused" and out.reason.startswith("test data unreadable: "), out
