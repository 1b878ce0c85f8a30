"""Replaying a tile schedule (`accelsim.compile.tile_model.Schedule`) on the analytic
estimate's machine state: each copy's DMAs, waits and each kernel call in the order the
pipelined program issues them.

Steps are the iterations of the deepest loop holding copies, one kernel call each. A loop
holding copies issues its copy-ins `stages - 1` iterations ahead of the one it waits for and
computes, and waits for a pipelined copy-out one iteration late; iterations of a loop follow
one another across the boundaries of the loops around it (cross-tile prefetch, flattened
tile loops).

Long schedules are not walked step by step (and past `MAX_WALKED` calls the rest is
extrapolated at the recent rate): where the machine state, relative to the clock,
at the start of an iteration equals the state `q` iterations before and the iterations ahead
are alike (not the last ones of their parent loop, where partial tiles and the next parent's
prefetches are), the state is shifted over whole windows of `q` iterations
(`ClosedFormMachine.advance`), as the analytic estimate samples loops. Tags are numbered
modulo a multiple of the stages, as the program's multi-buffered tags are, so equal states
have equal signatures.
"""

from __future__ import annotations

import itertools
import math

from accelsim.compile.tile_model import Schedule, TileModel
from accelsim.cost.dma import TransferCost
from accelsim.estimate.state import ClosedFormMachine

Desc = list[tuple[TransferCost, int]]
# at an iteration's start: signature, clock, counters, the control processor's call cycles
_Seen = tuple[object, int, tuple[int, ...], int]
MAX_WALKED = 1024  # kernel calls walked one by one; past that, the rest at the recent rate
MAX_PARTIAL = 4    # `call_bounds` costs at most 2**MAX_PARTIAL kernel shapes


def replay(model: TileModel, sch: Schedule, cutoff: float | None = None) -> int | None:
    """The schedule's end cycle on the analytic machine state; with `cutoff`, None as soon as
    the end cycle is known to be above it (the search's use: a candidate that can no longer be
    a finalist). Known from the clock: it never goes back, and each kernel call still to come
    holds the control processor for the issue cycles and at least the cheapest call's cycles
    (skipped and extrapolated iterations too: their clock moves at a walked window's rate);
    where no extrapolation can follow, for exactly the cycles of the calls not yet made
    (skipped windows hold the calls of the window they repeat)."""
    return _Replay(model, sch).run(cutoff)


