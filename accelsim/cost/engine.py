"""DMA engine policy: which engine takes a descriptor, when it starts, when it completes.

- Choice: the least-loaded engine, i.e. the fewest descriptors accepted and not completed,
  the lowest index on ties.
- Queue: an engine's queue holds the descriptors it accepted that have not started. When
  `queue_depth` of them wait, the control processor stalls until the oldest starts, and only
  then hands the descriptor over.
- Start: when the engine is done with the previous descriptor's setup and transfer, and a
  slot is free: at most `max_outstanding` descriptors in flight, i.e. the one accepted
  `max_outstanding` descriptors earlier has completed.
- Timing: setup, then the transfer on the DRAM channels (reserved through the caller's
  `reserve`, which applies the DRAM policy of `accelsim.cost.dram`), never shorter than its
  SRAM-port cycles, then the DRAM access latency, which is pipelined (the engine starts its
  next descriptor meanwhile). On a machine with memory levels each link has its own engines
  and policy (`for_link`): "DRAM" is then the link's parent level (its ports, its latency).
  A transfer with no DRAM side is setup plus its transfer cycles (`accelsim.cost.dma`), no
  latency.

Every cost is known when a descriptor is accepted, so one call (`EnginePolicy.accept`)
decides its whole timeline. The state it reads and advances belongs to the caller: the event
machine (`accelsim.hw`: the engines' lists in `DmaEngines`, the channels in `Dram`; SimPy runs
the clock and the completions) and the analytic estimate's closed-form machine
(`accelsim.estimate.state`).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, MutableSequence, Sequence
from dataclasses import dataclass
from typing import TypeVar

from accelsim.config import HardwareConfig

W = TypeVar("W")
# (ready cycle, DRAM bytes, cycles on one channel, the caller's token) -> the transfer's end
Reserve = Callable[[int, int, int, W], int]


@dataclass(frozen=True, slots=True)
class EnginePolicy:
    engines: int
    queue_depth: int
    max_outstanding: int
    setup: int     # cycles per descriptor before its transfer
    latency: int   # the DRAM access latency after a transfer with a DRAM side

    @staticmethod
    def for_config(config: HardwareConfig) -> EnginePolicy:
        d = config.dma
        return _policy(d.engines, d.queue_depth, d.max_outstanding, d.setup_cycles,
                       config.dram.latency_cycles)

    @staticmethod
    def for_link(config: HardwareConfig, k: int) -> EnginePolicy:
        """The policy of link `k` of `config.links()`: its engines, queue and setup, and the
        access latency of its parent level (DRAM: `dram.latency_cycles`)."""
        lk = config.links()[k]
        return _policy(lk.engines, lk.queue_depth, lk.max_outstanding, lk.setup_cycles,
                       config.memory_chain()[k].latency_cycles)

    def accept(self, now: int, loads: list[int], busy: list[int], recent: Sequence[deque[int]],
               queues: Sequence[MutableSequence[int]], hold: int, dram_bytes: int, port: int,
               reserve: Reserve[W], token: W) -> tuple[int, int, int, int]:
        """One descriptor handed over at cycle `now`: (its engine, the cycle the engine takes
        it (> `now` when that engine's queue is full), its start, its completion).

        Per engine e: `loads[e]` descriptors accepted and not completed (this one is added);
        `busy[e]` the cycle it is done with its last descriptor's setup and transfer (this
        one's end is stored); `recent[e]` the completion cycles of its last
        `max_outstanding` descriptors in acceptance order, a deque of that length (this
        one's is appended); `queues[e]` the start cycles of its accepted descriptors in order
        (those started by then are dropped, this one's is appended if it waits).
        `hold`: transfer cycles on one channel; `dram_bytes`: bytes on DRAM (0: no DRAM
        side); `port`: SRAM-port cycles; `reserve(ready, dram_bytes, hold, token)` grants the
        DRAM channels as `accelsim.cost.dram` says and returns when the transfer ends there."""
        # the least-loaded engine: fewest descriptors accepted and not completed, the lowest
        # index on ties
        e = loads.index(min(loads)) if loads[0] and self.engines > 1 else 0
        loads[e] += 1
        queue = queues[e]
        at = now
        if queue:
            while queue and queue[0] <= now:
                del queue[0]
            if len(queue) >= self.queue_depth:
                at = queue[0]
        start = busy[e]
        if at > start:
            start = at
        rec = recent[e]
        if len(rec) == self.max_outstanding and rec[0] > start:  # no free slot: wait for it
            start = rec[0]
        if start > at:
            queue.append(start)
        ready = start + self.setup
        if dram_bytes:
            end = reserve(ready, dram_bytes, hold, token)
            if ready + port > end:
                end = ready + port
            done = end + self.latency
        else:
            end = done = ready + hold
        busy[e] = end
        rec.append(done)  # a deque of `max_outstanding`: the oldest drops out
        return e, at, start, done


@functools.cache
def _policy(engines: int, queue_depth: int, max_outstanding: int, setup: int, latency: int
            ) -> EnginePolicy:
    return EnginePolicy(engines, queue_depth, max_outstanding, setup, latency)
