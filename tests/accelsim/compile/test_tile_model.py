"""The tile search's model of the compiled program (accelsim/compile/band.py, tile_model.py,
tile_replay.py): it predicts what the passes do and what the analytic estimate then says,
without building the IR."""

import pytest

import workloads
from accelsim import load_config
from accelsim.compile.band import band_of
from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.compile.tile_model import TileModel
from accelsim.compile.tile_replay import replay
from accelsim.compile.tile_search import _candidates, cache_model_sizes
from accelsim.estimate.analytic import estimate
from compiler.ir.ops import AllocOp
from compiler.transforms.registry import PassManager
from compiler.transforms.tiling.tile_sizes import cache_tile_sizes

SEARCHED = ["gemm:M=256,N=256,K=256", "conv2d", "jacobi-2d", "softmax", "vector_add", "saxpy",
            "row_sum", "row_sum_iter", "depthwise_conv2d", "batched_gemm"]


def model_of(spec, preset):
    cfg = load_config(preset)
    band = band_of(workloads.get(spec).module().funcs[0])
    assert band is not None
    return cfg, band, TileModel(band, cfg)


def compiled(spec, pipe):
    mod = workloads.get(spec).module()
    PassManager(pipe.passes()).run(mod)
    return mod


@pytest.mark.parametrize("preset", ["default", "edge"])
@pytest.mark.parametrize("spec", SEARCHED)
def test_cache_model_sizes_are_the_tile_pass_sizes(spec, preset):
    cfg, band, _ = model_of(spec, preset)
    budget = AcceleratorPipeline.for_config(cfg).tile_cache_kib * 1024
    assert cache_model_sizes(band, budget) == cache_tile_sizes(list(band.loops), budget)


# (workload, config, tile sizes, stages, tolerance): 0 = the replay is the analytic estimate
CASES = [
    ("saxpy", "default", (4096,), 3, 0), ("vector_add", "edge", (2048,), 2, 0),
    ("row_sum", "default", (16,), 2, 0), ("softmax", "edge", (8,), 3, 0),
    ("jacobi-2d", "default", (16, 254), 2, 0.005), ("gemm:M=512,N=512,K=512", "edge", (64, 64, 16), 2, 0.001),
    ("gemm:M=256,N=256,K=256", "default", (64, 128, 64), 3, 0.01),
    ("conv2d", "default", (1, 16, 8, 32, 16, 3, 3), 2, 0.02),
]


@pytest.mark.parametrize(("spec", "preset", "sizes", "stages", "tol"), CASES)
def test_replay_predicts_the_estimate_of_the_compiled_tiling(spec, preset, sizes, stages, tol):
    cfg, band, model = model_of(spec, preset)
    base = AcceleratorPipeline.for_config(cfg)
    kib = min(max(1, -(-band.footprint(sizes) // 1024)), base.copy_capacity_kib)
    pl = model.placement(sizes, kib)
    assert pl is not None
    sch = model.schedule(pl, stages, base.pipeline_capacity_kib)
    predicted = replay(model, sch)
    assert model.lower_bound(pl) <= predicted
    actual = estimate(compiled(spec, base.with_tiles(sizes, kib).replace(stages=stages)), cfg).cycles
    assert abs(predicted - actual) <= tol * actual, (predicted, actual)


def test_gemm_placement_and_stages_are_the_passes():
    """C is copied per (i, j) tile and A, B per k tile; the inner loop gets 3 buffers, the
    outer one only 2 (+1 for the accumulator) because 3 do not fit next to them."""
    spec, sizes = "gemm:M=256,N=256,K=256", (64, 128, 64)
    cfg, _, model = model_of(spec, "default")
    pl = model.placement(sizes, 80)
    assert {c.ref.memref.name_hint: c.level for c in pl.copies} == {"C": 1, "A": 2, "B": 2}
    sch = model.schedule(pl, 3, cfg.sram.capacity_kib)
    assert sch.stages == {2: 3, 1: 2}
    mod = compiled(spec, AcceleratorPipeline.for_config(cfg).with_tiles(sizes, 80).replace(stages=3))
    slots = {op.memref_type.shape[0] for op in mod.walk() if isinstance(op, AllocOp)
             and op.memref_type.memory_space == cfg.spaces.sram}
    assert slots == {3}  # A, B: 3 stages; C: 2 stages + its accumulator slot


@pytest.mark.parametrize(("spec", "preset"), [("gemm:M=256,N=256,K=256", "default"), ("conv2d", "edge"),
                                              ("jacobi-2d", "default"), ("softmax", "default")])
def test_bound_never_exceeds_the_replay(spec, preset):
    cfg, band, model = model_of(spec, preset)
    cands = _candidates(band, model, AcceleratorPipeline.for_config(cfg), cfg)
    for c in cands[:: max(1, len(cands) // 25)]:
        assert c.bound <= replay(model, c.schedule)


@pytest.mark.parametrize(("spec", "sizes"), [("maxpool2d", (1, 8, 4, 4)), ("avgpool2d", (1, 16, 4, 4)),
                                             ("row_sum", (16,)), ("gemm:M=256,N=256,K=256", (64, 128, 64))])
def test_the_model_copies_in_what_the_pass_copies_in(spec, sizes):
    """One rule for the dead copy-in (`compiler.analysis.exposed.copy_in_needed`): the model's
    incoming copies are the memrefs the compiled program DMAs in from DRAM (the pools' and
    row_sum's outputs, initialized in place, are not copied in; gemm's C is)."""
    from compiler.ir.ops import AffineDmaStartOp

    cfg, band, model = model_of(spec, "default")
    base = AcceleratorPipeline.for_config(cfg)
    kib = min(max(1, -(-band.footprint(sizes) // 1024)), base.copy_capacity_kib)
    pl = model.placement(sizes, kib)
    assert pl is not None
    predicted = {c.ref.memref.name_hint for c in pl.copies if c.incoming}
    mod = compiled(spec, base.with_tiles(sizes, kib))
    copied_in = {op.src.name_hint for op in mod.walk() if isinstance(op, AffineDmaStartOp)
                 and op.src.type.memory_space == cfg.spaces.dram}
    assert predicted == copied_in
    written = {r.memref.name_hint for r in band.refs if r.written}
    assert (written <= predicted) == spec.startswith("gemm")
