"""DRAM: `channels` channels shared by every DMA engine.

A channel is held for the data-transfer part of a descriptor (bytes at burst granularity /
bandwidth); the access latency is pipelined and does not hold the channel. The free channels
sit in a SimPy `Store`, so contention and FIFO arbitration are SimPy's.
"""

from __future__ import annotations

from collections.abc import Generator

import simpy

from accelsim.config import DramConfig
from accelsim.trace import Trace


class Dram:
    def __init__(self, env: simpy.Environment, cfg: DramConfig, trace: Trace):
        self.env = env
        self.cfg = cfg
        self.trace = trace
        self.free = simpy.Store(env, capacity=cfg.channels)
        self.free.items.extend(range(cfg.channels))
        self.names = [f"dram.ch{c}" for c in range(cfg.channels)]

    def burst_bytes(self, contiguous_bytes: int, count: int = 1) -> int:
        """Bytes actually moved for `count` contiguous runs of `contiguous_bytes` each."""
        b = self.cfg.burst_bytes
        return count * (-(-contiguous_bytes // b) * b)

    def transfer_cycles(self, moved_bytes: int) -> int:
        return -(-moved_bytes // self.cfg.bandwidth_bytes_per_cycle)

    def transfer(self, cycles: int, nbytes: int, kind: str, label: str, loc: str
                 ) -> Generator[simpy.Event, object, None]:
        """Hold one channel for `cycles`; waits for a free channel first."""
        ch = yield self.free.get()
        start = self.env.now
        yield self.env.timeout(cycles)
        self.trace.add(self.names[ch], start, self.env.now, kind, nbytes, label, loc)  # type: ignore[index]
        self.free.put(ch)
