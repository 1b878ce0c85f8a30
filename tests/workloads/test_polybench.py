"""PolyBench/C 4.2.1, all 30 kernels: each workload's IR (a translation of PolyBench's C loop
nest) against its numpy reference (written from the math), on the host backend, on the
simulator through the default pipeline, and by the test interpreter at random tiny sizes.

The catalog-wide tests (test_builders, test_native, test_references, ...) sweep
`workloads.names()`, the library's kernels; the PolyBench kernels the library did not have
before (`workloads.names("polybench")`) are covered here.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import workloads
from compiler.backend import compile_module

# PolyBench's name -> our spec at PolyBench's SMALL dataset
SMALL: dict[str, str] = {
    "2mm": "2mm:NI=40,NJ=50,NK=70,NL=80", "3mm": "3mm", "adi": "adi", "atax": "atax:M=38,N=42",
    "bicg": "bicg:M=38,N=42", "cholesky": "cholesky", "correlation": "correlation",
    "covariance": "covariance", "deriche": "deriche", "doitgen": "doitgen", "durbin": "durbin",
    "fdtd-2d": "fdtd-2d", "floyd-warshall": "floyd-warshall", "gemm": "pb_gemm",
    "gemver": "gemver", "gesummv": "gesummv", "gramschmidt": "gramschmidt", "heat-3d": "heat-3d",
    "jacobi-1d": "jacobi-1d", "jacobi-2d": "jacobi-2d:N=90,T=80", "lu": "lu", "ludcmp": "ludcmp",
    "mvt": "mvt:N=120", "nussinov": "nussinov", "seidel-2d": "seidel-2d", "symm": "symm",
    "syr2k": "syr2k", "syrk": "syrk:N=80,M=60", "trisolv": "trisolv", "trmm": "trmm",
}

# tiny sizes (primes, 1, non-square) the host and the simulator run in about a second
TINY: dict[str, list[str]] = {
    "2mm": ["NI=3,NJ=5,NK=7,NL=4"], "3mm": ["NI=3,NJ=5,NK=7,NL=4,NM=6", "NI=1,NJ=1,NK=1,NL=1,NM=1"],
    "adi": ["TSTEPS=2,N=7", "TSTEPS=1,N=3"], "atax": ["M=5,N=7"], "bicg": ["M=7,N=5"],
    "cholesky": ["N=9", "N=1"], "correlation": ["M=7,N=9", "M=1,N=3"], "covariance": ["M=7,N=9"],
    "deriche": ["W=7,H=6", "W=1,H=3"], "doitgen": ["NR=3,NQ=4,NP=5"], "durbin": ["N=9", "N=1"],
    "fdtd-2d": ["TMAX=3,NX=6,NY=7"], "floyd-warshall": ["N=9"], "pb_gemm": ["NI=5,NJ=6,NK=7"],
    "gemver": ["N=9"], "gesummv": ["N=9"], "gramschmidt": ["M=9,N=6", "M=4,N=4"],
    "heat-3d": ["TSTEPS=2,N=6"], "jacobi-1d": ["TSTEPS=3,N=9"], "jacobi-2d": ["N=7,T=4"],
    "lu": ["N=9"], "ludcmp": ["N=9", "N=1"], "mvt": ["N=9"], "nussinov": ["N=9", "N=2"],
    "seidel-2d": ["TSTEPS=2,N=7"], "symm": ["M=6,N=7"], "syr2k": ["N=7,M=5"],
    "syrk": ["N=7,M=5"], "trisolv": ["N=9"], "trmm": ["M=6,N=7"],
}
TINY_CASES = [f"{name}:{s}" for name, sizes in TINY.items() for s in sizes]


def test_the_suite_is_complete() -> None:
    assert len(SMALL) == 30
    ours = {workloads.get(spec).name for spec in SMALL.values()}
    assert sorted(TINY) == sorted(ours)
    assert set(workloads.names("polybench")) <= ours  # every kernel of the suite is here


def _mismatches(spec: str, arrays: dict[str, np.ndarray], expected: dict[str, np.ndarray],
                w: workloads.BoundWorkload) -> list[str]:
    """The outputs that differ from the reference beyond the workload's tolerance."""
    bad = []
    for name in w.outputs:
        got, want = np.asarray(arrays[name]), np.asarray(expected[name])
        if got.shape != want.shape or not np.allclose(got, want, rtol=w.rtol, atol=w.atol):
            err = np.max(np.abs(got - want)) if got.shape == want.shape else "shape"
            bad.append(f"{spec}: {name} differs (max abs error {err})")
    return bad


