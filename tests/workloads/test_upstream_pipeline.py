"""Upstream mlir-opt-19 tiles, DMA-copies and pipelines each workload; the result, read back
by our parser and run natively, is bit-identical to the untransformed kernel.

Tiling keeps each output's accumulation order, and copies move data without arithmetic, so
equality is exact. Sizes leave partial tiles (nothing divides by 16).
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

import workloads
from compiler.backend import run_host
from compiler.text import parse_module, print_module

PIPELINE = ["--affine-loop-tile=tile-size=16",
            "--affine-data-copy-generate=generate-dma=true fast-mem-space=1 fast-mem-capacity=64",
            "--affine-pipeline-data-transfer"]

SPECS = {
    "gemm": "M=37,N=21,K=45", "batched_gemm": "batch=2,M=19,N=17,K=23", "vector_add": "N=1001",
    "saxpy": "N=999", "row_sum": "M=21,N=35", "row_sum_iter": "M=21,N=35", "softmax": "M=9,N=37",
    "conv2d": "N=1,C=3,H=21,W=19,K=5,R=3,S=3,stride=2", "depthwise_conv2d": "N=2,C=3,H=19,W=18,R=3,S=2",
    "jacobi-2d": "N=35,T=3", "2mm": "NI=19,NJ=21,NK=17,NL=23", "atax": "M=33,N=19", "bicg": "M=19,N=33",
    "mvt": "N=35", "syrk": "N=35,M=19",
    "relu": "N=1001", "sigmoid": "N=999", "silu": "N=999", "gelu": "N=999", "vector_mul": "N=1001",
    "maxpool2d": "N=1,C=3,H=19,W=21,R=3,S=3,stride=2",
    "avgpool2d": "N=1,C=3,H=19,W=21,R=2,S=3,stride=2",
    "layernorm": "M=9,N=37", "rmsnorm": "M=9,N=37",
    "pad2d": "N=1,C=3,H=17,W=19,top=1,left=2,bottom=1,right=0",
    "permute": "d0=2,d1=19,d2=17,d3=3,p0=0,p1=2,p2=1,p3=3",
    "im2col": "C=3,H=19,W=17,R=3,S=3,stride=2,dilation=1",
}


def test_every_workload_has_a_spec_here() -> None:
    assert sorted(SPECS) == workloads.names()


@pytest.mark.mlir_opt
@pytest.mark.parametrize("name", workloads.names())
def test_upstream_tile_copy_pipeline_runs_natively_and_matches(name: str, mlir_opt: str) -> None:
    w = workloads.get(f"{name}:{SPECS[name]}")
    proc = subprocess.run([mlir_opt, "-", *PIPELINE], input=print_module(w.module()),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    transformed = parse_module(proc.stdout, filename=f"mlir-opt:{name}")
    assert any(op.NAME == "affine.dma_start" for op in transformed.walk()), "upstream generated no DMA"
    inputs = w.random_inputs(seed=9)
    expected = run_host(w.module(), inputs, w.func_name)
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}  # upstream renames to %argN
    got = run_host(transformed, positional, w.func_name)
    for (name_, want), have in zip(expected.items(), got.values(), strict=True):
        np.testing.assert_array_equal(have, want, err_msg=f"{w.spec}: {name_}")
