"""An explicit mapping as input (issue #30): Timeloop's loop nest -> the tiled program, the
pipeline that copies each tile, and what it computes (real data through the machine)."""

from __future__ import annotations

import numpy as np
import pytest

from accelsim import load_config, simulate
from accelsim.compile.mapping import compile_mapped, compile_tiled, parse_mapping
from accelsim.errors import InputError
from accelsim.estimate.analytic import estimate
from compiler.ir import I8, I32
from workloads.mapped import Layer, build_mapped

GEMM = Layer(dict(N=1, K=768, C=768, P=128, Q=1, R=1, S=1))
ROW = "L3[WIO] K12 - L2[WI] N1 K16X - L1[O] K4 C48 P4 C16X - L0[W] P32"


def test_parse_levels_tiles_and_order():
    m = parse_mapping(ROW)
    assert [lv.name for lv in m.levels] == ["L3", "L2", "L1", "L0"]
    assert [lv.keeps for lv in m.levels] == ["WIO", "WI", "O", "W"]
    assert m.tiles() == {"N": 1, "K": 64, "C": 768, "P": 128, "Q": 1, "R": 1, "S": 1}
    assert m.tile_order() == "K"
    assert m.spatial() == (16, 16)
    m.check(GEMM, 16, 16)


@pytest.mark.parametrize(("text", "words"), [
    ("", "empty"),
    ("L3[WIO] K12", "at least two levels"),
    ("L3[WIO] K12 - L2[WZ] K16X", "keeps 'Z'"),
    ("L3[WIO] K12 - L2[WI] Y16X", "loop 'Y16X'"),
    ("L3[WIO] K12 - L2[WI] K0", "factor must be >= 1"),
    ("L3[WIO] K12X - L2[WI] K16", "spatial loop"),
    ("L3[WIO] K12 - L3[WI] K16", "appears twice"),
])
def test_malformed_mapping_is_a_clear_error(text, words):
    with pytest.raises(InputError, match=words.replace("(", r"\(")):
        parse_mapping(text)


def test_mapping_that_does_not_cover_the_bounds_names_the_dimension():
    m = parse_mapping("L3[WIO] K6 - L2[WI] N1 K16X - L1[O] K4 C48 P4 C16X - L0[W] P32")
    with pytest.raises(InputError, match=r"does not cover the loop bounds.*K: 384 \(bound 768\)"):
        m.check(GEMM)


def test_mapping_wider_than_the_array_is_refused():
    m = parse_mapping("L3[WIO] K6 - L2[WI] N1 K32X - L1[O] K4 C48 P4 C16X - L0[W] P32")
    with pytest.raises(InputError, match=r"does not fit the array: spatial factors 16 .* 32"):
        m.check(GEMM, 16, 16)


def test_mapping_whose_tile_does_not_fit_the_scratchpad_is_refused():
    cfg = load_config("gemmini").with_overrides({"sram.capacity_kib": 64})
    m = parse_mapping("L3[WIO] N1 - L2[WI] N1 K16X - L1[O] K48 C48 P4 C16X - L0[W] P32")
    with pytest.raises(InputError, match=r"does not fit: one tile needs 3,[0-9,]+ bytes on chip .*"
                                         r"holds 65,536"):
        compile_mapped(GEMM, m, cfg)


def test_each_tile_is_copied_once_and_the_partial_sums_stay_on_chip():
    """K12 tiles of 64 columns over a whole reduction: inputs and weights once per tile (the
    inputs reloaded for every tile, as Gemmini's software does), the output tile written back
    once and never re-read."""
    cfg = load_config("gemmini")
    module, pipe = compile_mapped(GEMM, parse_mapping(ROW), cfg, dtype=I8)
    assert any("copy-depth=2" in f and "hoist-read-copies=false" in f for f in pipe.flags())
    est = estimate(module, cfg)
    moved = 128 * 768 * 12 + 768 * 768 + 2 * 128 * 768  # int8: inputs x12, weights, output in+out
    assert est.dram_bytes == moved
    assert est.kernel_calls == 12 * 768 // 64  # a tile in one-request chunks of 64 int8 channels


