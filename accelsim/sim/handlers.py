"""The handlers of the ops that drive the machine (`affine.dma_start`, `affine.dma_wait`,
`func.call`), each written once, as a source template with named plan-time slots.

From one template come both forms of a handler:
- the generic handler `fn(ex, p, vals)`, for any op of its kind: every slot is bound to a
  lookup in the op's plan `p` or the executor `ex` (what the interpreter runs, and the
  fast path for ops it cannot specialize, e.g. DMAs on dynamic-shaped memrefs);
- a specialized handler `fn(vals)` for one op (`specialize_*`): what the plan knows is
  bound as constants (default arguments) or literals, the index code is inlined
  (`accelsim.sim.codegen.index_code`), and for a DMA with a constant element count the
  transfer shape and cost are computed once.
Both run the same statements in the same order, so checks, errors, trace records and
counters cannot drift apart.

Template syntax: `$name` in a line is an expression slot, a line `@name` a block slot.
`state` names are locals (assigned at the top of a generic handler, default arguments of
a specialized one); `lookups` are expressions on `ex`/`p` fixed for an op (evaluated where
used in a generic handler, default arguments of a specialized one); `slots` are the
generic bindings of everything that depends on run-time values, which a specialization may
replace by code for what it knows. What only error paths need (`ex.hazards`,
`ex.kernel_calls`) is looked up where used in both forms: a default argument costs every
call.
"""

from __future__ import annotations

import linecache
import math
import re
from collections.abc import Callable, Mapping
from typing import Protocol

from accelsim.cost.kernel import CostModel
from accelsim.errors import SimulationError
from accelsim.hw.compute import ComputeUnit
from accelsim.hw.control import ControlProcessor
from accelsim.hw.dma import Transfer
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.sim.codegen import compile_cached, index_constant
from accelsim.sim.hazards import Hazards, kernel_elements
from accelsim.sim.kernel_calls import KernelCalls
from accelsim.sim.memory import InFlightDma, RuntimeValue, TransferShape, Vals
from accelsim.sim.plans import CallPlan, DmaStartPlan, DmaWaitPlan, ShapeKey
from accelsim.sim.stats import RunStats
from accelsim.trace import TraceRecord
from accelsim.trace.summary import TraceSummary
from accelsim.trace.tally import UnitTally
from compiler.diagnostics import AccelsimError
from compiler.ir import ops as O
from compiler.ir.types import MemRefType

Handler = Callable[[Vals], None]  # a handler specialized to one op


class HandlerHost(Protocol):
    """What a handler reads from the executor running it."""

    kernel_op: O.CallOp | None  # the call whose body the executor interprets, if any
    hazards: Hazards
    slots: dict[tuple[int, int], Transfer]  # the tag file: (id(tag), index) -> transfer
    stats: RunStats
    env: SimEnv
    cp: ControlProcessor
    compute: ComputeUnit
    cost: CostModel
    kernel_calls: KernelCalls
    dma_class: type[InFlightDma]
    functional: bool
    summary: TraceSummary | UnitTally | None  # the summary kept instead of the records, if any

    def run_kernel(self, op: O.CallOp, func: O.FuncOp, args: list[RuntimeValue]) -> None: ...


_SLOT = re.compile(r"\$([a-z_]+)")
# the names templates use beyond builtins
_GLOBALS: dict[str, object] = {"SimulationError": SimulationError, "TraceRecord": TraceRecord,
                               "kernel_elements": kernel_elements}


