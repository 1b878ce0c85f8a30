"""Tag semaphores: one slot per tag-memref element; a DMA completion signals its slot,
`dma_wait` consumes it."""

from __future__ import annotations

from typing import Any, NamedTuple

import simpy

from compiler.ir.core import Operation


class PendingTransfer(NamedTuple):
    """A started DMA whose tag has not been waited on yet (the fields a `TagFile` slot
    provides; the executor stores the `Transfer` itself, which has them too)."""

    done: simpy.Event
    op: Operation
    issued: int
    label: str


class TagFile:
    def __init__(self) -> None:
        # (id(tag buffer), linear index) -> the transfer that signals it (insertion order)
        self.slots: dict[tuple[int, int], Any] = {}
