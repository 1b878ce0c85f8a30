"""The closed-form machine of the analytic estimate: free-at cycles instead of SimPy events,
one machine for any memory chain (`HardwareConfig.memory_chain()`).

Each DMA engine and DRAM channel has a "free at" cycle, each tag its completion cycle, the
control processor its clock; which engine and channels a descriptor takes and when are the
policies' (`accelsim.cost.engine`, `accelsim.cost.dram`), read and advanced on this state as
the event machine's components do on theirs. The first link's engines (from DRAM) are the
machine's own fields; every further link (`lk`, none on a machine of two levels) has its
engines' state and its parent level's ports (the earliest free), as the event machine's
`accelsim.hw.levels.LinkEngines` and `PortGroup`. With several links a DMA is its hops
(`accelsim.cost.dma.LevelCostModel`), each accepted when the previous completes, as
`ControlProcessor._submit_hops` does; on one link it is the one hop `DmaCostModel` prices.

Completions are events in the event machine: a descriptor leaves its engine's load when SimPy
processes its completion, in (cycle, issue order) order, and a wait returns as soon as the
completion it waits for is processed, before later-issued completions of the same cycle. So
each completion here is the number (cycle << SHIFT) + its issue number, ordered as SimPy
processes them, and `front` is the last one processed (at the clock): a wait moves it to the
completion it waits for, any advance of the clock (issue cycles, a kernel, a full queue) past
every one issued by then. Loads count the completions beyond it.

`signature()` is the whole state relative to the clock and the issue count (entries no future
step can observe dropped); it is canonical: two states with equal signatures evolve
identically (every decision compares times against a clock that never goes back), so
`restore()` of a signature is equivalent to the state it was taken from. The sampled loop walk
and the loop memo of `accelsim.estimate.analytic` rest on that.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from accelsim.config import HardwareConfig
from accelsim.cost.dma import DmaCostModel, Hop, LevelCostModel
from accelsim.cost.dram import DramPolicy, earliest_free
from accelsim.cost.engine import EnginePolicy
from accelsim.cost.kernel import CostModel, KernelCost
from accelsim.cost.machine import Described
from compiler.ir.analysis_cache import ObjectCache

Signature = tuple  # type: ignore[type-arg]
# dma_ops, kernel calls, DRAM bytes, compute cycles, then the kernels' work for the energy:
# MACs, ALU ops, special ops, SRAM bytes
Counters = tuple[int, int, int, int, int, int, int, int, float]  # ..., compute pJ
LoopOutcome = tuple[int, Signature, Counters]
Tag = tuple[int, ...]  # a tag slot: (tag buffer site, linear index) in the estimate
SHIFT = 40  # a completion is (cycle << SHIFT) + issue number (fewer than 2**40 DMAs per run)
ALL = 1 << 120  # later than any completion


class OverLimit(Exception):
    """The walk passed its machine's `limit` (at `cycle`): the estimate would be larger."""

    def __init__(self, cycle: int):
        super().__init__(f"the walk passed its limit at cycle {cycle}")
        self.cycle = cycle


