"""Hardware description: a TOML file loaded into frozen, validated dataclasses.

Every section is a frozen dataclass that checks itself in `__post_init__`, so a config object
that exists is a valid one. Errors are `ConfigError`s naming the dotted key, the value found
and the allowed range: `dram.channels = 0: must be an integer in [1, 64]`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ClassVar

from accelsim.config_rules import Rate, Rule, check_fields, check_value, fmt_number, parse_set, parse_sets  # noqa: F401 (the CLI's --set)
from accelsim.cost import precision
from accelsim.cost.dram_tech import (
    OPTIONAL_RULES,
    ORGANIZATION_KEYS,
    TECHNOLOGIES,
    TIMING_EXTRA_KEYS,
    TIMING_KEYS,
    bandwidth_figures,
    check_timing,
)
from accelsim.errors import ConfigError
from accelsim.memory_levels import (
    DmaConfig,
    HierarchyConfig,
    LinkConfig,
    MemoryLevel,
    level_dict,
    link_dict,
    links_of,
)

_check, _check_value, _fmt = check_fields, check_value, fmt_number

@dataclass(frozen=True, slots=True)
class DramConfig:
    """Slow memory: `channels` channels shared by every DMA engine. `model = "bandwidth"`:
    `bandwidth_bytes_per_cycle` each after `latency_cycles`; `model = "timing"`: channels of
    `technology` (`accelsim.cost.dram_tech`), every timing key overridable (None: the
    technology's); a timing key with the bandwidth model is an error, never ignored."""

    SECTION: ClassVar[str] = "dram"
    RULES: ClassVar[dict[str, Rule]] = {
        "channels": (int, 1, 64),
        "bandwidth_bytes_per_cycle": (Rate, 0.01, 4096),
        "latency_cycles": (int, 0, 100_000),
        "burst_bytes": (int, 1, 65536),
        "interleave": (str, ("burst", "none")),
        "data_paths": (str, ("shared", "split")),
        "model": (str, ("bandwidth", "timing")),
        "technology": (str, tuple(TECHNOLOGIES)),
        "page_policy": (str, ("open", "closed")),
        "read_queue": (int, 1, 4096),
        "write_queue": (int, 1, 4096),
        "write_high_watermark": (int, 1, 4096),
        "write_low_watermark": (int, 0, 4096),
    }
    OPTIONAL: ClassVar[dict[str, Rule]] = OPTIONAL_RULES  # None: the technology's value
    channels: int = 2
    bandwidth_bytes_per_cycle: int | float = 16  # per channel (a non-integer rate allowed)
    latency_cycles: int = 120
    burst_bytes: int = 64
    # "burst": a transfer's bursts are spread round-robin over the channels (address
    # interleaving, as memory controllers do); "none": a transfer uses one channel.
    interleave: str = "burst"
    # "shared": reads and writes share the channels; "split": reads and writes each have
    # `channels` channels of their own (a port whose read data and write data travel on
    # separate wires, as TileLink's D and A channels or AXI's R and W do)
    data_paths: str = "shared"
    model: str = "bandwidth"
    technology: str = "DDR4-3200"
    page_policy: str = "open"
    read_queue: int = 64             # requests the FR-FCFS scheduler looks ahead over
    write_queue: int = 64            # bursts the write queue holds
    write_high_watermark: int = 48   # drain writes when this many bursts wait ...
    write_low_watermark: int = 16    # ... down to this many
    address_mapping: str | None = None
    clock_mhz: float | None = None
    beats_per_clock: int | None = None
    burst_length: int | None = None
    bus_bytes: int | None = None
    ranks: int | None = None
    bank_groups: int | None = None
    banks_per_group: int | None = None
    rows: int | None = None
    columns: int | None = None
    tCL: int | None = None
    tCWL: int | None = None
    tRCD: int | None = None
    tRP: int | None = None
    tRAS: int | None = None
    tRC: int | None = None
    tCCD_S: int | None = None
    tCCD_L: int | None = None
    tRRD_S: int | None = None
    tRRD_L: int | None = None
    tFAW: int | None = None
    tWR: int | None = None
    tWTR: int | None = None
    tRTW: int | None = None
    tRTP: int | None = None
    tREFI: int | None = None
    tRFC: int | None = None

    def __post_init__(self) -> None:
        _check(self.SECTION, self)
        if self.data_paths == "split" and (self.model != "bandwidth" or
                                           (self.interleave == "burst" and self.channels > 1)):
            raise ConfigError(f"dram.data_paths = 'split' needs dram.model = 'bandwidth' and one "
                              f"channel or dram.interleave = 'none' (got model {self.model!r}, "
                              f"{self.channels} channels, interleave {self.interleave!r})")
        for name, rule in self.OPTIONAL.items():
            value = getattr(self, name)
            if value is not None:
                _check_value(f"dram.{name}", value, rule)
                if rule[0] is float and isinstance(value, int):
                    object.__setattr__(self, name, float(value))
        if self.model == "bandwidth":
            timing = [k for k in (*TIMING_EXTRA_KEYS, *ORGANIZATION_KEYS, *TIMING_KEYS)
                      if getattr(self, k) != _DRAM_DEFAULTS[k]]
            if timing:
                k = timing[0]
                raise ConfigError(f"dram.{k} = {getattr(self, k)!r}: a timing-model key, but "
                                  "dram.model = 'bandwidth'; set dram.model = 'timing' to use it")
            return
        check_timing(self)

    def timing_value(self, key: str) -> Any:
        """A timing or organization key: the config's value, else the technology's."""
        value = getattr(self, key)
        return getattr(TECHNOLOGIES[self.technology], key) if value is None else value

    def shown(self) -> dict[str, Any]:
        """The keys in the TOML shape: the timing model's only where they differ from their
        default (so a bandwidth-model config keeps its content hash)."""
        out = dataclasses.asdict(self)
        for k in (*TIMING_EXTRA_KEYS, *ORGANIZATION_KEYS, *TIMING_KEYS):
            if out[k] == _DRAM_DEFAULTS[k]:
                del out[k]
        if out["data_paths"] == "shared":  # the default: earlier configs keep their hash
            del out["data_paths"]
        return out


_DRAM_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(DramConfig)}


