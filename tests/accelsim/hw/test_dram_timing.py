"""The DRAM timing model against its closed forms (docs/dram_timing.md), exact timelines of
single requests, the address mapping against a per-burst reference, the write queue, and
one real DMA program."""

from __future__ import annotations

import random

import pytest

from accelsim.config import load_config
from accelsim.cost.dram_bounds import (
    activate_interval,
    bank_conflict_cycles,
    random_read_cycles,
    row_cycle,
    sequential_cycles,
)
from accelsim.cost.dram_timing import DramTiming, Pattern
from accelsim.hw.dram_controller import ChannelController
from accelsim.sim.simulate import simulate
from workloads.dma_programs import tile_sum

TECHS = ("DDR4-3200", "LPDDR5-6400", "HBM2e")


def timing(tech: str, **over: object) -> DramTiming:
    ov = {"dram.model": "timing", "dram.technology": tech, "dram.channels": 1}
    ov.update({f"dram.{k}": v for k, v in over.items()})
    return DramTiming.for_config(load_config("default").with_overrides(ov))


def read_all(t: DramTiming, patterns: list[Pattern]) -> tuple[float, ChannelController]:
    ctl = ChannelController(t)
    reqs = tuple(r for p in patterns for r in t.requests(p)[0])
    return ctl.read(reqs, 0.0), ctl


def contiguous(base: int, nbytes: int) -> Pattern:
    return Pattern(base, nbytes, nbytes, 1, nbytes)


# ---- closed form 1: sequential stream ----------------------------------------------------------
@pytest.mark.parametrize("tech", TECHS)
def test_sequential_stream_reaches_the_row_hit_bound(tech: str) -> None:
    t = timing(tech)
    n = 40 * t.tREFI // t.tBURST  # 40 refresh intervals of data
    end, ctl = read_all(t, [contiguous(0, n * t.burst_bytes)])
    closed = sequential_cycles(t, n)
    assert abs(end / closed - 1) < 0.02, (end, closed)
    assert n * t.tBURST / end >= 0.90  # >= 90 % of peak, refresh counted
    assert ctl.refreshes >= 39
    assert ctl.conflicts > 0  # rows do change, their PRE/ACT hidden by other banks' data
    reqs = t.requests(contiguous(0, n * t.burst_bytes))[0]
    assert max(r[4] for r in reqs) == t.bursts_per_row  # whole rows: the hits of a request


# ---- closed form 2: random 64 B reads ---------------------------------------------------------
def random_reads(t: DramTiming, n: int, seed: int) -> list[Pattern]:
    rng = random.Random(seed)
    bursts = t.bursts_per_row * t.banks * t.rows
    return [Pattern(rng.randrange(bursts) * t.burst_bytes, t.burst_bytes, t.burst_bytes, 1,
                    t.burst_bytes) for _ in range(n)]


RANDOM_CASES = [(tech, {}) for tech in TECHS] + [
    ("DDR4-3200", {"tRRD_S": 12, "tRRD_L": 12}),        # tRRD binds
    ("DDR4-3200", {"tFAW": 60}),                          # tFAW binds
    ("DDR4-3200", {"bank_groups": 2, "banks_per_group": 1}),  # tRC binds (2 banks)
]


@pytest.mark.parametrize(("tech", "over"), RANDOM_CASES,
                         ids=[f"{t}-{'-'.join(o) or 'datasheet'}" for t, o in RANDOM_CASES])
def test_random_reads_are_bound_by_activates(tech: str, over: dict[str, int]) -> None:
    t = timing(tech, **over)
    n = 12_000
    end, ctl = read_all(t, random_reads(t, n, seed=7))
    closed = random_read_cycles(t, n)
    assert abs(end / closed - 1) < 0.02, (end, closed)
    assert ctl.hits < n // 50  # random rows: (nearly) every read is a miss


