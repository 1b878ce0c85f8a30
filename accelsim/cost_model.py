"""Kernel cycles from exact op counts: ops / unit throughput, bounded below by SRAM bandwidth,
plus fill/drain; direct slow-memory accesses pay the DRAM latency each and are flagged.

- matrix unit, matmul-like nest (a `acc + a*b` reduction at depth >= 3): MACs go to the
  `rows x cols` array; its operands stream once per kernel, so SRAM traffic is the footprint
  (bounding boxes of the accessed elements), not one access per MAC.
- otherwise: every arithmetic op is one lane-op on `lanes` lanes; exp/div/sqrt cost
  `special_op_cycles` lane-slots each; SRAM traffic is one access per load/store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from accelsim.config import HardwareConfig
from compiler.analysis.counting import OpCounts, access_boxes, control_key, count_ops
from compiler.ir.ops import FuncOp
from compiler.ir.types import MemRefType


@dataclass(frozen=True, slots=True)
class KernelCost:
    cycles: int
    compute_cycles: int      # ops / throughput, without fill/drain and memory bounds
    sram_cycles: int         # SRAM-bandwidth lower bound
    dram_direct_cycles: int  # latency charged to direct slow-memory accesses
    counts: OpCounts
    sram_bytes: int
    on_matrix: bool

    @property
    def touches_dram(self) -> bool:
        return self.dram_direct_cycles > 0


class CostModel:
    """Cached per (kernel, index arguments): a tile loop calls the same kernel many times.
    `CostModel.for_config(cfg)` shares one model (and its cache) per hardware config."""

    _shared: dict[HardwareConfig, CostModel] = {}

    @classmethod
    def for_config(cls, config: HardwareConfig) -> CostModel:
        model = cls._shared.get(config)
        if model is None:
            if len(cls._shared) > 16:
                cls._shared.clear()
            model = cls._shared[config] = cls(config)
        return model

    def __init__(self, config: HardwareConfig):
        self.config = config
        # (id(func), args) -> (func, cost): the entry keeps `func` alive and is checked by
        # identity, so an id reused by a later module can never hit a stale entry
        self._cache: dict[tuple[int, tuple[int | None, ...], bool], tuple[FuncOp, KernelCost]] = {}

    def kernel(self, func: FuncOp, args: Sequence[int | None]) -> KernelCost:
        key = (id(func), tuple(args), True)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is func:
            return hit[1]
        # counts (and footprint sizes) depend only on the arguments that reach loop bounds or
        # conditions; the rest only move the accessed boxes around
        ckey = (id(func), control_key(func, args), False)
        chit = self._cache.get(ckey)
        if chit is None or chit[0] is not func:
            chit = (func, self._cost(func, args))
            if len(self._cache) > 20_000:
                self._cache.clear()
            self._cache[ckey] = chit
        self._cache[key] = chit
        return chit[1]

    def _cost(self, func: FuncOp, args: Sequence[int | None]) -> KernelCost:
        cfg = self.config
        cc = cfg.compute
        counts = count_ops(func, args)
        on_matrix = cc.kind == "matrix" and counts.matmul_like
        special = counts.special * cc.special_op_cycles
        if on_matrix:
            compute = (math.ceil(counts.mac / (cc.rows * cc.cols))
                       + math.ceil((counts.mul + counts.add + counts.other + special) / cc.lanes))
            sram_bytes = self._footprint_bytes(func, args, cfg.spaces.sram)
        else:
            compute = math.ceil((counts.vector_ops + special) / cc.lanes)
            sram_bytes = counts.bytes_in(cfg.spaces.sram)
        sram_cycles = math.ceil(sram_bytes / cfg.sram.bytes_per_cycle)
        dram_direct = counts.accesses_in(cfg.spaces.dram) * cfg.dram.latency_cycles
        busy = max(compute, sram_cycles)
        cycles = (cc.fill_cycles + busy + cc.drain_cycles if busy else 0) + dram_direct
        return KernelCost(cycles, compute, sram_cycles, dram_direct, counts, sram_bytes, on_matrix)

    @staticmethod
    def _footprint_bytes(func: FuncOp, args: Sequence[int | None], space: int) -> int:
        total = 0
        for ab in access_boxes(func, args):
            t = func.args[ab.arg].type
            assert isinstance(t, MemRefType)
            if t.memory_space != space:
                continue
            n = math.prod(hi - lo + 1 for lo, hi in ab.box)
            total += n * t.element.byte_width * (2 if ab.read and ab.written else 1)
        return total
