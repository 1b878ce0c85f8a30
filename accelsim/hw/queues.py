"""Two lean SimPy primitives for the hot path: a FIFO pool of identical servers (DRAM
channels) and a bounded FIFO descriptor queue (a DMA engine's).

They behave exactly like `simpy.Store` used as a pool / as a bounded queue (FIFO servers,
FIFO waiters, capacity counted on waiting items), but create an event only when someone has
to wait: taking a free channel or a queued descriptor costs no event at all. Every wait is
still a SimPy event, so SimPy remains the only clock.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import simpy


class ServerPool:
    """`acquire()` returns a free server id, or an event that yields one when released."""

    def __init__(self, env: simpy.Environment, n: int):
        self.env = env
        self.free: deque[int] = deque(range(n))
        self.waiters: deque[simpy.Event] = deque()

    def acquire(self) -> int | simpy.Event:
        if self.free:
            return self.free.popleft()
        ev = self.env.event()
        self.waiters.append(ev)
        return ev

    def release(self, server: int) -> None:
        if self.waiters:
            self.waiters.popleft().succeed(server)
        else:
            self.free.append(server)


class DescriptorQueue:
    """Bounded FIFO between one producer (the control processor) and one consumer (an engine).

    `put(item)` returns None when the item was accepted (handed to the waiting consumer, or
    queued), else an event that triggers once there is room. `take()` returns the next item or
    None; `wait()` gives the event the idle consumer yields on."""

    def __init__(self, env: simpy.Environment, capacity: int):
        self.env = env
        self.capacity = capacity
        self.items: deque[Any] = deque()
        self.blocked: deque[tuple[Any, simpy.Event]] = deque()
        self.idle: simpy.Event | None = None

    def put(self, item: Any) -> simpy.Event | None:
        if self.idle is not None:
            ev, self.idle = self.idle, None
            ev.succeed(item)
            return None
        if len(self.items) < self.capacity:
            self.items.append(item)
            return None
        ev = self.env.event()
        self.blocked.append((item, ev))
        return ev

    def take(self) -> Any:
        if not self.items:
            return None
        item = self.items.popleft()
        if self.blocked:
            nxt, ev = self.blocked.popleft()
            self.items.append(nxt)
            ev.succeed()
        return item

    def wait(self) -> simpy.Event:
        self.idle = self.env.event()
        return self.idle

    def __len__(self) -> int:
        return len(self.items)
