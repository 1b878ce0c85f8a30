"""The DMA transfer cost, the DRAM channel policy and the engine policy are one definition
(`accelsim.cost.dma`, `accelsim.cost.dram`, `accelsim.cost.engine`): random descriptor
sequences driven through the SimPy machine (`accelsim.hw`, as the executor drives it) and
through the analytic estimate's closed-form machine (`accelsim.estimate.state`) complete
every transfer at the same cycle and leave the control processor at the same cycles."""

from __future__ import annotations

import math
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim import load_config
from accelsim.config import HardwareConfig
from accelsim.cost.dma import DmaCostModel
from accelsim.cost.dram import DramPolicy, earliest_free
from accelsim.cost.engine import EnginePolicy
from accelsim.estimate.state import ClosedFormMachine
from accelsim.hw.dma import Transfer
from accelsim.hw.machine import Machine

DRAM, SRAM = 0, 1
SPACES = [(DRAM, SRAM), (SRAM, DRAM), (SRAM, SRAM), (DRAM, DRAM)]

# ("dma", elements, (stride, per) or None, (src space, dst space)); ("wait", k): wait on the
# k-th started transfer (modulo how many); ("busy", cycles): a kernel call of that many cycles
DMA = st.tuples(st.just("dma"), st.integers(0, 700),
                st.one_of(st.none(), st.tuples(st.integers(1, 300), st.integers(1, 300))),
                st.sampled_from(SPACES))
ACTION = st.one_of(DMA, DMA, st.tuples(st.just("wait"), st.integers(0, 60)),
                   st.tuples(st.just("busy"), st.integers(0, 400)))
MACHINE = st.fixed_dictionaries({
    "dma.engines": st.integers(1, 4), "dram.channels": st.integers(1, 4),
    "dma.queue_depth": st.integers(1, 3), "dma.setup_cycles": st.integers(0, 40),
    "dram.latency_cycles": st.integers(0, 300), "dram.bandwidth_bytes_per_cycle":
    st.sampled_from([4, 16, 64]), "dram.burst_bytes": st.sampled_from([16, 64]),
    "dram.interleave": st.sampled_from(["burst", "none"]), "dma.max_outstanding":
    st.integers(1, 8), "control.issue_cycles": st.integers(0, 3),
    "sram.banks": st.sampled_from([1, 8])})


def _event_run(cfg: HardwareConfig, actions: list) -> list[tuple[str, int]]:
    """The SimPy machine, driven as the executor drives it: per action, the transfer's
    completion cycle or the control processor's clock after it."""
    m = Machine(cfg)
    env, cp = m.env, m.cp
    cost = DmaCostModel.for_config(cfg)
    started: list[Transfer] = []
    log: list[tuple[str, int]] = []
    for k, act in enumerate(actions):
        if act[0] == "dma":
            _, n, strided, (src, dst) = act
            stride, per = strided if strided else (None, None)
            c = cost.transfer(n, stride, per, 4, src == DRAM, dst == DRAM, src <= dst,
                              (src == SRAM) + (dst == SRAM))
            kind = "read" if src == DRAM != dst else "write" if dst == DRAM != src else "copy"
            x = Transfer(env, c.cycles, c.dram_bytes, 4 * n, kind, f"t{k}", "loc", c.port_cycles)
            if cp.issue_cycles:
                cp.issue(x.label, "loc")
            cp.submit(x)
            started.append(x)
            log.append(("done", _completion(m, x)))
        elif act[0] == "wait":
            if started:
                x = started[act[1] % len(started)]
                if x.callbacks is not None:
                    cp.wait(x, "wait", "loc")
            log.append(("t", env.now))
        else:
            if cp.issue_cycles:
                cp.issue("kernel", "loc")
            end = env.now + act[1]
            if end > env.now:
                env.advance_to(end)
            log.append(("t", env.now))
    return log


def _completion(m: Machine, x: Transfer) -> int:
    """The cycle `x` is scheduled to complete at (its `dma` trace record's end)."""
    rec = next(r for r in reversed(m.trace.records) if r.unit.startswith("dma") and r.label == x.label)
    return rec.end


