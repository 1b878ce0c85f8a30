"""The one module that touches SimPy's internals (tests/accelsim/hw/test_simpy_adapter.py pins
the SimPy releases it was written against, `SIMPY_VERSIONS`, and checks each assumption).

The machine is a SimPy model: every component lives in one `SimEnv`, a user-defined unit is a
SimPy process (`accelsim.hw.units`), and `env.run()` drains what is left at the end. The hot
path is specialized here and nowhere else:

- `SimEnv.now` is a plain attribute (SimPy's is a property over `_now`, which costs a call per
  read); SimPy's own code reads and writes `_now`, which this class turns into that
  attribute, so both always agree.
- `SimEnv.advance_to` / `SimEnv.wait`: the two ways the control processor (the simulation's
  driver, not a process) waits. Both process events exactly as `simpy.Environment.step` does
  (pop the earliest, set the clock, run its callbacks, crash on a failed event nobody
  defused) in one loop rather than a `step()` call per event: one DMA is one event, so that
  call would be a visible share of a simulation.
- `SimEnv.schedule_at`: an event processed at an absolute cycle (`env.schedule` without its
  delay arithmetic and default arguments).
- `TriggeredEvent`: an event triggered (value None) from its construction, one object per DMA
  instead of an event, a trigger and a callback closure.
- `SimEnv.next_due` / `SimEnv.process_next`: one event at a time, for a driver that
  interleaves its own waits (`accelsim.hw.cosim.ClusterEnv`).

The control processor never runs inside `env.run()`, so no `StopSimulation` can reach the
loops here."""

from __future__ import annotations

from heapq import heappop, heappush

import simpy
from simpy.core import EmptySchedule
from simpy.events import NORMAL, Event

# the SimPy releases (major.minor) whose internals this module relies on: the event queue
# `Environment._queue` (a heap of (time, priority, event id, event)), the event id counter
# `_eid`, the clock `_now`, an event's `_ok` / `_value` / `_defused` and `callbacks` set to
# None once processed (tests/accelsim/hw/test_simpy_adapter.py checks each)
SIMPY_VERSIONS = ("4.1",)

__all__ = ["SIMPY_VERSIONS", "EmptySchedule", "SimEnv", "TriggeredEvent", "crash"]


class SimEnv(simpy.Environment):
    """A SimPy environment with a clock read as an attribute and the control processor's two
    waits (module docstring)."""

    now: int = 0  # shadows SimPy's property: an instance attribute, set by `_now` below

    @property  # type: ignore[override]
    def _now(self) -> int:  # SimPy's own code (`step`, `schedule`, `__init__`) goes through here
        return self.now

    @_now.setter
    def _now(self, t: int) -> None:
        self.now = t

    def __init__(self, initial_time: int = 0):
        super().__init__(initial_time)
        queue, eid = self._queue, self._eid

        def schedule_at(t: int, event: Event, push=heappush, normal=NORMAL, nxt=next) -> None:
            """Process `event` at cycle `t` (>= now), after every event already due then (as
            a `Timeout` scheduled now with delay `t - now` would be)."""
            push(queue, (t, normal, nxt(eid), event))

        self.schedule_at = schedule_at

    def advance_to(self, t: int) -> None:
        """Process every event due at or before cycle `t`, then set the clock to `t`.
        (All pending events were scheduled before the caller started to wait, so they come
        first at cycle `t`, as they would before a `Timeout` the caller yielded.)"""
        queue = self._queue
        while queue and queue[0][0] <= t:
            self.now, _, _, event = heappop(queue)
            callbacks, event.callbacks = event.callbacks, None
            for callback in callbacks:
                callback(event)
            if not event._ok:
                crash(event)
        self.now = t

    def wait(self, event: Event) -> None:
        """Process events up to and including `event` (scheduled, not yet processed)."""
        queue = self._queue
        while event.callbacks is not None:
            if not queue:
                raise EmptySchedule
            self.now, _, _, ev = heappop(queue)
            callbacks, ev.callbacks = ev.callbacks, None
            for callback in callbacks:
                callback(ev)
            if not ev._ok:
                crash(ev)

    def next_due(self) -> int | None:
        """The cycle of the next event, None when nothing is scheduled (`peek` without its
        infinity)."""
        queue = self._queue
        return queue[0][0] if queue else None

    def process_next(self) -> None:
        """Process the next event (`step`, for a driver that checks `next_due` first)."""
        self.now, _, _, ev = heappop(self._queue)
        callbacks, ev.callbacks = ev.callbacks, None
        for cb in callbacks:
            cb(ev)
        if not ev._ok:
            crash(ev)


class TriggeredEvent(Event):
    """An event that succeeded (value None) when it was made and is processed when
    `SimEnv.schedule_at` says. A subclass's `__init__` sets `env` and `callbacks` (a list of
    callables taking the event) and does not call `Event.__init__`."""

    _ok = True
    _value = None


def crash(event: Event) -> None:
    """A failed event nobody defused crashes the environment, as in `Environment.step`."""
    if not hasattr(event, "_defused"):
        exc = type(event._value)(*event._value.args)
        exc.__cause__ = event._value
        raise exc
