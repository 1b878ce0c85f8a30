"""The SimPy environment, with the two ways the control processor (the only process-like
component) waits: until a cycle, or until an event. Both process every event due first, in
SimPy's order, exactly as if the control processor were a process yielding a `Timeout` or the
event: an event scheduled at the same cycle but after the one waited for still runs later."""

from __future__ import annotations

import simpy


class SimEnv(simpy.Environment):
    def advance_to(self, t: int) -> None:
        """Process every event due at or before cycle `t`, then set the clock to `t`.
        (All pending events were scheduled before the caller started to wait, so they come
        first at cycle `t`, as they would before a `Timeout` the caller yielded.)"""
        queue = self._queue
        step = self.step
        while queue and queue[0][0] <= t:
            step()
        self._now = t

    def wait(self, event: simpy.Event) -> None:
        """Process events up to and including `event` (scheduled, not yet processed)."""
        step = self.step
        while event.callbacks is not None:
            step()
