"""Accelerator-aware tile sizes for the accelerator pipeline.

The generic cache model (`affine-loop-tile cache-size=`) picks the largest tiles that fit a
cache and knows nothing about the machine: on gemm it keeps the innermost loops long and
reloads B once per row tile. Here the tiles of a perfect, rectangular band with constant trip
counts are chosen for a `HardwareConfig`:

1. Candidates: power-of-two tile sizes per loop (and the full extent) whose two buffers fit
   the SRAM, each with copies sized for its tile, at 2 stages and at 3 (4) where three (four)
   buffers fit; and the cache model's pipeline.
2. Each is scored from the one cost model without building its IR (`accelsim.compile.
   tile_model`): a lower bound for all, and the replay of its schedule on the analytic
   machine state for those whose bound is below the best replay so far (the cache model's
   first, then by bound, at most `MAX_REPLAYS`); a replay stops once its end is known to be
   above what a finalist may score (`_score`), which leaves the finalists as they are.
3. The few best scores (within `MARGIN` of the best, at most `FINALISTS`) are compiled (on
   IR clones of the module) and estimated by `accelsim.estimate.analytic`, which models the
   machine exactly; the fewest cycles wins, so the choice is never worse than a finalist's
   (ties: the cache model, then the better score). Tile + copy run once per tiling, the
   passes unverified in between; each finalist is verified once, after all its passes (a
   broken one is skipped). The replay's order is not the estimate's (within the margin the
   two disagree by a few hundred cycles), so ranking by score alone would change choices.

Anything else (several bands, unknown trip counts, non-affine accesses) keeps the cache model.

Several links (a chain of more than two levels, `search_levels`): level by level from DRAM
inwards, on the two-level view of each link (`level_views`):

1. level 1 (DRAM -> the first level): the candidates above (at most 2 or 3 stages, and the
   cache model's) that fill at least 1/`MIN_SHARE` of the level, each scored from the one cost
   model (`TileModel` bound, then the replay of its schedule, at most `REPLAYS` of them);
2. level k+1: the same on the band of one full level-k tile (`tile_band`): its tiles are a
   partition of the level-k tile, their buffers copied from the level-k buffers over link k+1;
3. the choice is compiled once (on a clone): tiling with `inner-tile-sizes`, copies and
   pipelining per level (`AcceleratorPipeline.inner`).

There no finalists are compiled and estimated: each level's choice is its best replay, so the
search stays within a compile-time budget (`bench/bench_tiling.py` section "hierarchy").
Anything the band model does not cover keeps the cache model per level
(`AcceleratorPipeline.for_hierarchy`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from accelsim.compile.band import Band, band_of
from accelsim.compile.clone import clone_module
from accelsim.compile.compile_cache import estimated, run_passes
from accelsim.compile.level_views import level_view, tile_band
from accelsim.compile.pipeline import COPY, FUSE, PC_FUSE, AcceleratorPipeline, InnerLevel
from accelsim.compile.tile_model import Placement, Schedule, TileModel
from accelsim.compile.tile_replay import replay
from accelsim.config import HardwareConfig
from accelsim.errors import InputError
from compiler.diagnostics import AccelsimError, Remark
from compiler.ir import ops as O

MIN_TILE = 8
MARGIN = 0.02     # finalists: scores within 2% of the best (the replay's error near the top)
FINALISTS = 3     # at most this many finalists are compiled and estimated
MAX_REPLAYS = 48  # at most this many candidates are replayed (where bounds are all close)
PRUNE_REPLAYS = True  # stop replays that can no longer give a finalist (`_score`)
# several links (`search_levels`)
REPLAYS = 8     # candidates replayed per level (the rest are pruned by their bounds)
MIN_SHARE = 8   # a level's tiles fill at least 1/8 of it (smaller ones repeat the next level)
TRAFFIC_MARGIN = 0.05  # within 5% of a link's best cycles, the fewest bytes moved wins


@dataclass(frozen=True, slots=True)
class TileChoice:
    pipeline: AcceleratorPipeline
    estimated_cycles: int  # analytic estimate of the compiled choice
    scored: int            # candidates scored from the cost model
    evaluated: int         # finalists compiled and estimated
    note: str

    @property
    def sizes(self) -> tuple[int, ...]:
        assert self.pipeline.tile_sizes is not None
        return self.pipeline.tile_sizes

    @property
    def stages(self) -> int:
        return self.pipeline.stages

    @property
    def copy_capacity_kib(self) -> int:
        return self.pipeline.copy_capacity_kib


@dataclass(frozen=True, slots=True)
class _Tiled:
    """A candidate tiling (its pipeline is made only for the finalists)."""

    sizes: tuple[int, ...]
    copy_capacity_kib: int
    stages: int

    def pipeline(self, base: AcceleratorPipeline) -> AcceleratorPipeline:
        return base.with_tiles(self.sizes, self.copy_capacity_kib).replace(stages=self.stages)


@dataclass(slots=True)
class _Candidate:
    what: AcceleratorPipeline | _Tiled   # the cache model's pipeline, or a tiling
    model: TileModel
    placement: Placement
    stages: int                          # asked for (the schedule fits them to the SRAM)
    pipeline_capacity_kib: int | None
    bound: int
    score: int | None = None
    _schedule: Schedule | None = None

    @property
    def schedule(self) -> Schedule:
        """The pipelined schedule, made when first asked for (only the replayed candidates
        need it)."""
        if self._schedule is None:
            self._schedule = self.model.schedule(self.placement, self.stages, self.pipeline_capacity_kib)
        return self._schedule

    def pipeline(self, base: AcceleratorPipeline) -> AcceleratorPipeline:
        return self.what if isinstance(self.what, AcceleratorPipeline) else self.what.pipeline(base)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The search's choice (the cache model when `choice` is None) and the module compiled
    with it, with the passes' remarks (None when no finalist compiled)."""

    pipeline: AcceleratorPipeline
    choice: TileChoice | None
    compiled: O.ModuleOp | None
    remarks: tuple[Remark, ...]


