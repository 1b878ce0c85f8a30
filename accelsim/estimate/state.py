"""The closed-form machine of the analytic estimate: free-at cycles instead of SimPy events.

Each DMA engine and DRAM channel has a "free at" cycle, each tag its completion cycle, the
control processor its clock. `signature()` is the whole state relative to the clock (past
times clipped to 0, entries no future step can observe dropped); it is canonical: two states
with equal signatures evolve identically (every decision compares times against a clock that
never goes back), so `restore()` of a signature is equivalent to the state it was taken
from. The sampled loop walk and the loop memo of `accelsim.estimate.analytic` rest on that.
"""

from __future__ import annotations

from typing import Any

from accelsim.config import HardwareConfig

Signature = tuple  # type: ignore[type-arg]
Counters = tuple[int, int, int, int]  # dma_ops, kernel calls, DRAM bytes, compute cycles


class ClosedFormMachine:
    __slots__ = ("burst", "bw", "calls", "channels", "compute", "cost", "depth", "dma_ops", "icyc",
                 "dram_bytes", "dram_space", "engines", "interleave", "issue", "lat", "max_out",
                 "memo", "nch", "pending", "queued", "rr", "setup", "sizes", "sram_bw",
                 "sram_space", "t", "tags")

    def __init__(self, config: HardwareConfig):
        d, dma = config.dram, config.dma
        self.setup, self.lat, self.issue = dma.setup_cycles, d.latency_cycles, config.control.issue_cycles
        self.burst, self.bw = d.burst_bytes, d.bandwidth_bytes_per_cycle
        self.sram_bw = config.sram.bytes_per_cycle
        self.dram_space, self.sram_space = config.spaces.dram, config.spaces.sram
        self.max_out, self.depth, self.nch = dma.max_outstanding, dma.queue_depth, d.channels
        self.interleave = d.interleave == "burst" and d.channels > 1
        self.t = 0
        self.engines = [0] * dma.engines
        self.pending: list[list[int]] = [[] for _ in range(dma.engines)]  # completion cycles
        self.queued: list[list[int]] = [[] for _ in range(dma.engines)]   # future start cycles
        self.channels = [0] * d.channels
        self.rr = 0  # first channel of the next interleaved transfer
        self.tags: dict[tuple[int, int], int] = {}  # (tag buffer site, linear index) -> done
        self.dma_ops = self.calls = self.dram_bytes = self.compute = 0
        # (elements, per stride, element bytes, src space, dst space) -> (DRAM bytes, port, T)
        self.sizes: dict[tuple[int, int | None, int, int, int], tuple[int, int, int]] = {}
        self.icyc: dict[int, tuple[int, ...]] = {}  # DRAM bytes -> cycles per channel
        self.cost: Any = None  # the kernel cost model (`CostModel`), set by the walker
        self.memo: dict[Any, Any] = {}  # the walker's loop outcomes on this machine

    # ---- state as a value ----------------------------------------------------------------
    def signature(self) -> Signature:
        """Canonical: what no future step can tell apart is dropped. A tag that completed is
        the same as no tag (a wait on either returns at once). An engine's list whose head
        has completed is filtered at the next issue on any engine, dropping every entry done
        by then: its completed entries all go, so it is kept as one completed head (0) and
        its future entries in order. A list with a future head is not filtered until that
        head completes, so its completed entries still count against the engine (kept as 0)."""
        t = self.t
        pend = []
        for p in self.pending:
            if p and p[0] <= t:
                # filtered at the next issue (`now` >= t): what survives depends on `now`, so
                # the future entries are kept in order behind one completed head (0)
                pend.append((0, *[c - t for c in p if c > t]))
            else:
                pend.append(tuple([c - t if c > t else 0 for c in p]))
        return (tuple([e - t if e > t else 0 for e in self.engines]),
                tuple([c - t if c > t else 0 for c in self.channels]),
                tuple(sorted([(k, v - t) for k, v in self.tags.items() if v > t])),
                tuple(pend),
                tuple([tuple([c - t for c in q if c > t]) for q in self.queued]),
                self.rr)

    def counters(self) -> Counters:
        return (self.dma_ops, self.calls, self.dram_bytes, self.compute)

    def restore(self, dt: int, sig: Signature, d: Counters) -> None:
        """Move the clock by `dt`, take the state `sig` (relative to the new clock), add `d`."""
        t = self.t = self.t + dt
        eng, ch, tags, pend, que, self.rr = sig
        self.engines = [t + r for r in eng]
        self.channels = [t + r for r in ch]
        self.tags = {k: t + r for k, r in tags}
        self.pending = [[t + r for r in p] for p in pend]
        self.queued = [[t + r for r in q] for q in que]
        self.dma_ops += d[0]
        self.calls += d[1]
        self.dram_bytes += d[2]
        self.compute += d[3]

    def advance(self, k: int, period: int, d: Counters) -> None:
        """Repeat a period of iterations `k` more times: shift every time by k*period, add k*d."""
        if k <= 0:
            return
        s = k * period
        self.t += s
        self.engines = [e + s for e in self.engines]
        self.pending = [[c + s for c in p] for p in self.pending]
        self.queued = [[c + s for c in q] for q in self.queued]
        self.channels = [c + s for c in self.channels]
        self.tags = {key: v + s for key, v in self.tags.items()}
        self.dma_ops += k * d[0]
        self.calls += k * d[1]
        self.dram_bytes += k * d[2]
        self.compute += k * d[3]

    def end(self) -> int:
        return max([self.t, *self.engines, *self.tags.values(), *(c for p in self.pending for c in p)])

    # ---- operations ----------------------------------------------------------------------
    def sizes_of(self, n: int, per: int | None, eb: int, src: int, dst: int) -> tuple[int, int, int]:
        """(DRAM bytes at burst granularity, SRAM port cycles, transfer cycles) of a DMA."""
        key = (n, per, eb, src, dst)
        hit = self.sizes.get(key)
        if hit is not None:
            return hit
        burst, ds, ss = self.burst, self.dram_space, self.sram_space
        sides = (src == ds) + (dst == ds)
        sram_sides = (src == ss) + (dst == ss)
        nchunks, last = 1, n
        if per is not None:
            nchunks = -(-n // per) if per > 0 else 1
            last = n - (nchunks - 1) * per
        dram_bytes = 0
        if sides and n:
            if nchunks == 1:
                one = -(-n * eb // burst) * burst
            else:
                one = ((nchunks - 1) * (-(-per * eb // burst)) + -(-last * eb // burst)) * burst  # type: ignore[operator]
            dram_bytes = one * sides
        port = -(-(n * eb * sram_sides) // self.sram_bw)
        out = self.sizes[key] = (dram_bytes, port, max(-(-dram_bytes // self.bw), port))
        return out

    def dma(self, dram_bytes: int, port: int, T: int, tag: tuple[int, int]) -> None:
        """Issue one descriptor: the event model's engine, queue and channel policy."""
        now = self.t = self.t + self.issue
        pending = self.pending
        # fewest descriptors not yet completed, lowest index on ties
        if len(pending) == 1:
            e = 0
            pend = pending[0]
            if pend and pend[0] <= now:
                pend[:] = [c for c in pend if c > now]
        else:
            e, best = 0, -1
            for k, p in enumerate(pending):
                if p and p[0] <= now:
                    p[:] = [c for c in p if c > now]
                if best < 0 or len(p) < best:
                    e, best = k, len(p)
            pend = pending[e]
        # a full descriptor queue stalls the control processor until the oldest queued
        # descriptor starts (the engine keeps the one it was handed)
        q = self.queued[e]
        if q:
            if q[0] <= now:
                q[:] = [c for c in q if c > now]
            if len(q) >= self.depth:
                now = self.t = q[0]
                q[:] = [c for c in q if c > now]
        engines = self.engines
        start = engines[e] if engines[e] > now else now
        m = self.max_out
        if len(pend) >= m and pend[-m] > start:  # no free slot: the oldest must complete
            start = pend[-m]
        if start > now:
            q.append(start)
        start += self.setup
        if dram_bytes:
            chans = self.channels
            if self.interleave:
                nch = self.nch
                cyc = self.icyc.get(dram_bytes)
                if cyc is None:
                    cyc = self._interleaved(dram_bytes)
                first = self.rr
                self.rr = (first + dram_bytes // self.burst) % nch
                end = start + port
                c = first
                for d in cyc:
                    x = chans[c]
                    x = (x if x > start else start) + d
                    chans[c] = x
                    if x > end:
                        end = x
                    c += 1
                    if c == nch:
                        c = 0
            elif len(chans) == 1:
                end = (chans[0] if chans[0] > start else start) + T
                chans[0] = end
            else:
                c = min(range(len(chans)), key=chans.__getitem__)
                end = max(start, chans[c]) + T
                chans[c] = end
            engines[e] = end
            done = end + self.lat
        else:
            done = engines[e] = start + T
        pend.append(done)
        self.tags[tag] = done
        self.dma_ops += 1
        self.dram_bytes += dram_bytes

    def _interleaved(self, dram_bytes: int) -> tuple[int, ...]:
        """Transfer cycles on each channel, from the transfer's first one on: its bursts
        dealt round-robin, the first `nb mod channels` channels taking one more."""
        burst, bw, nch = self.burst, self.bw, self.nch
        nb = dram_bytes // burst
        per, r = divmod(nb, nch)
        out = self.icyc[dram_bytes] = tuple(-(-((per + (i < r)) * burst) // bw)
                                            for i in range(min(nb, nch)))
        return out

    def wait(self, tag: tuple[int, int]) -> None:
        done = self.tags.pop(tag, self.t)
        if done > self.t:
            self.t = done
