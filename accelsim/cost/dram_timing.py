"""The DRAM timing model's fixed part: the resolved timing set, the clock ratio, and where a
transfer's bytes land (address mapping) — everything that does not depend on a run's state.

A config with `dram.model = "timing"` resolves to one `DramTiming`: the technology's
datasheet set (`accelsim.cost.dram_tech`) with the config's overrides, every timing in DRAM
command clocks, and `ratio`, the DRAM clocks per accelerator cycle (explicit: the report
prints it). The per-channel controllers that keep bank and bus state and schedule requests
are the event machine's (`accelsim.hw.dram_controller`).

Address mapping: a byte address is split into its burst (`burst_bytes = bus_bytes *
burst_length`) and the burst index is read as a mixed-radix number whose digits are the
fields of `address_mapping`, most significant first: `ro` row, `ra` rank, `ba` bank within
its group, `co` burst-aligned column, `bg` bank group, `ch` channel. The default
`ro:ra:ba:co:bg:ch` interleaves channels at burst granularity, then bank groups (a sequential
stream alternates bank groups, so tCCD_S rather than tCCD_L paces it), then walks a row;
the radix of a field is its count (channels, ranks, bank groups, banks per group, bursts per
row, rows), so no field needs a power of two. Rows wrap modulo `rows`.

A DMA side (`Pattern`: a base address and chunks of bytes `stride` apart) becomes, per
channel, its requests: one per (rank, bank, row) it touches, with the number of bursts it
moves there, in order of first touch (`DramTiming.requests`). That is the unit the
controllers schedule: the model works per DMA burst group, never per byte or per cycle.
This mapping is the reference; the event machine's C fast path maps the same way
(`accelsim/hw/dram_kernel.c` `map_side`, held to `split` by tests/accelsim/hw/test_dram_native.py).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from accelsim.config import DramConfig, HardwareConfig


class Pattern(NamedTuple):
    """The bytes one DMA side moves in DRAM: `nchunks` chunks starting `stride` bytes apart
    at `base`, each `chunk` bytes except the last (`last`)."""

    base: int
    chunk: int
    stride: int
    nchunks: int
    last: int


# one request: (bank index within its channel, rank, bank-group index within the channel
# (rank * bank_groups + bank group), row, bursts)
Request = tuple[int, int, int, int, int]


@dataclass(frozen=True, slots=True)
class DramTiming:
    """The resolved timing model of one config (every time in DRAM clocks)."""

    channels: int
    ranks: int
    bank_groups: int
    banks_per_group: int
    rows: int
    bursts_per_row: int
    burst_bytes: int
    tBURST: int        # data-bus clocks of one burst: max(burst_length / beats_per_clock, tCCD_S)
    tCL: int
    tCWL: int
    tRCD: int
    tRP: int
    tRAS: int
    tRC: int
    tCCD_S: int
    tCCD_L: int
    tRRD_S: int
    tRRD_L: int
    tFAW: int
    tWR: int
    tWTR: int
    tRTW: int
    tRTP: int
    tREFI: int
    tRFC: int
    ratio: float       # DRAM clocks per accelerator cycle
    open_page: bool
    read_queue: int
    write_queue: int
    write_high: int
    write_low: int
    # the mapping's fields least significant first, as (name, radix)
    radices: tuple[tuple[str, int], ...]
    # pattern -> per channel (its requests, their bytes)
    _memo: dict[Pattern, tuple[tuple[tuple[Request, ...], int], ...]] = field(
        default_factory=dict, compare=False, hash=False, repr=False)

    @staticmethod
    def for_config(config: HardwareConfig) -> DramTiming:
        """The timing model of `config` (whose `dram.model` is "timing"), one shared value
        (and memo) per distinct DRAM config and clock."""
        return _timing(config.dram, config.clock_ghz)

    @property
    def banks(self) -> int:
        """Banks per channel."""
        return self.ranks * self.bank_groups * self.banks_per_group

    @property
    def peak_bytes_per_dram_clock(self) -> float:
        """One channel's peak: a burst per tBURST."""
        return self.burst_bytes / self.tBURST

    @property
    def peak_bytes_per_cycle(self) -> float:
        """One channel's peak per accelerator cycle."""
        return self.peak_bytes_per_dram_clock * self.ratio

    def requests(self, p: Pattern) -> tuple[tuple[Request, ...], ...]:
        """Per channel, the requests of pattern `p` (module docstring)."""
        return tuple(reqs for reqs, _ in self.split(p))

    def split(self, p: Pattern) -> tuple[tuple[tuple[Request, ...], int], ...]:
        """Per channel, the requests of pattern `p` and the bytes they move, memoized."""
        hit = self._memo.get(p)
        if hit is None:
            bb = self.burst_bytes
            hit = tuple((r, sum(q[4] for q in r) * bb) for r in self._requests(p))
            if len(self._memo) > 50_000:
                self._memo.clear()
            self._memo[p] = hit
        return hit

    def _requests(self, p: Pattern) -> tuple[tuple[Request, ...], ...]:
        bb = self.burst_bytes
        n = p.nchunks
        if n <= 0 or p.chunk <= 0:
            return tuple(() for _ in range(self.channels))
        starts = p.base + np.arange(n, dtype=np.int64) * p.stride
        ends = starts + p.chunk
        ends[-1] = starts[-1] + p.last
        first = starts // bb
        count = (ends - 1) // bb - first + 1
        count[count < 0] = 0
        total = int(count.sum())
        # every burst index, chunk by chunk (a chunk's bursts are consecutive)
        offs = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
        burst = np.repeat(first, count) + offs
        digits: dict[str, np.ndarray] = {}
        x = burst
        for name, radix in self.radices:
            x, digits[name] = np.divmod(x, radix)
        # the quotient left past the most significant field is dropped: addresses wrap
        ch, ra, bg, ba, ro = (digits[k] for k in ("ch", "ra", "bg", "ba", "ro"))
        bgi = ra * self.bank_groups + bg
        bank = bgi * self.banks_per_group + ba
        key = ((ch * self.banks + bank) * self.rows + ro)
        uniq, idx, cnt = np.unique(key, return_index=True, return_counts=True)
        order = np.argsort(idx, kind="stable")
        out: list[list[Request]] = [[] for _ in range(self.channels)]
        for k, c in zip(uniq[order].tolist(), cnt[order].tolist()):
            rest, row = divmod(k, self.rows)
            chan, b = divmod(rest, self.banks)
            g = b // self.banks_per_group
            out[chan].append((b, g // self.bank_groups, g, row, c))
        return tuple(tuple(r) for r in out)


@functools.cache
def _timing(d: DramConfig, clock_ghz: float) -> DramTiming:
    v = d.timing_value
    bl, beats = v("burst_length"), v("beats_per_clock")
    counts = {"ch": d.channels, "ra": v("ranks"), "bg": v("bank_groups"),
              "ba": v("banks_per_group"), "co": v("columns") // bl, "ro": v("rows")}
    fields = v("address_mapping").split(":")
    return DramTiming(
        channels=d.channels, ranks=v("ranks"), bank_groups=v("bank_groups"),
        banks_per_group=v("banks_per_group"), rows=v("rows"), bursts_per_row=counts["co"],
        burst_bytes=v("bus_bytes") * bl, tBURST=max(bl // beats, v("tCCD_S")),
        tCL=v("tCL"), tCWL=v("tCWL"), tRCD=v("tRCD"), tRP=v("tRP"), tRAS=v("tRAS"),
        tRC=v("tRC"), tCCD_S=v("tCCD_S"), tCCD_L=v("tCCD_L"), tRRD_S=v("tRRD_S"),
        tRRD_L=v("tRRD_L"), tFAW=v("tFAW"), tWR=v("tWR"), tWTR=v("tWTR"), tRTW=v("tRTW"),
        tRTP=v("tRTP"), tREFI=v("tREFI"), tRFC=v("tRFC"),
        ratio=float(v("clock_mhz")) / (1000.0 * clock_ghz), open_page=d.page_policy == "open",
        read_queue=d.read_queue, write_queue=d.write_queue, write_high=d.write_high_watermark,
        write_low=d.write_low_watermark,
        radices=tuple((f, counts[f]) for f in reversed(fields)))
