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

    def submit(self, desc: Descriptor) -> tuple[simpy.Event, DmaEngine] | None:
        """Hand `desc` to the least-loaded engine: None if accepted now, else the event that
        fires when that engine's full queue has room (the caller stalls: `stall_on_queue`)."""
        engine = self.pick_engine()
        engine.outstanding += 1
        now = self.env.now
        if engine.queued(now) < engine.queue_depth:
            engine.accept(desc, now)
            return None
        # full: room when the oldest queued descriptor starts
        return self.env.timeout(engine.starts[0] - now), engine

    def stall_on_queue(self, blocked: tuple[simpy.Event, DmaEngine], desc: Descriptor
                       ) -> Generator[simpy.Event, object, None]:
        put, engine = blocked
        start = self.env.now
        yield put
        engine.accept(desc, self.env.now)
        if self.env.now > start:
            self.trace.add(self.name, start, self.env.now, "stall", 0,
                           f"queue full: {engine.name}", desc.loc)
