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


@pytest.mark.parametrize("spec", ["3mm", "covariance"])
def test_last_copy_out_streams_alone(spec: str) -> None:
    """The output written by the last nest (3mm's G, covariance's cov) has no copy-in and
    left whole after its kernel; it now leaves by rows after each piece of that nest (the
    pieces' count and alignment the estimate's choice), and the event run is faster than
    without streaming."""
    w, _, pipe, remarks = _compiled(spec, True)
    alone = [r.message for r in remarks if r.pass_name == "affine-copy-stream"
             and " out around" in r.message and " in" not in r.message.split("streamed:")[1]]
    assert alone, [r.message for r in remarks]
    cycles = []
    for p in (pipe, pipe.replace(copy_stream=False)):
        mod = w.module()
        PassManager.from_flags(p.flags()).run(mod)
        check_compiled(mod, w.module, p.passes(), p.flags())
        cycles.append(simulate(mod, CFG, func=w.func_name, functional=False).cycles)
    assert cycles[0] < cycles[1], cycles
