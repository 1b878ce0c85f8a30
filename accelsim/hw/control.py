"""The in-order control processor: issues descriptors and kernel calls, and stalls (a
`stall` trace record) when a queue is full or a tag it waits on has not been signalled.

It is the simulation's driver rather than a SimPy process: the executor runs the program in
plain Python and the control processor moves the clock only when it must wait (issue
cycles, a full queue, a busy compute unit, an unfinished transfer), by stepping the SimPy
environment through every event due by then (`SimEnv.advance_to` / `SimEnv.wait`)."""

from __future__ import annotations

from accelsim.hw.dma import DmaEngine, Transfer
from accelsim.hw.env import SimEnv
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__


class ControlProcessor:
    name = "cp"

    def __init__(self, env: SimEnv, engines: list[DmaEngine], issue_cycles: int, trace: Trace):
        self.env = env
        self.engines = engines
        self.issue_cycles = issue_cycles
        self.trace = trace

    def issue(self, label: str, loc: str) -> None:
        """Spend the issue cycles of a descriptor or call (an `issue` record)."""
        if self.issue_cycles:
            env = self.env
            start = env.now
            env.advance_to(start + self.issue_cycles)
            self.trace.records.append(_tnew(TraceRecord, (self.name, start, env.now, "issue", 0,
                                                          label, loc)))

    def submit(self, xfer: Transfer) -> None:
        """Hand `xfer` to the least-loaded engine (fewest descriptors accepted and not
        completed; ties go to the lowest index); when that engine's queue is full, stall until
        its oldest queued descriptor starts (a `stall` record)."""
        engines = self.engines
        engine = engines[0]
        if engine.outstanding:
            best_load = engine.outstanding
            for e in engines:
                if e.outstanding < best_load:
                    engine, best_load = e, e.outstanding
        engine.outstanding += 1
        env = self.env
        now = env.now
        starts = engine.starts  # the queue: accepted descriptors that have not started by now
        while starts and starts[0] <= now:
            starts.popleft()
        if len(starts) < engine.queue_depth:
            engine.accept(xfer, now)
            return
        # full: room when the oldest queued descriptor starts
        env.advance_to(engine.starts[0])
        engine.accept(xfer, env.now)
        if env.now > now:
            self.trace.records.append(_tnew(TraceRecord, (self.name, now, env.now, "stall", 0,
                                                          f"queue full: {engine.name}", xfer.loc)))

    def wait(self, event: Transfer, label: str, loc: str) -> None:
        """Block until `event` is processed (a `stall` record if that took time)."""
        env = self.env
        start = env.now
        env.wait(event)
        if env.now > start:
            self.trace.records.append(_tnew(TraceRecord, (self.name, start, env.now, "stall", 0,
                                                          label, loc)))