class HandlerTemplate:
    """One handler's source with plan-time slots (module docstring)."""

    def __init__(self, name: str, body: str, state: Mapping[str, str],
                 lookups: Mapping[str, str], slots: Mapping[str, str]):
        self.name = name
        self.lines = body.strip("\n").splitlines()
        self.state = dict(state)
        self.lookups = dict(lookups)
        self.slots = dict(slots)
        # (ex, p) -> the values of the state and the lookups, for a specialization
        self._names = [*self.state, *self.lookups]
        exprs = [*self.state.values(), *self.lookups.values()]
        self._values: Callable[[HandlerHost, object], tuple[object, ...]] = eval(
            f"lambda ex, p: ({''.join(f'{e}, ' for e in exprs)})", dict(_GLOBALS))
        # a specialization's default arguments for them, and its slot bindings for lookups
        self._params = "".join(f", {k}={k}" for k in ("ex", "p", *self._names))
        self._lookup_names = {k: k for k in self.lookups}
        self._rendered: dict[tuple[tuple[str, str], ...], list[str]] = {}
        used = set(_SLOT.findall(body)) | {ln.strip()[1:] for ln in self.lines
                                           if ln.strip().startswith("@")}
        for text in self.slots.values():
            used |= set(_SLOT.findall(text))
        unbound = used - set(self.lookups) - set(self.slots)
        if unbound:
            raise AssertionError(f"handler template {name}: unbound slots {sorted(unbound)}")

    def render(self, slots: Mapping[str, str]) -> list[str]:
        """The body with every slot replaced (indented once, as a function body)."""
        key = tuple(slots.items())
        hit = self._rendered.get(key)
        if hit is None:
            if len(self._rendered) > 4096:
                self._rendered.clear()
            hit = self._rendered[key] = self._render(slots)
        return hit

    def _render(self, slots: Mapping[str, str]) -> list[str]:
        lines: list[str] = []
        for line in self.lines:
            text = line.lstrip()
            if text.startswith("@"):
                indent = line[: len(line) - len(text)]
                lines += [indent + b for b in slots[text[1:]].splitlines() if b.strip()]
            else:
                lines.append(line)
        out = []
        for ln in lines:
            for _ in range(3):  # a slot's binding may itself name slots
                if "$" not in ln:
                    break
                ln = _SLOT.sub(lambda m: slots[m.group(1)], ln)
            out.append("    " + ln)
        return out

    def generic(self) -> Callable[[HandlerHost, object, Vals], None]:
        """`fn(ex, p, vals)`: the handler of any op of this kind."""
        state = [f"    {k} = {v}" for k, v in self.state.items()]
        source = "\n".join([f"def {self.name}(ex, p, vals):", *state,
                            *self.render({**self.lookups, **self.slots})]) + "\n"
        filename = f"<generic {self.name} handler>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        ns: dict[str, object] = dict(_GLOBALS)
        exec(compile(source, filename, "exec"), ns)
        return ns[self.name]  # type: ignore[return-value]

    def specialize(self, ex: HandlerHost, p: object, consts: Mapping[str, object],
                   slots: Mapping[str, str], label: str) -> Handler | None:
        """`fn(vals)` for the op of plan `p`: state and lookups evaluated once and bound as
        default arguments with `consts`, `slots` replacing generic bindings. None when
        Python refuses the generated source (the caller keeps the generic handler)."""
        bound: dict[str, object] = {"ex": ex, "p": p,
                                    **dict(zip(self._names, self._values(ex, p))), **consts}
        assert not consts.keys() & {"ex", "p", *self._names}, "a constant shadows a lookup"
        names = {**self.slots, **self._lookup_names, **slots}
        head = (f"def {self.name}(vals{self._params}"
                + "".join(f", {k}={k}" for k in consts) + "):")
        ns: dict[str, object] = {**_GLOBALS, **bound}
        try:
            exec(compile_cached("\n".join([head, *self.render(names)]), label), ns)
        except (SyntaxError, RecursionError):
            return None
        return ns[self.name]  # type: ignore[return-value]


# In a run that keeps only the trace summary, each DMA start and call first folds the batch
# of records when it is full (no record of the op is appended yet: `TraceSummary.flush`).
_FLUSH = """
if ex.summary is not None and len(ex.summary.records) >= ex.summary.batch:
    ex.summary.flush(ex.env.now)
"""


def _flush_slot(ex: HandlerHost, consts: dict[str, object]) -> str:
    """The specialized form of `_FLUSH`: nothing when the records are kept."""
    if ex.summary is None:
        return ""
    consts["summary"], consts["batch"] = ex.summary, ex.summary.records
    return f"if len(batch) >= {ex.summary.batch}:\n    summary.flush(env.now)"


