"""SRAM: capacity accounting for the buffers allocated in the fast memory space, and the
bank bandwidth that bounds kernels and DMAs (`banks * bank_bytes_per_cycle` bytes/cycle).

There is one per on-chip level (`Sram.for_level`), and one for DRAM that only keeps the
high-water mark (no capacity check: the program's arguments live there)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from accelsim.config import MemoryLevel, SramConfig
from accelsim.errors import CapacityError
from compiler.diagnostics import Location


@dataclass(frozen=True, slots=True)
class Allocation:
    name: str
    nbytes: int
    loc: Location


class Sram:
    def __init__(self, cfg: SramConfig, what: str = "SRAM", checked: bool = True):
        self.cfg = cfg
        self.capacity = cfg.capacity_bytes
        self.what = what        # how messages name it
        self.checked = checked  # False: DRAM, only the high-water mark
        self.live: dict[int, Allocation] = {}
        self.used = 0
        self.peak = 0
        self._next = 0

    @property
    def bytes_per_cycle(self) -> int:
        return self.cfg.bytes_per_cycle

    def allocate(self, name: str, nbytes: int, loc: Location, op_name: str, cycle: int) -> int:
        """Returns a handle for `free`; raises CapacityError naming the live buffers."""
        if self.used + nbytes > self.capacity and self.checked:
            live = ", ".join(f"{a.name} ({a.nbytes} B, {a.loc})" for a in self.live.values()) or "none"
            raise CapacityError(
                f"{op_name} of {name} ({nbytes} B) at cycle {cycle} does not fit in {self.what}: "
                f"capacity {self.capacity} B, {self.used} B in use, "
                f"{self.capacity - self.used} B free; live buffers: {live}", loc)
        self._next += 1
        self.live[self._next] = Allocation(name, nbytes, loc)
        self.used += nbytes
        self.peak = max(self.peak, self.used)
        return self._next

    @staticmethod
    def for_level(level: MemoryLevel, names: Mapping[int, str]) -> Sram:
        """The capacity of one memory level (the root: unchecked), named in messages as
        `names` (`HardwareConfig.level_names`) has it: "SRAM" on a machine of two levels."""
        cfg = SramConfig(min(level.capacity_kib, 1 << 22), 1, 1)
        what = f"memory level {level.name} (space {level.space})" if level.space in names else "SRAM"
        mem = Sram(cfg, what, checked=not level.is_root)
        mem.capacity = level.capacity_bytes
        return mem

    def free(self, handle: int) -> None:
        a = self.live.pop(handle)
        self.used -= a.nbytes
