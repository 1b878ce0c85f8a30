"""DRAM: `channels` channels shared by every DMA engine, granted by the DRAM policy.

Each channel is a FIFO server: a DMA engine holds it for the data-transfer part of a
descriptor, starting when both the engine and the channel are ready. Engines reserve when they
accept a descriptor, so channels are granted in issue order (an in-order request queue at the
memory controller): the per-channel `free_at` recursion is that FIFO queue, with no SimPy
event per request. Which channels, for how long and where the interleave rotation goes next
are the policy's (`accelsim.cost.dram`, applied by `EnginePolicy.accept` on this state); the
DRAM records each piece it granted under the channel's name.
"""

from __future__ import annotations

from accelsim.config import DramConfig
from accelsim.cost.dram import Rotation
from accelsim.hw.dma import Transfer
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__  # NamedTuple records without the generated __new__'s extra frame


class Dram:
    def __init__(self, cfg: DramConfig, trace: Trace):
        self.cfg = cfg
        self.records = trace.records
        self.names = [f"dram.ch{c}" for c in range(cfg.channels)]
        self.free_at = [0] * cfg.channels  # per channel: the cycle it is free
        self.next_channel = 0  # first channel of the next interleaved transfer
        # id(rotation) -> (rotation, its pieces with the channels' names)
        self._named: dict[int, tuple[Rotation, tuple[tuple[str, int, int, int], ...]]] = {}

    def record(self, grant: int | Rotation, hold: int, dram_bytes: int, xfer: Transfer) -> None:
        """The trace records of what `xfer` was granted: each piece ends where its channel is
        now free (a channel appears once in a grant)."""
        free = self.free_at
        desc = xfer.desc
        kind, label, loc = desc[4], xfer.label, desc[5]
        if isinstance(grant, int):
            t1 = free[grant]
            self.records.append(_tnew(TraceRecord, (self.names[grant], t1 - hold, t1, kind,
                                                    dram_bytes, label, loc)))
            return
        hit = self._named.get(id(grant))
        if hit is None or hit[0] is not grant:
            names = self.names
            hit = self._named[id(grant)] = (grant, tuple((names[c], c, b, d)
                                                         for c, b, d in grant.pieces))
        append = self.records.append
        for name, c, b, d in hit[1]:
            t1 = free[c]
            append(_tnew(TraceRecord, (name, t1 - d, t1, kind, b, label, loc)))
