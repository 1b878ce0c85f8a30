"""`convert-linalg-to-affine-loops`: ours against upstream mlir-opt-19's on the same input.

Both lowerings run on the host backend with the same random inputs and must give bit-identical
arrays (the loops and the payload's op order are upstream's, so even float rounding agrees);
mlir-opt-19 re-printing our output must give its own output text, op for op. Without
mlir-opt-19 the upstream half is skipped; the numpy references below still run.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from compiler.backend import run_host
from compiler.diagnostics import ParseError, VerifyError
from compiler.ir.ops import AffineForOp, AffineLoadOp, AffineStoreOp, FuncOp, ModuleOp
from compiler.ir.ops.linalg import has_linalg
from compiler.ir.types import MemRefType
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.registry import PassManager
from tests.compiler.transforms.linalg_cases import CASES

FLAG = "--convert-linalg-to-affine-loops"


def ours(text: str) -> ModuleOp:
    m = parse_module(text, "<case>")
    verify(m)
    PassManager.from_flags([FLAG]).run(m)
    return m


def mlir_opt_run(mlir_opt: str, text: str, *flags: str) -> str:
    done = subprocess.run([mlir_opt, *flags], input=text, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def random_inputs(func: FuncOp, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for i, a in enumerate(func.args):
        t = a.type
        assert isinstance(t, MemRefType)
        dt = t.element.numpy_dtype
        if t.element.is_float:
            out[f"arg{i}"] = rng.uniform(-1, 1, t.shape).astype(dt)
        else:
            out[f"arg{i}"] = rng.integers(-50, 50, t.shape).astype(dt)
    return out


def run_positional(m: ModuleOp, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    f = m.lookup("main")
    assert f is not None
    got = run_host(m, inputs, "main")
    return [got[name] for name in f.arg_names()]


@pytest.mark.mlir_opt
@pytest.mark.parametrize("name", sorted(CASES))
def test_ours_matches_upstream_bit_for_bit(mlir_opt: str, name: str) -> None:
    text = CASES[name]
    mine = ours(text)
    assert not has_linalg(mine)
    theirs = parse_module(mlir_opt_run(mlir_opt, text, FLAG), "<mlir-opt>")
    inputs = random_inputs(mine.lookup("main"), seed=len(name))  # type: ignore[arg-type]
    for k, (a, b) in enumerate(zip(run_positional(mine, inputs), run_positional(theirs, inputs),
                                   strict=True)):
        np.testing.assert_array_equal(a, b, err_msg=f"{name}: argument #{k}")
    # the same loops and ops in the same order: mlir-opt re-printing ours gives its own text
    assert mlir_opt_run(mlir_opt, print_module(mine)) == mlir_opt_run(mlir_opt, text, FLAG)


@pytest.mark.mlir_opt
@pytest.mark.parametrize("name", sorted(CASES))
def test_upstream_reads_what_we_print_of_linalg(mlir_opt: str, name: str) -> None:
    printed = print_module(parse_module(CASES[name]))
    assert print_module(parse_module(printed)) == printed  # round trip is stable
    assert mlir_opt_run(mlir_opt, printed) == mlir_opt_run(mlir_opt, CASES[name])


def _ref_conv_nhwc(img: np.ndarray, K: np.ndarray, out0: np.ndarray, s: tuple[int, int],
                   d: tuple[int, int]) -> np.ndarray:
    out = out0.astype(np.float64)
    kh, kw = K.shape[:2]
    oh, ow = out0.shape[1:3]
    for r in range(kh):
        for c in range(kw):
            patch = img[:, r * d[0]: r * d[0] + s[0] * oh: s[0], c * d[1]: c * d[1] + s[1] * ow: s[1], :]
            out += np.einsum("nhwc,cf->nhwf", patch.astype(np.float64), K[r, c].astype(np.float64))
    return out


def test_matmul_and_strided_conv_against_numpy() -> None:
    m = ours(CASES["matmul"])
    ins = random_inputs(m.lookup("main"), seed=3)  # type: ignore[arg-type]
    A, B, C = ins["arg0"], ins["arg1"], ins["arg2"]
    got = run_positional(m, ins)
    np.testing.assert_allclose(got[2], C + A.astype(np.float64) @ B, rtol=1e-5, atol=1e-5)

    m = ours(CASES["conv_nhwc_hwcf_strided"])  # dilations [2, 1], strides [3, 2]
    ins = random_inputs(m.lookup("main"), seed=4)  # type: ignore[arg-type]
    got = run_positional(m, ins)
    want = _ref_conv_nhwc(ins["arg0"], ins["arg1"], ins["arg2"], (3, 2), (2, 1))
    np.testing.assert_allclose(got[2], want, rtol=1e-5, atol=1e-5)


def test_pooling_max_and_generic_reduction_against_numpy() -> None:
    m = ours(CASES["pool_nchw_max"])  # window 2x3, dilations [1, 2], strides 2
    ins = random_inputs(m.lookup("main"), seed=5)  # type: ignore[arg-type]
    img, want = ins["arg0"], ins["arg2"].copy()
    for r in range(2):
        for c in range(3):
            want = np.maximum(want, img[:, :, r: r + 8: 2, 2 * c: 2 * c + 8: 2])
    np.testing.assert_array_equal(run_positional(m, ins)[2], want)

    m = ours(CASES["generic_row_sum_exp"])
    ins = random_inputs(m.lookup("main"), seed=6)  # type: ignore[arg-type]
    X, S = ins["arg0"], ins["arg1"]
    np.testing.assert_allclose(run_positional(m, ins)[1], S + np.exp(X.astype(np.float64)).sum(1),
                               rtol=1e-5)


def test_loop_order_and_body_of_a_conv() -> None:
    """(n, oh, ow, f, kh, kw, c), windows through affine.apply, loads of I, K, O, then the
    multiply-accumulate and one store."""
    m = ours(CASES["conv_nhwc_hwcf_strided"])
    loops = [op for op in m.walk() if isinstance(op, AffineForOp)]
    assert [lp.upper_map.single_constant for lp in loops] == [1, 3, 4, 4, 3, 3, 2]
    inner = [op.NAME for op in loops[-1].body.ops]
    assert inner == ["affine.apply", "affine.apply", "affine.load", "affine.load", "affine.load",
                     "arith.mulf", "arith.addf", "affine.store", "affine.yield"]
    applies = [op for op in loops[-1].body.ops if op.NAME == "affine.apply"]
    assert [str(a.map) for a in applies] == ["(d0, d1) -> (d0 * 3 + d1 * 2)", "(d0, d1) -> (d0 * 2 + d1)"]


def test_fill_and_copy_store_without_loading_the_output() -> None:
    fill = ours(CASES["fill"])
    assert not any(isinstance(op, AffineLoadOp) for op in fill.walk())
    assert sum(isinstance(op, AffineStoreOp) for op in fill.walk()) == 1
    got = run_positional(fill, {"arg0": np.zeros((7, 5, 3), np.float32)})
    np.testing.assert_array_equal(got[0], np.full((7, 5, 3), 2.5, np.float32))
    copy = ours(CASES["copy"])
    assert sum(isinstance(op, AffineLoadOp) for op in copy.walk()) == 1


@pytest.mark.parametrize("text,message", [
    ("func.func @f(%A: tensor<4x4xf32>) {\n  return\n}",
     "unsupported type 'tensor'"),
    ("func.func @f(%A: memref<4x4xf32>, %T: memref<4x4xf32>) {\n"
     "  linalg.copy ins(%A : memref<4x4xf32>) outs(%T : memref<4x4xf32>) -> tensor<4x4xf32>\n  return\n}",
     "bufferize first"),
    ("func.func @f(%A: memref<4x5xf32>, %B: memref<4x5xf32>, %C: memref<4x5xf32>) {\n"
     "  linalg.matmul {strides = dense<1> : tensor<2xi64>} ins(%A, %B : memref<4x5xf32>, "
     "memref<4x5xf32>) outs(%C : memref<4x5xf32>)\n  return\n}",
     "unsupported attribute 'strides' on 'linalg.matmul'"),
    ("func.func @f(%A: memref<4x5xf32>, %B: memref<4x5xf32>) {\n"
     "  linalg.copy ins(%A : memref<4x4xf32>) outs(%B : memref<4x5xf32>)\n  return\n}",
     "has type memref<4x5xf32>, but the op's type is memref<4x4xf32>"),
    ("func.func @f(%A: memref<4x8xf32>) {\n  linalg.generic {indexing_maps = "
     "[affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"sideways\"]} "
     "outs(%A : memref<4x8xf32>) {\n  ^bb0(%out: f32):\n    linalg.yield %out : f32\n  }\n  return\n}",
     "unknown iterator type 'sideways'"),
])
def test_bad_linalg_is_a_located_parse_error(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message) as info:
        parse_module(text, "bad.mlir")
    assert "bad.mlir:" in str(info.value)


@pytest.mark.parametrize("text,message", [
    ("func.func @f(%A: memref<4x5xf32>, %B: memref<6x3xf32>, %C: memref<4x3xf32>) {\n"
     "  linalg.matmul ins(%A, %B : memref<4x5xf32>, memref<6x3xf32>) outs(%C : memref<4x3xf32>)\n"
     "  return\n}", "operand #1 dimension 0 has size 6, but loop d2 runs 5 times"),
    ("func.func @f(%A: memref<4x5xf16>, %B: memref<5x3xbf16>, %C: memref<4x3xf16>) {\n"
     "  linalg.matmul ins(%A, %B : memref<4x5xf16>, memref<5x3xbf16>) outs(%C : memref<4x3xf16>)\n"
     "  return\n}", "cannot convert element type bf16 to the output's f16"),
    ("func.func @f(%A: memref<?x5xf32>, %B: memref<?x5xf32>) {\n"
     "  linalg.copy ins(%A : memref<?x5xf32>) outs(%B : memref<?x5xf32>)\n  return\n}",
     "dynamic shapes are not supported"),
    ("func.func @f(%A: memref<4x8xf32>, %B: memref<4xf32>) {\n  linalg.generic {indexing_maps = "
     "[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = "
     "[\"parallel\", \"reduction\"]} ins(%A : memref<4x8xf32>) outs(%B : memref<4xf32>) {\n"
     "  ^bb0(%in: f32, %out: f32):\n    %i = arith.constant 1 : i32\n    linalg.yield %i : i32\n  }\n"
     "  return\n}", "yields \\(i32\\) but the outputs hold \\(f32\\)"),
])
def test_bad_linalg_is_a_located_verify_error(text: str, message: str) -> None:
    m = parse_module(text, "bad.mlir")
    with pytest.raises(VerifyError, match=message) as info:
        verify(m)
    assert "bad.mlir:" in str(info.value)
