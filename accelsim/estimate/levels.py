"""The closed-form machine of a multi-level config: the links' engines and the levels' ports
as free-at cycles, as `accelsim.estimate.state.ClosedFormMachine` keeps one link's.

Per link: its engines' pending completions, loads, free-at cycles, recent completions and
queues (`EnginePolicy.for_link` reads and advances them as the event machine's
`accelsim.hw.levels.LinkEngines`); the parent's ports: DRAM's channels for the first link (the
DRAM policy, on the inherited `free_at` / `next_channel`), an on-chip level's `ports` (the
earliest free) for the others. A DMA is its hops (`accelsim.cost.dma.LevelCostModel`), each
accepted when the previous completes, as `ControlProcessor._submit_hops` does; completions
are ordered and processed exactly as in the one-link machine (module docstring there).

`sizes_of` gives (DRAM bytes, the hops, 0) and `dma` takes them back: the walker passes the
triple through unchanged."""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import deque
from typing import Any

from accelsim.config import HardwareConfig
from accelsim.cost.dma import Hop, LevelCostModel
from accelsim.cost.dram import earliest_free
from accelsim.cost.engine import EnginePolicy
from accelsim.cost.kernel import CostModel
from accelsim.estimate.state import ALL, SHIFT, ClosedFormMachine, Counters, Signature, Tag, _recent


class _Link:
    """One link's engine state and its parent's ports (None: DRAM's, on the machine)."""

    __slots__ = ("accept", "busy", "free", "loads", "max_out", "pending", "queued", "recent",
                 "reserve")

    def __init__(self, policy: EnginePolicy, ports: int | None):
        n = policy.engines
        self.accept = policy.accept
        self.max_out = policy.max_outstanding
        self.pending: list[list[int]] = [[] for _ in range(n)]
        self.loads = [0] * n
        self.busy = [0] * n
        self.recent: list[deque[int]] = [deque(maxlen=self.max_out) for _ in range(n)]
        self.queued: list[list[int]] = [[] for _ in range(n)]
        self.free: list[int] = [0] * ports if ports is not None else []
        self.reserve: Any = self._port if ports is not None else None

    def _port(self, ready: int, nbytes: int, hold: int, _: None) -> int:
        free = self.free
        c = earliest_free(free) if len(free) > 1 else 0
        t0 = free[c]
        free[c] = end = (t0 if t0 > ready else ready) + hold
        return end


