"""The handlers of the ops that drive the machine (`affine.dma_start`, `affine.dma_wait`,
`func.call`): each one Python function, a closure made once per op (`dma_start_handler`,
`dma_wait_handler`, `call_handler`), its plan's facts bound as closure variables.

A handler is the event walker's side of the `Machine` protocol (`accelsim.cost.machine`): it
does what only the event run does — hazard checks against what is in flight, the transfer
object that moves data, counters, trace summary batches — and asks the machine
(`accelsim.hw.machine.Machine`) for time: `start_dma`, `wait_dma`, `run_kernel`.

What the plan knows is decided when the handler is made, not per execution: the generated
index code (`DmaStartPlan.lins`, from the one affine evaluator), the transfer shape of a DMA
whose count, stride and per are constants (computed once), whether the run keeps a trace
summary to flush, a kernel call's argument reader and entry key. One definition serves
every op of its kind — static or dynamic shapes, compiled or interpreted control program —
so checks, errors, trace records and counters cannot drift apart. What only error paths need
(`ex.hazards`, `ex.kernel_calls`) is read where used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from accelsim.cost.kernel import CostModel
from accelsim.errors import SimulationError
from accelsim.hw.compute import ComputeUnit
from accelsim.hw.control import ControlProcessor
from accelsim.hw.dma import Transfer
from accelsim.hw.machine import Machine
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.sim.codegen import index_constant
from accelsim.sim.hazards import Hazards, kernel_elements
from accelsim.sim.kernel_calls import KernelCalls
from accelsim.sim.memory import InFlightDma, RuntimeValue, TransferShape, Vals
from accelsim.sim.plans import CallPlan, DmaStartPlan, DmaWaitPlan, ShapeKey
from accelsim.sim.stats import RunStats
from accelsim.trace.summary import TraceSummary
from accelsim.trace.tally import UnitTally
from compiler.diagnostics import AccelsimError
from compiler.ir import ops as O
from compiler.ir.types import MemRefType

Handler = Callable[[Vals], None]  # a handler made for one op


class HandlerHost(Protocol):
    """What a handler reads from the executor running it."""

    kernel_op: O.CallOp | None  # the call whose body the executor interprets, if any
    hazards: Hazards
    slots: dict[tuple[int, int], Transfer]  # the tag file: (id(tag), index) -> transfer
    stats: RunStats
    env: SimEnv
    machine: Machine
    cp: ControlProcessor
    compute: ComputeUnit
    cost: CostModel
    kernel_calls: KernelCalls
    dma_class: type[InFlightDma]
    functional: bool
    summary: TraceSummary | UnitTally | None  # the summary kept instead of the records, if any

    def run_kernel(self, op: O.CallOp, func: O.FuncOp, args: list[RuntimeValue]) -> None: ...


def _summary_batch(ex: HandlerHost) -> tuple[TraceSummary | UnitTally | None, list[object], int]:
    """In a run that keeps only the trace summary, each DMA start and call first folds the
    batch of records when it is full (no record of the op is appended yet:
    `TraceSummary.flush`): (the summary, its batch of records, the batch size); (None, [], 0)
    when the records are kept."""
    summary = ex.summary
    if summary is None:
        return None, [], 0
    return summary, summary.records, summary.batch  # type: ignore[return-value]


# ---- affine.dma_start ------------------------------------------------------------------------
# Issue the descriptor: checks, regions in flight, cost, the tag's slot; the control
# processor waits only for issue cycles or a full queue (`Machine.start_dma`).

def _constant_shape(p: DmaStartPlan) -> TransferShape | None:
    """The transfer shape of a DMA on static-shaped memrefs whose count, stride and per are
    constants; None otherwise or when it is an error (raised when executed, by the shape
    lookup of the handler)."""
    if not p.constant or p.lins is None:
        return None
    n = index_constant(p.num)
    key: ShapeKey | None = n
    if p.stride is not None and p.per is not None:
        stride, per = index_constant(p.stride), index_constant(p.per)
        key = None if n is None or stride is None or per is None else (n, stride, per)
    if n is None or key is None:
        return None
    sh = p.shapes.get(key)  # (the plans of clusters running one program share `shapes`)
    if sh is None:
        st, dt = p.op.src.type, p.op.dst.type
        assert isinstance(st, MemRefType) and isinstance(dt, MemRefType)
        try:
            sh = p.transfer_shape(n, key, tuple(st.shape), tuple(dt.shape))  # type: ignore[arg-type]
        except AccelsimError:
            return None
        p.shapes[key] = sh
    p.const_shape = sh
    return sh


def dma_start_handler(ex: HandlerHost, p: DmaStartPlan) -> Handler:
    """The handler of the dma_start of plan `p` (module docstring)."""
    op = p.op
    slots, stats, env, dma_class = ex.slots, ex.stats, ex.env, ex.dma_class
    start_dma = ex.machine.start_dma
    summary, batch, full = _summary_batch(ex)
    src_v, dst_v, tag_v, num_v, stride_v, per_v = p.src_v, p.dst_v, p.tag, p.num, p.stride, p.per
    lins, shapes = p.lins, p.shapes
    known = _constant_shape(p)

    def dma_start(vals: Vals) -> None:
        if ex.kernel_op is not None:
            ex.hazards.timing_op_in_kernel(ex.kernel_op)
        if summary is not None and len(batch) >= full:
            summary.flush(env.now)
        src = vals[src_v]
        dst = vals[dst_v]
        tag = vals[tag_v]
        if not (src.alive and dst.alive and tag.alive):  # type: ignore[union-attr]
            for b in (src, dst, tag):
                ex.hazards.check_alive(b, op)  # type: ignore[arg-type]
        # linear indices with the bounds checks folded in (-1: out of bounds, checked again)
        if lins is not None:
            s0, d0, t0 = lins(vals)
            if s0 < 0 or d0 < 0 or t0 < 0:
                s0, d0, t0 = p.checked_indices(vals, src, dst, tag, ex.hazards)  # type: ignore[arg-type]
        else:
            s0, d0, t0 = p.checked_indices(vals, src, dst, tag, ex.hazards)  # type: ignore[arg-type]
        key = (id(tag), t0)
        if key in slots:
            ex.hazards.tag_reuse(op, tag, p.tag_index(vals), slots[key])  # type: ignore[arg-type]
        # the transfer shape: known once when count, stride and per are constants, else per
        # (count, stride, per) for static memrefs, else computed each time
        sh = known
        if sh is None:
            n = vals[num_v]
            shape_key = n if stride_v is None else (n, vals[stride_v], vals[per_v])
            sh = shapes.get(shape_key) if lins is not None else None  # type: ignore[arg-type]
            if sh is None:
                sh = p.new_shape(n, shape_key, src, dst)  # type: ignore[arg-type]
        s_end = s0 + sh.s_ext
        d_end = d0 + sh.d_ext
        # a side may run past its memref, or the strided side past the end of a row
        ci = sh.col_inner
        if s_end > src.numel or d_end > dst.numel or (  # type: ignore[union-attr]
                ci and 0 < (s0 if sh.col_src else d0) % ci > ci - sh.per):
            p.check_overrun(vals, src, dst, s0, d0, sh, ex.hazards)  # type: ignore[arg-type]
        label = p.label if src is p.label_src and dst is p.label_dst else p.relabel(src, dst)  # type: ignore[arg-type]
        if src.writing:  # another DMA writing what this one reads  # type: ignore[union-attr]
            for x in src.writing:  # type: ignore[union-attr]
                if x.d_end > s0 and s_end > x.d0:
                    ex.hazards.dma_read_race(op, src, x, s0, sh)  # type: ignore[arg-type]
        if dst.writing:  # any DMA on what this one writes  # type: ignore[union-attr]
            for x in dst.writing:  # type: ignore[union-attr]
                if x.d_end > d0 and d_end > x.d0:
                    ex.hazards.dma_overwrite_race(op, dst, d0, sh)  # type: ignore[arg-type]
        if dst.reading:  # type: ignore[union-attr]
            for x in dst.reading:  # type: ignore[union-attr]
                if x.s_end > d0 and d_end > x.s0:
                    ex.hazards.dma_overwrite_race(op, dst, d0, sh)  # type: ignore[arg-type]
        stats.dma_ops = seq = stats.dma_ops + 1
        stats.dma_sram_bytes += sh.sram_bytes
        xfer = dma_class(env, sh, label, env.now, seq, src, s0, s_end, dst, d0, d_end)  # type: ignore[arg-type]
        src.reading.append(xfer)  # type: ignore[union-attr]
        dst.writing.append(xfer)  # type: ignore[union-attr]
        start_dma(xfer, key)

    return dma_start


# ---- affine.dma_wait -------------------------------------------------------------------------
# Check the tag's slot (its element count must be the transfer's); the control processor
# stalls until the transfer completes (`Machine.wait_dma`, which frees the slot).

def dma_wait_handler(ex: HandlerHost, p: DmaWaitPlan) -> Handler:
    """The handler of the dma_wait of plan `p` (module docstring)."""
    op, tag_v, num_v, lin, loc = p.op, p.tag, p.num, p.lin, p.loc
    slots = ex.slots
    wait_dma = ex.machine.wait_dma

    def dma_wait(vals: Vals) -> None:
        if ex.kernel_op is not None:
            ex.hazards.timing_op_in_kernel(ex.kernel_op)
        tag = vals[tag_v]
        t0 = lin(vals) if lin is not None else -1
        if t0 < 0:
            t0 = p.checked_tag_index(vals, tag, ex.hazards)  # type: ignore[arg-type]
        key = (id(tag), t0)
        pend = slots.get(key)
        if pend is None:
            ex.hazards.deadlock(op, tag, p.tag_index(vals))  # type: ignore[arg-type]
        if vals[num_v] != pend.shape.count:  # type: ignore[attr-defined, union-attr]
            ex.hazards.wait_count(op, tag, p.tag_index(vals), vals[num_v], pend)  # type: ignore[arg-type]
        wait_dma(key, loc)

    return dma_wait


# ---- func.call -------------------------------------------------------------------------------
# A kernel call: race checks of its access boxes against the DMAs in flight, its cost on the
# compute unit (the control processor waits for it: `Machine.run_kernel`), the data
# (functional mode).

def call_handler(ex: HandlerHost, p: CallPlan) -> Handler:
    """The handler of the call of plan `p` (module docstring)."""
    op, func, read, buf_pos, loc, callee = p.op, p.func, p.read, p.buf_pos, p.loc, p.op.callee
    entries, entry_key = p.entries, p.entry_key
    static = p.static
    # a call with no index arguments has one entry key, computed here
    varies = len(buf_pos) < len(p.operands)
    const_key = None if varies or not static else entry_key((None,) * len(p.operands))
    summary, batch, full = _summary_batch(ex)
    env = ex.env
    run_kernel = ex.machine.run_kernel
    kernel_cost = ex.cost.kernel
    stats = ex.stats
    functional = ex.functional

    def call(vals: Vals) -> None:
        if func is None:
            raise SimulationError(f"func.call to @{op.callee}: no function body in the module",
                                  op.loc)
        if ex.kernel_op is not None:  # a call inside a kernel being interpreted
            ex.run_kernel(op, func, p.arguments(vals))
            return
        if summary is not None and len(batch) >= full:
            summary.flush(env.now)
        args, idx_args, alive = read(vals)
        if not alive:
            for k in buf_pos:
                ex.hazards.check_alive(args[k], op)  # type: ignore[arg-type]
        if static:
            entry = entries.get(entry_key(idx_args) if varies else const_key)
        else:
            entry = None
        if entry is None:
            entry = ex.kernel_calls.entry(p, args, idx_args)
        # the spans of the entry's access boxes against the DMAs in flight on each buffer
        for arg, rd, written, regions, lo, hi in entry.spans:
            buf = args[arg]
            if buf.writing or (written and buf.reading):  # type: ignore[union-attr]
                for x in buf.writing:  # type: ignore[union-attr]
                    if x.d_end > lo and hi > x.d0:
                        _kernel_race(ex, p, vals, buf, arg, rd, written, regions)
                if written:
                    for x in buf.reading:  # type: ignore[union-attr]
                        if x.s_end > lo and hi > x.s0:
                            _kernel_race(ex, p, vals, buf, arg, rd, written, regions)
        cost = entry.cost
        if cost is None:  # the entry is new (made above, by this call)
            cost = entry.cost = kernel_cost(func, idx_args)
        entry.calls += 1
        if cost.dram_direct_cycles and len(stats.flags) < 20:
            ex.kernel_calls.flag_dram(op, cost)
        if functional:
            ex.run_kernel(op, func, args)
        run_kernel(cost.cycles, cost.sram_bytes, callee, loc)

    return call


def _kernel_race(ex: HandlerHost, p: CallPlan, vals: Vals, buf: RuntimeValue, arg: int,
                 read: bool, written: bool, regions: object) -> None:
    """A DMA in flight overlaps the span of a kernel's access box: `Hazards.kernel_race`
    decides on the box's elements (computed only then)."""
    assert p.func is not None
    func = p.func
    ex.hazards.kernel_race(p.op, buf, read, written, regions,  # type: ignore[arg-type]
                           lambda: kernel_elements(func, p.read(vals)[0], arg,
                                                   buf.strides))  # type: ignore[union-attr]


