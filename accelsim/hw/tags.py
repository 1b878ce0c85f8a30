"""Tag semaphores: one slot per tag-memref element; a DMA completion signals its slot,
`dma_wait` consumes it."""

from __future__ import annotations

from accelsim.hw.dma import Transfer


class TagFile:
    def __init__(self) -> None:
        # (id(tag buffer), linear index) -> the started transfer that signals it, not yet
        # waited on (in issue order: what is left at the end was never waited on). The
        # transfer is its own completion event; `op`, `issued`, `label` name it in messages.
        self.slots: dict[tuple[int, int], Transfer] = {}
