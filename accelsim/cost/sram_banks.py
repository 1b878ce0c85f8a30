"""SRAM bank conflicts: the cycles the busiest bank needs for a set of access streams
(`sram.bank_model = "conflicts"`; derivation and closed forms in docs/dataflows.md).

The SRAM has `banks` banks, each serving one word of `word` bytes (= `sram.
bank_bytes_per_cycle`) per cycle; word `w` of the address space is in bank `w mod banks`
(low-order interleaving), and every buffer starts at a bank boundary (address 0 of the
pattern). A *stream* is `outer` repetitions of `n` chunks of `chunk` contiguous bytes, chunk j
of repetition i starting at `i * outer_stride + j * stride` bytes (a loop nest's two innermost
levels); the chunks are issued `group` at a time (a vector op's lanes), and the accesses of
one group to one word are served by one bank read (broadcast). A bank serves its
words one per cycle, the banks in parallel, so a set of streams takes

    cycles = max over banks b of (words of bank b, summed over every group of every stream)

- unit stride (`stride == chunk`): the words of the whole stream round-robin over the banks,
  ceil(n * chunk / word / banks) cycles: the bandwidth model's figure;
- a stride of `banks * word` bytes (or any multiple): every chunk in one bank, n cycles (for
  chunks of at most one word) — `banks` times the bandwidth model's;
- stride 0 (one address per group): n / group cycles, all in one bank.

The load per bank is exact: the pattern of a group repeats every `banks * word /
gcd(group * stride, banks * word)` groups and that of a repetition every `banks * word /
gcd(outer_stride, banks * word)` repetitions, each counted once per period (a period longer
than `MAX_PERIOD` is counted over its first `MAX_PERIOD` and scaled).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

MAX_PERIOD = 4096
# (chunks, bytes per chunk, stride, chunks per group, repetitions, stride of the repetitions)
Stream = tuple[int, int, int, int, int, int]


@functools.lru_cache(maxsize=20_000)
def stream_load(n: int, chunk: int, stride: int, group: int, banks: int, word: int,
                outer: int = 1, outer_stride: int = 0) -> tuple[int, ...]:
    """Words per bank of one stream (see the module doc): `outer` repetitions of `n` chunks,
    repetition i starting at `i * outer_stride` bytes."""
    span = banks * word
    load = [0] * banks
    if outer <= 0:
        return tuple(load)
    period = span // math.gcd(outer_stride, span) if outer_stride else 1
    reps = min(outer, period, MAX_PERIOD)
    full, rest = divmod(outer, period) if period <= MAX_PERIOD else (0, outer)
    for i in range(reps):
        times = full + (1 if i < rest else 0) if period <= MAX_PERIOD else 1
        if not times:
            continue
        inner = _inner_load(n, chunk, stride, group, banks, word, (i * outer_stride) % span)
        for b, x in enumerate(inner):
            load[b] += times * x
    if period > MAX_PERIOD:  # a long period: its first MAX_PERIOD repetitions, scaled
        scale = outer / reps
        load = [math.ceil(x * scale) for x in load]
    return tuple(load)


@functools.lru_cache(maxsize=20_000)
def _inner_load(n: int, chunk: int, stride: int, group: int, banks: int, word: int, base: int
                ) -> tuple[int, ...]:
    """Words per bank of `n` chunks from address `base`, `group` at a time."""
    load = [0] * banks
    if n <= 0 or chunk <= 0:
        return tuple(load)
    group = max(1, min(group, n))
    span = banks * word
    ngroups, last = divmod(n, group)
    step = group * stride
    period = span // math.gcd(step, span) if step else 1

    def add_group(first: int, size: int, times: int) -> None:
        if size == 1:
            _add_chunk(load, first, chunk, word, banks, times)
            return
        words: set[int] = set()  # one read per word and group: lanes on one word share it
        for j in range(size):
            a = first + j * stride
            words.update(range(a // word, (a + chunk - 1) // word + 1))
        for w in words:
            load[w % banks] += times

    counted = min(period, ngroups, MAX_PERIOD)
    if counted:
        if period <= MAX_PERIOD:
            full, rest = divmod(ngroups, period)
            for g in range(counted):
                add_group(base + g * step, group, full + (1 if g < rest else 0))
        else:  # a long period: the first MAX_PERIOD groups, scaled to all of them
            for g in range(counted):
                add_group(base + g * step, group, 1)
            scale = ngroups / counted
            load = [math.ceil(x * scale) for x in load]
    if last:
        add_group(base + ngroups * step, last, 1)
    return tuple(load)


def _add_chunk(load: list[int], a: int, chunk: int, word: int, banks: int, times: int) -> None:
    """The words of `chunk` bytes from address `a`, round-robin over the banks."""
    f, last = a // word, (a + chunk - 1) // word
    q, r = divmod(last - f + 1, banks)
    if q:
        for b in range(banks):
            load[b] += q * times
    for t in range(r):
        load[(f + t) % banks] += times


def bank_cycles(streams: Iterable[Stream], banks: int, word: int) -> int:
    """Cycles of the busiest bank for streams (n, chunk, stride, group, outer, outer stride)
    served together."""
    total = [0] * banks
    for n, chunk, stride, group, outer, outer_stride in streams:
        for b, x in enumerate(stream_load(n, chunk, stride, group, banks, word, outer, outer_stride)):
            total[b] += x
    return max(total) if total else 0


def clear_caches() -> None:
    stream_load.cache_clear()
    _inner_load.cache_clear()
