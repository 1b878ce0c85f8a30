"""SRAM: capacity accounting for the buffers allocated in the fast memory space, and the
bank bandwidth that bounds kernels and DMAs (`banks * bank_bytes_per_cycle` bytes/cycle)."""

from __future__ import annotations

from dataclasses import dataclass

from accelsim.config import SramConfig
from accelsim.errors import CapacityError
from compiler.diagnostics import Location


@dataclass(frozen=True, slots=True)
class Allocation:
    name: str
    nbytes: int
    loc: Location


class Sram:
    def __init__(self, cfg: SramConfig):
        self.cfg = cfg
        self.capacity = cfg.capacity_bytes
        self.live: dict[int, Allocation] = {}
        self.used = 0
        self.peak = 0
        self._next = 0

    @property
    def bytes_per_cycle(self) -> int:
        return self.cfg.bytes_per_cycle

    def allocate(self, name: str, nbytes: int, loc: Location, op_name: str, cycle: int) -> int:
        """Returns a handle for `free`; raises CapacityError naming the live buffers."""
        if self.used + nbytes > self.capacity:
            live = ", ".join(f"{a.name} ({a.nbytes} B, {a.loc})" for a in self.live.values()) or "none"
            raise CapacityError(
                f"{op_name} of {name} ({nbytes} B) at cycle {cycle} does not fit in SRAM: "
                f"capacity {self.capacity} B, {self.used} B in use, "
                f"{self.capacity - self.used} B free; live buffers: {live}", loc)
        self._next += 1
        self.live[self._next] = Allocation(name, nbytes, loc)
        self.used += nbytes
        self.peak = max(self.peak, self.used)
        return self._next

    def free(self, handle: int) -> None:
        a = self.live.pop(handle)
        self.used -= a.nbytes
