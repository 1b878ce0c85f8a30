"""DMA engines: a descriptor queue each; per descriptor: setup, one DRAM channel for the
burst-granular transfer, then the pipelined access latency; completion runs the descriptor's
`on_done` (data copy, hazard bookkeeping) and signals its tag event."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import NamedTuple

import simpy

from accelsim.hw.dram import Dram
from accelsim.hw.queues import DescriptorQueue
from accelsim.trace import Trace, TraceRecord


class Descriptor(NamedTuple):
    """One transfer, already split and costed by the executor (a NamedTuple: one per DMA)."""

    transfer_cycles: int      # cycles holding a DRAM channel (or the SRAM port if no DRAM side)
    dram_bytes: int           # bytes moved on DRAM, burst granular (0 if no DRAM side)
    payload_bytes: int        # bytes the program asked for
    kind: str                 # "read" (DRAM -> SRAM), "write" (SRAM -> DRAM), "copy"
    label: str
    loc: str
    done: simpy.Event
    on_done: Callable[[], None] | None = None


class DmaEngine:
    def __init__(self, env: simpy.Environment, index: int, queue_depth: int, setup_cycles: int,
                 latency_cycles: int, dram: Dram, trace: Trace):
        self.env = env
        self.name = f"dma{index}"
        self.queue = DescriptorQueue(env, queue_depth)
        self.setup = setup_cycles
        self.latency = latency_cycles
        self.dram = dram
        self.trace = trace
        self.outstanding = 0  # descriptors accepted and not yet completed
        self.process = env.process(self._run())

    def _run(self) -> Generator[simpy.Event, object, None]:
        env = self.env
        records = self.trace.records
        while True:
            desc: Descriptor = self.queue.take()
            if desc is None:
                desc = yield self.queue.wait()  # type: ignore[assignment]
            start = env.now
            if self.setup:
                yield env.timeout(self.setup)
            if desc.dram_bytes:
                # one DRAM channel for the transfer (Dram.transfer, inlined: hot path)
                pool = self.dram.pool
                ch = pool.acquire()
                if not isinstance(ch, int):
                    ch = yield ch
                t0 = env.now
                yield env.timeout(desc.transfer_cycles)
                records.append(TraceRecord(self.dram.names[ch], t0, env.now, desc.kind,  # type: ignore[index]
                                           desc.dram_bytes, desc.label, desc.loc))
                pool.release(ch)  # type: ignore[arg-type]
                if self.latency:
                    yield env.timeout(self.latency)
            elif desc.transfer_cycles:
                yield env.timeout(desc.transfer_cycles)
            records.append(TraceRecord(self.name, start, env.now, "dma", desc.payload_bytes,
                                       desc.label, desc.loc))
            self.outstanding -= 1
            if desc.on_done is not None:
                desc.on_done()
            desc.done.succeed()