# ---- affine.dma_start ------------------------------------------------------------------------
# Issue the descriptor: checks, regions in flight, cost, the tag's slot; the control
# processor waits only for issue cycles or a full queue.
DMA_START = HandlerTemplate("dma_start", body="""
if ex.kernel_op is not None:
    ex.hazards.timing_op_in_kernel(ex.kernel_op)
@flush
src = vals[$src_v]
dst = vals[$dst_v]
tag = vals[$tag_v]
if not (src.alive and dst.alive and tag.alive):
    for b in (src, dst, tag):
        ex.hazards.check_alive(b, op)
@indices
key = (id(tag), t0)
if key in slots:
    ex.hazards.tag_reuse(op, tag, p.tag_index(vals), slots[key])
@shape
s_end = s0 + $s_ext
d_end = d0 + $d_ext
if $overrun:
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
stats.dma_sram_bytes += $sram_bytes
xfer = $dma_class(env, sh, label, env.now, seq, src, s0, s_end, dst, d0, d_end)
src.reading.append(xfer)
dst.writing.append(xfer)
slots[key] = xfer
@issue
cp.submit(xfer)
""", state={"op": "p.op", "slots": "ex.slots", "stats": "ex.stats", "env": "ex.env",
            "cp": "ex.cp"},
    lookups={"src_v": "p.src_v", "dst_v": "p.dst_v", "tag_v": "p.tag",
             "dma_class": "ex.dma_class", "loc": "p.loc"},
    slots={
        # linear indices with the bounds checks folded in (-1: out of bounds, checked again)
        "indices": """
lins = p.lins
if lins is not None:
    s0, d0, t0 = lins(vals)
    if s0 < 0 or d0 < 0 or t0 < 0:
        s0, d0, t0 = p.checked_indices(vals, src, dst, tag, ex.hazards)
else:
    s0, d0, t0 = p.checked_indices(vals, src, dst, tag, ex.hazards)
""",
        # the transfer shape: known once when count, stride and per are constants, else
        # per (count, stride, per) for static memrefs, else computed each time
        "shape": """
sh = p.const_shape
if sh is None:
    n = vals[p.num]
    shape_key = n if p.stride is None else (n, vals[p.stride], vals[p.per])
    sh = p.shapes.get(shape_key) if p.lins is not None else None
    if sh is None:
        sh = p.new_shape(n, shape_key, src, dst)
""",
        "s_ext": "sh.s_ext", "d_ext": "sh.d_ext", "sram_bytes": "sh.sram_bytes",
        # a side may run past its memref, or the strided side past the end of a row
        "overrun": "s_end > src.numel or d_end > dst.numel or (sh.col_inner and 0 < "
                   "(s0 if sh.col_src else d0) % sh.col_inner > sh.col_inner - sh.per)",
        "issue": "if cp.issue_cycles:\n    cp.issue(label, $loc)",
        "flush": _FLUSH,
    })


def _constant_shape(p: DmaStartPlan, src: MemRefType, dst: MemRefType) -> TransferShape | None:
    """The transfer shape of a DMA whose count, stride and per are constants; None otherwise
    or when it is an error (raised when executed, by the generic shape lookup)."""
    if not p.constant:
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
        try:
            sh = p.transfer_shape(n, key, tuple(src.shape), tuple(dst.shape))  # type: ignore[arg-type]
        except AccelsimError:
            return None
        p.shapes[key] = sh
    p.const_shape = sh
    return sh


def specialize_dma_start(ex: HandlerHost, p: DmaStartPlan) -> Handler | None:
    """The dma_start handler for an op whose memrefs have static shapes: its index code
    inlined, the memref sizes and issue cycles as literals, and when its count, stride and
    per are constants the transfer shape and cost too. None for other ops."""
    op = p.op
    st, dt = op.src.type, op.dst.type
    code = p.code
    if code is None:
        return None
    assert isinstance(st, MemRefType) and isinstance(dt, MemRefType)
    keys, idx_lines, outs, may_fail = code
    consts: dict[str, object] = {f"_k{i}": k for i, k in enumerate(keys)}
    indices = [ln.removeprefix("    ") for ln in idx_lines]
    if any(may_fail):
        indices += [f"if {' or '.join(f'{x} < 0' for x, m in zip(outs, may_fail) if m)}:",
                    "    s0, d0, t0 = p.checked_indices(vals, src, dst, tag, ex.hazards)"]
    snumel, dnumel = math.prod(st.shape), math.prod(dt.shape)  # type: ignore[arg-type]
    slots = {"indices": "\n".join(indices), "flush": _flush_slot(ex, consts),
             "issue": "cp.issue(label, $loc)" if ex.cp.issue_cycles else "",
             "overrun": f"s_end > {snumel} or d_end > {dnumel} or (sh.col_inner and 0 < "
                        "(s0 if sh.col_src else d0) % sh.col_inner > sh.col_inner - sh.per)"}
    sh = _constant_shape(p, st, dt)
    if sh is not None:
        consts["sh"] = sh
        over = [f"s_end > {snumel}", f"d_end > {dnumel}"]
        if sh.col_inner:
            ci = sh.col_inner
            over.append(f"0 < {'s0' if sh.col_src else 'd0'} % {ci} > {ci - sh.per}")
        slots.update(shape="", s_ext=str(sh.s_ext), d_ext=str(sh.d_ext),
                     sram_bytes=str(sh.sram_bytes), overrun=" or ".join(over))
    return DMA_START.specialize(ex, p, consts, slots, f"<dma_start at {p.loc}>")


