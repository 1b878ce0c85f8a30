"""The math dialect's float ops mlir-opt-19 accepts (issue 31: PolyBench's deriche stopped on
`math.powf`): each parses, prints back what mlir-opt-19 reads, and runs on the host and in
the simulator (its kernels native, its pipeline compiled) to numpy's value, in f32 and f64."""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest

from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.config import load_config
from accelsim.sim.simulate import simulate
from compiler.backend import run_host
from compiler.text import parse_module, print_module

# name -> (operands, numpy reference on float64 operands)
OPS = {
    "powf": (2, lambda a, b, c: np.power(a, b)),
    "atan2": (2, lambda a, b, c: np.arctan2(a, b)),
    "copysign": (2, lambda a, b, c: np.copysign(a, b)),
    "fma": (3, lambda a, b, c: a * b + c),
    "log": (1, lambda a, b, c: np.log(a)), "log2": (1, lambda a, b, c: np.log2(a)),
    "log10": (1, lambda a, b, c: np.log10(a)), "log1p": (1, lambda a, b, c: np.log1p(a)),
    "exp2": (1, lambda a, b, c: np.exp2(a)), "expm1": (1, lambda a, b, c: np.expm1(a)),
    "exp": (1, lambda a, b, c: np.exp(a)), "sqrt": (1, lambda a, b, c: np.sqrt(a)),
    "rsqrt": (1, lambda a, b, c: 1 / np.sqrt(a)), "absf": (1, lambda a, b, c: np.abs(a)),
    "sin": (1, lambda a, b, c: np.sin(a)), "cos": (1, lambda a, b, c: np.cos(a)),
    "tan": (1, lambda a, b, c: np.tan(a)), "atan": (1, lambda a, b, c: np.arctan(a)),
    "asin": (1, lambda a, b, c: np.arcsin(a / 2)), "acos": (1, lambda a, b, c: np.arccos(a / 2)),
    "sinh": (1, lambda a, b, c: np.sinh(a)), "cosh": (1, lambda a, b, c: np.cosh(a)),
    "tanh": (1, lambda a, b, c: np.tanh(a)), "asinh": (1, lambda a, b, c: np.arcsinh(a)),
    "acosh": (1, lambda a, b, c: np.arccosh(a + 1)), "atanh": (1, lambda a, b, c: np.arctanh(a / 2)),
    "erf": (1, lambda a, b, c: np.vectorize(math.erf)(a)), "cbrt": (1, lambda a, b, c: np.cbrt(a)),
    "floor": (1, lambda a, b, c: np.floor(b)), "ceil": (1, lambda a, b, c: np.ceil(b)),
    "trunc": (1, lambda a, b, c: np.trunc(b)), "roundeven": (1, lambda a, b, c: np.rint(b)),
    "round": (1, lambda a, b, c: np.sign(b) * np.floor(np.abs(b) + 0.5)),
}
# operands in the op's domain: a in (0.1, 1.9) (logs, roots, asin(a/2)...), b in (-3, 3)
ARGS = {"asin": "%h", "acos": "%h", "atanh": "%h", "acosh": "%p", "floor": "%b", "ceil": "%b",
        "trunc": "%b", "roundeven": "%b", "round": "%b"}


def _program(ty: str) -> str:
    lines = [f"func.func @m(%A: memref<64x{ty}>, %B: memref<64x{ty}>, %C: memref<64x{ty}>, "
             f"%O: memref<{len(OPS)}x64x{ty}>) {{",
             "  %half = arith.constant 0.5 : " + ty, "  %one = arith.constant 1.0 : " + ty,
             "  affine.for %i = 0 to 64 {",
             f"    %a = affine.load %A[%i] : memref<64x{ty}>",
             f"    %b = affine.load %B[%i] : memref<64x{ty}>",
             f"    %c = affine.load %C[%i] : memref<64x{ty}>",
             f"    %h = arith.mulf %a, %half : {ty}", f"    %p = arith.addf %a, %one : {ty}"]
    for k, (name, (n, _)) in enumerate(OPS.items()):
        operands = {1: ARGS.get(name, "%a"), 2: "%a, %b", 3: "%a, %b, %c"}[n]
        lines += [f"    %r{k} = math.{name} {operands} : {ty}",
                  f"    affine.store %r{k}, %O[{k}, %i] : memref<{len(OPS)}x64x{ty}>"]
    return "\n".join([*lines, "  }", "  return", "}", ""])


def _inputs(dtype: type) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    return {"A": rng.uniform(0.1, 1.9, 64).astype(dtype), "B": rng.uniform(-3, 3, 64).astype(dtype),
            "C": rng.uniform(-1, 1, 64).astype(dtype), "O": np.zeros((len(OPS), 64), dtype)}


def _expected(inputs: dict[str, np.ndarray]) -> np.ndarray:
    a, b, c = (inputs[k].astype(np.float64) for k in "ABC")
    return np.stack([f(a, b, c) for _, f in OPS.values()])


@pytest.mark.parametrize("ty,dtype,rtol", [("f32", np.float32, 2e-6), ("f64", np.float64, 1e-13)])
def test_math_ops_on_host_and_sim_match_numpy(ty: str, dtype: type, rtol: float) -> None:
    text = _program(ty)
    inputs = _inputs(dtype)
    want = _expected(inputs)
    host = run_host(parse_module(text), inputs)["O"]
    np.testing.assert_allclose(host, want, rtol=rtol, atol=rtol)
    m = parse_module(text)
    compile_for_accelerator(load_config("default"), m, "m")
    sim = simulate(m, "default", inputs=inputs, functional=True).outputs["O"]
    np.testing.assert_allclose(sim, want, rtol=rtol, atol=rtol)


def test_math_ops_print_back_and_mlir_opt_reads_them() -> None:
    text = _program("f32")
    printed = print_module(parse_module(text))
    assert print_module(parse_module(printed)) == printed
    for name in OPS:
        assert f"math.{name} " in printed
    opt = shutil.which("mlir-opt-19")
    if opt is None:
        pytest.skip("mlir-opt-19 not installed")
    got = subprocess.run([opt], input=printed, capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
