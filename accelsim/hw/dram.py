"""DRAM: `channels` channels shared by every DMA engine.

A DMA engine holds one channel from `pool` for the data-transfer part of a descriptor (bytes
at burst granularity / bandwidth) and records the interval under the channel's name; the
access latency is pipelined and does not hold the channel. Channels are a FIFO server pool
(`hw.queues.ServerPool`): a DMA waits, as a SimPy event, for the first free one.
"""

from __future__ import annotations

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
