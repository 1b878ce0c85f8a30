"""The in-order control processor: issues descriptors and kernel calls, and stalls (a
`stall` trace record) when a queue is full or a tag it waits on has not been signalled.

It is the simulation's driver rather than a SimPy process: the executor runs the program in
plain Python and the control processor moves the clock only when it must wait (issue
cycles, a full queue, a busy compute unit, an unfinished transfer), by stepping the SimPy
environment through every event due by then (`SimEnv.advance_to` / `SimEnv.wait`, in
`accelsim.hw.simpy_adapter`, the one module that touches SimPy's internals)."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import simpy

from accelsim.cost.rate import cycles_for
from accelsim.hw.dma import Transfer
from accelsim.hw.dram import Dram
from accelsim.hw.levels import HopDone, LinkEngines
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.hw.units import LinkUnit, LinkWork
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__


class ControlProcessor:
    name = "cp"

    def __init__(self, env: SimEnv, engines: LinkEngines, dram: Dram, issue_cycles: int,
                 trace: Trace, links: Sequence[LinkEngines] = ()):
        self.env = env
        self.engines = engines
        self.dram = dram
        self.issue_cycles = issue_cycles
        self.trace = trace
        self.records = trace.records
        self._accept = engines.accept  # the first link's engine policy
        # the engines' state lists (never replaced), read on every descriptor
        self._loads, self._busy = engines.loads, engines.busy
        self._recent, self._queues, self._names = engines.recent, engines.queues, engines.names
        self._reserve = engines.reserve  # DRAM's (through the interconnect on a cluster)
        self._at = env.schedule_at  # a transfer's completion event, at its cycle
        self.links = list(links)
        # several links: bytes DMAs read and wrote per level, by chain position (one link:
        # the report has them from the transfers' directions)
        routed = len(self.links) > 1
        self.level_bytes = [[0, 0] for _ in range(len(self.links) + 1)] if routed else []
        if routed:  # a transfer goes hop by hop over the links of its route
            self.submit = self._submit_hops  # type: ignore[method-assign]

    def issue(self, label: str, loc: str) -> None:
        """Spend the issue cycles of a descriptor or call (an `issue` record)."""
        if self.issue_cycles:
            env = self.env
            start = env.now
            end = start + self.issue_cycles
            env.advance_to(end)
            self.records.append(_tnew(TraceRecord, (self.name, start, end, "issue", 0, label,
                                                    loc)))

    def submit(self, xfer: Transfer) -> None:
        """Hand `xfer` to the engine the policy picks and schedule its completion; when that
        engine's queue is full, stall until its oldest queued descriptor starts (a `stall`
        record)."""
        now = self.env.now
        loads = self._loads
        cycles, dram_bytes, payload, port, _, loc = xfer.desc
        e, at, start, done = self._accept(now, loads, self._busy, self._recent, self._queues,
                                          cycles, dram_bytes, port, self._reserve, xfer)
        xfer.engine = e
        xfer.loads = loads
        self.records.append(_tnew(TraceRecord, (self._names[e], start, done, "dma", payload,
                                                xfer.label, loc)))
        if at > now:  # full: room when the oldest queued descriptor starts
            self.env.advance_to(at)
            self.records.append(_tnew(TraceRecord, (self.name, now, at, "stall", 0,
                                                    f"queue full: {self._names[e]}", loc)))
        self._at(done, xfer)  # the transfer itself fires at completion (as a Timeout would)

    def _submit_hops(self, xfer: Transfer) -> None:
        """`submit` on a machine with memory levels: each hop of the transfer's route
        (`xfer.shape.hops`, `accelsim.cost.dma.Hop`) is handed to its link's engines when the
        previous hop completes (store-and-forward; the first when issued), on the engine that
        link's policy picks; the control processor stalls only on the first hop's queue. The
        transfer completes with its last hop."""
        env = self.env
        now = env.now
        _, _, payload, _, _, loc = xfer.desc
        hops = xfer.shape.hops  # type: ignore[attr-defined]
        records = self.records
        last = len(hops) - 1
        t = now
        lb = self.level_bytes
        for i, h in enumerate(hops):
            lb[h.reads][0] += h.nbytes
            lb[h.writes][1] += h.nbytes
            lk = self.links[h.link]
            loads = lk.loads
            e, at, start, done = lk.accept(t, loads, lk.busy, lk.recent, lk.queues, h.cycles,
                                           h.parent_bytes, h.port_cycles, lk.reserve, xfer)
            name = lk.names[e]
            records.append(_tnew(TraceRecord, (name, start, done, "dma", payload, xfer.label, loc)))
            if i == 0 and at > now:
                env.advance_to(at)
                records.append(_tnew(TraceRecord, (self.name, now, at, "stall", 0,
                                                   f"queue full: {name}", loc)))
            if i < last:
                self._at(done, HopDone(env, loads, e))
            else:
                xfer.engine = e
                xfer.loads = loads
                self._at(done, xfer)
            t = done

    def attach_unit(self, unit: LinkUnit, burst: int, bandwidth: int | float) -> None:
        """Put `unit` on the DRAM link (`accelsim.hw.units`): every DMA goes through
        `_submit_unit` (DRAM bursts of `burst` bytes at `bandwidth` bytes per cycle per
        channel)."""
        self.unit, self._burst, self._bw = unit, burst, bandwidth
        self.submit = self._submit_unit  # type: ignore[method-assign]

    def _submit_unit(self, xfer: Transfer) -> None:
        """`submit` with a unit on the DRAM link: the engine moves the unit's `link_bytes` on
        DRAM (its transfer cycles on one channel those bytes', never under the SRAM port's);
        when they have crossed, the engine has one descriptor fewer and the unit's `serve`
        runs as a SimPy process, at whose end the transfer completes."""
        env = self.env
        now = env.now
        loads = self._loads
        cycles, dram_bytes, payload, port, kind, loc = xfer.desc
        unit = self.unit
        wire = dram_bytes
        if dram_bytes:
            burst = self._burst
            wire = -(-max(0, int(unit.link_bytes(dram_bytes, kind))) // burst) * burst
            cycles = max(cycles_for(wire, self._bw), port)
        e, at, start, done = self._accept(now, loads, self._busy, self._recent, self._queues,
                                          cycles, wire, port, self._reserve, xfer)
        records = self.records
        name = self._names[e]
        records.append(_tnew(TraceRecord, (name, start, done, "dma", payload, xfer.label, loc)))
        if at > now:
            env.advance_to(at)
            records.append(_tnew(TraceRecord, (self.name, now, at, "stall", 0,
                                               f"queue full: {name}", loc)))
        work = LinkWork(xfer.label, loc, kind, dram_bytes, wire, payload)
        crossed = HopDone(env, loads, e)
        crossed.callbacks.append(lambda _ev: env.process(_served(env, unit, work, xfer)))
        xfer.callbacks = [_completed]  # its engine's load dropped when its bytes crossed
        self._at(done, crossed)

    def wait(self, event: Transfer, label: str, loc: str) -> None:
        """Block until `event` is processed (a `stall` record if that took time)."""
        env = self.env
        start = env.now
        env.wait(event)
        end = env.now
        if end > start:
            self.records.append(_tnew(TraceRecord, (self.name, start, end, "stall", 0, label, loc)))


def _served(env: SimEnv, unit: LinkUnit, work: LinkWork, xfer: Transfer
            ) -> Generator[simpy.Event, Any, None]:
    """The unit's process on one DMA, then the DMA's completion."""
    yield from unit.serve(work)
    env.schedule_at(env.now, xfer)


def _completed(xfer: Transfer) -> None:
    xfer.completed()
