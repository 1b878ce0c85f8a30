"""Every builder verifies at awkward sizes, and its IR computes what its reference computes.

The IR is run by the tiny interpreter in conftest.py (float64, tiny sizes); the native run
at real sizes is tests/workloads/test_native.py (backend).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import workloads
from compiler.ir import AffineForOp, AffineIfOp, MemRefType, ModuleOp
from compiler.ir.scope import is_valid_dim

# Per workload: sizes that are primes, 1, or divisible by nothing useful. Verified only.
AWKWARD: dict[str, list[str]] = {
    "gemm": ["M=1,N=1,K=1", "M=97,N=101,K=1", "M=509,N=3,K=257", "M=256,N=256,K=256,dtype=f64"],
    "batched_gemm": ["batch=1,M=1,N=1,K=1", "batch=7,M=13,N=17,K=19"],
    "vector_add": ["N=1", "N=1000003", "N=16777216"],
    "saxpy": ["N=1", "N=65537,a=0", "N=7,dtype=f64"],
    "row_sum": ["M=1,N=1", "M=1,N=4099", "M=331,N=7"],
    "row_sum_iter": ["M=1,N=1", "M=1,N=4099", "M=331,N=7,dtype=f64"],
    "softmax": ["M=1,N=1", "M=127,N=1", "M=3,N=1021"],
    "conv2d": ["N=1,C=1,H=1,W=1,K=1,R=1,S=1", "N=3,C=5,H=31,W=29,K=7,R=5,S=3,stride=2",
               "N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2"],
    "depthwise_conv2d": ["N=1,C=1,H=1,W=1,R=1,S=1", "N=2,C=13,H=17,W=19,R=3,S=5,stride=3"],
    "jacobi-2d": ["N=3", "N=2048", "N=97,T=2", "N=13,T=7,dtype=f64"],
    "2mm": ["NI=1,NJ=1,NK=1,NL=1", "NI=31,NJ=37,NK=41,NL=43", "NI=180,NJ=190,NK=210,NL=220,dtype=f64"],
    "atax": ["M=1,N=1", "M=389,N=401"],
    "bicg": ["M=1,N=1", "M=389,N=401"],
    "mvt": ["N=1", "N=397"],
    "syrk": ["N=1,M=1", "N=239,M=199,dtype=f64"],
    "relu": ["N=1", "N=1000003"],
    "sigmoid": ["N=1", "N=65537"],
    "silu": ["N=1", "N=65537"],
    "gelu": ["N=1", "N=65537"],
    "vector_mul": ["N=1", "N=1000003"],
    "maxpool2d": ["N=1,C=1,H=1,W=1,R=1,S=1,stride=1", "N=1,C=64,H=114,W=114,R=3,S=3,stride=2"],
    "avgpool2d": ["N=1,C=1,H=1,W=1,R=1,S=1,stride=1", "N=1,C=2048,H=7,W=7,R=7,S=7,stride=1"],
    "layernorm": ["M=1,N=1", "M=128,N=768"],
    "rmsnorm": ["M=1,N=1", "M=331,N=4096"],
    "pad2d": ["N=1,C=1,H=1,W=1,top=0,left=0,bottom=0,right=0",
              "N=1,C=3,H=224,W=224,top=3,left=3,bottom=3,right=3"],
    "permute": ["d0=1,d1=1,d2=1,d3=1", "d0=1,d1=128,d2=12,d3=64,p0=0,p1=2,p2=1,p3=3"],
    "im2col": ["C=1,H=1,W=1,R=1,S=1", "C=3,H=229,W=229,R=7,S=7,stride=2,dilation=1"],
}

# Tiny sizes the interpreter can run in milliseconds.
RUN: dict[str, list[str]] = {
    "gemm": ["M=1,N=1,K=1", "M=3,N=5,K=2"],
    "batched_gemm": ["batch=2,M=3,N=2,K=5"],
    "vector_add": ["N=1", "N=7"],
    "saxpy": ["N=5,a=-0.75"],
    "row_sum": ["M=1,N=1", "M=3,N=5"],
    "row_sum_iter": ["M=1,N=1", "M=3,N=5"],
    "softmax": ["M=1,N=1", "M=2,N=1", "M=3,N=5"],
    "conv2d": ["N=1,C=2,H=5,W=4,K=2,R=2,S=3,stride=1", "N=2,C=1,H=7,W=6,K=1,R=3,S=2,stride=2"],
    "depthwise_conv2d": ["N=1,C=2,H=5,W=6,R=3,S=2,stride=2"],
    "jacobi-2d": ["N=3,T=1", "N=6,T=1", "N=5,T=2", "N=5,T=3"],
    "2mm": ["NI=2,NJ=3,NK=5,NL=4,alpha=0.5,beta=-1.5"],
    "atax": ["M=3,N=5"],
    "bicg": ["M=3,N=5"],
    "mvt": ["N=4"],
    "syrk": ["N=1,M=1", "N=5,M=3,alpha=0.25,beta=2"],
    "relu": ["N=7"],
    "sigmoid": ["N=7"],
    "silu": ["N=7"],
    "gelu": ["N=7"],
    "vector_mul": ["N=7"],
    "maxpool2d": ["C=3,H=9,W=7,R=3,S=2,stride=2"],
    "avgpool2d": ["C=3,H=9,W=7,R=3,S=2,stride=1"],
    "layernorm": ["M=5,N=7"],
    "rmsnorm": ["M=5,N=7"],
    "pad2d": ["C=3,H=7,W=5,top=2,left=0,bottom=1,right=3"],
    "permute": ["d0=3,d1=5,d2=7,d3=2,p0=3,p1=0,p2=2,p3=1"],
    "im2col": ["C=3,H=9,W=7,R=3,S=2,stride=2,dilation=1"],
}


def test_size_tables_cover_every_workload() -> None:
    assert sorted(AWKWARD) == workloads.names()
    assert sorted(RUN) == workloads.names()


def _spec(name: str, sizes: str) -> str:
    return f"{name}:{sizes}"


@pytest.mark.parametrize("spec", [_spec(n, s) for n, ss in AWKWARD.items() for s in ss])
def test_builder_verifies_and_has_the_documented_signature(spec: str) -> None:
    w = workloads.get(spec)
    module = w.module()
    assert isinstance(module, ModuleOp)
    assert [f.sym_name for f in module.funcs] == [w.func_name]
    func = w.func(module)
    for name, t in zip(func.arg_names(), func.function_type.inputs, strict=True):
        assert isinstance(t, MemRefType) and t.has_static_shape, name
        assert t.element is w.dtype and t.memory_space == 0
        assert not name.startswith("arg"), "arguments carry meaningful names"
    _check_affine(module)


def _check_affine(module: ModuleOp) -> None:
    """Loop bounds and if conditions use only IVs, symbols and constants (no data)."""
    for op in module.walk():
        if isinstance(op, AffineForOp):
            assert all(is_valid_dim(v) for v in [*op.lower_operands, *op.upper_operands])
            assert op.lower_map.is_pure_affine() and op.upper_map.is_pure_affine()
        if isinstance(op, AffineIfOp):
            assert all(is_valid_dim(v) for v in op.operands)


@pytest.mark.parametrize("spec", [_spec(n, s) for n, ss in RUN.items() for s in ss])
def test_ir_computes_the_reference(spec: str, run_ir: Callable[..., dict[str, np.ndarray]]) -> None:
    w = workloads.get(spec + ",dtype=f64")
    inputs = w.random_inputs(seed=5)
    got = run_ir(w.module(), w.func_name, inputs)
    expected = w.reference(inputs)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-12, atol=1e-12, err_msg=name)


def test_each_call_builds_a_fresh_module() -> None:
    w = workloads.get("gemm:M=2,N=2,K=2")
    assert w.module() is not w.module()