class ClosedFormMachine:
    """The event machine's state as numbers: per engine its completions not yet processed
    (`pending`, their count its load), when it is free (`busy`), its recent completion cycles
    and its queue, as `EnginePolicy.accept` reads them; per DRAM channel when it is free and
    the interleave rotation, as `DramPolicy` grants them; per tag its completion."""

    __slots__ = ("_accept", "_reserve", "_reserve_w", "alu_ops", "busy", "calls", "compute",
                 "compute_pj", "cost", "dma_cost",
                 "dma_ops", "dram", "dram_bytes", "dram_space", "due", "engine", "free_at", "front",
                 "issue", "kernel_sram_bytes", "levels", "limit", "lk", "loads", "macs", "max_out",
                 "memo", "next_channel", "pending", "queued", "recent", "sizes", "special_ops",
                 "sram_space", "t", "tags")

    def __init__(self, config: HardwareConfig, cost: CostModel | None = None):
        fixed = _fixed(config)
        self.engine, self.dram, self.dma_cost = fixed.engine, fixed.dram, fixed.dma_cost
        self._accept = fixed.engine.accept
        self.issue, self.max_out = fixed.issue, fixed.max_out
        self.dram_space, self.sram_space = fixed.dram_space, fixed.sram_space
        self.t = 0
        # a walk past this cycle stops (`OverLimit`): a candidate already slower than the best
        self.limit = ALL
        self.front = -1  # the last completion processed: none yet
        n = fixed.engines
        # per engine: its completions not processed, ascending (their count is its load);
        # when it is free; its last `max_outstanding` completion cycles in acceptance order;
        # the start cycles of its queued descriptors
        self.pending: list[list[int]] = [[] for _ in range(n)]
        self.due = ALL  # the earliest completion in `pending`
        self.loads = [0] * n
        self.busy = [0] * n
        self.recent: list[deque[int]] = [deque(maxlen=self.max_out) for _ in range(n)]
        self.queued: list[list[int]] = [[] for _ in range(n)]
        self.free_at = [0] * fixed.dram.states  # when each DRAM channel is free
        self.next_channel = 0  # first channel of the next interleaved transfer
        self._reserve = (self._interleaved if fixed.dram.interleaved
                         else self._earliest if fixed.dram.channels > 1 else self._one)
        self._reserve_w = self._reserve  # writes: the same channels unless split
        if fixed.dram.split:
            self._reserve, self._reserve_w = self._read_path, self._write_path
        self.tags: dict[Tag, int] = {}  # (tag site, linear index) -> its transfer's completion
        self.dma_ops = self.calls = self.dram_bytes = self.compute = 0
        self.macs = self.alu_ops = self.special_ops = self.kernel_sram_bytes = 0
        self.compute_pj = 0.0  # the kernels' compute energy, by precision
        # (elements, stride, per stride, element bytes, src space, dst space)
        #   -> (DRAM bytes, port cycles, transfer cycles)
        self.sizes: dict[tuple[int, int | None, int | None, int, int, int],
                         tuple[int, int, int]] = {}
        self.cost: CostModel = cost if cost is not None else CostModel.for_config(config)
        # the walker's loop outcomes on this machine: (loop key, iteration, signature) ->
        # (cycles to the loop's end, signature then, counters added)
        self.memo: dict[tuple[object, int, Signature], LoopOutcome] = {}
        # the links after the first (none on two levels) and the hop costs of their routes
        chain = config.memory_chain()
        self.levels = None if config.single_link else LevelCostModel.for_config(config)
        self.lk = [_Link(EnginePolicy.for_link(config, k), chain[k].ports)
                   for k in range(1, len(config.links()))]

    # ---- state as a value ----------------------------------------------------------------
    def signature(self) -> Signature:
        """Canonical: what no future step can tell apart is dropped; cycles are relative to
        the clock (past ones 0) and completions to (clock, issue count). A completion already
        processed is dropped: a wait on its tag returns at once, as on no tag, and it leaves
        its engine's load at the next issue. Queued starts by the clock leave the queue at the
        next issue on that engine. A past cycle in `recent` only ever holds the slot rule off,
        as a shorter deque does, so `recent` is kept as its future cycles with their positions
        from the end (where the slot rule will read them)."""
        t, front = self.t, self.front
        base = (t << SHIFT) + self.dma_ops
        tags = self.tags
        rec = []
        for r in self.recent:
            if r and max(r) > t:
                n = len(r)
                rec.append(tuple([(n - i, c - t) for i, c in enumerate(r) if c > t]))
            else:
                rec.append(())
        return (tuple([c - t if c > t else 0 for c in self.busy + self.free_at]),
                tuple(sorted([(k, v - base) for k, v in tags.items() if v > front])) if tags else (),
                tuple([tuple([c - base for c in p if c > front]) if p else () for p in self.pending]),
                tuple(rec),
                tuple([tuple([c - t for c in q if c > t]) if q else () for q in self.queued]),
                self.next_channel, front - base,
                tuple([L.signature(t, base, front) for L in self.lk]) if self.lk else ())

    def counters(self) -> Counters:
        return (self.dma_ops, self.calls, self.dram_bytes, self.compute, self.macs, self.alu_ops,
                self.special_ops, self.kernel_sram_bytes, self.compute_pj)

    def restore(self, dt: int, sig: Signature, d: Counters) -> None:
        """Move the clock by `dt`, take the state `sig` (relative to the new clock and issue
        count), add `d`."""
        t = self.t = self.t + dt
        self.dma_ops += d[0]
        self.calls += d[1]
        self.dram_bytes += d[2]
        self.compute += d[3]
        self.add_work(d, 1)
        base = (t << SHIFT) + self.dma_ops
        free, tags, pend, rec, que, self.next_channel, front, links = sig
        m, n = self.max_out, len(self.busy)
        self.front = base + front
        self.busy = [t + r for r in free[:n]]
        self.free_at = [t + r for r in free[n:]]
        self.tags = {k: base + r for k, r in tags}
        self.pending = pend = [[base + r for r in p] if p else [] for p in pend]
        self.due = min([p[0] for p in pend if p], default=ALL)
        self.loads = list(map(len, pend))
        self.recent = [_recent(x, t, m) if x else deque(maxlen=m) for x in rec]
        self.queued = [[t + r for r in q] if q else [] for q in que]
        for L, ls in zip(self.lk, links, strict=True):
            self.due = min(self.due, L.restore(t, base, ls))

    def advance(self, k: int, period: int, d: Counters) -> None:
        """Repeat a period of iterations `k` more times: shift every cycle by k*period and
        every issue number by k times the period's DMAs, add k*d."""
        if k <= 0:
            return
        s, q = k * period, k * d[0]
        dv = (s << SHIFT) + q
        m = self.max_out
        self.t += s
        self.front += dv
        self.busy = [e + s for e in self.busy]
        self.pending = [[c + dv for c in p] if p else p for p in self.pending]
        if self.due != ALL:
            self.due += dv
        self.recent = [deque([c + s for c in r], m) if r else r for r in self.recent]
        self.queued = [[c + s for c in x] if x else x for x in self.queued]
        self.free_at = [c + s for c in self.free_at]
        self.tags = {key: v + dv for key, v in self.tags.items()}
        for L in self.lk:
            L.advance(s, dv)
        self.dma_ops += q
        self.calls += k * d[1]
        self.dram_bytes += k * d[2]
        self.compute += k * d[3]
        self.add_work(d, k)

    def add_work(self, d: Counters, k: int) -> None:
        """Add `k` times the kernels' work of the counters `d` (for the energy)."""
        self.macs += k * d[4]
        self.alu_ops += k * d[5]
        self.special_ops += k * d[6]
        self.kernel_sram_bytes += k * d[7]
        self.compute_pj += k * d[8]

    def call(self, c: KernelCost) -> None:
        """Count one kernel call of cost `c` (a `KernelCost`): its compute cycles and work."""
        self.calls += 1
        self.compute += c.compute_cycles
        n = c.counts
        self.macs += n.mac
        self.alu_ops += n.mul + n.add + n.other
        self.special_ops += n.special
        self.kernel_sram_bytes += c.sram_bytes
        self.compute_pj += c.compute_pj

    def end(self) -> int:
        return max([self.t, *self.busy, *(v >> SHIFT for v in self.tags.values()),
                    *(c >> SHIFT for p in self.pending for c in p),
                    *(b for L in self.lk for b in L.busy),
                    *(c >> SHIFT for L in self.lk for p in L.pending for c in p)])

    def done_at(self, tag: Tag) -> int:
        """The completion cycle of the transfer `tag` waits for."""
        return self.tags[tag] >> SHIFT

    # ---- operations ----------------------------------------------------------------------
    def sizes_of(self, n: int, stride: int | None, per: int | None, eb: int, src: int, dst: int
                 ) -> tuple[int, int, int]:
        """(DRAM bytes at burst granularity, SRAM port cycles, transfer cycles) of a DMA of `n`
        elements of `eb` bytes from memory space `src` to `dst`, `per` elements every
        `stride` on its strided side: `DmaCostModel.transfer`, as the executor asks it (the
        strided side is the source when its space is the slower or equal one). A stride or a
        count per stride that is not positive (an error in the event run) is costed as a
        contiguous transfer. With several links: (DRAM bytes, the hops of its route, 0),
        `LevelCostModel.hops`, which `dma` takes back."""
        key = (n, stride, per, eb, src, dst)
        hit = self.sizes.get(key)
        if hit is not None:
            return hit
        if stride is None or per is None or stride <= 0 or per <= 0:
            stride = per = None
        if self.levels is not None:  # several links: (DRAM bytes, the DMA's hops, 0)
            hops = self.levels.hops(n, stride, per, eb, src, dst, src <= dst)
            out = self.sizes[key] = (sum(h.parent_bytes for h in hops if h.dram), hops, 0)  # type: ignore[assignment]
            return out
        ds, ss = self.dram_space, self.sram_space
        c = self.dma_cost.transfer(n, stride, per, eb, src == ds, dst == ds, src <= dst,
                                   (src == ss) + (dst == ss))
        out = self.sizes[key] = (c.dram_bytes, c.port_cycles, c.cycles)
        return out

    def dma(self, dram_bytes: int, port: int, T: int, tag: Tag, write: bool = False) -> None:
        """Issue one descriptor on the engine and DRAM channels the policies pick
        (`EnginePolicy.accept`, which reserves the channels through `_reserve`; `write`: it
        writes DRAM, on the write channels when the data paths are split; with several links
        `port` is the DMA's hops, `_hops`)."""
        if self.lk:
            return self._hops(dram_bytes, port, tag)  # type: ignore[arg-type]
        if self.issue:  # the issue cycles process every completion due by then
            now = self.t + self.issue
            front = (now << SHIFT) + self.dma_ops - 1
        else:
            now, front = self.t, self.front
        pending, loads = self.pending, self.loads
        if self.due <= front:  # processed completions leave the loads
            self.due = _retire(pending, loads, front)
        e, at, _, done = self._accept(now, loads, self.busy, self.recent, self.queued, T,
                                      dram_bytes, port,
                                      self._reserve_w if write else self._reserve, None)
        if at > now:  # stalled on a full queue until `at`: all due by then are processed
            front = (at << SHIFT) + self.dma_ops - 1
        self.t, self.front = at, front
        c = (done << SHIFT) + self.dma_ops
        insort(pending[e], c)
        if c < self.due:
            self.due = c
        self.tags[tag] = c
        self.dma_ops += 1
        self.dram_bytes += dram_bytes

    def _process(self, front: int) -> None:
        """Completions processed by `front` leave their engines' loads (every link's)."""
        if self.due > front:
            return
        self.due = min(_retire(pending, loads, front) for pending, loads in
                       ((self.pending, self.loads), *((L.pending, L.loads) for L in self.lk)))

    def _hops(self, dram_bytes: int, hops: tuple[Hop, ...], tag: Tag) -> None:
        """Issue one descriptor of several hops: each on its link's engines and its parent's
        ports (DRAM's channels for the first link), accepted when the previous completes
        (store-and-forward); the control processor stalls only on the first hop's queue."""
        if self.issue:
            now = self.t + self.issue
            front = (now << SHIFT) + self.dma_ops - 1
        else:
            now, front = self.t, self.front
        self._process(front)
        t = now
        c = 0
        for i, h in enumerate(hops):
            if h.link == 0:
                e, at, _, done = self._accept(t, self.loads, self.busy, self.recent, self.queued,
                                              h.cycles, h.parent_bytes, h.port_cycles,
                                              self._reserve, None)
                pending = self.pending
            else:
                L = self.lk[h.link - 1]
                e, at, _, done = L.accept(t, L.loads, L.busy, L.recent, L.queued, h.cycles,
                                          h.parent_bytes, h.port_cycles, L.port, None)
                pending = L.pending
            if i == 0:
                if at > now:  # stalled on a full queue until `at`: all due by then processed
                    front = (at << SHIFT) + self.dma_ops - 1
                self.t, self.front = at, front
                if at > now:
                    self._process(front)
            c = (done << SHIFT) + self.dma_ops
            insort(pending[e], c)
            if c < self.due:
                self.due = c
            t = done
        self.tags[tag] = c
        self.dma_ops += 1
        self.dram_bytes += dram_bytes

    def dma_rows(self, dram_bytes: int, port: int, T: int, prefix: Tag, count: int) -> None:
        """`dma(dram_bytes, port, T, (*prefix, j))` for j in 0..count-1, in one loop: a copy's
        identical row descriptors, issued back to back (the tile search's replay). The same
        steps as `dma`, the state in locals; a subclass that changes `dma`, or several links,
        get `dma` per row."""
        if self.lk or count < 2 or type(self).dma is not ClosedFormMachine.dma:
            for j in range(count):
                self.dma(dram_bytes, port, T, (*prefix, j))
            return
        accept, reserve, issue = self._accept, self._reserve, self.issue
        pending, loads, busy, recent, queued = self.pending, self.loads, self.busy, self.recent, self.queued
        tags = self.tags
        t, front, due, ops = self.t, self.front, self.due, self.dma_ops
        for j in range(count):
            if issue:  # the issue cycles process every completion due by then
                now = t + issue
                front = (now << SHIFT) + ops - 1
            else:
                now = t
            if due <= front:  # processed completions leave the loads
                due = _retire(pending, loads, front)
            e, at, _, done = accept(now, loads, busy, recent, queued, T, dram_bytes, port, reserve, None)
            if at > now:  # stalled on a full queue until `at`: all due by then are processed
                front = (at << SHIFT) + ops - 1
            t = at
            c = (done << SHIFT) + ops
            insort(pending[e], c)
            if c < due:
                due = c
            tags[(*prefix, j)] = c
            ops += 1
        self.t, self.front, self.due, self.dma_ops = t, front, due, ops
        self.dram_bytes += dram_bytes * count

    def wait_rows(self, prefix: Tag, count: int) -> None:
        """`wait((*prefix, j))` for j in 0..count-1, in one loop."""
        tags, front = self.tags, self.front
        for j in range(count):
            c = tags.pop((*prefix, j), -1)
            if c > front:
                front = c
        if front > self.front:
            self.front = front
            self.t = front >> SHIFT

    def wait(self, tag: Tag) -> None:
        """Block until the completion `tag` waits for is processed (at once if it was, or if
        no DMA in flight signals the tag). (The walk's steps are `wait_step`s.)"""
        c = self.tags.pop(tag, -1)
        if c > self.front:
            self.front = c
            self.t = c >> SHIFT

    def busy_for(self, cycles: int) -> None:
        """The control processor is busy `cycles` (issue cycles and a kernel): every
        completion due by then is processed."""
        if cycles:
            t = self.t = self.t + cycles
            self.front = (t << SHIFT) + self.dma_ops - 1

    # ---- the Machine protocol (`accelsim.cost.machine`) -----------------------------------
    @property
    def now(self) -> int:
        return self.t

    def start_dma(self, xfer: Described, tag: Hashable) -> None:
        """`dma` of a costed transfer (its `desc`), on the write channels when it writes DRAM;
        with several links, of its hops (a `TransferShape`'s `hops`)."""
        cycles, dram_bytes, _, port, kind, _ = xfer.desc
        if self.lk:
            hops = xfer.hops  # type: ignore[attr-defined]
            self._hops(sum(h.parent_bytes for h in hops if h.dram), hops, tag)  # type: ignore[arg-type]
            return
        self.dma(dram_bytes, port, cycles, tag, kind == "write")  # type: ignore[arg-type]

    def wait_dma(self, tag: Hashable, loc: str = "") -> None:
        self.wait(tag)  # type: ignore[arg-type]

    def run_kernel(self, cycles: int, sram_bytes: int = 0, label: str = "", loc: str = "") -> None:
        """The issue cycles and the kernel's: the control processor waits for it. (Its work
        is counted by `call`, from the kernel's whole cost.)"""
        self.busy_for(self.issue + cycles)

    def finish(self) -> int:
        self.t = self.end()
        return self.t

    # ---- DRAM channels, as the policy grants them (the event machine's Dram, unrecorded) ----
    def _one(self, ready: int, dram_bytes: int, hold: int, _: None) -> int:
        """The only channel."""
        free = self.free_at
        t0 = free[0]
        free[0] = end = (t0 if t0 > ready else ready) + hold
        return end

    def _earliest(self, ready: int, dram_bytes: int, hold: int, _: None) -> int:
        """Not interleaved: the whole transfer on the channel the policy picks."""
        free = self.free_at
        c = earliest_free(free)
        t0 = free[c]
        free[c] = end = (t0 if t0 > ready else ready) + hold
        return end

    def _read_path(self, ready: int, dram_bytes: int, hold: int, _: None) -> int:
        """Split data paths: a read on the earliest free read channel."""
        free = self.free_at
        n = self.dram.channels
        c = earliest_free(free[:n]) if n > 1 else 0
        t0 = free[c]
        free[c] = end = (t0 if t0 > ready else ready) + hold
        return end

    def _write_path(self, ready: int, dram_bytes: int, hold: int, _: None) -> int:
        """Split data paths: a write on the earliest free write channel."""
        free = self.free_at
        n = self.dram.channels
        c = n + (earliest_free(free[n:]) if n > 1 else 0)
        t0 = free[c]
        free[c] = end = (t0 if t0 > ready else ready) + hold
        return end

    def _interleaved(self, ready: int, dram_bytes: int, hold: int, _: None) -> int:
        """The pieces of the policy's rotation; the transfer ends with the last."""
        pol = self.dram
        table = pol.rotations.get(dram_bytes)  # the policy's memo, read without a call
        first = self.next_channel
        rot = table[first] if table else pol.rotation(dram_bytes, first)
        self.next_channel = rot.next_first
        free = self.free_at
        end = ready
        for c, _b, d in rot.pieces:
            x = free[c]
            free[c] = x = (x if x > ready else ready) + d
            if x > end:
                end = x
        return end




