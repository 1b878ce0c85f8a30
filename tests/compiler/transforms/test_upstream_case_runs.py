"""The lit ports of upstream's affine-loop-tile and affine-data-copy-generate cases
(tests/lit/affine-*/) run: each function, transformed with its lit file's flags, gives
bit-identical arrays to the original on the host backend (and, where it has DMAs, on the
simulator as given), for random data and, where it takes index symbols, several values of
them (including ones that empty its loops)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from accelsim.config import load_config
from accelsim.sim.simulate import simulate
from compiler.backend import run_host
from compiler.ir.ops import FuncOp
from compiler.ir.types import MemRefType
from compiler.transforms.registry import PassManager
from tests.compiler.transforms.lit_cases import only_func

LIT = pathlib.Path(__file__).parents[2] / "lit"
POINTWISE = "--affine-data-copy-generate=generate-dma=false fast-mem-space=1 skip-non-unit-stride-loops"
DMA = "--affine-data-copy-generate=generate-dma fast-mem-space=1 skip-non-unit-stride-loops"
TILE = "--affine-loop-tile=tile-size=32"

# (lit file, flag, function, index arguments (name -> value) per run, size of each `?`)
CASES: list[tuple[str, str, str, list[dict[str, int]], int]] = [
    ("affine-data-copy-generate/affine-data-copy.mlir", POINTWISE, "matmul", [{}], 0),
    ("affine-data-copy-generate/affine-data-copy.mlir", POINTWISE, "min_upper_bound", [{}], 0),
    ("affine-data-copy-generate/affine-data-copy.mlir", POINTWISE, "max_lower_bound",
     [{"i": 0, "j": 0}, {"i": 1, "j": 0}, {"i": 0, "j": 50}, {"i": 1, "j": 85}], 0),
    ("affine-data-copy-generate/affine-data-copy.mlir", DMA, "max_lower_bound",
     [{"i": 1, "j": 0}, {"i": 1, "j": 85}], 0),
    *(("affine-data-copy-generate/dma-generate.mlir", DMA, f, [{}], 0)
      for f in ("loop_nest_1d", "loop_nest_tiled", "dma_constant_dim_access", "multi_load_store_union",
                "empty_loops")),
    ("affine-loop-tile/loop-tiling.mlir", TILE, "loop_max_min_bound",
     [{"L": 5, "M": 1000, "U": 900}, {"L": 0, "M": 4096, "U": 8192}, {"L": 40, "M": 7, "U": 9}], 0),
    ("affine-loop-tile/loop-tiling.mlir", TILE, "symbolic_upper_bounds", [{"N": 45}, {"N": 0}], 45),
    ("affine-loop-tile/loop-tiling.mlir", TILE, "upper_bound_two_symbols", [{"D": 30, "L": 41}], 71),
    ("affine-loop-tile/loop-tiling.mlir", TILE, "non_unit_step", [{"N": 50}, {"N": 3}], 0),
    ("affine-loop-tile/loop-tiling.mlir", TILE, "larger_than_trip_count", [{"M": 3, "N": 5}], 9),
]



def inputs_for(f: FuncOp, index_args: dict[str, int], dyn: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for name, a in zip(f.arg_names(), f.args, strict=True):
        t = a.type
        if isinstance(t, MemRefType):
            shape = tuple(dyn if d is None else d for d in t.shape)
            dt = t.element.numpy_dtype
            out[name] = (rng.uniform(-1, 1, shape) if t.element.is_float
                         else rng.integers(-9, 9, shape)).astype(dt)
        else:
            out[name] = np.array(index_args[name], dtype=np.int64)
    return out


@pytest.mark.parametrize("name,flag,func,index_runs,dyn", CASES,
                         ids=[f"{c[0].split('/')[1]}:{c[2]}:{c[1].split('=')[0][2:]}" for c in CASES])
def test_transformed_upstream_case_is_bit_identical(name: str, flag: str, func: str,
                                                     index_runs: list[dict[str, int]], dyn: int) -> None:
    path = LIT / name
    before, after = only_func(path, func), only_func(path, func)
    PassManager.from_flags([flag]).run(after)
    f = before.lookup(func)
    assert f is not None
    has_dma = any(op.NAME == "affine.dma_start" for op in after.walk())
    for k, index_args in enumerate(index_runs):
        inputs = inputs_for(f, index_args, dyn, seed=k)
        want = run_host(before, inputs, func, bounds_check=True)
        got = run_host(after, inputs, func)
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=f"{func} host {index_args}: {key}")
        if has_dma:
            sim = simulate(after, load_config("server"), inputs=inputs, func=func)  # 4 MiB SRAM
            assert sim.outputs is not None
            for key in want:
                np.testing.assert_array_equal(sim.outputs[key], want[key], err_msg=f"{func} sim: {key}")


def test_linalg_matmul_through_the_affine_passes_is_bit_identical() -> None:
    """then-tile-and-copy.mlir: lowered, tiled, DMA-copied and pipelined equals lowered only
    (host and simulator), and equals numpy."""
    path = LIT / "convert-linalg-to-affine-loops" / "then-tile-and-copy.mlir"
    lowered, full = only_func(path, "mm"), only_func(path, "mm")
    PassManager.from_flags(["--convert-linalg-to-affine-loops"]).run(lowered)
    PassManager.from_flags(["--convert-linalg-to-affine-loops", "--affine-loop-tile=tile-sizes=16,16,8",
                            "--affine-data-copy-generate=generate-dma fast-mem-space=1 fast-mem-capacity=16",
                            "--affine-pipeline-data-transfer"]).run(full)
    f = lowered.lookup("mm")
    assert f is not None
    inputs = inputs_for(f, {}, 0, seed=11)
    want = run_host(lowered, inputs, "mm")
    np.testing.assert_allclose(want["C"], inputs["C"] + inputs["A"].astype(np.float64) @ inputs["B"],
                               rtol=1e-5, atol=1e-5)
    got = run_host(full, inputs, "mm")
    sim = simulate(full, load_config("default"), inputs=inputs, func="mm")
    assert sim.outputs is not None
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])
        np.testing.assert_array_equal(sim.outputs[key], want[key])
