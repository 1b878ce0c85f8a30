"""The in-order control processor: issues descriptors and kernel calls, and stalls (a
`stall` trace record) when a queue is full or a tag it waits on has not been signalled."""

from __future__ import annotations

from collections.abc import Generator

import simpy

from accelsim.hw.dma import Descriptor, DmaEngine
from accelsim.trace import Trace


class ControlProcessor:
    name = "cp"

    def __init__(self, env: simpy.Environment, engines: list[DmaEngine], issue_cycles: int,
                 trace: Trace):
        self.env = env
        self.engines = engines
        self.issue_cycles = issue_cycles
        self.trace = trace

    def pick_engine(self) -> DmaEngine:
        """The least-loaded engine; ties go to the lowest index (deterministic)."""
        engines = self.engines
        best = engines[0]
        best_load = best.outstanding
        if best_load:
            for e in engines:
                if e.outstanding < best_load:
                    best, best_load = e, e.outstanding
        return best

    def issue(self, label: str, loc: str) -> Generator[simpy.Event, object, None]:
        if self.issue_cycles:
            start = self.env.now
            yield self.env.timeout(self.issue_cycles)
            self.trace.add(self.name, start, self.env.now, "issue", 0, label, loc)

    def enqueue(self, desc: Descriptor) -> Generator[simpy.Event, object, None]:
        yield from self.issue(desc.label, desc.loc)
        put = self.submit(desc)
        if put is not None:
            yield from self.stall_on_queue(put, desc)

    def submit(self, desc: Descriptor) -> simpy.Event | None:
        """Hand `desc` to the least-loaded engine: None if accepted now, else the event that
        fires when its full queue takes it (the caller stalls on it: `stall_on_queue`)."""
        engine = self.pick_engine()
        engine.outstanding += 1
        put = engine.queue.put(desc)
        if put is not None:
            put.engine_name = engine.name  # type: ignore[attr-defined]
        return put

    def stall_on_queue(self, put: simpy.Event, desc: Descriptor) -> Generator[simpy.Event, object, None]:
        start = self.env.now
        yield put
        if self.env.now > start:
            self.trace.add(self.name, start, self.env.now, "stall", 0,
                           f"queue full: {put.engine_name}", desc.loc)  # type: ignore[attr-defined]

    def wait(self, event: simpy.Event, label: str, loc: str) -> Generator[simpy.Event, object, None]:
        if not event.processed:
            start = self.env.now
            yield event
            if self.env.now > start:
                self.trace.add(self.name, start, self.env.now, "stall", 0, label, loc)
