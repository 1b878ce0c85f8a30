"""What one DMA descriptor costs: the bytes it moves on DRAM at burst granularity, the cycles
it holds the SRAM port, and its transfer cycles on one channel.

The one definition, called by the executor (per op and transfer shape), the analytic
estimate (per op and size) and the tile search (per candidate tile). Setup, queueing and the
DRAM access latency are the engine's and the channel's (`accelsim.cost.engine`,
`accelsim.cost.dram`); this is only the transfer.

A descriptor moves `n` elements; with a stride, in chunks of `per` elements `stride` apart on
its strided side (the source when it is in the slower or equal memory space, else the
destination). A DRAM side that is contiguous (no stride, `stride == per`, or one chunk) moves
`ceil(n * eb / burst)` bursts; a strided one rounds every chunk up to whole bursts. Every SRAM
side moves `n * eb` bytes through the port: at the banks' total bandwidth, or under
`sram.bank_model = "conflicts"` in the cycles of the busiest bank (`accelsim.cost.sram_banks`:
a contiguous side as one run of bytes, a strided SRAM side chunk by chunk at its stride).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from accelsim.config import HardwareConfig
from accelsim.cost.sram_banks import bank_cycles


@dataclass(frozen=True, slots=True)
class TransferCost:
    dram_bytes: int    # bytes on DRAM at burst granularity, both DRAM sides together
    port_cycles: int   # cycles on the SRAM port (bytes of every SRAM side / port bandwidth)
    cycles: int        # transfer cycles on one channel: max(DRAM bytes / bandwidth, port)
    sram_bytes: int    # bytes through the SRAM port


def chunking(n: int, stride: int | None, per: int | None) -> tuple[int, int]:
    """(chunks, elements in the last chunk) of a transfer of `n` elements, `per` per chunk
    when strided (`per` > 0: the caller has validated it)."""
    if stride is None or per is None:
        return (1 if n else 0), n
    nchunks = -(-n // per)
    return nchunks, (n - (nchunks - 1) * per if nchunks else 0)


@dataclass(frozen=True)
class DmaCostModel:
    """Transfer costs for one hardware config, memoized per transfer shape."""

    burst: int
    dram_bw: int
    sram_bw: int
    banks: int = 0   # > 0: the bank-conflict model with `banks` banks of `word` bytes
    word: int = 0
    _memo: dict[tuple[int, int | None, int | None, int, bool, bool, bool, int], TransferCost] = \
        field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def for_config(cls, config: HardwareConfig) -> DmaCostModel:
        """The model of `config`'s DRAM and SRAM figures: one shared value (and memo) per
        distinct figures."""
        s = config.sram
        conflicts = s.bank_model == "conflicts"
        return _model(config.dram.burst_bytes, config.dram.bandwidth_bytes_per_cycle,
                      s.bytes_per_cycle, s.banks if conflicts else 0,
                      s.bank_bytes_per_cycle if conflicts else 0)

    def transfer(self, n: int, stride: int | None, per: int | None, ebytes: int,
                 src_dram: bool, dst_dram: bool, src_strided: bool, sram_sides: int
                 ) -> TransferCost:
        """The cost of moving `n` elements of `ebytes` bytes; `src_dram` / `dst_dram`: which
        sides are in DRAM, `src_strided`: the stride applies to the source, `sram_sides`:
        how many sides are in SRAM (0 to 2)."""
        key = (n, stride, per, ebytes, src_dram, dst_dram, src_strided, sram_sides)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        nchunks, last = chunking(n, stride, per)
        burst = self.burst
        dram_bytes = 0
        if nchunks and (src_dram or dst_dram):
            full = -(-n * ebytes // burst) * burst
            chunked = full
            if stride is not None and per is not None and stride != per and nchunks > 1:
                chunked = ((nchunks - 1) * -(-per * ebytes // burst)
                           + -(-last * ebytes // burst)) * burst
            if src_dram:
                dram_bytes += chunked if src_strided else full
            if dst_dram:
                dram_bytes += full if src_strided else chunked
        sram_bytes = n * ebytes * sram_sides
        if self.banks and sram_sides:
            port = self._bank_port(n, stride, per, ebytes, src_dram, src_strided, sram_sides)
        else:
            port = -(-sram_bytes // self.sram_bw)
        cost = TransferCost(dram_bytes, port, max(-(-dram_bytes // self.dram_bw), port), sram_bytes)
        if len(self._memo) > 50_000:
            self._memo.clear()
        self._memo[key] = cost
        return cost


    def _bank_port(self, n: int, stride: int | None, per: int | None, eb: int, src_dram: bool,
                   src_strided: bool, sram_sides: int) -> int:
        """The busiest bank's cycles for the SRAM sides (the source first when both are)."""
        sides = [True, False] if sram_sides == 2 else [not src_dram]  # True: the source
        streams = []
        for is_src in sides:
            strided = stride is not None and per is not None and stride != per and n > per
            if strided and is_src == src_strided:
                assert stride is not None and per is not None
                nchunks, last = chunking(n, stride, per)
                if last == per:
                    streams.append((nchunks, per * eb, stride * eb, 1, 1, 0))
                else:  # the short last chunk counted from a bank boundary (approximated)
                    streams += [(nchunks - 1, per * eb, stride * eb, 1, 1, 0),
                                (1, last * eb, 0, 1, 1, 0)]
            else:
                streams.append((1, n * eb, 0, 1, 1, 0))
        return bank_cycles(streams, self.banks, self.word)


@functools.cache
def _model(burst: int, dram_bw: int, sram_bw: int, banks: int = 0, word: int = 0) -> DmaCostModel:
    return DmaCostModel(burst, dram_bw, sram_bw, banks, word)
