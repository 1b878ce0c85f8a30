"""A peer's test suite: ONNXim's Gemmini RTL reference counts (issue #30).

PSAL-POSTECH/ONNXim `tests/operatons/GemmWSTest.cc` and `tests/operatons/ConvWSTest.cc`
(commit a1e8629) hold 24 GEMM and convolution layers (ResNet-18, BERT, GPT) on an 8x8
weight-stationary Gemmini with ideal memory, each with the cycle count Gemmini's RTL took
to compute it (`cycle_type GT = ...`). Each case here runs a full simulation of the program
Gemmini's software runs for the layer, on an 8x8 ws array with ideal memory, and must come
within 2% of the RTL count; 21 do, the three in `OUTSIDE` are 2.2-4.8% under it (xfail,
asserted within their bound; bench/RESULTS.md says why).

The program: Gemmini's tiles, as gemmini-rocc-tests `include/gemmini.h` chooses them
(`tiled_matmul_auto`, `tiled_conv_auto`) for an 8x8 array with a 64 KiB scratchpad and a
16 KiB accumulator (ONNXim's test configs: `spad_size = 64`, `accum_spad_size = 16`). Those
tiles are the `[I]` mappings of ONNXim's files, up to two differences noted per case: ONNXim
spreads a GEMM's reduction over equal tiles (`C342`) where Gemmini's tiler takes full tiles
of 51 blocks and a remainder (the same blocks of 8, the same count), and one convolution's
mapping (layer2.0.conv2) names output rows and columns the other way round from Gemmini's
tiler. The tile loops run in Gemmini's order (gemm i, j, k; conv b, orow, ocol, och, krow,
kcol, kch) and each tile is one kernel call; inside a convolution tile the loops are Gemmini's
(`LoopConvExecute`): input channels innermost of the reduction (the array's rows hold one
kernel position's channels), output columns innermost of the stream (one compute instruction
per block of at most 8 output columns of one output row), NHWC as Gemmini stores it.

What the RTL counts, and our model of it (docs/dataflows.md, accelsim/cost/systolic.py): the
array preloads a fold's weights (8 cycles) during the previous fold's last block
(double-buffered weights: Gemmini `ExecuteController.scala`, a compute overlapped with the
next preload feeds `block_size` rows), streams a fold's rows in blocks of at most 8, each at
least 4 cycles (`total_rows := maxOf(rows_a, rows_b, 4)`: two writes to one accumulator row
4 cycles apart), and pays one fill, skew and drain (2R + C - 2) per call. Padding: the
convolution reads a pre-padded input (Gemmini's zero rows cost the array the same cycles).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from accelsim import load_config, simulate
from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.estimate.analytic import estimate
from accelsim.report import Report
from compiler.ir import F32, Builder, ModuleOp, memref
from compiler.ir.ops import AffineForOp
from compiler.transforms.outline_kernels import outline_nest
from compiler.transforms.registry import PassManager
from workloads.gemm import build_gemm

DIM = 8
TOLERANCE = 0.02


def gemmini_ideal8():
    """An 8x8 weight-stationary array with Gemmini's 4-cycle block floor, fed without im2col
    (one kernel position's channels on the rows), on the `ideal` machine: every operand in an
    SRAM that never bounds a kernel, no DMA, no issue cost, so a run's cycles are its kernel
    calls' (the RTL's count is compute only)."""
    return load_config("ideal").with_overrides({
        "compute.rows": DIM, "compute.cols": DIM, "compute.dataflow": "ws",
        "compute.min_block_cycles": 4, "compute.array_convention": "accelsim",
        "compute.array_mapping": "innermost"})


@dataclass(frozen=True)
class Gemm:
    """ONNXim's GEMM: input (n x c), weights (c x m): our gemm M = n, K = c, N = m."""

    name: str
    n: int
    c: int
    m: int
    tiles: tuple[int, int, int]  # Gemmini's tile_I, tile_J, tile_K in blocks of DIM
    rtl: int
    line: int                    # of `cycle_type GT` in GemmWSTest.cc


@dataclass(frozen=True)
class Conv:
    """ONNXim's convolution (NHWC, weights M x C x S x R, square kernel and image)."""

    name: str
    c: int
    m: int
    k: int
    stride: int
    pad: int
    h: int                       # input rows and columns, unpadded
    tiles: tuple[int, int, int, int]  # Gemmini's orows, ocols, ochs, kchs
    rtl: int
    line: int                    # of `cycle_type GT` in ConvWSTest.cc


