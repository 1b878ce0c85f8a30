"""The memory levels of the machine: each on-chip level's port group and capacity, each
link's DMA engines.

- `PortGroup`: an on-chip level's `ports`, each a FIFO server like a DRAM channel: a transfer
  over the link to a child of this level holds the earliest free port (the lowest index on
  ties) for its cycles, granted in issue order, recorded under `port.<level>.<k>`. (DRAM's
  ports are its channels, `accelsim.hw.dram.Dram`.)
- `LinkEngines`: the DMA engines of one link (`dma[<parent>-><child>]<k>`; `dma<k>` on a
  machine of one link), with the link's
  engine policy (`accelsim.cost.engine.EnginePolicy.for_link`) and the port group of its
  parent, which its transfers reserve.
- `HopDone`: the completion of a hop of a routed transfer before its last: it frees the
  descriptor's place in that engine's load (the last hop is the transfer itself).

Capacity per level is `accelsim.hw.sram.Sram`, one per on-chip level.
"""

from __future__ import annotations

from accelsim.config import LinkConfig, MemoryLevel
from accelsim.cost.dram import earliest_free
from accelsim.cost.engine import EnginePolicy
from accelsim.hw.dma import DmaEngines, Transfer, transfer_done
from accelsim.hw.dram import Dram
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__


class PortGroup:
    """The ports of one on-chip level, reserved as a link's parent side."""

    def __init__(self, level: MemoryLevel, trace: Trace):
        self.level = level
        self.records = trace.records
        self.names = [f"port.{level.name}.{k}" for k in range(level.ports)]
        self.free_at = [0] * level.ports

    def reserve(self, ready: int, nbytes: int, hold: int, xfer: Transfer) -> int:
        free = self.free_at
        c = earliest_free(free) if len(free) > 1 else 0
        t0 = free[c]
        if ready > t0:
            t0 = ready
        free[c] = end = t0 + hold
        desc = xfer.desc
        self.records.append(_tnew(TraceRecord, (self.names[c], t0, end, desc[4], nbytes,
                                                xfer.label, desc[5])))
        return end


class LinkEngines(DmaEngines):
    """One link's DMA engines and what accepting a descriptor on them reads."""

    __slots__ = ("accept", "link", "reserve")

    def __init__(self, link: LinkConfig, policy: EnginePolicy, parent: PortGroup | Dram,
                 names: list[str]):
        super().__init__(link.engines, link.max_outstanding)
        self.link = link
        self.names = names  # `HardwareConfig.engine_names`
        self.accept = policy.accept
        self.reserve = parent.reserve


class HopDone(Transfer):
    """A hop of a routed transfer has completed: its engine has one descriptor fewer."""

    __slots__ = ()

    def __init__(self, env: SimEnv, loads: list[int], engine: int):
        self.env = env
        self.callbacks = [transfer_done]
        self.loads = loads
        self.engine = engine
