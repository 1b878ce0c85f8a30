"""accelsim: an accelerator simulator with a DMA and memory-hierarchy model.

    import accelsim
    r = accelsim.run("gemm:M=256,N=256,K=256", config="default")  # = accelsim run ... --target sim
    r.cycles, print(r.report), r.to_dict()

`run` compiles for the machine and simulates (`accelsim.api`); `simulate` runs a module that
is already compiled for it, `analytic_estimate` estimates one without SimPy. The public names
load on first use (PEP 562), so `accelsim opt` and `--help` do not pay for SimPy, the analytic
model and the cost model. A public name never equals a subpackage's (`accelsim.estimate` is
the subpackage: an attribute of that name would be replaced by it on its first import).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    "AnalyticResult": "accelsim.estimate.analytic", "analytic_estimate": "accelsim.estimate.analytic",
    "HardwareConfig": "accelsim.config", "load_config": "accelsim.config",
    "Result": "accelsim.api.result", "run": "accelsim.api.entry",
    "SimResult": "accelsim.sim.simulate", "simulate": "accelsim.api.entry",
    "Trace": "accelsim.trace", "TraceRecord": "accelsim.trace",
}
_RENAMED = {"analytic_estimate": "estimate"}  # public name -> the name in its module

if TYPE_CHECKING:
    from accelsim.api.entry import run, simulate
    from accelsim.api.result import Result
    from accelsim.config import HardwareConfig, load_config
    from accelsim.estimate.analytic import AnalyticResult
    from accelsim.estimate.analytic import estimate as analytic_estimate
    from accelsim.sim.simulate import SimResult
    from accelsim.trace import Trace, TraceRecord


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'accelsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["AnalyticResult", "HardwareConfig", "Result", "SimResult", "Trace", "TraceRecord",
           "analytic_estimate", "load_config", "run", "simulate"]