# tests/operatons/GemmWSTest.cc: dimensions from `uint32_t n = ..., c = ..., m = ...`, the RTL
# count from `cycle_type GT`; tiles from tiled_matmul_auto (the file's `[I]` mapping in blocks
# of 8: N1 C448 M64 -> (1, 8, 56); N64 C448 M2 -> (8, 1, 56); N40 C256|C342|C373|C384 M40 ->
# (5, 5, 51), Gemmini's full tiles of 51 reduction blocks)
GEMMS = [
    Gemm("resnet18_fc_1x512x1000", 1, 512, 1000, (1, 8, 56), 66360, 90),
    Gemm("resnet50_fc_1x2048x1000", 1, 2048, 1000, (1, 8, 56), 270431, 115),
    Gemm("bert_512x512x1024", 512, 512, 1024, (5, 5, 51), 4227300, 138),
    Gemm("bert_512x1024x2", 512, 1024, 2, (8, 1, 56), 67553, 161),
    Gemm("bert_512x1024x512", 512, 1024, 512, (5, 5, 51), 4228207, 184),
    Gemm("bert_512x1024x1024", 512, 1024, 1024, (5, 5, 51), 8458619, 207),
    Gemm("bert_512x1024x3072", 512, 1024, 3072, (5, 5, 51), 25390266, 230),
    Gemm("bert_512x1024x4096", 512, 1024, 4096, (5, 5, 51), 33912072, 253),
    Gemm("bert_512x4096x1024", 512, 4096, 1024, (5, 5, 51), 33912533, 276),
    Gemm("gpt_512x512x768", 512, 512, 768, (5, 5, 51), 3171978, 299),
    Gemm("gpt_512x768x512", 512, 768, 512, (5, 5, 51), 3170315, 322),
    Gemm("gpt_512x768x768", 512, 768, 768, (5, 5, 51), 4756894, 345),
    Gemm("gpt_512x768x2304", 512, 768, 2304, (5, 5, 51), 14266861, 369),
]

# tests/operatons/ConvWSTest.cc: `convInfo` (kernel_shape, strides, pads, input_shape,
# weight_shape) and `cycle_type GT`; tiles from tiled_conv_auto = the file's `[I]` mapping
# (P = orows, Q = ocols, M = ochs, C = kchs), but for layer2.0.conv2, whose mapping says
# P17 Q14 where Gemmini's tiler takes orows 15, ocols 17 (the RTL count is within 0.1% of
# the tiler's tiles and 13% off the mapping's: 28 columns as 17 + 11 cost 32 cycles a row)
CONVS = [
    Conv("resnet18_conv1", 3, 64, 7, 2, 3, 224, (15, 17, 8, 3), 5887961, 105),
    Conv("resnet18_layer1.0.conv1", 64, 64, 3, 1, 1, 56, (15, 17, 8, 64), 2133641, 141),
    Conv("resnet18_layer2.0.conv1", 64, 128, 3, 2, 1, 56, (15, 17, 8, 24), 1052613, 177),
    Conv("resnet18_layer2.0.downsample", 64, 128, 1, 2, 0, 56, (15, 17, 8, 64), 118304, 212),
    Conv("resnet18_layer2.0.conv2", 128, 128, 3, 1, 1, 28, (15, 17, 8, 80), 2103568, 248),
    Conv("resnet18_layer3.0.conv1", 128, 256, 3, 2, 1, 28, (14, 14, 8, 32), 914287, 284),
    Conv("resnet18_layer3.0.conv2", 256, 256, 3, 1, 1, 14, (14, 14, 8, 96), 1828936, 319),
    Conv("resnet18_layer3.0.downsample", 128, 256, 1, 2, 0, 28, (14, 14, 8, 128), 101763, 354),
    Conv("resnet18_layer4.0.conv1", 256, 512, 3, 2, 1, 14, (7, 7, 40, 51), 1040621, 389),
    Conv("resnet18_layer4.0.downsample", 256, 512, 1, 2, 0, 14, (7, 7, 40, 256), 102703, 424),
    Conv("resnet18_layer4.0.conv2", 512, 512, 3, 1, 1, 7, (7, 7, 40, 73), 2051216, 459),
]

# Outside 2%: the three GEMMs whose weights are used by one row block each (n = 1) or whose
# array has 2 of 8 columns busy (m = 2), where the RTL spends 2.2-4.8% more than the array
# can (bench/RESULTS.md: per tile ~60-160 cycles beyond our fill and drain, not in the array)
OUTSIDE = {"resnet18_fc_1x512x1000": 0.03, "resnet50_fc_1x2048x1000": 0.05,
           "bert_512x1024x2": 0.025}


def build_conv_tiled(c: int, m: int, k: int, stride: int, hp: int,
                     tiles: tuple[int, int, int, int]) -> ModuleOp:
    """out[0,p,q,o] += in[0, p*stride+r, q*stride+s, ch] * w[r,s,ch,o] over a pre-padded
    `hp` x `hp` NHWC input as Gemmini's `tiled_conv` runs it: tile loops (orow, ocol, och,
    kch tiles of `tiles`), in each tile Gemmini's loops (b, orow, ocol, och, krow, kcol, kch),
    outlined one kernel per tile. Written tiled here: `affine-loop-tile` keeps a reduction's
    order, and Gemmini's runs the channel tiles outside the kernel positions."""
    orows, ocols, ochs, kchs = tiles
    e = (hp - k) // stride + 1
    b = Builder()
    with b.func("conv_nhwc", input=memref((1, hp, hp, c), F32), weights=memref((k, k, c, m), F32),
                output=memref((1, e, e, m), F32)) as (inp, w, out):
        for pt in b.range(0, e, orows):
            for qt in b.range(0, e, ocols):
                for ot in b.range(0, m, ochs):
                    for ct in b.range(0, c, kchs):
                        for n in b.range(1):
                            for p in b.range(pt, [pt + orows, e]):
                                for q in b.range(qt, [qt + ocols, e]):
                                    for o in b.range(ot, [ot + ochs, m]):
                                        for r in b.range(k):
                                            for s in b.range(k):
                                                for ch in b.range(ct, [ct + kchs, c]):
                                                    x = inp[n, p * stride + r, q * stride + s, ch]
                                                    out[n, p, q, o] = out[n, p, q, o] + x * w[r, s, ch, o]
    module = b.module
    func = module.funcs[0]
    intra = next(op for op in func.body.ops if isinstance(op, AffineForOp))
    for _ in range(4):
        intra = next(op for op in intra.body.ops if isinstance(op, AffineForOp))
    outline_nest(module, func, intra)
    return module


