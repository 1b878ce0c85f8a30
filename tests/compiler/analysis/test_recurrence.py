"""The critical-path bound (issue 31 item 4): the longest chain of flow dependences of the
input program (`compiler.analysis.recurrence`: every statement, iter_args, reductions as
trees), in the report as `critical_path_cycles` and a `critical` line that names it. It
must be a lower bound: no schedule the simulator runs is faster (checked here on the
PolyBench kernels and on random programs)."""

from __future__ import annotations

import pytest

import workloads
from accelsim.config import load_config
from accelsim.report.roofline import critical_path
from compiler.analysis.recurrence import longest_recurrence
from compiler.text import parse_module

PREFIX = """func.func @prefix(%x: memref<64xf32>) {
  affine.for %i = 1 to 64 {
    %a = affine.load %x[%i - 1] : memref<64xf32>
    %b = affine.load %x[%i] : memref<64xf32>
    %s = arith.addf %a, %b : f32
    %e = math.exp %s : f32
    affine.store %e, %x[%i] : memref<64xf32>
  }
  return
}
"""

STRIDE2 = PREFIX.replace("%x[%i - 1]", "%x[%i - 2]").replace("1 to 64", "2 to 64")

TRISOLV = """func.func @trisolv(%L: memref<16x16xf32>, %x: memref<16xf32>, %b: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %b0 = affine.load %b[%i] : memref<16xf32>
    affine.store %b0, %x[%i] : memref<16xf32>
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %l = affine.load %L[%i, %j] : memref<16x16xf32>
      %xj = affine.load %x[%j] : memref<16xf32>
      %xi = affine.load %x[%i] : memref<16xf32>
      %p = arith.mulf %l, %xj : f32
      %s = arith.subf %xi, %p : f32
      affine.store %s, %x[%i] : memref<16xf32>
    }
  }
  return
}
"""


def test_a_prefix_recurrence_is_a_chain_of_every_iteration() -> None:
    r = longest_recurrence(parse_module(PREFIX).funcs[0])
    # x[i] = exp(x[i-1] + x[i]) for i = 1..63: 63 dependent (add, exp) pairs
    assert r is not None and (r.plain, r.special, r.truncated) == (63, 63, False)
    cfg = load_config("default")
    cycles, what = critical_path(cfg, r)
    assert cycles == 63 * (1 + cfg.compute.special_op_cycles)
    assert "126 dependent ops" in what and "%x" in what


def test_distance_two_halves_the_chain() -> None:
    r = longest_recurrence(parse_module(STRIDE2).funcs[0])
    assert r is not None and (r.plain, r.special) == (31, 31)   # i = 3, 5, ..., 63


def test_a_reduction_is_a_tree() -> None:
    """C[i, j] += A[i, k] * B[k, j] over k < 64: the multiply-adds may be reassociated (the
    cost model sums a reduction over its lanes), so the chain is ceil(log2(65)) = 7 levels
    of the 64 products and C's first value, not 64 adds."""
    b = workloads.get("gemm:M=8,N=8,K=64")
    r = longest_recurrence(b.func(b.module()))
    assert r is not None and (r.plain, r.special) == (7, 0)


def test_trisolv_chain_runs_over_its_rows() -> None:
    # x[i] = b[i] - sum_j<i L[i, j] x[j]: x[i] is ready one step after x[i-1] (its last term)
    r = longest_recurrence(parse_module(TRISOLV).funcs[0])
    assert r is not None and (r.plain, r.special) == (15, 0)


MULTI = """func.func @two_statements(%a: memref<32xf32>, %b: memref<32xf32>) {
  affine.for %i = 1 to 32 {
    %x = affine.load %a[%i - 1] : memref<32xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %b[%i] : memref<32xf32>
    %z = affine.load %b[%i] : memref<32xf32>
    %w = arith.divf %z, %x : f32
    affine.store %w, %a[%i] : memref<32xf32>
  }
  return
}
"""


def test_a_recurrence_through_two_statements_and_two_arrays() -> None:
    """a[i] = a[i-1]^2 / a[i-1] through b: no single store reads what it wrote, yet every
    iteration waits for the one before (a multiply and a divide each)."""
    r = longest_recurrence(parse_module(MULTI).funcs[0])
    assert r is not None and (r.plain, r.special) == (31, 31)


def test_iter_args_carry_the_chain() -> None:
    text = """func.func @carried(%a: memref<16xf32>, %out: memref<1xf32>) {
      %z = arith.constant 1.0 : f32
      %r = affine.for %i = 0 to 16 iter_args(%acc = %z) -> (f32) {
        %x = affine.load %a[%i] : memref<16xf32>
        %d = arith.divf %acc, %x : f32
        %e = arith.addf %d, %x : f32
        affine.yield %e : f32
      }
      affine.store %r, %out[0] : memref<1xf32>
      return
    }
    """
    r = longest_recurrence(parse_module(text).funcs[0])
    assert r is not None and (r.plain, r.special) == (16, 16)   # not a reduction: a divide


