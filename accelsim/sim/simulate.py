"""`accelsim.sim.simulate`: run a compiled module on the machine and collect trace and outputs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accelsim.config import HardwareConfig, load_config
from accelsim.errors import InputError
from accelsim.hw.units import Unit
from accelsim.sim.executor import Executor
from accelsim.sim.native import KernelRunner, backend_runner
from accelsim.sim.options import SimOptions
from accelsim.sim.stats import RunStats
from accelsim.trace import Trace
from compiler.ir.entry import entry_function
from compiler.ir.ops import ModuleOp


@dataclass(slots=True)
class SimResult:
    trace: Trace
    outputs: dict[str, np.ndarray] | None
    cycles: int
    config: HardwareConfig
    stats: RunStats
    sram_peak_bytes: int
    func: str
    fidelity: str = "event"
    extra: dict[str, Any] = field(default_factory=dict)
    # the allocation high-water mark of each memory level, by level name
    level_peaks: dict[str, int] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return self.cycles / (self.config.clock_ghz * 1e9)

    @property
    def flags(self) -> list[str]:
        return self.stats.flags + self.stats.unwaited


def simulate(module: ModuleOp, config: HardwareConfig | str = "default",
             inputs: Mapping[str, np.ndarray] | None = None, func: str | None = None,
             functional: bool | None = None, kernel_runner: KernelRunner | None = None,
             outline: bool | None = None, interpret_kernels: bool | None = None,
             compiled: bool | None = None, *, options: SimOptions | None = None,
             units: Sequence[Unit] = ()) -> SimResult:
    """Execute `module` on the machine `config` (a HardwareConfig or preset name/path), as
    `options` say (`SimOptions()` by default; the flags `functional`, `outline`,
    `interpret_kernels`, `compiled`, when given, replace the fields of that name).

    Functional by default: inputs (missing ones are zeros) are copied, DMAs move the data, and
    kernels run natively (host backend; `interpret_kernels=True` or no backend: the executor
    interprets them). `functional=False` skips all data.
    Loop nests outside kernels are outlined first (`outline-kernels`) when `outline` is true.
    `compiled=False` interprets the control program op by op instead of compiling it to
    Python (same results; for cross-checking the compiled form).
    `units`: user-defined SimPy units added to the machine (`accelsim.hw.units`,
    docs/concepts/extending.md); their energy is the trace's `unit_energy_pj`.
    """
    opts = (options or SimOptions()).updated(functional=functional, outline=outline,
                                             interpret_kernels=interpret_kernels,
                                             compiled=compiled)
    cfg = load_config(config) if isinstance(config, str) else config
    if cfg.clusters > 1:
        raise InputError(f"simulate() runs one cluster's program; config {cfg.name!r} has "
                         f"clusters = {cfg.clusters}: compile with accelsim.compile.clusters."
                         "compile_for_clusters and run accelsim.sim.clusters.simulate_clusters "
                         "(or --set clusters=1)")
    inline_note = None
    if opts.outline:
        from compiler.transforms.outline_kernels import ensure_outlined, needs_outlining

        module = ensure_outlined(module)
        if needs_outlining(module):
            inline_note = ("a loop nest returning values stayed in the control program (not "
                           "outlined): the control processor executed it in zero cycles")
    f = entry_function(module, func, InputError)
    runner = kernel_runner
    if opts.functional and runner is None and not opts.interpret_kernels:
        runner = backend_runner(module)
    note = None
    if isinstance(runner, str):
        note = f"host backend could not compile the module ({runner}); kernels were interpreted"
        runner = None
    ex = Executor(module, cfg, options=opts, kernel_runner=runner, units=units)
    for n in (note, inline_note):
        if n:
            ex.stats.flags.append(n)
    bufs = ex.run(f, inputs)
    outputs = {k: b.array for k, b in bufs.items()} if opts.functional else None  # type: ignore[misc]
    cycles = int(ex.env.now)
    m = ex.machine
    ex.stats.level_dma_bytes = [list(x) for x in m.cp.level_bytes]  # (one link: none)
    by_space = m.level_peaks()
    peaks = {lv.name: by_space.get(lv.space, 0) for lv in cfg.memory_chain()}
    ex.trace.metadata.update(config=cfg.name, config_hash=cfg.hash(), func=f.sym_name,
                             functional=opts.functional, cycles=cycles, level_peaks=peaks)
    if m.units:
        ex.trace.metadata["unit_energy_pj"] = sum(u.energy_pj for u in m.units)
    return SimResult(ex.trace, outputs, cycles, cfg, ex.stats, m.sram.peak, f.sym_name,
                     level_peaks=peaks)