def _closed_form_run(cfg: HardwareConfig, actions: list) -> list[tuple[str, int]]:
    m = ClosedFormMachine(cfg)
    started: list[tuple[int, int]] = []
    log: list[tuple[str, int]] = []
    for k, act in enumerate(actions):
        if act[0] == "dma":
            _, n, strided, (src, dst) = act
            stride, per = strided if strided else (None, None)
            db, port, T = m.sizes_of(n, stride, per, 4, src, dst)
            tag = (0, k)
            m.dma(db, port, T, tag)
            started.append(tag)
            log.append(("done", m.done_at(tag)))
        elif act[0] == "wait":
            if started:
                m.wait(started[act[1] % len(started)])
            log.append(("t", m.t))
        else:
            m.busy_for(m.issue + act[1])
            log.append(("t", m.t))
    return log


@settings(max_examples=400, deadline=None)
@given(MACHINE, st.lists(ACTION, max_size=40))
def test_both_machines_take_their_timing_from_the_same_policies(over, actions):
    cfg = load_config("default").with_overrides(over)
    assert _closed_form_run(cfg, actions) == _event_run(cfg, actions)


def test_earliest_free_channel_is_the_lowest_index_on_ties():
    assert earliest_free([5, 3, 3, 9]) == 1
    assert earliest_free([0]) == 0


@pytest.mark.parametrize(("channels", "nbytes", "first"), [(2, 192, 0), (4, 64 * 9, 3), (3, 64, 2)])
def test_interleaved_rotation_deals_bursts_round_robin(channels, nbytes, first):
    cfg = load_config("default").with_overrides({"dram.channels": channels,
                                                 "dram.burst_bytes": 64,
                                                 "dram.bandwidth_bytes_per_cycle": 16})
    rot = DramPolicy.for_config(cfg.dram).rotation(nbytes, first)
    nb = nbytes // 64
    shares = [nb // channels + (i < nb % channels) for i in range(min(nb, channels))]
    assert rot.pieces == tuple(((first + i) % channels, b * 64, math.ceil(b * 64 / 16))
                               for i, b in enumerate(shares))
    assert rot.next_first == (first + nb) % channels


def test_engine_policy_queue_full_stalls_until_the_oldest_queued_descriptor_starts():
    pol = EnginePolicy(engines=1, queue_depth=1, max_outstanding=1, setup=10, latency=100)
    loads, busy, queues = [0], [0], [[]]
    recent: list[deque[int]] = [deque(maxlen=1)]
    free = [0]

    def reserve(ready: int, nbytes: int, hold: int, _: None) -> int:  # one FIFO channel
        free[0] = max(ready, free[0]) + hold
        return free[0]

    # first: starts at once, setup 10, transfer 50, latency 100
    assert pol.accept(0, loads, busy, recent, queues, 50, 64, 0, reserve, None) == (0, 0, 0, 160)
    # second: one slot, so it starts when the first completes, and waits in the queue
    assert pol.accept(0, loads, busy, recent, queues, 50, 64, 0, reserve, None) == (0, 0, 160, 320)
    # third: the queue (depth 1) is full until the second starts at 160
    assert pol.accept(5, loads, busy, recent, queues, 50, 64, 0, reserve, None) == (0, 160, 320, 480)
    assert loads == [3] and busy == [380] and free == [380]


def test_engine_policy_least_loaded_engine_and_the_port_bound():
    pol = EnginePolicy(engines=2, queue_depth=4, max_outstanding=8, setup=0, latency=0)
    loads, busy, queues = [0, 0], [0, 0], [[], []]
    recent: list[deque[int]] = [deque(maxlen=8), deque(maxlen=8)]

    def reserve(ready: int, nbytes: int, hold: int, _: None) -> int:  # free channels
        return ready + hold

    assert pol.accept(0, loads, busy, recent, queues, 12, 192, 0, reserve, None) == (0, 0, 0, 12)
    # engine 0 holds one descriptor: engine 1 takes the next; its SRAM port needs 20 cycles
    assert pol.accept(0, loads, busy, recent, queues, 8, 64, 20, reserve, None) == (1, 0, 0, 20)
    # a tie goes to the lowest index
    assert pol.accept(0, loads, busy, recent, queues, 8, 64, 0, reserve, None)[0] == 0
    assert loads == [2, 1]