def choose_tile_sizes(module: O.ModuleOp, config: HardwareConfig,
                      func: str | None = None) -> TileChoice | None:
    """Tile sizes for the single perfect band of `func`, or None (use the cache model)."""
    found = search(module, config, func)
    return None if found is None else found.choice


def search(module: O.ModuleOp, config: HardwareConfig, func: str | None = None,
           producer_consumer_fusion: bool = True) -> SearchResult | None:
    """The tile search on `module` (left unchanged), or None where its model does not apply;
    `producer_consumer_fusion=False`: for the pipeline without that pass. On a chain of
    several links, the search per level (`search_levels`)."""
    from compiler.ir.entry import entry_function

    if not config.single_link:
        return search_levels(module, config, func)

    base = AcceleratorPipeline.for_config(config).replace(
        producer_consumer_fusion=producer_consumer_fusion)
    fused: list[Remark] = []
    first = [(n, o) for n, o in base.steps() if n in (PC_FUSE, FUSE)]
    if first:  # the band is the one the pipeline's fusion passes leave
        from compiler.transforms.registry import create_pass

        module = clone_module(module)
        # not verified here: each finalist is, after all its passes (`_evaluate`)
        fused = run_passes(module, [create_pass(n, o) for n, o in first], verify_each=False)
    try:
        f = entry_function(module, func, InputError)
    except InputError:  # no unique entry function: the cache model decides
        return None
    band = band_of(f)
    # loops of at most MIN_TILE iterations stay whole; at most 4 loops are searched
    if band is None or sum(1 for tc in band.trips if tc > MIN_TILE) > 4:
        return None
    if all(r.memref.type.memory_space != config.spaces.dram for r in band.refs):  # type: ignore[attr-defined]
        # tiles exist to fit the copies from slow memory in the fast one: a band whose
        # operands are all in faster memory already (the `ideal` preset) has nothing to copy
        # and stays whole, one kernel call
        return SearchResult(base.replace(tile_cache_kib=None), None, None, ())
    model = TileModel(band, config.bandwidth_view())  # the DRAM in bandwidth/latency terms
    if not model.ok:
        return None
    cands = _candidates(band, model, base, config)
    if len(cands) < 2:
        return None
    ranked = _score(model, cands, prune=True)
    finalists = _finalists(ranked)
    found = _evaluate(module, config, func, base, finalists, len(cands))
    if found is None or not fused:
        return found
    return SearchResult(found.pipeline, found.choice, found.compiled, (*fused, *found.remarks))


