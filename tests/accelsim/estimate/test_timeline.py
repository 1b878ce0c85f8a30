"""Exact event timelines (STYLE #10): each test compares the whole `(unit, start, end)` list
against the closed form the issue states."""

import math

import numpy as np
import pytest

from accelsim import load_config, simulate
from accelsim.cost.kernel import CostModel
from accelsim.estimate.analytic import estimate
from compiler.ir import F32, I32, Builder, memref
from workloads.dma_programs import tile_sum

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
    # with a channel each and no interleaving, they run side by side
    r2 = simulate(two_dmas(n), machine(**{"dma.engines": 2, "dram.channels": 2,
                                          "dram.interleave": "none"}), functional=False)
    assert r2.trace.timeline("dram") == [("dram.ch0", SETUP, SETUP + T),
                                         ("dram.ch1", SETUP, SETUP + T)]
    assert r2.cycles == SETUP + T + LAT
    # interleaved: each transfer's 64 bursts split 32/32 over both channels, at twice the
    # bandwidth; the second waits for the first on both, and ends at the same cycle as above
    r3 = simulate(two_dmas(n), machine(**{"dma.engines": 2, "dram.channels": 2}), functional=False)
    h = T // 2
    assert sorted(r3.trace.timeline("dram")) == [
        ("dram.ch0", SETUP, SETUP + h), ("dram.ch0", SETUP + h, SETUP + T),
        ("dram.ch1", SETUP, SETUP + h), ("dram.ch1", SETUP + h, SETUP + T)]
    assert r3.trace.timeline("dma") == [("dma0", 0, SETUP + h + LAT), ("dma1", 0, SETUP + T + LAT)]


