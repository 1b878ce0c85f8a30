"""Kernel cycles from exact op counts: ops / unit throughput, bounded below by SRAM bandwidth,
plus fill/drain; direct slow-memory accesses pay the DRAM latency each and are flagged.

- matrix unit, matmul-like nest (a `acc + a*b` reduction at depth >= 3): MACs go to the
  `rows x cols` array; its operands stream once per kernel, so SRAM traffic is the footprint
  (bounding boxes of the accessed elements), not one access per MAC. The array's cycles
  depend on `compute.dataflow`: "fixed", the kernel's m x n outputs on the PEs and the
  reduction in time, batch x ceil(m/rows) x ceil(n/cols) x k (= MACs / (rows*cols) when m
  and n fill the array; a row reduction or a mat-vec, n = 1, gets `rows` MACs a cycle),
  plus `fill_cycles` + `drain_cycles`; "os" / "ws" / "is", folds with their fill, stream
  and drain under `compute.array_convention` (ours, or SCALE-Sim's; `accelsim.cost.systolic`);
  both from the kernel's loops mapped
  onto the array (`accelsim.cost.kernel_map`: which loop is m, n, k). A kernel the mapping
  cannot read (not rectangular, no single `out += a*b`) keeps MACs / (rows*cols)
  (`KernelCost.array` is None). The kernel runs on the faster unit: where the lanes (the
  rule below) take fewer cycles than the array, on the lanes (`CostModel._best`); under
  `compute.matmul_unit = "array"` (the `ideal` preset: SCALE-Sim has no lanes) always on
  the array.
- SRAM bound: bytes / the banks' total bandwidth; under `sram.bank_model = "conflicts"` the
  busiest bank's cycles for the kernel's access streams and their strides
  (`accelsim.cost.kernel_streams`, `accelsim.cost.sram_banks`); a vector kernel that is not
  rectangular keeps the bandwidth bound.
- otherwise: every arithmetic op is one lane-op on `lanes` lanes; exp/div/sqrt cost
  `special_op_cycles` lane-slots each; SRAM traffic is one access per load/store, or with a
  register file (`compute.vector_registers` > 0, a rectangular kernel) what the registers
  leave: held across loops, broadcast per vector op (`accelsim.cost.vector_reuse`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from accelsim.config import HardwareConfig
from accelsim.cost import (
    kernel_map,
    kernel_shape,
    kernel_streams,
    precision,
    sram_banks,
    vector_reuse,
)
from accelsim.cost.kernel_shape import KernelShape
from accelsim.cost.systolic import ArrayCost, GemmView, array_cost
from compiler.analysis.counting import OpCounts, access_boxes, control_key, count_ops
from compiler.ir.analysis_cache import ObjectCache
from compiler.ir.ops import FuncOp
from compiler.ir.types import MemRefType

if TYPE_CHECKING:
    from accelsim.config import ComputeConfig


@dataclass(frozen=True, slots=True)
class KernelCost:
    cycles: int
    compute_cycles: int      # ops / throughput, without fill/drain and memory bounds
    sram_cycles: int         # SRAM-bandwidth lower bound
    dram_direct_cycles: int  # latency charged to direct slow-memory accesses
    counts: OpCounts
    sram_bytes: int
    on_matrix: bool
    # with memory levels: (memory space, bytes) of each on-chip level the kernel reads or
    # writes (sram_bytes is their sum); the two-level machine: ()
    level_bytes: tuple[tuple[int, int], ...] = ()
    array: ArrayCost | None = None  # folds under a systolic dataflow (None: fixed rule)
    compute_pj: float = 0.0  # the call's compute energy, by precision (`cost.precision`)


def on_array(cc: ComputeConfig, counts: OpCounts) -> bool:
    """Whether the kernel is costed on the matrix array: a matrix unit and a matmul-like kernel
    (a reduction `acc + a*b` three loops deep, one-trip loops not counted) or, under
    `compute.matmul_unit = "array"` (SCALE-Sim, which maps a mat-vec or a dot product onto
    its array too), any such reduction. A kernel whose MAC precision the array does not
    support (`compute.macs_rate`, `compute.acc_dtype`) runs on the lanes, except under
    `matmul_unit = "array"` (where `CostModel` refuses it)."""
    return cc.kind == "matrix" and (counts.matmul_like
                                    or (cc.matmul_unit == "array" and counts.reduction)) \
        and (cc.matmul_unit == "array" or precision.array_supports(cc, counts))


def kernel_view(config: HardwareConfig) -> HardwareConfig:
    """`config` with what a kernel's cost never reads set to the defaults: on the two-level
    machine the DMA engines (`[dma]`) and DRAM but its access latency (a kernel reads
    `compute`, `sram`, `spaces`, `energy`, the on-chip levels and `dram.latency_cycles` for
    direct slow-memory accesses). Configs with equal views share one `CostModel`: a sweep's
    points that differ in DMA engines or DRAM channels cost each kernel once."""
    if config.memory or config.link:  # given levels and links: the config as it is
        return config
    from dataclasses import replace

    from accelsim.config import DmaConfig, DramConfig

    return replace(config, dma=DmaConfig(), dram=DramConfig(latency_cycles=config.dram.latency_cycles))


class CostModel:
    """Cached per (kernel, index arguments): a tile loop calls the same kernel many times.
    `CostModel.for_config(cfg)` shares one model (and its cache) per hardware config, and
    between configs whose `kernel_view` is equal (what the model reads is equal)."""

    _shared: dict[HardwareConfig, CostModel] = {}
    # the same, by the config object (no hash of the whole config for a known object)
    _by_id: ObjectCache[CostModel] = ObjectCache("cost.kernel models by config")

    @classmethod
    def for_config(cls, config: HardwareConfig) -> CostModel:
        hit = cls._by_id.get(id(config))
        if hit is not None:
            return hit
        key = kernel_view(config)
        model = cls._shared.get(key)
        if model is None:
            if len(cls._shared) > 16:  # by value: a sweep makes a config per point
                cls._shared.clear()
            model = cls._shared[key] = cls(config)
        return cls._by_id.put(config, model)

    def __init__(self, config: HardwareConfig):
        self.config = config
        # per kernel: (args, True) -> its cost for a call with these arguments, and
        # (control key, False) -> the cost of its first call with that control key
        self._cache: ObjectCache[dict[tuple[tuple[int | None, ...], bool], KernelCost]] = \
            ObjectCache("cost.kernel costs per call")
        # (structure id, trip counts) -> cost: by content, shared by a kernel's copies
        self._by_shape: dict[tuple[int, tuple[int, ...]], KernelCost] = {}

    def kernel(self, func: FuncOp, args: Sequence[int | None]) -> KernelCost:
        key = (tuple(args), True)
        table = self._cache.get(id(func))
        if table is None:
            table = self._cache.put(func, {})
        else:
            hit = table.get(key)
            if hit is not None:
                return hit
        if len(self._by_shape) > 20_000:
            self._by_shape.clear()
        # a rectangular kernel costs the same for every call with the same trip counts, and
        # so does every kernel with the same structure (outlined copies, module clones); a
        # kernel's first call is costed directly (most kernels are called with one set of
        # trip counts, and its shape costs about as much as counting it)
        ks = summary(func)
        trips = None
        if ks.shape is None:
            if not ks.costed:
                ks.costed = True
            elif control_key(func, args) not in ks.direct:
                # seen before, and not on another config with the same control arguments (a
                # sweep point), whose figures are known and need no shape
                fp, trips = kernel_shape_key(func, args)
        else:
            fp, trips = kernel_shape_key(func, args)
        if trips is not None:
            skey = (fp, trips)
            cost = self._by_shape.get(skey)
            if cost is None:
                # the first call's direct entry, when these arguments have its control key
                cost = table.get((control_key(func, args), False))
                if cost is None:
                    counts, footprint = _figures(func, args, skey)
                    cost = self._best(func, args, counts, footprint, trips)
                self._by_shape[skey] = cost
            table[key] = cost
            return cost
        # counts (and footprint sizes) depend only on the arguments that reach loop bounds or
        # conditions; the rest only move the accessed boxes around
        ckey = (control_key(func, args), False)
        cost = table.get(ckey)
        if cost is None:
            cost = table[ckey] = self._cost(func, args)
        table[key] = cost
        return cost

    def _cost(self, func: FuncOp, args: Sequence[int | None]) -> KernelCost:
        # the figures are config-independent: the kernel's summary, shared by every config
        direct = summary(func).direct
        ckey = control_key(func, args)
        d = direct.get(ckey)
        if d is None:
            d = direct[ckey] = [count_ops(func, args), None]
        counts = d[0]
        on_matrix = on_array(self.config.compute, counts)
        if on_matrix and d[1] is None:
            d[1] = _footprint_by_space(func, args)
        trips = (_shape(func).key(args) if on_matrix or self.config.sram.bank_model == "conflicts"
                 or self.config.compute.vector_registers else None)
        return self._best(func, args, counts, d[1] if on_matrix else {}, trips)

    def _best(self, func: FuncOp, args: Sequence[int | None], counts: OpCounts,
              footprint: dict[int, int], trips: tuple[int, ...] | None) -> KernelCost:
        """The kernel on the faster unit that can run it: a matmul-like kernel on the matrix
        array at its mapping (`_array`, `_mapped_cycles`), or on the lanes when they are
        faster (a row reduction or a mat-vec maps one column of the array's outputs: ~1/cols
        of its PEs, no faster than the lanes); always on the array under
        `compute.matmul_unit = "array"`."""
        cfg = self.config
        precision.refuse(cfg.compute, counts, func.sym_name, on_array(cfg.compute, counts))
        banks = self._banks(func, args, counts, trips)
        if not on_array(cfg.compute, counts):
            return self._cost_from(counts, footprint, None, banks,
                                   reuse=self._reuse(func, counts, trips))
        view = self._view(func, counts, trips)
        array = mapped = None
        if view is not None:
            if cfg.compute.dataflow == "fixed":
                os_ = array_cost("os", view, cfg.compute.rows, cfg.compute.cols)
                mapped = os_.folds * os_.t
            else:
                cc = cfg.compute
                array = array_cost(cc.dataflow, view, cc.rows, cc.cols, cc.array_convention,
                                   cc.min_block_cycles, cc.array_mapping)
        cost = self._cost_from(counts, footprint, array, banks, mapped)
        if cfg.compute.matmul_unit == "array" \
                or precision.lanes_unsupported(cfg.compute, counts, with_macs=True) is not None:
            return cost
        lane_banks = self._banks(func, args, counts, trips, on_matrix=False)
        lanes = self._cost_from(counts, {}, None, lane_banks, on_matrix=False,
                                reuse=self._reuse(func, counts, trips, on_matrix=False))
        return lanes if lanes.cycles < cost.cycles else cost

    def _reuse(self, func: FuncOp, counts: OpCounts, trips: tuple[int, ...] | None,
               on_matrix: bool = True) -> dict[int, int] | None:
        """Bytes per memory space of a vector-lane kernel under `compute.vector_registers`
        (`accelsim.cost.vector_reuse`); None: one access per load/store executed (no
        register file, the matrix array, a kernel that is not rectangular); `on_matrix=False`:
        a matmul-like kernel costed on the lanes."""
        cc = self.config.compute
        if cc.vector_registers == 0 or trips is None:
            return None
        if on_matrix and on_array(cc, counts):
            return None
        return vector_reuse.bytes_by_space(func, trips, cc.lanes, cc.vector_registers)

    def _banks(self, func: FuncOp, args: Sequence[int | None], counts: OpCounts,
               trips: tuple[int, ...] | None, on_matrix: bool = True) -> int | None:
        """The busiest SRAM bank's cycles under `sram.bank_model = "conflicts"` (None: the
        bandwidth model, or a vector kernel that is not rectangular); `on_matrix=False`: a
        matmul-like kernel's streams on the lanes."""
        cfg = self.config
        if cfg.sram.bank_model != "conflicts":
            return None
        sp = cfg.spaces.sram
        if on_matrix and on_array(cfg.compute, counts):
            streams = kernel_streams.box_streams(func, args, sp)
        elif trips is None:
            return None
        else:
            found = kernel_streams.vector_streams(func, trips, sp, cfg.compute.lanes,
                                                  cfg.compute.vector_registers)
            if found is None:
                return None
            streams = found
        return sram_banks.bank_cycles(streams, cfg.sram.banks, cfg.sram.bank_bytes_per_cycle)

    def _view(self, func: FuncOp, counts: OpCounts, trips: tuple[int, ...] | None
              ) -> GemmView | None:
        """The matmul-like kernel as a GEMM (`kernel_map`), or None (vector unit, a kernel
        whose loops cannot be mapped: the fixed rule at the array's full rate)."""
        cc = self.config.compute
        if not on_array(cc, counts) or trips is None:
            return None
        roles = kernel_map.loop_roles(func)
        if roles is None or len(roles) != len(trips):
            return None
        view = kernel_map.gemm_view(roles, trips, kernel_map.one_trip_loops(func))
        if view.macs != counts.mac:  # the view must account for every MAC the count saw
            return None
        return view

    def _cost_from(self, counts: OpCounts, footprint: dict[int, int],
                   array: ArrayCost | None = None, bank_cycles: int | None = None,
                   mapped_cycles: int | None = None, on_matrix: bool = True,
                   reuse: dict[int, int] | None = None) -> KernelCost:
        """Cycles from op counts, (on the matrix unit) the bytes of the accessed boxes per
        memory space, the folds under a systolic dataflow and the busiest SRAM bank's cycles
        under the bank-conflict model. Under the fixed rule the array's MAC cycles are
        `mapped_cycles` where the kernel maps (`_best`: its outputs on the array's PEs, the
        reduction in time, batch x ceil(m/rows) x ceil(n/cols) x k; = MACs / (rows*cols)
        when m and n fill the array), MACs / (rows*cols) where it does not;
        `on_matrix=False` costs a matmul-like kernel on the lanes; `reuse` (on the lanes, with
        a register file): the bytes the registers leave per memory space."""
        cfg = self.config
        cc = cfg.compute
        on_matrix = on_matrix and on_array(cc, counts)
        # every op at its precision's rate on its unit (`accelsim.cost.precision`)
        if on_matrix:
            lane_cycles = math.ceil(precision.lane_slots(cc, counts, with_macs=False) / cc.lanes)
            mac_cycles = precision.mac_cycles(
                cc, counts, math.ceil(counts.mac / (cc.rows * cc.cols)) if mapped_cycles is None
                else mapped_cycles)
            compute = mac_cycles + lane_cycles
        else:
            lane_cycles = compute = math.ceil(precision.lane_slots(cc, counts, with_macs=True)
                                              / cc.lanes)

        def bytes_in(space: int) -> int:
            if on_matrix:
                return footprint.get(space, 0)
            return counts.bytes_in(space) if reuse is None else reuse.get(space, 0)

        # each on-chip level serves the operands that live in it at its own bandwidth (every
        # port; the level beside the compute unit: its busiest bank under
        # sram.bank_model = "conflicts"), the levels in parallel: the slowest bounds the kernel
        per = [(lv.space, bytes_in(lv.space), lv.read_peak) for lv in cfg.memory_chain()[1:]]
        level_bytes = tuple((sp, b) for sp, b, _ in per if b)
        sram_bytes = sum(b for _, b, _ in per)
        own = cfg.spaces.sram
        sram_cycles = max(bank_cycles if sp == own and bank_cycles is not None
                          else math.ceil(b / bw) for sp, b, bw in per)
        dram_direct = counts.accesses_in(cfg.spaces.dram) * cfg.dram.latency_cycles
        if array is not None:  # fill, stream and drain are in the folds (at the MACs' rate)
            cycles = (max(precision.mac_cycles(cc, counts, array.cycles) + lane_cycles, sram_cycles)
                      + dram_direct)
        else:
            busy = max(compute, sram_cycles)
            cycles = (cc.fill_cycles + busy + cc.drain_cycles if busy else 0) + dram_direct
        return KernelCost(cycles, compute, sram_cycles, dram_direct, counts, sram_bytes, on_matrix,
                          level_bytes, array, precision.compute_pj(cfg.energy, counts))

    @staticmethod
    def _footprint_bytes(func: FuncOp, args: Sequence[int | None], space: int) -> int:
        return _footprint_by_space(func, args).get(space, 0)


