"""Exact event timelines (STYLE #10): each test compares the whole `(unit, start, end)` list
against the closed form the issue states."""

import itertools
import math

import numpy as np
import pytest

from accelsim import load_config, simulate
from accelsim.cost_model import CostModel
from accelsim.examples import tile_sum
from compiler.ir import F32, I32, Builder, memref

SETUP, LAT, BW, BURST = 16, 120, 16, 64


def machine(**over):
    base = {"dma.engines": 1, "dma.setup_cycles": SETUP, "dram.latency_cycles": LAT,
            "dram.bandwidth_bytes_per_cycle": BW, "dram.burst_bytes": BURST, "dram.channels": 1,
            "compute.kind": "vector", "compute.lanes": 16, "compute.fill_cycles": 4,
            "compute.drain_cycles": 4, "control.issue_cycles": 0}
    base.update(over)
    return load_config("default").with_overrides(base)


def one_dma(n, shape=(1024,), stride=None, per=None, space=1):
    b = Builder()
    with b.func("f", A=memref(shape, F32)) as (A,):
        buf = b.alloc(memref((n,), F32, space), "buf")
        tag = b.alloc(memref((1,), I32, 2), "tag")
        b.dma_start(A, [0] * len(shape), buf, [0], tag, [0], n, stride, per)
        b.dma_wait(tag, [0], n)
    return b.module


@pytest.mark.parametrize("n_elems", [1024, 25, 16, 17, 1])
def test_one_dma_is_setup_plus_latency_plus_bursts_over_bandwidth(n_elems):
    B = 4 * n_elems
    moved = math.ceil(B / BURST) * BURST
    T = math.ceil(moved / BW)
    r = simulate(one_dma(n_elems), machine(), functional=False)
    assert r.trace.timeline() == [("cp", 0, SETUP + T + LAT), ("dma0", 0, SETUP + T + LAT),
                                  ("dram.ch0", SETUP, SETUP + T)]
    assert r.cycles == SETUP + LAT + T
    (rec,) = r.trace.of("dram")
    assert rec.bytes == moved and rec.kind == "read"


def test_strided_dma_is_split_into_contiguous_bursts():
    # 8 rows of 10 f32 (40 B) from a 8x100 array: each row is its own burst of 64 B
    r = simulate(one_dma(80, shape=(8, 100), stride=100, per=10), machine(), functional=False)
    T = 8 * BURST // BW
    assert r.trace.timeline("dram") == [("dram.ch0", SETUP, SETUP + T)]
    assert r.trace.of("dram")[0].bytes == 8 * BURST
    assert r.cycles == SETUP + T + LAT


def two_dmas(n):
    b = Builder()
    with b.func("f", A=memref((2, n), F32)) as (A,):
        buf = b.alloc(memref((2, n), F32, 1), "buf")
        tag = b.alloc(memref((2,), I32, 2), "tag")
        b.dma_start(A, [0, 0], buf, [0, 0], tag, [0], n)
        b.dma_start(A, [1, 0], buf, [1, 0], tag, [1], n)
        b.dma_wait(tag, [0], n)
        b.dma_wait(tag, [1], n)
    return b.module


def test_engines_on_one_channel_share_its_bandwidth():
    n = 1024
    T = 4 * n // BW
    r = simulate(two_dmas(n), machine(**{"dma.engines": 2}), functional=False)
    assert r.trace.timeline("dma") == [("dma0", 0, SETUP + T + LAT),
                                       ("dma1", 0, SETUP + 2 * T + LAT)]
    assert r.trace.timeline("dram") == [("dram.ch0", SETUP, SETUP + T),
                                        ("dram.ch0", SETUP + T, SETUP + 2 * T)]
    # with a channel each, they run side by side
    r2 = simulate(two_dmas(n), machine(**{"dma.engines": 2, "dram.channels": 2}), functional=False)
    assert r2.trace.timeline("dram") == [("dram.ch0", SETUP, SETUP + T),
                                         ("dram.ch1", SETUP, SETUP + T)]
    assert r2.cycles == SETUP + T + LAT


def test_one_engine_serializes_descriptors():
    n = 1024
    T = 4 * n // BW
    D = SETUP + T + LAT
    r = simulate(two_dmas(n), machine(), functional=False)
    assert r.trace.timeline("dma") == [("dma0", 0, D), ("dma0", D, 2 * D)]
    assert r.trace.timeline("cp") == [("cp", 0, D), ("cp", D, 2 * D)]


def test_full_descriptor_queue_stalls_the_control_processor():
    n = 1024
    T = 4 * n // BW
    D = SETUP + T + LAT
    b = Builder()
    with b.func("f", A=memref((4, n), F32)) as (A,):
        buf = b.alloc(memref((4, n), F32, 1), "buf")
        tag = b.alloc(memref((4,), I32, 2), "tag")
        for k in range(4):
            b.dma_start(A, [k, 0], buf, [k, 0], tag, [k], n)
        for k in range(4):
            b.dma_wait(tag, [k], n)
    # queue_depth 1: #0 in service, #1 queued, #2 blocks until #0 completes, #3 until #1
    r = simulate(b.module, machine(**{"dma.queue_depth": 1}), functional=False)
    stalls = r.trace.timeline("cp", "stall")
    assert stalls[:2] == [("cp", 0, D), ("cp", D, 2 * D)]
    assert r.trace.timeline("dma") == [("dma0", k * D, (k + 1) * D) for k in range(4)]