@pytest.mark.parametrize(("n_elems", "channels"), [(1024, 2), (1024, 4), (48, 2), (16, 2), (17, 2), (1, 4)])
def test_one_interleaved_dma_is_setup_plus_latency_plus_its_widest_channel_share(n_elems, channels):
    # B bytes = ceil(B / burst) bursts dealt round-robin from channel 0: channel c gets
    # floor(nb / channels) bursts, plus one for the first nb mod channels channels
    nb = math.ceil(4 * n_elems / BURST)
    shares = [nb // channels + (c < nb % channels) for c in range(channels)]
    T = max(math.ceil(b * BURST / BW) for b in shares)
    r = simulate(one_dma(n_elems), machine(**{"dram.channels": channels}), functional=False)
    assert r.cycles == SETUP + T + LAT
    assert sorted(r.trace.timeline("dram")) == [(f"dram.ch{c}", SETUP, SETUP + math.ceil(b * BURST / BW))
                                        for c, b in enumerate(shares) if b]
    assert sum(rec.bytes for rec in r.trace.of("dram")) == nb * BURST


def test_interleaving_continues_where_the_last_transfer_ended():
    # 3 bursts (192 B) on 2 channels: ch0 ch1 ch0; the next transfer starts on ch1
    b = Builder()
    with b.func("f", A=memref((2, 48), F32)) as (A,):
        buf = b.alloc(memref((2, 48), F32, 1), "buf")
        tag = b.alloc(memref((2,), I32, 2), "tag")
        b.dma_start(A, [0, 0], buf, [0, 0], tag, [0], 48)
        b.dma_wait(tag, [0], 48)
        b.dma_start(A, [1, 0], buf, [1, 0], tag, [1], 48)
        b.dma_wait(tag, [1], 48)
    r = simulate(b.module, machine(**{"dram.channels": 2}), functional=False)
    one, two = BURST // BW, 2 * BURST // BW
    D1 = SETUP + two + LAT
    assert sorted(r.trace.timeline("dram")) == [
        ("dram.ch0", SETUP, SETUP + two), ("dram.ch0", D1 + SETUP, D1 + SETUP + one),
        ("dram.ch1", SETUP, SETUP + one), ("dram.ch1", D1 + SETUP, D1 + SETUP + two)]
    assert r.cycles == 2 * D1


def test_one_engine_pipelines_descriptors():
    n = 1024
    T = 4 * n // BW
    E = SETUP + T  # the engine is busy for setup + transfer; the latency overlaps the next one
    r = simulate(two_dmas(n), machine(), functional=False)
    assert r.trace.timeline("dma") == [("dma0", 0, E + LAT), ("dma0", E, 2 * E + LAT)]
    assert r.trace.timeline("dram") == [("dram.ch0", SETUP, E), ("dram.ch0", E + SETUP, 2 * E)]
    assert r.trace.timeline("cp") == [("cp", 0, E + LAT), ("cp", E + LAT, 2 * E + LAT)]
    # one outstanding descriptor: the engine waits for each completion (no overlap)
    D = E + LAT
    r1 = simulate(two_dmas(n), machine(**{"dma.max_outstanding": 1}), functional=False)
    assert r1.trace.timeline("dma") == [("dma0", 0, D), ("dma0", D, 2 * D)]
    assert r1.trace.timeline("cp") == [("cp", 0, D), ("cp", D, 2 * D)]


def four_dmas(n):
    b = Builder()
    with b.func("f", A=memref((4, n), F32)) as (A,):
        buf = b.alloc(memref((4, n), F32, 1), "buf")
        tag = b.alloc(memref((4,), I32, 2), "tag")
        for k in range(4):
            b.dma_start(A, [k, 0], buf, [k, 0], tag, [k], n)
        for k in range(4):
            b.dma_wait(tag, [k], n)
    return b.module


def test_outstanding_descriptors_are_bounded():
    n = 256
    T = 4 * n // BW
    E = SETUP + T
    D = E + LAT
    assert D > 2 * E  # so the third descriptor has to wait for the first one's completion
    r = simulate(four_dmas(n), machine(**{"dma.max_outstanding": 2}), functional=False)
    # #0 and #1 back to back; #2 starts when #0 completes (D), #3 when #1 does (D + E)
    assert r.trace.timeline("dma") == [("dma0", 0, D), ("dma0", E, E + D),
                                       ("dma0", D, 2 * D), ("dma0", D + E, 2 * D + E)]
    assert r.cycles == 2 * D + E


@pytest.mark.parametrize("outstanding", [1, 8])
def test_full_descriptor_queue_stalls_the_control_processor(outstanding):
    n = 1024
    T = 4 * n // BW
    D = SETUP + T + LAT
    # the engine takes the next descriptor after D (one outstanding) or after setup +
    # transfer (pipelined, the queue frees up sooner)
    P = D if outstanding == 1 else SETUP + T
    # queue_depth 1: #0 in service, #1 queued, #2 blocks until #1 is taken, #3 until #2 is
    cfg = machine(**{"dma.queue_depth": 1, "dma.max_outstanding": outstanding})
    r = simulate(four_dmas(n), cfg, functional=False)
    stalls = r.trace.timeline("cp", "stall")
    assert stalls[:2] == [("cp", 0, P), ("cp", P, 2 * P)]
    assert r.trace.timeline("dma") == [("dma0", k * P, k * P + D) for k in range(4)]
    # the analytic model stalls the same way
    assert estimate(four_dmas(n), cfg).cycles == r.cycles == 3 * P + D


def kernel_cycles(cfg, tile):
    # tile_sum_kernel: `tile` adds on `lanes` lanes; 2 loads + 1 store of 4 B per element
    compute = math.ceil(tile / cfg.compute.lanes)
    sram = math.ceil(12 * tile / cfg.sram.bytes_per_cycle)
    return cfg.compute.fill_cycles + max(compute, sram) + cfg.compute.drain_cycles


@pytest.mark.parametrize("lanes", [16, 1])
def test_double_buffered_loop_reaches_max_of_dma_and_compute(lanes):
    cfg = machine(**{"compute.lanes": lanes})
    n_tiles, tile = 6, 256
    E = SETUP + 4 * tile // BW  # engine time per tile
    D = E + LAT                 # issue to completion
    C = kernel_cycles(cfg, tile)
    mod = tile_sum(n_tiles, tile, pipelined=True)
    kernel = mod.lookup("tile_sum_kernel")
    assert CostModel(cfg).kernel(kernel, (None, 0, None)).cycles == C
    r = simulate(mod, cfg, functional=False)
    kernels = r.trace.timeline("compute")
    # Tile i+1's DMA is issued when kernel i-1 ends (two buffers) and completes D later; the
    # engine is free by then (its busy time E per tile is below the issue spacing here). Kernel
    # 0 starts at D; tile 1 was issued at 0 behind tile 0, so it is ready at D + E.
    if C >= D:   # compute-bound: kernels back to back
        starts = [D + i * C for i in range(n_tiles)]
    else:        # latency-bound (C <= E <= D here): a pair of tiles every D + C cycles
        assert C <= E <= LAT
        starts = [(m + 1) * D + m * C + (E if i % 2 else 0)
                  for i in range(n_tiles) for m in [i // 2]]
    assert kernels == [("compute0", s, s + C) for s in starts]
    # steady state: max(compute, (latency-bound DMA) / 2 buffers) per tile
    assert kernels[-1][2] - kernels[1][1] == (n_tiles - 2) // 2 * max(2 * C, D + C) + C
    # and the tail: the 4-byte copy-out after the last kernel
    tail = SETUP + math.ceil(BURST / BW) + LAT
    assert r.cycles == starts[-1] + C + tail


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


@pytest.mark.parametrize(("key", "value"), [("dma.max_outstanding", 0), ("dma.max_outstanding", 2000),
                                            ("dram.interleave", "page")])
def test_engine_pipelining_keys_are_validated(key, value):
    from accelsim.errors import ConfigError
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        machine(**{key: value})
