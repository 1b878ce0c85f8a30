"""`affine-sibling-fusion`: adjacent perfect nests reading one element at the same iterations
become one nest (interchanged where needed), only when isl proves the fused order keeps every
dependence.

Differential: every workload, fused, gives bit-identical results on the host backend (mvt must
fuse, and read A once). Unit tests on small MLIR: interchange, each refusal.
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
from compiler.transforms.affine_sibling_fusion import AffineSiblingFusionPass
from compiler.transforms.registry import PASSES
from tests.compiler.transforms.test_pipeline_workloads import SPECS


def _top_loops(m) -> int:
    return sum(isinstance(op, AffineForOp) for op in m.funcs[0].body.ops)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_workload_fused_is_bit_identical(name):
    w = workloads.get(f"{name}:{SPECS[name]}")
    inputs = w.random_inputs(seed=5)
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    want = list(run_host(w.module(), positional, w.func_name).values())
    m = w.module()
    AffineSiblingFusionPass().run(m)
    verify(m)
    if name == "mvt":
        assert _top_loops(m) == 1
    for a, b in zip(run_host(m, positional, w.func_name).values(), want, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)


def test_registered_under_its_flag():
    assert PASSES["affine-sibling-fusion"] is AffineSiblingFusionPass


def test_mvt_second_nest_is_interchanged_and_reads_of_a_line_up():
    n = 19
    w = workloads.get(f"mvt:N={n}")
    m = w.module()
    AffineSiblingFusionPass().run(m)
    f = m.funcs[0]
    assert sum(isinstance(op, AffineForOp) for op in f.walk()) == 2  # one 2-deep nest
    text = print_module(m)
    # x2[j] += A[i][j] * y_2[i]: the second nest's loops swapped onto (i, j)
    assert "affine.load %A[%arg0, %arg1]" in text and "affine.load %A[%arg1, %arg0]" not in text
    c = count_ops(f, [None] * 5)
    assert c.mac == 2 * n * n and c.load == 6 * n * n  # both bodies, once per (i, j)


def _fuse(text: str):
    orig, m = parse_module(text), parse_module(text)
    p = AffineSiblingFusionPass()
    p.run(m)
    verify(m)
    rng = np.random.default_rng(1)
    inputs = {f"arg{k}": rng.uniform(-1, 1, a.type.shape).astype(np.float32)
              for k, a in enumerate(orig.funcs[0].args)}
    for a, b in zip(run_host(m, inputs).values(), run_host(orig, inputs).values(), strict=True):
        np.testing.assert_array_equal(a, b)
    return m, p


NESTS = """
func.func @f(%A: memref<8x8xf32>, %x: memref<8xf32>, %y: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %a = affine.load %A[%i, %j] : memref<8x8xf32>
      %s = affine.load %x[%i] : memref<8xf32>
      %t = arith.addf %s, %a : f32
      affine.store %t, %x[%i] : memref<8xf32>
    }
  }
  affine.for %k = 0 to 8 {
    affine.for %l = 0 to 8 {
      %a = affine.load %A[SECOND] : memref<8x8xf32>
      %s = affine.load %y[%k] : memref<8xf32>
      %t = arith.OP %s, %a : f32
      affine.store %t, %y[%k] : memref<8xf32>
    }
  }
  return
}
"""


def test_same_order_nests_fuse_without_interchange():
    m, _ = _fuse(NESTS.replace("SECOND", "%k, %l").replace("OP", "mulf"))
    assert _top_loops(m) == 1


def test_transposed_read_fuses_interchanged():
    """y[k] accumulates over l in order in both schedules: interchange keeps its sums."""
    m, _ = _fuse(NESTS.replace("SECOND", "%l, %k").replace("OP", "addf"))
    assert _top_loops(m) == 1
    text = print_module(m)
    assert "affine.load %y[%j]" in text and text.count("affine.load %A[%i, %j]") == 2


def test_no_shared_element_no_fusion():
    m, _ = _fuse(NESTS.replace("SECOND", "%k, 0").replace("OP", "addf"))
    assert _top_loops(m) == 2


def test_dependence_reversed_by_fusion_blocks_it():
    """The second nest reads x[7] - the first's last row, written at every j of i = 7 - at
    every (k, l): fused, (k, l) = (0, 0) would read it before it is final."""
    text = NESTS.replace("SECOND", "%k, %l").replace("OP", "addf").replace(
        "%s = affine.load %y[%k] : memref<8xf32>", "%s = affine.load %x[7] : memref<8xf32>")
    m, p = _fuse(text)
    assert _top_loops(m) == 2
    assert any("not fused" in r.message and "dependence" in r.message for r in p.remarks)


def test_different_bounds_no_fusion():
    text = NESTS.replace("SECOND", "%k, %l").replace("OP", "addf").replace(
        "affine.for %l = 0 to 8", "affine.for %l = 0 to 7")
    m, _ = _fuse(text)
    assert _top_loops(m) == 2


def test_an_op_between_the_nests_keeps_them_apart():
    text = NESTS.replace("SECOND", "%k, %l").replace("OP", "addf").replace(
        "  affine.for %k = 0 to 8 {",
        "  %z = arith.constant 0.0 : f32\n  affine.store %z, %y[0] : memref<8xf32>\n"
        "  affine.for %k = 0 to 8 {")
    m, _ = _fuse(text)
    assert _top_loops(m) == 2
