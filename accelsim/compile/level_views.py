"""A memory hierarchy as the two-level machines the tile search scores, one per link.

The search's model (`tile_model.TileModel`, `tile_replay.replay`) prices the copies between a
slow and a fast memory with `accelsim.cost` (`DmaCostModel.transfer`, the engine and channel
policies, `CostModel.kernel`). A chain `L0 -> L1 -> ... -> Ln` is scored link by link: view k
is the machine whose slow memory is level k-1 (DRAM itself for k = 1; else level k-1 as a
memory with `ports` channels of its read bandwidth and its latency) and whose fast memory is
level k, its DMA engines those of the link. No cost is defined here: the views only say which
level plays which part, and the cost model prices them.

`tile_band(band, sizes)` is the band of one full tile (the problem level k+1 tiles): trip counts
the tile sizes, each memref the level-k buffer holding its box.
"""

from __future__ import annotations

import dataclasses

from accelsim.compile.band import Band, BandRef, DimIndex
from accelsim.config import DmaConfig, DramConfig, EnergyConfig, HardwareConfig, SpacesConfig, SramConfig


def level_view(config: HardwareConfig, k: int) -> HardwareConfig:
    """The two-level machine of link k of `config.memory_chain()` (1 <= k < len(chain))."""
    chain = config.memory_chain()
    if not 1 <= k < len(chain):
        raise ValueError(f"link {k}: the chain has {len(chain)} levels")
    slow, fast = chain[k - 1], chain[k]
    link = config.links()[k - 1]
    dram = config.dram
    energy = config.energy
    if k > 1:
        dram = DramConfig(channels=min(64, slow.ports), bandwidth_bytes_per_cycle=slow.read_bytes_per_cycle,
                          latency_cycles=slow.latency_cycles, burst_bytes=config.dram.burst_bytes,
                          interleave="burst")
        energy = dataclasses.replace(energy, dram_pj_per_byte=slow.read_pj_per_byte)
    energy = dataclasses.replace(energy, sram_pj_per_byte=fast.read_pj_per_byte) \
        if isinstance(energy, EnergyConfig) else energy
    sram = SramConfig(fast.capacity_kib, 1, fast.read_bytes_per_cycle * fast.ports)
    dma = DmaConfig(engines=link.engines, queue_depth=link.queue_depth, setup_cycles=link.setup_cycles,
                    max_outstanding=link.max_outstanding)
    tag = config.spaces.tag
    spaces = SpacesConfig(slow.space, fast.space, tag)
    return dataclasses.replace(config, memory=(), link=(), dram=dram, sram=sram, dma=dma,
                               energy=energy, spaces=spaces, name=f"{config.name}:{slow.name}->{fast.name}")


def tile_band(band: Band, sizes: tuple[int, ...]) -> Band:
    """The band of the first full tile of `sizes`: each memref replaced by the buffer of its
    box (shape the box's extents, indices relative to its lowest element)."""
    ranges = band.tile_ranges(sizes)
    refs = []
    for r in band.refs:
        box = r.box(ranges)
        shape = tuple(min(s, hi - lo + 1) for s, (lo, hi) in zip(r.shape, box, strict=True))
        accs = tuple(tuple(DimIndex(di.c0 - lo, di.terms, di.inner_lo, di.inner_hi)
                           for di, (lo, _) in zip(acc, box, strict=True)) for acc in r.accesses)
        refs.append(BandRef(r.memref, r.ebytes, shape, r.read, r.written, accs, r.band_use))
    trips = tuple(min(t, tc) for t, tc in zip(sizes, band.trips, strict=True))
    return Band(band.func, band.loops, trips, tuple(refs))
