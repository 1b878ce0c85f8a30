"""SimPy hardware components, one per file. None keeps its own clock: time is `env.now`
(`SimEnv`, which the control processor drives)."""

from accelsim.hw.compute import ComputeUnit
from accelsim.hw.control import ControlProcessor
from accelsim.hw.dma import DmaEngines, Transfer
from accelsim.hw.dram import Dram
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.hw.sram import Sram
from accelsim.hw.tags import TagFile

__all__ = ["ComputeUnit", "ControlProcessor", "DmaEngines", "Dram", "SimEnv", "Sram", "TagFile",
           "Transfer"]