@pytest.mark.parametrize("spec", ["durbin:N=40", "ludcmp:N=20", "heat-3d:TSTEPS=2,N=6",
                                  "deriche:W=7,H=6", "trisolv:N=40"])
def test_the_solvers_and_stencils_have_a_chain(spec: str) -> None:
    """The recurrences the single-store model missed (durbin, ludcmp, deriche, heat-3d: 0
    before) and trisolv's divide per row."""
    b = workloads.get(spec)
    r = longest_recurrence(b.func(b.module()))
    assert r is not None and r.plain + r.special > 10
    if spec.startswith("trisolv"):
        assert r.special == 40      # one divide per row, each after the row before


def test_a_truncated_run_is_a_prefix_and_still_a_bound() -> None:
    b = workloads.get("durbin:N=40")
    full = longest_recurrence(b.func(b.module()))
    part = longest_recurrence(b.func(b.module()), budget=2_000)
    assert full is not None and part is not None and part.truncated and not full.truncated
    assert part.cycles(4) <= full.cycles(4)


def test_elementwise_programs_have_no_chain() -> None:
    b = workloads.get("vector_add:N=256")
    assert longest_recurrence(b.func(b.module())) is None


@pytest.mark.parametrize("fidelity", ["event", "analytic"])
def test_the_report_names_it_and_it_bounds_the_run(fidelity: str, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from accelsim.cli import main

    path = tmp_path / "prefix.mlir"
    path.write_text(PREFIX)
    assert main(["run", str(path), "--target", "sim", "--timing-only", "--json",
                 "--fidelity", fidelity]) == 0
    d = json.loads(capsys.readouterr().out)
    cfg = load_config("default")
    assert d["critical_path_cycles"] == 63 * (1 + cfg.compute.special_op_cycles)
    assert d["cycles"] >= d["critical_path_cycles"]


def _event_and_analytic(source, cfg):  # type: ignore[no-untyped-def]
    """(cycles, critical path) of an event and an analytic run of `source` (a spec, or MLIR
    text: parsed for each run, since a run compiles its module in place)."""
    import accelsim

    out = []
    for fidelity in ("event", "analytic"):
        prog = parse_module(source) if source.lstrip().startswith("func.func") else source
        d = accelsim.run(prog, cfg, timing_only=True, fidelity=fidelity, progress=False).to_dict()
        out.append((d["cycles"], d["critical_path_cycles"]))
    return out


@pytest.mark.parametrize("spec", ["durbin:N=40", "trisolv:N=40", "ludcmp:N=16", "lu:N=16",
                                  "cholesky:N=16", "seidel-2d:TSTEPS=2,N=12", "adi:TSTEPS=2,N=10",
                                  "nussinov:N=16", "gramschmidt:M=12,N=8"])
def test_the_bound_is_below_every_run(spec: str) -> None:
    cfg = load_config("default")
    for cycles, crit in _event_and_analytic(spec, cfg):
        assert crit is not None and 0 < crit <= cycles


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_the_bound_is_below_the_run_of_random_programs(seed: int) -> None:
    from tests.fuzz.programs import random_program

    text, _ = random_program(seed)
    cfg = load_config("default")
    for cycles, crit in _event_and_analytic(text, cfg):
        assert crit is None or crit <= cycles


SMALL_RECURRENCES = ["durbin", "trisolv", "ludcmp", "lu", "cholesky", "deriche", "heat-3d",
                     "seidel-2d", "adi", "nussinov", "gramschmidt", "jacobi-1d"]


@pytest.mark.slow
@pytest.mark.parametrize("spec", SMALL_RECURRENCES)
def test_the_bound_is_below_the_run_at_small(spec: str) -> None:
    cfg = load_config("default")
    for cycles, crit in _event_and_analytic(spec, cfg):
        assert crit is not None and 0 < crit <= cycles


def test_a_function_holding_an_alloc_runs() -> None:
    """A buffer allocated in the function (a fused network group's on-chip intermediate) is
    a memory of its own after the arguments'."""
    text = """func.func @f(%x: memref<8xf32>, %y: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32, 1>
  affine.for %i = 0 to 8 {
    %a = affine.load %x[%i] : memref<8xf32>
    %e = math.exp %a : f32
    affine.store %e, %t[%i] : memref<8xf32, 1>
  }
  affine.for %i = 0 to 8 {
    %a = affine.load %t[%i] : memref<8xf32, 1>
    %e = math.exp %a : f32
    affine.store %e, %y[%i] : memref<8xf32>
  }
  memref.dealloc %t : memref<8xf32, 1>
  return
}
"""
    r = longest_recurrence(parse_module(text).funcs[0])
    assert r is not None and (r.plain, r.special, r.memref) == (0, 2, "%y")  # exp(exp(x))