class _Link:
    """A link after the first: its engines' state (as the machine keeps the first link's)
    and its parent level's ports, each free at a cycle (the earliest free takes a hop)."""

    __slots__ = ("accept", "busy", "free", "loads", "max_out", "pending", "queued", "recent")

    def __init__(self, policy: EnginePolicy, ports: int):
        n = policy.engines
        self.accept = policy.accept
        self.max_out = policy.max_outstanding
        self.pending: list[list[int]] = [[] for _ in range(n)]
        self.loads = [0] * n
        self.busy = [0] * n
        self.recent: list[deque[int]] = [deque(maxlen=self.max_out) for _ in range(n)]
        self.queued: list[list[int]] = [[] for _ in range(n)]
        self.free: list[int] = [0] * ports

    def port(self, ready: int, nbytes: int, hold: int, _: None) -> int:
        free = self.free
        c = earliest_free(free) if len(free) > 1 else 0
        t0 = free[c]
        free[c] = end = (t0 if t0 > ready else ready) + hold
        return end

    def signature(self, t: int, base: int, front: int) -> Signature:
        """As `ClosedFormMachine.signature` keeps the first link's."""
        rec = []
        for r in self.recent:
            if r and max(r) > t:
                n = len(r)
                rec.append(tuple([(n - i, c - t) for i, c in enumerate(r) if c > t]))
            else:
                rec.append(())
        return (tuple([c - t if c > t else 0 for c in self.busy + self.free]),
                tuple([tuple([c - base for c in p if c > front]) if p else ()
                       for p in self.pending]),
                tuple(rec),
                tuple([tuple([c - t for c in q if c > t]) if q else () for q in self.queued]))

    def restore(self, t: int, base: int, sig: Signature) -> int:
        """Take `sig` (relative to clock `t` and completion `base`); its earliest completion."""
        fr, pend, rec, que = sig
        n = len(self.busy)
        self.busy = [t + r for r in fr[:n]]
        self.free = [t + r for r in fr[n:]]
        self.pending = [[base + r for r in p] if p else [] for p in pend]
        self.loads = list(map(len, self.pending))
        self.recent = [_recent(x, t, self.max_out) if x else deque(maxlen=self.max_out)
                       for x in rec]
        self.queued = [[t + r for r in q] if q else [] for q in que]
        return min([p[0] for p in self.pending if p], default=ALL)

    def advance(self, s: int, dv: int) -> None:
        """Every cycle `s` later, every completion `dv` later."""
        self.busy = [e + s for e in self.busy]
        self.free = [e + s for e in self.free]
        self.pending = [[c + dv for c in p] if p else p for p in self.pending]
        self.recent = [deque([c + s for c in r], self.max_out) if r else r for r in self.recent]
        self.queued = [[c + s for c in x] if x else x for x in self.queued]


