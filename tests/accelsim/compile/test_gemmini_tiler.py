"""Gemmini's tiler (gemmini-rocc-tests include/gemmini.h `tiled_matmul_auto`,
`tiled_conv_auto`) as a tiling policy: the tiles it picks for layers of the DOSA / FireSim
development rows, compared with the tiling the study recorded for Gemmini's auto-tiled run
(`dse.auto_tiling`; the port reproduces all 148 development rows)."""

from __future__ import annotations

import pytest

from accelsim.compile.gemmini_tiler import (
    CONV_ORDER,
    MATMUL_ORDER,
    auto_tiling_text,
    conv_rows,
    gemmini_tiles,
)
from workloads.mapped import Layer


def layer(C, K, P, Q=None, R=1, stride=1, N=1):
    Q = P if Q is None else Q
    return Layer(dict(N=N, C=C, K=K, P=P, Q=Q, R=R, S=R), stride)


CASES = [  # (layer, recorded dse.auto_tiling)
    (layer(768, 768, 128, 1), "1_1_80_1_768_80_1"),      # BERT projection: tile_I 5, J 5, K 48
    (layer(64, 128, 128, 1), "1_1_80_1_64_96_1"),        # J grows to 6 while the accumulator fits
    (layer(3072, 768, 128, 1), "1_1_80_1_816_80_1"),     # tile_K at its cap, 51 blocks
    (layer(2048, 1000, 1, 1), "1_1_16_1_896_128_1"),     # ResNet FC: K grows to 56 blocks
    (layer(128, 128, 28, R=3), "3_3_23_22_128_16_1"),    # output rows / cols shrink first
    (layer(256, 512, 28, stride=2), "1_1_23_22_64_16_1"),  # stride 2: input rows double
    (layer(1, 64, 570, R=3), "3_3_23_22_1_16_1"),        # a one-channel image
    (layer(64, 2, 388), "1_1_23_22_64_2_1"),             # two output channels
    (layer(3, 64, 112, R=7, stride=2), "7_7_23_22_3_16_1"),  # ResNet conv1 (7x7, stride 2)
]


@pytest.mark.parametrize(("lay", "recorded"), CASES, ids=[c[1] for c in CASES])
def test_tiler_reproduces_the_recorded_auto_tiling(lay, recorded):
    tiles, order = gemmini_tiles(lay)
    assert auto_tiling_text(lay, tiles) == recorded
    assert order == (MATMUL_ORDER if lay.is_matmul else CONV_ORDER)


def test_conv_tile_fits_half_of_each_memory_and_grows_no_further():
    lay = layer(128, 128, 28, R=3)
    tiles, _ = gemmini_tiles(lay)
    args = [tiles[d] for d in "NPQKRSC"]
    assert conv_rows(False, 1, args) <= 4 * 4096 // 2 and conv_rows(True, 1, args) <= 1024 // 2
    for i in range(7):  # every argument one larger no longer fits (or passes its bound)
        bigger = list(args)
        bigger[i] += 1
        top = [lay.dims[d] for d in "NPQKRSC"][i]
        assert bigger[i] > top or conv_rows(False, 1, bigger) > 8192 or conv_rows(True, 1, bigger) > 512


def test_smaller_memories_give_smaller_tiles():
    lay = layer(256, 256, 56, R=3)
    big, _ = gemmini_tiles(lay)
    small, _ = gemmini_tiles(lay, spad_rows=4096, acc_rows=256)
    assert small["P"] * small["Q"] * small["K"] * small["C"] < big["P"] * big["Q"] * big["K"] * big["C"]