@dataclass(frozen=True, slots=True)
class SramConfig:
    """Fast scratchpad: capacity checked on every allocation; `banks` x bytes/cycle of bandwidth.

    `bank_model`: "bandwidth" (the default) charges a kernel's SRAM bytes at the banks' total
    bandwidth; "conflicts" charges the busiest bank, words interleaved over the banks
    (`bank_bytes_per_cycle` bytes a word) and the kernels' and DMAs' access strides deciding
    which bank each access hits (`accelsim.cost.sram_banks`).
    """

    SECTION: ClassVar[str] = "sram"
    RULES: ClassVar[dict[str, Rule]] = {
        "capacity_kib": (int, 1, 1 << 22),
        "banks": (int, 1, 1024),
        "bank_bytes_per_cycle": (int, 1, 4096),
        "bank_model": (str, ("bandwidth", "conflicts")),
    }
    capacity_kib: int = 256
    banks: int = 8
    bank_bytes_per_cycle: int = 16
    bank_model: str = "bandwidth"

    def __post_init__(self) -> None:
        _check(self.SECTION, self)

    @property
    def capacity_bytes(self) -> int:
        return self.capacity_kib * 1024

    @property
    def bytes_per_cycle(self) -> int:
        return self.banks * self.bank_bytes_per_cycle


# the default unit's rate table: every precision at the native rate (a generic unit; a
# precision's own preset, e.g. `int8`, says what its array supports)
DEFAULT_RATES: tuple[tuple[str, float], ...] = tuple((d, 1.0) for d in precision.DTYPES)


@dataclass(frozen=True, slots=True)
class ComputeConfig:
    """One compute unit: a `rows` x `cols` MAC array (matrix) or `lanes` SIMD lanes (vector).

    A matrix unit also has `lanes` vector lanes for the nests that are not matmul-like.
    `special_op_cycles` is the issue cost of exp/div/sqrt per lane.

    `dataflow` is how a matmul-like kernel maps onto the array (`accelsim.cost.systolic`):
    "ws", "os", "is" (weight, output, input stationary): folds, each with its fill, stream
    and drain (`fill_cycles` / `drain_cycles` are then unused), counted under
    `array_convention`: "accelsim" (ours, the default: os folds with the drain SCALE-Sim's
    code leaves out; ws / is pipelined as a double-buffered array runs them, the stream in
    blocks of at most `rows` rows of one run of its innermost loop, at least
    `min_block_cycles` cycles each; `array_mapping`: "im2col" (the default) the array's rows
    and columns hold any consecutive elements of their role, "innermost" one run of the
    role's innermost loop, as an array fed without im2col, Gemmini's) or "scalesim-v3"
    (SCALE-Sim 3.0's code, for comparing with it; docs/dataflows.md); "fixed" (the default):
    the outputs on the PEs and the reduction in time, batch x ceil(m/rows) x ceil(n/cols) x k
    cycles (MACs / (rows x cols) for a kernel whose loops do not map), plus `fill_cycles` +
    `drain_cycles` per call (`accelsim.cost.kernel`).

    `vector_registers` is the lanes' register file: that many registers of `lanes` elements.
    Loads and stores a register can hold across a loop, or a vector op can broadcast, cost
    fewer SRAM accesses (`accelsim.cost.vector_reuse`); 0 (the default): no register file,
    one SRAM access per load/store executed.

    `matmul_unit` is where a matmul-like kernel runs: "faster" (the default): on the array or,
    where they take fewer cycles (a mat-vec maps ~1/cols of the array's PEs), on the lanes;
    "array": always on the array, as in SCALE-Sim, which has no lanes (the `ideal` preset).

    Precision (`accelsim.cost.precision`): `native_dtype` is the array's native precision and
    `macs_rate` its MAC rate per supported precision relative to it (`{i8 = 1.0, bf16 = 0.5}`;
    a precision not in the table is not supported; the default unit runs every precision at
    1.0); `lanes_rate` the same for the lanes; `acc_dtype` the widest accumulator the PEs hold
    (None: any; a MAC accumulating wider is not supported on the array).
    """

    SECTION: ClassVar[str] = "compute"
    RULES: ClassVar[dict[str, Rule]] = {
        "kind": (str, ("matrix", "vector")),
        "rows": (int, 1, 4096),
        "cols": (int, 1, 4096),
        "lanes": (int, 1, 4096),
        "fill_cycles": (int, 0, 100_000),
        "drain_cycles": (int, 0, 100_000),
        "special_op_cycles": (int, 1, 1000),
        "dataflow": (str, ("fixed", "ws", "os", "is")),
        "vector_registers": (int, 0, 4096),
        "matmul_unit": (str, ("faster", "array")),
        "array_convention": (str, ("accelsim", "scalesim-v3")),
        "min_block_cycles": (int, 1, 4096),
        "array_mapping": (str, ("im2col", "innermost")),
    }
    kind: str = "matrix"
    rows: int = 16
    cols: int = 16
    lanes: int = 16
    fill_cycles: int = 16
    drain_cycles: int = 16
    special_op_cycles: int = 4
    dataflow: str = "fixed"
    vector_registers: int = 0
    matmul_unit: str = "faster"
    array_convention: str = "accelsim"
    min_block_cycles: int = 1
    array_mapping: str = "im2col"
    native_dtype: str = "f32"
    acc_dtype: str | None = None
    macs_rate: tuple[tuple[str, float], ...] = DEFAULT_RATES
    lanes_rate: tuple[tuple[str, float], ...] = DEFAULT_RATES

    def __post_init__(self) -> None:
        _check(self.SECTION, self)
        native = precision.canonical(self.native_dtype, "compute.native_dtype")
        object.__setattr__(self, "native_dtype", native)
        if self.acc_dtype is not None:
            acc = precision.canonical(self.acc_dtype, "compute.acc_dtype")
            if precision.bits(acc) < precision.bits(native):
                raise ConfigError(f"compute.acc_dtype = {acc!r}: narrower than compute.native_dtype "
                                  f"= {native!r}; the accumulator holds at least the native width")
            object.__setattr__(self, "acc_dtype", acc)
        for key in ("macs_rate", "lanes_rate"):
            object.__setattr__(self, key, precision.parse_rates(f"compute.{key}", getattr(self, key)))
        if precision.rate(self.macs_rate, native) not in (None, 1.0):
            raise ConfigError(f"compute.macs_rate.{native} = {precision.rate(self.macs_rate, native)!r}: "
                              f"rates are relative to the native precision ({native}), whose rate is 1.0")
        if precision.rate(self.macs_rate, native) is None:
            object.__setattr__(self, "macs_rate", precision.parse_rates(
                "compute.macs_rate", (*self.macs_rate, (native, 1.0))))
        if self.kind == "vector" and self.dataflow != "fixed":
            raise ConfigError(f"compute.dataflow = {self.dataflow!r}: a vector unit (compute.kind = "
                              "'vector') has no systolic array; must be 'fixed' (or compute.kind = "
                              "'matrix')")

    @property
    def macs_per_cycle(self) -> int:
        return self.rows * self.cols if self.kind == "matrix" else self.lanes


