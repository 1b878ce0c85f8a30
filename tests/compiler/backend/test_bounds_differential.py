"""Checked and unchecked code give the same bits on in-bounds programs: every workload, as
written and after tile / copy (DMA) / pipeline / outline, in every checking mode."""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from compiler.backend import CACHE
from compiler.backend.lower import LoweringOptions
from compiler.transforms.registry import PassManager

SPECS = {
    "gemm": "gemm:M=37,N=29,K=23", "batched_gemm": "batched_gemm:batch=2,M=11,N=13,K=9",
    "vector_add": "vector_add:N=1021", "saxpy": "saxpy:N=997,a=-0.75", "row_sum": "row_sum:M=7,N=57",
    "row_sum_iter": "row_sum_iter:M=7,N=57", "softmax": "softmax:M=5,N=41",
    "conv2d": "conv2d:N=1,C=3,H=13,W=11,K=4,R=3,S=2,stride=2",
    "depthwise_conv2d": "depthwise_conv2d:N=1,C=3,H=13,W=11,R=3,S=3,stride=2",
    "jacobi-2d": "jacobi-2d:N=37,T=3", "2mm": "2mm:NI=13,NJ=7,NK=11,NL=17", "atax": "atax:M=37,N=41",
    "bicg": "bicg:M=39,N=41", "mvt": "mvt:N=43", "syrk": "syrk:N=23,M=19",
    "relu": "relu:N=61",
    "sigmoid": "sigmoid:N=61",
    "silu": "silu:N=61",
    "gelu": "gelu:N=61",
    "vector_mul": "vector_mul:N=61",
    "maxpool2d": "maxpool2d:C=3,H=9,W=7,R=3,S=2,stride=2",
    "avgpool2d": "avgpool2d:C=3,H=9,W=7,R=3,S=2,stride=1",
    "layernorm": "layernorm:M=5,N=7",
    "rmsnorm": "rmsnorm:M=5,N=7",
    "pad2d": "pad2d:C=3,H=7,W=5,top=2,left=0,bottom=1,right=3",
    "permute": "permute:d0=3,d1=5,d2=7,d3=2,p0=3,p1=0,p2=2,p3=1",
    "im2col": "im2col:C=3,H=9,W=7,R=3,S=2,stride=2,dilation=1",
}
PIPELINES = {
    "as-written": [],
    "tiled+dma+pipelined+outlined": [
        "--affine-loop-tile=tile-size=8",
        "--affine-data-copy-generate=generate-dma=true fast-mem-space=1",
        "--affine-pipeline-data-transfer", "--outline-kernels"],
}
MODES = {
    "checked": LoweringOptions(bounds_check=True),
    "checked, no proofs": LoweringOptions(bounds_check=True, prove_bounds=False),
    "checked per access": LoweringOptions(bounds_check=True, prove_bounds=False, hoist_checks=False),
}


def test_every_workload_is_here():
    assert set(SPECS) == set(workloads.names())


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("name", SPECS)
def test_checked_code_is_bit_identical_on_in_bounds_programs(name: str, pipeline: str) -> None:
    w = workloads.get(SPECS[name])
    module = w.module()
    if PIPELINES[pipeline]:
        PassManager.from_flags(PIPELINES[pipeline]).run(module)
    inputs = w.random_inputs(seed=5)
    plain = {k: v.copy() for k, v in inputs.items()}
    CACHE.get(module, LoweringOptions()).call(w.func_name, plain)
    for out in w.outputs:  # the program is right, so that "identical" means something
        np.testing.assert_allclose(plain[out], w.reference(inputs)[out], rtol=w.rtol, atol=w.atol)
    for mode, options in MODES.items():
        got = {k: v.copy() for k, v in inputs.items()}
        CACHE.get(module, options).call(w.func_name, got)
        for k in inputs:
            assert np.array_equal(got[k], plain[k], equal_nan=True), f"{name} {pipeline} {mode}: {k}"
