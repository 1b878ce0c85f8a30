"""DRAM: `channels` channels shared by every DMA engine, granted by the DRAM policy.

Each channel is a FIFO server: a DMA engine reserves it for the data-transfer part of a
descriptor, starting when both the engine and the channel are ready, and the interval is
recorded under the channel's name. Engines reserve when they accept a descriptor, so channels
are granted in issue order (an in-order request queue at the memory controller): the
per-channel `free_at` recursion is that FIFO queue, with no SimPy event per request. Which
channel, how an interleaved transfer is split over the channels and where the rotation goes
next are the policy's (`accelsim.cost.dram.DramPolicy`); the access latency is the engine's.
The analytic estimate's closed-form machine reserves the same way, without the records (the
two are checked equal by tests/accelsim/cost/test_cost_model_policies.py).

With `dram.model = "timing"` the channels are memory controllers instead
(`accelsim.hw.dram_controller`): a transfer's DRAM sides become requests per channel, bank
and row through the address mapping (`accelsim.cost.dram_timing`), from the DRAM addresses
of its buffers (`allocate`: every DRAM buffer gets one, 4 KiB aligned, in allocation order),
and each channel's controller schedules them; a piece is recorded per channel and side.
When the C kernel builds as an extension module (`accelsim.hw.dram_native.channels`) all of
that, mapping included, is one C call per DMA (`reserve` is the C object's); else each
channel's controller is the C one through ctypes or the Python reference (`_timed`).

A trace that keeps a `UnitTally` instead of records (a many-cluster run without trace
output) gets no record per piece of an interleaved transfer: the channels count the
transfers per rotation (size, first channel, kind) and `fold_counts` adds what those records
would have been to the tally at the end (the same sums; the same `free_at`, so the same
cycles).
"""

from __future__ import annotations

from typing import Any

from accelsim.config import DramConfig
from accelsim.cost.dram import DramPolicy, earliest_free
from accelsim.cost.dram_timing import DramTiming
from accelsim.errors import SimulationError
from accelsim.hw.dma import Transfer
from accelsim.hw.dram_native import channels, controller
from accelsim.trace import Trace, TraceRecord
from accelsim.trace.tally import UnitTally

_tnew = tuple.__new__  # NamedTuple records without the generated __new__'s extra frame
# per first channel: (the next first channel, pieces as (channel, its name, bytes, cycles))
_Named = tuple[tuple[int, tuple[tuple[int, str, int, int], ...]], ...]


ALIGN = 4096  # DRAM buffers start on 4 KiB boundaries


