"""The critical-path bound (issue 31 item 4): the longest loop-carried dependence chain of
the input program (`compiler.analysis.recurrence`), in the report as `critical_path_cycles`
and a `critical` line that names the loop and the store. It must be a lower bound: no run
on any machine is faster."""

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
    assert r is not None and (r.links, r.plain, r.special) == (62, 1, 1)
    cfg = load_config("default")
    cycles, what = critical_path(cfg, r)
    assert cycles == 62 * (1 + cfg.compute.special_op_cycles)
    assert "62 dependent steps" in what and "<string>:2:3" in what


def test_distance_two_halves_the_chain() -> None:
    r = longest_recurrence(parse_module(STRIDE2).funcs[0])
    assert r is not None and r.links == (63 - 2) // 2


def test_gemm_reduction_chain_is_k_minus_one_adds() -> None:
    b = workloads.get("gemm:M=8,N=8,K=64")
    r = longest_recurrence(b.func(b.module()))
    assert r is not None and (r.links, r.plain, r.special) == (63, 1, 0)


def test_trisolv_chain_runs_over_its_rows() -> None:
    r = longest_recurrence(parse_module(TRISOLV).funcs[0])
    assert r is not None and r.links >= 14


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
    assert d["critical_path_cycles"] == 62 * (1 + cfg.compute.special_op_cycles)
    assert d["cycles"] >= d["critical_path_cycles"]
