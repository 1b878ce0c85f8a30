"""The tile search for a memory hierarchy of more than two levels: tile sizes per level.

Level by level from DRAM inwards, on the two-level view of each link (`level_views`):

1. level 1 (DRAM -> the first level): the candidates of the two-level search (power-of-two
   tiles whose buffers fit the level `stages` times over, 2 or 3 stages, and the cache
   model's) that fill at least 1/`MIN_SHARE` of the level, each scored from the one cost
   model (`TileModel` bound, then the replay of its schedule, at most `REPLAYS` of them);
2. level k+1: the same on the band of one full level-k tile (`tile_band`): its tiles are a
   partition of the level-k tile, their buffers copied from the level-k buffers over link k+1;
3. the choice is compiled once (on a clone): tiling with `inner-tile-sizes`, copies and
   pipelining per level (`AcceleratorPipeline.inner`).

Unlike the two-level search no finalists are compiled and estimated: each level's choice is
its best replay, so the search stays within a compile-time budget (`bench/bench_tiling.py`
section "hierarchy"). Anything the band model does not cover keeps the cache model per level
(`AcceleratorPipeline.for_hierarchy`).
"""

from __future__ import annotations

from accelsim.compile.band import band_of
from accelsim.compile.clone import clone_module
from accelsim.compile.level_views import level_view, tile_band
from accelsim.compile.pipeline import AcceleratorPipeline, InnerLevel
from accelsim.compile.tile_model import TileModel
from accelsim.compile.tile_search import (
    MIN_TILE,
    SearchResult,
    TileChoice,
    _Candidate,
    _candidates,
    _score,
    _Tiled,
    cache_model_sizes,
)
from accelsim.config import HardwareConfig
from accelsim.errors import InputError
from compiler.diagnostics import AccelsimError
from compiler.ir import ops as O

REPLAYS = 8     # candidates replayed per level (the rest are pruned by their bounds)
MIN_SHARE = 8   # a level's tiles fill at least 1/8 of it (smaller ones repeat the next level)
TRAFFIC_MARGIN = 0.05  # within 5% of a link's best cycles, the fewest bytes moved wins


def search_levels(module: O.ModuleOp, config: HardwareConfig, func: str | None = None
                  ) -> SearchResult | None:
    """Tile sizes per level of `config.memory_chain()` (> 2 levels) for the single perfect band
    of `func`, and the module compiled with them (left unchanged); None where the model does
    not apply."""
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
    if len(chain) <= 2:
        raise ValueError("search_levels is for hierarchies of more than two levels")
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


__all__ = ["MIN_SHARE", "REPLAYS", "TRAFFIC_MARGIN", "choose_levels", "search_levels"]
