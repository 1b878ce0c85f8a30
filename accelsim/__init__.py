"""accelsim: an accelerator simulator with a DMA and memory-hierarchy model.

The public names load on first use (PEP 562), so `accelsim opt` and `--help` do not pay for
SimPy, the analytic model and the cost model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    "AnalyticResult": "accelsim.estimate.analytic", "estimate": "accelsim.estimate.analytic",
    "HardwareConfig": "accelsim.config", "load_config": "accelsim.config",
    "SimResult": "accelsim.sim.simulate", "simulate": "accelsim.sim.simulate",
    "Trace": "accelsim.trace", "TraceRecord": "accelsim.trace",
}

if TYPE_CHECKING:
    from accelsim.config import HardwareConfig, load_config
    from accelsim.estimate.analytic import AnalyticResult, estimate
    from accelsim.sim.simulate import SimResult, simulate
    from accelsim.trace import Trace, TraceRecord


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'accelsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["AnalyticResult", "HardwareConfig", "SimResult", "Trace", "TraceRecord", "estimate",
           "load_config", "simulate"]