# ---- affine.dma_wait -------------------------------------------------------------------------
# Consume the tag's slot (its element count must be the transfer's); the control processor
# stalls until the transfer completes.
DMA_WAIT = HandlerTemplate("dma_wait", body="""
if ex.kernel_op is not None:
    ex.hazards.timing_op_in_kernel(ex.kernel_op)
tag = vals[$tag_v]
@tag_index
pend = $pop((id(tag), t0), None)
if pend is None:
    ex.hazards.deadlock(p.op, tag, p.tag_index(vals))
if vals[$num_v] != pend.shape.count:
    ex.hazards.wait_count(p.op, tag, p.tag_index(vals), vals[$num_v], pend)
if pend.callbacks is not None:  # not completed yet
    $cp.wait(pend, "wait " + pend.label, $loc)
""", state={},
    lookups={"tag_v": "p.tag", "pop": "ex.slots.pop", "cp": "ex.cp",
             "loc": "p.loc", "num_v": "p.num"},
    slots={"tag_index": """
t0 = p.lin(vals) if p.lin is not None else -1
if t0 < 0:
    t0 = p.checked_tag_index(vals, tag, ex.hazards)
"""})


def specialize_dma_wait(ex: HandlerHost, p: DmaWaitPlan) -> Handler | None:
    """The dma_wait handler for an op on a static-shaped tag memref: the tag index code
    inlined. None for other ops."""
    code = p.code
    if code is None:
        return None
    keys, idx_lines, _, (may_fail,) = code
    lines = [ln.removeprefix("    ") for ln in idx_lines]
    if may_fail:
        lines += ["if t0 < 0:", "    t0 = p.checked_tag_index(vals, tag, ex.hazards)"]
    return DMA_WAIT.specialize(ex, p, {f"_k{i}": k for i, k in enumerate(keys)},
                               {"tag_index": "\n".join(lines)}, f"<dma_wait at {p.loc}>")


# ---- func.call -------------------------------------------------------------------------------
# A kernel call: race checks of its access boxes against the DMAs in flight, its cost on the
# compute unit (the control processor waits for it), the data (functional mode).
CALL = HandlerTemplate("call", body="""
if func is None:
    raise SimulationError(f"func.call to @{op.callee}: no function body in the module", op.loc)
if ex.kernel_op is not None:  # a call inside a kernel being interpreted
    ex.run_kernel(op, func, p.arguments(vals))
    return
@flush
@read_args
entry = $find_entry
if entry is None:
    @call_args
    entry = ex.kernel_calls.entry(p, args, idx_args)
@race_checks
cost = entry.cost
if cost is None:  # the entry is new (made above, by this call)
    @call_args
    cost = entry.cost = $kernel_cost(func, idx_args)
entry.calls += 1
if cost.dram_direct_cycles and len(ex.stats.flags) < 20:
    ex.kernel_calls.flag_dram(op, cost)
@run_kernel
@issue
start = env.now
end = start + cost.cycles
if end > start:
    env.advance_to(end)  # the compute unit is busy; the control processor waits
# the compute unit's busy interval: the one place a kernel's trace record is made
$records.append($new_tuple($record_type, ($unit, start, end, "kernel", cost.sram_bytes, $callee, $loc)))
""", state={"op": "p.op", "func": "p.func", "env": "ex.env"},
    lookups={"cp": "ex.cp", "kernel_cost": "ex.cost.kernel",
             "records": "ex.compute.trace.records", "unit": "ex.compute.name",
             "new_tuple": "tuple.__new__", "record_type": "TraceRecord",
             "callee": "p.op.callee", "loc": "p.loc"},
    slots={
        "read_args": """
args, idx_args, alive = p.read(vals)
if not alive:
    for k in p.buf_pos:
        ex.hazards.check_alive(args[k], op)
""",
        "find_entry": "p.entries.get(p.entry_key(idx_args)) if p.static else None",
        "call_args": "",  # read above
        # the spans of the entry's access boxes against the DMAs in flight on each buffer
        "race_checks": """
for arg, read, written, regions, lo, hi in entry.spans:
    buf = args[arg]
    if buf.writing or (written and buf.reading):
        for x in buf.writing:
            if x.d_end > lo and hi > x.d0:
                ex.hazards.kernel_race(op, buf, read, written, regions, lambda: kernel_elements(
                    func, p.read(vals)[0], arg, buf.strides))
        if written:
            for x in buf.reading:
                if x.s_end > lo and hi > x.s0:
                    ex.hazards.kernel_race(op, buf, read, written, regions, lambda: kernel_elements(
                        func, p.read(vals)[0], arg, buf.strides))
""",
        "run_kernel": "if ex.functional:\n    ex.run_kernel(op, func, args)",
        "issue": "if $cp.issue_cycles:\n    $cp.issue($callee, $loc)",
        "flush": _FLUSH,
    })


