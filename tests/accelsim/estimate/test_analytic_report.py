"""The analytic estimate against the event run, and report figures against closed forms."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim import load_config, simulate
from accelsim.estimate.analytic import estimate
from accelsim.report import metrics
from workloads.dma_programs import tile_sum, tiled_gemm

PROGRAMS = {
    "tile_sum pipelined": lambda: tile_sum(40, 256),
    "tile_sum sequential": lambda: tile_sum(40, 256, pipelined=False),
    "gemm pipelined": lambda: tiled_gemm(64, 96, 128, 32),
    "gemm sequential": lambda: tiled_gemm(64, 96, 128, 32, pipelined=False),
}


@pytest.mark.parametrize("preset", ["default", "edge", "server"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_analytic_matches_event_run_on_periodic_programs(preset, name):
    cfg = load_config(preset)
    ev = simulate(PROGRAMS[name](), cfg, functional=False)
    an = estimate(PROGRAMS[name](), cfg)
    assert an.cycles == ev.cycles
    assert an.dma_ops == ev.stats.dma_ops and an.kernel_calls == ev.stats.kernel_calls


def _walked_dmas(monkeypatch) -> list[int]:
    """Counts the DMAs the analytic walk actually issues (the rest are jumped or replayed)."""
    from accelsim.estimate.state import ClosedFormMachine as Machine

    calls: list[int] = []
    orig = Machine.dma

    def counting(self, *args):
        calls.append(1)
        return orig(self, *args)

    monkeypatch.setattr(Machine, "dma", counting)
    return calls


def test_analytic_walks_few_iterations(monkeypatch):
    calls = _walked_dmas(monkeypatch)
    est = estimate(tile_sum(10_000, 64), "default")
    assert est.dma_ops == 10_001 and len(calls) < 30


def test_report_figures_follow_from_the_trace():
    cfg = load_config("default").with_overrides({"dma.engines": 1, "compute.kind": "vector"})
    r = simulate(tile_sum(10, 256, pipelined=False), cfg, functional=False)
    m = metrics(r)
    burst = cfg.dram.burst_bytes
    assert m["dram_bytes_read"] == 10 * 1024
    assert m["dram_bytes_written"] == burst  # one 4-byte result, one burst
    kernels = r.trace.of("compute")
    dmas = r.trace.of("dma")
    assert m["compute_utilization"] == pytest.approx(sum(k.duration for k in kernels) / r.cycles)
    assert m["dma_utilization"] == pytest.approx(sum(d.duration for d in dmas) / r.cycles)
    assert m["overlap_fraction"] == 0.0  # sequential: never both busy
    assert m["stall_cycles"] == sum(d.duration for d in dmas)  # the CP waits on every DMA
    peak = cfg.dram.channels * cfg.dram.bandwidth_bytes_per_cycle
    assert m["schedule_roofline_cycles"] == max(r.stats.ideal_compute_cycles,
                                       math.ceil((10 * 1024 + burst) / peak))
    assert m["schedule_roofline_ratio"] == pytest.approx(r.cycles / m["schedule_roofline_cycles"])
    assert m["sram_peak_bytes"] == 2 * 256 * 4 + 4
    e = cfg.energy
    sram = r.stats.kernel_sram_bytes + r.stats.dma_sram_bytes
    assert m["energy_pj"] == pytest.approx((10 * 1024 + burst) * e.dram_pj_per_byte
                                           + sram * e.sram_pj_per_byte
                                           + r.stats.alu_ops * 0.9  # f32 adds (Horowitz)
                                           + e.static_mw * 1e-3 * r.seconds * 1e12)
    assert m["seconds"] == pytest.approx(r.cycles / 1e9)
    p = simulate(tile_sum(10, 256), cfg, functional=False)
    assert metrics(p)["overlap_fraction"] > 0.5


def test_direct_dram_kernels_are_charged_and_flagged():
    import workloads

    cfg = load_config("default")
    r = simulate(workloads.get("vector_add:N=64").module(), cfg, functional=False)
    assert r.flags and "accesses slow memory directly" in r.flags[0]
    # 3 accesses per element, each paying the DRAM latency
    assert r.cycles >= 3 * 64 * cfg.dram.latency_cycles


@settings(max_examples=60, deadline=None)
@given(pipelined=st.booleans(), engines=st.integers(1, 4), channels=st.integers(1, 4),
       queue_depth=st.integers(1, 3), setup=st.integers(0, 40), latency=st.integers(0, 300),
       bw=st.sampled_from([4, 16, 64]), burst=st.sampled_from([16, 64]),
       kind=st.sampled_from(["matrix", "vector"]), issue=st.integers(0, 3),
       outstanding=st.integers(1, 8), interleave=st.sampled_from(["burst", "none"]))
def test_analytic_equals_event_on_random_machines(pipelined, engines, channels, queue_depth, setup,
                                                   latency, bw, burst, kind, issue, outstanding,
                                                   interleave):
    cfg = load_config("default").with_overrides({
        "dma.engines": engines, "dram.channels": channels, "dma.queue_depth": queue_depth,
        "dma.setup_cycles": setup, "dram.latency_cycles": latency,
        "dram.bandwidth_bytes_per_cycle": bw, "dram.burst_bytes": burst, "compute.kind": kind,
        "control.issue_cycles": issue, "dma.max_outstanding": outstanding,
        "dram.interleave": interleave})
    ev = simulate(tiled_gemm(64, 32, 48, 16, pipelined), cfg, functional=False)
    assert estimate(tiled_gemm(64, 32, 48, 16, pipelined), cfg).cycles == ev.cycles


def test_tile_loop_nest_replays_inner_loops_and_stays_exact(monkeypatch):
    """gemm 256^3 in 32-tiles: 512 k-iterations; the k loop is replayed from the loop memo
    once its entry state repeats, so only a few dozen DMAs are walked, and the total is still
    the event run's."""
    cfg = load_config("default")
    ev = simulate(tiled_gemm(256, 256, 256, 32), cfg, functional=False)
    calls = _walked_dmas(monkeypatch)
    an = estimate(tiled_gemm(256, 256, 256, 32), cfg)
    assert an.cycles == ev.cycles and an.dma_ops == ev.stats.dma_ops == 1152
    assert len(calls) < 150


