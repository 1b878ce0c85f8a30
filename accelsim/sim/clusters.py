"""`simulate_clusters`: the programs of N compute clusters (one compiled module each, from
`accelsim.compile.clusters`) run concurrently on one machine of `config.clusters` clusters.

Each cluster is an `Executor` on its own part of the machine (`accelsim.hw.machine`: its
scratchpad, DMA engines, compute unit, control processor) and the shared parts (DRAM, shared
levels, the interconnect); the control processors run in one SimPy environment
(`accelsim.hw.cosim.ClusterEnv`). The function's arguments in shared levels are one set of
buffers all clusters read and write: real data, and a DMA of one cluster racing with
another's in flight is the hazard error it is within one cluster, naming both ops.
Across clusters, `ClusterRaces` also catches what is ordered by nothing: two clusters
writing the same DRAM elements, or one reading what another wrote, between the same two
barriers.

With `SimOptions(keep_records=False)` the trace keeps a `UnitTally` (`accelsim.trace.tally`:
per unit and kind the records, bytes and cycles) instead of the records: every figure of the
cluster report, the same, without a record per DRAM channel per transfer.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from accelsim.config import HardwareConfig
from accelsim.errors import InputError
from accelsim.hw.cosim import ClusterEnv
from accelsim.hw.machine import SharedParts
from accelsim.sim.cluster_races import ClusterRaces
from accelsim.sim.executor import Executor
from accelsim.sim.native import backend_runner
from accelsim.sim.options import SimOptions
from accelsim.sim.plans import Plan
from accelsim.sim.program_match import parameter_ops, parameter_plan
from accelsim.sim.simulate import SimResult
from accelsim.sim.stats import RunStats
from accelsim.trace import Trace
from accelsim.trace.tally import UnitTally
from compiler.ir.core import Operation
from compiler.ir.entry import entry_function
from compiler.ir.ops import ModuleOp


def simulate_clusters(modules: Sequence[ModuleOp], config: HardwareConfig,
                      inputs: Mapping[str, np.ndarray] | None = None, func: str | None = None,
                      *, options: SimOptions | None = None) -> SimResult:
    """Run `modules[k]` on cluster k of `config` (len(modules) == config.clusters)."""
    if len(modules) != config.clusters:
        raise InputError(f"{len(modules)} cluster programs for clusters = {config.clusters}")
    opts = options or SimOptions()
    env = ClusterEnv(config.clusters)
    # every record, or (keep_records off) the per-unit sums the cluster report reads
    tally = None if opts.keep_records else UnitTally()
    trace = Trace() if tally is None else Trace.tallied(tally)
    shared = SharedParts(config, env, trace)
    executors: list[Executor] = []
    bodies = []
    given: dict[str, Any] | None = None
    bufs0: dict[str, Any] = {}
    shared_spaces = {lv.space for lv in config.shared_levels()}
    fname = ""
    # each distinct program (with sharing on, the clusters' modules are matched as given and
    # only one of each program is outlined, on a copy: the inputs are left as they are)
    programs: list[_Program] = []
    for k, given_mod in enumerate(modules):
        own: dict[Operation, Plan] = {}
        found = _same_program(programs, given_mod) if opts.share_programs else None
        if found is None:
            prog = _new_program(given_mod, opts, func)
            programs.append(prog)
        else:  # run the earlier cluster's IR, with this cluster's own maps where they differ
            prog, params = found
            own = {op: parameter_plan(op, mine) for op, mine in params.items()}
        mod, f, runner, plans = prog.module, prog.func, prog.runner, prog.plans
        fname = f.sym_name
        ex = Executor(mod, config, options=opts, kernel_runner=runner, shared=shared,
                      cluster=k, shared_plans=plans)
        ex.plans.update(own)
        bufs, vals = ex.arguments(f, inputs, given)
        if given is None:
            bufs0 = bufs
            given = {n: b for n, b in bufs.items() if getattr(b, "space", None) in shared_spaces}
        executors.append(ex)
        bodies.append(_body(ex, f, vals))
    races = ClusterRaces({id(b) for b in (given or {}).values()})
    env.on_barrier.append(races.new_interval)
    for k, ex in enumerate(executors):
        ex.cp.submit = races.wrap(k, ex.cp.submit)  # type: ignore[method-assign]
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        env.run_all(bodies)
    finally:
        for ex in executors:
            ex.kernel_calls.fold_stats()
        if gc_was_on:
            _promote_young_objects()
            gc.enable()
    if tally is not None:
        shared.dram.fold_counts(tally)
        tally.finish()
    stats = RunStats()
    for ex in executors:
        ex.check_unwaited()
        stats.flags += ex.stats.flags
        stats.unwaited += ex.stats.unwaited
        for key in ("dma_ops", "kernel_calls", "macs", "alu_ops", "special_ops",
                    "kernel_sram_bytes", "dma_sram_bytes", "ideal_compute_cycles", "compute_pj"):
            setattr(stats, key, getattr(stats, key) + getattr(ex.stats, key))
        for key, n in ex.stats.macs_by_dtype.items():
            stats.macs_by_dtype[key] = stats.macs_by_dtype.get(key, 0) + n
        # every cluster's per-level bytes (the report's level rows; one link: none counted)
        for space, nbytes in ex.stats.kernel_level_bytes.items():
            stats.kernel_level_bytes[space] = stats.kernel_level_bytes.get(space, 0) + nbytes
        mine = ex.machine.cp.level_bytes
        if not stats.level_dma_bytes:
            stats.level_dma_bytes = [[0, 0] for _ in mine]
        for tot, (r, w) in zip(stats.level_dma_bytes, mine, strict=True):
            tot[0] += r
            tot[1] += w
    outputs = {n: b.array for n, b in bufs0.items()} if opts.functional else None
    cycles = int(env.now)
    sram_peak = max(ex.machine.sram.peak for ex in executors)
    peaks = {lv.name: max(ex.machine.level_peaks().get(lv.space, 0) for ex in executors)
             for lv in config.memory_chain()}
    trace.metadata.update(config=config.name, config_hash=config.hash(), func=fname,
                          functional=opts.functional, cycles=cycles, level_peaks=peaks,
                          clusters=config.clusters)
    res = SimResult(trace, outputs, cycles, config, stats, sram_peak, fname, level_peaks=peaks)
    res.extra["executors"] = executors
    res.extra["interconnect"] = shared.interconnect
    res.extra["programs"] = len(programs)  # distinct programs generated (the rest shared one)
    return res


def _promote_young_objects() -> None:
    """Move the objects made while the collector was off (the run's trace records, most of
    them: the result) to the oldest generation, as surviving two young collections would:
    re-enabled, the collector would otherwise scan every one of them at once in a young
    collection (~15% of a 16-cluster run's CPU), and again in the next. Skipped when the
    caller keeps frozen objects of its own (`gc.unfreeze` would release them)."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


@dataclass
class _Program:
    """A distinct program: the module the clusters run (outlined), the module as given that
    others are matched against, and for an outlined copy each op of the given module that
    is still in the copy's control program (None: the two are one module)."""

    module: ModuleOp
    given: ModuleOp
    kept: dict[Operation, Operation] | None
    func: Any
    runner: Any
    plans: dict[Operation, Plan] = field(default_factory=dict)


def _new_program(mod: ModuleOp, opts: SimOptions, func: str | None) -> _Program:
    from compiler.transforms.outline_kernels import needs_outlining, outline_if_needed

    given, kept = mod, None
    if opts.outline and needs_outlining(mod):
        if opts.share_programs:  # outline a copy, remembering where the given ops went
            mod = mod.clone()  # type: ignore[assignment]
            pairs = list(zip(given.walk(), mod.walk(), strict=True))
            outline_if_needed(mod)
            left = {id(op) for op in mod.walk()}
            kept = {a: b for a, b in pairs if id(b) in left}
        else:
            outline_if_needed(mod)  # in place, as every cluster's module was
    f = entry_function(mod, func, InputError)
    runner = backend_runner(mod) if opts.functional and not opts.interpret_kernels else None
    if isinstance(runner, str):
        runner = None
    return _Program(mod, given, kept, f, runner)


def _same_program(programs: list[_Program], mod: ModuleOp
                  ) -> tuple[_Program, dict[Operation, Operation]] | None:
    """The first of `programs` that `mod` is up to affine parameters, with its parameter ops
    (as ops of the program's module); not one whose parameter op outlining moved into a
    kernel."""
    for prog in programs:
        params = parameter_ops(prog.given, mod)
        if params is None:
            continue
        if prog.kept is None:
            return prog, params
        mapped = {prog.kept.get(op): mine for op, mine in params.items()}
        if None not in mapped:
            return prog, mapped  # type: ignore[return-value]
    return None


def _body(ex: Executor, f: Any, vals: Any) -> Any:
    def run() -> None:
        ex._main(f, vals)
    return run
