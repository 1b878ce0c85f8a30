"""The onnx wheel's own backend cases and model-zoo graphs through the importer, and exported
transformer blocks against onnx's ReferenceEvaluator.

- every case of pytorch-converted / pytorch-operator / simple runs functionally on the
  simulator: at least 100 of the 140 equal the shipped expected outputs, none crashes, none is
  wrong; the refusals are clear errors of the kinds we do not support;
- the light/ zoo graphs import with one layer per remaining node; SqueezeNet's first layers
  simulate in the default run, all nine graphs end to end under `-m slow`;
- GPT-2, BERT and Llama blocks (as torch.onnx.export writes them) equal the reference.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx.reference import ReferenceEvaluator

from accelsim.cli import main
from accelsim.network.functional import run_functional
from accelsim.network.onnx_import import import_model, read_onnx
from accelsim.network.onnx_suite import backend_cases, case_name, run_case, zoo_models
from accelsim.network.timing import run_timing
from tests.accelsim.network import onnx_transformers as T

CASES = backend_cases()
ZOO = zoo_models()
needs_data = pytest.mark.skipif(not CASES, reason="the installed onnx wheel ships no backend test data")
needs_zoo = pytest.mark.skipif(not ZOO, reason="the installed onnx wheel ships no light/ zoo graphs")

# what may be refused: data kinds outside the importer's scope, named by the refusal
ALLOWED_REFUSALS = ("element type STRING", "element type DOUBLE", "element type INT64", "Sequence",
                    "domain 'ai.onnx.preview.training'", "SplitToSequence")


def _check_suite(cases: list[str], min_pass: int) -> None:
    outcomes = [run_case(c, "sim") for c in cases]
    by = {s: [o for o in outcomes if o.status == s] for s in ("pass", "wrong", "refused", "crash")}
    assert not by["crash"], [(case_name(o.case), o.reason) for o in by["crash"]]
    assert not by["wrong"], [(case_name(o.case), o.reason) for o in by["wrong"]]
    assert len(by["pass"]) >= min_pass, (len(by["pass"]), len(cases))
    for o in by["refused"]:
        assert "Traceback" not in o.reason and "error:" in o.reason, o.reason
        assert any(k in o.reason for k in ALLOWED_REFUSALS), (case_name(o.case), o.reason)


@needs_data
def test_backend_cases_on_the_simulator_every_third() -> None:
    """The default run: every third case (the full suite is `-m slow`), at the issue's rate:
    at least 100 in 140 pass."""
    cases = CASES[::3]
    _check_suite(cases, -(-100 * len(cases) // 140))


@needs_data
@pytest.mark.slow
def test_backend_cases_on_the_simulator() -> None:
    _check_suite(CASES, 100)


@needs_data
@pytest.mark.parametrize("name", ["pytorch-converted/test_MaxPool3d_stride_padding",
                                  "pytorch-converted/test_ConvTranspose2d",
                                  "pytorch-converted/test_Conv1d_dilated"])
def test_host_and_sim_agree(name: str) -> None:
    case = next(c for c in CASES if case_name(c) == name)
    assert run_case(case, "sim").status == "pass"
    assert run_case(case, "host").status == "pass"


def test_refusals_name_the_node_the_op_and_the_attribute(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 8, 8])
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], name="up", mode="cubic")
    scales = helper.make_tensor("s", TensorProto.FLOAT, [4], [1, 1, 2, 2])
    graph = helper.make_graph([node], "g", [x], [y], [scales])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    status = main(["run", str(path), "--target", "sim", "--timing-only"])
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err
    assert f"{path}: error: node 'up' (Resize): mode='cubic'" in err


@needs_zoo
@pytest.mark.parametrize("path", ZOO, ids=[os.path.basename(p) for p in ZOO])
def test_zoo_graphs_import_one_layer_per_node(path: str) -> None:
    if any(big in path for big in ("vgg19", "alexnet", "zfnet", "densenet", "inception")) \
            and not os.environ.get("ACCELSIM_SLOW_ONNX"):
        pytest.skip("a large graph (weights of hundreds of MB): ACCELSIM_SLOW_ONNX=1 imports it "
                    "here; the -m slow zoo runs import all nine")
    net = read_onnx(path)
    names = [layer.name for layer in net.layers]
    assert len(names) == len(set(names)) and net.layers, path
    assert all(layer.op for layer in net.layers)
    # identical layers share one compiled kernel
    assert len(net.distinct_workloads()) < sum(len(layer.kernels) for layer in net.layers)


@needs_zoo
def test_squeezenet_first_layers_simulate() -> None:
    """The default run's zoo timing: SqueezeNet's first ten layers (conv, relu, pool, the first
    fire module's squeeze/expand convolutions and its concat); all nine graphs whole: -m slow."""
    from dataclasses import replace

    net = read_onnx(next(p for p in ZOO if "squeezenet" in p))
    head = replace(net, layers=net.layers[:10])
    res = run_timing(head, workers=1, progress=False)
    assert [r.layer.op for r in res.layers] == [layer.op for layer in net.layers[:10]]
    assert "Concat" in {r.layer.op for r in res.layers}
    assert all(r.cycles > 0 for r in res.layers if r.layer.kernels)


@needs_zoo
@pytest.mark.slow
@pytest.mark.parametrize("path", ZOO, ids=[os.path.basename(p) for p in ZOO])
def test_zoo_graph_simulates_end_to_end(path: str) -> None:
    net = read_onnx(path)
    res = run_timing(net, progress=False)
    assert len(res.layers) == len(net.layers) and res.totals()["cycles"] > 0


@pytest.mark.parametrize("build", [T.gpt2_block, T.bert_layer, T.llama_block])
def test_exported_transformers_equal_the_reference(build) -> None:  # type: ignore[no-untyped-def]
    model = build()
    feeds = T.inputs_for(model)
    want = ReferenceEvaluator(model).run(None, feeds)[0]
    net = import_model(model, f"{build.__name__}.onnx", shapes={k: v.shape for k, v in feeds.items()})
    ops = {layer.op for layer in net.layers}
    assert {"MatMul", "Softmax", "Transpose", "Reshape"} <= ops
    run = run_functional(net, "sim", progress=False, inputs=feeds)
    got = next(iter(run.outputs.values()))
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)
    assert run.result is not None and len(run.result.layers) == len(net.layers)


