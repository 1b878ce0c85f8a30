"""Systolic-array dataflows: folds, and the fill, stream and drain cycles of each, under two
conventions (docs/dataflows.md): ours (`"accelsim"`, the default), and SCALE-Sim 3.0's
(`"scalesim-v3"`: its code, `scalesim/compute/systolic_compute_{os,ws,is}.py`), kept for the
comparison with SCALE-Sim (`compute.array_convention`).

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

The operand matrix is cut into folds run one after the other. SCALE-Sim (`"scalesim-v3"`):
ceil(Sr/rows) x ceil(Sc/cols) folds, each

- fill: `rows` cycles to load the stationary operand (ws, is; none for os),
- stream: T operand vectors, skewed by one cycle per array row (T + rows - 1),
- drain: the last results leave through the array's columns (cols - 1),

a fold of T + rows + cols - 2 cycles (os) or 2*rows + cols + T - 2 (ws, is).

Ours (`"accelsim"`):

- os: SCALE-Sim's folds plus the drain its code leaves out: the finished partial sums shift
  out of the array, one row a cycle (`rows` more per fold): 2*rows + cols + T - 2, the count
  of its paper, which its maintainers confirmed (scalesim-project/scale-sim-v3 issue #4).
- ws, is: the array as a weight-stationary array with double-buffered weights runs it
  (Gemmini's `ExecuteController`, held to Gemmini's RTL counts in
  tests/accelsim/cost/test_onnxim_gemmini.py): the next fold's stationary operand shifts in
  (`rows` cycles) while the current fold streams, and a fold's skew and drain overlap the next
  fold's stream, so a call costs one fill, skew and drain (2*rows + cols - 2) plus, per fold,
  its stream, at least `rows` cycles (the preload it hides; not after the call's last fold).
  The stream is issued in blocks of at most `rows` rows of one run of the innermost streamed
  loop (`GemmView.*_run`; one compute instruction per block), each at least
  `min_block_cycles` cycles (Gemmini: 4, two writes to one accumulator row at least 4 cycles
  apart). The array's rows and columns hold
  any consecutive elements of their roles (`mapping = "im2col"`, the view of a convolution
  SCALE-Sim takes), or one run of each role's innermost loop (`"innermost"`: an array fed
  without im2col, as Gemmini's weight-stationary loop maps one kernel position's input
  channels onto its rows).

Mapping efficiency is SCALE-Sim's: the mean over folds of the share of the array's PEs mapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from accelsim.config import ComputeConfig

DATAFLOWS = ("os", "ws", "is")
CONVENTIONS = ("accelsim", "scalesim-v3")
MAPPINGS = ("im2col", "innermost")


@dataclass(frozen=True, slots=True)
class GemmView:
    """A matmul-like kernel as `batch` GEMMs: (m x k) times (k x n)."""

    m: int
    n: int
    k: int
    batch: int = 1
    # the trip count of each role's innermost loop of more than one trip (0: the whole extent
    # is one loop); the extent is a whole number of such runs
    m_run: int = 0
    n_run: int = 0
    k_run: int = 0

    @property
    def macs(self) -> int:
        return self.batch * self.m * self.n * self.k

    def run(self, role: str) -> int:
        """The length of one run of `role`'s innermost loop."""
        ext, run = {"m": (self.m, self.m_run), "n": (self.n, self.n_run),
                    "k": (self.k, self.k_run)}[role]
        return run if run and ext % run == 0 else ext


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
    once: int = 0      # cycles once per call (ours, ws / is: the first fill, the last skew and
    #                    drain, less the wait of the last fold's last block for a next preload)
    convention: str = "accelsim"

    @property
    def folds(self) -> int:
        return self.batch * self.row_folds * self.col_folds

    @property
    def fold_cycles(self) -> int:
        return self.fill + self.stream + self.drain

    @property
    def cycles(self) -> int:
        return self.folds * self.fold_cycles + (self.once if self.folds else 0)

    @property
    def mapping_efficiency(self) -> float:
        """Mean over folds of the mapped share of the array (SCALE-Sim's figure)."""
        return self.pe_used / (self.folds * self.pes) if self.folds else 0.0