def _candidates(band: Band, model: TileModel, base: AcceleratorPipeline,
                config: HardwareConfig, min_share: int = 0) -> list[_Candidate]:
    """The cache model's pipeline and the tilings whose double-buffered tiles fit (with
    `min_share`, only those using at least 1/min_share of the fast memory: the hierarchy's
    search, where a level's small tiles only repeat the level below's)."""
    cap = config.sram.capacity_kib * 1024
    out: list[_Candidate] = []
    pipe_cap = base.pipeline_capacity_kib
    assert base.tile_cache_kib is not None
    pl = model.placement(cache_model_sizes(band, base.tile_cache_kib * 1024), base.copy_capacity_kib)
    if pl is not None:
        out.append(_Candidate(base, model, pl, base.stages, pipe_cap, model.lower_bound(pl)))
    share = base.copy_capacity_kib
    for sizes in _tilings(band.trips):
        fp = band.footprint(sizes)
        if 2 * fp > cap or (min_share and min_share * fp < cap):
            continue
        # copies sized for the tile, so the copy pass places them at the tile loops (on a big
        # SRAM it would otherwise copy whole arrays up front and overlap nothing)
        kib = min(max(1, -(-fp // 1024)), share)
        pl = model.placement(sizes, kib)
        if pl is None:
            continue
        bound = model.lower_bound(pl)
        # 3 (4) stages where three (four) sets of tiles fit: deeper prefetch absorbs the
        # accumulator tile's large transfers in the DMA queue, and on a short pipeline (four
        # row tiles of rmsnorm) starts every copy-in before the first kernel
        for stages in [s for s in (2, 3, 4) if s == 2 or s * fp <= cap]:
            out.append(_Candidate(_Tiled(sizes, kib, stages), model, pl, stages, pipe_cap, bound))
    return out


def _score(model: TileModel, cands: list[_Candidate], max_replays: int = MAX_REPLAYS,
           prune: bool = False) -> list[_Candidate]:
    """Replay the cache model's pipeline, then candidates in the order of their bounds until a
    bound reaches the best replay (no later candidate can beat it) or `max_replays` are
    done; the rest keep no score. Best scores first.

    `prune` (the two-level search, whose finalists are `_finalists(ranked)`): a replay stops,
    its candidate unscored, once its end is known to be above the best score so far times
    1 + MARGIN or above the FINALISTS-th distinct score so far (`replay`'s cutoff). Such a
    candidate could never be a finalist (its score would be above either, and the best only
    falls), and it never lowers the best, so the loop and the finalists are those of every
    replay finished (`PRUNE_REPLAYS = False`, the test's reference)."""
    best: int | None = None
    distinct: list[int] = []  # the FINALISTS lowest distinct scores so far
    order = sorted(cands, key=lambda c: (isinstance(c.what, _Tiled), c.bound))
    for n, c in enumerate(order):
        if best is not None and (c.bound >= best or n == max_replays):
            break
        cutoff = None
        if prune and PRUNE_REPLAYS and best is not None:
            cutoff = best * (1 + MARGIN)
            if len(distinct) == FINALISTS:
                cutoff = min(cutoff, distinct[-1])
        c.score = replay(model, c.schedule, cutoff)
        if c.score is None:
            continue
        if c.score not in distinct:
            distinct = sorted([*distinct, c.score])[:FINALISTS]
        if best is None or c.score < best:
            best = c.score
    scored = [c for c in cands if c.score is not None]
    return sorted(scored, key=lambda c: c.score)  # type: ignore[arg-type, return-value]


def _finalists(ranked: Sequence[_Candidate]) -> list[_Candidate]:
    """The best score, and the others within the margin of it (equal scores once: the same
    schedule), at most FINALISTS."""
    if not ranked:
        return []
    top = ranked[0].score
    assert top is not None
    out: list[_Candidate] = []
    seen: set[int] = set()
    for c in ranked:
        assert c.score is not None
        if c.score > top * (1 + MARGIN) or len(out) == FINALISTS:
            break
        if c.score in seen:
            continue
        seen.add(c.score)
        out.append(c)
    return out


def _evaluate(module: O.ModuleOp, config: HardwareConfig, func: str | None,
              base: AcceleratorPipeline, finalists: Sequence[_Candidate], scored: int
              ) -> SearchResult | None:
    """Compile each finalist on a clone (tile + copy once per tiling) and keep the fewest
    estimated cycles. `module` is already fused (the pipeline's fusion passes)."""
    from compiler.ir.verifier import verify

    copied: dict[tuple[tuple[int, ...] | None, int | None, int], tuple[O.ModuleOp, list[Remark]] | None] = {}
    best: tuple[int, int, AcceleratorPipeline, O.ModuleOp, list[Remark]] | None = None
    for rank, cand in enumerate(finalists):
        pipe = cand.pipeline(base)
        passes = pipe.passes(without=(PC_FUSE, FUSE))
        names = [p.name for p in passes]
        cut = names.index(COPY) + 1 if COPY in names else len(names)
        head, tail = passes[:cut], passes[cut:]  # tile + copy; pipelining (stages) and after
        key = (pipe.tile_sizes, pipe.tile_cache_kib, pipe.copy_capacity_kib)
        try:
            if key not in copied:   # tile + copy once per tiling, for every stage count
                copied[key] = None
                mod = clone_module(module)
                copied[key] = (mod, run_passes(mod, head, verify_each=False))
            done = copied[key]
            if done is None:
                continue
            mod = clone_module(done[0])
            tail_remarks = run_passes(mod, tail, verify_each=False)
            verify(mod)  # once per finalist, not after every pass: a broken one is still skipped
            cycles = estimated(mod, config, func).cycles
        except AccelsimError:  # a candidate the passes, the verifier or SRAM refuse is skipped
            continue
        # ties: the cache model, then the better score
        order = (cycles, 0 if pipe is base else rank + 1)
        if best is None or order < best[:2]:
            best = (*order, pipe, mod, done[1] + tail_remarks)
    if best is None:
        return None
    cycles, _, pipe, mod, remarks = best
    choice = None
    if pipe is not base:
        choice = TileChoice(pipe, cycles, scored, len(finalists),
                            f"{scored} candidate pipelines scored from the cost model; the best "
                            f"{len(finalists)} compiled and estimated")
    return SearchResult(pipe, choice, mod, tuple(remarks))


def cache_model_sizes(band: Band, cache_bytes: int) -> list[int]:
    """The tile sizes `affine-loop-tile cache-size=` picks for this band, from the band's
    box arithmetic instead of isl (the same rule: the largest tiles whose first tile's
    footprint fits, innermost loop grown first, rounded down to a divisor of the trip count
    when one is at least half as large)."""
    sizes = [1] * len(band.trips)
    for k in reversed(range(len(band.trips))):
        tc = band.trips[k]

        def fits(t: int, k: int = k) -> bool:
            trial = list(sizes)
            trial[k] = t
            return band.footprint(trial) <= cache_bytes

        if not fits(1):
            continue
        lo, hi = 1, tc
        while lo < hi:  # the footprint grows with the tile size: binary search
            mid = (lo + hi + 1) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid - 1
        divisor = max(d for d in range(1, lo + 1) if tc % d == 0)
        sizes[k] = divisor if 2 * divisor >= lo else lo
    return sizes


def _tilings(trips: Sequence[int]) -> list[tuple[int, ...]]:
    per = []
    for tc in trips:
        opts = {t for t in (2 ** k for k in range(3, 13)) if t < tc} | {tc}
        per.append(sorted(o for o in opts if o >= min(MIN_TILE, tc)))
    return list(itertools.product(*per))


def search_levels(module: O.ModuleOp, config: HardwareConfig, func: str | None = None
                  ) -> SearchResult | None:
    """`search` on a chain of several links: tile sizes per level for the single perfect band
    of `func`, and the module compiled with them (left unchanged); None where the model does
    not apply (module docstring, "Several links")."""
    from compiler.transforms.registry import PassManager

    chosen = choose_levels(module, config, func)
    if chosen is None:
        return None
    pipe, choice = chosen
    mod = clone_module(module)
    pm = PassManager(pipe.passes())
    try:
        pm.run(mod)
    except AccelsimError:  # a choice the passes refuse: the cache model per level decides
        return None
    return SearchResult(pipe, choice, mod, tuple(pm.remarks))


def choose_levels(module: O.ModuleOp, config: HardwareConfig, func: str | None = None
                  ) -> tuple[AcceleratorPipeline, TileChoice] | None:
    """The search's choice without compiling it (what `bench/bench_hierarchy.py` times)."""
    from compiler.ir.entry import entry_function

    chain = config.memory_chain()
    if config.single_link:
        raise ValueError("search_levels is for chains of several links (`search` for one)")
    try:
        f = entry_function(module, func, InputError)
    except InputError:
        return None
    band = band_of(f)
    if band is None or sum(1 for tc in band.trips if tc > MIN_TILE) > 4:
        return None
    picks: list[tuple[tuple[int, ...], int, int, int]] = []  # sizes, copy KiB, stages, score
    scored = 0
    cur = band
    for k in range(1, len(chain)):
        view = level_view(config, k)
        model = TileModel(cur, view)
        if not model.ok:
            return None
        base = AcceleratorPipeline.for_config(view)
        cands = _candidates(cur, model, base, view, MIN_SHARE)
        if not cands:
            return None
        ranked = _score(model, cands, REPLAYS)
        scored += len(cands)
        if not ranked:
            return None
        top = _least_traffic(model, ranked)
        assert top.score is not None
        if isinstance(top.what, _Tiled):
            pick = (top.what.sizes, top.what.copy_capacity_kib, top.what.stages, top.score)
        else:
            assert base.tile_cache_kib is not None
            sizes = tuple(cache_model_sizes(cur, base.tile_cache_kib * 1024))
            pick = (sizes, base.copy_capacity_kib, base.stages, top.score)
        picks.append(pick)
        cur = tile_band(cur, pick[0])
    hier = AcceleratorPipeline.for_hierarchy(config)
    (s1, kib1, st1, score1), rest = picks[0], picks[1:]
    inner = tuple(InnerLevel(lv.space, above.space, min(kib, lv.capacity_kib), lv.capacity_kib,
                             tile_sizes=sizes, stages=st)
                  for (sizes, kib, st, _), above, lv in zip(rest, chain[1:], chain[2:], strict=False))
    pipe = hier.replace(tile_sizes=s1, tile_cache_kib=None, copy_capacity_kib=kib1, stages=st1,
                        inner=inner)
    sizes = " / ".join(",".join(map(str, p[0])) for p in picks)
    choice = TileChoice(pipe, score1, scored, 0,
                        f"{scored} candidate tilings scored from the cost model level by level "
                        f"({sizes}); estimated cycles: the first link's replay")
    return pipe, choice


def _least_traffic(model: TileModel, ranked: list[_Candidate]) -> _Candidate:
    """Of the candidates scored within `TRAFFIC_MARGIN` of the best, the one moving the fewest
    bytes over the link (the bytes cost energy and the level above's bandwidth; a few percent
    of cycles buy the outer level's reuse)."""
    best = ranked[0].score
    assert best is not None
    near = [c for c in ranked if c.score is not None and c.score <= best * (1 + TRAFFIC_MARGIN)]
    return min(near, key=lambda c: (model.dram_bytes(c.placement), c.score))


__all__ = ["FINALISTS", "MARGIN", "MAX_REPLAYS", "MIN_SHARE", "MIN_TILE", "REPLAYS",
           "TRAFFIC_MARGIN", "SearchResult", "TileChoice", "cache_model_sizes", "choose_levels",
           "choose_tile_sizes", "search", "search_levels"]
