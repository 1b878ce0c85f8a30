"""`affine-scalar-replace`: loop-invariant accesses of innermost loops kept in values.

Differential: every workload, as written and after tile -> copy -> pipeline, gives
bit-identical results on the host backend with the pass added; the pass must act on the
reduction workloads (atax, bicg, mvt, gemm) and cut their loads and stores by the closed form.
Unit tests on small MLIR: what is replaced, and each condition that keeps an access in memory.
"""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from compiler.analysis.counting import count_ops
from compiler.backend import run_host
from compiler.ir.ops import AffineForOp
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module
from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass
from compiler.transforms.affine_pipeline_data_transfer import AffinePipelineDataTransferPass
from compiler.transforms.affine_scalar_replace import AffineScalarReplacePass, scalar_replace
from compiler.transforms.registry import PASSES
from tests.compiler.transforms.fixtures import copy_support as cs
from tests.compiler.transforms.test_pipeline_workloads import SPECS

ACTS_ON = {"atax", "bicg", "mvt", "gemm", "2mm", "batched_gemm", "row_sum"}  # syrk: triangular


def _run(module, inputs, func):
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    return list(run_host(module, positional, func).values())


def _replaced(module) -> int:
    return sum(scalar_replace(f) for f in module.funcs if not f.is_declaration)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_workload_as_written_is_bit_identical(name):
    w = workloads.get(f"{name}:{SPECS[name]}")
    inputs = w.random_inputs(seed=3)
    want = _run(w.module(), inputs, w.func_name)
    m = w.module()
    n = _replaced(m)
    verify(m)
    if name in ACTS_ON:
        assert n > 0, f"{name}: nothing replaced"
    for a, b in zip(_run(m, inputs, w.func_name), want, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_workload_through_the_pipeline_is_bit_identical(name):
    w = workloads.get(f"{name}:{SPECS[name]}")
    inputs = w.random_inputs(seed=4)
    want = _run(w.module(), inputs, w.func_name)
    m = cs.tile(w.module(), 5)
    AffineDataCopyGeneratePass("generate-dma fast-mem-capacity=2").run(m)
    AffinePipelineDataTransferPass("stages=2 fast-mem-capacity=2").run(m)
    AffineScalarReplacePass().run(m)
    verify(m)
    for a, b in zip(_run(m, inputs, w.func_name), want, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)


def test_registered_under_its_flag():
    assert PASSES["affine-scalar-replace"] is AffineScalarReplacePass


def test_atax_accesses_follow_the_closed_form():
    """atax M x N: the tmp accumulator of the first j loop (2 accesses per iteration) and the
    tmp read of the second (1) leave the loops: 3*M*N fewer accesses, plus 3 per row."""
    M, N = 17, 11
    w = workloads.get(f"atax:M={M},N={N}")
    before = count_ops(w.module().funcs[0], [None] * 4)
    m = w.module()
    assert _replaced(m) == 2
    after = count_ops(m.funcs[0], [None] * 4)
    assert before.load + before.store - (after.load + after.store) == 3 * M * N - 3 * M
    assert (before.mac, before.mul, before.add) == (after.mac, after.mul, after.add)
    assert after.matmul_like is False


ACC = """
func.func @f(%A: memref<8x16xf32>, %x: memref<16xf32>, %y: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      %a = affine.load %y[%i] : memref<8xf32>
      %b = affine.load %A[%i, %j] : memref<8x16xf32>
      %c = affine.load %x[%j] : memref<16xf32>
      %d = arith.mulf %b, %c : f32
      %e = arith.addf %a, %d : f32
      affine.store %e, %y[%i] : memref<8xf32>
    }
  }
  return
}
"""


def _inputs(module, seed=0):
    rng = np.random.default_rng(seed)
    f = module.funcs[0]
    return {f"arg{k}": rng.uniform(-1, 1, a.type.shape).astype(np.float32)
            for k, a in enumerate(f.args)}


def _check_same(text: str, expect_changed: int):
    orig = parse_module(text)
    m = parse_module(text)
    p = AffineScalarReplacePass()
    p.run(m)
    verify(m)
    changed = print_module(m) != print_module(orig)
    assert changed == bool(expect_changed)
    inputs = _inputs(orig)
    for a, b in zip(run_host(m, inputs).values(), run_host(orig, inputs).values(), strict=True):
        np.testing.assert_array_equal(a, b)
    return m, p


def test_accumulator_becomes_an_iter_arg():
    m, _ = _check_same(ACC, 1)
    inner = [op for op in m.funcs[0].walk() if isinstance(op, AffineForOp)][1]
    assert len(inner.inits) == 1 and len(inner.results) == 1
    text = print_module(m)
    assert "iter_args" in text and "affine.yield" in text
    c = count_ops(m.funcs[0], [None] * 3)
    assert (c.load, c.store) == (8 * 16 * 2 + 8, 8)


def _kernel(body: str) -> str:
    return ("func.func @f(%A: memref<8x16xf32>, %x: memref<16xf32>, %y: memref<8xf32>) {\n"
            "  affine.for %i = 0 to 8 {\n    affine.for %j = 0 to 16 {\n" + body +
            "    }\n  }\n  return\n}\n")


def test_invariant_read_is_loaded_once():
    m, _ = _check_same(_kernel("""
      %a = affine.load %y[%i] : memref<8xf32>
      %b = affine.load %A[%i, %j] : memref<8x16xf32>
      %e = arith.mulf %a, %b : f32
      affine.store %e, %A[%i, %j] : memref<8x16xf32>
"""), 1)
    c = count_ops(m.funcs[0], [None] * 3)
    assert (c.load, c.store) == (8 * 16 + 8, 8 * 16)
    assert "iter_args" not in print_module(m)


def test_repeated_load_in_one_iteration_is_forwarded():
    m, _ = _check_same(_kernel("""
      %b = affine.load %A[%i, %j] : memref<8x16xf32>
      %c = affine.load %A[%i, %j] : memref<8x16xf32>
      %e = arith.mulf %b, %c : f32
      affine.store %e, %x[%j] : memref<16xf32>
"""), 1)
    c = count_ops(m.funcs[0], [None] * 3)
    assert c.load == 8 * 16


def test_index_defined_in_the_loop_is_kept():
    _check_same(_kernel("""
      %a = affine.load %x[%j] : memref<16xf32>
      %b = affine.load %A[%i, %j] : memref<8x16xf32>
      %e = arith.addf %a, %b : f32
      affine.store %e, %x[%j] : memref<16xf32>
"""), 0)


def test_another_store_that_may_hit_the_element_blocks_it():
    """y[i] is the accumulator, but the loop also stores y[j mod 8]: it may be y[i]."""
    text = ACC.replace("memref<16xf32>, %y: memref<8xf32>", "memref<16xf32>, %y: memref<8xf32>") \
              .replace("      affine.store %e, %y[%i] : memref<8xf32>\n",
                       "      affine.store %e, %y[%i] : memref<8xf32>\n"
                       "      affine.store %c, %y[%j mod 8] : memref<8xf32>\n")
    _check_same(text, 0)


def test_another_access_proven_disjoint_does_not_block_it():
    """y is 9 long: the accumulator is y[8] (after the loop over i < 8), the loop also stores
    y[i]: isl proves they never meet."""
    text = """
func.func @f(%A: memref<8x16xf32>, %x: memref<16xf32>, %y: memref<9xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      %a = affine.load %y[8] : memref<9xf32>
      %b = affine.load %A[%i, %j] : memref<8x16xf32>
      %e = arith.addf %a, %b : f32
      affine.store %e, %y[8] : memref<9xf32>
      affine.store %b, %y[%i] : memref<9xf32>
    }
  }
  return
}
"""
    m, _ = _check_same(text, 1)
    assert "iter_args" in print_module(m)


def test_loop_of_unknown_trip_count_is_kept_with_a_remark():
    text = """
func.func @f(%A: memref<8x16xf32>, %y: memref<8xf32>, %n: index) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to %n {
      %a = affine.load %y[%i] : memref<8xf32>
      %b = affine.load %A[%i, %j] : memref<8x16xf32>
      %e = arith.addf %a, %b : f32
      affine.store %e, %y[%i] : memref<8xf32>
    }
  }
  return
}
"""
    orig, m = parse_module(text), parse_module(text)
    p = AffineScalarReplacePass()
    p.run(m)
    assert print_module(m) == print_module(orig)
    assert any("trip count" in r.message for r in p.remarks)


def test_loop_with_a_call_is_kept():
    text = """
func.func private @g(%y: memref<8xf32>) {
  return
}
func.func @f(%A: memref<8x16xf32>, %y: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      %a = affine.load %y[%i] : memref<8xf32>
      %b = affine.load %A[%i, %j] : memref<8x16xf32>
      %e = arith.addf %a, %b : f32
      affine.store %e, %y[%i] : memref<8xf32>
      func.call @g(%y) : (memref<8xf32>) -> ()
    }
  }
  return
}
"""
    orig, m = parse_module(text), parse_module(text)
    AffineScalarReplacePass().run(m)
    assert print_module(m) == print_module(orig)


def test_caller_knowing_the_loop_runs_allows_it():
    """The tile search's kernel has loops of argument trip counts, each >= 1 when called."""
    text = """
func.func @f(%A: memref<8x16xf32>, %y: memref<8xf32>, %n: index) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to %n {
      %a = affine.load %y[%i] : memref<8xf32>
      %b = affine.load %A[%i, %j] : memref<8x16xf32>
      %e = arith.addf %a, %b : f32
      affine.store %e, %y[%i] : memref<8xf32>
    }
  }
  return
}
"""
    m = parse_module(text)
    assert scalar_replace(m.funcs[0], runs=lambda loop: True) == 1
    verify(m)
    assert "iter_args" in print_module(m)
