"""Units a user adds to the machine: the SimPy extension seam (docs/concepts/extending.md).

A unit is a SimPy component. Its life in a run:

1. **attached**: `simulate(..., units=[MyUnit(...)])` builds the machine and calls
   `unit.attach(env, config, trace)` once, before the program starts: the unit gets the
   SimPy environment (a `simpy.Environment`: make `simpy.Resource`s, `env.timeout`s and
   processes on it as in any SimPy model), the hardware config and the trace.
2. **given work**: a `LinkUnit` sits on the DRAM link, in the path of every DMA with a DRAM
   side. When the control processor hands a descriptor to a DMA engine, the engine moves
   `unit.link_bytes(nbytes, kind)` bytes on DRAM (e.g. compressed bytes; rounded up to whole
   bursts) instead of `nbytes`, with the DRAM channels, setup and latency as always; when
   those bytes have crossed the link, `unit.serve(work)` runs as a SimPy process
   (`env.process`), and the DMA completes (its tag is signalled) when that process returns.
   A unit with `link_bytes` unchanged and a `serve` that yields nothing changes no cycle.
3. **reporting**: `unit.record(start, end, nbytes, work)` appends a trace record under the
   unit's name (kind `"unit"`): the report's unit table shows its busy cycles, utilization
   and bytes like any engine's, the timeline a lane for it; the energy the unit adds up in
   `unit.energy_pj` is the report's `energy_units_pj`, part of its total.

Only the event fidelity runs units (the analytic estimate and the tile search do not see
them), on one cluster, with `dram.model = "bandwidth"`.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import simpy

from accelsim.config import HardwareConfig
from accelsim.errors import ConfigError
from accelsim.trace import Trace, TraceRecord

# unit names the report already gives a meaning by prefix (report/figures.py `UNIT_ORDER`)
_RESERVED = ("cp", "dma", "dram", "port", "compute")


@dataclass(frozen=True, slots=True)
class LinkWork:
    """One DMA as a `LinkUnit` on the DRAM link sees it."""

    label: str        # the DMA's buffers, as the trace names them
    loc: str          # its dma_start's location in the program
    kind: str         # "read" (DRAM -> SRAM), "write" (SRAM -> DRAM) or "copy"
    nbytes: int       # bytes on DRAM at burst granularity, as the program asks
    link_bytes: int   # bytes the engine moved on DRAM (`LinkUnit.link_bytes`, whole bursts)
    payload: int      # bytes the program asked for


class Unit:
    """A hardware unit added to the machine (module docstring). Subclasses set `name` and
    override the hooks of the kind of work they take (`LinkUnit`)."""

    name: str = "unit"
    env: simpy.Environment
    config: HardwareConfig
    trace: Trace
    energy_pj: float

    def attach(self, env: simpy.Environment, config: HardwareConfig, trace: Trace) -> None:
        """Called once per run when the machine is built; a subclass that makes SimPy
        resources makes them here (and calls this first)."""
        if not self.name or self.name.startswith(_RESERVED):
            raise ConfigError(f"unit name {self.name!r}: must be non-empty and not start with "
                              f"{', '.join(repr(p) for p in _RESERVED)} (the report's unit "
                              "groups)")
        self.env, self.config, self.trace = env, config, trace
        self.energy_pj = 0.0

    def record(self, start: int, end: int, nbytes: int, work: LinkWork | None = None) -> None:
        """The unit was busy in [start, end) on `nbytes` bytes (of `work`): a trace record."""
        label, loc = (work.label, work.loc) if work is not None else ("", "")
        self.trace.records.append(TraceRecord(self.name, start, end, "unit", nbytes, label, loc))


class LinkUnit(Unit):
    """A unit on the DRAM link, in the path of every DMA with a DRAM side (module
    docstring). The defaults change nothing."""

    def link_bytes(self, nbytes: int, kind: str) -> int:
        """The bytes the engine moves on DRAM for a DMA of `nbytes` (burst-rounded) bytes of
        `kind`; the machine rounds the answer up to whole bursts."""
        return nbytes

    def serve(self, work: LinkWork) -> Generator[simpy.Event, Any, None]:
        """The unit's work on one DMA, a SimPy process started when the DMA's bytes have
        crossed the link; the DMA completes when it returns."""
        yield from ()


def check_units(units: tuple[Unit, ...], config: HardwareConfig) -> LinkUnit | None:
    """The one `LinkUnit` of `units` (None without), or a `ConfigError` for what the machine
    cannot run."""
    link = [u for u in units if isinstance(u, LinkUnit)]
    other = [u for u in units if not isinstance(u, LinkUnit)]
    if other:
        raise ConfigError(f"unit {other[0].name!r} ({type(other[0]).__name__}): the machine "
                          "takes LinkUnit subclasses (a unit on the DRAM link)")
    if len(link) > 1:
        raise ConfigError(f"{len(link)} units on the DRAM link ({', '.join(u.name for u in link)}): "
                          "at most one")
    if link and not config.single_link:
        raise ConfigError("a unit on the DRAM link of a machine with more than two memory "
                          "levels is not supported (the two-level machine only)")
    if link and config.dram.model != "bandwidth":
        raise ConfigError(f"a unit on the DRAM link with dram.model = {config.dram.model!r}: "
                          "only the bandwidth model is supported")
    return link[0] if link else None