def wait_step(tag: Tag | None, tag_of: Callable[[list[object]], Tag] | None
              ) -> Callable[[list[object], ClosedFormMachine], None]:
    """A walk step (`step(env, machine)`) waiting on `tag`, or on `tag_of(env)`:
    `ClosedFormMachine.wait` written into the step (one call fewer per wait walked)."""
    if tag is not None:
        def wait_static(e: list[object], m: ClosedFormMachine) -> None:
            c = m.tags.pop(tag, -1)
            if c > m.front:
                m.front = c
                m.t = c >> SHIFT
        return wait_static
    assert tag_of is not None

    def wait(e: list[object], m: ClosedFormMachine) -> None:
        c = m.tags.pop(tag_of(e), -1)
        if c > m.front:
            m.front = c
            m.t = c >> SHIFT
    return wait

@dataclass(frozen=True, slots=True)
class _Fixed:
    """What a machine takes from its config, once per config object."""

    engine: EnginePolicy
    dram: DramPolicy
    dma_cost: DmaCostModel
    issue: int
    max_out: int
    engines: int
    dram_space: int
    sram_space: int


_FIXED: ObjectCache[_Fixed] = ObjectCache("estimate per-config figures")


def _fixed(config: HardwareConfig) -> _Fixed:
    """By the config object: hashing a config by value walks all its sections, and
    estimates of a sweep point reuse one object."""
    hit = _FIXED.get(id(config))
    if hit is not None:
        return hit
    link = config.links()[0]  # the first link's engines (the machine's own fields)
    out = _Fixed(EnginePolicy.for_link(config, 0), DramPolicy.for_config(config.dram),
                 DmaCostModel.for_config(config), config.control.issue_cycles,
                 link.max_outstanding, link.engines, config.spaces.dram, config.spaces.sram)
    return _FIXED.put(config, out)

def _recent(future: tuple[tuple[int, int], ...], t: int, m: int) -> deque[int]:
    """A `recent` deque from its signature: the future cycles (relative to `t`) at their
    positions from the end, the positions between them past (`t`)."""
    if not future:
        return deque(maxlen=m)
    x = [t] * future[0][0]
    for pos, rel in future:
        x[-pos] = t + rel
    return deque(x, m)


def _retire(pending: list[list[int]], loads: list[int], front: int) -> int:
    """Completions processed by `front` leave their engines' `pending` lists and `loads`;
    the earliest completion still pending (ALL: none)."""
    due = ALL
    for e, p in enumerate(pending):
        if p:
            if p[0] <= front:
                del p[:bisect_right(p, front)]
                loads[e] = len(p)
            if p and p[0] < due:
                due = p[0]
    return due
