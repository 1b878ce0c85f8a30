"""`affine-cluster-distribute`: the N cluster programs, run one after another on the host,
equal the original program (every iteration exactly once), for every distribution and
uneven splits; barriers between dependent nests; non-parallel nests stay on cluster 0."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from compiler.backend import run_host
from compiler.diagnostics import OptionError
from compiler.ir.ops.opaque import BARRIER_OP, OpaqueOp
from compiler.text import parse_module
from compiler.transforms.affine_cluster_distribute import AffineClusterDistributePass
from compiler.transforms.registry import PASSES
from workloads.gemm import build_gemm
from workloads.polybench.kernels import build_2mm


def _union(build, clusters: int, dist: str, chunk: int, inputs: dict[str, np.ndarray], func: str
           ) -> dict[str, np.ndarray]:
    arrays = {k: v.copy() for k, v in inputs.items()}
    for k in range(clusters):
        m = build()
        AffineClusterDistributePass(clusters=clusters, cluster=k, distribution=dist, chunk=chunk).run(m)
        arrays.update(run_host(m, arrays, func=func))
    return arrays


@pytest.mark.parametrize("dist", ["block", "cyclic", "block2d"])
@pytest.mark.parametrize("clusters,chunk", [(1, 1), (4, 1), (16, 1), (4, 3), (16, 4), (6, 2)])
def test_union_of_clusters_is_the_program(dist: str, clusters: int, chunk: int) -> None:
    M, N, K = 37, 23, 5  # uneven against every cluster count
    rng = np.random.default_rng(clusters * 7 + chunk)
    inputs = {"A": rng.standard_normal((M, K)), "B": rng.standard_normal((K, N)),
              "C": rng.standard_normal((M, N))}
    from compiler.ir import F64
    got = _union(lambda: build_gemm(M, N, K, F64), clusters, dist, chunk, inputs, "gemm")
    want = run_host(build_gemm(M, N, K, F64), {k: v.copy() for k, v in inputs.items()}, func="gemm")
    np.testing.assert_array_equal(got["C"], want["C"])


def test_every_row_exactly_once_uneven_1000_on_16() -> None:
    """1000 rows on 16 clusters (block): shares of 62 and 63 rows, disjoint, covering 0..1000."""
    ranges = []
    for k in range(16):
        m = build_gemm(1000, 8, 2)
        AffineClusterDistributePass(clusters=16, cluster=k).run(m)
        outer = m.funcs[0].body.ops[0]
        ranges.append((outer.constant_lower, outer.constant_upper))
    assert ranges[0][0] == 0 and ranges[-1][1] == 1000
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    assert {hi - lo for lo, hi in ranges} == {62, 63}


def test_barrier_between_dependent_nests() -> None:
    m = build_2mm(6, 5, 4, 3)
    AffineClusterDistributePass(clusters=4, cluster=0).run(m)
    ops = list(m.funcs[0].body.ops)
    barriers = [k for k, op in enumerate(ops) if isinstance(op, OpaqueOp) and op.op_name == BARRIER_OP]
    assert len(barriers) >= 1
    # the program prints and parses back with its barrier
    from compiler.text import print_module
    text = print_module(m)
    assert '"accel.barrier"()' in text
    assert print_module(parse_module(text)) == text


def test_affine_parallel_is_distributed() -> None:
    text = """
func.func @f(%A: memref<10x6xf64>) {
  affine.parallel (%i, %j) = (0, 0) to (10, 6) {
    %c = arith.constant 1.0 : f64
    %v = affine.load %A[%i, %j] : memref<10x6xf64>
    %w = arith.addf %v, %c : f64
    affine.store %w, %A[%i, %j] : memref<10x6xf64>
  }
  return
}
"""
    a = np.arange(60, dtype=np.float64).reshape(10, 6)
    for dist in ("block", "block2d", "cyclic"):
        arrays = {"A": a.copy()}
        for k in range(4):
            m = parse_module(text)
            AffineClusterDistributePass(clusters=4, cluster=k, distribution=dist).run(m)
            assert not any(op.NAME == "affine.parallel" for op in m.walk())
            arrays.update(run_host(m, arrays, func="f"))
        np.testing.assert_array_equal(arrays["A"], a + 1.0)


def test_sequential_nest_stays_on_cluster_0() -> None:
    text = """
