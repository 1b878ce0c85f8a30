"""Accelerator-aware tile sizes (accelsim/tiling.py): hand-computed footprints, the SRAM bound,
never worse than the cache model on the analytic estimate, and the fallback."""

import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from accelsim.compile.tile_search import _band, _refs, choose_tile_sizes, closed_form, pipeline_flags
from accelsim.estimate.analytic import estimate
from compiler.transforms.registry import PassManager

GEMM = "gemm:M=128,N=96,K=64"


def gemm_band():
    func = workloads.get(GEMM).module().funcs[0]
    band = _band(func)
    assert band is not None
    refs, spans = _refs(band)
    return band, refs, spans


@pytest.mark.parametrize("sizes", [(8, 8, 8), (32, 16, 64), (128, 96, 64), (16, 64, 8)])
def test_gemm_tile_footprint_is_the_three_tiles(sizes):
    band, refs, spans = gemm_band()
    ti, tj, tk = sizes
    _, fp = closed_form(band, refs, spans, sizes, load_config("default"), 128 * 96 * 64)
    assert fp == 4 * (ti * tk + tk * tj + ti * tj)  # A: ti x tk, B: tk x tj, C: ti x tj


def test_gemm_c_does_not_use_the_k_loop():
    _, refs, _ = gemm_band()
    use = {r.memref.name_hint: r.band_use for r in refs}
    assert use == {"A": (True, False, True), "B": (False, True, True), "C": (True, True, False)}
    assert [r.written for r in refs if r.memref.name_hint == "C"] == [True]


def test_fewer_dram_bytes_estimate_fewer_cycles_when_bandwidth_bound():
    # on a narrow DRAM, reloading B per row tile (ti small) must cost more than large ti
    cfg = load_config("default").with_overrides({"dram.channels": 1, "dram.bandwidth_bytes_per_cycle": 1})
    band, refs, spans = gemm_band()
    small, _ = closed_form(band, refs, spans, (8, 96, 64), cfg, 128 * 96 * 64)
    large, _ = closed_form(band, refs, spans, (128, 96, 8), cfg, 128 * 96 * 64)
    assert large < small


def compiled(spec, flags):
    mod = workloads.get(spec).module()
    PassManager.from_flags(flags).run(mod)
    return mod


@pytest.mark.parametrize(("preset", "spec"), [("default", GEMM), ("edge", "gemm:M=256,N=256,K=128")])
def test_choice_fits_and_is_no_worse_than_the_cache_model(preset, spec):
    cfg = load_config(preset)
    choice = choose_tile_sizes(workloads.get(spec).module(), cfg)
    assert choice is not None and len(choice.sizes) == 3
    ti, tj, tk = choice.sizes
    assert 2 * 4 * (ti * tk + tk * tj + ti * tj) <= cfg.sram.capacity_kib * 1024
    cache = estimate(compiled(spec, pipeline_flags(cfg, None)), cfg).cycles
    ours_mod = compiled(spec, choice.flags(cfg))
    ours = estimate(ours_mod, cfg).cycles
    assert ours == choice.estimated_cycles <= cache
    # the event run agrees with the estimate the choice was made on
    assert simulate(ours_mod, cfg, functional=False).cycles == ours


def test_default_pipeline_uses_the_model_only_with_a_module():
    cfg = load_config("default")
    plain, _ = accelerator_pipeline(cfg)
    assert plain[0].startswith("--affine-loop-tile=cache-size=")
    flags, _ = accelerator_pipeline(cfg, workloads.get(GEMM).module())
    assert flags[0].startswith("--affine-loop-tile=tile-sizes=")
    assert flags[1:2] != plain[1:2] or flags[1] == plain[1]  # copy pass keeps its other options
    assert flags[2] == plain[2]


def test_nests_outside_the_model_keep_the_cache_model():
    cfg = load_config("default")
    mod = workloads.get("2mm").module()           # two bands
    assert choose_tile_sizes(mod, cfg) is None
    assert accelerator_pipeline(cfg, mod)[0] == accelerator_pipeline(cfg)[0]


def test_conv2d_band_keeps_short_filter_loops_whole():
    """7 loops, of which 4 are longer than MIN_TILE: only those are searched."""
    cfg = load_config("default")
    spec = "conv2d"
    choice = choose_tile_sizes(workloads.get(spec).module(), cfg)
    assert choice is not None and len(choice.sizes) == 7
    assert choice.sizes[0] == 1 and choice.sizes[-2:] == (3, 3)
    cache = estimate(compiled(spec, pipeline_flags(cfg, None)), cfg).cycles
    assert estimate(compiled(spec, choice.flags(cfg)), cfg).cycles == choice.estimated_cycles < cache