# Config-independent figures of rectangular kernels, by (structure id, trip counts): op counts
# and footprint bytes per memory space. Shared by every config's model.
_FIGURES: dict[tuple[int, tuple[int, ...]], tuple[OpCounts, dict[int, int]]] = {}


class KernelSummary:
    """What the cost model knows of one kernel function, for every config, made once per
    kernel (an `ObjectCache` entry: dropped with the function, or when a pass changes its
    module): its shape (`KernelShape`, made on demand) and structure id, whether it has been
    costed, and the figures of its direct costs per control key ([counts, footprint bytes
    by memory space, or None until a matrix unit needs it])."""

    __slots__ = ("costed", "direct", "fid", "shape")

    def __init__(self) -> None:
        self.shape: KernelShape | None = None
        self.fid: int | None = None
        self.costed = False
        self.direct: dict[tuple[int | None, ...], list] = {}  # type: ignore[type-arg]


_SUMMARIES: ObjectCache[KernelSummary] = ObjectCache("cost.kernel summaries")


def summary(func: FuncOp) -> KernelSummary:
    """The kernel summary of `func` (made empty on first use)."""
    ks = _SUMMARIES.get(id(func))
    if ks is None:
        ks = _SUMMARIES.put(func, KernelSummary())
    return ks

_FINGERPRINTS: dict[tuple, int] = {}  # type: ignore[type-arg]  # structure -> id, never reused
_NEXT_ID = itertools.count()