def roles(dataflow: str, view: GemmView) -> tuple[int, int, int]:
    """(Sr, Sc, T) of `view` under `dataflow`."""
    return tuple(_ext(view, r) for r in role_names(dataflow))  # type: ignore[return-value]


def role_names(dataflow: str) -> tuple[str, str, str]:
    """The GEMM roles on the array's rows, on its columns and in time under `dataflow`."""
    if dataflow == "os":
        return "m", "n", "k"
    if dataflow == "ws":
        return "k", "n", "m"
    if dataflow == "is":
        return "k", "m", "n"
    raise ValueError(f"compute.dataflow = {dataflow!r}: must be one of 'os', 'ws', 'is'")


def _ext(view: GemmView, role: str) -> int:
    return {"m": view.m, "n": view.n, "k": view.k}[role]


def _check_convention(convention: str) -> None:
    if convention not in CONVENTIONS:
        raise ValueError(f"compute.array_convention = {convention!r}: must be one of "
                         + ", ".join(repr(c) for c in CONVENTIONS))


def _runs_folds(extent: int, run: int, size: int) -> int:
    """Folds of `extent` mapped `size` at a time, one run of `run` at a time."""
    return (extent // run) * -(-run // size)


def stream_cycles(t: int, run: int, rows: int, min_block: int) -> tuple[int, int]:
    """Ours, ws / is: (cycles, idle) of one fold streaming `t` rows as runs of `run`, each
    issued in blocks of at most `rows` rows of at least `min_block` cycles each; the next
    fold's stationary operand shifts in (`rows` cycles) during the last block, which `idle`
    of them wait for (none after a call's last fold)."""
    full, rest = divmod(run, rows)
    block = max(rows, min_block)
    per_run = full * block + (max(rest, min_block) if rest else 0)
    last = max(rest, min_block) if rest else block
    return (t // run) * per_run - last + max(last, rows), max(last, rows) - last


def array_cost(dataflow: str, view: GemmView, rows: int, cols: int,
               convention: str = "accelsim", min_block_cycles: int = 1,
               mapping: str = "im2col") -> ArrayCost:
    """Folds and per-fold phases of `view` on a `rows` x `cols` array under `convention`
    (ours, "accelsim", or SCALE-Sim's code, "scalesim-v3"); ours, ws / is:
    `min_block_cycles`, the fewest cycles one block of streamed rows takes, and `mapping`,
    what the array's rows and columns hold ("im2col": any consecutive elements of their
    role; "innermost": one run of the role's innermost loop)."""
    _check_convention(convention)
    if mapping not in MAPPINGS:
        raise ValueError(f"compute.array_mapping = {mapping!r}: must be one of "
                         + ", ".join(repr(m) for m in MAPPINGS))
    sr, sc, t = roles(dataflow, view)
    r_sr, r_sc, r_t = role_names(dataflow)
    pipelined = convention == "accelsim" and dataflow != "os"
    if pipelined and mapping == "innermost":
        run_sr, run_sc = view.run(r_sr), view.run(r_sc)
    else:
        run_sr, run_sc = sr, sc
    fill = rows if dataflow != "os" and not pipelined else 0
    if not (sr and sc and t and view.batch):
        return ArrayCost(dataflow, sr, sc, t, 0, 0, view.batch, fill, 0, 0, 0, rows * cols,
                         convention=convention)
    rf, cf = _runs_folds(sr, run_sr, rows), _runs_folds(sc, run_sc, cols)
    # mapped PEs summed over the folds: every PE of a fold maps one (Sr, Sc) element
    pe_used = view.batch * sr * sc
    if pipelined:
        stream, idle = stream_cycles(t, view.run(r_t), rows, min_block_cycles)
        return ArrayCost(dataflow, sr, sc, t, rf, cf, view.batch, 0, stream, 0, pe_used,
                         rows * cols, once=2 * rows + cols - 2 - idle, convention=convention)
    drain = cols - 1 + (rows if dataflow == "os" and convention == "accelsim" else 0)
    return ArrayCost(dataflow, sr, sc, t, rf, cf, view.batch, fill, t + rows - 1, drain,
                     pe_used, rows * cols, convention=convention)


def gemm_cycles(dataflow: str, m: int, n: int, k: int, rows: int, cols: int,
                convention: str = "accelsim") -> int:
    """The closed forms of a GEMM, one loop per role. SCALE-Sim's ("scalesim-v3"): os
    ceil(M/R)ceil(N/C)(K+R+C-2); ws ceil(K/R)ceil(N/C)(2R+C+M-2); is
    ceil(K/R)ceil(M/C)(2R+C+N-2). Ours: os ceil(M/R)ceil(N/C)(2R+C+K-2); ws
    2R+C-2 + ceil(K/R)ceil(N/C)ceil(M/R)R - (ceil(M/R)R - M) (M in blocks of R rows, the
    last one, partial or not, R cycles while the next fold's weights shift in, but in the
    call's last fold); is the same with M and N exchanged."""
    return array_cost(dataflow, GemmView(m, n, k), rows, cols, convention).cycles


def min_call_overhead(dataflow: str, rows: int, cols: int, convention: str = "accelsim") -> int:
    """Cycles every call with work spends beyond MACs / (rows*cols) under a systolic
    dataflow: SCALE-Sim's, one fold's fill, skew and drain (folds * T >= MACs / (rows*cols),
    folds >= 1); ours, the fill, skew and drain once (ws, is: every fold streams at least its
    T rows) or per fold (os)."""
    _check_convention(convention)
    if dataflow == "os" and convention == "scalesim-v3":
        return rows + cols - 2
    return 2 * rows + cols - 2


def call_overhead(cc: ComputeConfig, on_matrix: bool) -> int:
    """Cycles per kernel call beyond ops / throughput, at least (the tile search's lower
    bound): fill + drain under the fixed rule (and off the array); under a systolic dataflow
    the smaller of that and one fold's overhead (a kernel the mapping cannot read keeps the
    fixed rule)."""
    fixed = cc.fill_cycles + cc.drain_cycles
    if cc.dataflow == "fixed" or cc.kind != "matrix" or not on_matrix:
        return fixed
    return min(fixed, min_call_overhead(cc.dataflow, cc.rows, cc.cols, cc.array_convention))


def conv_view(n: int, p: int, q: int, k: int, r: int, s: int, c: int) -> GemmView:
    """SCALE-Sim's im2col view of a convolution: ofmap pixels x filters, reduction R*S*C."""
    return GemmView(n * p * q, k, r * s * c)



def peak_macs_per_cycle(cc: ComputeConfig, view: GemmView) -> Fraction:
    """The most MACs per cycle the array reaches on any call whose GEMM is a sub-box of
    `view` (m' <= m, n' <= n, k' <= k; a tiling of the nest), by the cost model's own rule:
    a fold maps at most min(Sr, rows) x min(Sc, cols) PEs and streams T operand vectors
    with its overhead, so (m'/ceil(m'/rows) <= min(m', rows), and the rate grows with T) the
    rate is at most min(Sr, rows) * min(Sc, cols) * T / (T + overhead per fold) (SCALE-Sim's
    folds, our os) or / max(T, rows) (our ws / is: the fill, skew and drain once per call,
    a fold at least `rows` cycles); under the fixed rule (`CostModel._cost_from`: batch x
    ceil(m/rows) x ceil(n/cols) x k cycles, fill and drain once per call) min(m, rows) *
    min(n, cols). A row reduction or a mat-vec (n = 1) reaches at most `rows` MACs a cycle:
    one column of outputs."""
    r, c = cc.rows, cc.cols
    if cc.dataflow == "fixed":
        return Fraction(min(view.m, r) * min(view.n, c))
    sr, sc, t = roles(cc.dataflow, view)
    if not t:
        return Fraction(0)
    if cc.array_convention == "accelsim" and cc.dataflow != "os":
        return Fraction(min(sr, r) * min(sc, c) * t, max(t, r))
    overhead = min_call_overhead(cc.dataflow, r, c, cc.array_convention)
    return Fraction(min(sr, r) * min(sc, c) * t, t + overhead)
