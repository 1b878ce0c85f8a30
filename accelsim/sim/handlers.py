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

import ast
import math
from collections.abc import Callable
from functools import partial
from typing import Protocol

from accelsim.cost.kernel import CostModel, KernelCost
from accelsim.errors import SimulationError
from accelsim.hw.compute import ComputeUnit
from accelsim.hw.control import ControlProcessor
from accelsim.hw.dma import Transfer
from accelsim.hw.machine import Machine
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.sim.codegen import (
    Splice,
    index_constant,
    index_statements,
    inline_function,
    specialize,
    substitute,
)
from accelsim.sim.hazards import Hazards, kernel_elements
from accelsim.sim.kernel_calls import KernelCalls
from accelsim.sim.memory import Buffer, InFlightDma, RuntimeValue, TransferShape, Vals
from accelsim.sim.plans import ArgKey, CallPlan, DmaStartPlan, DmaWaitPlan, KernelEntry, ShapeKey
from accelsim.sim.stats import RunStats
from accelsim.trace.summary import TraceSummary
from accelsim.trace.tally import UnitTally
from compiler.diagnostics import AccelsimError
from compiler.ir import ops as O
from compiler.ir.core import Value
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


def _inline(ex: HandlerHost, name: str) -> dict[str, object]:
    """The machine's protocol operation `name`, to inline into a handler when the machine is
    the event machine (its methods are written to be inlined: `accelsim.hw.machine`); a
    machine of another class is called."""
    return {name: getattr(ex.machine, name)} if type(ex.machine) is Machine else {}


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
    """The handler of the dma_start of plan `p` (module docstring): `_dma_start` specialized."""
    op = p.op
    summary, batch, full = _summary_batch(ex)
    sh = _constant_shape(p)
    code = p.code
    bound: dict[str, object] = dict(
        ex=ex, p=p, op=op, slots=ex.slots, stats=ex.stats, env=ex.env, dma_class=ex.dma_class,
        start_dma=ex.machine.start_dma, flushing=summary is not None, summary=summary,
        batch=batch, full=full, src_v=p.src_v, dst_v=p.dst_v, tag_v=p.tag, num_v=p.num,
        stride_v=p.stride, per_v=p.per, static=p.lins is not None, lins=p.lins,
        s_fail=code is None or code[3][0], d_fail=code is None or code[3][1],
        t_fail=code is None or code[3][2], shapes=p.shapes, known=sh,
        has_known=sh is not None, k_s_ext=0, k_d_ext=0, k_sram=0, k_ci=0, k_col_src=False,
        k_ci_bound=0, k_s_numel=0, k_d_numel=0)
    splices: dict[str, Splice] = {}
    if sh is not None:
        st, dt = op.src.type, op.dst.type
        assert isinstance(st, MemRefType) and isinstance(dt, MemRefType)
        bound.update(k_s_ext=sh.s_ext, k_d_ext=sh.d_ext, k_sram=sh.sram_bytes,
                     k_ci=sh.col_inner, k_col_src=sh.col_src,
                     k_ci_bound=sh.col_inner - sh.per, k_s_numel=math.prod(st.shape),  # type: ignore[arg-type]
                     k_d_numel=math.prod(dt.shape))  # type: ignore[arg-type]
    if code is not None:
        bound.update({f"_k{i}": k for i, k in enumerate(code[0])})
        splices["lins"] = partial(index_statements, code)
    return specialize(_dma_start, bound, splices, None if code is None else tuple(code[1]),
                      _inline(ex, "start_dma"))