def clear_caches() -> None:
    """Forget every shared kernel figure and per-config model (benchmarks of cold runs)."""
    _FIGURES.clear()
    _SUMMARIES.clear()
    CostModel._shared.clear()
    CostModel._by_id.clear()
    kernel_shape.clear_caches()
    kernel_map.clear_caches()
    kernel_streams.clear_caches()
    sram_banks.clear_caches()


def kernel_shape_key(func: FuncOp, args: Sequence[int | None]) -> tuple[int, tuple[int, ...] | None]:
    """(structure id of `func`, its trip counts for `args` or None when not rectangular)."""
    trips = _shape(func).key(args)
    return (_structure_id(func) if trips is not None else -1), trips


def cost_args(func: FuncOp) -> frozenset[int]:
    """Positions of the arguments a call's cost can depend on: for a rectangular kernel only
    those that change a trip count (the rest move the accessed boxes around)."""
    return _shape(func).trip_args


def _shape(func: FuncOp) -> KernelShape:
    ks = summary(func)
    if ks.shape is None:
        ks.shape = KernelShape(func)
    return ks.shape


def _structure_id(func: FuncOp) -> int:
    ks = summary(func)
    if ks.fid is None:
        fp = _shape(func).fingerprint
        fid = _FINGERPRINTS.get(fp)
        if fid is None:
            if len(_FINGERPRINTS) > 10_000:
                _FINGERPRINTS.clear()
            fid = _FINGERPRINTS[fp] = next(_NEXT_ID)
        ks.fid = fid
    return ks.fid


def _figures(func: FuncOp, args: Sequence[int | None],
             key: tuple[int, tuple[int, ...]]) -> tuple[OpCounts, dict[int, int]]:
    hit = _FIGURES.get(key)
    if hit is None:
        counts = count_ops(func, args)
        hit = (counts, _footprint_by_space(func, args) if counts.matmul_like else {})
        if len(_FIGURES) > 20_000:
            _FIGURES.clear()
        _FIGURES[key] = hit
    return hit


def _footprint_by_space(func: FuncOp, args: Sequence[int | None]) -> dict[int, int]:
    """Bytes of the bounding boxes of the accessed elements per memory space; read-and-written
    boxes count twice."""
    out: dict[int, int] = {}
    for ab in access_boxes(func, args):
        t = func.args[ab.arg].type
        assert isinstance(t, MemRefType)
        n = math.prod(hi - lo + 1 for lo, hi in ab.box)
        sp = t.memory_space
        out[sp] = out.get(sp, 0) + n * t.element.byte_width * (2 if ab.read and ab.written else 1)
    return out
