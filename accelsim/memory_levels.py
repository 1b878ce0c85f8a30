"""The memory levels of a hardware config: `[[memory]]` levels rooted at DRAM, the `[[link]]`s
between adjacent levels with their DMA engines (`[dma]`: a link's default), `[hierarchy]`,
and the chain they form (the two-level machine of `[dram]` and `[sram]` is the derived case).
`accelsim.config` composes them into `HardwareConfig`."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from accelsim.config_rules import Rate, Rule, check_fields, fmt_number
from accelsim.errors import ConfigError

_check, _fmt = check_fields, fmt_number


@dataclass(frozen=True, slots=True)
class DmaConfig:
    """DMA engines, each with a descriptor queue; `setup_cycles` is paid per descriptor."""

    SECTION: ClassVar[str] = "dma"
    RULES: ClassVar[dict[str, Rule]] = {
        "engines": (int, 1, 64),
        "queue_depth": (int, 1, 1024),
        "setup_cycles": (int, 0, 100_000),
        "max_outstanding": (int, 1, 1024),
        "max_rows": (int, 0, 1 << 20),
    }
    engines: int = 2
    queue_depth: int = 4
    setup_cycles: int = 16
    # descriptors an engine keeps in flight: it sets up and transfers the next one while the
    # DRAM access latency of earlier ones runs (1 = wait for each completion)
    max_outstanding: int = 8
    # rows (chunks of a strided transfer) one descriptor moves at most: the compiler cuts a
    # longer copy into descriptors of that many rows (Gemmini's mvin: DIM rows); 0: no limit
    max_rows: int = 0

    def __post_init__(self) -> None:
        _check(self.SECTION, self)




@dataclass(frozen=True, slots=True)
class HierarchyConfig:
    """How the memory levels are used: `non_adjacent` says what a DMA between two levels that
    are not parent and child does: "refuse" (a HazardError naming the op and both levels) or
    "route" (it is carried hop by hop over every link between them, store-and-forward)."""

    SECTION: ClassVar[str] = "hierarchy"
    RULES: ClassVar[dict[str, Rule]] = {"non_adjacent": (str, ("refuse", "route"))}
    non_adjacent: str = "refuse"

    def __post_init__(self) -> None:
        _check(self.SECTION, self)


@dataclass(frozen=True, slots=True)
class MemoryLevel:
    """One memory level (a `[[memory]]` table). The root (no `parent`) is DRAM, whose timing
    is the `[dram]` section: its bandwidth, ports (= channels), latency and banks are derived
    from there. Bandwidths are per port; `ports` transfers are served at once. `banks` is
    reported with the level but not (yet) part of the timing: the per-port bandwidth is."""

    SECTION: ClassVar[str] = "memory"
    RULES: ClassVar[dict[str, Rule]] = {
        "space": (int, 0, 255),
        "capacity_kib": (int, 1, 1 << 32),
        "read_bytes_per_cycle": (Rate, 0.01, 1 << 22),  # as [sram] banks x bank_bytes_per_cycle
        "write_bytes_per_cycle": (Rate, 0.01, 1 << 22),
        "ports": (int, 1, 64),
        "latency_cycles": (int, 0, 100_000),
        "banks": (int, 1, 1024),
        "read_pj_per_byte": (float, 0, 1e6),
        "write_pj_per_byte": (float, 0, 1e6),
    }
    # the fields a root table may give (the rest is [dram]'s)
    ROOT_FIELDS: ClassVar[tuple[str, ...]] = ("name", "space", "capacity_kib", "read_pj_per_byte",
                                               "write_pj_per_byte", "parent")
    name: str
    space: int
    parent: str | None = None
    capacity_kib: int = 256
    read_bytes_per_cycle: int | float = 64
    write_bytes_per_cycle: int | float = 64
    ports: int = 1
    latency_cycles: int = 1
    banks: int = 8
    read_pj_per_byte: float = 2.5
    write_pj_per_byte: float = 2.5

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_RE.fullmatch(self.name):
            raise ConfigError(f"memory.name = {self.name!r}: must be a name of letters, digits "
                              "and _ (starting with a letter), e.g. \"glb\"")
        if self.parent is not None and not isinstance(self.parent, str):
            raise ConfigError(f"memory.{self.name}.parent = {self.parent!r}: must be the name of "
                              "another level")
        _check(f"memory.{self.name}", self)

    @property
    def capacity_bytes(self) -> int:
        return self.capacity_kib * 1024

    @property
    def is_root(self) -> bool:
        return self.parent is None

    @property
    def read_peak(self) -> int | float:
        """Bytes per cycle read over every port."""
        return self.read_bytes_per_cycle * self.ports

    @property
    def write_peak(self) -> int | float:
        return self.write_bytes_per_cycle * self.ports


@dataclass(frozen=True, slots=True)
class LinkConfig:
    """The link between a level (`dst`) and its parent (`src`), with its own DMA engines (a
    `[[link]]` table; a pair without one takes the `[dma]` section's figures). It carries
    transfers both ways; `--set link.<dst>.engines=4` names a link by its child level."""

    SECTION: ClassVar[str] = "link"
    RULES: ClassVar[dict[str, Rule]] = DmaConfig.RULES
    src: str
    dst: str
    engines: int = 2
    queue_depth: int = 4
    setup_cycles: int = 16
    max_outstanding: int = 8

    def __post_init__(self) -> None:
        for end in ("src", "dst"):
            v = getattr(self, end)
            if not isinstance(v, str) or not v:
                raise ConfigError(f"link.{end} = {v!r}: must be the name of a memory level")
        _check(f"link.{self.dst}", self)

    @property
    def name(self) -> str:
        return f"{self.src}->{self.dst}"

    @property
    def dma(self) -> DmaConfig:
        """This link's engines as a `[dma]` section (what the engine policy reads)."""
        return DmaConfig(self.engines, self.queue_depth, self.setup_cycles, self.max_outstanding)


_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def level_dict(lv: MemoryLevel) -> dict[str, Any]:
    d = {f.name: getattr(lv, f.name) for f in dataclasses.fields(lv)}
    if lv.parent is None:
        d = {k: v for k, v in d.items() if k in MemoryLevel.ROOT_FIELDS and k != "parent"}
    return d


def link_dict(lk: LinkConfig) -> dict[str, Any]:
    return {f.name: getattr(lk, f.name) for f in dataclasses.fields(lk)}


def links_of(chain: Sequence[MemoryLevel], given: Sequence[LinkConfig], dma: DmaConfig
              ) -> tuple[LinkConfig, ...]:
    """A link per adjacent pair, the given `[[link]]` or one with [dma]'s figures."""
    parent = {lv.name: lv.parent for lv in chain}
    by_dst: dict[str, LinkConfig] = {}
    for lk in given:
        if not isinstance(lk, LinkConfig):
            raise ConfigError(f"link = {lk!r}: must be a [[link]] table")
        if lk.dst not in parent or lk.src not in parent:
            bad = lk.dst if lk.dst not in parent else lk.src
            raise ConfigError(f"link {lk.name}: no memory level is named {bad!r} (levels: "
                              f"{', '.join(parent)})")
        if parent[lk.dst] != lk.src:
            want = parent[lk.dst]
            raise ConfigError(f"link {lk.name}: {lk.dst!r} is not a child of {lk.src!r} "
                              + (f"(its parent is {want!r}); " if want else "(it is the root); ")
                              + "a link joins a level (dst) and its parent (src)")
        if lk.dst in by_dst:
            raise ConfigError(f"link {lk.name}: given twice")
        by_dst[lk.dst] = lk
    return tuple(by_dst.get(lv.name) or LinkConfig(lv.parent, lv.name, dma.engines, dma.queue_depth,
                                                   dma.setup_cycles, dma.max_outstanding)
                 for lv in chain[1:] if lv.parent is not None)
