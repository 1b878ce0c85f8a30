"""Every workload compiled by the host backend against its numpy reference, at several sizes
including awkward ones (primes, 1, sizes no tile or vector width divides)."""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from compiler.backend import compile_module

SIZES: dict[str, list[str]] = {
    "gemm": ["M=1,N=1,K=1", "M=13,N=7,K=29", "M=64,N=48,K=33", "M=17,N=19,K=23,dtype=f64"],
    "batched_gemm": ["batch=1,M=5,N=3,K=7", "batch=3,M=11,N=13,K=17", "batch=2,M=8,N=16,K=4,dtype=f64"],
    "vector_add": ["N=1", "N=1021", "N=4099,dtype=f64"],
    "saxpy": ["N=1", "N=997,a=-0.75", "N=4096,a=3.0,dtype=f64"],
    "row_sum": ["M=1,N=1", "M=7,N=257", "M=31,N=63,dtype=f64"],
    "row_sum_iter": ["M=1,N=1", "M=7,N=257", "M=31,N=63,dtype=f64"],
    "softmax": ["M=1,N=1", "M=5,N=131", "M=17,N=33,dtype=f64"],
    "conv2d": ["N=1,C=1,H=3,W=3,K=1,R=3,S=3", "N=2,C=3,H=11,W=13,K=5,R=3,S=2,stride=2",
               "N=1,C=4,H=17,W=9,K=7,R=5,S=1,stride=3,dtype=f64"],
    "depthwise_conv2d": ["N=1,C=1,H=3,W=3,R=3,S=3", "N=2,C=5,H=13,W=11,R=3,S=3,stride=2",
                         "N=1,C=3,H=19,W=7,R=2,S=5,stride=1,dtype=f64"],
    "jacobi-2d": ["N=3,T=1", "N=37,T=3", "N=64,T=2,dtype=f64"],
    "2mm": ["NI=1,NJ=1,NK=1,NL=1", "NI=13,NJ=7,NK=11,NL=17", "NI=16,NJ=9,NK=5,NL=3,dtype=f64"],
    "atax": ["M=1,N=1", "M=37,N=41", "M=19,N=23,dtype=f64"],
    "bicg": ["M=1,N=1", "M=39,N=41", "M=23,N=19,dtype=f64"],
    "mvt": ["N=1", "N=43", "N=31,dtype=f64"],
    "syrk": ["N=1,M=1", "N=23,M=19", "N=17,M=29,alpha=-0.5,beta=2.0,dtype=f64"],
    "relu": ["N=1", "N=1021", "N=257,dtype=f64"],
    "sigmoid": ["N=1", "N=1021", "N=257,dtype=f64"],
    "silu": ["N=1", "N=1021", "N=257,dtype=f64"],
    "gelu": ["N=1", "N=1021", "N=257,dtype=f64"],
    "vector_mul": ["N=1", "N=1021", "N=257,dtype=f64"],
    "maxpool2d": ["N=1,C=1,H=1,W=1,R=1,S=1,stride=1", "N=2,C=3,H=13,W=11,R=3,S=3,stride=2",
                  "N=1,C=5,H=9,W=7,R=2,S=3,stride=1,dtype=f64"],
    "avgpool2d": ["N=1,C=1,H=1,W=1,R=1,S=1,stride=1", "N=2,C=3,H=7,W=7,R=7,S=7,stride=1",
                  "N=1,C=5,H=9,W=7,R=2,S=3,stride=2,dtype=f64"],
    "layernorm": ["M=1,N=1", "M=7,N=257", "M=5,N=33,eps=0.001,dtype=f64"],
    "rmsnorm": ["M=1,N=1", "M=7,N=257", "M=5,N=33,eps=0.001,dtype=f64"],
    "pad2d": ["N=1,C=1,H=1,W=1,top=0,left=0,bottom=0,right=0",
              "N=2,C=3,H=5,W=7,top=1,left=2,bottom=3,right=0",
              "N=1,C=2,H=4,W=4,top=1,left=1,bottom=1,right=1,value=-2,dtype=f64"],
    "permute": ["d0=1,d1=1,d2=1,d3=1", "d0=2,d1=3,d2=5,d3=7,p0=0,p1=2,p2=1,p3=3",
                "d0=3,d1=2,d2=4,d3=5,p0=3,p1=1,p2=0,p3=2,dtype=f64"],
    "im2col": ["C=1,H=1,W=1,R=1,S=1", "C=3,H=11,W=9,R=3,S=3,stride=2,dilation=1",
               "C=2,H=13,W=11,R=3,S=2,stride=1,dilation=3,dtype=f64"],
}

CASES = [f"{name}:{sizes}" for name, specs in SIZES.items() for sizes in specs]


def test_every_workload_has_sizes_here():
    assert set(SIZES) == set(workloads.names())


@pytest.mark.parametrize("spec", CASES)
def test_native_matches_reference(spec: str):
    w = workloads.get(spec)
    inputs = w.random_inputs(seed=11)
    expected = w.reference(inputs)
    compiled = compile_module(w.module())
    arrays = {k: v.copy() for k, v in inputs.items()}
    compiled.call(w.func_name, arrays)
    for name in expected:
        np.testing.assert_allclose(arrays[name], expected[name], rtol=w.rtol, atol=w.atol,
                                   err_msg=f"{spec}: argument {name}")
    for name in set(inputs) - set(w.outputs):  # inputs the kernel must not touch
        np.testing.assert_array_equal(arrays[name], inputs[name], err_msg=f"{spec}: {name} changed")
