"""DMA engines: a descriptor queue each. Per descriptor: setup, then the burst-granular
transfer on the DRAM channel(s), then the DRAM access latency. The engine is pipelined: it
sets up and transfers the next descriptor while the latency of earlier ones runs, with at
most `max_outstanding` descriptors in flight (1 = the engine waits for each completion).
Completion runs the descriptor's `on_done` (data copy, hazard bookkeeping) and signals its
tag event."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator
from typing import NamedTuple

import simpy

from accelsim.hw.dram import Dram
from accelsim.hw.queues import DescriptorQueue
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
        self.queue = DescriptorQueue(env, queue_depth)
        self.setup = setup_cycles
        self.latency = latency_cycles
        self.dram = dram
        self.trace = trace
        self.max_outstanding = max_outstanding
        self.outstanding = 0  # descriptors accepted and not yet completed
        # completion cycles of the last `max_outstanding` descriptors started
        self.completions: deque[int] = deque(maxlen=max_outstanding)
        self.process = env.process(self._run())

    def _run(self) -> Generator[simpy.Event, object, None]:
        env = self.env
        dram, setup, lat, m = self.dram, self.setup, self.latency, self.max_outstanding
        comps = self.completions
        interleave = dram.interleave
        while True:
            if len(comps) == m and comps[0] > env.now:  # no free slot: wait for the oldest
                yield env.timeout(comps[0] - env.now)
            desc: Descriptor = self.queue.take()
            if desc is None:
                desc = yield self.queue.wait()  # type: ignore[assignment]
            start = env.now
            # setup is the same for every engine, so reserving the channels now for
            # `start + setup` keeps them in FIFO order of the time the transfer is ready
            if desc.dram_bytes:
                ready = start + setup
                end = dram.reserve(ready, desc.dram_bytes, desc.transfer_cycles, desc.channel,
                                   desc.kind, desc.label, desc.loc)
                if interleave and ready + desc.port_cycles > end:
                    end = ready + desc.port_cycles
                done_at = end + lat
            else:
                end = done_at = start + setup + desc.transfer_cycles
            comps.append(done_at)
            if end > start:
                yield env.timeout(end - start)
            if done_at > end:
                ev = env.timeout(done_at - end)
                ev.callbacks.append(lambda _e, d=desc, s=start: self._complete(d, s))
            else:
                self._complete(desc, start)

    def _complete(self, desc: Descriptor, start: int) -> None:
        self.trace.records.append(TraceRecord(self.name, start, self.env.now, "dma",
                                              desc.payload_bytes, desc.label, desc.loc))
        self.outstanding -= 1
        if desc.on_done is not None:
            desc.on_done()
        desc.done.succeed()
