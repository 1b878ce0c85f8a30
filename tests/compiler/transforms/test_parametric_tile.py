"""`test-affine-parametric-tile` (tests/lit/test-affine-parametric-tile/): the tiled functions
give bit-identical arrays to the originals on the host for many tile sizes (hypothesis),
equal upstream mlir-opt-19's output on the same input, and refuse what upstream refuses with
a located error."""

from __future__ import annotations

import pathlib
import subprocess

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.backend import run_host
from compiler.diagnostics import PassError
from compiler.ir.ops import FuncOp, ModuleOp
from compiler.ir.types import MemRefType
from compiler.text import parse_module, print_module
from compiler.text.equivalence import module_diff
from compiler.transforms.registry import PassManager
from tests.compiler.transforms.lit_cases import only_func

LIT = pathlib.Path(__file__).parents[2] / "lit" / "test-affine-parametric-tile" / "parametric.mlir"
FLAG = "--test-affine-parametric-tile"
DYN = 23   # each `?` of a memref argument


def only(func: str) -> ModuleOp:
    return only_func(LIT, func)


def inputs_for(f: FuncOp, index_args: list[int], seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    scalars = iter(index_args)
    for name, a in zip(f.arg_names(), f.args, strict=True):
        t = a.type
        if isinstance(t, MemRefType):
            shape = tuple(DYN if d is None else d for d in t.shape)
            out[name] = (rng.uniform(-1, 1, shape) if t.element.is_float
                         else rng.integers(-99, 99, shape)).astype(t.element.numpy_dtype)
        else:
            out[name] = np.array(next(scalars), dtype=np.int64)
    return out


def assert_tiled_is_identical(func: str, index_args: list[int], seed: int = 0) -> None:
    before, after = only(func), only(func)
    PassManager.from_flags([FLAG]).run(after)
    assert any("ceildiv" in str(op.upper_map) for op in after.walk() if op.NAME == "affine.for")
    f = before.lookup(func)
    assert f is not None
    inputs = inputs_for(f, index_args, seed)
    want = run_host(before, inputs, func, bounds_check=True)
    got = run_host(after, inputs, func, bounds_check=True)
    assert want.keys() == got.keys()
    for key in want:
        np.testing.assert_array_equal(got[key], want[key], err_msg=f"{func} {index_args}: {key}")


size = st.integers(1, 25)


@given(ti=size, tj=size, tk=size)
def test_matmul_tiled_with_any_sizes_is_bit_identical(ti: int, tj: int, tk: int) -> None:
    assert_tiled_is_identical("matmul", [ti, tj, tk])


@given(t0=st.integers(1, 12), t1=st.integers(1, 12), n=st.integers(0, 40))
def test_steps_lower_bounds_and_min_bounds_are_bit_identical(t0: int, t1: int, n: int) -> None:
    assert_tiled_is_identical("steps_and_offsets", [t0, t1, n])


@given(t0=st.integers(1, 9), t1=st.integers(1, 9), k=st.integers(0, 30))
def test_dim_and_symbol_bounds_are_bit_identical(t0: int, t1: int, k: int) -> None:
    assert_tiled_is_identical("dim_and_symbol_bounds", [t0, t1, k])


@pytest.mark.parametrize("sizes", [[1, 1], [5, 3], [12, 9], [40, 40]])
def test_imperfect_nest_and_second_band_are_bit_identical(sizes: list[int]) -> None:
    assert_tiled_is_identical("imperfect", sizes)


@pytest.mark.mlir_opt
def test_equals_mlir_opt_19(mlir_opt: str) -> None:
    """Same ops, bounds and operands as upstream's pass on every function it tiles legally."""
    text = LIT.read_text()
    ours = parse_module(text, str(LIT))
    PassManager.from_flags([FLAG]).run(ours)
    up = subprocess.run([mlir_opt, FLAG], input=text, capture_output=True, text=True, timeout=60,
                        check=True).stdout
    upstream = parse_module(up, "<mlir-opt-19>")
    for f in ours.funcs:
        if f.sym_name == "skewed":
            continue
        a, b = ModuleOp(), ModuleOp()
        a.body.append(f.clone())
        g = upstream.lookup(f.sym_name)
        assert g is not None
        b.body.append(g.clone())
        assert module_diff(a, b, semantic_maps=True) is None, f.sym_name


@pytest.mark.mlir_opt
def test_upstream_tiles_the_skewed_band_illegally_ours_keeps_it(mlir_opt: str) -> None:
    """Upstream's test pass checks no dependence: its tiling of `skewed` changes the result;
    ours leaves the band as written (with a remark)."""
    text = print_module(only("skewed"))
    pm = PassManager.from_flags([FLAG])
    ours = parse_module(text, "<skewed>")
    pm.run(ours)
    assert print_module(ours) == text
    assert any("not tiled" in r.message for r in pm.remarks)
    up = subprocess.run([mlir_opt, FLAG], input=text, capture_output=True, text=True, timeout=60,
                        check=True).stdout
    before = parse_module(text, "<skewed>")
    f = before.lookup("skewed")
    assert f is not None
    inputs = inputs_for(f, [3, 3], seed=5)
    want = run_host(before, inputs, "skewed")
    positional = {f"arg{k}": v for k, v in enumerate(inputs.values())}   # mlir-opt renames them
    got = run_host(parse_module(up, "<mlir-opt-19>"), positional, "skewed")
    assert not np.array_equal(got["arg2"], want["A"])


BAND = """
  affine.for %i = 0 to 8 {{
    affine.for %j = {lb} to 8 {{
      %v = affine.load %A[%i, %j] : memref<8x8xf32>
      affine.store %v, %A[%i, %j] : memref<8x8xf32>
    }}
  }}"""


@pytest.mark.parametrize("args,lb,message", [
    ("%A: memref<8x8xf32>", "0", "too few tile sizes provided in the argument list of the function"),
    ("%t: index, %A: memref<8x8xf32>", "0", "expected tiling parameters to be of index type (argument #1"),
    ("%A: memref<8x8xf32>, %t: index", "0", "expected tiling parameters to be of index type (argument #0"),
    ("%t0: index, %t1: index, %A: memref<8x8xf32>", "%i",
     "tiled code generation unimplemented for the non-hyperrectangular case"),
    ("%t0: index, %t1: index, %A: memref<8x8xf32>, %n: index", "%n",
     "parametric tiling needs constant lower bounds"),
])
def test_refusals_are_located_errors(args: str, lb: str, message: str) -> None:
    text = f"func.func @f({args}) {{{BAND.format(lb=lb)}\n  return\n}}\n"
    m = parse_module(text, "case.mlir")
    with pytest.raises(PassError) as info:
        PassManager.from_flags([FLAG]).run(m)
    assert message in str(info.value)
    line = 3 if "constant lower" in message else 2   # the j loop, else the band's outer loop
    assert info.value.loc.line == line and info.value.loc.file == "case.mlir"


def test_band_with_iter_args_is_left_alone_with_a_remark() -> None:
    text = """func.func @f(%t: index, %A: memref<8xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 8 iter_args(%s = %z) -> (f32) {
    %v = affine.load %A[%i] : memref<8xf32>
    %n = arith.addf %s, %v : f32
    affine.yield %n : f32
  }
  return %r : f32
}
"""
    m = parse_module(text, "case.mlir")
    pm = PassManager.from_flags([FLAG])
    pm.run(m)
    assert print_module(m) == print_module(parse_module(text, "case.mlir"))
    assert [r.loc.line for r in pm.remarks] == [3]


def test_simulator_runs_the_tiled_matmul_and_refuses_a_zero_tile_size() -> None:
    """`--target sim --as-is` on semi-affine bounds: equal to the host run of the original
    for positive tile sizes; a tile size of 0 is a located error on the host and the
    simulator alike (a division by zero), never a traceback."""
    from accelsim.config import load_config
    from accelsim.sim.simulate import simulate
    from compiler.diagnostics import DiagnosticError

    before, after = only("matmul"), only("matmul")
    PassManager.from_flags([FLAG]).run(after)
    f = before.lookup("matmul")
    assert f is not None
    inputs = inputs_for(f, [7, 5, 3], seed=2)
    want = run_host(before, inputs, "matmul")
    sim = simulate(after, load_config("default"), inputs=inputs, func="matmul")
    assert sim.outputs is not None
    np.testing.assert_array_equal(sim.outputs["C"], want["C"])
    zero = inputs_for(f, [0, 5, 3], seed=2)
    with pytest.raises(DiagnosticError, match="ceildiv"):
        run_host(after, zero, "matmul")
    with pytest.raises(DiagnosticError, match="ceildiv") as info:
        simulate(after, load_config("default"), inputs=zero, func="matmul")
    assert info.value.loc.line > 0
