"""SimPy hardware components, one per file. None keeps its own clock: time is `env.now`."""

from accelsim.hw.compute import ComputeUnit
from accelsim.hw.control import ControlProcessor
from accelsim.hw.dma import Descriptor, DmaEngine
from accelsim.hw.dram import Dram
from accelsim.hw.sram import Sram
from accelsim.hw.tags import PendingTransfer, TagFile

__all__ = ["ComputeUnit", "ControlProcessor", "Descriptor", "DmaEngine", "Dram", "PendingTransfer",
           "Sram", "TagFile"]
