"""Spec parsing, defaults, overrides, dtype, and every error message of the registry."""

from __future__ import annotations

import re

import numpy as np
import pytest

import workloads
from compiler.diagnostics import AccelsimError
from compiler.ir import F32, F64, MemRefType
from workloads import WorkloadError, parse_spec


def test_parse_spec_splits_name_and_values() -> None:
    assert parse_spec("gemm") == ("gemm", {})
    assert parse_spec(" gemm : M = 4 , K=8 ") == ("gemm", {"M": "4", "K": "8"})
    assert parse_spec("jacobi-2d:N=10") == ("jacobi-2d", {"N": "10"})


@pytest.mark.parametrize(("spec", "message"), [
    ("", "malformed workload spec ''"),
    (":M=4", "malformed workload spec ':M=4'"),
    ("gemm:", "nothing after ':'"),
    ("gemm:M", "expected key=value, got 'M'"),
    ("gemm:M=", "expected key=value, got 'M='"),
    ("gemm:=4", "expected key=value, got '=4'"),
    ("gemm:M=4,,N=2", "expected key=value, got ''"),
    ("gemm:M=4,M=5", "'M' is given twice"),
    ("ge mm", "is not a workload name"),
])
def test_malformed_specs_are_rejected(spec: str, message: str) -> None:
    with pytest.raises(WorkloadError, match=re.escape(message)):
        workloads.get(spec)


def test_workload_error_is_an_accelsim_error() -> None:
    assert issubclass(WorkloadError, AccelsimError)


def test_unknown_workload_lists_known_names() -> None:
    with pytest.raises(WorkloadError) as info:
        workloads.get("gemmm:M=4")
    msg = str(info.value)
    assert msg.startswith("unknown workload 'gemmm'; known: ")
    assert msg.endswith(", ".join(workloads.names()))


def test_unknown_parameter_lists_parameters() -> None:
    message = "gemm has no parameter 'Q'; parameters: M, N, K, dtype"
    with pytest.raises(WorkloadError, match=re.escape(message)):
        workloads.get("gemm:Q=3")


@pytest.mark.parametrize(("spec", "message"), [
    ("gemm:M=0", "gemm: M=0 is out of range; allowed 1 <= M <= 65536"),
    ("gemm:K=70000", "gemm: K=70000 is out of range; allowed 1 <= K <= 65536"),
    ("gemm:M=-3", "gemm: M=-3 is out of range"),
    ("gemm:M=4.5", "gemm: M must be an integer, got '4.5'"),
    ("gemm:M=x", "gemm: M must be an integer, got 'x'"),
    ("relu:dtype=f16", "relu: dtype must be one of f32, f64, got 'f16'"),
    ("gemm:dtype=f12", "gemm: dtype must be one of f32, f64, f16, bf16, f8E4M3FN, f8E5M2, i4, i8, "
                       "i16, i32, got 'f12'"),
    ("gemm:acc=q8", "gemm: acc must be one of"),
    ("saxpy:a=fast", "saxpy: a must be a number, got 'fast'"),
    ("saxpy:a=inf", "saxpy: a must be finite, got 'inf'"),
    ("conv2d:H=2,R=3", "conv2d: the filter (3x3) must fit in the image (2x34): need R <= H and S <= W"),
    ("conv2d:stride=0", "conv2d: stride=0 is out of range; allowed 1 <= stride <= 16"),
])
def test_bad_values_are_rejected(spec: str, message: str) -> None:
    with pytest.raises(WorkloadError, match=re.escape(message)):
        workloads.get(spec)


def test_defaults_and_overrides() -> None:
    w = workloads.get("gemm:N=48")
    assert w.params == {"M": 256, "N": 48, "K": 256, "dtype": F32, "acc": F32, "wdtype": F32,
                        "out": None}
    assert w.spec == "gemm:M=256,N=48,K=256,dtype=f32"
    assert workloads.get(w.spec).params == w.params
    assert workloads.get("saxpy:a=-0.5").params["a"] == -0.5


def test_dtype_f64_reaches_the_module_and_the_inputs() -> None:
    w = workloads.get("gemm:M=3,N=4,K=5,dtype=f64")
    assert w.dtype is F64
    types = w.arg_types()
    assert types == {"A": MemRefType((3, 5), F64), "B": MemRefType((5, 4), F64), "C": MemRefType((3, 4), F64)}
    inputs = w.random_inputs(7)
    assert all(a.dtype == np.float64 for a in inputs.values())
    assert all(a.dtype == np.float64 for a in w.reference(inputs).values())


def test_lookup_by_function_name() -> None:
    for name in workloads.names():
        w = workloads.lookup(name)
        assert workloads.lookup(w.func_name) is w