func.func @f(%A: memref<10xf64>) {
  affine.for %i = 1 to 10 {
    %v = affine.load %A[%i - 1] : memref<10xf64>
    affine.store %v, %A[%i] : memref<10xf64>
  }
  return
}
"""
    p = AffineClusterDistributePass(clusters=4, cluster=0)
    m0 = parse_module(text)
    p.run(m0)
    assert p.remarks and "not parallel" in p.remarks[0].message
    assert any(op.NAME == "affine.for" for op in m0.walk())
    m1 = parse_module(text)
    AffineClusterDistributePass(clusters=4, cluster=1).run(m1)
    assert not any(op.NAME == "affine.for" for op in m1.walk())


def test_in_the_registry_and_bad_options() -> None:
    assert PASSES["affine-cluster-distribute"] is AffineClusterDistributePass
    for opts, word in (("clusters=4 cluster=4", "cluster = 4"), ("clusters=0", "clusters = 0"),
                       ("distribution=diagonal", "diagonal"), ("chunk=0", "chunk = 0")):
        with pytest.raises(OptionError, match=word):
            AffineClusterDistributePass(opts).run(build_gemm(4, 4, 4))


@pytest.mark.parametrize("dist", ["block", "block2d"])
def test_a_batch_of_one_is_passed_over(dist: str) -> None:
    """batched_gemm with batch 1: the batch loop has one iteration; the rows are split, so
    every one of 4 clusters has work (before, clusters 1..3 or 0..1 kept nothing), and the
    union is still the program."""
    from compiler.ir import F64
    from workloads.gemm import build_batched_gemm

    kept = []
    for k in range(4):
        m = build_batched_gemm(1, 12, 8, 4, F64)
        AffineClusterDistributePass(clusters=4, cluster=k, distribution=dist).run(m)
        kept.append(any(True for _ in m.funcs[0].body.ops[:-1]))
    assert all(kept)
    rng = np.random.default_rng(2)
    inputs = {"A": rng.standard_normal((1, 12, 4)), "B": rng.standard_normal((1, 4, 8)),
              "C": rng.standard_normal((1, 12, 8))}
    got = _union(lambda: build_batched_gemm(1, 12, 8, 4, F64), 4, dist, 1, inputs, "batched_gemm")
    want = run_host(build_batched_gemm(1, 12, 8, 4, F64), {k: v.copy() for k, v in inputs.items()},
                    func="batched_gemm")
    np.testing.assert_array_equal(got["C"], want["C"])


def test_barrier_before_a_nest_writing_what_an_earlier_nest_reads() -> None:
    """An anti-dependence between nests (the first reads B, the second writes it): without a
    barrier a cluster could overwrite B[4, 4] before another cluster read it in the first
    nest (found by the differential fuzzer, seed 1000, and the race proof's cluster check)."""
    text = """func.func @f(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
  affine.for %i = 0 to 6 {
    %v = affine.load %B[%i + 1, %i + 1] : memref<8x8xf32>
    affine.store %v, %C[%i, %i] : memref<8x8xf32>
  }
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 6 {
      %a = affine.load %A[%i, %j] : memref<8x8xf32>
      affine.store %a, %B[%i, %j] : memref<8x8xf32>
    }
  }
  return
}
"""
    m = parse_module(text)
    AffineClusterDistributePass(clusters=4, cluster=0, distribution="block").run(m)
    ops = m.funcs[0].body.ops
    kinds = ["barrier" if isinstance(o, OpaqueOp) and o.op_name == BARRIER_OP else o.NAME for o in ops]
    assert kinds.index("barrier") > kinds.index("affine.for")   # between the two nests
