"""The machine: one SimPy environment and every hardware component, built from a config.

The two-level machine (DRAM, SRAM, one set of DMA engines) is what every preset but the
multi-level ones builds. With memory levels (`HardwareConfig.multi_level`) it has a capacity
per level (`levels`, by memory space), a port group per on-chip level and the engines of every
link (`links`, in `config.links()` order); `sram` is the level beside the compute unit and
`engines` the first link's."""

from __future__ import annotations

from accelsim.config import HardwareConfig
from accelsim.cost.engine import EnginePolicy
from accelsim.hw import ComputeUnit, ControlProcessor, DmaEngines, Dram, SimEnv, Sram, TagFile
from accelsim.hw.levels import LinkEngines, PortGroup
from accelsim.trace import Trace


class Machine:
    def __init__(self, config: HardwareConfig, trace: Trace | None = None):
        self.config = config
        self.env = SimEnv()
        self.trace = trace if trace is not None else Trace()
        self.dram = Dram(config.dram, self.trace)
        self.tags = TagFile()
        self.compute = ComputeUnit(self.env, 0, self.trace)
        self.ports: dict[str, PortGroup] = {}
        self.links: list[LinkEngines] = []
        if not config.multi_level:
            self.sram = Sram(config.sram)
            dram = Sram.for_level(config.memory_chain()[0])  # its high-water mark only
            self.levels: dict[int, Sram] = {config.spaces.dram: dram, config.spaces.sram: self.sram}
            self.engines = DmaEngines(config.dma.engines, config.dma.max_outstanding)
        else:
            chain = config.memory_chain()
            self.levels = {lv.space: Sram.for_level(lv) for lv in chain}
            self.sram = self.levels[chain[-1].space]
            self.ports = {lv.name: PortGroup(lv, self.trace) for lv in chain[1:]}
            for k, lk in enumerate(config.links()):
                parent = self.dram if k == 0 else self.ports[chain[k].name]
                self.links.append(LinkEngines(lk, EnginePolicy.for_link(config, k), parent))
            self.engines = self.links[0]
        self.cp = ControlProcessor(self.env, self.engines, self.dram,
                                   EnginePolicy.for_config(config), config.control.issue_cycles,
                                   self.trace, self.links)

    def level_peaks(self) -> dict[int, int]:
        """The allocation high-water mark of every level tracked, by memory space."""
        return {space: mem.peak for space, mem in self.levels.items()}