def test_the_binding_term_is_the_one_the_formula_names() -> None:
    """The overrides above do move the bound: each case's interval is its own term."""
    d = timing("DDR4-3200")
    assert activate_interval(d) == d.tFAW / 4
    assert activate_interval(timing("DDR4-3200", tRRD_S=12, tRRD_L=12)) == 12
    assert activate_interval(timing("DDR4-3200", tFAW=60)) == 15
    two = timing("DDR4-3200", bank_groups=2, banks_per_group=1)
    assert activate_interval(two) == two.tRC / 2


# ---- closed form 3: one bank, row after row ------------------------------------------------
@pytest.mark.parametrize("tech", TECHS)
def test_strided_reads_on_one_bank_show_the_bank_conflict_bound(tech: str) -> None:
    t = timing(tech)
    n = 4000
    sweep = t.channels * t.bank_groups * t.bursts_per_row * t.banks_per_group * t.burst_bytes
    p = Pattern(0, t.burst_bytes, sweep, n, t.burst_bytes)
    reqs = t.requests(p)[0]
    assert len({r[0] for r in reqs}) == 1 and len(reqs) == n  # one bank, n rows
    end, ctl = read_all(t, [p])
    closed = bank_conflict_cycles(t, n)
    assert row_cycle(t) >= t.tRC > t.tRCD + t.tRTP  # the row cycle, not the read, binds
    assert abs(end / closed - 1) < 0.02, (end, closed)
    assert ctl.hits == 0 and ctl.conflicts + ctl.misses == n  # every read opens a row


# ---- exact timelines of single requests ----------------------------------------------------
def test_single_requests_exact_timeline() -> None:
    t = timing("DDR4-3200")
    ctl = ChannelController(t)
    one = t.requests(contiguous(0, t.burst_bytes))[0]
    # closed bank: ACT at 0, read at tRCD, data ends tCL + tBURST later
    assert ctl.read(one, 0.0) == t.tRCD + t.tCL + t.tBURST
    # the same row, later: a hit, no ACT
    assert ctl.read(one, 1000.0) == 1000 + t.tCL + t.tBURST
    # another row of the same bank: PRE, ACT, read
    row_unit = t.channels * t.banks * t.bursts_per_row * t.burst_bytes  # the next row, bank 0
    other = t.requests(contiguous(row_unit, t.burst_bytes))[0]
    assert other[0][0] == one[0][0] and other[0][3] != one[0][3]
    assert ctl.read(other, 2000.0) == 2000 + t.tRP + t.tRCD + t.tCL + t.tBURST
    assert (ctl.hits, ctl.misses, ctl.conflicts) == (1, 1, 1)


def test_closed_page_misses_every_time() -> None:
    t = timing("DDR4-3200", page_policy="closed")
    ctl = ChannelController(t)
    one = t.requests(contiguous(0, t.burst_bytes))[0]
    ctl.read(one, 0.0)
    # auto-precharged: the same row again is an ACT (no PRE), tRC after the first ACT at most
    assert ctl.read(one, 1000.0) == 1000 + t.tRCD + t.tCL + t.tBURST
    assert (ctl.hits, ctl.misses, ctl.conflicts) == (0, 2, 0)


def test_writes_are_posted_until_the_high_watermark() -> None:
    t = timing("DDR4-3200", write_queue=64, write_high_watermark=48, write_low_watermark=16)
    ctl = ChannelController(t)
    small = t.requests(contiguous(0, 16 * t.burst_bytes))[0]
    assert ctl.write(small, 0.0) == 0.0 and ctl.pending == 16 and ctl.bus == 0.0
    big = t.requests(contiguous(1 << 20, 100 * t.burst_bytes))[0]  # does not fit: waits
    end = ctl.write(big, 10.0)
    assert end > 10 + 100 * t.tBURST and ctl.pending <= 16
    # a read right after the drain waits tWTR after the last write data
    rd = t.requests(contiguous(1 << 24, t.burst_bytes))[0]
    got = ctl.read(rd, 0.0)
    assert got >= ctl.last_wdata + t.tWTR + t.tCL + t.tBURST


