"""The `gemmini` preset's decoupled load and execute paths (issue #30): Gemmini's load,
execute and store unrollers issue on their own (LoopConv.scala), so on a compute-bound layer
the DMA of the next chunk hides behind the array and the RTL runs at the array's rate (the
development row C256 K256 P14 R3 on the 8128-row scratchpad: RTL 474,694 cycles, 0.95 of the
peak; the preset 477,200 at its fitted round trip). Our control path issues in program order:
with a short DMA queue the next chunk's mvins filled it and held back the next kernel call
(+25% on that row)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import validate_gemmini as V  # noqa: E402

from accelsim.estimate.analytic import estimate  # noqa: E402
from workloads.mapped import Layer  # noqa: E402

MAPPING = "L3[WIO] K16 - L2[WI] N1 K16X - L1[O] S3 R3 C16 P14 C16X - L0[W] Q14"
LAYER = Layer({"N": 1, "K": 256, "C": 256, "P": 14, "Q": 14, "R": 3, "S": 3}, 1)
FREE = {"dram.latency_cycles": 0, "dram.bandwidth_bytes_per_cycle": 4096, "dma.setup_cycles": 0}


def cycles(overrides: dict[str, int]) -> int:
    base = V.load_config("gemmini").with_overrides(overrides)
    cfg = V.row_config(base, 8128 * 16, 512 * 16 * 4)
    module, _ = V.compile_mapped(LAYER, V.parse_mapping(MAPPING), cfg, "nhwc", V.I8,
                                 V.gemmini_order(LAYER), accumulate=V.ACCUMULATE)
    return estimate(module, cfg).cycles


def test_compute_bound_layer_hides_its_dma_behind_the_array():
    free = cycles(FREE)                      # memory that costs nothing: the array alone
    assert cycles({}) <= 1.05 * free         # the preset: the loads hide behind the array
    # the same layer with the control path stalled behind a queue of 16 mvins exposes them
    assert cycles({"dma.queue_depth": 16}) >= 1.15 * free