def _dma_start(vals: Vals, ex: HandlerHost, p: DmaStartPlan, op: O.AffineDmaStartOp,
               slots: dict[tuple[int, int], Transfer], stats: RunStats, env: SimEnv,
               dma_class: type[InFlightDma], start_dma: Callable[[Transfer, object], None],
               flushing: bool, summary: TraceSummary, batch: list[object], full: int,
               src_v: Value, dst_v: Value, tag_v: Value, num_v: Value, stride_v: Value | None,
               per_v: Value | None, static: bool, lins: Callable[[Vals], tuple[int, int, int]],
               s_fail: bool, d_fail: bool, t_fail: bool,
               shapes: dict[ShapeKey, TransferShape], known: TransferShape,
               has_known: bool, k_s_ext: int, k_d_ext: int, k_sram: int, k_ci: int,
               k_col_src: bool, k_ci_bound: int, k_s_numel: int, k_d_numel: int) -> None:
    """Issue the descriptor: checks, regions in flight, cost, the tag's slot; the control
    processor waits only for issue cycles or a full queue (`Machine.start_dma`). `k_*`: the
    figures of the transfer shape `known` when it is (`has_known`); `s_fail` ...: whether the
    index code may give -1 for that side."""
    if ex.kernel_op is not None:
        ex.hazards.timing_op_in_kernel(ex.kernel_op)
    if flushing and len(batch) >= full:
        summary.flush(env.now)
    src: Buffer = vals[src_v]  # type: ignore[assignment]
    dst: Buffer = vals[dst_v]  # type: ignore[assignment]
    tag: Buffer = vals[tag_v]  # type: ignore[assignment]
    if not (src.alive and dst.alive and tag.alive):
        for b in (src, dst, tag):
            ex.hazards.check_alive(b, op)
    # linear indices with the bounds checks folded in (-1: out of bounds, checked again); the
    # index code spliced in when specialized
    if static:
        s0, d0, t0 = lins(vals)
        if (s_fail and s0 < 0) or (d_fail and d0 < 0) or (t_fail and t0 < 0):
            s0, d0, t0 = p.checked_indices(vals, src, dst, tag, ex.hazards)
    else:
        s0, d0, t0 = p.checked_indices(vals, src, dst, tag, ex.hazards)
    key = (id(tag), t0)
    if key in slots:
        ex.hazards.tag_reuse(op, tag, p.tag_index(vals), slots[key])
    # the transfer shape: known once when count, stride and per are constants, else per
    # (count, stride, per) for static memrefs, else computed each time
    if has_known:
        sh = known
        s_end = s0 + k_s_ext
        d_end = d0 + k_d_ext
        # a side may run past its memref, or the strided side past the end of a row
        over = s_end > k_s_numel or d_end > k_d_numel or (
            k_ci and 0 < (s0 if k_col_src else d0) % k_ci > k_ci_bound)
        sram = k_sram
    else:
        n: int = vals[num_v]  # type: ignore[assignment]
        shape_key: ShapeKey = n if stride_v is None else (n, vals[stride_v], vals[per_v])  # type: ignore[assignment, index]
        sh = shapes.get(shape_key) if static else None  # type: ignore[assignment]
        if sh is None:
            sh = p.new_shape(n, shape_key, src, dst)
        s_end = s0 + sh.s_ext
        d_end = d0 + sh.d_ext
        ci = sh.col_inner
        over = s_end > src.numel or d_end > dst.numel or (
            ci and 0 < (s0 if sh.col_src else d0) % ci > ci - sh.per)
        sram = sh.sram_bytes
    if over:
        p.check_overrun(vals, src, dst, s0, d0, sh, ex.hazards)
    label = p.label if src is p.label_src and dst is p.label_dst else p.relabel(src, dst)
    if src.writing:  # another DMA writing what this one reads
        for x in src.writing:
            if x.d_end > s0 and s_end > x.d0:
                ex.hazards.dma_read_race(op, src, x, s0, sh)
    if dst.writing:  # any DMA on what this one writes
        for x in dst.writing:
            if x.d_end > d0 and d_end > x.d0:
                ex.hazards.dma_overwrite_race(op, dst, d0, sh)
    if dst.reading:
        for x in dst.reading:
            if x.s_end > d0 and d_end > x.s0:
                ex.hazards.dma_overwrite_race(op, dst, d0, sh)
    stats.dma_ops = seq = stats.dma_ops + 1
    stats.dma_sram_bytes += sram
    xfer = dma_class(env, sh, label, env.now, seq, src, s0, s_end, dst, d0, d_end)
    src.reading.append(xfer)
    dst.writing.append(xfer)
    start_dma(xfer, key)


# ---- affine.dma_wait -------------------------------------------------------------------------
# Check the tag's slot (its element count must be the transfer's); the control processor
# stalls until the transfer completes (`Machine.wait_dma`, which frees the slot).

def dma_wait_handler(ex: HandlerHost, p: DmaWaitPlan) -> Handler:
    """The handler of the dma_wait of plan `p` (module docstring): `_dma_wait` specialized."""
    code = p.code
    bound: dict[str, object] = dict(
        ex=ex, p=p, op=p.op, slots=ex.slots, wait_dma=ex.machine.wait_dma, tag_v=p.tag,
        num_v=p.num, loc=p.loc, static=p.lin is not None, lin=p.lin,
        may_fail=code is None or any(code[3]))
    splices: dict[str, Splice] = {}
    if code is not None:
        bound.update({f"_k{i}": k for i, k in enumerate(code[0])})
        splices["lin"] = partial(index_statements, code)
    return specialize(_dma_wait, bound, splices, None if code is None else tuple(code[1]),
                      _inline(ex, "wait_dma"))