class Dram:
    def __init__(self, cfg: DramConfig, trace: Trace, timing: DramTiming | None = None):
        self.cfg = cfg
        self.timing = timing
        self.top = 0  # the next free DRAM address
        self.policy = DramPolicy.for_config(cfg)
        self.records = trace.records
        self.names = [f"dram.ch{c}" for c in range(cfg.channels)]
        if self.policy.split:  # the write channels after the read channels
            self.names += [f"dram.ch{c}.wr" for c in range(cfg.channels)]
        self.free_at = [0] * self.policy.states  # per channel: the cycle it is free
        self.next_channel = 0  # first channel of the next interleaved transfer
        self._named: dict[int, _Named] = {}  # the policy's rotations per size, with names
        # `reserve(ready, dram_bytes, hold, xfer)`: the policy's case for this config, bound
        # once; it reserves channel time for `xfer` (ready at cycle `ready`, `hold` cycles on
        # one channel when not interleaved), records it, and returns when its transfer ends
        self.reserve = (self._interleaved if self.policy.interleaved
                        else self._earliest if cfg.channels > 1 else self._one)
        # transfers per (size, first channel, kind) when the tally counts instead of records
        self._counts: dict[tuple[int, int, str], int] = {}
        if trace.tally is not None and self.policy.interleaved and timing is None:
            self.reserve = self._interleaved_counted
        if self.policy.split:  # reads and writes each on channels of their own
            self.reserve = self._split
        self.controllers: list = []  # ChannelController or its C fast path (dram_native)
        self._native: Any = None  # every channel in C (dram_native.channels), when it builds
        if timing is not None:
            self._native = channels(timing, tuple(self.names), self.records, self._no_addresses)
            if self._native is not None:  # `_timed` in one C call: mapping, controllers, records
                self.reserve = self._native.reserve
            else:
                self.controllers = [controller(timing) for _ in range(cfg.channels)]
                self.reserve = self._timed

    def allocate(self, nbytes: int) -> int:
        """The DRAM address of a new buffer of `nbytes`."""
        addr = self.top
        self.top += -(-max(nbytes, 1) // ALIGN) * ALIGN
        return addr

    def _timed(self, ready: int, dram_bytes: int, hold: int, xfer: Transfer) -> int:
        """The timing model: each DRAM side's requests on their channels' controllers, the
        write side of a DRAM-to-DRAM copy after its read side; ends with the last."""
        tm = self.timing
        assert tm is not None
        ctls, names, records, split = self.controllers, self.names, self.records, tm.split
        desc = xfer.desc
        kind, label, loc = desc[4], xfer.label, desc[5]
        ratio = tm.ratio
        now = ready * ratio
        end = ready
        sides = xfer.dram_patterns()
        if not sides:  # never a transfer with DRAM bytes and no DRAM time
            self._no_addresses(xfer, dram_bytes)
        for write, pattern in sides:
            side_end = now
            for c, (reqs, nbytes) in enumerate(split(pattern)):
                if not nbytes:
                    continue
                ctl = ctls[c]
                e, bus = ctl.access(reqs, now, write)
                # the piece in accelerator cycles (rounded up): from when the channel could
                # take it to its last data
                x = (bus if bus > now else now) / ratio
                t0 = int(x)
                if t0 < x - 1e-9:
                    t0 += 1
                x = e / ratio
                t1 = int(x)
                if t1 < x - 1e-9:
                    t1 += 1
                if t1 < t0:
                    t1 = t0
                records.append(_tnew(TraceRecord, (names[c], t0, t1, kind, nbytes, label, loc)))
                if e > side_end:
                    side_end = e
                if t1 > end:
                    end = t1
            now = side_end
        return end

    @staticmethod
    def _no_addresses(xfer: Transfer, dram_bytes: int) -> None:
        raise SimulationError(f"the DRAM timing model needs the DRAM addresses of transfer "
                              f"{xfer.label} ({dram_bytes} DRAM bytes); this transfer has none")

    def _one(self, ready: int, dram_bytes: int, hold: int, xfer: Transfer) -> int:
        """The only channel."""
        free = self.free_at
        t0 = free[0]
        if ready > t0:
            t0 = ready
        free[0] = end = t0 + hold
        desc = xfer.desc
        self.records.append(_tnew(TraceRecord, (self.names[0], t0, end, desc[4], dram_bytes,
                                                xfer.label, desc[5])))
        return end

    def _earliest(self, ready: int, dram_bytes: int, hold: int, xfer: Transfer) -> int:
        """Not interleaved: the whole transfer on the channel the policy picks."""
        free = self.free_at
        c = earliest_free(free)
        t0 = free[c]
        if ready > t0:
            t0 = ready
        free[c] = end = t0 + hold
        desc = xfer.desc
        self.records.append(_tnew(TraceRecord, (self.names[c], t0, end, desc[4], dram_bytes,
                                                xfer.label, desc[5])))
        return end

    def _split(self, ready: int, dram_bytes: int, hold: int, xfer: Transfer) -> int:
        """Split data paths: the transfer on the earliest free channel of its direction (a
        write to DRAM on the write channels, anything else on the read channels)."""
        free = self.free_at
        n = self.cfg.channels
        base = n if xfer.desc[4] == "write" else 0
        c = base + (earliest_free(free[base:base + n]) if n > 1 else 0)
        t0 = free[c]
        if ready > t0:
            t0 = ready
        free[c] = end = t0 + hold
        desc = xfer.desc
        self.records.append(_tnew(TraceRecord, (self.names[c], t0, end, desc[4], dram_bytes,
                                                xfer.label, desc[5])))
        return end

    def _interleaved(self, ready: int, dram_bytes: int, hold: int, xfer: Transfer) -> int:
        """Its pieces on the channels of the policy's rotation; it ends with the last. (A
        record per piece: at 32 channels most of a transfer's cost is making them, so the
        loop keeps everything it touches in locals.)"""
        free, append, tnew, rec = self.free_at, self.records.append, _tnew, TraceRecord
        pieces = self._rotate(dram_bytes)[1]
        desc = xfer.desc
        kind, label, loc = desc[4], xfer.label, desc[5]
        end = ready
        for c, name, b, dur in pieces:
            t0 = free[c]
            if ready > t0:
                t0 = ready
            free[c] = t1 = t0 + dur
            append(tnew(rec, (name, t0, t1, kind, b, label, loc)))
            if t1 > end:
                end = t1
        return end

    def _interleaved_counted(self, ready: int, dram_bytes: int, hold: int, xfer: Transfer) -> int:
        """`_interleaved` counting the transfer by rotation instead of recording its pieces."""
        free = self.free_at
        first, pieces = self._rotate(dram_bytes)
        key = (dram_bytes, first, xfer.desc[4])
        counts = self._counts
        counts[key] = counts.get(key, 0) + 1
        end = ready
        for c, _, _, dur in pieces:
            t0 = free[c]
            if ready > t0:
                t0 = ready
            free[c] = t1 = t0 + dur
            if t1 > end:
                end = t1
        return end

    def fold_counts(self, tally: UnitTally) -> None:
        """Add the records `_interleaved_counted` did not make to `tally` (each channel's
        last piece ends at its `free_at`)."""
        for (dram_bytes, first, kind), n in self._counts.items():
            for c, name, b, dur in self._named[dram_bytes][first][1]:
                tally.add(name, kind, n, n * b, n * dur, self.free_at[c])
        self._counts = {}

    def _rotate(self, dram_bytes: int) -> tuple[int, tuple[tuple[int, str, int, int], ...]]:
        """The first channel of the next transfer of `dram_bytes` and its pieces (channel,
        record name, bytes, cycles); the rotation advances to the one after it."""
        table = self._named.get(dram_bytes)
        if table is None:
            table = self._name(dram_bytes)
        first = self.next_channel
        self.next_channel, pieces = table[first]
        return first, pieces

    def _name(self, dram_bytes: int) -> _Named:
        """The policy's rotations of a transfer size, with the channels' record names."""
        names, pol = self.names, self.policy
        out = self._named[dram_bytes] = tuple(
            (rot.next_first, tuple((c, names[c], b, d) for c, b, d in rot.pieces))
            for rot in (pol.rotation(dram_bytes, f) for f in range(pol.channels)))
        return out