def _host(spec: str) -> list[str]:
    w = workloads.get(spec)
    inputs = w.random_inputs(seed=11)
    expected = w.reference(inputs)
    arrays = {k: v.copy() for k, v in inputs.items()}
    compile_module(w.module()).call(w.func_name, arrays)
    return _mismatches(spec, arrays, expected, w)


@pytest.mark.parametrize("spec", TINY_CASES)
def test_host_matches_reference_tiny(spec: str) -> None:
    assert not _host(spec)


@pytest.mark.parametrize("kernel", sorted(SMALL))
def test_host_matches_reference_small(kernel: str) -> None:
    """PolyBench's SMALL dataset, where the references' input patterns matter (pivots,
    diagonal dominance, a stable Toeplitz sequence)."""
    assert not _host(SMALL[kernel])


@pytest.mark.parametrize("spec", TINY_CASES)
def test_sim_matches_reference(spec: str) -> None:
    import accelsim

    result = accelsim.run(spec, "default", check=True, progress=False)
    assert result.check is not None and result.check["ok"], result.check




@pytest.mark.slow
@pytest.mark.parametrize("kernel", sorted(SMALL))   # deriche too: its SMALL race is fixed
def test_sim_matches_reference_small(kernel: str) -> None:
    import accelsim

    result = accelsim.run(SMALL[kernel], "default", check=True, progress=False)
    assert result.check is not None and result.check["ok"], result.check


@pytest.mark.mlir_opt
@pytest.mark.skipif(shutil.which("mlir-opt-19") is None, reason="needs mlir-opt-19")
@pytest.mark.parametrize("kernel", sorted(SMALL))
def test_upstream_accepts_the_ir(kernel: str) -> None:
    from compiler.text import print_module

    text = print_module(workloads.get(SMALL[kernel]).module())
    proc = subprocess.run(["mlir-opt-19", "-"], input=text, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[:500]


CAPS = {"TSTEPS": 3, "TMAX": 3}


@pytest.mark.parametrize("name", workloads.names("polybench"))
def test_ir_matches_reference_at_random_sizes(name: str,
                                              run_ir: Callable[..., dict[str, np.ndarray]]) -> None:
    """The test interpreter (float64, one Python statement per op) runs the IR at sizes
    hypothesis draws; it must equal the reference to 1e-10."""
    w = workloads.lookup(name)
    strategies = {p.name: (st.just("f64") if p.kind == "dtype"
                           else st.sampled_from(["0.25", "1.5", "-0.5"]) if p.kind == "float"
                           else st.integers(p.lo or 1, max(p.lo or 1, CAPS.get(p.name, 6))).map(str))
                  for p in w.params}

    @settings(max_examples=8, deadline=None)
    @given(st.fixed_dictionaries(strategies), st.integers(0, 1000))
    def check(values: dict[str, str], seed: int) -> None:
        try:
            bound = w.bind(values)
        except workloads.WorkloadError:
            assume(False)
            return
        inputs = bound.random_inputs(seed)
        got = run_ir(bound.module(), bound.func_name, inputs)
        expected = bound.reference(inputs)
        for arg in bound.outputs:
            np.testing.assert_allclose(got[arg], expected[arg], rtol=1e-10, atol=1e-10,
                                       err_msg=f"{bound.spec}: {arg}")

    check()
