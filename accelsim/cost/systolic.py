"""Systolic-array dataflows: folds, and the fill, stream and drain cycles of each, as
SCALE-Sim 3.0 defines them (`scalesim/compute/systolic_compute_{os,ws,is}.py`; derivation and
the one convention where our figure differs in docs/dataflows.md).

A matmul-like kernel is viewed as a GEMM (`GemmView`): `m` rows of the input operand (the
ofmap pixels of a convolution in the im2col view), `n` columns of the weight operand (the
filters), `k` the reduction (R*S*C of a convolution), `batch` independent copies. A dataflow
names which of them spans the array's rows (Sr) and columns (Sc) and which one streams in
time (T):

| dataflow | Sr | Sc | T | stationary in the PEs |
|---|---|---|---|---|
| `os` output stationary | m | n | k | the partial sums |
| `ws` weight stationary | k | n | m | the weights |
| `is` input stationary  | k | m | n | the inputs |

The operand matrix is cut into ceil(Sr/rows) x ceil(Sc/cols) folds, run one after the other;
each fold takes

- fill: `rows` cycles to load the stationary operand (ws, is; none for os),
- stream: T operand vectors, skewed by one cycle per array row (T + rows - 1),
- drain: the last results leave through the array's columns (cols - 1),

so a fold is T + rows + cols - 2 cycles (os) or 2*rows + cols + T - 2 (ws, is). Mapping
efficiency is SCALE-Sim's: the mean over folds of the share of the array's PEs mapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from accelsim.config import ComputeConfig

DATAFLOWS = ("os", "ws", "is")


@dataclass(frozen=True, slots=True)
class GemmView:
    """A matmul-like kernel as `batch` GEMMs: (m x k) times (k x n)."""

    m: int
    n: int
    k: int
    batch: int = 1

    @property
    def macs(self) -> int:
        return self.batch * self.m * self.n * self.k


@dataclass(frozen=True, slots=True)
class ArrayCost:
    """One kernel call on a `rows` x `cols` array under one dataflow."""

    dataflow: str
    sr: int            # operand-matrix extent on the array's rows
    sc: int            # ... on its columns
    t: int             # ... in time
    row_folds: int
    col_folds: int
    batch: int
    fill: int          # cycles per fold
    stream: int        # cycles per fold
    drain: int         # cycles per fold
    pe_used: int       # sum over every fold of the PEs mapped
    pes: int           # rows * cols

    @property
    def folds(self) -> int:
        return self.batch * self.row_folds * self.col_folds

    @property
    def fold_cycles(self) -> int:
        return self.fill + self.stream + self.drain

    @property
    def cycles(self) -> int:
        return self.folds * self.fold_cycles

    @property
    def mapping_efficiency(self) -> float:
        """Mean over folds of the mapped share of the array (SCALE-Sim's figure)."""
        return self.pe_used / (self.folds * self.pes) if self.folds else 0.0


def roles(dataflow: str, view: GemmView) -> tuple[int, int, int]:
    """(Sr, Sc, T) of `view` under `dataflow`."""
    if dataflow == "os":
        return view.m, view.n, view.k
    if dataflow == "ws":
        return view.k, view.n, view.m
    if dataflow == "is":
        return view.k, view.m, view.n
    raise ValueError(f"compute.dataflow = {dataflow!r}: must be one of 'os', 'ws', 'is'")


def array_cost(dataflow: str, view: GemmView, rows: int, cols: int) -> ArrayCost:
    """Folds and per-fold phases of `view` on a `rows` x `cols` array."""
    sr, sc, t = roles(dataflow, view)
    rf, cf = -(-sr // rows), -(-sc // cols)
    fill = 0 if dataflow == "os" else rows
    if not (sr and sc and t and view.batch):
        return ArrayCost(dataflow, sr, sc, t, 0, 0, view.batch, fill, 0, 0, 0, rows * cols)
    # mapped PEs summed over the folds: every row fold but the last uses `rows` rows, and so
    # on; the sum factorizes into (rows used over row folds) * (cols used over col folds)
    pe_used = view.batch * sr * sc
    return ArrayCost(dataflow, sr, sc, t, rf, cf, view.batch, fill, t + rows - 1, cols - 1,
                     pe_used, rows * cols)


def gemm_cycles(dataflow: str, m: int, n: int, k: int, rows: int, cols: int) -> int:
    """The closed forms: os ceil(M/R)ceil(N/C)(K+R+C-2); ws ceil(K/R)ceil(N/C)(2R+C+M-2);
    is ceil(K/R)ceil(M/C)(2R+C+N-2)."""
    return array_cost(dataflow, GemmView(m, n, k), rows, cols).cycles


def min_call_overhead(dataflow: str, rows: int, cols: int) -> int:
    """Cycles every call with work spends beyond MACs / (rows*cols) under a systolic
    dataflow: one fold's fill, skew and drain (folds * T >= MACs / (rows*cols), folds >= 1)."""
    return (rows + cols - 2) if dataflow == "os" else (2 * rows + cols - 2)


def call_overhead(cc: ComputeConfig, on_matrix: bool) -> int:
    """Cycles per kernel call beyond ops / throughput, at least (the tile search's lower
    bound): fill + drain under the fixed rule (and off the array); under a systolic dataflow
    the smaller of that and one fold's overhead (a kernel the mapping cannot read keeps the
    fixed rule)."""
    fixed = cc.fill_cycles + cc.drain_cycles
    if cc.dataflow == "fixed" or cc.kind != "matrix" or not on_matrix:
        return fixed
    return min(fixed, min_call_overhead(cc.dataflow, cc.rows, cc.cols))


def conv_view(n: int, p: int, q: int, k: int, r: int, s: int, c: int) -> GemmView:
    """SCALE-Sim's im2col view of a convolution: ofmap pixels x filters, reduction R*S*C."""
    return GemmView(n * p * q, k, r * s * c)



def peak_macs_per_cycle(cc: ComputeConfig, view: GemmView) -> Fraction:
    """The most MACs per cycle the array reaches on any call whose GEMM is a sub-box of
    `view` (m' <= m, n' <= n, k' <= k; a tiling of the nest), by the cost model's own rule:
    a fold maps at most min(Sr, rows) x min(Sc, cols) PEs and streams T operand vectors
    with its fill, skew and drain, so (m'/ceil(m'/rows) <= min(m', rows), and T/(T + c)
    grows with T) the rate is at most min(Sr, rows) * min(Sc, cols) * T / (T + overhead);
    under the fixed rule (`CostModel._cost_from`: batch x ceil(m/rows) x ceil(n/cols) x k
    cycles, fill and drain once per call) min(m, rows) * min(n, cols). A row reduction or a
    mat-vec (n = 1) reaches at most `rows` MACs a cycle: one column of outputs."""
    r, c = cc.rows, cc.cols
    if cc.dataflow == "fixed":
        return Fraction(min(view.m, r) * min(view.n, c))
    sr, sc, t = roles(cc.dataflow, view)
    overhead = min_call_overhead(cc.dataflow, r, c)
    if not t:
        return Fraction(0)
    return Fraction(min(sr, r) * min(sc, c) * t, t + overhead)