def _dma_wait(vals: Vals, ex: HandlerHost, p: DmaWaitPlan, op: O.AffineDmaWaitOp,
              slots: dict[tuple[int, int], InFlightDma], wait_dma: Callable[[object, str], None],
              tag_v: Value, num_v: Value, loc: str, static: bool, lin: Callable[[Vals], int],
              may_fail: bool) -> None:
    """Check the tag's slot (its element count must be the transfer's); the control processor
    stalls until the transfer completes (`Machine.wait_dma`, which frees the slot)."""
    if ex.kernel_op is not None:
        ex.hazards.timing_op_in_kernel(ex.kernel_op)
    tag: Buffer = vals[tag_v]  # type: ignore[assignment]
    if static:
        t0 = lin(vals)  # the index code spliced in when specialized
        if may_fail and t0 < 0:
            t0 = p.checked_tag_index(vals, tag, ex.hazards)
    else:
        t0 = p.checked_tag_index(vals, tag, ex.hazards)
    key = (id(tag), t0)
    pend = slots.get(key)
    if pend is None:
        ex.hazards.deadlock(op, tag, p.tag_index(vals))
    if vals[num_v] != pend.shape.count:  # type: ignore[union-attr]
        ex.hazards.wait_count(op, tag, p.tag_index(vals), vals[num_v], pend)  # type: ignore[arg-type]
    wait_dma(key, loc)


# ---- func.call -------------------------------------------------------------------------------
# A kernel call: race checks of its access boxes against the DMAs in flight, its cost on the
# compute unit (the control processor waits for it: `Machine.run_kernel`), the data
# (functional mode).

def call_handler(ex: HandlerHost, p: CallPlan) -> Handler:
    """The handler of the call of plan `p` (module docstring): `_call` specialized; for a call
    on static shapes its arguments read into locals (`_read_arguments`)."""
    summary, batch, full = _summary_batch(ex)
    n = len(p.operands)
    varies = len(p.buf_pos) < n  # a call with no index arguments has one entry key
    bound: dict[str, object] = dict(
        ex=ex, p=p, op=p.op, func=p.func, has_func=p.func is not None, read=p.read,
        buf_pos=p.buf_pos, entries=p.entries, entry_key=p.entry_key, static=p.static,
        varies=varies, const_key=None if varies or not p.static else p.entry_key((None,) * n),
        flushing=summary is not None, summary=summary, batch=batch, full=full, env=ex.env,
        run_kernel=ex.machine.run_kernel, kernel_cost=ex.cost.kernel, stats=ex.stats,
        functional=ex.functional, callee=p.op.callee, loc=p.loc)
    splices: dict[str, Splice] = {}
    spans = None
    if p.static:
        bound.update({f"_k{i}": v for i, v in enumerate(p.operands)})
        splices["read"] = partial(_read_arguments, n, p.buf_pos)
        # race checks written out per buffer argument when the boxes' arguments and flags
        # are known (`BoxKey.spans`: every entry has them, `KernelCalls.entry` checks)
        bk = p.boxes
        if bk is not None and not bk.fallible:
            spans = bk.spans
            splices["check_spans"] = partial(_unrolled_span_checks, spans)
    bound.update(unrolled=spans is not None, check_spans=None)
    return specialize(_call, bound, splices, (n, p.buf_pos, spans) if p.static else None,
                      _inline(ex, "run_kernel"))


def _read_arguments(n: int, buf_pos: tuple[int, ...]) -> list[ast.stmt]:
    """`args, idx_args, alive = read(vals)` written out (syntax trees): `a<i> = vals[_k<i>]`,
    the list, the index arguments (None for a buffer), whether every buffer is alive."""
    def name(x: str) -> ast.Name:
        return ast.Name(x, ast.Load())

    out: list[ast.stmt] = [ast.Assign([ast.Name(f"a{i}", ast.Store())],
                                      ast.Subscript(name("vals"), name(f"_k{i}"), ast.Load()))
                           for i in range(n)]
    out.append(ast.Assign([ast.Name("args", ast.Store())],
                          ast.List([name(f"a{i}") for i in range(n)], ast.Load())))
    idx = [ast.Constant(None) if i in buf_pos else ast.Call(name("int"), [name(f"a{i}")], [])
           for i in range(n)]
    out.append(ast.Assign([ast.Name("idx_args", ast.Store())], ast.Tuple(idx, ast.Load())))
    alive = [ast.Attribute(name(f"a{i}"), "alive", ast.Load()) for i in buf_pos]
    out.append(ast.Assign([ast.Name("alive", ast.Store())],
                          ast.BoolOp(ast.And(), alive) if len(alive) > 1
                          else alive[0] if alive else ast.Constant(True)))
    return out