class LevelMachine(ClosedFormMachine):
    """`ClosedFormMachine` for a config with memory levels (module docstring)."""

    __slots__ = ("levels", "lk")

    def __init__(self, config: HardwareConfig, cost: CostModel | None = None):
        super().__init__(config, cost)
        chain = config.memory_chain()
        self.levels = LevelCostModel.for_config(config)
        self.lk = [_Link(EnginePolicy.for_link(config, k), None if k == 0 else chain[k].ports)
                   for k in range(len(config.links()))]
        self.lk[0].reserve = self._reserve  # DRAM's channels, as the one-link machine's

    # ---- state as a value ----------------------------------------------------------------
    def signature(self) -> Signature:
        t, front = self.t, self.front
        base = (t << SHIFT) + self.dma_ops
        links = []
        for L in self.lk:
            rec = []
            for r in L.recent:
                if r and max(r) > t:
                    n = len(r)
                    rec.append(tuple([(n - i, c - t) for i, c in enumerate(r) if c > t]))
                else:
                    rec.append(())
            links.append((tuple([c - t if c > t else 0 for c in L.busy + L.free]),
                          tuple([tuple([c - base for c in p if c > front]) if p else ()
                                 for p in L.pending]),
                          tuple(rec),
                          tuple([tuple([c - t for c in q if c > t]) if q else () for q in L.queued])))
        tags = self.tags
        return (tuple([c - t if c > t else 0 for c in self.free_at]),
                tuple(sorted([(k, v - base) for k, v in tags.items() if v > front])) if tags else (),
                tuple(links), self.next_channel, front - base)

    def restore(self, dt: int, sig: Signature, d: Counters) -> None:
        t = self.t = self.t + dt
        self.dma_ops += d[0]
        self.calls += d[1]
        self.dram_bytes += d[2]
        self.compute += d[3]
        self.add_work(d, 1)
        base = (t << SHIFT) + self.dma_ops
        free, tags, links, self.next_channel, front = sig
        self.front = base + front
        self.free_at = [t + r for r in free]
        self.tags = {k: base + r for k, r in tags}
        due = ALL
        for L, (fr, pend, rec, que) in zip(self.lk, links, strict=True):
            n = len(L.busy)
            L.busy = [t + r for r in fr[:n]]
            L.free = [t + r for r in fr[n:]]
            L.pending = [[base + r for r in p] if p else [] for p in pend]
            L.loads = list(map(len, L.pending))
            L.recent = [_recent(x, t, L.max_out) if x else deque(maxlen=L.max_out) for x in rec]
            L.queued = [[t + r for r in q] if q else [] for q in que]
            due = min([due, *(p[0] for p in L.pending if p)])
        self.due = due

    def advance(self, k: int, period: int, d: Counters) -> None:
        if k <= 0:
            return
        s, q = k * period, k * d[0]
        dv = (s << SHIFT) + q
        self.t += s
        self.front += dv
        if self.due != ALL:
            self.due += dv
        for L in self.lk:
            L.busy = [e + s for e in L.busy]
            L.free = [e + s for e in L.free]
            L.pending = [[c + dv for c in p] if p else p for p in L.pending]
            L.recent = [deque([c + s for c in r], L.max_out) if r else r for r in L.recent]
            L.queued = [[c + s for c in x] if x else x for x in L.queued]
        self.free_at = [c + s for c in self.free_at]
        self.tags = {key: v + dv for key, v in self.tags.items()}
        self.dma_ops += q
        self.calls += k * d[1]
        self.dram_bytes += k * d[2]
        self.compute += k * d[3]
        self.add_work(d, k)

    def end(self) -> int:
        return max([self.t, *(b for L in self.lk for b in L.busy),
                    *(v >> SHIFT for v in self.tags.values()),
                    *(c >> SHIFT for L in self.lk for p in L.pending for c in p)])

    # ---- operations ----------------------------------------------------------------------
    def sizes_of(self, n: int, stride: int | None, per: int | None, eb: int, src: int, dst: int
                 ) -> tuple[int, Any, int]:
        """(DRAM bytes, the DMA's hops, 0): `LevelCostModel.hops`, as the executor asks it."""
        key = (n, stride, per, eb, src, dst)
        hit = self.sizes.get(key)
        if hit is not None:
            return hit
        if stride is None or per is None or stride <= 0 or per <= 0:
            stride = per = None
        hops = self.levels.hops(n, stride, per, eb, src, dst, src <= dst)
        out = self.sizes[key] = (sum(h.parent_bytes for h in hops if h.dram), hops, 0)  # type: ignore[assignment]
        return out  # type: ignore[return-value]

    def _process(self, front: int) -> None:
        """Completions processed by `front` leave their engines' loads."""
        if self.due > front:
            return
        due = ALL
        for L in self.lk:
            for e, p in enumerate(L.pending):
                if p:
                    if p[0] <= front:
                        del p[:bisect_right(p, front)]
                        L.loads[e] = len(p)
                    if p and p[0] < due:
                        due = p[0]
        self.due = due

    def dma(self, dram_bytes: int, hops: Any, _unused: int, tag: Tag,  # type: ignore[override]
            write: bool = False) -> None:
        """Issue one descriptor: its hops on their links' engines and parents' ports (each
        hop knows its direction; `write` is not read)."""
        if self.issue:
            now = self.t + self.issue
            front = (now << SHIFT) + self.dma_ops - 1
        else:
            now, front = self.t, self.front
        self._process(front)
        t = now
        c = 0
        h: Hop
        for i, h in enumerate(hops):
            L = self.lk[h.link]
            e, at, _, done = L.accept(t, L.loads, L.busy, L.recent, L.queued, h.cycles,
                                      h.parent_bytes, h.port_cycles, L.reserve, None)
            if i == 0:
                if at > now:  # stalled on a full queue until `at`: all due by then processed
                    front = (at << SHIFT) + self.dma_ops - 1
                self.t, self.front = at, front
                if at > now:
                    self._process(front)
            c = (done << SHIFT) + self.dma_ops
            insort(L.pending[e], c)
            if c < self.due:
                self.due = c
            t = done
        self.tags[tag] = c
        self.dma_ops += 1
        self.dram_bytes += dram_bytes


def closed_form_machine(config: HardwareConfig, cost: CostModel | None = None) -> ClosedFormMachine:
    """The closed-form machine of `config`: one link, or several."""
    return ClosedFormMachine(config, cost) if config.single_link else LevelMachine(config, cost)
