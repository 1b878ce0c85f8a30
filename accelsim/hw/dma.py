"""DMA engines: a descriptor queue each. Per descriptor: setup, then the burst-granular
transfer on the DRAM channel(s), then the DRAM access latency. The engine is pipelined: it
sets up and transfers the next descriptor while the latency of earlier ones runs, with at
most `max_outstanding` descriptors in flight (1 = the engine waits for each completion).

An engine serves its FIFO queue in order and every cost is known when a descriptor is
accepted, so the engine computes the descriptor's start (when it leaves the queue), reserves
the DRAM channels for its transfer (arbitration in issue order) and schedules the
descriptor's `done` event at its completion cycle: one SimPy event per DMA, no engine
process. Completion runs the descriptor's `on_done` (data copy, hazard bookkeeping) before
anyone waiting on the tag resumes. The queue holds the accepted descriptors that have not
started; when `queue_depth` of them wait, the control processor stalls until the oldest
starts (`ControlProcessor.submit`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import NamedTuple

import simpy
from simpy.events import NORMAL

from accelsim.hw.dram import Dram
from accelsim.trace import Trace, TraceRecord


class Descriptor(NamedTuple):
    """One transfer, already split and costed by the executor (a NamedTuple: one per DMA)."""

    transfer_cycles: int      # single-channel transfer time (DRAM bursts or SRAM port bound)
    dram_bytes: int           # bytes moved on DRAM, burst granular (0 if no DRAM side)
    payload_bytes: int        # bytes the program asked for
    kind: str                 # "read" (DRAM -> SRAM), "write" (SRAM -> DRAM), "copy"
    label: str
    loc: str
    done: simpy.Event
    on_done: Callable[[], None] | None = None
    port_cycles: int = 0      # SRAM-port bound on the transfer (interleaved transfers)
    channel: int = 0          # first DRAM channel of an interleaved transfer


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
        self.max_outstanding = max_outstanding
        self.outstanding = 0  # descriptors accepted and not yet completed
        self.busy_until = 0   # end of the last accepted descriptor's setup + transfer
        # completion cycles of the last `max_outstanding` descriptors accepted
        self.completions: deque[int] = deque(maxlen=max_outstanding)
        self.starts: deque[int] = deque()  # start cycles still in the future: the queue

    def queued(self, now: int) -> int:
        """Descriptors accepted that have not started by `now` (the queue's occupancy)."""
        starts = self.starts
        while starts and starts[0] <= now:
            starts.popleft()
        return len(starts)

    def accept(self, desc: Descriptor, now: int) -> None:
        """Take `desc` at cycle `now`: cost it, reserve its channels, schedule its completion."""
        comps = self.completions
        start = now if now > self.busy_until else self.busy_until
        if len(comps) == self.max_outstanding and comps[0] > start:  # no free slot yet
            start = comps[0]
        if desc.dram_bytes:
            ready = start + self.setup
            dram = self.dram
            end = dram.reserve(ready, desc.dram_bytes, desc.transfer_cycles, desc.channel,
                               desc.kind, desc.label, desc.loc)
            if dram.interleave and ready + desc.port_cycles > end:
                end = ready + desc.port_cycles
            done_at = end + self.latency
        else:
            end = done_at = start + self.setup + desc.transfer_cycles
        self.busy_until = end
        comps.append(done_at)
        if start > now:
            self.starts.append(start)
        self.trace.records.append(TraceRecord(self.name, start, done_at, "dma", desc.payload_bytes,
                                              desc.label, desc.loc))
        # the done event itself fires at completion (as a Timeout would), our bookkeeping first
        done = desc.done
        done.callbacks.insert(0, lambda _e, on_done=desc.on_done: self._complete(on_done))  # type: ignore[union-attr]
        done._ok = True
        done._value = None
        self.env.schedule(done, NORMAL, done_at - now)

    def _complete(self, on_done: Callable[[], None] | None) -> None:
        self.outstanding -= 1
        if on_done is not None:
            on_done()
