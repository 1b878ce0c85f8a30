"""DMA engines: a descriptor queue each. Per descriptor: setup, then the burst-granular
transfer on the DRAM channel(s), then the DRAM access latency; the engine is pipelined, with
at most `max_outstanding` descriptors in flight (`accelsim.cost.engine` decides all of it).

An engine serves its FIFO queue in order and every cost is known when a descriptor is
accepted, so the descriptor's start, its DRAM channels (reserved in issue order) and its
completion are decided then (`ControlProcessor.submit`): one SimPy event per DMA (the
`Transfer` itself, scheduled at its completion cycle), no engine process. Completion frees
the descriptor's place in its engine's load and runs the transfer's `completed` hook (data
copy, hazard bookkeeping) before anyone waiting on the tag resumes.
"""

from __future__ import annotations

from collections import deque

import simpy

from accelsim.cost.dram_timing import Pattern
from accelsim.hw.simpy_adapter import TriggeredEvent


class Transfer(TriggeredEvent):
    """One descriptor, already split and costed by the executor, and its completion event
    (what a `dma_wait` on its tag waits for). A SimPy event that is triggered from the start
    (value None) and scheduled by the control processor at its completion cycle; one object
    per DMA instead of a descriptor, an event and a callback closure."""

    __slots__ = ("desc", "engine", "label", "loads")

    # (transfer cycles on one channel (DRAM bursts or SRAM port bound), bytes moved on DRAM
    #  at burst granularity (0: no DRAM side), bytes the program asked for, SRAM-port bound
    #  on an interleaved transfer, kind: "read" (DRAM -> SRAM) / "write" (SRAM -> DRAM) /
    #  "copy", the op's location): one tuple, shared by every transfer of an op and shape
    desc: tuple[int, int, int, int, str, str]
    label: str
    engine: int        # the engine it was handed to, and that machine's engine loads
    loads: list[int]

    def __init__(self, env: simpy.Environment, transfer_cycles: int, dram_bytes: int,
                 payload_bytes: int, kind: str, label: str, loc: str, port_cycles: int = 0):
        self.env = env
        self.callbacks = [transfer_done]
        self.desc = (transfer_cycles, dram_bytes, payload_bytes, port_cycles, kind, loc)
        self.label = label

    @property
    def kind(self) -> str:
        return self.desc[4]

    @property
    def loc(self) -> str:
        return self.desc[5]

    def completed(self) -> None:
        """Runs when the transfer completes, before the control processor sees it."""

    def dram_patterns(self) -> tuple[tuple[bool, Pattern], ...]:
        """Its DRAM sides for the timing model, as (is the write side, the bytes it moves);
        a transfer that knows no addresses has none (the executor's do)."""
        return ()


def transfer_done(xfer: Transfer) -> None:
    """The SimPy callback of every transfer: its engine has one descriptor fewer in flight;
    runs its hook."""
    xfer.loads[xfer.engine] -= 1
    xfer.completed()


class DmaEngines:
    """Every DMA engine's state, one entry per engine, as the engine policy
    (`EnginePolicy.accept`) reads and advances it. Nothing here is a clock: these are the
    cycles decided when descriptors were accepted; `loads` drops as SimPy completes them."""

    __slots__ = ("busy", "loads", "names", "queues", "recent")

    def __init__(self, count: int, max_outstanding: int):
        self.names = [f"dma{k}" for k in range(count)]
        self.loads = [0] * count  # descriptors accepted and not completed
        self.busy = [0] * count   # end of the last accepted descriptor's setup + transfer
        # completion cycles of the last `max_outstanding` descriptors accepted
        self.recent: list[deque[int]] = [deque(maxlen=max_outstanding) for _ in range(count)]
        # start cycles still in the future: the queue
        self.queues: list[deque[int]] = [deque() for _ in range(count)]
