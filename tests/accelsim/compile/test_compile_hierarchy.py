"""The accelerator pipeline for a memory hierarchy: `compile_for_accelerator` on a config with
more than two levels tiles, copies and pipelines every level (tile sizes per level from the
search where its model applies, else the cache model per level), and the compiled program
runs bit-identical to the original on the host backend, every level within its capacity."""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from accelsim import load_config
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.band import band_of
from accelsim.compile.level_views import level_view, tile_band
from accelsim.compile.pipeline import AcceleratorPipeline, InnerLevel
from accelsim.compile.tile_search import search_levels
from accelsim.errors import ConfigError
from compiler.backend import run_host
from compiler.ir.entry import entry_function
from compiler.transforms.data_copy.fast_memory import peak_live_bytes
from tests.compiler.transforms.test_pipeline_workloads import SPECS

FOUR = """
name = "four"
[[memory]]
name = "dram"
space = 0
[[memory]]
name = "glb"
space = 1
parent = "dram"
capacity_kib = 8
[[memory]]
name = "spad"
space = 2
parent = "glb"
capacity_kib = 2
[[memory]]
name = "acc"
space = 3
parent = "spad"
capacity_kib = 1
[spaces]
tag = 4
"""


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    p = tmp_path_factory.mktemp("cfg") / "four.toml"
    p.write_text(FOUR)
    return load_config(str(p))


def small_three_level():
    return load_config("three_level").with_overrides({"memory.glb.capacity_kib": 4,
                                                      "memory.spad.capacity_kib": 1})


def assert_compiles_bit_identical(cfg, name: str) -> AcceleratorPipeline:
    w = workloads.get(f"{name}:{SPECS[name]}")
    inputs = w.random_inputs(seed=5)
    want = run_host(w.module(), inputs, w.func_name)
    m = w.module()
    pipe, _ = compile_for_accelerator(cfg, m)
    assert len(pipe.inner) == len(cfg.memory_chain()) - 2
    for lv in cfg.memory_chain()[1:]:
        assert peak_live_bytes(m, lv.space) <= lv.capacity_bytes, f"{name}: {lv.name} over capacity"
    got = run_host(m, inputs, w.func_name)
    for arg, arr in want.items():
        np.testing.assert_array_equal(got[arg], arr, err_msg=f"{name} on {cfg.name}: {arg}")
    return pipe


_SLOW_THREE_LEVEL = {"jacobi-2d", "mvt", "2mm"}  # a minute or more each; `-m slow` runs them


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW_THREE_LEVEL
                                  else n for n in sorted(SPECS)])
def test_three_level_every_workload(name: str) -> None:
    assert_compiles_bit_identical(small_three_level(), name)


@pytest.mark.parametrize("name", ["gemm", "batched_gemm", "conv2d", "jacobi-2d", "2mm", "softmax"])
def test_four_level_chain(four, name: str) -> None:
    assert_compiles_bit_identical(four, name)


def test_two_level_configs_get_the_two_level_pipeline() -> None:
    for preset in ("default", "edge", "server"):
        pipe = AcceleratorPipeline.for_config(load_config(preset))
        assert pipe.inner == ()
        assert not any("level-only" in f or "inner-" in f for f in pipe.flags())