def _call(vals: Vals, ex: HandlerHost, p: CallPlan, op: O.CallOp, func: O.FuncOp,
          has_func: bool, read: Callable[[Vals], tuple[list[RuntimeValue], ArgKey, bool]],
          buf_pos: tuple[int, ...], entries: dict[object, KernelEntry],
          entry_key: Callable[[ArgKey], object], static: bool, varies: bool, const_key: object,
          flushing: bool, summary: TraceSummary, batch: list[object], full: int, env: SimEnv,
          run_kernel: Callable[[int, int, str, str], None],
          kernel_cost: Callable[[O.FuncOp, ArgKey], KernelCost], stats: RunStats,
          functional: bool, callee: str, loc: str, unrolled: bool,
          check_spans: Callable[[KernelEntry], None]) -> None:
    """A kernel call: race checks of its access boxes against the DMAs in flight, its cost on
    the compute unit (the control processor waits for it: `Machine.run_kernel`), the data
    (functional mode)."""
    if not has_func:
        raise SimulationError(f"func.call to @{op.callee}: no function body in the module",
                              op.loc)
    if ex.kernel_op is not None:  # a call inside a kernel being interpreted
        ex.run_kernel(op, func, p.arguments(vals))
        return
    if flushing and len(batch) >= full:
        summary.flush(env.now)
    args, idx_args, alive = read(vals)  # the reads written out when specialized
    if not alive:
        for k in buf_pos:
            ex.hazards.check_alive(args[k], op)  # type: ignore[arg-type]
    entry = (entries.get(entry_key(idx_args) if varies else const_key) if static  # type: ignore[arg-type]
             else None)
    if entry is None:
        entry = ex.kernel_calls.entry(p, args, idx_args)
    # the spans of the entry's access boxes against the DMAs in flight on each buffer
    if unrolled:
        check_spans(entry)  # `_span_check` per span, written out when specialized
    else:
        for arg, rd, written, regions, lo, hi in entry.spans:
            buf: Buffer = args[arg]  # type: ignore[assignment]
            if buf.writing or (written and buf.reading):
                for x in buf.writing:
                    if x.d_end > lo and hi > x.d0:
                        _kernel_race(ex, p, vals, buf, arg, rd, written, regions)
                if written:
                    for x in buf.reading:
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


def _span_check(vals: Vals, ex: HandlerHost, p: CallPlan, entry: KernelEntry, buf: Buffer,
                lo: int, hi: int, arg: int, rd: bool, written: bool, j: int) -> None:
    """The race checks of one span of a kernel call (the loop body of `_call`), written out
    per span by `_unrolled_span_checks`: `buf` the argument's local, `lo`/`hi` its bounds,
    the rest literals."""
    if buf.writing or (written and buf.reading):
        for x in buf.writing:
            if x.d_end > lo and hi > x.d0:
                _kernel_race(ex, p, vals, buf, arg, rd, written, entry.spans[j][3])
        if written:
            for x in buf.reading:
                if x.s_end > lo and hi > x.s0:
                    _kernel_race(ex, p, vals, buf, arg, rd, written, entry.spans[j][3])


def _unrolled_span_checks(spans: tuple[tuple[int, bool, bool], ...]) -> list[ast.stmt]:
    """`_span_check` for each (argument, read, written) span, its names bound (syntax trees):
    `lo<j>, hi<j>, ... = entry.bounds`, then each span's checks on `a<argument>`."""
    if not spans:
        return []
    out: list[ast.stmt] = [ast.Assign(
        [ast.Tuple([ast.Name(f"{b}{j}", ast.Store()) for j in range(len(spans))
                    for b in ("lo", "hi")], ast.Store())],
        ast.Attribute(ast.Name("entry", ast.Load()), "bounds", ast.Load()))]
    for j, (k, rd, written) in enumerate(spans):
        names: dict[str, ast.Name | ast.Constant] = {
            "buf": ast.Name(f"a{k}", ast.Load()), "lo": ast.Name(f"lo{j}", ast.Load()),
            "hi": ast.Name(f"hi{j}", ast.Load()), "arg": ast.Constant(k),
            "rd": ast.Constant(rd), "written": ast.Constant(written), "j": ast.Constant(j)}
        out += substitute(inline_function(_span_check), names)
    return out


def _kernel_race(ex: HandlerHost, p: CallPlan, vals: Vals, buf: RuntimeValue, arg: int,
                 read: bool, written: bool, regions: object) -> None:
    """A DMA in flight overlaps the span of a kernel's access box: `Hazards.kernel_race`
    decides on the box's elements (computed only then)."""
    assert p.func is not None
    func = p.func
    ex.hazards.kernel_race(p.op, buf, read, written, regions,  # type: ignore[arg-type]
                           lambda: kernel_elements(func, p.read(vals)[0], arg,
                                                   buf.strides))  # type: ignore[union-attr]


