"""`affine-copy-forward`, `affine-dma-start-hoist` and `affine-copy-stream` change no bit of
any result: PolyBench kernels whose nests pass data to each other through DRAM (3mm,
covariance, correlation, ludcmp at SMALL) or whose one nest had its array copied whole
(lu, cholesky), compiled by the accelerator pipeline with and without the three passes,
run bit-identically on the host backend and in the functional
simulator, to each other and to the program as written; the compiled program is proven
race-free; and the copies they remove are the DRAM bytes the run no longer moves."""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from accelsim.compile.race_check import check_compiled
from compiler.backend import run_host
from compiler.transforms.registry import PassManager

CFG = load_config("default")
SPECS = ["3mm", "covariance", "correlation", "ludcmp", "lu", "cholesky"]
PASSES = {"affine-copy-forward", "affine-dma-start-hoist", "affine-copy-stream"}


def _compiled(spec: str, on: bool):  # type: ignore[no-untyped-def]
    w = workloads.get(spec)
    m = w.module()
    pipe = accelerator_pipeline(CFG, w.module(), w.func_name).replace(copy_forward=on, start_hoist=on,
                                                                     copy_stream=on)
    pm = PassManager.from_flags(pipe.flags())
    pm.run(m)
    return w, m, pipe, pm.remarks


@pytest.mark.parametrize("spec", SPECS)
def test_forwarded_and_hoisted_copies_are_bit_identical(spec: str) -> None:
    w, new, pipe, remarks = _compiled(spec, True)
    _, old, _, _ = _compiled(spec, False)
    passes = {r.pass_name for r in remarks}
    assert passes & PASSES, spec
    check_compiled(new, w.module, pipe.passes(), pipe.flags())
    inputs = w.random_inputs(seed=5)
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    want = list(run_host(w.module(), positional, w.func_name).values())
    for m in (new, old):
        for a, b in zip(run_host(m, positional, w.func_name).values(), want, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=spec)
    runs = [simulate(m, CFG, inputs=dict(inputs), func=w.func_name) for m in (new, old)]
    assert runs[0].outputs is not None and runs[1].outputs is not None
    for name in runs[1].outputs:
        np.testing.assert_array_equal(runs[0].outputs[name], runs[1].outputs[name], err_msg=name)
    # fewer DRAM bytes and fewer cycles: the forwarded copies are gone, the rest overlap
    assert runs[0].cycles < runs[1].cycles, spec