@pytest.mark.parametrize("order", ["NPQKRSC", "CKPQNRS"])
def test_mapped_conv_on_real_data_equals_numpy(order):
    """A convolution tiled over its reduction (input channel and kernel row tiles), run with
    data through the event machine: the accumulator tile kept across the reduction tiles (or,
    with the reduction outermost, written back and re-read) gives numpy's result exactly
    (int32: no rounding)."""
    layer = Layer(dict(N=1, K=24, C=20, P=6, Q=5, R=3, S=2), stride=2)
    tiles = {"K": 16, "C": 8, "P": 4, "Q": 5, "R": 2, "S": 2, "N": 1}
    cfg = load_config("gemmini")
    module, _ = compile_tiled(cfg, layer, tiles, order, "nhwc", I32)
    rng = np.random.default_rng(7)
    h, w = layer.input_extent("P", "R"), layer.input_extent("Q", "S")
    x = rng.integers(-8, 8, (1, h, w, 20), dtype=np.int32)
    wt = rng.integers(-8, 8, (3, 2, 20, 24), dtype=np.int32)
    out0 = rng.integers(-8, 8, (1, 6, 5, 24), dtype=np.int32)
    sim = simulate(module, cfg, inputs={"input": x, "weights": wt, "output": out0})
    ref = out0.copy()
    for r in range(3):
        for s in range(2):
            win = x[:, r:r + 2 * 6 - 1:2, s:s + 2 * 5 - 1:2, :]
            ref += np.einsum("nhwc,ck->nhwk", win, wt[r, s])
    np.testing.assert_array_equal(sim.outputs["output"], ref)
    assert estimate(module, cfg).cycles == sim.cycles


@pytest.mark.parametrize(("order", "tiles"), [
    ("KPQ", {"K": 16, "C": 16, "P": 4, "Q": 5, "R": 3, "S": 2}),   # whole reduction per tile
    ("NPQKRSC", {"K": 16, "C": 8, "P": 4, "Q": 5, "R": 2, "S": 2}),  # reduction tiles
    ("CKPQNRS", {"K": 16, "C": 8, "P": 4, "Q": 5, "R": 2, "S": 2}),  # reduction outermost
])
def test_layer_alone_starts_its_partial_sums_on_chip(order, tiles):
    """`accumulate=False` (the output starts at zero, a DNN layer as Gemmini runs it): the
    convolution's result on the event machine with data, the analytic estimate agreeing.
    Where a tile holds an output's whole reduction the nest writes the zero itself, so the
    output is never copied in (whatever it held, the result is the layer alone) and the DRAM
    traffic is the accumulate program's less one output; with the reduction split over
    tiles the partial sums are read back as before (same traffic)."""
    layer = Layer(dict(N=1, K=24, C=16, P=6, Q=5, R=3, S=2), stride=2)
    cfg = load_config("gemmini")
    tiles = {**tiles, "N": 1}
    module, _ = compile_tiled(cfg, layer, tiles, order, "nhwc", I32, accumulate=False)
    rng = np.random.default_rng(7)
    h, w = layer.input_extent("P", "R"), layer.input_extent("Q", "S")
    x = rng.integers(-8, 8, (1, h, w, 16), dtype=np.int32)
    wt = rng.integers(-8, 8, (3, 2, 16, 24), dtype=np.int32)
    whole = tiles["C"] == 16 and tiles["R"] == 3
    start = rng.integers(-8, 8, (1, 6, 5, 24), dtype=np.int32) if whole else \
        np.zeros((1, 6, 5, 24), np.int32)
    sim = simulate(module, cfg, inputs={"input": x, "weights": wt, "output": start})
    ref = np.zeros((1, 6, 5, 24), np.int32)
    for r in range(3):
        for s in range(2):
            win = x[:, r:r + 2 * 6 - 1:2, s:s + 2 * 5 - 1:2, :]
            ref += np.einsum("nhwc,ck->nhwk", win, wt[r, s])
    np.testing.assert_array_equal(sim.outputs["output"], ref)
    est = estimate(module, cfg)
    assert est.cycles == sim.cycles
    acc, _ = compile_tiled(cfg, layer, tiles, order, "nhwc", I32)
    fewer = estimate(acc, cfg).dram_bytes - est.dram_bytes
    # every output pixel's copy-in, once: its K tiles of 16 and 8 int32 (64 and 32 bytes),
    # each one 64-byte request
    assert fewer == (6 * 5 * 2 * 64 if whole else 0)


