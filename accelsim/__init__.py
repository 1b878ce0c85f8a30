"""accelsim: an accelerator simulator with a DMA and memory-hierarchy model."""

__version__ = "0.1.0"

from accelsim.analytic import AnalyticResult, estimate
from accelsim.config import HardwareConfig, load_config
from accelsim.simulate import SimResult, simulate
from accelsim.trace import Trace, TraceRecord

__all__ = ["AnalyticResult", "HardwareConfig", "SimResult", "Trace", "TraceRecord", "estimate",
           "load_config", "simulate"]