def test_cli_reports_every_layer_of_an_exported_block(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "gpt2_block.onnx"
    onnx.save(T.gpt2_block(), str(path))
    shape = ["--shape", f"hidden_states=1x{T.S}x{T.D}", "--workers", "0"]
    status = main(["run", str(path), "--target", "sim", "--timing-only", "--json",
                   "--schedule", "layer-by-layer", *shape])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    layers = out["layers"]
    assert {row["op"] for row in layers} >= {"LayerNormalization", "Split", "Where", "Softmax", "Tanh"}
    assert all(row["name"].startswith("/") for row in layers)
    assert out["cycles"] == sum(row["cycles"] for row in layers)
    # the default schedule (auto) may fuse layers: every layer is still in the report, alone or
    # named in its fused group's row, and the run is never slower than layer by layer
    status = main(["run", str(path), "--target", "sim", "--timing-only", "--json", *shape])
    auto = json.loads(capsys.readouterr().out)
    assert status == 0 and auto["cycles"] <= out["cycles"]
    named = [n for row in auto["layers"] for n in (row.get("fused_group") or [row["name"]])]
    assert sorted(named) == sorted(row["name"] for row in layers)
    status = main(["run", str(path), "--target", "sim", "--timing-only"])
    assert status == 1 and "--shape hidden_states=DIMS" in capsys.readouterr().err


@pytest.mark.parametrize("mode,coord,scales", [("linear", "half_pixel", [1, 1, 2, 2]),
                                               ("linear", "asymmetric", [1, 1, 3, 2]),
                                               ("nearest", "half_pixel", [1, 1, 2, 3])])
def test_resize_by_integer_factors(mode: str, coord: str, scales: list[int]) -> None:
    from onnx import TensorProto, helper, numpy_helper

    out = [1, 2, 3 * scales[2], 4 * scales[3]]
    node = helper.make_node("Resize", ["x", "", "s"], ["y"], name="rs", mode=mode,
                            coordinate_transformation_mode=coord)
    x_info = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4])
    y_info = helper.make_tensor_value_info("y", TensorProto.FLOAT, out)
    graph = helper.make_graph([node], "g", [x_info], [y_info],
                              [numpy_helper.from_array(np.array(scales, np.float32), "s")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = np.random.default_rng(0).uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    net = import_model(model, "r.onnx")
    got = run_functional(net, "sim", progress=False, inputs={"x": x}).outputs["y"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
