"""The memory hierarchy in the report: a row per memory level and per link, and the
hierarchical roofline (one ceiling per link).

Definitions (bytes are payload bytes, except DRAM's, which are the burst-granular bytes on
its channels as everywhere in the report):
- a level's bytes read / written: by DMAs (a hop down reads its parent and writes its child;
  up the reverse; a copy within a level reads and writes it) and by kernels (their operand
  bytes in the level, counted as read); the two-level machine's SRAM from the DMA directions
  and the kernels' SRAM bytes. `peak_bytes`: the run's allocation high-water mark in it.
  Energy: bytes read x read_pj_per_byte + bytes written x write_pj_per_byte.
- a link's bytes: what its engines moved; busy cycles: the union of its engines' busy
  intervals (setup to completion); peak bytes/cycle: the smaller of the parent's read peak
  and the child's write peak (every port); achieved: bytes / the run's cycles; hidden: its
  busy cycles while a compute unit is busy; exposed: control-processor stall cycles while
  it is busy and no compute unit is (a stall while two links are busy counts for both).
  The two-level machine's one link is every DMA engine (its hidden / exposed cycles are the
  report's DMA totals).
- hierarchical roofline: the compute ceiling (the kernels' ideal cycles) and one ceiling per
  link, its bytes / its peak; the largest is the bound.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from accelsim.config import HardwareConfig
from accelsim.trace import Trace
from accelsim.trace.coverage import Coverage
from accelsim.trace.summary import SummaryFigures


@dataclass(frozen=True, slots=True)
class LevelRow:
    name: str
    space: int
    capacity_bytes: int
    peak_bytes: int
    bytes_read: int
    bytes_written: int
    energy_pj: float

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "space": self.space, "capacity_bytes": self.capacity_bytes,
                "peak_bytes": self.peak_bytes, "bytes_read": self.bytes_read,
                "bytes_written": self.bytes_written, "energy_pj": self.energy_pj}


@dataclass(frozen=True, slots=True)
class LinkRow:
    src: str
    dst: str
    engines: int
    bytes: int
    busy_cycles: int
    peak_bytes_per_cycle: int
    achieved_bytes_per_cycle: float
    hidden_cycles: int
    exposed_cycles: int

    @property
    def name(self) -> str:
        return f"{self.src}->{self.dst}"

    @property
    def ceiling_cycles(self) -> int:
        """This link's roofline ceiling: its bytes at its peak bandwidth."""
        from accelsim.cost.rate import cycles_for

        return cycles_for(self.bytes, self.peak_bytes_per_cycle)

    def to_dict(self) -> dict[str, Any]:
        return {"src": self.src, "dst": self.dst, "bytes": self.bytes,
                "busy_cycles": self.busy_cycles, "peak_bytes_per_cycle": self.peak_bytes_per_cycle,
                "achieved_bytes_per_cycle": self.achieved_bytes_per_cycle,
                "ceiling_cycles": self.ceiling_cycles, "hidden_cycles": self.hidden_cycles,
                "exposed_cycles": self.exposed_cycles, "engines": self.engines}


def link_units(config: HardwareConfig) -> list[list[str]]:
    """The trace units of each link's engines, in `config.links()` order."""
    return [config.engine_names(k) for k in range(len(config.links()))]


def port_units(config: HardwareConfig) -> list[str]:
    """The trace units of the ports of the levels that are some link's parent (on-chip)."""
    return [f"port.{lv.name}.{k}" for lv in config.memory_chain()[1:-1] for k in range(lv.ports)]


def level_rows(config: HardwareConfig, tf: SummaryFigures, stats: Any,
               peaks: Mapping[str, int], sram_peak: int, buffers: Sequence[Any]) -> tuple[LevelRow, ...]:
    chain = config.memory_chain()
    peak = {lv.name: peaks.get(lv.name, 0) for lv in chain}
    peak[chain[-1].name] = sram_peak
    dram = (tf.dram_read, tf.dram_written, tf.dram_copied)
    return rows_of(config, level_traffic(config, dram, stats, buffers), peak)


