"""A tiling of the band scored from the one cost model, without building its IR.

On a perfect rectangular band the accelerator pipeline's passes are predictable, and this
module predicts them:

- placement (`affine-data-copy-generate`): the copies go to the outermost tile loop whose
  whole range fits the copy capacity (MLIR's footprint recursion), each hoisted above the
  enclosing loops its indices do not read; no copy-in where the copy pass skips it (the
  same rule, `compiler.analysis.exposed.copy_in_needed`, on one tile of the band); one copy
  moves the bounding box of its accesses,
  as one DMA when its box is single-stride, else one DMA per outer row (the pass's rule:
  `stride_levels`, and the innermost clipped dimension for partial tiles);
- pipelining (`affine-pipeline-data-transfer`): each loop holding copies gets the most stages
  (at most the pipeline's) whose buffers fit the fast memory, inner loops first, an
  accumulator buffer one more slot; its incoming copies run `stages - 1` iterations ahead,
  outgoing ones are waited one iteration late; across tile boundaries the sequence of
  iterations is continuous (cross-tile prefetch, flattened tile loops).

`accelsim.compile.tile_replay.replay` replays that schedule on the analytic estimate's
machine state with each DMA's cost from `accelsim.cost.dma.DmaCostModel.transfer`
(`TileModel.descriptors`) and each kernel call's from `accelsim.cost.kernel` (`TileKernel`).
`TileModel.lower_bound` is the cheap bound the search prunes with: the kernels' compute,
DRAM time and engine time, each summed over the whole run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from accelsim.compile.band import Band, BandRef
from accelsim.compile.tile_kernel import TileKernel
from accelsim.config import HardwareConfig
from accelsim.cost import precision, vector_reuse
from accelsim.cost.dma import DmaCostModel, TransferCost
from accelsim.cost.kernel import on_array
from accelsim.cost.rate import cycles_for
from accelsim.cost.systolic import call_overhead
from compiler.analysis.exposed import any_read_exposed, copy_in_needed
from compiler.transforms.data_copy.emit import stride_levels

Descriptor = tuple[TransferCost, int]  # cost of one DMA, how many of them


@dataclass(frozen=True, slots=True)
class Copy:
    """The copies of one memref: where they are and what one of them moves."""

    index: int                  # of the memref in `Band.refs`
    ref: BandRef
    level: int                  # band loop whose body holds them (-1: before the band)
    incoming: bool
    outgoing: bool
    extents: tuple[int, ...]    # the box of a full tile (the buffer's shape)
    limits: tuple[int, ...]     # per dim: one past the highest element any iteration accesses
    clipped: tuple[bool, ...]   # per dim: some tile's box passes its limit
    outer_dims: int             # dims walked by a loop of DMAs (0: one DMA per copy)

    @property
    def buffer_bytes(self) -> int:
        return math.prod(self.extents) * self.ref.ebytes


@dataclass(frozen=True, slots=True)
class Placement:
    """Where the copy pass puts the copies of one tiling (stage-independent)."""

    sizes: tuple[int, ...]
    ntiles: tuple[int, ...]
    depth: int                  # copies placed for the tile loop at this depth (loops below whole)
    copies: tuple[Copy, ...]
    inner: int                  # deepest level holding copies: one kernel call per its iteration

    @property
    def steps(self) -> int:
        return math.prod(self.ntiles[: self.inner + 1])


@dataclass(frozen=True, slots=True)
class Schedule:
    """A placement pipelined: what the replay needs."""

    placement: Placement
    stages: dict[int, int]      # per level: stages after fitting (1: not pipelined)
    piped_out: frozenset[int]   # indices of copies whose copy-out is pipelined

    @property
    def sizes(self) -> tuple[int, ...]:
        return self.placement.sizes

    @property
    def ntiles(self) -> tuple[int, ...]:
        return self.placement.ntiles

    @property
    def copies(self) -> tuple[Copy, ...]:
        return self.placement.copies

    @property
    def inner(self) -> int:
        return self.placement.inner

    @property
    def steps(self) -> int:
        return self.placement.steps


class TileModel:
    def __init__(self, band: Band, config: HardwareConfig):
        self.band = band
        self.config = config
        self.kernel = TileKernel(band, config)
        self.dma_cost = DmaCostModel.for_config(config)
        sp = config.spaces
        self.slow, self.fast = sp.dram, sp.sram
        whole = [(0, tc - 1) for tc in band.trips]
        self._limits = [tuple(min(s, hi + 1) for s, (_, hi) in zip(r.shape, r.box(whole), strict=True))
                        for r in band.refs]
        self._lattice = [_unit_lattice(r) for r in band.refs]
        # per memref and band loop: the sum of its index coefficients along that loop
        self._up = [tuple(sum(c for acc in r.accesses for d in acc for j, c in d.terms if j == k)
                          for k in range(len(band.trips))) for r in band.refs]
        self._desc: dict[tuple, list[Descriptor]] = {}  # type: ignore[type-arg]
        self._copy_ins: dict[tuple[int, int, tuple[int, ...]], bool] = {}
        self._read_first: dict[int, bool] = {}
        self._unit = None if not self.kernel.ok else self.kernel.cost((1,) * len(band.trips))
        # SRAM bytes per band point: one more innermost iteration's bytes (accesses kept in a
        # value by the scalar replacement happen once per innermost loop, not per point)
        self._point_sram = 0
        if self._unit is not None and config.compute.vector_registers:
            # a register file holds or broadcasts what does not move along every band loop
            # (`accelsim.cost.vector_reuse`): only the rest is per point whatever the tiles
            assert self.kernel.func is not None
            self._point_sram = vector_reuse.streamed_bytes_per_point(
                self.kernel.func, self.fast, len(band.trips)) or 0
        elif self._unit is not None:
            two = self.kernel.cost((1,) * (len(band.trips) - 1) + (2,))
            self._point_sram = (two.counts.bytes_in(self.fast)
                                - self._unit.counts.bytes_in(self.fast))

    @property
    def ok(self) -> bool:
        return self.kernel.ok and all(self._lattice)

    # ---- the compiled program -------------------------------------------------------------
    def placement(self, sizes: Sequence[int], copy_capacity_kib: int) -> Placement | None:
        """Where the copies of `sizes` go, or None where this model does not know."""
        band = self.band
        n = len(band.loops)
        cap = copy_capacity_kib * 1024
        if band.footprint(sizes) > cap:
            return None  # copies inside the tile: not a schedule the search makes
        depth = n  # the outermost loop whose whole range fits (footprints shrink inwards)
        while depth > 0 and band.footprint(sizes, depth - 1) <= cap:
            depth -= 1
        ntiles = tuple(-(-tc // t) for tc, t in zip(band.trips, sizes, strict=True))
        last = band.tile_last(sizes, depth)
        copies = []
        for i, r in enumerate(band.refs):
            level = max((k for k in range(depth) if r.band_use[k]), default=-1)
            ext = r.tile_extents(last)
            limits = self._limits[i]
            clipped = self._clipped(i, sizes, ntiles, level, depth, ext, limits)
            copies.append(Copy(i, r, level, self._copy_in(i, sizes, level), r.written, ext,
                               limits, clipped, _outer_dims(ext, r.shape, clipped)))
        inner = max((c.level for c in copies), default=-1)
        return Placement(tuple(sizes), ntiles, depth, tuple(copies), inner)

    def _copy_in(self, i: int, sizes: Sequence[int], level: int) -> bool:
        """Does the copy of memref `i` at `level` copy in? The copy pass's rule
        (`compiler.analysis.exposed.copy_in_needed`) on one tile of the band: loops up to
        `level` cut into tiles of `sizes`, the loops below whole."""
        r = self.band.refs[i]
        if not (r.read and r.written):
            return r.read
        if i not in self._read_first:
            # a read no earlier store of the whole band covers is exposed in its tile too
            # (a tile has fewer earlier stores): the copy-in then stays for every tiling
            self._read_first[i] = any_read_exposed(r.memref, [self.band.loops[0]])
        if self._read_first[i]:
            return True
        key = (i, level, tuple(sizes[: level + 1]))
        hit = self._copy_ins.get(key)
        if hit is None:
            loops = self.band.loops
            tiles = {loops[k]: sizes[k] for k in range(level + 1)}
            hit = self._copy_ins[key] = copy_in_needed(r.memref, [loops[0]], tiles)
        return hit

    def _clipped(self, i: int, sizes: Sequence[int], ntiles: Sequence[int], level: int,
                 depth: int, ext: Sequence[int], limits: Sequence[int]) -> tuple[bool, ...]:
        """Per dim: does the box of some tile (at its lower bound, full extent) pass the
        limit? The lower bound grows with the tile origin along a loop whose index
        coefficients are positive: the tile furthest along them decides."""
        r, up = self.band.refs[i], self._up[i]
        tile = [ntiles[k] - 1 if up[k] > 0 and r.band_use[k] else 0 for k in range(level + 1)]
        lows = self._lows(r, sizes, depth, tile)
        return tuple(lo + e > lim for lo, e, lim in zip(lows, ext, limits, strict=True))

    def _lows(self, r: BandRef, sizes: Sequence[int], depth: int, tile: Sequence[int]) -> list[int]:
        """The lowest index per dim of one copy's box: tile `tile[k]` of loops before `depth`
        (0 where not given), loops from `depth` on whole."""
        ranges = []
        for k, (t, tc) in enumerate(zip(sizes, self.band.trips, strict=True)):
            if k >= depth:
                ranges.append((0, tc - 1))
            else:
                o = (tile[k] if k < len(tile) else 0) * t
                ranges.append((o, min(o + t, tc) - 1))
        return [lo for lo, _ in r.box(ranges)]

    def schedule(self, pl: Placement, stages: int, pipeline_capacity_kib: int | None) -> Schedule:
        """The pipelining pass's `fit_stages`, loop by loop from the innermost."""
        copies = pl.copies
        mult = [1] * len(copies)
        fitted: dict[int, int] = {}
        piped_out: set[int] = set()
        for level in sorted({c.level for c in copies if c.level >= 0}, reverse=True):
            here = [k for k, c in enumerate(copies) if c.level == level]
            if stages < 2 or not any(copies[k].incoming for k in here):
                fitted[level] = 1  # nothing to pair (the pass pipelines incoming copies only)
                continue
            outs = [k for k in here if copies[k].outgoing]
            shared = [k for k in outs if copies[k].incoming]
            got = _fit(copies, mult, here, shared, stages, pipeline_capacity_kib)
            if got < 2 and shared:
                outs = [k for k in outs if k not in shared]
                shared = []
                got = _fit(copies, mult, [k for k in here if copies[k].incoming or k in outs],
                           shared, stages, pipeline_capacity_kib)
            fitted[level] = got
            if got >= 2:
                for k in here:
                    if copies[k].incoming or k in outs:
                        mult[k] = got + (1 if k in shared else 0)
                piped_out.update(outs)
        return Schedule(pl, fitted, frozenset(piped_out))

    # ---- costs ----------------------------------------------------------------------------
    def descriptors(self, pl: Placement, ci: int, outgoing: bool, tile: Sequence[int]
                    ) -> list[Descriptor]:
        """The DMAs of one copy of `pl.copies[ci]` for the tile with these indices."""
        c = pl.copies[ci]
        r = c.ref
        used = [k for k in range(c.level + 1) if r.band_use[k]]
        key = (c.index, outgoing, c.extents, c.clipped, c.outer_dims, pl.depth,
               tuple(pl.sizes[k] for k in used), tuple(tile[k] for k in used) if any(c.clipped) else ())
        hit = self._desc.get(key)
        if hit is not None:
            return hit
        if any(c.clipped):
            lows = self._lows(r, pl.sizes, pl.depth, tile)
            actual = [min(e, lim - lo) if cl else e
                      for e, lim, lo, cl in zip(c.extents, c.limits, lows, c.clipped, strict=True)]
        else:
            actual = list(c.extents)
        k = c.outer_dims
        count = math.prod(actual[:k])
        rank = len(c.extents)
        elems = (actual[k] * math.prod(c.extents[k + 1:])) if k < rank else 1
        levels = stride_levels(c.extents[k:], r.shape[k:])
        stride = per = None
        if levels:
            _, stride, per = levels[0]
        src, dst = (self.fast, self.slow) if outgoing else (self.slow, self.fast)
        cost = self.dma_cost.transfer(elems, stride, per, r.ebytes, src == self.slow, dst == self.slow,
                                      src <= dst, 1)
        out = [(cost, count)] if count and elems else []
        if len(self._desc) > 20_000:
            self._desc.clear()
        self._desc[key] = out
        return out

    def kernel_trips(self, pl: Placement, tile: Sequence[int]) -> tuple[int, ...]:
        """Trip counts of one kernel call: the tile of every loop up to `inner`, whole below."""
        out = []
        for k, (t, tc) in enumerate(zip(pl.sizes, self.band.trips, strict=True)):
            out.append(min(t, tc - tile[k] * t) if k <= pl.inner else tc)
        return tuple(out)

    def dram_bytes(self, pl: Placement) -> int:
        """Bytes every copy of `pl` moves at the slow side, from the cost model's descriptors."""
        total = 0
        for ci, c in enumerate(pl.copies):
            for outgoing in (False, True):
                if not (c.outgoing if outgoing else c.incoming):
                    continue
                for tile, count in self._classes(pl, c):
                    for cost, n in self.descriptors(pl, ci, outgoing, tile):
                        total += count * n * cost.dram_bytes
        return total

    def lower_bound(self, pl: Placement) -> int:
        """No schedule of this placement ends earlier: the kernels' compute back to back
        after the first kernel's copies arrive and before the last one's leave (each at
        least setup, its bytes at the full DRAM bandwidth, latency), DRAM busy on every
        channel, the engines busy with every DMA."""
        cfg = self.config
        d, dma, cc = cfg.dram, cfg.dma, cfg.compute
        lat = d.latency_cycles + dma.setup_cycles
        nch = d.channels if d.interleave == "burst" else 1
        calls = pl.steps
        volume = math.prod(self.band.trips)
        unit = self._unit
        assert unit is not None
        counts = unit.counts
        # each call is busy for its compute or its SRAM accesses, whichever is longer
        # (bank conflicts can make the SRAM faster than bytes / bandwidth: broadcasts)
        sram = (self._point_sram * volume // cfg.sram.bytes_per_cycle
                if cfg.sram.bank_model == "bandwidth" else 0)
        # every op at its precision's rate on its unit (`accelsim.cost.precision`)
        lanes_all = precision.lane_slots(cc, counts, with_macs=True)
        compute = max(math.floor(lanes_all * volume / cc.lanes), sram)
        # a matmul-like kernel may run on the array (at its full rate at best) or the lanes,
        # whichever the cost model finds faster for the tile (`CostModel._best`); on the array
        # only under `compute.matmul_unit = "array"`
        matrix = on_array(cc, counts)
        if matrix:
            rest = precision.lane_slots(cc, counts, with_macs=False)
            on_matrix = (math.floor(counts.mac * volume * precision.mac_scale(cc, counts)
                                    / (cc.rows * cc.cols))
                         + math.floor(rest * volume / cc.lanes))
            compute = (max(on_matrix, sram) if cc.matmul_unit == "array"
                       else min(compute, on_matrix))
        compute += calls * (call_overhead(cc, matrix) + cfg.control.issue_cycles)
        dram = engine = dram_in = 0
        for ci, c in enumerate(pl.copies):
            for outgoing in (False, True):
                if not (c.outgoing if outgoing else c.incoming):
                    continue
                for tile, count in self._classes(pl, c):
                    for cost, n in self.descriptors(pl, ci, outgoing, tile):
                        dram += count * n * cost.dram_bytes
                        dram_in += 0 if outgoing else count * n * cost.dram_bytes
                        hold = max(cost.port_cycles,
                                   cycles_for(cost.dram_bytes, d.bandwidth_bytes_per_cycle * nch))
                        engine += count * n * (dma.setup_cycles + hold)
        bw = d.channels * d.bandwidth_bytes_per_cycle
        first = [self.descriptors(pl, ci, False, [0] * (c.level + 1))
                 for ci, c in enumerate(pl.copies) if c.incoming]
        last = [self.descriptors(pl, ci, True, [pl.ntiles[k] - 1 for k in range(c.level + 1)])
                for ci, c in enumerate(pl.copies) if c.outgoing]
        ends = []
        for group in (first, last):
            ends.append(lat + cycles_for(sum(cost.dram_bytes * n for ds in group for cost, n in ds), bw)
                        if group else 0)
        # every copy-in is done before the last kernel, which runs before the last copy-outs
        last_tile = [pl.ntiles[k] - 1 for k in range(pl.inner + 1)]
        tail = self.kernel.cost(self.kernel_trips(pl, last_tile)).cycles + ends[1]
        before_tail = lat + cycles_for(dram_in, bw) if first else 0
        return max(compute + ends[0] + ends[1], before_tail + tail, cycles_for(dram, bw) + lat,
                   -(-engine // dma.engines) + d.latency_cycles)

    @staticmethod
    def _classes(pl: Placement, c: Copy) -> list[tuple[tuple[int, ...], int]]:
        """Tile indices standing for every copy of `c` (the last tile of a loop apart where
        the copy may be clipped there), and how many copies each stands for."""
        per = []
        clipped = any(c.clipped)
        for k in range(c.level + 1):
            nt = pl.ntiles[k]
            if clipped and c.ref.band_use[k] and nt > 1:
                per.append([(0, nt - 1), (nt - 1, 1)])
            else:
                per.append([(0, nt)])
        return [(tuple(j for j, _ in combo), math.prod(n for _, n in combo)) for combo in _product(per)]


def _fit(copies: Sequence[Copy], mult: Sequence[int], pairs: Sequence[int], shared: Sequence[int],
         stages: int, cap_kib: int | None) -> int:
    """The most stages (<= `stages`) whose buffers fit: every buffer at its multiplicity so
    far, `pairs`' buffers `stages - 1` more times, `shared` ones once more still."""
    if cap_kib is None:
        return stages
    base = sum(c.buffer_bytes * m for c, m in zip(copies, mult, strict=True))
    unit = sum(copies[k].buffer_bytes for k in pairs)
    extra = sum(copies[k].buffer_bytes for k in shared)
    for s in range(stages, 1, -1):
        if base + (s - 1) * unit + extra <= cap_kib * 1024:
            return s
    return 1


def _outer_dims(extents: Sequence[int], shape: Sequence[int], clipped: Sequence[bool]) -> int:
    """The copy pass's `dma_outer_dims`: dims a loop of DMAs walks so that each DMA is
    single-stride and only its outermost dim is clipped."""
    k = max((d for d in range(len(extents)) if clipped[d] and extents[d] > 1), default=0)
    while len(stride_levels(extents[k:], shape[k:])) > 1:
        k += 1
    return k


def _unit_lattice(r: BandRef) -> bool:
    """The last index moves by 1 somewhere (else the pass compacts the buffer to a lattice,
    which this model does not follow)."""
    if len(r.shape) == 0:
        return False
    g = 0
    for acc in r.accesses:
        last = acc[-1]
        for _, c in last.terms:
            g = math.gcd(g, c)
        if last.inner_hi != last.inner_lo:
            g = 1
    c0s = sorted({acc[-1].c0 for acc in r.accesses})
    for a in c0s[1:]:
        g = math.gcd(g, a - c0s[0])
    return g <= 1


def _product(options: Sequence[Sequence[object]]) -> list[tuple]:  # type: ignore[type-arg]
    out: list[tuple] = [()]  # type: ignore[type-arg]
    for opts in options:
        out = [(*p, o) for p in out for o in opts]
    return out


__all__ = ["Copy", "Placement", "Schedule", "TileModel"]
