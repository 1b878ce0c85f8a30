"""The schedule model of a network on many clusters: which clusters run which layers, when.

Pure arithmetic on measured layer times; nothing here compiles or simulates. Its inputs:

- `durations[k][i]`: layer i's cycles on a group of k clusters, each measured by our own
  compiler and estimate/simulator on a k-cluster machine holding the group's share of the shared
  parts (`accelsim.network.pipelined.group_overrides`);
- `rows[i]`: how layer i streams (`RowModel`: its output in `len(need)` row chunks, and for
  chunk r the fraction of its input it must have read);
- the hand-off of a chunk from one cluster group to the next (`Handoff`: the interconnect's
  latency plus the chunk's bytes at the consumer group's share of its bandwidth).

The schedule (`plan`) is a sequence of *segments* run one after another. A segment is either one
layer on a group of clusters (k = all of them: today's data-parallel split), or a pipeline of
consecutive layers on disjoint groups (hybrid: a segment's group sizes differ by layer), the
consumer starting a chunk as soon as the chunks of its input it needs are ready. Assumptions
(docs/networks.md "Pipelined across clusters"):

1. a layer's measured cycles are spread evenly over its output chunks, produced in row order;
2. a consumer chunk needs the producer's chunks covering `need[r]` of its input, then the
   hand-off; the buffers between groups are double-buffered rolling windows, never a stall
   of the producer (the measured layer runs write their output through the shared level as
   in the layer-by-layer run, so capacity is not the bound);
3. a segment starts when the one before it has ended; layers of one segment overlap;
4. groups of a segment run concurrently, each on its share of DRAM and the interconnect, which
   is what each layer's time was measured on.

A pipeline's layers form *stages*: consecutive layers on one group, which interleaves their
chunks (of the stage's next chunks, the one that can begin first), so a light layer (a ReLU,
an add) need not hold a group of its own. The choice is a dynamic program over segment
boundaries; in a segment two partitions into stages are timed (a layer a stage; a layer with
less work than one cluster's fair share of the segment's joined to the stage before it), and
a partition's group sizes come from a greedy that gives the bottleneck stage (the most cycles
on its current group) the next larger group while the clusters last, keeping the best timing
seen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

CHUNKS = 32          # at most this many row chunks per layer (the recurrence's resolution)
MAX_SEGMENT = 16     # at most this many layers pipelined in one segment


@dataclass(frozen=True, slots=True)
class RowModel:
    """`need[r]`: the fraction of its input (0 < f <= 1) a layer must have read to produce its
    output chunk r (non-decreasing, the last one 1.0)."""

    need: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.need:
            raise ValueError("a row model needs at least one chunk")
        if any(not 0.0 < f <= 1.0 for f in self.need) or abs(self.need[-1] - 1.0) > 1e-9:
            raise ValueError(f"row model fractions must lie in (0, 1] and end at 1: {self.need}")
        if any(b < a for a, b in zip(self.need, self.need[1:], strict=False)):
            raise ValueError(f"row model fractions must not decrease: {self.need}")

    @staticmethod
    def window(out_rows: int, in_rows: int, first: int, stride: int) -> RowModel:
        """Output row r reads input rows up to `first + r * stride` (a sliding window: the
        window height minus one for `first`), in at most CHUNKS chunks."""
        if out_rows < 1 or in_rows < 1:
            raise ValueError(f"rows must be positive: out {out_rows}, in {in_rows}")
        chunks = min(out_rows, CHUNKS)
        need = []
        for c in range(chunks):
            last_row = (c + 1) * out_rows // chunks - 1
            need.append(min(in_rows, max(1, first + last_row * stride + 1)) / in_rows)
        need[-1] = 1.0
        return RowModel(tuple(need))

    @staticmethod
    def elementwise(rows: int) -> RowModel:
        """Output chunk r reads input chunk r (a 1 x 1 window over `rows` rows)."""
        return RowModel.window(rows, rows, 0, 1)

    def then(self, inner: RowModel) -> RowModel:
        """This model after `inner` (a layer of two kernels: `inner` reads the layer's input,
        this one reads `inner`'s output): chunk r of this one needs `inner`'s chunks covering
        its need, which need their own input."""
        n = len(inner.need)
        need = []
        for f in self.need:
            c = min(n - 1, max(0, _ceil_frac(f, n) - 1))
            need.append(inner.need[c])
        return RowModel(tuple(need))


@dataclass(frozen=True, slots=True)
class Handoff:
    """Cycles to pass `nbytes` from one group to another: `latency` plus the bytes at
    `bytes_per_cycle` x (k / clusters) for a consumer group of k clusters."""

    latency: int
    bytes_per_cycle: float
    clusters: int

    def cycles(self, nbytes: float, k: int) -> float:
        return self.latency + nbytes / (self.bytes_per_cycle * k / self.clusters)


@dataclass(frozen=True, slots=True)
class Placement:
    """Layer `index` on clusters [first, first + size) from `start` to `end` (cycles)."""

    index: int
    first: int
    size: int
    start: int
    end: int

    @property
    def clusters(self) -> str:
        return str(self.first) if self.size == 1 else f"{self.first}-{self.first + self.size - 1}"


@dataclass(frozen=True, slots=True)
class Plan:
    placements: tuple[Placement, ...]      # in layer order
    segments: tuple[tuple[int, int], ...]  # [a, b) layer ranges, in order

    @property
    def cycles(self) -> int:
        return max((p.end for p in self.placements), default=0)

    @property
    def pipelined_layers(self) -> int:
        return sum(b - a for a, b in self.segments if b - a > 1)


def cluster_span(text: str) -> range:
    """The clusters a result row names: "3" or "0-15" (`Placement.clusters`)."""
    first, dash, last = text.partition("-")
    if not first.isdigit() or (dash and not last.isdigit()):
        raise ValueError(f"cluster assignment {text!r}: expected N or N-M")
    lo, hi = int(first), int(last) if dash else int(first)
    if hi < lo:
        raise ValueError(f"cluster assignment {text!r}: the last cluster is before the first")
    return range(lo, hi + 1)


def plan(durations: Mapping[int, Sequence[float]], rows: Sequence[RowModel],
         out_bytes: Sequence[float], producers: Sequence[int | None], clusters: int,
         handoff: Handoff, max_segment: int = MAX_SEGMENT) -> Plan:
    """The best schedule by the model (module docstring). `durations`: group size -> cycles per
    layer (must hold `clusters`); `producers[i]`: the layer whose output layer i streams from
    (None: the network input); `out_bytes[i]`: layer i's output bytes."""
    n = len(rows)
    if clusters not in durations:
        raise ValueError(f"durations must hold the whole machine's group ({clusters} clusters)")
    sizes = sorted(k for k in durations if 1 <= k <= clusters)
    for k in sizes:
        if len(durations[k]) != n:
            raise ValueError(f"durations[{k}] has {len(durations[k])} layers, not {n}")
    best: list[float] = [0.0] + [float("inf")] * n
    choice: list[tuple[int, tuple[int, ...]]] = [(0, ())] * (n + 1)
    for b in range(1, n + 1):
        for a in range(max(0, b - max(1, min(max_segment, clusters))), b):
            if best[a] == float("inf"):
                continue
            span, groups = _segment(a, b, durations, sizes, rows, out_bytes, producers, clusters,
                                    handoff)
            if best[a] + span < best[b]:
                best[b], choice[b] = best[a] + span, (a, groups)
    # walk back the segments, then time them from 0
    segs: list[tuple[int, int, tuple[int, ...]]] = []
    b = n
    while b > 0:
        a, groups = choice[b]
        segs.append((a, b, groups))
        b = a
    segs.reverse()
    placements: list[Placement] = []
    t0 = 0
    for a, b, groups in segs:
        starts, ends = _timing(a, b, groups, durations, rows, out_bytes, producers, handoff, t0)
        first, size = 0, 0
        for i, k in enumerate(groups):
            if k:   # a new group after the last one (0: the layer before's group, again)
                first, size = first + size, k
            placements.append(Placement(a + i, first, size, round(starts[i]), round(ends[i])))
        t0 = max(round(e) for e in ends)
    return Plan(tuple(placements), tuple((a, b) for a, b, _ in segs))


def _segment(a: int, b: int, durations: Mapping[int, Sequence[float]], sizes: Sequence[int],
             rows: Sequence[RowModel], out_bytes: Sequence[float],
             producers: Sequence[int | None], clusters: int,
             handoff: Handoff) -> tuple[float, tuple[int, ...]]:
    """(cycles, group size per layer; 0: the layer before's group) of layers [a, b) as one
    segment. Its layers form *stages*, runs of consecutive layers on one group (chunks
    interleaved, `_timing`): two partitions are timed, every layer a stage of its own, and
    every layer with less work (cycles on the smallest group) than one cluster's fair share
    of the segment's (its total / clusters) in the stage of the layer before it; each
    partition's group sizes come from `_sizes`, and the faster wins."""
    m = b - a
    if m == 1:  # one layer: the group it runs fastest on (the whole machine unless slower)
        k = min(sizes, key=lambda s: (durations[s][a], -s))
        return durations[k][a], (k,)

    stages = [(i, i + 1) for i in range(m)]
    best, best_groups = _sizes(a, stages, durations, sizes, rows, out_bytes, producers, clusters,
                               handoff)
    # the other partition: a layer with less work than one cluster's fair share of the
    # segment's joins the stage before it (its group interleaves the two layers' chunks)
    work = [durations[sizes[0]][a + i] for i in range(m)]
    share = sum(work) / clusters
    merged: list[tuple[int, int]] = []
    for i in range(m):
        if merged and work[i] < share:
            merged[-1] = (merged[-1][0], i + 1)
        else:
            merged.append((i, i + 1))
    if 1 < len(merged) < m:
        span, groups = _sizes(a, merged, durations, sizes, rows, out_bytes, producers, clusters,
                              handoff)
        if span < best:
            best, best_groups = span, groups
    return best, best_groups


def _sizes(a: int, stages: Sequence[tuple[int, int]], durations: Mapping[int, Sequence[float]],
           sizes: Sequence[int], rows: Sequence[RowModel], out_bytes: Sequence[float],
           producers: Sequence[int | None], clusters: int,
           handoff: Handoff) -> tuple[float, tuple[int, ...]]:
    """(cycles, group per layer) of one partition of a segment into stages (offsets from `a`):
    a greedy that gives the bottleneck stage (the most cycles on its current group) the next
    larger group while the clusters last, keeping the best timing seen."""
    m = len(stages)
    if m > clusters or sizes[0] * m > clusters:
        return float("inf"), ()
    b = a + stages[-1][1]
    ks = [sizes[0]] * m

    def per_layer(gs: Sequence[int]) -> tuple[int, ...]:
        return tuple(k if i == lo else 0 for (lo, hi), k in zip(stages, gs, strict=True)
                     for i in range(lo, hi))

    def cycles(j: int) -> float:
        return sum(durations[ks[j]][a + i] for i in range(*stages[j]))

    def span(gs: Sequence[int]) -> float:
        _, ends = _timing(a, b, per_layer(gs), durations, rows, out_bytes, producers, handoff,
                          0.0)
        return max(ends)

    best, best_groups = span(ks), per_layer(ks)
    tried: set[int] = set()
    while True:
        order = sorted(range(m), key=lambda j: -cycles(j))
        grown = False
        for j in order:
            if j in tried:
                continue
            bigger = [s for s in sizes if s > ks[j] and sum(ks) - ks[j] + s <= clusters]
            if not bigger:
                tried.add(j)
                continue
            ks[j] = bigger[0]
            grown = True
            break
        if not grown:
            break
        s = span(ks)
        if s < best:
            best, best_groups = s, per_layer(ks)
    return best, best_groups


def _timing(a: int, b: int, groups: Sequence[int], durations: Mapping[int, Sequence[float]],
            rows: Sequence[RowModel], out_bytes: Sequence[float], producers: Sequence[int | None],
            handoff: Handoff, t0: float) -> tuple[list[float], list[float]]:
    """Start and end of each layer of the segment [a, b) started at `t0` (`groups[i]`: layer
    a + i's group size, 0: the group of the layer before): the chunk recurrence
    finish(r) = max(group free, ready(need(r))) + cycles / chunks, a chunk handed to another
    group after `handoff`, to its own group at once. A group of several layers runs, of their
    next chunks, the one that can begin first (the later layer on a tie)."""
    done: dict[int, list[float]] = {}   # layer -> finish time of each output chunk
    starts: list[float] = [t0] * (b - a)
    ends: list[float] = [t0] * (b - a)
    i = a
    while i < b:
        j = i + 1
        while j < b and groups[j - a] == 0:
            j += 1
        k = groups[i - a]
        if j == i + 1:  # a layer alone on its group: its chunks in order
            starts[i - a], ends[i - a] = _alone(i, k, durations, rows, out_bytes, producers,
                                                handoff, t0, done)
            i = j
            continue
        stage = range(i, j)
        nxt = {x: 0 for x in stage}
        for x in stage:
            done[x] = []
        clock = t0
        while True:
            pick, pick_begin = None, float("inf")
            for x in stage:
                need = rows[x].need
                r = nxt[x]
                if r >= len(need):
                    continue
                ready = t0
                p = producers[x]
                src = done.get(p) if p is not None else None
                if src is not None or (p is not None and p in stage):
                    n = len(rows[p].need)  # type: ignore[index]
                    c = _chunks_of(need, n)[r]
                    if c >= len(src):  # type: ignore[arg-type]
                        continue       # a layer of this group has not made it yet
                    ready = src[c]  # type: ignore[index]
                    if p not in stage:
                        ready += handoff.cycles(out_bytes[p] / n, k)  # type: ignore[index]
                begin = max(clock, ready)
                if begin <= pick_begin:   # a tie: the later layer (keeps the stream flowing)
                    pick, pick_begin = x, begin
            if pick is None:
                break
            if nxt[pick] == 0:
                starts[pick - a] = pick_begin
            clock = pick_begin + durations[k][pick] / len(rows[pick].need)
            done[pick].append(clock)
            nxt[pick] += 1
            ends[pick - a] = clock
        i = j
    return starts, ends


def _alone(i: int, k: int, durations: Mapping[int, Sequence[float]], rows: Sequence[RowModel],
           out_bytes: Sequence[float], producers: Sequence[int | None], handoff: Handoff,
           t0: float, done: dict[int, list[float]]) -> tuple[float, float]:
    """`_timing` of a layer that has its group to itself: (start, end); its chunks' finish
    times into `done`."""
    need = rows[i].need
    per = durations[k][i] / len(need)
    p = producers[i]
    src = done.get(p) if p is not None else None
    lag = handoff.cycles(out_bytes[p] / len(src), k) if src else 0.0  # type: ignore[index]
    finish: list[float] = []
    t, first = t0, None
    cs = _chunks_of(need, len(src)) if src else ()
    for r in range(len(need)):
        begin = t
        if src:
            begin = max(t, src[cs[r]] + lag)
        if first is None:
            first = begin
        t = begin + per
        finish.append(t)
    done[i] = finish
    return (t0 if first is None else first), t


@lru_cache(maxsize=4096)
def _chunks_of(need: tuple[float, ...], n: int) -> tuple[int, ...]:
    """For each chunk of a consumer with fractions `need`, the last of a producer's n chunks it
    needs."""
    return tuple(min(n - 1, max(0, _ceil_frac(f, n) - 1)) for f in need)


def _ceil_frac(f: float, n: int) -> int:
    """The number of chunks of n that cover fraction f (at least 1)."""
    x = f * n
    r = round(x)
    return max(1, r if abs(x - r) < 1e-9 else math.ceil(x))
