"""The vector unit's register file (`accelsim.cost.vector_reuse`): closed forms of the counts,
their bounds (distinct footprint <= counted <= executions), and the runs that use them."""

from __future__ import annotations

import itertools
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim import load_config
from accelsim.config import HardwareConfig
from accelsim.cost import vector_reuse
from accelsim.cost.kernel import CostModel
from accelsim.cost.kernel_shape import KernelShape
from accelsim.errors import ConfigError
from compiler.ir import F32, Builder, memref
from compiler.ir.ops import FuncOp


def _edge(lanes: int, registers: int) -> HardwareConfig:
    return load_config("edge").with_overrides({"compute.lanes": lanes,
                                               "compute.vector_registers": registers})


def _gemm_j_innermost(M: int, N: int, K: int) -> FuncOp:
    """C[i, j] += A[i, k] * B[k, j], loops i, k, j (j innermost), no scalar replacement."""
    b = Builder()
    with b.func("g", A=memref((M, K), F32, 1), B=memref((K, N), F32, 1), C=memref((M, N), F32, 1)
                ) as (A, B, C):
        for i in b.range(M):
            for k in b.range(K):
                for j in b.range(N):
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]
    return b.module.funcs[0]


def _bytes(cfg: HardwareConfig, func: FuncOp) -> int:
    return CostModel(cfg).kernel(func, (None,) * len(func.args)).sram_bytes


def test_gemm_j_innermost_closed_form():
    """A[i, k] has stride 0 along j: held in one register across j (one load per (i, k));
    C[i, j] is invariant along k: its row of N elements (ceil(N / lanes) registers) held across
    k, read once and written once per i; B[k, j] would need ceil(N / lanes) * K registers
    (across i), more than are left: one load per execution."""
    M, N, K, lanes = 6, 16, 10, 8
    func = _gemm_j_innermost(M, N, K)
    regs = 1 + math.ceil(N / lanes) + 1  # A, C's row, and one too few for B
    cfg = _edge(lanes, regs)
    assert _bytes(cfg, func) == 4 * (M * K + 2 * M * N + M * K * N)
    cost = CostModel(cfg).kernel(func, (None, None, None))
    assert cost.sram_cycles == math.ceil(cost.sram_bytes / cfg.sram.bytes_per_cycle)
    kinds = [c.kind for c in vector_reuse.plan(func, (M, K, N), lanes, regs) or []]
    assert kinds == ["held", "held", "each", "held"]  # C load, A, B, C store (walk order)
    # no register file: one access per load/store executed (the model before)
    assert _bytes(_edge(lanes, 0), func) == 4 * 4 * M * N * K
    # registers enough for B's K x N block too: every operand once
    big = 1 + math.ceil(N / lanes) + math.ceil(N / lanes) * K
    assert _bytes(_edge(lanes, big), func) == 4 * (M * K + 2 * M * N + K * N)


def _column_sum(M: int, N: int) -> FuncOp:
    """out[j] += A[i, j], j innermost: out is invariant along i, its N elements held across i."""
    b = Builder()
    with b.func("s", A=memref((M, N), F32, 1), out=memref((N,), F32, 1)) as (A, out):
        for i in b.range(M):
            for j in b.range(N):
                out[j] = out[j] + A[i, j]
    return b.module.funcs[0]