def test_idle_channel_drains_queued_writes_before_a_read() -> None:
    t = timing("DDR4-3200")
    ctl = ChannelController(t)
    ctl.write(t.requests(contiguous(0, 8 * t.burst_bytes))[0], 0.0)
    assert ctl.pending == 8
    ctl.read(t.requests(contiguous(1 << 22, t.burst_bytes))[0], 10_000.0)
    assert ctl.pending == 0


# ---- the address mapping --------------------------------------------------------------------
def decode(t: DramTiming, addr: int) -> tuple[int, int, int, int]:
    """Per-burst reference: (channel, bank index, bank-group index, row)."""
    x = addr // t.burst_bytes
    d = {}
    for name, radix in t.radices:
        x, d[name] = divmod(x, radix)
    g = d["ra"] * t.bank_groups + d["bg"]
    return d["ch"], g * t.banks_per_group + d["ba"], g, d["ro"]


@pytest.mark.parametrize("mapping", ["ro:ra:ba:co:bg:ch", "ro:ch:ra:ba:bg:co", "ch:ro:bg:ra:co:ba"])
def test_requests_match_a_per_burst_decode(mapping: str) -> None:
    t = DramTiming.for_config(load_config("default").with_overrides(
        {"dram.model": "timing", "dram.address_mapping": mapping, "dram.ranks": 2}))
    rng = random.Random(3)
    for _ in range(40):
        chunk = rng.randrange(1, 3000)
        p = Pattern(rng.randrange(1 << 26), chunk, chunk + rng.randrange(0, 5000),
                    rng.randrange(1, 20), rng.randrange(1, chunk + 1))
        want: dict[tuple[int, int, int], int] = {}
        order: list[tuple[int, int, int]] = []
        for c in range(p.nchunks):
            s = p.base + c * p.stride
            n = p.last if c == p.nchunks - 1 else p.chunk
            for b in range(s // t.burst_bytes, (s + n - 1) // t.burst_bytes + 1):
                ch, bank, _, row = decode(t, b * t.burst_bytes)
                key = (ch, bank, row)
                if key not in want:
                    order.append(key)
                want[key] = want.get(key, 0) + 1
        got = [(ch, r[0], r[3], r[4]) for ch, rs in enumerate(t.requests(p)) for r in rs]
        assert sorted(got) == sorted((*k, want[k]) for k in order)
        for ch, rs in enumerate(t.requests(p)):  # first-touch order within each channel
            assert [(ch, r[0], r[3]) for r in rs] == [k for k in order if k[0] == ch]


# ---- through a real DMA program ----------------------------------------------------------------
def test_a_dma_program_streams_at_the_sequential_bound() -> None:
    cfg = load_config("default").with_overrides(
        {"dram.model": "timing", "compute.lanes": 4096, "compute.kind": "vector",
         "sram.banks": 64, "sram.bank_bytes_per_cycle": 1024})  # kernels of a few cycles
    n_tiles, tile = 1500, 4096
    r = simulate(tile_sum(n_tiles, tile), cfg, functional=False)
    t = DramTiming.for_config(cfg)
    per_channel = n_tiles * tile * 4 // t.burst_bytes // cfg.dram.channels
    dram = sequential_cycles(t, per_channel) / t.ratio
    closed = dram + cfg.dma.setup_cycles + cfg.dram.latency_cycles
    assert abs(r.cycles / closed - 1) < 0.02, (r.cycles, closed)
    assert r.cycles < closed * 1.02


def test_a_transfer_without_addresses_is_an_error_not_free() -> None:
    from accelsim.errors import SimulationError
    from accelsim.hw.dma import Transfer
    from accelsim.hw.dram import Dram
    from accelsim.hw.simpy_adapter import SimEnv
    from accelsim.trace import Trace

    cfg = load_config("default").with_overrides({"dram.model": "timing"})
    dram = Dram(cfg.dram, Trace(), DramTiming.for_config(cfg))
    xfer = Transfer(SimEnv(), 10, 640, 640, "read", "A->a", "loc")
    with pytest.raises(SimulationError, match="needs the DRAM addresses of transfer A->a"):
        dram.reserve(0, 640, 10, xfer)
