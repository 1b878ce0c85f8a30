"""DRAM: `channels` channels shared by every DMA engine.

A channel is held for the data-transfer part of a descriptor (bytes at burst granularity /
bandwidth); the access latency is pipelined and does not hold the channel. Channels are a FIFO
server pool (`hw.queues.ServerPool`): a DMA waits, as a SimPy event, for the first free one.
"""

from __future__ import annotations

from collections.abc import Generator

import simpy

from accelsim.config import DramConfig
from accelsim.hw.queues import ServerPool
from accelsim.trace import Trace


class Dram:
    def __init__(self, env: simpy.Environment, cfg: DramConfig, trace: Trace):
        self.env = env
        self.cfg = cfg
        self.trace = trace
        self.pool = ServerPool(env, cfg.channels)
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
        ch = self.pool.acquire()
        if not isinstance(ch, int):
            ch = yield ch
        start = self.env.now
        yield self.env.timeout(cycles)
        self.trace.add(self.names[ch], start, self.env.now, kind, nbytes, label, loc)  # type: ignore[index]
        self.pool.release(ch)  # type: ignore[arg-type]
