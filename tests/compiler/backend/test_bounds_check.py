"""Bounds-checked host mode (issue 14): an access outside its memref is a located error naming
the index, its dimension and the allowed range, never a SIGSEGV or garbage; in-bounds programs
give bit-identical results with and without the checks."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from compiler.backend import CACHE, OutOfBoundsError, compile_module, run_host
from compiler.backend.lower import LoweringOptions
from compiler.ir import F32, INDEX, Builder, memref
from compiler.text import parse_module

ROOT = Path(__file__).resolve().parents[3]

FAR_STORE = """\
module {
  func.func @f(%A: memref<4xf32>) {
    %c = arith.constant 1.0 : f32
    affine.for %i = 0 to 4 {
      affine.store %c, %A[%i * 100000000] : memref<4xf32>
    }
    return
  }
}
"""

# A strided copy-out within memory space 0: the stride applies to the source (the lower or
# equal space), so it walks 8 rows of 64 through an 8x8 buffer.
STRIDED_COPY_OUT = """\
module {
  func.func @f(%A: memref<64x64xf32>) {
    %buf = memref.alloc() : memref<8x8xf32>
    %tag = memref.alloc() : memref<1xi32>
    %c0 = arith.constant 0 : index
    %n = arith.constant 64 : index
    %stride = arith.constant 64 : index
    %per = arith.constant 8 : index
    affine.dma_start %buf[%c0, %c0], %A[%c0, %c0], %tag[%c0], %n, %stride, %per
        : memref<8x8xf32>, memref<64x64xf32>, memref<1xi32>
    affine.dma_wait %tag[%c0], %n : memref<1xi32>
    memref.dealloc %buf : memref<8x8xf32>
    memref.dealloc %tag : memref<1xi32>
    return
  }
}
"""

OFF_BY_ONE = """\
module {
  func.func @f(%A: memref<4xf32>, %B: memref<4xf32>) {
    affine.for %i = 0 to 4 {
      %v = affine.load %A[%i + 1] : memref<4xf32>
      affine.store %v, %B[%i] : memref<4xf32>
    }
    return
  }
}
"""

NEGATIVE = """\
module {
  func.func @f(%A: memref<3x5xf32>, %B: memref<3x5xf32>) {
    affine.for %i = 0 to 3 {
      affine.for %j = 0 to 5 {
        %v = affine.load %A[%i, %j - 2] : memref<3x5xf32>
        affine.store %v, %B[%i, %j] : memref<3x5xf32>
      }
    }
    return
  }
}
"""


def _child(body: str, tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    """Run `body` in a fresh interpreter (a SIGSEGV there must not kill the test process)."""
    mlir = tmp_path / "k.mlir"
    mlir.write_text(source)
    code = textwrap.dedent(f"""
        import numpy as np
        from compiler.backend import compile_module, random_inputs
        from compiler.text import parse_file
        module = parse_file({str(mlir)!r})
        func = module.funcs[0]
        inputs = random_inputs(func, 0)
    """) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("source,line,message", [
    (FAR_STORE, 5, "affine.store into %A (memref<4xf32>) out of bounds: index 300000000 of "
                   "dimension 0 not in [0, 3] (checked before its loop nest ran, which would "
                   "reach this index)"),
    (STRIDED_COPY_OUT, 9, "affine.dma_start source %buf (memref<8x8xf32>) out of bounds: the "
                          "transfer touches elements [0, 456) in row-major order, outside the 64 "
                          "element(s) of the memref: it reaches element [8, 0], index 8 of "
                          "dimension 0 not in [0, 7]"),
])
def test_accesses_that_crashed_the_process_are_located_errors(tmp_path, source, line, message):
    """Unchecked, these die with SIGSEGV (exit 139, no message); checked, the run stops."""
    run = _child("""
        try:
            from compiler.backend import OutOfBoundsError
            compiled = compile_module(module, bounds_check=True)
        except (ImportError, TypeError):  # a tree without the mode: show what happens there
            OutOfBoundsError = IndexError
            compiled = compile_module(module)
        try:
            compiled.call(func.sym_name, inputs)
        except OutOfBoundsError as exc:
            print(exc)
        else:
            print("no error")
    """, tmp_path, source)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == f"{tmp_path / 'k.mlir'}:{line}:{5 if line == 9 else 7}: error: {message}"


def test_mlir_input_on_the_cli_is_checked_by_default(tmp_path):
    """`accelsim run k.mlir` used to exit 139; now 1 with the located error and the caret."""
    mlir = tmp_path / "k.mlir"
    mlir.write_text(FAR_STORE)
    run = subprocess.run([sys.executable, "-m", "accelsim", "run", str(mlir)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, (run.returncode, run.stderr[-2000:])
    assert f"{mlir}:5:7: error: affine.store into %A" in run.stderr
    assert "affine.store %c, %A[%i * 100000000]" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("source,expected", [
    (OFF_BY_ONE, ":4:7: error: affine.load from %A (memref<4xf32>) out of bounds: index 4 of "
                 "dimension 0 not in [0, 3]"),
    (NEGATIVE, ":5:9: error: affine.load from %A (memref<3x5xf32>) out of bounds: index -2 of "
               "dimension 1 not in [0, 4]"),
])  # (a hoisted check finds the same index here: the extreme is the first one outside)
@pytest.mark.parametrize("options,ahead", [
    (LoweringOptions(bounds_check=True), True),
    (LoweringOptions(bounds_check=True, prove_bounds=False), True),
    (LoweringOptions(bounds_check=True, prove_bounds=False, hoist_checks=False), False),
], ids=["proofs", "hoisted", "per-access"])
def test_off_by_one_and_negative_indices_are_reported_not_garbage(source, expected, options, ahead):
    module = parse_module(source, "k.mlir")
    compiled = CACHE.get(module, options)
    arrays = {"A": np.ones(module.funcs[0].function_type.inputs[0].shape, np.float32)}
    arrays["B"] = np.zeros_like(arrays["A"])
    with pytest.raises(OutOfBoundsError) as err:
        compiled.call("f", arrays)
    suffix = " (checked before its loop nest ran, which would reach this index)" if ahead else ""
    assert str(err.value) == "k.mlir" + expected + suffix


def test_run_stops_at_the_first_bad_access_with_per_access_checks():
    """Checked at each access, the run stops at the first one outside: what came before it
    is written, nothing after."""
    module = parse_module(OFF_BY_ONE, "k.mlir")
    compiled = CACHE.get(module, LoweringOptions(bounds_check=True, prove_bounds=False,
                                                 hoist_checks=False))
    a = np.arange(4, dtype=np.float32) + 1
    b = np.zeros(4, np.float32)
    with pytest.raises(OutOfBoundsError, match="index 4 of dimension 0"):
        compiled.call("f", [a, b])
    np.testing.assert_array_equal(b, [2, 3, 4, 0])


def test_dynamic_shapes_are_checked_against_the_arrays_passed():
    """isl cannot prove a `?` extent: the check stays (hoisted before the loop band) and uses
    the extent the caller's array has."""
    b = Builder()
    with b.func("k", x=memref((None,), F32), y=memref((None,), F32), n=INDEX) as (x, y, n):
        for i in b.range(0, n):
            y[i] = x[i] * 2.0
    for options in (LoweringOptions(bounds_check=True),
                    LoweringOptions(bounds_check=True, hoist_checks=False)):
        compiled = CACHE.get(b.module, options)
        x = np.arange(10, dtype=np.float32)
        y = np.zeros(10, np.float32)
        compiled.call("k", [x, y, 10])
        np.testing.assert_array_equal(y, x * 2)
        with pytest.raises(OutOfBoundsError, match=r"index 9 of dimension 0 not in \[0, 8\]"):
            compiled.call("k", [x, np.zeros(9, np.float32), 10])
        compiled.call("k", [x, y, 0])  # an empty loop checks nothing