def test_layer_alone_needs_the_outputs_outside_the_reduction():
    with pytest.raises(ValueError, match="output loops"):
        build_mapped(Layer(dict(N=1, K=4, C=4, P=2, Q=2, R=1, S=1)), {}, intra_order="NPCQKRS",
                     accumulate=False)


def test_gemm_layout_is_the_gemm_workload():
    """`layout="gemm"` builds the `gemm` workload's own arguments, so `--check` compares it."""
    layer = Layer(dict(N=1, K=48, C=40, P=32, Q=1, R=1, S=1))
    cfg = load_config("gemmini")
    module, _ = compile_tiled(cfg, layer, {"P": 16, "K": 32, "C": 16}, "PKC", "gemm", I32)
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 5, (32, 40), dtype=np.int32)
    b = rng.integers(-5, 5, (40, 48), dtype=np.int32)
    c = np.zeros((32, 48), np.int32)
    sim = simulate(module, cfg, inputs={"A": a, "B": b, "C": c})
    np.testing.assert_array_equal(sim.outputs["C"], a @ b)


def test_empty_chunk_of_a_last_channel_tile_moves_nothing():
    """A channel tile that does not divide the layer (24 of 36) and chunks of one request (16
    int32 channels): the last tile's second chunk starts past the layer's channels. The copy
    pass emits no transfer for it (the zero-count rule), so the event machine runs the program
    with data (it refused the negative element count before) and the estimate agrees."""
    layer = Layer(dict(N=1, K=16, C=36, P=4, Q=3, R=2, S=2))
    tiles = {"N": 1, "K": 16, "C": 24, "P": 4, "Q": 3, "R": 2, "S": 2}
    cfg = load_config("gemmini")
    module, _ = compile_tiled(cfg, layer, tiles, "NPQKRSC", "nhwc", I32)
    rng = np.random.default_rng(3)
    x = rng.integers(-8, 8, (1, 5, 4, 36), dtype=np.int32)
    wt = rng.integers(-8, 8, (2, 2, 36, 16), dtype=np.int32)
    out0 = np.zeros((1, 4, 3, 16), np.int32)
    sim = simulate(module, cfg, inputs={"input": x, "weights": wt, "output": out0})
    ref = out0.copy()
    for r in range(2):
        for s in range(2):
            ref += np.einsum("nhwc,ck->nhwk", x[:, r:r + 4, s:s + 3, :], wt[r, s])
    np.testing.assert_array_equal(sim.outputs["output"], ref)
    assert estimate(module, cfg).cycles == sim.cycles


@pytest.mark.parametrize("max_rows", [1, 3, 16])
def test_descriptors_of_at_most_max_rows_compute_the_same(max_rows):
    """`dma.max_rows` (Gemmini's mvin of at most DIM rows): the copy pass cuts every copy
    into DMAs of at most that many rows (`max-dma-rows`), a whole-row form under an
    affine.if where a partial tile clips the rows. The program computes numpy's result on
    the event machine, the estimate agrees, and fewer rows per descriptor take more
    descriptors."""
    layer = Layer(dict(N=1, K=24, C=20, P=6, Q=5, R=3, S=2), stride=2)
    tiles = {"K": 16, "C": 8, "P": 4, "Q": 5, "R": 2, "S": 2, "N": 1}
    ops = {}
    for rows in (max_rows, 32):
        cfg = load_config("gemmini").with_overrides({"dma.max_rows": rows})
        module, pipe = compile_tiled(cfg, layer, tiles, "NPQKRSC", "nhwc", I32)
        assert f"max-dma-rows={rows}" in " ".join(opt for _, opt in pipe.steps())
        rng = np.random.default_rng(7)
        x = rng.integers(-8, 8, (1, 13, 10, 20), dtype=np.int32)
        wt = rng.integers(-8, 8, (3, 2, 20, 24), dtype=np.int32)
        out0 = rng.integers(-8, 8, (1, 6, 5, 24), dtype=np.int32)
        sim = simulate(module, cfg, inputs={"input": x, "weights": wt, "output": out0})
        ref = out0.copy()
        for r in range(3):
            for s in range(2):
                ref += np.einsum("nhwc,ck->nhwk", x[:, r:r + 11:2, s:s + 9:2, :], wt[r, s])
        np.testing.assert_array_equal(sim.outputs["output"], ref)
        assert estimate(module, cfg).cycles == sim.cycles
        ops[rows] = sim.stats.dma_ops
    assert ops[max_rows] > ops[32]
