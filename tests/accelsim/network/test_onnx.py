"""ONNX models built with onnx.helper: outputs equal onnx's ReferenceEvaluator on host and
simulator, host and simulator agree bit for bit, the two convolution lowerings agree, timing
is the same with and without data, and unsupported input is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper

from accelsim.cli import main
from accelsim.network.functional import run_functional
from accelsim.network.model import NetworkError
from accelsim.network.onnx_import import read_onnx
from accelsim.network.timing import run_timing
from tests.accelsim.network import onnx_models


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("onnx")
    return {name: onnx_models.save(getattr(onnx_models, name)(), d / f"{name}.onnx")
            for name in ("convnet", "attention", "unsupported_op")}


@pytest.mark.parametrize("name", ["convnet", "attention"])
def test_host_and_sim_match_the_reference_evaluator_and_each_other(models, name: str) -> None:
    net = read_onnx(str(models[name]))
    host = run_functional(net, "host", check=True, progress=False, seed=3)
    sim = run_functional(net, "sim", check=True, progress=False, seed=3)
    assert host.check_ok and sim.check_ok, (host.check, sim.check)
    for out in host.outputs:
        np.testing.assert_array_equal(sim.outputs[out], host.outputs[out])
    # the simulator's per-layer cycles with data equal a timing-only run of the same network
    timing = run_timing(net, workers=0, progress=False)
    assert [r.cycles for r in sim.result.layers] == [r.cycles for r in timing.layers]


def test_convnet_lowering_and_folding(models) -> None:
    net = read_onnx(str(models["convnet"]))
    by_name = {layer.name: layer for layer in net.layers}
    assert "bn1" not in by_name and "conv1+bn1" in by_name           # folded into the conv
    assert by_name["conv1+bn1"].lowering == "direct"
    assert [k.workload.split(":")[0] for k in by_name["conv1+bn1"].kernels] == ["pad2d", "conv2d"]
    assert by_name["dw"].kernels[-1].workload.startswith("depthwise_conv2d:")
    assert by_name["pw"].lowering == "gemm"                           # 1x1 stride 1: a gemm
    assert by_name["dilated"].lowering == "im2col+gemm"               # the direct kernel has no dilation
    assert by_name["flatten"].lowering == "view" and not by_name["flatten"].kernels


def test_im2col_and_direct_lowerings_compute_the_same(models) -> None:
    auto = run_functional(read_onnx(str(models["convnet"])), "host", progress=False, seed=5)
    im2col = read_onnx(str(models["convnet"]), choice="im2col")
    assert {layer.lowering for layer in im2col.layers if layer.op == "Conv"} == {"im2col+gemm", "direct"}
    forced = run_functional(im2col, "host", progress=False, seed=5)
    np.testing.assert_allclose(forced.outputs["y"], auto.outputs["y"], rtol=1e-5, atol=1e-5)


def test_cli_check_json(capsys, models) -> None:
    status = main(["run", str(models["attention"]), "--target", "sim", "--check", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["check"]["ok"] and out["functional"]
    assert out["check"]["reference"] == "onnx.reference.ReferenceEvaluator"
    assert [layer["name"] for layer in out["layers"]][:2] == ["ln", "proj_q"]
    assert out["cycles"] == sum(layer["cycles"] for layer in out["layers"])


def test_check_needs_data(capsys, models) -> None:
    status = main(["run", str(models["attention"]), "--target", "sim", "--check", "--timing-only"])
    assert status == 1 and "--check needs output data" in capsys.readouterr().err
    status = main(["run", str(models["attention"]), "--target", "host", "--csv", "x.csv"])
    assert status == 1 and "--csv: only --target sim reads this" in capsys.readouterr().err


def test_unsupported_op_names_the_node(capsys, models) -> None:
    status = main(["run", str(models["unsupported_op"]), "--target", "sim"])
    _, err = capsys.readouterr()
    assert status == 1 and "Traceback" not in err
    where = models["unsupported_op"]
    assert f"{where}: error: node 'the_hardmax' (Hardmax): op type 'Hardmax' is not supported" in err


def _tiny(nodes: list, inputs: list, outputs: list, inits: list = ()) -> object:  # type: ignore[assignment]
    graph = helper.make_graph(nodes, "t", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def test_bad_models_are_clear_errors(tmp_path: Path) -> None:
    from accelsim.network.onnx_import import import_model

    f32 = lambda n, *s: helper.make_tensor_value_info(n, TensorProto.FLOAT, list(s))
    i64 = helper.make_tensor_value_info("x", TensorProto.INT64, [2])
    with pytest.raises(NetworkError, match="input 'x' has element type INT64: only float32"):
        import_model(_tiny([helper.make_node("Identity", ["x"], ["y"])], [i64],
                           [helper.make_tensor_value_info("y", TensorProto.INT64, [2])]), "m.onnx")
    f64 = helper.make_tensor_value_info("x", TensorProto.DOUBLE, [2])
    with pytest.raises(NetworkError, match="input 'x' has element type DOUBLE: float64 data is not"):
        import_model(_tiny([helper.make_node("Relu", ["x"], ["y"])], [f64],
                           [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2])]), "m.onnx")
    gather = helper.make_node("Gather", ["a", "i"], ["y"], name="emb")
    ids = helper.make_tensor_value_info("i", TensorProto.INT64, [3])
    with pytest.raises(NetworkError, match="input 'i' has element type INT64"):
        import_model(_tiny([gather], [f32("a", 5, 4), ids], [f32("y", 3, 4)]), "m.onnx")
    pad = helper.make_node("Pad", ["a", "p"], ["y"], name="wrap", mode="wrap")
    pads = helper.make_tensor("p", TensorProto.INT64, [4], [0, 1, 0, 1])
    with pytest.raises(NetworkError, match="node 'wrap' \\(Pad\\): mode='wrap'"):
        import_model(_tiny([pad], [f32("a", 3, 4)], [f32("y", 3, 6)], [pads]), "m.onnx")
    sym = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["batch", 4])
    with pytest.raises(NetworkError, match="input 'a' has a symbolic dimension 'batch': bind it with "
                                           "--shape a=DIMS"):
        import_model(_tiny([helper.make_node("Relu", ["a"], ["y"])], [sym], [f32("y", 2, 4)]), "m.onnx")
    net = import_model(_tiny([helper.make_node("Relu", ["a"], ["y"])], [sym], [f32("y", 2, 4)]), "m.onnx",
                       shapes={"a": (2, 4)})
    assert net.inputs == {"a": (2, 4)}