def kernel_cycles(cfg, tile):
    # tile_sum_kernel: `tile` adds on `lanes` lanes; 2 loads + 1 store of 4 B per element
    compute = math.ceil(tile / cfg.compute.lanes)
    sram = math.ceil(12 * tile / cfg.sram.bytes_per_cycle)
    return cfg.compute.fill_cycles + max(compute, sram) + cfg.compute.drain_cycles


@pytest.mark.parametrize("lanes", [16, 1])
def test_double_buffered_loop_reaches_max_of_dma_and_compute(lanes):
    cfg = machine(**{"compute.lanes": lanes})
    n_tiles, tile = 6, 256
    D = SETUP + 4 * tile // BW + LAT
    C = kernel_cycles(cfg, tile)
    mod = tile_sum(n_tiles, tile, pipelined=True)
    kernel = mod.lookup("tile_sum_kernel")
    assert CostModel(cfg).kernel(kernel, (None, 0, None)).cycles == C
    r = simulate(mod, cfg, functional=False)
    # closed form: D + (n-1) * max(D, C) + C when D >= C, D + n * C when C > D
    expected_end = D + (n_tiles - 1) * max(D, C) + C if D >= C else D + n_tiles * C
    kernels = r.trace.timeline("compute")
    assert kernels[-1][2] == expected_end
    steady = [b[1] - a[1] for a, b in itertools.pairwise(kernels[1:])]
    assert steady == [max(D, C)] * (n_tiles - 2)
    if D >= C:
        assert kernels == [("compute0", (i + 1) * D, (i + 1) * D + C) for i in range(n_tiles)]
    else:
        assert kernels == [("compute0", D + i * C, D + (i + 1) * C) for i in range(n_tiles)]
    # and the tail: the 4-byte copy-out after the last kernel
    tail = SETUP + math.ceil(BURST / BW) + LAT
    assert r.cycles == expected_end + tail


@pytest.mark.parametrize("lanes", [16, 1])
def test_unpipelined_loop_pays_the_sum(lanes):
    cfg = machine(**{"compute.lanes": lanes})
    n_tiles, tile = 5, 256
    D = SETUP + 4 * tile // BW + LAT
    C = kernel_cycles(cfg, tile)
    r = simulate(tile_sum(n_tiles, tile, pipelined=False), cfg, functional=False)
    assert r.trace.timeline("compute") == [
        ("compute0", (i + 1) * D + i * C, (i + 1) * (D + C)) for i in range(n_tiles)]
    assert r.trace.timeline("dma")[:n_tiles] == [
        ("dma0", i * (D + C), i * (D + C) + D) for i in range(n_tiles)]


def test_functional_and_timing_only_agree_on_time_and_data_is_right():
    cfg = machine()
    A = np.random.default_rng(1).uniform(-1, 1, (5, 64)).astype(np.float32)
    f = simulate(tile_sum(5, 64), cfg, inputs={"A": A})
    t = simulate(tile_sum(5, 64), cfg, functional=False)
    assert f.trace.timeline() == t.trace.timeline() and f.cycles == t.cycles
    assert t.outputs is None
    expect = np.float32(0)
    for x in A.reshape(-1):  # the kernel's sequential f32 order
        expect = np.float32(expect + x)
    assert f.outputs["out"][0] == expect
    np.testing.assert_array_equal(f.outputs["A"], A)


def test_issue_cycles_charge_the_control_processor():
    cfg = machine(**{"control.issue_cycles": 3})
    r = simulate(one_dma(1024), cfg, functional=False)
    T = 4096 // BW
    assert r.trace.timeline() == [("cp", 0, 3), ("cp", 3, 3 + SETUP + T + LAT),
                                  ("dma0", 3, 3 + SETUP + T + LAT), ("dram.ch0", 3 + SETUP, 3 + SETUP + T)]


def test_sram_to_sram_copy_uses_the_bank_bandwidth_and_no_dram():
    cfg = machine(**{"sram.banks": 4, "sram.bank_bytes_per_cycle": 8})  # 32 B/cycle
    b = Builder()
    with b.func("f", A=memref((8,), F32)) as (_A,):
        x = b.alloc(memref((1000,), F32, 1), "x")
        y = b.alloc(memref((1000,), F32, 1), "y")
        tag = b.alloc(memref((1,), I32, 2), "tag")
        b.dma_start(x, [0], y, [0], tag, [0], 1000)
        b.dma_wait(tag, [0], 1000)
    r = simulate(b.module, cfg, functional=False)
    # 4000 B read from and 4000 B written to SRAM through a 32 B/cycle port
    T = math.ceil(8000 / 32)
    assert r.trace.timeline() == [("cp", 0, SETUP + T), ("dma0", 0, SETUP + T)]
    assert r.trace.of("dma")[0].kind == "dma" and not r.trace.of("dram")
