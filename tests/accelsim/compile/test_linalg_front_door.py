"""The linalg front door end to end: a linalg-on-tensors module (matmul + bias/ReLU generic +
convolution), bufferized by upstream mlir-opt-19 exactly as the command below says, runs
through `accelsim run --target sim` and `--target host`; both equal numpy.

Two styles of module: destination-passing (the outputs are arguments: after bufferization the
results are written into them and none is returned), and one returning new tensors, turned
into out-parameters by `--buffer-results-to-out-params` (the results then reach them through
`memref.copy`, which the front door lowers as the linalg.copy it equals).
"""

from __future__ import annotations

import json
import pathlib
import subprocess

import numpy as np
import pytest

from accelsim.cli import main
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.config import load_config
from compiler.ir.ops.linalg import has_linalg
from compiler.text import parse_module

TENSORS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%A: tensor<24x40xf32>, %B: tensor<40x20xf32>, %bias: tensor<20xf32>,
                %I: tensor<1x14x14x3xf32>, %W: tensor<3x3x3x8xf32>,
                %Y: tensor<24x20xf32>, %O: tensor<1x6x6x8xf32>)
    -> (tensor<24x20xf32>, tensor<1x6x6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x20xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<24x20xf32>) -> tensor<24x20xf32>
  %m = linalg.matmul ins(%A, %B : tensor<24x40xf32>, tensor<40x20xf32>)
                     outs(%z : tensor<24x20xf32>) -> tensor<24x20xf32>
  %g = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<24x20xf32>, tensor<20xf32>) outs(%Y : tensor<24x20xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<24x20xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%O : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%I, %W : tensor<1x14x14x3xf32>, tensor<3x3x3x8xf32>)
      outs(%zo : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %g, %c : tensor<24x20xf32>, tensor<1x6x6x8xf32>
}
"""

RESULTS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%A: tensor<24x40xf32>, %B: tensor<40x20xf32>, %bias: tensor<20xf32>,
                %I: tensor<1x14x14x3xf32>, %W: tensor<3x3x3x8xf32>)
    -> (tensor<24x20xf32>, tensor<1x6x6x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x20xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<24x20xf32>) -> tensor<24x20xf32>
  %m = linalg.matmul ins(%A, %B : tensor<24x40xf32>, tensor<40x20xf32>)
                     outs(%z : tensor<24x20xf32>) -> tensor<24x20xf32>
  %e2 = tensor.empty() : tensor<24x20xf32>
  %g = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<24x20xf32>, tensor<20xf32>) outs(%e2 : tensor<24x20xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<24x20xf32>
  %e3 = tensor.empty() : tensor<1x6x6x8xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%I, %W : tensor<1x14x14x3xf32>, tensor<3x3x3x8xf32>)
      outs(%zo : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %g, %c : tensor<24x20xf32>, tensor<1x6x6x8xf32>
}
"""

# identity layouts at the function boundary (accelsim memrefs have no strided layouts); the
# results equivalent to argument buffers are dropped; canonicalize removes the dead casts
BUFFERIZE = ["--one-shot-bufferize=bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map",
             "--drop-equivalent-buffer-results", "--canonicalize"]
# results as new tensors: returned buffers become out-parameters (appended to the arguments)
OUT_PARAMS = [*BUFFERIZE, "--buffer-results-to-out-params", "--canonicalize"]
STYLES = {"destination-passing": (TENSORS, BUFFERIZE), "returned-results": (RESULTS, OUT_PARAMS)}


def bufferized(mlir_opt: str, style: str = "destination-passing") -> str:
    text, flags = STYLES[style]
    done = subprocess.run([mlir_opt, *flags], input=text, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(19)
    shapes = [(24, 40), (40, 20), (20,), (1, 14, 14, 3), (3, 3, 3, 8), (24, 20), (1, 6, 6, 8)]
    return {f"arg{i}": rng.uniform(-1, 1, s).astype(np.float32) for i, s in enumerate(shapes)}


def numpy_reference(x: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    A, B, bias, img, W = (x[f"arg{i}"].astype(np.float64) for i in range(5))
    y = np.maximum(A @ B + bias, 0.0)
    o = np.zeros((1, 6, 6, 8))
    for r in range(3):
        for c in range(3):
            o += np.einsum("nhwc,cf->nhwf", img[:, r: r + 12: 2, c: c + 12: 2, :], W[r, c])
    return y, o


@pytest.mark.mlir_opt
@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("target", ["sim", "host"])
def test_bufferized_linalg_module_runs_equal_to_numpy(mlir_opt: str, tmp_path: pathlib.Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      target: str, style: str) -> None:
    text = bufferized(mlir_opt, style)
    assert "linalg.matmul" in text and "linalg.generic" in text and "memref.alloc" in text
    assert ("memref.copy" in text) == (style == "returned-results")
    src = tmp_path / "model.mlir"
    src.write_text(text)
    x = inputs()
    np.savez(tmp_path / "in.npz", **x)
    out = tmp_path / "out.npz"
    status = main(["run", str(src), "--target", target, "--inputs", str(tmp_path / "in.npz"),
                   "--save", str(out), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    if target == "sim":  # the front door's pass is reported with the accelerator's own
        assert report["pipeline"][0] == "--convert-linalg-to-affine-loops"
        assert len(report["pipeline"]) > 1
    got = np.load(out)
    y, o = numpy_reference(x)
    np.testing.assert_allclose(got["arg5"], y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got["arg6"], o, rtol=1e-5, atol=1e-5)
    for k in range(5):  # inputs untouched
        np.testing.assert_array_equal(got[f"arg{k}"], x[f"arg{k}"])


@pytest.mark.mlir_opt
def test_the_accelerator_pipeline_lowers_linalg_first(mlir_opt: str) -> None:
    module = parse_module(bufferized(mlir_opt))
    assert has_linalg(module)
    pipe, _ = compile_for_accelerator(load_config("default"), module, "main")
    assert not has_linalg(module)
    assert any(op.NAME == "affine.dma_start" for op in module.walk())
    assert pipe.flags()  # the accelerator's own passes ran on the lowered loops
