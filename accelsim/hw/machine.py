"""The machine: one SimPy environment and every hardware component, built from a config."""

from __future__ import annotations

from accelsim.config import HardwareConfig
from accelsim.cost.dram_timing import DramTiming
from accelsim.cost.engine import EnginePolicy
from accelsim.hw import ComputeUnit, ControlProcessor, DmaEngines, Dram, SimEnv, Sram, TagFile
from accelsim.trace import Trace


class Machine:
    def __init__(self, config: HardwareConfig, trace: Trace | None = None):
        self.config = config
        self.env = SimEnv()
        self.trace = trace if trace is not None else Trace()
        self.dram = Dram(config.dram, self.trace, DramTiming.for_config(config)
                         if config.dram.model == "timing" else None)
        self.sram = Sram(config.sram)
        self.engines = DmaEngines(config.dma.engines, config.dma.max_outstanding)
        self.tags = TagFile()
        self.compute = ComputeUnit(self.env, 0, self.trace)
        self.cp = ControlProcessor(self.env, self.engines, self.dram,
                                   EnginePolicy.for_config(config), config.control.issue_cycles,
                                   self.trace)
