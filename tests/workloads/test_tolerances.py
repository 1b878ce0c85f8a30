"""Each workload's tolerance accepts honest f32 rounding and rejects a real error.

"Honest rounding": the reference math evaluated in float32 by numpy (BLAS order, pairwise
sums), compared with the float64 reference the tests use. "A real error": one output element
moved by 1% of the output's RMS.
"""

from __future__ import annotations

import numpy as np
import pytest

import workloads


@pytest.mark.parametrize("name", workloads.names())
def test_tolerance_accepts_f32_rounding_and_rejects_a_one_percent_error(name: str) -> None:
    w = workloads.get(name)  # default sizes, f32
    inputs = w.random_inputs(seed=2)
    expected = w.reference(inputs)
    in_f32 = w.workload.reference(**{k: v.copy() for k, v in inputs.items()}, **w.params)
    for out in w.outputs:
        np.testing.assert_allclose(np.asarray(in_f32[out]), expected[out], rtol=w.rtol, atol=w.atol,
                                   err_msg=f"{name}: f32 evaluation of {out} rejected")
        ref = expected[out].astype(np.float64)
        rms = float(np.sqrt(np.mean(ref ** 2)))
        wrong = ref.copy()
        wrong.flat[wrong.size // 2] += 0.01 * rms
        assert not np.allclose(wrong, ref, rtol=w.rtol, atol=w.atol), f"{name}: a 1% error in {out} passes"


@pytest.mark.parametrize("spec", ["gemm:M=8,N=8,K=4096", "softmax:M=2,N=8192", "row_sum:M=2,N=65536"])
def test_tolerance_scales_with_the_reduction_length(spec: str) -> None:
    w = workloads.get(spec)
    inputs = w.random_inputs(seed=3)
    expected = w.reference(inputs)
    in_f32 = w.workload.reference(**{k: v.copy() for k, v in inputs.items()}, **w.params)
    for out in w.outputs:
        np.testing.assert_allclose(np.asarray(in_f32[out]), expected[out], rtol=w.rtol, atol=w.atol)


def test_f64_tolerances_are_tighter() -> None:
    for name in workloads.names():
        f32, f64 = workloads.get(name), workloads.get(f"{name}:dtype=f64")
        assert f64.rtol < f32.rtol * 1e-6 and f64.atol < f32.atol * 1e-6


def test_tolerance_accepts_a_sequential_f32_sum() -> None:
    """The native kernels add left to right; np.cumsum in float32 does the same."""
    w = workloads.get("row_sum:M=4,N=65536")
    inputs = w.random_inputs(seed=1)
    sequential = np.cumsum(inputs["A"], axis=1, dtype=np.float32)[:, -1]
    np.testing.assert_allclose(sequential, w.reference(inputs)["sums"], rtol=w.rtol, atol=w.atol)
    g = workloads.get("gemm:M=4,N=4,K=16384")
    x = g.random_inputs(seed=1)
    products = x["A"][:, :, None] * x["B"][None, :, :]
    c = x["C"] + np.cumsum(products, axis=1, dtype=np.float32)[:, -1, :]
    np.testing.assert_allclose(c, g.reference(x)["C"], rtol=g.rtol, atol=g.atol)
