"""DRAM: `channels` channels shared by every DMA engine.

Each channel is a FIFO server: a DMA engine reserves it for the data-transfer part of a
descriptor (bytes at burst granularity / bandwidth), starting when both the engine and the
channel are ready, and the interval is recorded under the channel's name. Engines reserve
when they accept a descriptor, so channels are granted in issue order (an in-order request
queue at the memory controller; the analytic model does the same): the per-channel `free_at`
recursion is that FIFO queue, with no SimPy event per request. The access latency is
pipelined and does not hold a channel.

With `interleave = "burst"` a transfer's bursts go round-robin over the channels starting at
the channel after the previous transfer's last burst (a contiguous address stream,
interleaved at burst granularity); the transfer ends when its last piece does. The rotation
advances per transfer in program order (engines accept descriptors in issue order, and a
transfer reserves its channels when accepted), so the analytic model reproduces it.
"""

from __future__ import annotations

import simpy

from accelsim.config import DramConfig
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__  # NamedTuple records without the generated __new__'s extra frame


class Dram:
    def __init__(self, env: simpy.Environment, cfg: DramConfig, trace: Trace):
        self.env = env
        self.cfg = cfg
        self.trace = trace
        self.records = trace.records
        self.names = [f"dram.ch{c}" for c in range(cfg.channels)]
        self.free_at = [0] * cfg.channels
        self.interleave = cfg.interleave == "burst" and cfg.channels > 1
        self.next_channel = 0  # rotation for interleaved transfers, advanced per transfer
        self._pieces: dict[tuple[int, int], tuple[int, list[tuple[int, str, int, int]]]] = {}

    def reserve(self, start: int, dram_bytes: int, hold: int, kind: str, label: str,
                loc: str) -> int:
        """Reserve channel time for a transfer ready at `start`; returns the cycle it ends.
        `hold`: cycles on one channel when not interleaved (the transfer's own bound).
        Interleaved, the transfer starts on the next channel of the rotation."""
        free, records, names = self.free_at, self.records, self.names
        if not self.interleave:
            c = free.index(min(free)) if len(free) > 1 else 0  # earliest free, lowest index
            t0 = free[c]
            if start > t0:
                t0 = start
            free[c] = end = t0 + hold
            records.append(_tnew(TraceRecord, (names[c], t0, end, kind, dram_bytes, label, loc)))
            return end
        first = self.next_channel
        pieces = self._pieces.get((dram_bytes, first))
        if pieces is None:
            pieces = self._pieces[(dram_bytes, first)] = self._split(dram_bytes, first)
        self.next_channel = pieces[0]
        end = start
        for c, name, b, dur in pieces[1]:
            t0 = free[c]
            if start > t0:
                t0 = start
            free[c] = t1 = t0 + dur
            records.append(_tnew(TraceRecord, (name, t0, t1, kind, b, label, loc)))
            if t1 > end:
                end = t1
        return end

    def _split(self, dram_bytes: int, first: int) -> tuple[int, list[tuple[int, str, int, int]]]:
        """An interleaved transfer's bursts dealt over the channels from `first` on: (the next
        transfer's first channel, pieces), a piece = (channel, its name, bytes, cycles)."""
        cfg = self.cfg
        burst, bw, n = cfg.burst_bytes, cfg.bandwidth_bytes_per_cycle, cfg.channels
        nb = dram_bytes // burst
        q, r = divmod(nb, n)
        pieces = []
        for i in range(min(nb, n)):
            c = (first + i) % n
            b = (q + (i < r)) * burst
            pieces.append((c, self.names[c], b, -(-b // bw)))
        return (first + nb) % n, pieces
