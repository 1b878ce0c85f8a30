"""The in-order control processor: issues descriptors and kernel calls, and stalls (a
`stall` trace record) when a queue is full or a tag it waits on has not been signalled.

It is the simulation's driver rather than a SimPy process: the executor runs the program in
plain Python and the control processor moves the clock only when it must wait (issue
cycles, a full queue, a busy compute unit, an unfinished transfer), by stepping the SimPy
environment through every event due by then (`SimEnv.advance_to` / `SimEnv.wait`)."""

from __future__ import annotations

from heapq import heappush

from simpy.events import NORMAL

from accelsim.cost.engine import EnginePolicy
from accelsim.hw.dma import DmaEngines, Transfer
from accelsim.hw.dram import Dram
from accelsim.hw.env import SimEnv
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__


class ControlProcessor:
    name = "cp"

    def __init__(self, env: SimEnv, engines: DmaEngines, dram: Dram, policy: EnginePolicy,
                 issue_cycles: int, trace: Trace):
        self.env = env
        self.engines = engines
        self.dram = dram
        self.policy = policy
        self.issue_cycles = issue_cycles
        self.trace = trace
        self.records = trace.records
        self._accept = policy.accept
        self._record = dram.record
        self._queue, self._eid = env._queue, env._eid  # the event queue `env.schedule` pushes to

    def issue(self, label: str, loc: str) -> None:
        """Spend the issue cycles of a descriptor or call (an `issue` record)."""
        if self.issue_cycles:
            env = self.env
            start = env.now
            env.advance_to(start + self.issue_cycles)
            self.trace.records.append(_tnew(TraceRecord, (self.name, start, env.now, "issue", 0,
                                                          label, loc)))

    def submit(self, xfer: Transfer) -> None:
        """Hand `xfer` to the engine the policy picks and schedule its completion; when that
        engine's queue is full, stall until its oldest queued descriptor starts (a `stall`
        record)."""
        env = self.env
        now = env.now
        eng = self.engines
        cycles, dram_bytes, payload, port, _, loc = xfer.desc
        e, at, start, done, grant = self._accept(now, eng.loads, eng.busy, eng.recent,
                                                 eng.queues, cycles, dram_bytes, port, self.dram)
        if grant is not None:
            self._record(grant, cycles, dram_bytes, xfer)
        xfer.engine = e
        xfer.loads = eng.loads
        records = self.records
        records.append(_tnew(TraceRecord, (eng.names[e], start, done, "dma", payload, xfer.label,
                                           loc)))
        if at > now:  # full: room when the oldest queued descriptor starts
            env.advance_to(at)
            records.append(_tnew(TraceRecord, (self.name, now, at, "stall", 0,
                                               f"queue full: {eng.names[e]}", loc)))
        # the transfer itself fires at completion (as a Timeout would; `env.schedule` without
        # its call frame)
        heappush(self._queue, (done, NORMAL, next(self._eid), xfer))

    def wait(self, event: Transfer, label: str, loc: str) -> None:
        """Block until `event` is processed (a `stall` record if that took time)."""
        env = self.env
        start = env.now
        env.wait(event)
        if env.now > start:
            self.trace.records.append(_tnew(TraceRecord, (self.name, start, env.now, "stall", 0,
                                                          label, loc)))
