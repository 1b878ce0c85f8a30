"""The lit ports of upstream's pipeline-data-transfer cases (tests/lit/affine-pipeline-data-
transfer/) run: each function's pipelined form gives bit-identical arrays to the original
on the host backend, and on the simulator as given (`--as-is`: the DMAs it has)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from accelsim.config import load_config
from accelsim.sim.simulate import simulate
from compiler.backend import run_host
from compiler.ir.ops import ModuleOp
from compiler.text import print_module
from compiler.transforms.registry import PassManager
from tests.compiler.transforms.lit_cases import only_func

LIT = pathlib.Path(__file__).parents[2] / "lit" / "affine-pipeline-data-transfer"
CASES = [("double-buffer.mlir", "loop_nest_dma"), ("loop-step.mlir", "loop_step"),
         ("not-pipelined.mlir", "dependent")]



def pipelined(path: pathlib.Path, func: str) -> ModuleOp:
    m = only_func(path, func)
    PassManager.from_flags(["--affine-pipeline-data-transfer"]).run(m)
    return m


@pytest.mark.parametrize("name,func", CASES)
def test_pipelined_upstream_case_is_bit_identical(name: str, func: str) -> None:
    path = LIT / name
    before, after = only_func(path, func), pipelined(path, func)
    assert any(op.NAME == "affine.dma_start" for op in after.walk())
    assert print_module(after) != print_module(before)  # it was pipelined
    f = before.lookup(func)
    assert f is not None
    rng = np.random.default_rng(7)
    inputs = {n: rng.uniform(-1, 1, a.type.shape).astype(np.float32)  # type: ignore[attr-defined]
              for n, a in zip(f.arg_names(), f.args, strict=True)}
    want = run_host(before, inputs, func)
    got = run_host(after, inputs, func)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], err_msg=f"{name} host: {k}")
    sim = simulate(after, load_config("default"), inputs=inputs, func=func)
    assert sim.outputs is not None
    for k in want:
        np.testing.assert_array_equal(sim.outputs[k], want[k], err_msg=f"{name} sim: {k}")