def _three_slot_sum(n_tiles: int, tile: int):
    """Double-buffered tags (mod 2) but a 3-slot buffer (mod 3): the body's mod patterns have
    period 6, while the machine state settles to a period of 1 after a slower first iteration
    (it waits for the prologue DMA)."""
    from compiler.ir import F32, I32, INDEX, Builder, memref

    b = Builder()
    with b.func("k", private=True, buf=memref((3, tile), F32, 1), s=INDEX,
                acc=memref((1,), F32, 1)) as (buf, s, acc):
        for j in b.range(tile):
            acc[0] = acc[0] + buf[s, j]
    with b.func("main", A=memref((n_tiles, tile), F32), out=memref((1,), F32)) as (A, out):
        buf = b.alloc(memref((3, tile), F32, 1), "buf")
        acc = b.alloc(memref((1,), F32, 1), "acc")
        tag = b.alloc(memref((2,), I32, 2), "tag")
        otag = b.alloc(memref((1,), I32, 2), "otag")
        b.dma_start(A, [0, 0], buf, [0, 0], tag, [0], tile)
        for i in b.range(n_tiles):
            with b.if_(i < n_tiles - 1):
                b.dma_start(A, [i + 1, 0], buf, [(i + 1) % 3, 0], tag, [(i + 1) % 2], tile)
            b.dma_wait(tag, [i % 2], tile)
            b.call("k", [buf, b.index(i % 3), acc])
        b.dma_start(acc, [0], out, [0], otag, [0], 1)
        b.dma_wait(otag, [0], 1)
    return b.module


@pytest.mark.parametrize("preset", ["default", "edge", "server"])
@pytest.mark.parametrize("tile", [64, 512])
def test_jump_window_starts_after_the_transient(preset, tile):
    """A period of 1 found right after the first iteration must not jump with a window of 6
    that still holds the first iteration (the estimate was high by one transient per jump)."""
    cfg = load_config(preset)
    ev = simulate(_three_slot_sum(40, tile), cfg, functional=False)
    assert estimate(_three_slot_sum(40, tile), cfg).cycles == ev.cycles
