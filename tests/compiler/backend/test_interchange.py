"""The backend's loop interchange: taken where LLVM needs it, refused where illegal, and the
results stay bit-identical to the original loop order."""

import numpy as np
import pytest

import workloads
from compiler.backend import compile_module
from compiler.backend.interchange import plan_interchanges
from compiler.ir import F32, Builder, memref


@pytest.mark.parametrize("spec", [
    "gemm:M=33,N=40,K=17", "batched_gemm:batch=2,M=9,N=24,K=11",
    "conv2d:N=1,C=3,H=12,W=21,K=4,R=3,S=2,stride=1", "conv2d:N=2,C=2,H=15,W=30,K=3,R=2,S=3,stride=1",
    "depthwise_conv2d:N=1,C=3,H=11,W=29,R=3,S=3,stride=1",
])
def test_interchanged_kernels_are_bit_identical_to_the_original_order(spec):
    w = workloads.get(spec)
    assert plan_interchanges(w.func(w.module())), "expected the backend to reorder this nest"
    outs = []
    for interchange in (False, True):
        arrays = w.random_inputs(seed=4)
        compile_module(w.module(), interchange=interchange).call(w.func_name, arrays)
        outs.append(arrays)
    for name in w.outputs:
        np.testing.assert_array_equal(outs[0][name], outs[1][name])


def test_gemm_puts_the_unit_stride_loop_innermost():
    w = workloads.get("gemm:M=16,N=16,K=16")
    f = w.func(w.module())
    (order,) = plan_interchanges(f).values()
    i = f.body.ops[0]
    j = i.body.ops[0]
    k = j.body.ops[0]
    assert order == [k, j]  # i, k, j


def _skewed(n: int):
    """A[j, i] = A[j + 1, i - 1] + 1: i is unit-stride but the (1, -1) flow dependence forbids
    moving it inside j."""
    b = Builder()
    with b.func("k", A=memref((n + 1, n), F32)) as (A,):
        for i in b.range(1, n):
            for j in b.range(0, n):
                A[j, i] = A[j + 1, i - 1] + 1.0
    return b.module


def test_illegal_interchange_is_refused_and_results_follow_the_original_order():
    n = 24
    m = _skewed(n)
    assert plan_interchanges(m.funcs[0]) == {}
    a = np.random.default_rng(0).uniform(-1, 1, (n + 1, n)).astype(np.float32)
    want = a.copy()
    for i in range(1, n):
        for j in range(n):
            want[j, i] = want[j + 1, i - 1] + np.float32(1)
    compile_module(m).call(None, [a])
    np.testing.assert_array_equal(a, want)


def test_no_interchange_when_arguments_overlap():
    """gemm with A and C the same buffer: the loop order is observable, so the alias-safe
    variant must run the original i, j, k order."""
    n = 8
    w = workloads.get(f"gemm:M={n},N={n},K={n},dtype=f64")
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (n, n))
    bm = rng.uniform(-1, 1, (n, n))
    want = x.copy()
    for i in range(n):
        for j in range(n):
            for k in range(n):
                want[i, j] = want[i, j] + want[i, k] * bm[k, j]
    compile_module(w.module()).call("gemm", {"A": x, "B": bm, "C": x})
    np.testing.assert_array_equal(x, want)
