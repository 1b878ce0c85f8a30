"""The Python API, and the one orchestration the CLI, the DSE and networks share.

    import accelsim
    r = accelsim.run("gemm:M=256,N=256,K=256", config="cluster4")   # = accelsim run --target sim
    r.cycles; print(r.report); r.to_dict(); r.to_dataframe(); r.timeline("t.png"); r.trace("t.json")

- `run` (`entry.py`): a workload spec, an `.mlir` path, a Module or a network, with the
  options of `accelsim run` -> `Result` (`result.py`).
- `run_program` (`program_run.py`): compile for the machine -> compulsory traffic ->
  simulate or estimate (one cluster or many) -> figures, as a typed `ProgramRun`; the CLI's
  `--target sim`, the DSE's kernel points and networks' functional runs call it.
- `run_network` (`network_run.py`): a whole network, timing only or with data.
- `Program`, `load_program`, `load_inputs` (`program.py`): what a run is given.
- `simulate` (`entry.py`): a compiled module on the machine (`compile=True` compiles it
  first; a module never compiled for the machine warns).

Names load on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY = {
    "run": "accelsim.api.entry", "simulate": "accelsim.api.entry",
    "UncompiledModuleWarning": "accelsim.api.entry", "Result": "accelsim.api.result",
    "run_program": "accelsim.api.program_run", "RunOptions": "accelsim.api.program_run",
    "ProgramRun": "accelsim.api.program_run", "run_network": "accelsim.api.network_run",
    "NetworkOptions": "accelsim.api.network_run", "NetworkRun": "accelsim.api.network_run",
    "Program": "accelsim.api.program", "load_program": "accelsim.api.program",
    "load_inputs": "accelsim.api.program",
}

if TYPE_CHECKING:
    from accelsim.api.entry import UncompiledModuleWarning, run, simulate
    from accelsim.api.network_run import NetworkOptions, NetworkRun, run_network
    from accelsim.api.program import Program, load_inputs, load_program
    from accelsim.api.program_run import ProgramRun, RunOptions, run_program
    from accelsim.api.result import Result


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'accelsim.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = ["NetworkOptions", "NetworkRun", "Program", "ProgramRun", "Result", "RunOptions",
           "UncompiledModuleWarning", "load_inputs", "load_program", "run", "run_network",
           "run_program", "simulate"]