def test_checks_a_loop_never_runs_never_fire():
    """Hoisted checks run only when the band has iterations; an access under a false
    affine.if is never checked."""
    b = Builder()
    with b.func("k", x=memref((4,), F32), n=INDEX) as (x, n):
        for i in b.range(0, n):
            x[i + 100] = 1.0
        for i in b.range(4):
            with b.if_(i - 10 >= 0):
                x[i + 100] = 2.0
    compiled = compile_module(b.module, bounds_check=True)
    x = np.zeros(4, np.float32)
    compiled.call("k", [x, 0])
    np.testing.assert_array_equal(x, 0)
    with pytest.raises(OutOfBoundsError, match="index 100 of dimension 0"):
        compiled.call("k", [x, 1])


def test_bounds_check_is_part_of_the_cache_key():
    b = Builder()
    with b.func("k", x=memref((8,), F32)) as (x,):
        for i in b.range(8):
            x[i] = x[i] + 1.0
    plain = compile_module(b.module)
    checked = compile_module(b.module, bounds_check=True)
    assert plain is not checked and plain.options.bounds_check is False
    assert compile_module(b.module, bounds_check=True) is checked
    assert run_host(b.module, {"x": np.ones(8, np.float32)}, bounds_check=True)["x"].tolist() == [2.0] * 8


def test_proven_accesses_cost_no_check_and_unproven_ones_do():
    """isl proves every access of a static workload in bounds: no check left in the code."""
    import workloads

    w = workloads.get("gemm:M=13,N=7,K=29")
    proven = CACHE.get(w.module(), LoweringOptions(bounds_check=True))
    unproven = CACHE.get(w.module(), LoweringOptions(bounds_check=True, prove_bounds=False))
    assert proven._sites[True] == [] and len(unproven._sites[True]) == 4
    assert "check.fail" not in str(proven._ir[True]) and "check.fail" in str(unproven._ir[True])


def test_hoisted_checks_compute_inner_bounds_only_where_the_loops_would():
    """An inner bound `m floordiv d` with d = 0 inside an outer loop that never runs: the
    program never divides, so neither may its hoisted check."""
    text = """\
module {
  func.func @f(%A: memref<8xf32>, %n: index, %m: index, %d: index) {
    %c = arith.constant 1.0 : f32
    affine.for %i = 0 to %n {
      affine.for %j = 0 to affine_map<()[s0, s1] -> (s0 floordiv s1)>()[%m, %d] {
        affine.store %c, %A[%j] : memref<8xf32>
      }
    }
    return
  }
}
"""
    module = parse_module(text, "k.mlir")
    compiled = CACHE.get(module, LoweringOptions(bounds_check=True))
    a = np.zeros(8, np.float32)
    compiled.call("f", [a, 0, 16, 0])  # the outer loop is empty: nothing divides
    compiled.call("f", [a, 1, 16, 2])  # j < 8: in bounds
    np.testing.assert_array_equal(a, 1)
    with pytest.raises(OutOfBoundsError, match=r"index 8 of dimension 0 not in \[0, 7\]"):
        compiled.call("f", [a, 1, 18, 2])