@dataclass(frozen=True, slots=True)
class EnergyConfig:
    """Energy per event in pJ. Defaults: Horowitz, "Computing's energy problem", ISSCC 2014, 45 nm.

    - DRAM: 1.3-2.6 nJ per 64-bit access -> 1300 pJ / 8 B = 162.5 pJ/byte (low end).
    - SRAM: 32 KB array, 20 pJ per 64-bit read -> 2.5 pJ/byte.
    - compute: per operation per precision from the `technology` table
      (`accelsim.cost.precision.TECHNOLOGIES`; "horowitz45": the paper's int8 / int32 / fp16 /
      fp32 adds and multiplies, the other precisions derived as it states): a MAC is a
      multiply at its operands' precision plus an add at its accumulator's (fp32: 3.7 + 0.9 =
      4.6 pJ), a lane op an add (a multiply: a multiply) at its result's. `mac_pj` / `alu_pj`,
      when given, replace the table for every precision.
    - exp/div/sqrt: not in the paper; assumed ~5 fp32 multiplies (18.5 pJ).
    - static (leakage) power, mW: not in the paper; assumed 100 mW, ~10% of the default MAC
      array's peak dynamic power (256 MACs x 4.6 pJ x 1 GHz = 1.18 W). Charged per second run.
    """

    SECTION: ClassVar[str] = "energy"
    RULES: ClassVar[dict[str, Rule]] = {
        "dram_pj_per_byte": (float, 0, 1e6),
        "sram_pj_per_byte": (float, 0, 1e6),
        "special_pj": (float, 0, 1e6),
        "static_mw": (float, 0, 1e9),
        "technology": (str, tuple(precision.TECHNOLOGIES)),
    }
    OPTIONAL: ClassVar[dict[str, Rule]] = {"mac_pj": (float, 0, 1e6), "alu_pj": (float, 0, 1e6)}
    dram_pj_per_byte: float = 162.5
    sram_pj_per_byte: float = 2.5
    special_pj: float = 18.5
    static_mw: float = 100.0
    technology: str = "horowitz45"
    mac_pj: float | None = None  # None: the technology's, per precision
    alu_pj: float | None = None

    def __post_init__(self) -> None:
        _check(self.SECTION, self)
        for name, rule in self.OPTIONAL.items():
            value = getattr(self, name)
            if value is not None:
                _check_value(f"energy.{name}", value, rule)
                object.__setattr__(self, name, float(value))


@dataclass(frozen=True, slots=True)
class SpacesConfig:
    """What each integer memref memory space is (MLIR leaves it to the target)."""

    SECTION: ClassVar[str] = "spaces"
    RULES: ClassVar[dict[str, Rule]] = {
        "dram": (int, 0, 255),
        "sram": (int, 0, 255),
        "tag": (int, 0, 255),
    }
    dram: int = 0
    sram: int = 1
    tag: int = 2

    def __post_init__(self) -> None:
        _check(self.SECTION, self)
        if len({self.dram, self.sram, self.tag}) != 3:
            raise ConfigError(f"spaces = dram {self.dram}, sram {self.sram}, tag {self.tag}: "
                              "the three memory spaces must be distinct integers")