def simulate_tiled(module: ModuleOp, tiles: tuple[int, ...]) -> tuple[int, Report]:
    """Tile `module` with `tiles` (no copies: every operand is in the ideal SRAM), one kernel
    call per tile, and simulate it on the 8x8 machine: (cycles, report)."""
    return _simulate(module, tiles, gemmini_ideal8())


def _simulate(module: ModuleOp, tiles: tuple[int, ...], cfg) -> tuple[int, Report]:
    pipe = AcceleratorPipeline.for_config(cfg).with_tiles(tiles).replace(copies=False)
    PassManager(pipe.passes()).run(module)
    module = _outlined_per_tile(module)
    sim = simulate(module, cfg, functional=False)
    assert estimate(module, cfg).cycles == sim.cycles  # the analytic fidelity agrees
    return sim.cycles, Report.from_result(sim)


def _outlined_per_tile(module: ModuleOp) -> ModuleOp:
    func = module.funcs[0]
    intra = next(op for op in func.body.ops if isinstance(op, AffineForOp))
    while not intra.lower_operands:  # down the tile loops (an intra-tile loop starts at its tile's)
        intra = next(op for op in intra.body.ops if isinstance(op, AffineForOp))
    outline_nest(module, func, intra)  # the intra-tile loops: one kernel call per tile
    return module


def _check(name: str, ours: int, rtl: int) -> None:
    err = (ours - rtl) / rtl
    bound = OUTSIDE.get(name, TOLERANCE)
    assert abs(err) <= bound, f"{name}: ours {ours}, RTL {rtl}, error {err:+.2%}"
    if name in OUTSIDE:
        pytest.xfail(f"{name}: ours {ours}, RTL {rtl}, error {err:+.2%} (outside 2%, "
                     "bench/RESULTS.md)")


@pytest.mark.parametrize("case", GEMMS, ids=lambda g: g.name)
def test_gemm_within_2_percent_of_gemmini_rtl(case: Gemm):
    ti, tj, tk = case.tiles
    cycles, rep = simulate_tiled(build_gemm(case.n, case.m, case.c), (ti * DIM, tj * DIM, tk * DIM))
    calls = (-(-case.n // (ti * DIM))) * (-(-case.m // (tj * DIM))) * (-(-case.c // (tk * DIM)))
    assert rep.kernel_calls == calls and rep.dma_ops == 0
    _check(case.name, cycles, case.rtl)


@pytest.mark.parametrize("case", CONVS, ids=lambda c: c.name)
def test_conv_within_2_percent_of_gemmini_rtl(case: Conv):
    orows, ocols, ochs, kchs = case.tiles
    hp = case.h + 2 * case.pad
    e = (hp - case.k) // case.stride + 1
    module = build_conv_tiled(case.c, case.m, case.k, case.stride, hp, case.tiles)
    sim = simulate(module, gemmini_ideal8(), functional=False)
    assert estimate(module, gemmini_ideal8()).cycles == sim.cycles  # the analytic fidelity agrees
    cycles, rep = sim.cycles, Report.from_result(sim)
    calls = 1
    for extent, t in ((e, orows), (e, ocols), (case.m, ochs), (case.c, kchs)):
        calls *= -(-extent // t)
    assert rep.kernel_calls == calls and rep.dma_ops == 0
    _check(case.name, cycles, case.rtl)


def test_scalesim_convention_misses_what_the_rtl_shows():
    """SCALE-Sim's ws folds (fill, stream, drain per fold, none overlapped) on the same
    program: off by far more than 2% where folds are short (the resnet FC layer: 8,000 folds
    of one row, 23 cycles each against the RTL's ~8)."""
    case = GEMMS[0]
    ti, tj, tk = case.tiles
    cfg = gemmini_ideal8().with_overrides({"compute.array_convention": "scalesim-v3"})
    theirs, _ = _simulate(build_gemm(case.n, case.m, case.c), (ti * DIM, tj * DIM, tk * DIM), cfg)
    assert theirs == 8000 * (2 * DIM + DIM + 1 - 2)  # 64 x 125 folds of 2R + C + M - 2
    assert theirs > 2.5 * case.rtl
