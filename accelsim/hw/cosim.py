"""Many control processors in one SimPy environment.

Each cluster's control processor is the driver of its own program (`accelsim.hw.control`):
plain Python that moves the clock only when it waits. With several, each runs in a greenlet
and a wait hands control to the hub (`ClusterEnv.run_all`), which resumes whichever
processor is due first: the earliest of the waits for a cycle, or the one whose awaited
event the next SimPy event completes. Events due at or before a cycle are processed before
a processor waiting for that cycle resumes (as `SimEnv.advance_to` does), so every shared
resource (DRAM channels, the interconnect's links, shared ports) is reserved in the order
of the simulated cycles the processors issue at.

`barrier(cluster)`: the cluster waits until every cluster has arrived at the same barrier;
all resume at the last arrival's cycle (a `barrier` trace record for the wait).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from heapq import heappop, heappush

import simpy
from greenlet import getcurrent, greenlet

from accelsim.errors import SimulationError
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.trace import TraceRecord

_tnew = tuple.__new__


class ClusterEnv(SimEnv):
    def __init__(self, clusters: int):
        super().__init__()
        self.clusters = clusters
        self._hub: greenlet | None = None
        self._timers: list[tuple[int, int, greenlet]] = []
        self._ready: deque[greenlet] = deque()
        self._seq = 0
        self._arrived: list[tuple[greenlet, int, str, list[TraceRecord]]] = []
        self._alive = 0
        self.on_barrier: list[Callable[[], None]] = []  # run when every cluster has arrived

    # ---- the two waits of a control processor ------------------------------------------
    def advance_to(self, t: int) -> None:
        if self._hub is None:
            SimEnv.advance_to(self, t)
            return
        self._seq += 1
        heappush(self._timers, (t, self._seq, getcurrent()))
        self._hub.switch()

    def wait(self, event: simpy.Event) -> None:
        if self._hub is None:
            SimEnv.wait(self, event)
            return
        if event.callbacks is None:
            return
        me = getcurrent()
        event.callbacks.append(lambda _ev: self._ready.append(me))
        self._hub.switch()

    def barrier(self, name: str, records: list[TraceRecord], label: str, loc: str) -> None:
        """Wait at a barrier until every live cluster has arrived."""
        assert self._hub is not None
        self._arrived.append((getcurrent(), self.now, name, records))
        if len(self._arrived) < self._alive:
            self._hub.switch()
            return
        now = self.now
        for g, t, unit, recs in self._arrived:
            if now > t:
                recs.append(_tnew(TraceRecord, (unit, t, now, "barrier", 0, label, loc)))
            if g is not getcurrent():
                self._ready.append(g)
        self._arrived = []
        for hook in self.on_barrier:
            hook()

    # ---- the hub -----------------------------------------------------------------------
    def run_all(self, bodies: Sequence[Callable[[], None]]) -> None:
        """Run every body (a cluster's program) to its end, concurrently in simulated time;
        then the transfers still in flight complete."""
        self._hub = getcurrent()
        glets = [greenlet(b, parent=self._hub) for b in bodies]
        self._alive = len(glets)
        ready, timers = self._ready, self._timers
        next_due, process_next = self.next_due, self.process_next
        ready.extend(glets)
        try:
            while True:
                while ready:
                    g = ready.popleft()
                    g.switch()
                    if g.dead:
                        self._alive -= 1
                        if self._arrived and len(self._arrived) == self._alive:
                            raise SimulationError(
                                "a cluster finished its program while "
                                f"{len(self._arrived)} other(s) wait at a barrier it never "
                                "reached (the clusters' programs have different barriers)")
                if self._alive == 0:
                    break
                t = timers[0][0] if timers else None
                due = next_due()
                if due is not None and (t is None or due <= t):
                    process_next()
                elif t is not None:
                    t, _, g = heappop(timers)
                    self.now = t
                    ready.append(g)
                else:
                    raise SimulationError(f"deadlock at cycle {self.now}: {self._alive} "
                                          "cluster(s) wait and nothing is in flight")
        finally:
            self._hub = None
        self.run()
