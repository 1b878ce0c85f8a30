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
from fractions import Fraction

from accelsim.config import HardwareConfig
from accelsim.cost.rate import cycles_for
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
    dram_bw: int | float   # bytes per cycle (`accelsim.cost.rate`)
    sram_bw: int | float
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

    def transfer(self, n: int, stride: int | None, per: int | None, ebytes: int | Fraction,
                 src_dram: bool, dst_dram: bool, src_strided: bool, sram_sides: int
                 ) -> TransferCost:
        """The cost of moving `n` elements of `ebytes` bytes (a Fraction for packed sub-byte
        elements, `precision.dma_element_bytes`: i4 is 1/2; byte counts round up);
        `src_dram` / `dst_dram`: which sides are in DRAM, `src_strided`: the stride applies
        to the source, `sram_sides`: how many sides are in SRAM (0 to 2)."""
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
        sram_bytes = -(-n * ebytes * sram_sides // 1)  # packed sub-byte elements: whole bytes
        if self.banks and sram_sides and isinstance(ebytes, int):
            port = self._bank_port(n, stride, per, ebytes, src_dram, src_strided, sram_sides)
        else:
            port = cycles_for(sram_bytes, self.sram_bw)
        cost = TransferCost(dram_bytes, port, max(cycles_for(dram_bytes, self.dram_bw), port),
                            sram_bytes)
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
def _model(burst: int, dram_bw: int | float, sram_bw: int | float, banks: int = 0,
           word: int = 0) -> DmaCostModel:
    return DmaCostModel(burst, dram_bw, sram_bw, banks, word)


# ---- memory levels: the cost of each hop of a DMA over the links of the hierarchy ----------
#
# A link joins a level (the child) and its parent. A transfer over it holds a port of the
# parent level (DRAM: its channels, at burst granularity, as above; an on-chip level: one of
# its `ports`, byte granular, at its per-port bandwidth) and is never shorter than its bytes
# through one port of the child. Down (parent -> child) reads the parent and writes the child;
# up the reverse. A copy within one level moves its bytes through that level's port twice
# (read and written), holding no parent port; in DRAM it is a DRAM-to-DRAM transfer. The
# two-level machine's one link is exactly `DmaCostModel.for_config` (the same figures).


@dataclass(frozen=True, slots=True)
class Hop:
    """One hop of a DMA: the link (index in `HardwareConfig.links()`) whose engines carry it,
    its transfer cycles on one parent port, bytes on the parent's ports (DRAM: whole bursts; 0:
    none held), cycles through the child's port, the bytes it moves, its direction ("read":
    down, "write": up, "copy") and whether the parent is DRAM."""

    link: int
    cycles: int
    parent_bytes: int
    port_cycles: int
    nbytes: int
    kind: str
    dram: bool
    reads: int    # the chain position of the level it reads
    writes: int   # ... and of the level it writes


@dataclass(frozen=True)
class LevelCostModel:
    """The hop costs of one multi-level config, memoized per transfer shape and spaces."""

    config: HardwareConfig
    _memo: dict[tuple[int, int | None, int | None, int, int, int, bool], tuple[Hop, ...]] = \
        field(default_factory=dict, compare=False, hash=False, repr=False)

    @staticmethod
    def for_config(config: HardwareConfig) -> LevelCostModel:
        return _level_model(config)

    def hops(self, n: int, stride: int | None, per: int | None, ebytes: int | Fraction, src_space: int,
             dst_space: int, src_strided: bool) -> tuple[Hop, ...]:
        """The hops of a DMA of `n` elements from `src_space` to `dst_space` (the route of
        `HardwareConfig.route`, which raises ConfigError for a refused or unknown pair)."""
        key = (n, stride, per, ebytes, src_space, dst_space, src_strided)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        cfg = self.config
        chain = cfg.memory_chain()
        pos = {lv.space: k for k, lv in enumerate(chain)}
        route = cfg.route(src_space, dst_space)
        a, b = pos[src_space], pos[dst_space]
        hops: list[Hop] = []
        if not route:  # a copy within one level
            lv = chain[a]
            if a == 0:
                c = _root_model(cfg, chain[1], down=True).transfer(
                    n, stride, per, ebytes, True, True, src_strided, 0)
                hops.append(Hop(0, c.cycles, c.dram_bytes, c.port_cycles, -(-n * ebytes // 1), "copy", True,
                                0, 0))
            else:
                c = _model(1, 1, min(lv.read_bytes_per_cycle, lv.write_bytes_per_cycle)).transfer(
                    n, stride, per, ebytes, False, False, src_strided, 2)
                hops.append(Hop(a - 1, c.cycles, 0, c.port_cycles, -(-n * ebytes // 1), "copy", False,
                                a, a))
        step = 1 if b > a else -1
        for k in range(a, b, step):
            parent, child = (k, k + 1) if step > 0 else (k - 1, k)
            down = step > 0
            p, ch = chain[parent], chain[child]
            if parent == 0:
                model = _root_model(cfg, ch, down)
            else:
                model = _model(1, p.read_bytes_per_cycle if down else p.write_bytes_per_cycle,
                               ch.write_bytes_per_cycle if down else ch.read_bytes_per_cycle)
            c = model.transfer(n, stride, per, ebytes, down, not down, src_strided, 1)
            hops.append(Hop(parent, c.cycles, c.dram_bytes, c.port_cycles, -(-n * ebytes // 1),
                            "read" if down else "write", parent == 0,
                            parent if down else child, child if down else parent))
        out = self._memo[key] = tuple(hops)
        if len(self._memo) > 50_000:
            self._memo.clear()
        return out


def _root_model(cfg: HardwareConfig, child: object, down: bool) -> DmaCostModel:
    bw = getattr(child, "write_bytes_per_cycle" if down else "read_bytes_per_cycle")
    return _model(cfg.dram.burst_bytes, cfg.dram.bandwidth_bytes_per_cycle, bw)


@functools.cache
def _level_model(config: HardwareConfig) -> LevelCostModel:
    return LevelCostModel(config)
