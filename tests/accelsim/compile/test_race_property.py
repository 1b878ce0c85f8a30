"""Property (issue 31): whatever the machine, the pipeline's output is race-free and right.

Hypothesis draws a machine (two levels or three; 1, 2 or 4 clusters; the on-chip capacities;
the DMA engines) and a library kernel at a small size; the compile proves its output
race-free (`accelsim.compile.race_check`, which raises on a race), the proof is asked again
here on every cluster's program, and the event machine runs it with data against numpy.
A few examples by default (`make test`); `HYPOTHESIS_PROFILE`'s `max_examples` or
`-m slow`'s count runs more.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from accelsim.config import load_config
from accelsim.dse.cluster_run import run_clusters
from compiler.analysis.races import check_clusters, check_races
from compiler.ir.entry import entry_function

KERNELS = [
    "gemm:M=48,N=40,K=56",
    "gemm:M=100,N=1,K=64",
    "2mm:NI=24,NJ=32,NK=16,NL=24",
    "softmax:M=64,N=32",
    "conv2d:C=4,H=10,W=10,K=8",
]


@st.composite
def machines(draw: st.DrawFn) -> dict[str, object]:
    clusters = draw(st.sampled_from([1, 2, 4]))
    if draw(st.booleans()):
        return {"preset": "three_level", "clusters": clusters,
                "memory.glb.capacity_kib": draw(st.sampled_from([32, 128, 512, 4096])),
                "memory.spad.capacity_kib": draw(st.sampled_from([8, 32, 128, 512]))}
    return {"preset": "default", "clusters": clusters,
            "sram.capacity_kib": draw(st.sampled_from([8, 32, 256, 1024])),
            "dma.engines": draw(st.sampled_from([1, 2, 4]))}


def _check(machine: dict[str, object], spec: str) -> None:
    sets = {k: v for k, v in machine.items() if k != "preset"}
    cfg = load_config(str(machine["preset"]), sets)
    b = workloads.get(spec)
    inputs = b.random_inputs(0)
    run = run_clusters(b.module(), cfg, b.func_name, inputs=inputs, functional=True)
    funcs = [entry_function(m, b.func_name) for m in run.programs.modules]
    for f in funcs:
        r = check_races(f)
        assert r.ok, (machine, spec, r.races[0].message)
    assert check_clusters(funcs).ok
    want = b.reference(inputs)
    for out in b.outputs:
        np.testing.assert_allclose(run.result.outputs[out].astype(np.float64),
                                   want[out].astype(np.float64), rtol=b.rtol, atol=b.atol,
                                   err_msg=f"{machine} {spec}: {out}")


@settings(max_examples=4, deadline=None)
@given(machine=machines(), spec=st.sampled_from(KERNELS))
def test_pipeline_output_is_race_free_and_correct(machine: dict[str, object], spec: str) -> None:
    _check(machine, spec)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(machine=machines(), spec=st.sampled_from(KERNELS))
def test_pipeline_output_is_race_free_and_correct_many(machine: dict[str, object], spec: str) -> None:
    _check(machine, spec)