def level_traffic(config: HardwareConfig, dram: tuple[int, int, int], stats: Any,
                  buffers: Sequence[Any] = ()) -> list[tuple[int, int]]:
    """(bytes read, bytes written) of every level in chain order (module docstring): DRAM's
    from `dram` (bytes read, written, copied within it: a copy counted half each way), the
    rest from `stats` (and, on the two-level machine, the `buffers`' directions)."""
    chain = config.memory_chain()
    read, written, copied = dram
    rw: list[tuple[int, int]] = [(read + copied // 2, written + copied - copied // 2)]
    if config.single_link:  # no hops counted: the one link's transfers by direction
        into = sum(b.bytes for b in buffers if b.direction == "in")
        out = sum(b.bytes for b in buffers if b.direction == "out")
        within = max(0, int(stats.dma_sram_bytes) - into - out) // 2
        rw.append((out + within + int(stats.kernel_sram_bytes), into + within))
    else:
        dma = stats.level_dma_bytes or [[0, 0] for _ in chain]
        kernel = stats.kernel_level_bytes
        for k, lv in enumerate(chain[1:], start=1):
            rw.append((dma[k][0] + kernel.get(lv.space, 0), dma[k][1]))
    return rw


def rows_of(config: HardwareConfig, rw: Sequence[tuple[int, int]], peaks: Mapping[str, int]
            ) -> tuple[LevelRow, ...]:
    """A `LevelRow` per level of `config` from its `level_traffic` and its peak (by name):
    the energy is its bytes at the level's own read / write pJ per byte."""
    return tuple(LevelRow(lv.name, lv.space, lv.capacity_bytes, int(peaks.get(lv.name, 0)),
                          int(r), int(w), r * lv.read_pj_per_byte + w * lv.write_pj_per_byte)
                 for lv, (r, w) in zip(config.memory_chain(), rw, strict=True))


def link_rows(config: HardwareConfig, trace: Trace, tf: SummaryFigures, total: int
              ) -> tuple[LinkRow, ...]:
    chain = config.memory_chain()
    units = link_units(config)
    covers = None if config.single_link else _link_covers(trace, units)
    rows = []
    for k, lk in enumerate(config.links()):
        nbytes = sum(tf.units.get(u, (0, 0, 0))[1] for u in units[k])
        if covers is None:  # the one link: every engine
            busy, hidden, exposed = tf.dma_busy, tf.hidden, tf.exposed
        else:
            busy, hidden, exposed = covers[k]
        peak = min(chain[k].read_peak, chain[k + 1].write_peak)
        rows.append(LinkRow(lk.src, lk.dst, lk.engines, int(nbytes), int(busy), peak,
                            nbytes / total if total else 0.0, int(hidden), int(exposed)))
    return tuple(rows)


def _link_covers(trace: Trace, units: Sequence[Sequence[str]]) -> list[tuple[int, int, int]]:
    """Per link (busy, hidden, exposed) from the records (a run of several links keeps them)."""
    recs = trace.kept_records()
    by_unit: dict[str, list[tuple[int, int]]] = {}
    for r in recs:
        by_unit.setdefault(r.unit, []).append((r.start, r.end))

    def cover(pairs: list[tuple[int, int]]) -> Coverage:
        a = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        return Coverage.of(a[:, 0], a[:, 1])

    kernel = cover([(r.start, r.end) for r in recs if r.kind == "kernel"])
    stall = cover([(r.start, r.end) for r in recs if r.kind == "stall"])
    out = []
    for names in units:
        link = cover([p for u in names for p in by_unit.get(u, ())])
        # |stall & link & kernel| by inclusion-exclusion over unions
        def u(*cs: Coverage) -> int:
            return Coverage.of(np.concatenate([c.s for c in cs]), np.concatenate([c.e for c in cs])).total
        triple = (stall.total + link.total + kernel.total - u(stall, link) - u(stall, kernel)
                  - u(link, kernel) + u(stall, link, kernel))
        out.append((link.total, link.intersection(kernel), stall.intersection(link) - triple))
    return out


def hierarchical_roofline(compute_cycles: int, links: Sequence[LinkRow]) -> tuple[int, str]:
    """(the roofline cycles, what bounds them: "compute" or a link's name)."""
    best, bound = compute_cycles, "compute"
    for row in links:
        if row.ceiling_cycles > best:
            best, bound = row.ceiling_cycles, row.name
    return best, bound
