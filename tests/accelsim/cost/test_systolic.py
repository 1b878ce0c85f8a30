"""Systolic dataflows: SCALE-Sim's closed forms (issue #17, `compute.array_convention =
"scalesim-v3"`) against SCALE-Sim 3.0's figures recorded from its own runs, ours (issue #30: the
os drain, R cycles per fold more; ws / is pipelined) against closed forms written out here,
the kernel cost model against them on whole programs (event and analytic), the loop roles of
gemm / conv / batched gemm, and the fixed rule left as it was."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.cost import kernel_map
from accelsim.cost.systolic import GemmView, array_cost, call_overhead, conv_view, gemm_cycles
from accelsim.estimate.analytic import estimate
from accelsim.report import Report
from compiler.transforms.outline_kernels import ensure_outlined

R = C = 16

# SCALE-Sim 3.0 (bench/peers/scalesim_driver.py, 16x16, stall-free memory): its "Total Cycles"
# and mapping efficiency (%) for (M, N, K); ours is its figure + 1 (docs/dataflows.md)
SCALESIM = {
    ("os", 64, 64, 64): (1503, 100.0), ("os", 100, 37, 50): (1679, 68.82440476190477),
    ("os", 16, 16, 16): (45, 100.0),
    ("ws", 64, 64, 64): (1759, 100.0), ("ws", 100, 37, 50): (1751, 60.221354166666664),
    ("ws", 16, 16, 16): (61, 100.0),
    ("is", 64, 64, 64): (1759, 100.0), ("is", 100, 37, 50): (2323, 69.75446428571429),
    ("is", 16, 16, 16): (61, 100.0),
}


def scalesim_formula(df: str, m: int, n: int, k: int, r: int, c: int) -> int:
    """SCALE-Sim's closed forms (issue #17), written out independently of
    accelsim.cost.systolic."""
    if df == "os":
        return math.ceil(m / r) * math.ceil(n / c) * (k + r + c - 2)
    if df == "ws":
        return math.ceil(k / r) * math.ceil(n / c) * (2 * r + c + m - 2)
    return math.ceil(k / r) * math.ceil(m / c) * (2 * r + c + n - 2)


def our_formula(df: str, m: int, n: int, k: int, r: int, c: int) -> int:
    """Ours for a GEMM with one loop per role (docs/dataflows.md): os SCALE-Sim's folds of
    2R + C + K - 2 (its paper's count, scale-sim-v3 issue #4); ws one fill, skew and drain
    (2R + C - 2) and ceil(K/R)ceil(N/C) folds, each streaming M rows in blocks of R (a partial
    last block takes R cycles: the next fold's weights shift in meanwhile; not in the call's
    last fold); is the same with M and N exchanged."""
    if df == "os":
        return math.ceil(m / r) * math.ceil(n / c) * (k + 2 * r + c - 2)
    if df == "ws":
        return (2 * r + c - 2 + math.ceil(k / r) * math.ceil(n / c) * math.ceil(m / r) * r
                - (math.ceil(m / r) * r - m))
    return (2 * r + c - 2 + math.ceil(k / r) * math.ceil(m / c) * math.ceil(n / r) * r
            - (math.ceil(n / r) * r - n))


@pytest.mark.parametrize(("df", "m", "n", "k"), sorted(SCALESIM))
def test_closed_forms_match_recorded_scalesim_runs(df, m, n, k):
    theirs, eff = SCALESIM[(df, m, n, k)]
    a = array_cost(df, GemmView(m, n, k), R, C, "scalesim-v3")
    assert a.cycles == theirs + 1 == scalesim_formula(df, m, n, k, R, C) == gemm_cycles(
        df, m, n, k, R, C, "scalesim-v3")
    assert a.mapping_efficiency * 100 == pytest.approx(eff, rel=1e-12)
    ours = array_cost(df, GemmView(m, n, k), R, C)
    assert ours.cycles == our_formula(df, m, n, k, R, C) == gemm_cycles(df, m, n, k, R, C)
    assert ours.mapping_efficiency == a.mapping_efficiency and ours.folds == a.folds
    if df == "os":  # the drain correction: R cycles per fold, exactly
        assert ours.cycles - (theirs + 1) == R * a.folds


@settings(max_examples=200, deadline=None)
@given(df=st.sampled_from(["os", "ws", "is"]), m=st.integers(1, 300), n=st.integers(1, 300),
       k=st.integers(1, 300), r=st.integers(1, 40), c=st.integers(1, 40))
def test_phases_add_up_to_the_closed_forms(df, m, n, k, r, c):
    a = array_cost(df, GemmView(m, n, k), r, c, "scalesim-v3")
    assert a.cycles == scalesim_formula(df, m, n, k, r, c)
    assert a.fill == (0 if df == "os" else r) and a.drain == c - 1 and a.stream == a.t + r - 1
    ours = array_cost(df, GemmView(m, n, k), r, c)
    assert ours.cycles == our_formula(df, m, n, k, r, c)
    if df == "os":
        assert ours.fill == 0 and ours.drain == r + c - 1 and ours.stream == ours.t + r - 1
        assert ours.cycles - a.cycles == r * a.folds
    else:
        assert ours.fill == ours.drain == 0 and ours.once <= 2 * r + c - 2
        assert ours.stream >= max(ours.t, r)
    # mapping efficiency: mean over the folds of the mapped share of the array, by brute force
    shares = [min(r, a.sr - i * r) * min(c, a.sc - j * c) / (r * c)
              for i in range(a.row_folds) for j in range(a.col_folds)]
    assert a.mapping_efficiency == pytest.approx(sum(shares) / len(shares))
    # the tile search's per-call overhead is a lower bound of every call, in both conventions
    for conv, cost in (("scalesim-v3", a), ("accelsim", ours)):
        cc = load_config("default").compute.__class__(rows=r, cols=c, dataflow=df,
                                                      array_convention=conv)
        assert cost.cycles >= math.ceil(m * n * k / (r * c)) + call_overhead(cc, True)


def _ideal(df, convention="accelsim"):
    return load_config("ideal").with_overrides({"compute.dataflow": df,
                                               "compute.array_convention": convention})


def _run(spec, cfg):
    mod = workloads.get(spec).module()
    pipe, _ = compile_for_accelerator(cfg, mod)
    ensure_outlined(mod)
    sim = simulate(mod, cfg, functional=False)
    return pipe, sim, estimate(mod, cfg)


@pytest.mark.parametrize("convention", ["accelsim", "scalesim-v3"])
@pytest.mark.parametrize("df", ["os", "ws", "is"])
@pytest.mark.parametrize(("m", "n", "k"), [(100, 37, 50), (64, 64, 64), (17, 250, 33)])
def test_ideal_preset_gemm_cycles_are_the_closed_form(df, m, n, k, convention):
    _, sim, est = _run(f"gemm:M={m},N={n},K={k}", _ideal(df, convention))
    formula = our_formula if convention == "accelsim" else scalesim_formula
    assert sim.cycles == est.cycles == formula(df, m, n, k, R, C)
    rep = Report.from_result(sim)
    assert rep.dataflow == df and rep.kernel_calls == 1 and rep.dma_ops == 0
    assert rep.mapping_efficiency == pytest.approx(
        array_cost(df, GemmView(m, n, k), R, C).mapping_efficiency)


@pytest.mark.parametrize("df", ["os", "ws", "is"])
def test_ideal_preset_conv_is_scalesims_im2col_view(df):
    # P = Q = 10: Sr (os) = 100 ofmap pixels, Sc = 24 filters, T = 3*3*6 = 54
    _, sim, _ = _run("conv2d:N=1,C=6,H=12,W=12,K=24,R=3,S=3", _ideal(df, "scalesim-v3"))
    view = conv_view(1, 10, 10, 24, 3, 3, 6)
    assert (view.m, view.n, view.k) == (100, 24, 54)
    assert sim.cycles == scalesim_formula(df, 100, 24, 54, R, C)


def test_our_conv_maps_the_innermost_loops():
    """Ours on conv2d (loops n k p q c r s): os, SCALE-Sim's im2col folds and the drain; ws, the
    stream in blocks of one output row (10 runs of q, one block each; the fold's last block
    takes R while the next weights shift in: 10 x 10 - 10 + 16 = 106 a fold), the array's rows
    and columns holding the im2col view (4 x 2 folds) or, `array_mapping = "innermost"`, one
    run of s on the rows (3 of 16 rows: c x r x ceil(3/16) = 18 row folds); is, the stream of
    24 filters in blocks of 16 (32 cycles a fold), the columns holding 7 blocks of the 100
    pixels or runs of q (p x ceil(10/16) = 10 column folds)."""
    conv = "conv2d:N=1,C=6,H=12,W=12,K=24,R=3,S=3"
    once = 2 * R + C - 2
    assert _run(conv, _ideal("os"))[1].cycles == our_formula("os", 100, 24, 54, R, C)
    # the call's last block needs no wait for a next preload: 6 (ws: 10 rows) and 8 (is: 8)
    assert _run(conv, _ideal("ws"))[1].cycles == once - 6 + (4 * 2) * 106
    assert _run(conv, _ideal("is"))[1].cycles == once - 8 + (4 * 7) * 32
    inner = {"compute.array_mapping": "innermost"}
    assert _run(conv, _ideal("ws").with_overrides(inner))[1].cycles == once - 6 + 18 * 2 * 106
    assert _run(conv, _ideal("is").with_overrides(inner))[1].cycles == once - 8 + 18 * 10 * 32


def test_batched_gemm_folds_per_product():
    _, sim, _ = _run("batched_gemm:batch=3,M=20,N=40,K=24", _ideal("ws", "scalesim-v3"))
    assert sim.cycles == 3 * scalesim_formula("ws", 20, 40, 24, R, C)
    _, sim, _ = _run("batched_gemm:batch=3,M=20,N=40,K=24", _ideal("ws"))
    # one fill, skew and drain (less the last block's 12-cycle wait), 3 x 2 x 3 folds of 32
    assert sim.cycles == 2 * R + C - 2 - 12 + 3 * 2 * 3 * 32


def test_loop_roles_of_gemm_conv_batched():
    roles = {name: kernel_map.loop_roles(workloads.get(name).module().funcs[0])
             for name in ("gemm", "conv2d", "batched_gemm")}
    assert roles["gemm"] == ("m", "n", "k")
    assert roles["conv2d"] == ("m", "n", "m", "m", "k", "k", "k")  # n k p q c r s
    assert roles["batched_gemm"] == ("batch", "m", "n", "k")
    assert kernel_map.loop_roles(workloads.get("softmax").module().funcs[0]) is None


@pytest.mark.parametrize("df", ["os", "ws"])
def test_tiled_run_charges_each_tile_its_folds(df):
    """On the default machine (tiles, DMAs) the compute unit is busy for the closed form of
    every tile; the analytic estimate agrees with the event run."""
    m, n, k = 96, 80, 72
    cfg = load_config("default").with_overrides({"compute.dataflow": df, "sram.capacity_kib": 16})
    pipe, sim, est = _run(f"gemm:M={m},N={n},K={k}", cfg)
    assert est.cycles == sim.cycles
    sizes = pipe.tile_sizes
    assert sizes is not None

    def parts(total, t):
        return [min(t, total - s) for s in range(0, total, t)]

    want = sum(our_formula(df, a, b, c, R, C)
               for a, b, c in itertools.product(parts(m, sizes[0]), parts(n, sizes[1]),
                                                parts(k, sizes[2])))
    assert Report.from_result(sim).compute_busy_cycles == want


def test_fixed_rule_is_the_default_and_maps_outputs_onto_the_array():
    """The fixed rule: the kernel's m x n outputs on the array, the reduction in time, PEs
    with no output idle: ceil(m/rows) x ceil(n/cols) x k (100x37x50: 7 x 3 x 50, not
    MACs / 256 = 723, which the array cannot reach with 37 columns of outputs)."""
    for name in ("default", "edge", "server"):
        assert load_config(name).compute.dataflow == "fixed"
    cfg = load_config("ideal").with_overrides({"compute.dataflow": "fixed"})
    _, sim, _ = _run("gemm:M=100,N=37,K=50", cfg)
    assert sim.cycles == math.ceil(100 / R) * math.ceil(37 / C) * 50  # ideal: no fill/drain
    assert Report.from_result(sim).mapping_efficiency is None
    _, sim, _ = _run("gemm:M=96,N=32,K=50", cfg)  # m and n fill the array: MACs / 256
    assert sim.cycles == 96 * 32 * 50 // (R * C)


def test_bad_dataflow_values_are_config_errors():
    from accelsim.errors import ConfigError

    with pytest.raises(ConfigError, match=r"dataflow = 'xs': must be one of 'fixed', 'ws', 'os', 'is'"):
        load_config("default").with_overrides({"compute.dataflow": "xs"})
    with pytest.raises(ConfigError, match=r"compute.dataflow = 'os': a vector unit"):
        load_config("edge").with_overrides({"compute.dataflow": "os"})
    with pytest.raises(ConfigError, match=r"array_convention = 'scalesim'.*'accelsim', 'scalesim-v3'"):
        load_config("ideal").with_overrides({"compute.array_convention": "scalesim"})
    with pytest.raises(ConfigError, match=r"min_block_cycles = 0"):
        load_config("ideal").with_overrides({"compute.min_block_cycles": 0})
    with pytest.raises(ValueError, match=r"array_convention = 'v2'"):
        array_cost("os", GemmView(4, 4, 4), R, C, "v2")
    with pytest.raises(ConfigError, match=r"array_mapping = 'packed'.*'im2col', 'innermost'"):
        load_config("ideal").with_overrides({"compute.array_mapping": "packed"})


def test_gemm_view_runs_of_the_innermost_loops():
    """A role's run is its innermost loop's trip count; a loop of one iteration by its constant
    bounds (a 1x1 conv's r and s) is passed over, one that runs once in this call is not."""
    f3 = workloads.get("conv2d:N=1,C=6,H=12,W=12,K=24,R=3,S=3").module().funcs[0]
    roles = kernel_map.loop_roles(f3)
    v = kernel_map.gemm_view(roles, (1, 24, 10, 10, 6, 3, 3), kernel_map.one_trip_loops(f3))
    assert (v.m, v.n, v.k, v.m_run, v.n_run, v.k_run) == (100, 24, 54, 10, 24, 3)
    f1 = workloads.get("conv2d:N=1,C=6,H=12,W=12,K=24,R=1,S=1").module().funcs[0]
    assert kernel_map.one_trip_loops(f1) == (True, False, False, False, False, True, True)
    v = kernel_map.gemm_view(roles, (1, 24, 12, 12, 6, 1, 1), kernel_map.one_trip_loops(f1))
    assert (v.k, v.k_run) == (6, 6)
    v = kernel_map.gemm_view(roles, (1, 24, 10, 10, 6, 3, 1), (False,) * 7)  # s runs once here
    assert (v.k, v.k_run) == (18, 1)
    # ours, ws: 10 runs of 10 rows streamed; the rows hold the im2col view (18 -> 2 folds) or
    # one run of the innermost reduction loop each (18 folds of one row)
    a = array_cost("ws", v, R, C)
    assert (a.row_folds, a.col_folds, a.stream, a.once) == (2, 2, 106, 2 * R + C - 2 - 6)
    a = array_cost("ws", v, R, C, mapping="innermost")
    assert (a.row_folds, a.col_folds, a.stream, a.once) == (18, 2, 106, 2 * R + C - 2 - 6)