def test_footprint_over_the_registers_gets_no_reuse():
    M, N, lanes = 12, 64, 8
    func = _column_sum(M, N)
    naive = 4 * 3 * M * N
    assert _bytes(_edge(lanes, 0), func) == naive
    assert _bytes(_edge(lanes, N // lanes - 1), func) == naive  # out's row needs N / lanes
    assert _bytes(_edge(lanes, N // lanes), func) == 4 * (M * N + 2 * N)


def test_stride_zero_is_one_scalar_access_per_vector_op():
    """C[i, j] = a[i] + b[i]: a takes the one register (first in program order), b is
    broadcast: one scalar load per vector op of `lanes` iterations of j."""
    M, N, lanes = 5, 20, 8
    b = Builder()
    with b.func("bc", a=memref((M,), F32, 1), bb=memref((M,), F32, 1), C=memref((M, N), F32, 1)
                ) as (a, bb, C):
        for i in b.range(M):
            for j in b.range(N):
                C[i, j] = a[i] + bb[i]
    func = b.module.funcs[0]
    assert _bytes(_edge(lanes, 1), func) == 4 * (M + math.ceil(N / lanes) * M + M * N)
    assert _bytes(_edge(lanes, 2), func) == 4 * (M + M + M * N)  # both held
    kinds = [c.kind for c in vector_reuse.plan(func, (M, N), lanes, 1) or []]
    assert kinds == ["held", "broadcast", "each"]


def test_bank_streams_follow_the_counts():
    """Under the bank-conflict model the held accumulator row streams once (read and
    write), not once per i."""
    M, N, lanes = 12, 64, 8
    func = _column_sum(M, N)
    cfg = _edge(lanes, N // lanes).with_overrides({"sram.bank_model": "conflicts"})
    from accelsim.cost.kernel_streams import vector_streams
    streams = vector_streams(func, (M, N), 1, lanes, N // lanes)
    assert streams == [(N, 4, 4, lanes, 1, 0), (N, 4, 4, lanes, M, 4 * N), (N, 4, 4, lanes, 1, 0)]
    from accelsim.cost.sram_banks import bank_cycles
    cost = CostModel(cfg).kernel(func, (None, None))
    assert cost.sram_cycles == bank_cycles(streams, cfg.sram.banks, cfg.sram.bank_bytes_per_cycle)


# ---- bounds: distinct footprint <= counted <= executions ---------------------------------

_SHAPE = (4, 4, 4)


@st.composite
def _nests(draw: st.DrawFn) -> tuple[list[int], list[list[int]], list[int]]:
    depth = draw(st.integers(1, 3))
    trips = draw(st.lists(st.integers(1, 4), min_size=depth, max_size=depth))
    # per operand (two loads, one store), per memref dimension: the loop it walks (-1: 0)
    idx = draw(st.lists(st.lists(st.integers(-1, depth - 1), min_size=3, max_size=3),
                        min_size=3, max_size=3))
    where = draw(st.lists(st.integers(1, depth), min_size=3, max_size=3))  # loops around each
    return trips, idx, where


def _nest_func(trips: list[int], idx: list[list[int]]) -> FuncOp:
    b = Builder()
    with b.func("n", x=memref(_SHAPE, F32, 1), y=memref(_SHAPE, F32, 1), z=memref(_SHAPE, F32, 1)
                ) as (x, y, z):
        ivs = []

        def at(k: int) -> tuple:  # type: ignore[type-arg]
            return tuple(ivs[d] if d >= 0 else 0 for d in idx[k])

        loops = [b.range(t) for t in trips]

        def nest(level: int) -> None:
            if level == len(trips):
                z[at(2)] = x[at(0)] + y[at(1)]
                return
            for iv in loops[level]:
                ivs.append(iv)
                nest(level + 1)
                ivs.pop()

        nest(0)
    return b.module.funcs[0]


@settings(max_examples=60, deadline=None)
@given(_nests(), st.integers(1, 8), st.integers(0, 12))
def test_counted_between_distinct_footprint_and_executions(nest, lanes, registers):
    trips, idx, _ = nest
    func = _nest_func(trips, idx)
    key = KernelShape(func).key(())
    assert key == tuple(trips)
    counted = vector_reuse.plan(func, key, lanes, registers)
    assert counted is not None and len(counted) == 3
    execs = math.prod(trips)
    for c, ix in zip(counted, idx, strict=True):
        distinct = {tuple(p[d] if d >= 0 else 0 for d in ix)
                    for p in itertools.product(*[range(t) for t in trips])}
        assert len(distinct) <= c.count <= execs, (c, trips, ix)
        if registers == 0:
            assert c.kind == "each" and c.count == execs
    cfg = _edge(lanes, registers)
    cost = CostModel(cfg).kernel(func, (None, None, None))
    assert cost.sram_bytes == sum(c.bytes for c in counted) <= cost.counts.bytes_in(1)


# ---- config ------------------------------------------------------------------------------

@pytest.mark.parametrize("value,message", [
    (-1, "compute.vector_registers = -1: must be an integer in [0, 4096]"),
    (4097, "compute.vector_registers = 4097: must be an integer in [0, 4096]"),
    (2.5, "compute.vector_registers = 2.5: must be an integer in [0, 4096]"),
])
def test_vector_registers_validated(value, message):
    with pytest.raises(ConfigError) as err:
        load_config("edge").with_overrides({"compute.vector_registers": value})
    assert str(err.value) == message


def test_presets_document_the_register_file():
    assert load_config("edge").compute.vector_registers == 32
    for name in ("default", "server", "ideal", "cluster4", "cluster16", "three_level"):
        assert load_config(name).compute.vector_registers == 0  # matrix units: unchanged


def test_cli_names_a_bad_register_count(capsys):
    from accelsim.cli import main
    code = main(["run", "gemm:M=8,N=8,K=8", "--target", "sim", "--config", "edge", "--timing-only",
                 "--set", "compute.vector_registers=-3"])
    err = capsys.readouterr().err
    assert code != 0 and "compute.vector_registers = -3" in err and "Traceback" not in err


# ---- runs ----------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["gemm:M=40,N=48,K=36", "atax:M=39,N=41",
                                  "conv2d:N=1,C=4,H=10,W=10,K=8,R=3,S=3,stride=1"])
def test_event_run_equals_analytic_estimate_on_edge(spec):
    import workloads
    from accelsim import simulate
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.estimate.analytic import estimate
    from compiler.transforms.outline_kernels import ensure_outlined

    cfg = load_config("edge")
    mod = workloads.get(spec).module()
    compile_for_accelerator(cfg, mod)
    ensure_outlined(mod)
    sim = simulate(mod, cfg, functional=False)
    assert estimate(mod, cfg).cycles == sim.cycles > 0
    none = simulate(mod, cfg.with_overrides({"compute.vector_registers": 0}), functional=False)
    assert sim.stats.kernel_sram_bytes < none.stats.kernel_sram_bytes  # the registers are used


@pytest.mark.parametrize("spec", ["gemm:M=24,N=40,K=20", "conv2d:N=1,C=3,H=9,W=9,K=4,R=3,S=3,stride=1"])
def test_edge_results_still_bit_identical_to_numpy(capsys, spec):
    from accelsim.cli import main
    code = main(["run", spec, "--target", "sim", "--config", "edge", "--json", "--check"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["check"]["ok"]
