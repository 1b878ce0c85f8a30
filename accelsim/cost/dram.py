"""DRAM channel policy: which channel(s) a transfer holds, and for how long.

`channels` channels, each a FIFO server: a transfer ready at cycle `r` starts on a channel at
max(r, the cycle the channel is free) and holds it for its cycles; channels are granted in
issue order (an in-order request queue at the memory controller). Which channels:
- not interleaved (`interleave = "none"`, or one channel): the whole transfer on the
  earliest free channel, the lowest index on ties (`earliest_free`), for its transfer cycles
  (`accelsim.cost.dma`);
- interleaved (`interleave = "burst"`): its bursts dealt round-robin over the channels,
  starting at the channel after the previous transfer's last burst (a contiguous address
  stream interleaved at burst granularity). A `Rotation` is one transfer's pieces, a piece the
  bursts of one channel and their cycles, and the next transfer's first channel; the transfer
  ends when its last piece does, and never before its SRAM-port cycles. The rotation advances
  per transfer in issue order.
- split data paths (`data_paths = "split"`): reads (DRAM to chip) and writes (chip to DRAM)
  each have `channels` channels of their own, so a read never waits for a write's channel
  time; a machine keeps the read channels first, then the write channels (`write_base`).

Each machine keeps its channels' state (when each is free, the next first channel) and
reserves on it as this policy says, when `EnginePolicy.accept` (`accelsim.cost.engine`) asks
it to: the event machine's `accelsim.hw.dram.Dram` (which also records each piece) and the
analytic estimate's closed-form machine. The access latency is pipelined and holds no channel
(the engine adds it).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

from accelsim.config import DramConfig
from accelsim.cost.rate import cycles_for


class Piece(NamedTuple):
    channel: int
    nbytes: int   # bytes of the transfer on this channel (whole bursts)
    cycles: int   # cycles the piece holds the channel


@dataclass(frozen=True, slots=True)
class Rotation:
    """An interleaved transfer from one first channel: its pieces (one per channel it uses,
    in dealing order) and the first channel of the next interleaved transfer."""

    pieces: tuple[Piece, ...]
    next_first: int


def earliest_free(free: list[int]) -> int:
    """The channel a non-interleaved transfer takes: the earliest free (`free[c]`: the cycle
    channel c is free), the lowest index on ties."""
    return free.index(min(free))


@dataclass(frozen=True, slots=True)
class DramPolicy:
    """The channel policy of one DRAM config. `rotations[dram_bytes][first]` is the memo of
    `rotation` (the hot path reads it before calling)."""

    channels: int
    interleaved: bool        # bursts spread over the channels (more than one, "burst")
    burst: int
    bandwidth: int | float   # bytes per cycle per channel (`accelsim.cost.rate`)
    split: bool = False      # reads and writes on channels of their own
    rotations: dict[int, tuple[Rotation, ...]] = field(default_factory=dict, compare=False,
                                                       hash=False, repr=False)

    @staticmethod
    def for_config(cfg: DramConfig) -> DramPolicy:
        """The policy of `cfg`, one shared value (and memo) per distinct config."""
        return _policy(cfg)

    def rotation(self, dram_bytes: int, first: int) -> Rotation:
        """An interleaved transfer of `dram_bytes` (whole bursts) starting at channel `first`:
        channel first+i (mod channels) takes floor(nb / channels) of its nb bursts, plus one
        for the first nb mod channels of them."""
        table = self.rotations.get(dram_bytes)
        if table is None:
            table = self.rotations[dram_bytes] = self._split(dram_bytes)
        return table[first]

    @property
    def states(self) -> int:
        """Channel states a machine keeps: the channels, twice with split data paths (the
        read channels, then the write channels from `write_base`)."""
        return 2 * self.channels if self.split else self.channels

    @property
    def write_base(self) -> int:
        """The index of the first channel writes use."""
        return self.channels if self.split else 0

    def _split(self, dram_bytes: int) -> tuple[Rotation, ...]:
        n, burst, bw = self.channels, self.burst, self.bandwidth
        nb = dram_bytes // burst
        q, r = divmod(nb, n)
        shares = [(q + (i < r)) * burst for i in range(min(nb, n))]
        if len(self.rotations) > 50_000:
            self.rotations.clear()
        return tuple(Rotation(tuple(Piece((first + i) % n, b, cycles_for(b, bw))
                                    for i, b in enumerate(shares)), (first + nb) % n)
                     for first in range(n))


@functools.cache
def _policy(cfg: DramConfig) -> DramPolicy:
    return DramPolicy(cfg.channels, cfg.interleave == "burst" and cfg.channels > 1,
                      cfg.burst_bytes, cfg.bandwidth_bytes_per_cycle, cfg.data_paths == "split")