def test_hierarchy_pipeline_flags_per_level() -> None:
    cfg = load_config("three_level")
    pipe = AcceleratorPipeline.for_config(cfg, stages=2)
    glb, spad = cfg.memory_chain()[1:]
    assert (pipe.fast_space, pipe.slow_space, pipe.pipeline_capacity_kib) == (glb.space, 0, glb.capacity_kib)
    (lv,) = pipe.inner
    assert (lv.fast_space, lv.slow_space, lv.pipeline_capacity_kib) == (spad.space, glb.space,
                                                                        spad.capacity_kib)
    # the capacity rule per level: copies get 1/stages of the level, tiles half of that
    assert pipe.copy_capacity_kib == glb.capacity_kib // 2 and lv.copy_capacity_kib == spad.capacity_kib // 2
    assert lv.tile_cache_kib == spad.capacity_kib // 4
    flags = pipe.flags()
    # copy forwarding, the start hoist and copy streaming run on a two-level chain only
    assert flags[0] == "--affine-sibling-fusion" and flags[-2:] == [
        "--affine-scalar-replace", "--affine-dma-wait-sink"]
    assert not any(f.startswith(("--affine-copy-forward", "--affine-dma-forward", "--affine-dma-start-hoist",
                                 "--affine-copy-stream")) for f in flags)
    assert flags[1] == f"--affine-loop-tile=cache-size={glb.capacity_kib // 4} " \
                       f"inner-cache-sizes={spad.capacity_kib // 4}"
    assert sum(f.startswith("--affine-data-copy-generate") for f in flags) == 2
    assert [f for f in flags if f.startswith("--affine-pipeline")] == [
        f"--affine-pipeline-data-transfer=level-only fast-mem-space=1 fast-mem-capacity={glb.capacity_kib}",
        "--affine-pipeline-data-transfer=cross-tile-prefetch=false level-only fast-mem-space=2 "
        f"fast-mem-capacity={spad.capacity_kib}"]


def test_search_sizes_partition_the_level_above_and_fit() -> None:
    cfg = load_config("three_level")
    m = workloads.get("gemm:M=512,N=512,K=512").module()
    found = search_levels(m, cfg)
    assert found is not None and found.choice is not None and found.compiled is not None
    pipe = found.pipeline
    (lv,) = pipe.inner
    assert pipe.tile_sizes is not None and lv.tile_sizes is not None
    assert all(b <= a for a, b in zip(pipe.tile_sizes, lv.tile_sizes, strict=True))
    band = band_of(entry_function(m, None, ValueError))
    assert band is not None
    glb, spad = cfg.memory_chain()[1:]
    assert pipe.stages * band.footprint(pipe.tile_sizes) <= glb.capacity_bytes
    inner = tile_band(band, pipe.tile_sizes)
    assert lv.stages * inner.footprint(lv.tile_sizes) <= spad.capacity_bytes
    # the compiled choice keeps every level within its capacity
    for level in (glb, spad):
        assert peak_live_bytes(found.compiled, level.space) <= level.capacity_bytes


def test_level_views_give_each_link_its_levels() -> None:
    cfg = load_config("three_level")
    dram, glb, spad = cfg.memory_chain()
    v1, v2 = level_view(cfg, 1), level_view(cfg, 2)
    assert (v1.spaces.dram, v1.spaces.sram, v1.sram.capacity_kib) == (dram.space, glb.space, glb.capacity_kib)
    assert v1.dram == cfg.dram and v1.dma.engines == cfg.links()[0].engines
    assert (v2.spaces.dram, v2.spaces.sram) == (glb.space, spad.space)
    assert v2.sram.capacity_kib == spad.capacity_kib
    assert v2.dram.bandwidth_bytes_per_cycle == glb.read_bytes_per_cycle and v2.dram.channels == glb.ports
    assert v2.dma.setup_cycles == cfg.links()[1].setup_cycles


def test_tile_band_is_the_tile() -> None:
    m = workloads.get("gemm:M=100,N=60,K=40").module()
    band = band_of(entry_function(m, None, ValueError))
    assert band is not None
    t = tile_band(band, (32, 16, 64))
    assert t.trips == (32, 16, 40)
    assert t.footprint(t.trips) == band.footprint((32, 16, 64))
    assert sorted(r.shape for r in t.refs) == sorted([(32, 40), (40, 16), (32, 16)])


def test_spaces_must_grow_inwards() -> None:
    with pytest.raises(ConfigError, match="spaces must grow"):
        AcceleratorPipeline.for_config(load_config("three_level").with_overrides(
            {"memory.glb.space": 5}))