def specialize_call(ex: HandlerHost, p: CallPlan) -> Handler | None:
    """The call handler for a call of a kernel in the module whose buffer arguments have
    static shapes: arguments read into locals, the mode and the issue cycles decided.
    None for other calls."""
    if p.func is None or not p.static:
        return None
    n = len(p.operands)
    bufs = [f"a{k}" for k in p.buf_pos]
    read = [f"a{i} = vals[_k{i}]" for i in range(n)]
    if bufs:
        read += [f"if not ({' and '.join(f'{b}.alive' for b in bufs)}):",
                 *(f"    ex.hazards.check_alive({b}, op)" for b in bufs)]
    key = "".join("None, " if k in p.buf_pos else f"int(a{k}), " for k in range(n))
    call_args = f"args = [{', '.join(f'a{i}' for i in range(n))}]\nidx_args = ({key})"
    consts: dict[str, object] = {"entries": p.entries,
                                 **{f"_k{i}": v for i, v in enumerate(p.operands)}}
    # the entry key: the generated box key inlined (its lines read the arguments a<k>),
    # called when it may give up (None: the slow path keys by the argument tuple)
    bk = p.boxes
    if bk is None:
        find = "entries.get(idx_args)"
    elif bk.fallible:
        consts["entry_key"] = bk.key
        find = "entries.get(entry_key(idx_args))"
    else:
        read += [ln.removeprefix("    ") for ln in bk.lines]
        find = f"entries.get({bk.expr})"
    # race checks unrolled per buffer argument when the boxes' arguments and flags are known
    # (`BoxKey.spans`: every entry has them, `KernelCalls.entry` checks), else the loop
    races = _unrolled_race_checks(bk.spans) if bk is not None and not bk.fallible else None
    if races is None or ex.functional:
        read.append(call_args)  # the loop and the kernel read `args`
    slots = {"read_args": "\n".join(read), "find_entry": find, "flush": _flush_slot(ex, consts),
             "call_args": "" if races is None or ex.functional else call_args,
             **({} if races is None else {"race_checks": races}),
             "run_kernel": "ex.run_kernel(op, func, args)" if ex.functional else "",
             "issue": "$cp.issue($callee, $loc)" if ex.cp.issue_cycles else ""}
    return CALL.specialize(ex, p, consts, slots, f"<call at {p.loc}>")


def _unrolled_race_checks(spans: tuple[tuple[int, bool, bool], ...]) -> str:
    """The race-check loop of the call template written out for these (argument, read,
    written) spans: bounds from `entry.bounds`, regions only on the error path."""
    if not spans:
        return ""
    lines = [f"{', '.join(f'lo{j}, hi{j}' for j in range(len(spans)))}, = entry.bounds"]
    for j, (k, read, written) in enumerate(spans):
        b = f"a{k}"
        race = (f"ex.hazards.kernel_race(op, a{k}, {read}, {written}, entry.spans[{j}][3], "
                f"lambda: kernel_elements(func, p.read(vals)[0], {k}, a{k}.strides))")
        lines += [f"if {b}.writing{f' or {b}.reading' if written else ''}:",
                  f"    for x in {b}.writing:",
                  f"        if x.d_end > lo{j} and hi{j} > x.d0:",
                  f"            {race}"]
        if written:
            lines += [f"    for x in {b}.reading:",
                      f"        if x.s_end > lo{j} and hi{j} > x.s0:",
                      f"            {race}"]
    return "\n".join(lines)


generic_dma_start = DMA_START.generic()
generic_dma_wait = DMA_WAIT.generic()
generic_call = CALL.generic()
