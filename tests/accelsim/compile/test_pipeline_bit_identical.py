"""The whole accelerator pipeline (fusion, tile search or cache model, copies, pipelining,
scalar replacement) on `default` and `edge` changes no bit of any workload's results on the
host backend (small sizes, partial tiles)."""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from accelsim import load_config
from accelsim.compile.accelerator import compile_for_accelerator
from compiler.backend import run_host
from tests.compiler.transforms.test_pipeline_workloads import SPECS


@pytest.mark.parametrize("preset", ["default", "edge"])
@pytest.mark.parametrize("name", sorted(SPECS))
def test_compiled_workload_is_bit_identical(name: str, preset: str) -> None:
    w = workloads.get(f"{name}:{SPECS[name]}")
    inputs = w.random_inputs(seed=7)
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    want = list(run_host(w.module(), positional, w.func_name).values())
    m = w.module()
    pipe, _ = compile_for_accelerator(load_config(preset), m, w.func_name)
    assert pipe.flags()[-1] in ("--affine-scalar-replace", "--affine-dma-wait-sink")
    for a, b in zip(run_host(m, positional, w.func_name).values(), want, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=f"{name} on {preset}: {pipe.flags()}")
