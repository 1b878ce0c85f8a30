"""Accelerator-aware tile sizes for the default pipeline.

The generic cache model (`affine-loop-tile cache-size=`) picks the largest tiles that fit a
cache and knows nothing about the machine: on gemm it keeps the innermost loops long and
reloads B once per row tile. Here the tiles of a perfect, rectangular band with constant trip
counts are chosen for a `HardwareConfig`:

1. Closed form over power-of-two candidates (plus full extents): each memref's tile is the
   bounding box of its accesses (affine coefficients read off the access maps); it is
   fetched once per iteration of the tile loops down to the innermost one its indices use
   (the copy pass hoists invariant copies), written memrefs go back out as often. Two
   buffers of every tile must fit the SRAM. Estimated cycles = max(compute, DRAM bytes /
   all channels' bandwidth, descriptor setups / engines) + per-kernel fill/drain + the first
   tile's latency.
2. The best few by that estimate (and the cache model's choice, so it never loses to it on
   this estimate) are compiled through the pipeline and scored with the analytic estimate
   (`accelsim.estimate.analytic`), which models the machine exactly; the fewest cycles wins.

Anything else (several bands, unknown trip counts, non-affine accesses) keeps the cache model.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from accelsim.compile.pipeline import pipeline_flags
from accelsim.config import HardwareConfig
from compiler.analysis.access import accesses_in
from compiler.analysis.domain import enclosing_loops
from compiler.ir import ops as O
from compiler.ir.affine_eval import compile_map
from compiler.ir.core import Value
from compiler.ir.types import MemRefType

MIN_TILE = 8


@dataclass(frozen=True, slots=True)
class TileChoice:
    sizes: tuple[int, ...]
    estimated_cycles: int          # analytic estimate of the compiled candidate
    evaluated: int                 # candidates compiled and estimated
    copy_capacity_kib: int | None  # fast-mem-capacity for the copy pass (None: the default)
    note: str
    stages: int = 2                # buffers per pipelined DMA (the accumulator tile gets one more)

    def flags(self, config: HardwareConfig) -> list[str]:
        return pipeline_flags(config, self.sizes, self.copy_capacity_kib, self.stages)


@dataclass(frozen=True, slots=True)
class _Ref:
    """One memref of the band: per access, per memref dim, (constant part, coefficients)."""

    memref: Value
    ebytes: int
    shape: tuple[int, ...]
    written: bool
    accesses: tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]  # [access][dim] -> (c0, coefs)
    band_use: tuple[bool, ...]   # per band loop: do its indices use the loop's IV


def _band(func: O.FuncOp) -> list[O.AffineForOp] | None:
    from compiler.transforms.tiling.bands import is_hyper_rectangular, tileable_bands

    bands = [b for b in tileable_bands(func) if b]
    if len(bands) != 1 or not is_hyper_rectangular(bands[0]):
        return None
    band = bands[0]
    if any(lp.constant_trip_count is None for lp in band):
        return None
    return band


def _refs(band: Sequence[O.AffineForOp]) -> tuple[list[_Ref], dict[Value, int]] | None:
    """Affine coefficients of every access in the band, over all enclosing IVs (lower bounds
    taken as the origin: a tile's box does not depend on where it starts), and the index span
    of each loop inside the band."""
    ivs = {lp.iv: k for k, lp in enumerate(band)}
    by: dict[Value, list] = {}  # type: ignore[type-arg]
    meta: dict[Value, tuple[int, tuple[int, ...], bool]] = {}
    spans: dict[Value, int] = {}
    for acc in accesses_in(band[-1]):
        op = acc.op
        if not isinstance(op, O.AffineLoadOp | O.AffineStoreOp):
            return None
        t = acc.memref.type
        if not isinstance(t, MemRefType) or not t.has_static_shape:
            return None
        loops = enclosing_loops(op)
        pos: dict[Value, int] = {}
        for lp in loops:
            if lp.iv not in ivs:
                tc = lp.constant_trip_count
                if tc is None:
                    return None
                spans[lp.iv] = (tc - 1) * lp.step
        operands = list(op.indices)
        fn = compile_map(op.map)
        if any(v not in ivs and v not in spans for v in operands):
            return None  # symbols or values computed in the body: leave it to the cache model
        for k, v in enumerate(operands):
            pos[v] = k
        zero = [0] * len(operands)
        base = fn(zero)
        dims = []
        for d in range(len(base)):
            coefs = []
            for k in range(len(operands)):
                unit = list(zero)
                unit[k] = 1
                two = list(zero)
                two[k] = 2
                a, b = fn(unit)[d] - base[d], fn(two)[d] - base[d]
                if b != 2 * a:
                    return None  # not affine-linear (mod / floordiv)
                coefs.append(a)
            dims.append((base[d], tuple(coefs), tuple(operands)))
        by.setdefault(acc.memref, []).append(dims)
        eb = t.element.byte_width
        w = meta.get(acc.memref, (eb, tuple(t.shape), False))[2] or acc.is_write
        meta[acc.memref] = (eb, tuple(t.shape), w)  # type: ignore[arg-type]
    out = []
    for m, accs in by.items():
        eb, shape, written = meta[m]
        use = [False] * len(band)
        for dims in accs:
            for _, coefs, operands in dims:
                for c, v in zip(coefs, operands):
                    if c and v in ivs:
                        use[ivs[v]] = True
        out.append(_Ref(m, eb, shape, written, tuple(tuple(dims) for dims in accs), tuple(use)))
    return out, spans


def _box_bytes(ref: _Ref, sizes: Sequence[int], band: Sequence[O.AffineForOp],
               spans: dict[Value, int]) -> int:
    ivs = {lp.iv: (t - 1) * lp.step for lp, t in zip(band, sizes)}
    n = 1
    for d, extent in enumerate(ref.shape):
        lo = hi = None
        for dims in ref.accesses:
            c0, coefs, operands = dims[d]  # type: ignore[misc]
            a_lo = a_hi = c0
            for c, v in zip(coefs, operands):
                r = c * (ivs[v] if v in ivs else spans[v])
                if r > 0:
                    a_hi += r
                else:
                    a_lo += r
            lo = a_lo if lo is None else min(lo, a_lo)
            hi = a_hi if hi is None else max(hi, a_hi)
        n *= min(extent, hi - lo + 1)  # type: ignore[operator]
    return n * ref.ebytes


def closed_form(band: Sequence[O.AffineForOp], refs: Sequence[_Ref], spans: dict[Value, int],
                sizes: Sequence[int], cfg: HardwareConfig, total_macs: int) -> tuple[int, int]:
    """(estimated cycles, bytes of one set of tiles) for `sizes`."""
    trips = [lp.constant_trip_count or 1 for lp in band]
    ntiles = [-(-tc // t) for tc, t in zip(trips, sizes)]
    d, c, dma = cfg.dram, cfg.compute, cfg.dma
    burst = d.burst_bytes
    traffic = descriptors = footprint = exposed = 0
    bw = d.channels * d.bandwidth_bytes_per_cycle
    for r in refs:
        b = _box_bytes(r, sizes, band, spans)
        footprint += b
        deepest = max((k for k, u in enumerate(r.band_use) if u), default=-1)
        count = math.prod(ntiles[: deepest + 1])
        moved = -(-b // burst) * burst * count
        traffic += moved * (2 if r.written else 1)
        descriptors += count * (2 if r.written else 1)
        if r.written:  # pipelined write-back: only the last tile's is exposed
            exposed += dma.setup_cycles + d.latency_cycles + b / bw
    calls = math.prod(ntiles)
    peak = c.rows * c.cols if c.kind == "matrix" else c.lanes
    # a tile narrower than the array wastes the rest of it (rows/cols on the two innermost
    # dims that are long enough to be tiled: a conv's 3x3 filter loops are not what is mapped)
    eff = 1.0
    mapped = [t for t, tc in zip(sizes, trips, strict=True) if tc > MIN_TILE][-2:]
    if c.kind == "matrix" and len(mapped) == 2:
        eff = min(1.0, mapped[-1] / c.cols) * min(1.0, mapped[-2] / c.rows)
    compute = total_macs / peak / max(eff, 1e-9)
    dram = traffic / bw
    setups = descriptors * dma.setup_cycles / dma.engines
    first = dma.setup_cycles + d.latency_cycles + footprint / bw
    per_call = c.fill_cycles + c.drain_cycles + cfg.control.issue_cycles
    return int(max(compute, dram, setups) + calls * per_call + first + exposed), footprint


def _candidates(trips: Sequence[int]) -> list[tuple[int, ...]]:
    per = []
    for tc in trips:
        opts = {t for t in (2 ** k for k in range(3, 13)) if t < tc} | {tc}
        per.append(sorted(o for o in opts if o >= min(MIN_TILE, tc)))
    return list(itertools.product(*per))


def choose_tile_sizes(module: O.ModuleOp, config: HardwareConfig, func: str | None = None,
                      keep: int = 6) -> TileChoice | None:
    """Tile sizes for the single perfect band of `func`, or None (use the cache model)."""
    from accelsim.compile.entry import pick_func

    try:
        f = pick_func(module, func)
    except Exception:  # no unique entry function: the cache model decides
        return None
    band = _band(f)
    # loops of at most MIN_TILE iterations stay whole; at most 4 loops are searched
    if band is None or sum(1 for lp in band if (lp.constant_trip_count or 1) > MIN_TILE) > 4:
        return None
    found = _refs(band)
    if found is None or not found[0]:
        return None
    refs, spans = found
    trips = [lp.constant_trip_count or 1 for lp in band]
    inner = math.prod(spans[v] // 1 + 1 for v in spans) if spans else 1
    total = math.prod(trips) * inner
    cap = config.sram.capacity_kib * 1024
    ranked = []
    for sizes in _candidates(trips):
        est, fp = closed_form(band, refs, spans, sizes, config, total)
        if 2 * fp <= cap:
            ranked.append((est, -math.prod(sizes), sizes, fp))
    if not ranked:
        return None
    ranked.sort()
    return _evaluate(module, config, func, [(s, fp) for _, _, s, fp in ranked[:keep]], len(ranked))


def _evaluate(module: O.ModuleOp, config: HardwareConfig, func: str | None,
              cands: list[tuple[tuple[int, ...], int]], fitting: int) -> TileChoice | None:
    """Compile each candidate (and the cache model's tiles) and keep the analytic winner."""
    from accelsim.estimate.analytic import estimate
    from compiler.text import parse_module, print_module
    from compiler.transforms.registry import PassManager

    text = print_module(module)
    cap = config.sram.capacity_kib * 1024
    scored: list[tuple[int, tuple[int, ...] | None, int | None, int, int | None]] = []

    copied: dict[tuple[tuple[int, ...] | None, int | None], str | None] = {}

    def score(sizes: tuple[int, ...] | None, fp: int | None, stages: int) -> None:
        # copies sized for the tile, so the copy pass places them at the tile loops (on a big
        # SRAM it would otherwise copy whole arrays up front and overlap nothing)
        kib = None if fp is None else max(1, -(-fp // 1024))
        flags = pipeline_flags(config, sizes, kib, stages)
        head, pipe = flags[:-1], flags[-1:]
        try:
            if (sizes, kib) not in copied:   # tile + copy once per tiling, for every stage count
                copied[(sizes, kib)] = None
                mod = parse_module(text)
                PassManager.from_flags(head).run(mod)
                copied[(sizes, kib)] = print_module(mod)
            base = copied[(sizes, kib)]
            if base is None:
                return
            mod = parse_module(base)
            PassManager.from_flags(pipe).run(mod)
            cyc = estimate(mod, config, func=func).cycles
        except Exception:  # a candidate the passes or SRAM refuse is skipped
            return
        scored.append((cyc, sizes, kib, stages, fp))

    score(None, None, 2)
    for sizes, fp in cands:
        score(sizes, fp, 2)
    # then 3 stages where three sets of tiles fit: deeper prefetch absorbs the accumulator
    # tile's large transfers in the DMA queue (a 2-stage ranking does not predict the winner)
    for sizes, fp in cands:
        if 3 * fp <= cap:
            score(sizes, fp, 3)
    tried = len(scored)
    best = min(scored, key=lambda s: s[0], default=None)  # ties: the earlier (cache model) wins
    if best is None or best[1] is None:
        return None
    return TileChoice(best[1], best[0], tried, best[2],
                      f"{fitting} candidate tilings fit; best {len(cands)} by the closed form and "
                      "the cache model's compiled and estimated (also at 3 stages where they fit)",
                      best[3])