class _Replay:
    def __init__(self, model: TileModel, sch: Schedule):
        self.model, self.sch = model, sch
        self.m = ClosedFormMachine(model.config)
        self.top_waits: list[int] = []
        nt = sch.ntiles
        n = sch.inner + 1
        self.per = [math.prod(nt[k + 1:n]) for k in range(n)]     # steps per iteration of level k
        self.iters = [math.prod(nt[:k + 1]) for k in range(n)]    # iterations of level k in all
        self.levels = sorted({c.level for c in sch.copies if c.level >= 0})
        self.ins = {lv: [k for k, c in enumerate(sch.copies) if c.level == lv and c.incoming]
                    for lv in self.levels}
        self.outs = {lv: [k for k, c in enumerate(sch.copies) if c.level == lv and c.outgoing]
                     for lv in self.levels}
        self.issued = dict.fromkeys(self.levels, -1)  # last iteration whose copy-ins are issued
        self.stages = {lv: sch.stages.get(lv, 1) for lv in self.levels}
        smax = max(self.stages.values(), default=1)
        self.mod = smax + 1  # tag numbering: more than the iterations of a copy in flight
        # skipping q iterations of a loop moves every deeper copy level's iteration numbers by
        # a multiple of `mod` (so the tags line up) when q is a multiple of quantum[loop]
        self.quantum = []
        for lv in range(n):
            q = 1
            for c in self.levels:
                if c >= lv:
                    step = self.per[lv] // self.per[c]
                    q = math.lcm(q, self.mod // math.gcd(self.mod, step))
            self.quantum.append(q)
        # how far into its parent a skip may go: up to the last iteration when that is a full
        # tile like the others, else clear of it and of the prefetches for it
        self.limit = []
        for lv in range(n):
            alike = (model.band.trips[lv] % sch.sizes[lv] == 0
                     and not any(any(c.clipped) and c.ref.band_use[lv] for c in sch.copies))
            deeper = max([self.stages[c] for c in self.levels if c >= lv], default=1)
            self.limit.append(sch.ntiles[lv] - 1 if alike else sch.ntiles[lv] - 2 - deeper)
        # per copy: (loop, iterations of the copy's level per iteration of that loop) for the
        # loops its indices read; the key of its descriptors is the tile of each
        self.key_of = []
        for c in sch.copies:
            parts = []
            for k in range(c.level + 1):
                if c.ref.band_use[k]:
                    parts.append((math.prod(nt[k + 1:c.level + 1]), nt[k]))
            self.key_of.append(parts)
        self.desc: list[dict[tuple[int, ...], Desc]] = [{} for _ in range(2 * len(sch.copies))]
        # copies never clipped move the same DMAs every time
        self.fixed: list[Desc | None] = []
        for ci, c in enumerate(sch.copies):
            for out in (False, True):
                tile = [0] * (c.level + 1)
                self.fixed.append(None if any(c.clipped)
                                  else model.descriptors(sch.placement, ci, out, tile))
        self.kernel: dict[tuple[int, ...], int] = {}
        self.issue = model.config.control.issue_cycles
        self.spent = 0  # cycles the calls so far held the control processor

    # ---- one copy -------------------------------------------------------------------------
    def descriptors(self, ci: int, out: bool, h: int) -> Desc:
        fixed = self.fixed[2 * ci + out]
        if fixed is not None:
            return fixed
        key = tuple([(h // s) % n for s, n in self.key_of[ci]])
        memo = self.desc[2 * ci + out]
        hit = memo.get(key)
        if hit is None:
            c = self.sch.copies[ci]
            tile = self.tile(c.level, h)
            hit = memo[key] = self.model.descriptors(self.sch.placement, ci, out, tile)
        return hit

    def tile(self, level: int, h: int) -> list[int]:
        """Tile indices of loops 0..level in iteration h of `level`."""
        nt = self.sch.ntiles
        out = [0] * (level + 1)
        for k in range(level, -1, -1):
            h, out[k] = divmod(h, nt[k])
        return out

    def start(self, ci: int, out: bool, h: int) -> None:
        m = self.m
        base = (2 * ci + out, h % self.mod)
        for di, (cost, count) in enumerate(self.descriptors(ci, out, h)):
            m.dma_rows(cost.dram_bytes, cost.port_cycles, cost.cycles, (*base, di), count)  # type: ignore[arg-type]

    def wait(self, ci: int, out: bool, h: int) -> None:
        m = self.m
        base = (2 * ci + out, h % self.mod)
        for di, (_, count) in enumerate(self.descriptors(ci, out, h)):
            m.wait_rows((*base, di), count)

    def call(self, g: int) -> None:
        self.flush_top()  # no loop holds copies: the waits stop at the first kernel
        sch = self.sch
        nt = sch.ntiles
        last = []
        for k in range(sch.inner, -1, -1):
            g, j = divmod(g, nt[k])
            last.append(j == nt[k] - 1)
        key = tuple(last)
        c = self.kernel.get(key)
        if c is None:
            tile = [nt[k] - 1 if last[sch.inner - k] else 0 for k in range(sch.inner + 1)]
            c = self.kernel[key] = self.model.kernel.cost(self.model.kernel_trips(sch.placement, tile)).cycles
        self.m.busy_for(self.issue + c)  # the control processor waits for the kernel
        self.spent += self.issue + c

    # ---- the program ----------------------------------------------------------------------
    def call_bounds(self) -> tuple[int, int]:
        """(the cycles of the cheapest call, of all calls), issue cycles included, from the
        calls' shapes: per loop up to `inner` the tile size, or in the last tile of a loop the
        tile does not divide the remainder (`TileModel.kernel_trips`), each shape as many
        times as it occurs; (issue cycles, 0) past 2**MAX_PARTIAL shapes."""
        pl, trips = self.sch.placement, self.model.band.trips
        choices: list[tuple[tuple[int, int], ...]] = []  # per loop: (trips, calls per shape)
        for k, (t, tc) in enumerate(zip(pl.sizes, trips, strict=True)):
            if k > pl.inner:
                choices.append(((tc, 1),))
            elif tc % t:
                choices.append(((t, pl.ntiles[k] - 1), (tc - (pl.ntiles[k] - 1) * t, 1)))
            else:
                choices.append(((t, pl.ntiles[k]),))
        if math.prod(len(c) for c in choices) > 2 ** MAX_PARTIAL:
            return self.issue, 0
        cheapest, total = math.inf, 0
        for shape in itertools.product(*choices):
            cycles = self.issue + self.model.kernel.cost(tuple(tr for tr, _ in shape)).cycles
            cheapest = min(cheapest, cycles)
            total += math.prod(n for _, n in shape) * cycles
        return int(cheapest), total

    def run(self, cutoff: float | None = None) -> int | None:
        sch, m = self.sch, self.m
        over = math.inf if cutoff is None else cutoff
        per_call, all_calls = (0, 0) if cutoff is None else self.call_bounds()
        top = [k for k, c in enumerate(sch.copies) if c.level < 0]
        # the hoisted copy-ins all start at once; `affine-dma-wait-sink` moves their waits
        # down to the first tile's (after a pipelined loop's prologue starts) or, without
        # pipelining, to the tile loop: `flush_top`
        for k in top:
            if sch.copies[k].incoming:
                self.start(k, False, 0)
        self.top_waits = [k for k in top if sch.copies[k].incoming]
        steps = sch.steps
        loops = range(sch.inner + 1)
        seen: dict[int, dict[int, _Seen]] = {lv: {} for lv in loops}
        g = walked = 0
        half = (0, 0)
        while g < steps:
            if m.t + (steps - g) * per_call > over:
                return None
            # every call still to come, where no extrapolation (at the walked rate) can follow
            if steps - g < MAX_WALKED - walked and m.t + all_calls - self.spent > over:
                return None
            if walked == MAX_WALKED // 2:
                half = (g, m.t)
            elif walked == MAX_WALKED:
                # the rest at the rate of the last half walked (the replay's own budget)
                return m.end() + (steps - g) * (m.t - half[1]) // (g - half[0])
            for lv in loops:
                if g % self.per[lv] == 0:
                    h = g // self.per[lv]
                    found = self.skippable(lv, h, seen)
                    if found is not None and found[1] > 0:
                        g = self.skip(lv, h, found, seen)
                        break
            else:
                for lv in self.levels:
                    if g % self.per[lv] == 0:
                        self.begin(lv, g // self.per[lv])
                self.call(g)
                for lv in reversed(self.levels):
                    if (g + 1) % self.per[lv] == 0:
                        self.end(lv, g // self.per[lv])
                g += 1
                walked += 1
        for k in top:
            if sch.copies[k].outgoing:
                self.start(k, True, 0)
                self.wait(k, True, 0)
        return m.end()

    def flush_top(self) -> None:
        for k in self.top_waits:
            self.wait(k, False, 0)
        self.top_waits = []

    def begin(self, lv: int, h: int) -> None:
        stages = self.stages[lv]
        if stages < 2:
            self.flush_top()
            for k in self.ins[lv]:
                self.start(k, False, h)
                self.wait(k, False, h)
            return
        ahead = min(h + stages - 1, self.iters[lv] - 1)
        for it in range(self.issued[lv] + 1, ahead + 1):
            for k in self.ins[lv]:
                self.start(k, False, it)
        if ahead > self.issued[lv]:
            self.issued[lv] = ahead
        self.flush_top()
        for k in self.ins[lv]:
            self.wait(k, False, h)

    def end(self, lv: int, h: int) -> None:
        piped = self.sch.piped_out
        late = []
        for k in self.outs[lv]:
            self.start(k, True, h)
            if k in piped:
                late.append(k)
            else:
                self.wait(k, True, h)
        for k in late:
            if h > 0:
                self.wait(k, True, h - 1)
            if h == self.iters[lv] - 1:
                self.wait(k, True, h)

    # ---- skipping alike iterations ----------------------------------------------------------
    def skippable(self, lv: int, h: int, seen: dict[int, dict[int, _Seen]]) -> tuple[int, int] | None:
        """(period, iterations) of `lv` to skip from iteration h, or None: walk it."""
        nt = self.sch.ntiles[lv]
        q0 = self.quantum[lv]
        limit = self.limit[lv]
        if limit < 2 * q0 + 1:
            return None  # too few iterations to find a period and skip one
        j = h % nt  # index within the parent iteration
        if j == 0:
            seen[lv] = {}
        if (j - 1) % q0:
            return None  # states are compared q0 iterations apart, from iteration 1 on
        sig = self.m.signature()
        hist = seen[lv]
        hist[j] = (sig, self.m.t, self.m.counters(), self.spent)
        for mult in range(1, 17):
            q = mult * q0
            # the window compared starts after the parent's first iteration (whose step also
            # runs the parent's own copies) and the one skipped ends before `limit`
            if j - q < 1 or j + q > limit:
                break
            prev = hist.get(j - q)
            if prev is not None and prev[0] == sig:
                return q, (limit - j) // q * q
        return None

    def skip(self, lv: int, h: int, found: tuple[int, int], seen: dict[int, dict[int, _Seen]]) -> int:
        """Shift the machine over the iterations of `lv` found skippable (each window of q
        iterations takes as long as the one before); returns the next step."""
        q, k = found
        j = h % self.sch.ntiles[lv]
        _, t0, c0, s0 = seen[lv][j - q]
        self.spent += k // q * (self.spent - s0)  # the windows skipped hold the calls of this one
        m = self.m
        m.advance(k // q, m.t - t0, tuple(a - b for a, b in zip(m.counters(), c0, strict=True)))  # type: ignore[arg-type]
        seen[lv] = {}
        for other in self.levels:
            if other >= lv and self.issued[other] >= 0:
                self.issued[other] += k * self.per[lv] // self.per[other]
        return (h + k) * self.per[lv]
