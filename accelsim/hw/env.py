"""The SimPy environment, with the two ways the control processor (the only process-like
component) waits: until a cycle, or until an event. Both process every event due first, in
SimPy's order, exactly as if the control processor were a process yielding a `Timeout` or the
event: an event scheduled at the same cycle but after the one waited for still runs later.

Both process events as `simpy.Environment.step` does (pop the earliest, set the clock, run its
callbacks, crash on a failed event nobody defused), in the loop rather than through a `step()`
call per event: one DMA is one event, so that call is a visible share of a simulation. The
control processor never runs inside `env.run()`, so no `StopSimulation` can reach them."""

from __future__ import annotations

from heapq import heappop

import simpy


class SimEnv(simpy.Environment):
    def advance_to(self, t: int) -> None:
        """Process every event due at or before cycle `t`, then set the clock to `t`.
        (All pending events were scheduled before the caller started to wait, so they come
        first at cycle `t`, as they would before a `Timeout` the caller yielded.)"""
        queue = self._queue
        while queue and queue[0][0] <= t:
            self._now, _, _, event = heappop(queue)
            callbacks, event.callbacks = event.callbacks, None
            for callback in callbacks:
                callback(event)
            if not event._ok:
                _crash(event)
        self._now = t

    def wait(self, event: simpy.Event) -> None:
        """Process events up to and including `event` (scheduled, not yet processed)."""
        queue = self._queue
        while event.callbacks is not None:
            if not queue:
                raise simpy.core.EmptySchedule
            self._now, _, _, ev = heappop(queue)
            callbacks, ev.callbacks = ev.callbacks, None
            for callback in callbacks:
                callback(ev)
            if not ev._ok:
                _crash(ev)


def _crash(event: simpy.Event) -> None:
    """A failed event nobody defused crashes the environment, as in `Environment.step`."""
    if not hasattr(event, "_defused"):
        exc = type(event._value)(*event._value.args)
        exc.__cause__ = event._value
        raise exc
