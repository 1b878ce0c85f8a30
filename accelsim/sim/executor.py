"""The control processor's program walk: executes a compiled module on the machine.

Control (loops, ifs, index arithmetic, alloc/dealloc, DMA start/wait, calls) is executed
here in program order, in plain Python: the control processor drives the SimPy environment
and moves the clock only when it must wait (issue cycles, a full descriptor queue, a kernel
on the compute unit, a `dma_wait` on an unfinished transfer), stepping through every event
due by then, in SimPy's order (`accelsim.hw.simpy_adapter.SimEnv`). Kernels (`func.call`) take the cost
model's cycles on the compute unit and, in functional mode, run natively on the numpy buffers
(host backend) or, when the backend is not available, through this interpreter.

Each op becomes a step once (`Executor.step`, a table keyed by the op's type): a callable
`step(vals)` bound to the op's plan (`accelsim.sim.plans`: everything that does not change
between executions), so the per-execution work is the dynamic part: indices, hazard checks
against what is in flight, the machine's state. DMA starts, waits and kernel calls run the
handlers of `accelsim.sim.handlers` (one closure per op, which asks the machine for time
through the `Machine` protocol, `accelsim.cost.machine`). The control program itself runs
compiled (`accelsim.sim.fast_path`) or block by block here (`SimOptions.compiled`).

Every misuse real hardware would corrupt silently is a `HazardError` naming the op, its
location and the simulated cycle (`accelsim.sim.hazards`); SRAM overflow is a `CapacityError`.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import NamedTuple

import numpy as np

from accelsim.config import HardwareConfig
from accelsim.cost.dma import DmaCostModel
from accelsim.cost.kernel import CostModel
from accelsim.errors import InputError, SimulationError
from accelsim.hw.machine import Machine, SharedParts
from accelsim.hw.units import Unit
from accelsim.sim.fast_path import Step, compile_control
from accelsim.sim.handlers import call_handler, dma_start_handler, dma_wait_handler
from accelsim.sim.hazards import Hazards
from accelsim.sim.kernel_calls import KernelCalls
from accelsim.sim.memory import Buffer, InFlightCopy, InFlightDma, RuntimeValue, Vals
from accelsim.sim.native import KernelRunner
from accelsim.sim.options import SimOptions
from accelsim.sim.plans import (
    AccessPlan,
    CallPlan,
    ConstantPlan,
    DmaStartPlan,
    DmaWaitPlan,
    ForPlan,
    Plan,
    PlanContext,
    fresh_plan,
    make_plan,
)
from accelsim.sim.scalar import SCALAR_OPS, zero_of
from accelsim.sim.stats import RunStats
from accelsim.trace import Trace
from accelsim.trace.summary import TraceSummary
from accelsim.trace.tally import UnitTally
from compiler.diagnostics import Location
from compiler.ir import ops as O
from compiler.ir.affine_eval import MapFn, SetFn
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops.opaque import BARRIER_OP, OpaqueOp
from compiler.ir.types import ElementType, MemRefType, Type

__all__ = ["Buffer", "Executor", "RunStats"]


class BlockSteps(NamedTuple):
    steps: list[Step]
    results: list[Value] | None  # what the block yields; None: it returns, or has no terminator


class Executor:
    """Runs one function of `module` on a fresh machine for `config` (`run`)."""

    def __init__(self, module: O.ModuleOp, config: HardwareConfig, *,
                 options: SimOptions | None = None, kernel_runner: KernelRunner | None = None,
                 functional: bool | None = None, compiled: bool | None = None,
                 shared: SharedParts | None = None, cluster: int = 0,
                 shared_plans: dict[Operation, Plan] | None = None, units: Sequence[Unit] = ()):
        opts = (options or SimOptions()).updated(functional=functional, compiled=compiled)
        self.module = module
        self.config = config
        self.options = opts
        self.functional = opts.functional
        self.compiled = opts.compiled  # the compiled control program
        # the trace: every record, or only the summary the report needs (folded as it goes)
        # (a machine of several links keeps its records: the per-link figures read them)
        # (a many-cluster run's trace is the shared parts': its `UnitTally`, if it keeps one,
        # is folded by every cluster's executor as a summary is)
        self.summary: TraceSummary | UnitTally | None = None
        if shared is not None:
            self.summary = shared.trace.tally
        elif not opts.keep_records and config.single_link:
            self.summary = TraceSummary()
        self.machine = m = Machine(config, Trace.summarized(self.summary)
                                   if isinstance(self.summary, TraceSummary) else None,
                                   shared=shared, cluster=cluster, units=units)
        self.env = m.env
        self.trace = m.trace
        self.cost = CostModel.for_config(config)
        self.stats = RunStats()
        self.hazards = Hazards(self.env, config.level_names())
        sp = config.spaces
        self.sram_space, self.dram_space, self.tag_space = sp.sram, sp.dram, sp.tag
        self.kernel_calls = KernelCalls(self.hazards, self.stats, sp.dram)
        self.kernel_runner = kernel_runner
        # the call whose kernel body the interpreter is running (None: the control program)
        self.kernel_op: O.CallOp | None = None
        self.slots = m.tags.slots
        self.cp = m.cp
        self.compute = m.compute
        self.dma_class: type[InFlightDma] = InFlightCopy if self.functional else InFlightDma
        self.plans: dict[Operation, Plan] = {}
        # the plans of executors running the same IR (a many-cluster run's clusters with one
        # program, `accelsim.sim.program_match`): made once, each executor its own copy of
        # what a plan counts or caches per run (`fresh_plan`)
        self._shared_plans = shared_plans
        self._plan_context = PlanContext(sp, {f.sym_name: f for f in module.funcs},
                                         DmaCostModel.for_config(config), config)
        self._levels = m.levels  # memory space -> its capacity accounting
        self._blocks: dict[Block, BlockSteps] = {}
        self._tmp = 0

    # ---- entry ---------------------------------------------------------------------------
    def run(self, func: O.FuncOp, inputs: Mapping[str, np.ndarray] | None) -> dict[str, Buffer]:
        bufs, vals = self.arguments(func, inputs)
        # The run allocates many short-lived objects and no reference cycles worth collecting
        # mid-run; the cyclic GC rescanning the IR and trace costs ~20% of a long run.
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            self._main(func, vals)
            self.env.run()  # the transfers still in flight complete
            if self.summary is not None:
                self.summary.finish()
        finally:
            self.kernel_calls.fold_stats()
            if gc_was_on:
                gc.enable()
        self.check_unwaited()
        return bufs

    def check_unwaited(self) -> None:
        for slot in self.slots.values():
            assert isinstance(slot, InFlightDma)
            self.stats.unwaited.append(f"{slot.op.NAME} at {slot.op.loc} (issued at cycle "
                                       f"{slot.issued}) was never waited on")

    def arguments(self, func: O.FuncOp, inputs: Mapping[str, np.ndarray] | None,
                  given: Mapping[str, Buffer] | None = None) -> tuple[dict[str, Buffer], Vals]:
        """The function's buffers by name and its values; `given`: buffers shared with other
        clusters (a many-cluster run's DRAM arguments), used as they are."""
        args: list[RuntimeValue] = []
        bufs: dict[str, Buffer] = {}
        for a, name in zip(func.args, func.arg_names(), strict=True):
            t = a.type
            if given is not None and name in given:
                bufs[name] = given[name]
                args.append(given[name])
                continue
            if isinstance(t, MemRefType):
                shape = self._arg_shape(name, t, inputs)
                arr = None
                if self.functional:
                    arr = self._input_array(name, MemRefType(shape, t.element, t.memory_space), inputs)
                buf = Buffer(name, t, shape, arr)
                if t.memory_space == self.dram_space:
                    buf.addr = self.machine.dram.allocate(buf.numel * buf.ebytes)
                mem = self._levels.get(t.memory_space)
                if mem is not None:
                    buf.handle = mem.allocate(name, buf.numel * buf.ebytes, func.loc,
                                              "function argument", 0)
                bufs[name] = buf
                args.append(buf)
            else:
                args.append(self._scalar_arg(name, t, inputs))
        vals: Vals = dict(zip(func.args, args, strict=True))
        return bufs, vals

    def _scalar_arg(self, name: str, t: Type, inputs: Mapping[str, np.ndarray] | None
                    ) -> RuntimeValue:
        """A scalar argument's value, of its type: an index or integer as a Python int (it
        may reach loop bounds), a float as its numpy scalar. A float needs no value in a
        timing-only run (no data moves: zero stands in)."""
        if not isinstance(t, ElementType):
            raise InputError(f"argument %{name} has unsupported type {t}")
        if inputs is None or name not in inputs:
            if not self.functional and t.is_float:
                return t.numpy_dtype.type(0)
            raise InputError(f"scalar argument %{name} ({t}) needs a value in inputs")
        value = np.asarray(inputs[name])
        if value.size != 1:
            raise InputError(f"input '{name}': expected a {t} scalar, got shape {value.shape}")
        if t.is_float:
            return t.numpy_dtype.type(value.reshape(()))
        if not np.issubdtype(value.dtype, np.integer) and value.dtype != np.bool_:
            raise InputError(f"input '{name}': expected an integer for {t}, got dtype {value.dtype}")
        return int(value.reshape(()))

    @staticmethod
    def _arg_shape(name: str, t: MemRefType, inputs: Mapping[str, np.ndarray] | None
                   ) -> tuple[int, ...]:
        """The static shape, or for `?` extents the shape of the input array given for it."""
        if t.has_static_shape:
            return tuple(t.shape)  # type: ignore[arg-type]
        if inputs is None or name not in inputs:
            raise InputError(f"argument %{name} has a dynamic shape ({t}): give an array for it "
                             "in inputs (its shape sets the extents; timing-only runs too)")
        shape = tuple(np.shape(inputs[name]))
        if len(shape) != t.rank or any(d is not None and d != e for d, e in zip(t.shape, shape)):
            raise InputError(f"input '{name}': expected a shape matching {t}, got {shape}")
        return shape

    def _input_array(self, name: str, t: MemRefType, inputs: Mapping[str, np.ndarray] | None
                     ) -> np.ndarray:
        dtype = t.element.numpy_dtype
        if inputs is None or name not in inputs:
            return _zeros(tuple(t.shape), t, f"argument %{name}", None)  # type: ignore[arg-type]
        arr = np.asarray(inputs[name])
        if arr.shape != tuple(t.shape):
            raise InputError(f"input '{name}': expected shape {tuple(t.shape)} for {t}, got {arr.shape}")
        if arr.dtype != dtype:
            raise InputError(f"input '{name}': expected dtype {dtype} for {t}, got {arr.dtype}")
        return np.array(arr, dtype=dtype, order="C", copy=True)

    def _main(self, func: O.FuncOp, vals: Vals) -> None:
        run = compile_control(self, func) if self.compiled else None
        if run is None:
            self.block(func.body, vals)
        else:
            run(vals)

    # ---- walking -------------------------------------------------------------------------
    def plan(self, op: Operation) -> Plan:
        """The op's plan (made once per run)."""
        p = self.plans.get(op)
        if p is None:
            shared = self._shared_plans
            if shared is None:
                p = self.plans[op] = make_plan(op, self._plan_context)
            else:
                t = shared.get(op)
                if t is None:
                    t = shared[op] = make_plan(op, self._plan_context)
                p = self.plans[op] = fresh_plan(t)
        return p

    def step(self, op: Operation) -> Step:
        """`step(vals)` executes `op` (what blocks and the compiled control program run)."""
        build = _STEPS.get(type(op))
        if build is None:
            if isinstance(op, OpaqueOp) and op.op_name == BARRIER_OP:
                return partial(_barrier, self, op)
            return partial(_unsupported, op)
        return build(self, op)

    def block(self, block: Block, vals: Vals) -> list[RuntimeValue] | None:
        """Execute `block`; the values it yields, if any."""
        bs = self._blocks.get(block)
        if bs is None:
            bs = self._blocks[block] = self._block_steps(block)
        for step in bs.steps:
            step(vals)
        res = bs.results
        return None if res is None else [vals[v] for v in res]

    def _block_steps(self, block: Block) -> BlockSteps:
        steps: list[Step] = []
        for op in block.ops:
            t = type(op)
            if t is O.AffineYieldOp:
                return BlockSteps(steps, list(op.operands))
            if t is O.ReturnOp:
                break
            steps.append(self.step(op))
        return BlockSteps(steps, None)

    # ---- memory --------------------------------------------------------------------------
    def _alloc(self, op: O.AllocOp, vals: Vals) -> None:
        t = op.memref_type
        dyn = iter(vals[v] for v in op.operands)
        shape = tuple(d if d is not None else next(dyn) for d in t.shape)
        self._tmp += 1
        name = op.results[0].name_hint or f"buf{self._tmp}"
        handle = None
        mem = self._levels.get(t.memory_space)
        if mem is not None:  # capacity first: no array for what cannot fit
            nbytes = math.prod(shape) * t.element.byte_width
            handle = mem.allocate(name, nbytes, op.loc, op.NAME, self.env.now)
        arr = _zeros(shape, t, f"{op.NAME} of {name}", op.loc) if self.functional else None
        buf = Buffer(name, t, shape, arr)  # type: ignore[arg-type]
        buf.handle = handle
        if t.memory_space == self.dram_space:
            buf.addr = self.machine.dram.allocate(buf.numel * buf.ebytes)
        vals[op.results[0]] = buf

    def _dealloc(self, op: O.DeallocOp, vals: Vals) -> None:
        buf = vals[op.memref]
        assert isinstance(buf, Buffer)
        self.hazards.check_dealloc(op, buf)
        if buf.handle is not None:
            self._levels[buf.space].free(buf.handle)
            buf.handle = None
        buf.alive = False

    # ---- kernels -------------------------------------------------------------------------
    def run_kernel(self, op: O.CallOp, func: O.FuncOp, args: list[RuntimeValue]) -> None:
        """Run a kernel's body on `args`: natively (the host backend), or interpreted."""
        if self.kernel_runner is not None and self.kernel_op is None:
            self.kernel_runner(op.callee, [a.array if isinstance(a, Buffer) else a for a in args])
            return
        saved = self.kernel_op
        if saved is None:
            self.kernel_op = op  # named by a DMA or wait found inside
        try:
            vals: Vals = dict(zip(func.args, args, strict=True))
            self.block(func.body, vals)
        finally:
            self.kernel_op = saved


# ---- steps, one builder per op type -----------------------------------------------------------

def _barrier(ex: Executor, op: OpaqueOp, vals: Vals) -> None:
    """Wait until every cluster reaches this barrier (one cluster: nothing to wait for)."""
    barrier = getattr(ex.env, "barrier", None)
    if barrier is not None:
        barrier(ex.cp.name, ex.trace.records, "barrier", str(op.loc))


def _unsupported(op: Operation, vals: Vals) -> None:
    raise SimulationError(f"the simulator does not execute '{op.NAME}' here (control ops, DMA, "
                          "alloc, calls and scalar ops only)", op.loc)


def _constant_step(ex: Executor, op: O.ConstantOp) -> Step:
    p = ex.plan(op)
    assert isinstance(p, ConstantPlan)
    res, value = p

    def constant(vals: Vals) -> None:
        vals[res] = value

    return constant


def _map_step(ex: Executor, op: O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp) -> Step:
    fn: MapFn = ex.plan(op)  # type: ignore[assignment]
    operands = list(op.operands)
    res = op.results[0]
    if type(op) is O.AffineApplyOp:
        def apply(vals: Vals) -> None:
            vals[res] = fn([vals[v] for v in operands])[0]  # type: ignore[misc]
        return apply
    pick = min if type(op) is O.AffineMinOp else max

    def min_max(vals: Vals) -> None:
        vals[res] = pick(fn([vals[v] for v in operands]))  # type: ignore[misc]

    return min_max


def _for_step(ex: Executor, op: O.AffineForOp) -> Step:
    p = ex.plan(op)
    assert isinstance(p, ForPlan)
    lo_fn, lo_ops, hi_fn, hi_ops = p
    body, iv, stride = op.body, op.iv, op.step
    iargs, inits, results = list(op.region_iter_args), list(op.inits), list(op.results)
    block = ex.block

    def loop(vals: Vals) -> None:
        lo = max(lo_fn([vals[v] for v in lo_ops]))  # type: ignore[misc]
        hi = min(hi_fn([vals[v] for v in hi_ops]))  # type: ignore[misc]
        iters = [vals[v] for v in inits]
        for i in range(lo, hi, stride):
            vals[iv] = i
            for a, x in zip(iargs, iters):
                vals[a] = x
            r = block(body, vals)
            if iargs:
                iters = r  # type: ignore[assignment]
        for res, x in zip(results, iters):
            vals[res] = x

    return loop


def _if_step(ex: Executor, op: O.AffineIfOp) -> Step:
    cond: SetFn = ex.plan(op)  # type: ignore[assignment]
    operands, results = list(op.operands), list(op.results)
    then_block, else_block = op.then_block, op.else_block
    block = ex.block

    def branch(vals: Vals) -> None:
        blk = then_block if cond([vals[v] for v in operands]) else else_block  # type: ignore[misc]
        r = None
        if blk.ops:
            r = block(blk, vals)
        for res, x in zip(results, r or ()):
            vals[res] = x

    return branch


def _load_step(ex: Executor, op: O.AffineLoadOp) -> Step:
    p = ex.plan(op)
    assert isinstance(p, AccessPlan)
    fn, idx_ops = p
    memref, res = op.memref, op.results[0]
    zero = zero_of(res.type)
    hazards = ex.hazards

    def load(vals: Vals) -> None:
        buf: Buffer = vals[memref]  # type: ignore[assignment]
        idx = fn([vals[v] for v in idx_ops])  # type: ignore[misc]
        if ex.kernel_op is not None:  # a kernel body being interpreted: no hazard checks
            vals[res] = buf.array[idx]  # type: ignore[index]
            return
        hazards.check_alive(buf, op)
        lin = hazards.checked_index(op, buf, idx, buf.name)
        hazards.scalar_access(op, buf, lin, writes=False)
        vals[res] = buf.flat[lin] if buf.flat is not None else zero

    return load


def _store_step(ex: Executor, op: O.AffineStoreOp) -> Step:
    p = ex.plan(op)
    assert isinstance(p, AccessPlan)
    fn, idx_ops = p
    memref, value = op.memref, op.value
    hazards = ex.hazards

    def store(vals: Vals) -> None:
        buf: Buffer = vals[memref]  # type: ignore[assignment]
        idx = fn([vals[v] for v in idx_ops])  # type: ignore[misc]
        if ex.kernel_op is not None:
            buf.array[idx] = vals[value]  # type: ignore[index]
            return
        hazards.check_alive(buf, op)
        lin = hazards.checked_index(op, buf, idx, buf.name)
        hazards.scalar_access(op, buf, lin, writes=True)
        if buf.flat is not None:
            buf.flat[lin] = vals[value]

    return store


def _scalar_step(ex: Executor, op: Operation) -> Step:
    fn = SCALAR_OPS[type(op)]
    res = op.results[0]
    operands = list(op.operands)
    if len(operands) == 1:
        (a,) = operands

        def unary(vals: Vals) -> None:
            vals[res] = fn(op, vals[a])

        return unary
    if len(operands) == 2:
        a, b = operands

        def binary(vals: Vals) -> None:
            vals[res] = fn(op, vals[a], vals[b])

        return binary

    def nary(vals: Vals) -> None:
        vals[res] = fn(op, *[vals[v] for v in operands])

    return nary


def _dma_start_step(ex: Executor, op: O.AffineDmaStartOp) -> Step:
    p = ex.plan(op)
    assert isinstance(p, DmaStartPlan)
    return dma_start_handler(ex, p)


def _dma_wait_step(ex: Executor, op: O.AffineDmaWaitOp) -> Step:
    p = ex.plan(op)
    assert isinstance(p, DmaWaitPlan)
    return dma_wait_handler(ex, p)


def _call_step(ex: Executor, op: O.CallOp) -> Step:
    p = ex.plan(op)
    assert isinstance(p, CallPlan)
    return call_handler(ex, p)


_STEPS: dict[type[Operation], Callable[[Executor, Operation], Step]] = {
    O.ConstantOp: _constant_step,
    O.AffineApplyOp: _map_step, O.AffineMinOp: _map_step, O.AffineMaxOp: _map_step,
    O.AffineForOp: _for_step, O.AffineIfOp: _if_step,
    O.AffineLoadOp: _load_step, O.AffineStoreOp: _store_step,
    O.AllocOp: lambda ex, op: partial(ex._alloc, op), O.AllocaOp: lambda ex, op: partial(ex._alloc, op),
    O.DeallocOp: lambda ex, op: partial(ex._dealloc, op),
    O.AffineDmaStartOp: _dma_start_step, O.AffineDmaWaitOp: _dma_wait_step, O.CallOp: _call_step,
    **{t: _scalar_step for t in SCALAR_OPS},
}  # type: ignore[dict-item]


def _zeros(shape: tuple[int, ...], t: MemRefType, what: str, loc: Location | None) -> np.ndarray:
    """A zero-filled array for a buffer; one that cannot be allocated is a clear error."""
    try:
        return np.zeros(shape, dtype=t.element.numpy_dtype)
    except (ValueError, MemoryError):
        nbytes = math.prod(shape) * t.element.byte_width
        message = (f"{what}: {t} needs {nbytes:,} bytes of data, more than this machine can "
                   "allocate (a timing-only run moves no data: functional=False, --timing-only)")
        if loc is None:
            raise InputError(message) from None
        raise SimulationError(message, loc) from None
