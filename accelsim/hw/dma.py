"""DMA engines: a descriptor queue each. Per descriptor: setup, then the burst-granular
transfer on the DRAM channel(s), then the DRAM access latency. The engine is pipelined: it
sets up and transfers the next descriptor while the latency of earlier ones runs, with at
most `max_outstanding` descriptors in flight (1 = the engine waits for each completion).

An engine serves its FIFO queue in order and every cost is known when a descriptor is
accepted, so the engine computes the descriptor's start (when it leaves the queue), reserves
the DRAM channels for its transfer (arbitration in issue order) and schedules the
descriptor's completion: one SimPy event per DMA (the `Transfer` itself), no engine process.
Completion runs the transfer's `completed` hook (data copy, hazard bookkeeping) before anyone
waiting on the tag resumes. The queue holds the accepted descriptors that have not started;
when `queue_depth` of them wait, the control processor stalls until the oldest starts
(`ControlProcessor.submit`).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import simpy
from simpy.events import NORMAL, Event

from accelsim.hw.dram import Dram
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__  # NamedTuple records without the generated __new__'s extra frame


class Transfer(Event):
    """One descriptor, already split and costed by the executor, and its completion event
    (what a `dma_wait` on its tag waits for). A SimPy event that is triggered from the start
    (value None) and scheduled by the engine at its completion cycle; one object per DMA
    instead of a descriptor, an event and a callback closure."""

    __slots__ = ("desc", "engine", "label")
    _ok = True
    _value = None

    # (transfer cycles on one channel (DRAM bursts or SRAM port bound), bytes moved on DRAM
    #  at burst granularity (0: no DRAM side), bytes the program asked for, SRAM-port bound
    #  on an interleaved transfer, kind: "read" (DRAM -> SRAM) / "write" (SRAM -> DRAM) /
    #  "copy", the op's location): one tuple, shared by every transfer of an op and shape
    desc: tuple[int, int, int, int, str, str]
    label: str
    engine: DmaEngine

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


def transfer_done(xfer: Any) -> None:
    """The SimPy callback of every transfer: frees its engine slot, runs its hook."""
    xfer.engine.outstanding -= 1
    xfer.completed()


class DmaEngine:
    def __init__(self, env: simpy.Environment, index: int, queue_depth: int, setup_cycles: int,
                 latency_cycles: int, dram: Dram, trace: Trace, max_outstanding: int = 1):
        self.env = env
        self.name = f"dma{index}"
        self.queue_depth = queue_depth
        self.setup = setup_cycles
        self.latency = latency_cycles
        self.dram = dram
        self.trace = trace
        self.records = trace.records
        self.max_outstanding = max_outstanding
        self.outstanding = 0  # descriptors accepted and not yet completed
        self.busy_until = 0   # end of the last accepted descriptor's setup + transfer
        # completion cycles of the last `max_outstanding` descriptors accepted
        self.completions: deque[int] = deque(maxlen=max_outstanding)
        self.starts: deque[int] = deque()  # start cycles still in the future: the queue

    def accept(self, xfer: Transfer, now: int) -> None:
        """Take `xfer` at cycle `now`: cost it, reserve its channels, schedule its completion."""
        comps = self.completions
        start = now if now > self.busy_until else self.busy_until
        if len(comps) == self.max_outstanding and comps[0] > start:  # no free slot yet
            start = comps[0]
        cycles, dram_bytes, payload, port, kind, loc = xfer.desc
        label = xfer.label
        if dram_bytes:
            ready = start + self.setup
            dram = self.dram
            end = dram.reserve(ready, dram_bytes, cycles, kind, label, loc)
            if dram.interleave and ready + port > end:
                end = ready + port
            done_at = end + self.latency
        else:
            end = done_at = start + self.setup + cycles
        self.busy_until = end
        comps.append(done_at)
        if start > now:
            self.starts.append(start)
        self.records.append(_tnew(TraceRecord, (self.name, start, done_at, "dma", payload,
                                                label, loc)))
        xfer.engine = self
        # the transfer itself fires at completion (as a Timeout would)
        self.env.schedule(xfer, NORMAL, done_at - now)
