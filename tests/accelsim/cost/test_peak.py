"""The compute roof per nest (`accelsim.cost.peak`) and the kernel cost model it follows: a
reduction with one column of outputs (a row sum, a mat-vec) maps `rows` PEs of the array, so
its best rate is the lanes' or `rows` MACs a cycle, never rows x cols."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from accelsim import load_config
from accelsim.config import ComputeConfig
from accelsim.cost.kernel import CostModel
from accelsim.cost.peak import nest_peak_cycles
from accelsim.cost.systolic import GemmView, peak_macs_per_cycle
from compiler.analysis.nest_kernel import top_nests
from compiler.ir import F32, Builder, memref


def _cc(dataflow: str, convention: str = "accelsim") -> ComputeConfig:
    return load_config("default").with_overrides({"compute.dataflow": dataflow,
                                                  "compute.array_convention": convention}).compute


@pytest.mark.parametrize(("dataflow", "view", "want"), [
    ("fixed", GemmView(64, 64, 64), Fraction(256)),
    ("fixed", GemmView(64, 1, 64), Fraction(16)),         # mat-vec: one column of outputs
    ("fixed", GemmView(1, 1, 64, batch=8), Fraction(1)),  # sum of squares per row
    ("fixed", GemmView(8, 37, 5), Fraction(8 * 16)),
    ("os", GemmView(64, 1, 64), Fraction(16 * 1 * 64, 64 + 46)),  # ours: 2R + C - 2 per fold
    ("ws", GemmView(64, 1, 64), Fraction(16 * 1 * 64, 64)),       # ours: a fold max(T, R) cycles
    ("is", GemmView(64, 1, 64), Fraction(16 * 16 * 1, 16)),
])
def test_peak_rate_closed_forms(dataflow: str, view: GemmView, want: Fraction) -> None:
    assert peak_macs_per_cycle(_cc(dataflow), view) == want


@pytest.mark.parametrize(("dataflow", "view", "want"), [
    ("os", GemmView(64, 1, 64), Fraction(16 * 1 * 64, 64 + 30)),
    ("ws", GemmView(64, 1, 64), Fraction(16 * 1 * 64, 64 + 46)),
    ("is", GemmView(64, 1, 64), Fraction(16 * 16 * 1, 1 + 46)),
])
def test_peak_rate_closed_forms_scalesim_convention(dataflow: str, view: GemmView,
                                                    want: Fraction) -> None:
    assert peak_macs_per_cycle(_cc(dataflow, "scalesim-v3"), view) == want


def _matvec(tiles: int, rows: int, cols: int):  # type: ignore[no-untyped-def]
    """y[t*rows + i] += A[t*rows + i, j] * x[j] as a kernel three loops deep."""
    b = Builder()
    with b.func("mv", private=True, A=memref((tiles * rows, cols), F32, 1), x=memref((cols,), F32, 1),
                y=memref((tiles * rows,), F32, 1)) as (A, x, y):
        for t in b.range(tiles):
            for i in b.range(rows):
                for j in b.range(cols):
                    y[t * rows + i] = y[t * rows + i] + A[t * rows + i, j] * x[j]
    return b.module.lookup("mv")


def test_a_mat_vec_on_the_array_maps_one_column_of_outputs() -> None:
    """4 x 16 rows of a 64-wide mat-vec, 3 loops deep (matmul-like): the fixed rule puts its 64
    outputs on 4 folds of 16 PEs, each streaming the 64-long reduction: 4 x 64 = 256 cycles =
    MACs / 16, not MACs / 256 = 16 (the old rule). The lanes take as long: no faster unit."""
    f = _matvec(4, 16, 64)
    cost = CostModel(load_config("default")).kernel(f, (None, None, None))
    assert cost.counts.matmul_like and cost.counts.mac == 4096
    assert cost.compute_cycles == 4 * 64 == 4096 // 16
    # 2 x 4 rows: 8 PEs of one fold, 64 cycles (8 MACs a cycle); on the lanes its 2,048
    # SRAM accesses (8 KiB at 128 B a cycle) take as long, so no unit is faster
    f8 = _matvec(2, 4, 64)
    cost8 = CostModel(load_config("default")).kernel(f8, (None, None, None))
    assert cost8.counts.matmul_like and cost8.on_matrix and cost8.compute_cycles == 64
    assert cost8.cycles == 16 + max(64, math.ceil(8192 / 128)) + 16


def _rows_sum_of_squares(m: int, n: int):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("ss", private=True, X=memref((m, n), F32, 1), mean=memref((m,), F32, 1),
                s=memref((m,), F32, 1)) as (X, mean, s):
        for i in b.range(m):
            for j in b.range(n):
                d = X[i, j] - mean[i]
                s[i] = s[i] + d * d
    return b.module.lookup("ss")


def test_a_row_reduction_of_computed_factors_is_not_at_the_array_rate() -> None:
    """layernorm's variance nest, sum_j (x - mean)^2: its factors are computed from loads, its
    one output per row is a batch of 1 x 1 products: the array's best is 1 MAC a cycle, so
    the roof counts its MACs on the lanes (and its subtractions)."""
    f = _rows_sum_of_squares(64, 64)
    nests = top_nests(f)
    assert nests is not None and len(nests) == 1
    (nest,) = nests
    assert nest.roles == ("batch", "k") and nest.counts.reduction
    cfg = load_config("default")
    assert nest_peak_cycles(cfg, nest) == Fraction(4096 + 4096, 16)
    # a real mat-vec nest, 2 deep: its MACs at max(16 lanes, 16 PEs) a cycle
    mv = top_nests(_matvec(1, 64, 64))
    assert mv is not None and nest_peak_cycles(cfg, mv[0]) == Fraction(4096, 16)
    # and gemm's at the full array
    b = Builder()
    with b.func("g", private=True, A=memref((64, 64), F32, 1), B=memref((64, 64), F32, 1),
                C=memref((64, 64), F32, 1)) as (A, B, C):
        for i in b.range(64):
            for j in b.range(64):
                for k in b.range(64):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    g = top_nests(b.module.lookup("g"))
    assert g is not None and nest_peak_cycles(cfg, g[0]) == Fraction(64 ** 3, 256)


def test_a_kernel_the_array_maps_badly_runs_on_the_lanes() -> None:
    """A sum of squares per row, three loops deep (matmul-like): its view is 64 batches of a
    1 x 1 x 64 product, 64 x 64 = 4,096 array cycles; the lanes do its 4,096 MACs and 4,096
    subtractions in 512. The cost model runs it on the faster unit."""
    b = Builder()
    with b.func("ss3", private=True, X=memref((64, 64), F32, 1), mean=memref((64,), F32, 1),
                s=memref((64,), F32, 1)) as (X, mean, s):
        for t in b.range(2):
            for i in b.range(32):
                for j in b.range(64):
                    d = X[t * 32 + i, j] - mean[t * 32 + i]
                    s[t * 32 + i] = s[t * 32 + i] + d * d
    cost = CostModel(load_config("default")).kernel(b.module.lookup("ss3"), (None, None, None))
    assert cost.counts.matmul_like and not cost.on_matrix
    assert cost.compute_cycles == (4096 + 4096) // 16