@dataclass(frozen=True, slots=True)
class ControlConfig:
    """The in-order control processor: cycles to issue one DMA descriptor or kernel call."""

    SECTION: ClassVar[str] = "control"
    RULES: ClassVar[dict[str, Rule]] = {"issue_cycles": (int, 0, 100_000)}
    issue_cycles: int = 0

    def __post_init__(self) -> None:
        _check(self.SECTION, self)


@dataclass(frozen=True, slots=True)
class InterconnectConfig:
    """Between the clusters and the shared levels (used when `clusters` > 1). Every hop of the
    link into a cluster's local level crosses it. `bus`: one shared bus of
    `bandwidth_bytes_per_cycle`, `latency_cycles` per transfer, granted in issue order
    (`arbitration = "fifo"`). `mesh`: a `mesh_rows` x `mesh_cols` 2-D mesh (0: the most square
    grid that holds the clusters), cluster k at row k // cols, column k % cols, the shared
    memory attached to the router at (`memory_row`, `memory_col`); XY routing (`routing =
    "xy"`), each directed link `link_bytes_per_cycle`, `hop_latency_cycles` per router hop."""

    SECTION: ClassVar[str] = "interconnect"
    RULES: ClassVar[dict[str, Rule]] = {
        "kind": (str, ("bus", "mesh")),
        "bandwidth_bytes_per_cycle": (int, 1, 1 << 20),
        "latency_cycles": (int, 0, 100_000),
        "arbitration": (str, ("fifo",)),
        "link_bytes_per_cycle": (int, 1, 1 << 20),
        "hop_latency_cycles": (int, 0, 100_000),
        "routing": (str, ("xy",)),
        "mesh_rows": (int, 0, 64),
        "mesh_cols": (int, 0, 64),
        "memory_row": (int, 0, 63),
        "memory_col": (int, 0, 63),
    }
    kind: str = "bus"
    bandwidth_bytes_per_cycle: int = 256
    latency_cycles: int = 4
    arbitration: str = "fifo"
    link_bytes_per_cycle: int = 64
    hop_latency_cycles: int = 2
    routing: str = "xy"
    mesh_rows: int = 0
    mesh_cols: int = 0
    memory_row: int = 0
    memory_col: int = 0

    def __post_init__(self) -> None:
        _check(self.SECTION, self)

    def mesh_dims(self, clusters: int) -> tuple[int, int]:
        """(rows, cols) of the mesh for `clusters` clusters."""
        if self.mesh_rows and self.mesh_cols:
            return self.mesh_rows, self.mesh_cols
        if self.mesh_rows or self.mesh_cols:
            given = self.mesh_rows or self.mesh_cols
            other = -(-clusters // given)
            return (given, other) if self.mesh_rows else (other, given)
        rows = max(r for r in range(1, clusters + 1) if r * r <= clusters)
        return rows, -(-clusters // rows)



_SECTIONS: dict[str, type] = {
    "dram": DramConfig, "sram": SramConfig, "dma": DmaConfig, "compute": ComputeConfig,
    "energy": EnergyConfig, "spaces": SpacesConfig, "control": ControlConfig,
}
# arrays of tables: `[[memory]]` levels and `[[link]]`s, keyed in dotted names by level name
_ARRAYS: dict[str, type] = {"memory": MemoryLevel, "link": LinkConfig}


@dataclass(frozen=True, slots=True, weakref_slot=True)  # per-config results: analysis_cache
class HardwareConfig:
    """The whole machine. `name` is informational and not part of `hash()`.

    Memory: either the two-level machine of `[dram]` and `[sram]` (what every preset but
    `three_level` is), or `[[memory]]` levels rooted at DRAM with `[[link]]`s between adjacent
    ones. Either way `memory_chain()` and `links()` describe it; with levels, `sram` and
    `spaces.sram` are the level beside the compute unit (the last one) and `dma` the figures a
    link without a `[[link]]` table takes."""

    RULES: ClassVar[dict[str, Rule]] = {"clock_ghz": (float, 0.001, 100.0),
                                        "clusters": (int, 1, 256)}
    name: str = "default"
    clock_ghz: float = 1.0
    # compute clusters: each has its own local level (the last of the chain), the DMA engines
    # of the link into it, a compute unit and a control processor; the other levels are shared
    clusters: int = 1
    dram: DramConfig = field(default_factory=DramConfig)
    sram: SramConfig = field(default_factory=SramConfig)
    dma: DmaConfig = field(default_factory=DmaConfig)
    compute: ComputeConfig = field(default_factory=ComputeConfig)
    energy: EnergyConfig = field(default_factory=EnergyConfig)
    spaces: SpacesConfig = field(default_factory=SpacesConfig)
    control: ControlConfig = field(default_factory=ControlConfig)
    memory: tuple[MemoryLevel, ...] = ()   # given levels (empty: the two-level machine)
    link: tuple[LinkConfig, ...] = ()      # given links (the rest from [dma])
    hierarchy: HierarchyConfig = field(default_factory=HierarchyConfig)
    interconnect: InterconnectConfig = field(default_factory=InterconnectConfig)
    _chain: tuple[MemoryLevel, ...] = field(init=False, repr=False, compare=False, default=())
    _links: tuple[LinkConfig, ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        _check("", self)
        if not isinstance(self.name, str):
            raise ConfigError(f"name = {self.name!r}: must be a string")
        object.__setattr__(self, "memory", tuple(self.memory))
        object.__setattr__(self, "link", tuple(self.link))
        if self.link and not self.memory:
            raise ConfigError(f"link.{self.link[0].dst}: [[link]] tables need [[memory]] levels "
                              "(the two-level machine's one link is [dma])")
        # one representation: the flat sections are sugar for a chain of two levels
        chain = _chain(self.memory or _flat_levels(self), self.dram)
        links = links_of(chain, self.link, self.dma)
        if len(chain) > 2 and self.dram.data_paths != "shared":
            raise ConfigError("dram.data_paths = 'split' is for a two-level machine; with "
                              "more [[memory]] levels each link's ports carry both directions")
        if self.memory:  # [sram] and the spaces are the chain's: the level beside the compute unit
            last = chain[-1]
            if self.spaces.tag in {lv.space for lv in chain}:
                raise ConfigError(f"spaces.tag = {self.spaces.tag}: the tag space must differ "
                                  f"from every memory level's space "
                                  f"({', '.join(f'{lv.name} {lv.space}' for lv in chain)})")
            object.__setattr__(self, "spaces", SpacesConfig(chain[0].space, last.space, self.spaces.tag))
            object.__setattr__(self, "sram", SramConfig(
                last.capacity_kib, 1, last.read_bytes_per_cycle * last.ports))
        object.__setattr__(self, "_chain", chain)
        object.__setattr__(self, "_links", links)
        if self.clusters > 1 and self.interconnect.kind == "mesh":
            ic = self.interconnect
            rows, cols = ic.mesh_dims(self.clusters)
            if rows * cols < self.clusters:
                raise ConfigError(f"interconnect.mesh_rows = {rows}, interconnect.mesh_cols = "
                                  f"{cols}: a {rows}x{cols} mesh holds {rows * cols} clusters, "
                                  f"fewer than clusters = {self.clusters}")
            for key, v, hi in (("memory_row", ic.memory_row, rows), ("memory_col", ic.memory_col, cols)):
                if v >= hi:
                    raise ConfigError(f"interconnect.{key} = {v}: must be an integer in [0, "
                                      f"{hi - 1}] (the {rows}x{cols} mesh)")

    def shared_levels(self) -> tuple[MemoryLevel, ...]:
        """The levels every cluster shares (all but the last: DRAM, a global buffer)."""
        return self._chain[:-1]

    def local_level(self) -> MemoryLevel:
        """The level each cluster has its own copy of (beside its compute unit)."""
        return self._chain[-1]

    # ---- the hierarchy --------------------------------------------------------------
    def memory_chain(self) -> tuple[MemoryLevel, ...]:
        """Every memory level, the root (DRAM) first, the level beside the compute unit last."""
        return self._chain

    def links(self) -> tuple[LinkConfig, ...]:
        """The link of every level but the root to its parent, in chain order."""
        return self._links

    @property
    def single_link(self) -> bool:
        """Two levels, one link: every DMA is one hop on it (no route), so the simulator and
        the closed-form machine take their one-hop form, and trace units and messages keep
        the two-level names (`engine_names`, `level_names`). Whether the levels were given as
        `[dram]`/`[sram]` or as two `[[memory]]` tables makes no difference."""
        return len(self._links) == 1

    def engine_names(self, k: int) -> list[str]:
        """The trace units of link `k`'s DMA engines: `dma<e>` on a machine of one link,
        `dma[<parent>-><child>]<e>` with several."""
        lk = self._links[k]
        pre = "dma" if len(self._links) == 1 else f"dma[{lk.name}]"
        return [f"{pre}{e}" for e in range(lk.engines)]

    def level_names(self) -> dict[int, str]:
        """Memory space -> level name, as messages name where a buffer lives: none on a
        machine of one link (its two levels are DRAM and SRAM)."""
        return {} if len(self._links) == 1 else {lv.space: lv.name for lv in self._chain}

    def level_of_space(self, space: int) -> MemoryLevel | None:
        for lv in self._chain:
            if lv.space == space:
                return lv
        return None

    def route(self, src_space: int, dst_space: int) -> tuple[LinkConfig, ...]:
        """The links a DMA from `src_space` to `dst_space` crosses, in order (empty: both in
        one level). Raises ConfigError for an unknown space or, with `hierarchy.non_adjacent =
        "refuse"`, for levels that are not parent and child."""
        chain = self._chain
        pos = {lv.space: k for k, lv in enumerate(chain)}
        for sp in (src_space, dst_space):
            if sp not in pos:
                raise ConfigError(f"memory space {sp} is no memory level of this machine (levels: "
                                  + ", ".join(f"{lv.name} = space {lv.space}" for lv in chain) + ")")
        a, b = pos[src_space], pos[dst_space]
        lo, hi = min(a, b), max(a, b)
        hops = list(self._links[lo:hi])  # link k joins chain[k] and chain[k + 1]
        if len(hops) > 1 and self.hierarchy.non_adjacent == "refuse":
            raise ConfigError(
                f"a DMA from {chain[a].name} (space {src_space}) to {chain[b].name} (space "
                f"{dst_space}) crosses {len(hops)} links ({', '.join(h.name for h in hops)}): "
                "levels that are not parent and child exchange data through the levels between "
                "them (or set hierarchy.non_adjacent = \"route\")")
        return tuple(hops if a <= b else reversed(hops))

    # ---- derived --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain nested dict in the TOML shape (without `name`). The two-level machine's is
        what it was before memory levels existed (so its hash is too)."""
        out: dict[str, Any] = {"clock_ghz": self.clock_ghz}
        for sec in _SECTIONS:
            if sec == "sram" and self.memory:
                continue  # derived from the last level
            out[sec] = (self.dram.shown() if sec == "dram" else _shown_compute(self.compute)
                        if sec == "compute" else _shown_energy(self.energy) if sec == "energy"
                        else dataclasses.asdict(getattr(self, sec)))
        if self.memory:
            out["memory"] = [level_dict(lv) for lv in self.memory]
            out["link"] = [link_dict(lk) for lk in self.link]  # the rest follow [dma]
            out["hierarchy"] = dataclasses.asdict(self.hierarchy)
        elif self.hierarchy != HierarchyConfig():
            out["hierarchy"] = dataclasses.asdict(self.hierarchy)
        if self.clusters != 1:  # (absent at one cluster: the hash of every older config stays)
            out["clusters"] = self.clusters
        if self.interconnect != InterconnectConfig():
            out["interconnect"] = dataclasses.asdict(self.interconnect)
        return out

    def hash(self) -> str:
        """Stable content hash (16 hex digits) of the hardware, for DSE result keys."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def dram_clock_ratio(self) -> float:
        """DRAM command clocks per accelerator cycle (the timing model's clock ratio):
        `dram.clock_mhz` (the technology's unless overridden) / (1000 * `clock_ghz`)."""
        return float(self.dram.timing_value("clock_mhz")) / (1000.0 * self.clock_ghz)

    def bandwidth_view(self) -> HardwareConfig:
        """The config as a bandwidth/latency model sees it (the analytic estimate, the tile
        search): itself, or with the timing model the technology's `bandwidth_figures`."""
        d = self.dram
        if d.model == "bandwidth":
            return self
        burst, bw, lat = bandwidth_figures(d, self.clock_ghz)
        dram = DramConfig(channels=d.channels, bandwidth_bytes_per_cycle=min(bw, 4096),
                          latency_cycles=min(lat, 100_000), burst_bytes=burst,
                          interleave=d.interleave)
        return dataclasses.replace(self, dram=dram)

    def with_overrides(self, overrides: Mapping[str, Any]) -> HardwareConfig:
        """A new config, validated exactly as a file is: `with_overrides({"sram.capacity_kib": 128})`.

        Keys are dotted as in the TOML (`dram.channels`, `clock_ghz`, `memory.glb.capacity_kib`,
        `link.spad.engines`: a level and a link by the level's name); the overrides are written
        into the TOML shape of this config, which is then loaded again."""
        data = self.to_dict()
        data["name"] = self.name
        for key, value in overrides.items():
            _apply_override(data, key, value)
        name = data.pop("name")  # a name that is not a string: HardwareConfig says so
        return config_from_dict(data, name=name)


def _shown_compute(cc: ComputeConfig) -> dict[str, Any]:
    """[compute] in the TOML shape; the precision keys only where they differ from the default
    (so the hash of a config without them stays what it was)."""
    out = dataclasses.asdict(cc)
    for key in ("macs_rate", "lanes_rate"):
        out[key] = dict(getattr(cc, key))
        if getattr(cc, key) == DEFAULT_RATES:
            del out[key]
    if cc.native_dtype == "f32":
        del out["native_dtype"]
    if cc.acc_dtype is None:
        del out["acc_dtype"]
    return out


def _shown_energy(e: EnergyConfig) -> dict[str, Any]:
    """[energy] in the TOML shape, the overrides not given left out."""
    return {k: v for k, v in dataclasses.asdict(e).items() if v is not None}


_TOP_KEYS = ("clock_ghz", "name", "clusters")
_EXTRA_SECTIONS: dict[str, type] = {"hierarchy": HierarchyConfig, "interconnect": InterconnectConfig}


def _flat_levels(cfg: HardwareConfig) -> tuple[MemoryLevel, ...]:
    """The levels the flat sections declare: DRAM ([dram], its timing filled by `_chain`) and
    SRAM ([sram]); their one link is [dma]'s (`links_of`)."""
    d, s, e = cfg.dram, cfg.sram, cfg.energy
    dram = MemoryLevel("dram", cfg.spaces.dram, None, DRAM_CAPACITY_KIB, d.bandwidth_bytes_per_cycle,
                       d.bandwidth_bytes_per_cycle, d.channels, d.latency_cycles, d.channels,
                       e.dram_pj_per_byte, e.dram_pj_per_byte)
    sram = MemoryLevel("sram", cfg.spaces.sram, "dram", s.capacity_kib, s.bytes_per_cycle,
                       s.bytes_per_cycle, 1, 0, s.banks, e.sram_pj_per_byte, e.sram_pj_per_byte)
    return (dram, sram)


# DRAM's capacity when a config does not give one (4 GiB): reported, not a limit the
# simulator enforces on the program's arguments
DRAM_CAPACITY_KIB = 4 << 20


def _chain(levels: Sequence[MemoryLevel], dram: DramConfig) -> tuple[MemoryLevel, ...]:
    """The levels as a chain from the root, the root's timing filled from [dram]."""
    if len(levels) < 2:
        raise ConfigError(f"memory = {len(levels)} level: a hierarchy needs at least two "
                          "[[memory]] levels (DRAM and one beside the compute unit)")
    by_name: dict[str, MemoryLevel] = {}
    spaces: dict[int, str] = {}
    for lv in levels:
        if not isinstance(lv, MemoryLevel):
            raise ConfigError(f"memory = {lv!r}: must be a [[memory]] table")
        if lv.name in by_name:
            raise ConfigError(f"memory.{lv.name}: two levels are named {lv.name!r}")
        if lv.space in spaces:
            raise ConfigError(f"memory.{lv.name}.space = {lv.space}: level {spaces[lv.space]!r} "
                              "already has this memory space")
        by_name[lv.name] = lv
        spaces[lv.space] = lv.name
    roots = [lv for lv in levels if lv.parent is None]
    if len(roots) != 1:
        raise ConfigError(f"memory: {len(roots)} levels without a parent "
                          f"({', '.join(lv.name for lv in roots) or 'none'}): exactly one, the "
                          "DRAM root, has none")
    children: dict[str, MemoryLevel] = {}
    for lv in levels:
        if lv.parent is None:
            continue
        if lv.parent not in by_name:
            raise ConfigError(f"memory.{lv.name}.parent = {lv.parent!r}: no level has that name "
                              f"(levels: {', '.join(by_name)})")
        if lv.parent in children:
            raise ConfigError(f"memory.{lv.name}.parent = {lv.parent!r}: {children[lv.parent].name!r} "
                              "is already its child; the levels form one chain from DRAM to the "
                              "compute unit")
        children[lv.parent] = lv
    root = roots[0]
    root = dataclasses.replace(root, read_bytes_per_cycle=dram.bandwidth_bytes_per_cycle,
                               write_bytes_per_cycle=dram.bandwidth_bytes_per_cycle,
                               ports=dram.channels, latency_cycles=dram.latency_cycles,
                               banks=dram.channels)
    chain = [root]
    while chain[-1].name in children:
        chain.append(children[chain[-1].name])
    if len(chain) != len(levels):  # a cycle among the others
        lost = [lv.name for lv in levels if lv.name not in {c.name for c in chain}]
        raise ConfigError(f"memory: levels {', '.join(lost)} do not descend from the root "
                          f"{root.name!r} (their parents form a cycle)")
    return tuple(chain)


def _apply_override(data: dict[str, Any], key: str, value: Any) -> None:
    """Write `key = value` (dotted as in the TOML) into `data`, the TOML shape of a config."""
    sec, dot, fld = key.partition(".")
    if not dot:
        if key not in _TOP_KEYS:
            raise ConfigError(f"{key} = {value!r}: unknown key (known top-level keys: "
                              f"{', '.join(_TOP_KEYS)}, {', '.join(_SECTIONS)}, {', '.join(_ARRAYS)})")
        data[key] = value
        return
    if sec in _ARRAYS:
        _apply_array_override(data, sec, fld, key, value)
        return
    cls = _SECTIONS.get(sec) if sec != "hierarchy" else HierarchyConfig
    if sec == "interconnect":
        cls = InterconnectConfig
    if cls is None:
        raise ConfigError(f"{key} = {value!r}: unknown section '{sec}' "
                          f"(known: {', '.join(_SECTIONS)}, hierarchy, interconnect, {', '.join(_ARRAYS)})")
    if sec == "sram" and "memory" in data:
        raise ConfigError(f"{key} = {value!r}: this machine has [[memory]] levels; set the level "
                          "beside the compute unit as memory.<name>.<key>")
    table = data.setdefault(sec, {})
    from accelsim.config_units import set_rate

    if not set_rate(table, key, value):  # a rate with a unit replaces its B/cycle key
        _known_field(cls, fld, key, value)
        table[fld] = value


def _apply_array_override(data: dict[str, Any], sec: str, rest: str, key: str, value: Any) -> None:
    """`memory.<level>.<field>` / `link.<child level>.<field>`."""
    item, dot, fld = rest.partition(".")
    if "memory" not in data:
        raise ConfigError(f"{key} = {value!r}: this machine has no [[memory]] levels (it is the "
                          "two-level machine of [dram] and [sram]: set dram.* / sram.* / dma.*)")
    if not dot:
        raise ConfigError(f"{key} = {value!r}: expected {sec}.<level name>.<key>, e.g. "
                          + ("memory.glb.capacity_kib" if sec == "memory" else "link.glb.engines"))
    ident = "name" if sec == "memory" else "dst"
    tables = data.setdefault(sec, [])
    match = [t for t in tables if t.get(ident) == item]
    level = [t for t in data["memory"] if t.get("name") == item]
    if not match and sec == "link" and level and level[0].get("parent") is not None:
        # a link without its own table so far: it gets one, from [dma]'s figures
        # (the [dma] keys a link has: not `max_rows`, which is the machine's)
        fields = {f.name for f in dataclasses.fields(LinkConfig)} - {"src", "dst"}
        dma = {k: v for k, v in data.get("dma", {}).items() if k in fields}
        tables.append({"src": level[0]["parent"], "dst": item, **dma})
        match = tables[-1:]
    if not match:
        names = ", ".join(str(t.get(ident)) for t in tables)
        if sec == "link":
            names = ", ".join(str(t.get("name")) for t in data["memory"] if t.get("parent") is not None)
        raise ConfigError(f"{key} = {value!r}: no {sec} {'level' if sec == 'memory' else 'to level'} "
                          f"{item!r} ({'levels' if sec == 'memory' else 'links to'}: {names})")
    _known_field(_ARRAYS[sec], fld, key, value)
    if sec == "memory" and match[0].get("parent") is None and "parent" not in match[0] \
            and fld not in MemoryLevel.ROOT_FIELDS:
        raise ConfigError(f"{key} = {value!r}: the root level's timing is the [dram] section "
                          "(dram.channels, dram.bandwidth_bytes_per_cycle, dram.latency_cycles)")
    match[0][fld] = value


def _known_field(cls: type, fld: str, key: str, value: Any) -> None:
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    if fld not in names:
        raise ConfigError(f"{key} = {value!r}: unknown key (known in [{cls.SECTION}]: "  # type: ignore[attr-defined]
                          f"{', '.join(names)})")


def config_from_dict(data: Mapping[str, Any], name: str = "custom") -> HardwareConfig:
    """Build from the TOML shape; unknown keys and sections are errors. A rate with a unit
    (`dram.bandwidth = "25.6 GB/s"`) becomes its bytes-per-cycle key (`accelsim.config_units`)."""
    from accelsim.config_units import resolve_rates

    data = resolve_rates(data, {"dram.bandwidth_bytes_per_cycle":
                                DramConfig.RULES["bandwidth_bytes_per_cycle"]})
    kwargs: dict[str, Any] = {"name": name}
    energy = data.get("energy", {})
    for key, value in data.items():
        if key in _SECTIONS or key in _EXTRA_SECTIONS:
            if not isinstance(value, Mapping):
                raise ConfigError(f"{key} = {value!r}: must be a table [{key}]")
            cls = _SECTIONS.get(key) or _EXTRA_SECTIONS[key]
            for fld, v in value.items():
                _known_field(cls, fld, f"{key}.{fld}", v)
            kwargs[key] = cls(**value)
        elif key in _ARRAYS:
            if not isinstance(value, list) or not all(isinstance(t, Mapping) for t in value):
                raise ConfigError(f"{key} = {value!r}: must be an array of tables [[{key}]]")
            kwargs[key] = tuple(_array_item(key, k, t, energy) for k, t in enumerate(value))
        elif key in _TOP_KEYS:
            kwargs[key] = value
        else:
            raise ConfigError(f"{key} = {value!r}: unknown key (known: {', '.join(_TOP_KEYS)}, "
                              f"{', '.join(_SECTIONS)}, hierarchy, interconnect, "
                              f"{', '.join(_ARRAYS)})")
    if "memory" in kwargs and "sram" in data:
        raise ConfigError("sram: a config with [[memory]] levels has no [sram] section (the level "
                          "beside the compute unit is the last [[memory]] level)")
    cfg = HardwareConfig(**kwargs)
    given = data.get("spaces", {})
    for which in ("dram", "sram") if cfg.memory else ():
        if which in given and given[which] != getattr(cfg.spaces, which):
            lv = cfg.memory_chain()[0 if which == "dram" else -1]
            raise ConfigError(f"spaces.{which} = {given[which]!r}: with [[memory]] levels it is "
                              f"the space of level {lv.name!r} ({lv.space})")
    return cfg


def _array_item(sec: str, k: int, table: Mapping[str, Any], energy: Mapping[str, Any]) -> Any:
    """One `[[memory]]` or `[[link]]` table, its keys checked and named as `memory.<name>.*`."""
    cls = _ARRAYS[sec]
    ident = "name" if sec == "memory" else "dst"
    label = table.get(ident)
    where = f"{sec}.{label}" if isinstance(label, str) and label else f"{sec}[{k}]"
    for req in (("name", "space") if sec == "memory" else ("src", "dst")):
        if req not in table:
            raise ConfigError(f"{where}: missing key '{req}'")
    for fld, v in table.items():
        _known_field(cls, fld, f"{where}.{fld}", v)
    values = dict(table)
    if sec == "memory":
        if values.get("parent") in ("", None):
            values["parent"] = None
            extra = [f for f in values if f not in MemoryLevel.ROOT_FIELDS]
            if extra:
                raise ConfigError(f"{where}.{extra[0]} = {values[extra[0]]!r}: the root level's "
                                  "timing is the [dram] section (dram.channels, "
                                  "dram.bandwidth_bytes_per_cycle, dram.latency_cycles)")
            values.setdefault("capacity_kib", DRAM_CAPACITY_KIB)
            pj = energy.get("dram_pj_per_byte", EnergyConfig().dram_pj_per_byte)
        else:
            pj = energy.get("sram_pj_per_byte", EnergyConfig().sram_pj_per_byte)
        values.setdefault("read_pj_per_byte", pj)
        values.setdefault("write_pj_per_byte", pj)
    return cls(**values)


def preset_names() -> list[str]:
    files = resources.files("accelsim") / "presets"
    return sorted(p.name[:-5] for p in files.iterdir() if p.name.endswith(".toml"))


def load_config(name_or_path: str = "default",
                overrides: Mapping[str, Any] | None = None) -> HardwareConfig:
    """A preset name (`default`, `edge`, `server`, ...) or a path to a TOML file, with
    `overrides` (dotted keys, as `--set`) applied and validated as the file's own keys."""
    cfg = _load(name_or_path)
    return cfg.with_overrides(overrides) if overrides else cfg


def _load(name_or_path: str) -> HardwareConfig:
    if name_or_path.endswith(".toml") or os.sep in name_or_path or os.path.isfile(name_or_path):
        try:
            with open(name_or_path, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise ConfigError(f"cannot read hardware config '{name_or_path}': {exc.strerror}")
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{name_or_path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                              f"offset {exc.start}); TOML files are UTF-8") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{name_or_path}: invalid TOML: {exc}")
        stem = os.path.splitext(os.path.basename(name_or_path))[0]
        return config_from_dict(data, name=str(data.get("name", stem)))
    res = resources.files("accelsim") / "presets" / f"{name_or_path}.toml"
    if not res.is_file():
        import difflib

        close = difflib.get_close_matches(name_or_path, preset_names(), n=2)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise ConfigError(f"unknown hardware preset '{name_or_path}'{hint} (presets: "
                          f"{', '.join(preset_names())}; or give a path to a .toml file)")
    data = tomllib.loads(res.read_text(encoding="utf-8"))
    return config_from_dict(data, name=str(data.get("name", name_or_path)))