def test_is_workload_spec() -> None:
    assert workloads.is_workload_spec("gemm:M=4")
    assert not workloads.is_workload_spec("workloads/mlir/gemm.mlir")
    assert not workloads.is_workload_spec("nosuch")


def test_random_inputs_are_deterministic_and_in_range() -> None:
    w = workloads.get("gemm:M=17,N=9,K=33")
    a, b, c = w.random_inputs(3), w.random_inputs(3), w.random_inputs(4)
    assert a.keys() == {"A", "B", "C"}
    for name in a:
        assert a[name].dtype == np.float32 and a[name].flags.c_contiguous
        np.testing.assert_array_equal(a[name], b[name])
        assert not np.array_equal(a[name], c[name])
        assert a[name].min() >= -1.0 and a[name].max() < 1.0


def test_reference_returns_every_argument_and_leaves_inputs_alone() -> None:
    w = workloads.get("gemm:M=5,N=6,K=7")
    inputs = w.random_inputs(0)
    before = {k: v.copy() for k, v in inputs.items()}
    out = w.reference(inputs)
    assert out.keys() == inputs.keys()
    for k in inputs:
        np.testing.assert_array_equal(inputs[k], before[k])
    np.testing.assert_array_equal(out["A"], inputs["A"])
    assert not np.array_equal(out["C"], inputs["C"])


def test_reference_rejects_missing_or_misshaped_inputs() -> None:
    w = workloads.get("gemm:M=5,N=6,K=7")
    inputs = w.random_inputs(0)
    with pytest.raises(WorkloadError, match="inputs lack B; expected A, B, C"):
        w.reference({"A": inputs["A"], "C": inputs["C"]})
    with pytest.raises(WorkloadError, match=re.escape("input 'A' has shape (7, 5), expected (5, 7)")):
        w.reference({**inputs, "A": inputs["A"].T.copy()})


def test_bind_checks_python_values_too() -> None:
    gemm = workloads.lookup("gemm")
    assert gemm.bind({"M": 3}).params["M"] == 3
    with pytest.raises(WorkloadError, match="M must be an integer"):
        gemm.bind({"M": True})
    with pytest.raises(WorkloadError, match="out of range"):
        gemm.bind({"M": 0})


def test_every_workload_describes_itself() -> None:
    for name in workloads.names():
        w = workloads.lookup(name)
        assert w.tolerance_reason and w.summary
        bound = w.bind()
        assert bound.outputs and set(bound.outputs) <= set(bound.arg_types())
        assert 0 < bound.rtol < 1e-2 and 0 < bound.atol < 1e-1
        assert w.param("dtype").kind == "dtype"


def test_random_inputs_agree_with_the_backend_generator() -> None:
    """`accelsim run SPEC --seed N` (backend generator) and the workload see the same inputs."""
    from compiler.backend import random_inputs

    for name in workloads.names():
        w = workloads.get(name + ":dtype=f64") if name != "vector_add" else workloads.get("vector_add:N=9")
        ours, theirs = w.random_inputs(5), random_inputs(w.func(), 5)
        assert ours.keys() == theirs.keys()
        for k in ours:
            np.testing.assert_array_equal(ours[k], theirs[k], err_msg=f"{name}: {k}")


def test_describe_lists_parameters_defaults_and_ranges(capsys: pytest.CaptureFixture[str]) -> None:
    from workloads.__main__ import main

    assert main(["gemm", "jacobi_2d"]) == 0
    out = capsys.readouterr().out
    assert "default: @gemm(A: memref<256x256xf32>, B: memref<256x256xf32>, C: memref<256x256xf32>)" in out
    assert "K       = 256      columns of A, rows of B; 1 <= K <= 65536" in out
    assert "jacobi-2d  (@jacobi_2d)" in out and "writes: B\n" in out
    assert main(["nope"]) == 1
    assert "unknown workload 'nope'; known: 2mm" in capsys.readouterr().err


def test_a_workload_is_valid_from_construction() -> None:
    gemm = workloads.lookup("gemm")
    fields = dict(name="bad", func_name="bad", summary="", build=gemm.build, reference=gemm.reference,
                  outputs=("C",), tolerance=gemm.tolerance, tolerance_reason="")
    dtype = gemm.param("dtype")
    with pytest.raises(ValueError, match="duplicate parameter names"):
        workloads.Workload(params=(gemm.params[0], gemm.params[0], dtype), **fields)
    with pytest.raises(ValueError, match="exactly one dtype parameter"):
        workloads.Workload(params=tuple(p for p in gemm.params if p.name != "dtype"), **fields)
    with pytest.raises(WorkloadError, match="M=0 is out of range"):
        workloads.Workload(params=(workloads.Param("M", 0, "rows"), dtype), **fields)