def test_inner_level_validation() -> None:
    with pytest.raises(ConfigError, match="exactly one of tile_sizes and tile_cache_kib"):
        InnerLevel(2, 1, 4, 8)
    with pytest.raises(ConfigError, match="mix tile_sizes"):
        AcceleratorPipeline.for_config(load_config("three_level")).replace(
            inner=(InnerLevel(2, 1, 4, 8, tile_sizes=(4,)), InnerLevel(3, 2, 4, 8, tile_cache_kib=2)))


# ---- on the simulator, with real data -------------------------------------------------------

SIM_NAMES = ["gemm", "conv2d", "2mm", "softmax", "syrk", "atax", "jacobi-2d", "vector_add"]


def assert_sim_equals_host(cfg, name: str) -> None:
    from accelsim import simulate
    from compiler.transforms.outline_kernels import ensure_outlined

    w = workloads.get(f"{name}:{SPECS[name]}")
    inputs = w.random_inputs(seed=7)
    want = run_host(w.module(), inputs, w.func_name)
    m = w.module()
    compile_for_accelerator(cfg, m)
    ensure_outlined(m)
    sim = simulate(m, cfg, inputs=inputs, func=w.func_name)
    for arg, arr in want.items():
        np.testing.assert_array_equal(sim.outputs[arg], arr, err_msg=f"{name} on {cfg.name}: {arg}")
    for lv in cfg.memory_chain()[1:]:
        assert sim.level_peaks.get(lv.space, 0) <= lv.capacity_bytes


@pytest.mark.parametrize("name", SIM_NAMES)
def test_three_level_sim_equals_original(name: str) -> None:
    assert_sim_equals_host(small_three_level(), name)


@pytest.mark.parametrize("name", ["gemm", "conv2d", "softmax"])
def test_four_level_sim_equals_original(four, name: str) -> None:
    assert_sim_equals_host(four, name)


def test_gemm_three_level_preset_equals_numpy() -> None:
    """The `three_level` preset as shipped (512 KiB glb, 128 KiB spad): gemm compiled with the
    search's tiles per level, simulated with real data, equals numpy."""
    from accelsim import simulate
    from compiler.transforms.outline_kernels import ensure_outlined

    cfg = load_config("three_level")
    w = workloads.get("gemm:M=192,N=160,K=144")
    inputs = w.random_inputs(seed=8)
    m = w.module()
    pipe, _ = compile_for_accelerator(cfg, m)
    assert pipe.inner and pipe.inner[0].tile_sizes is not None
    ensure_outlined(m)
    sim = simulate(m, cfg, inputs=inputs, func=w.func_name)
    ref = w.reference(inputs)
    np.testing.assert_allclose(sim.outputs["C"], ref["C"], rtol=w.rtol, atol=w.atol)
    np.testing.assert_array_equal(sim.outputs["C"], run_host(w.module(), inputs, "gemm")["C"])


@pytest.mark.parametrize("spec", ["gemm:M=200,N=136,K=72", "gemm:M=256,N=256,K=256"])
def test_three_level_preset_no_race_between_levels(spec: str) -> None:
    """A DMA's data is there at its wait: a level-2 copy whose source the level-1 DMA of the
    same loop fills is not prefetched past that wait (gemm 200x136x72: both levels' copies of
    A in one loop), and a level-2 copy-out into a buffer the level-1 copy-out reads is not left
    in flight (gemm 256^3). The simulator's hazard checks would stop either run."""
    from accelsim import simulate
    from compiler.transforms.outline_kernels import ensure_outlined

    cfg = load_config("three_level")
    w = workloads.get(spec)
    inputs = w.random_inputs(seed=9)
    m = w.module()
    compile_for_accelerator(cfg, m)
    ensure_outlined(m)
    sim = simulate(m, cfg, inputs=inputs, func=w.func_name)
    np.testing.assert_array_equal(sim.outputs["C"], run_host(w.module(), inputs, "gemm")["C"])
