"""Compile a control function into one Python function (the control processor's program).

The interpreter (`Executor._block`) dispatches every op through a table and recurses per
loop/if level. The compiled form is straight-line Python with native `for`/`if` statements:
index arithmetic is inlined, DMA/wait/call ops call the executor's handlers with their plans
directly. Semantics are the interpreter's (same handlers, same order); constructs the compiler
does not cover (loops with iter_args, ifs with results) are delegated to the interpreter for
that op.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from accelsim.sim.codegen import compile_cached, index_code, index_constant
from compiler.ir import ops as O
from compiler.ir.affine_eval import compile_map, compile_set
from compiler.ir.core import Block, Operation


class _Emitter:
    def __init__(self, executor: Any):
        self.ex = executor
        self.lines: list[str] = []
        self.consts: list[Any] = []
        self.depth = 0

    def k(self, obj: Any) -> str:
        """A name for `obj` in the generated code (a default argument: a fast local)."""
        self.consts.append(obj)
        return f"_c{len(self.consts) - 1}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def operands(self, values: list[Any]) -> str:
        return "[" + ", ".join(f"vals[{self.k(v)}]" for v in values) + "]"

    def block(self, block: Block, indent: int) -> None:
        start = len(self.lines)
        for op in block.ops:
            self.op(op, indent)
        if len(self.lines) == start:
            self.emit(indent, "pass")

    def specialized(self, op: Operation) -> Callable[[dict], None] | None:
        """The op's handler specialized to it (DMA start/wait, kernel calls on static shapes),
    if any."""
        t = type(op)
        if t is O.AffineDmaStartOp:
            return compile_dma_start(self.ex, self.ex._plan(op))
        if t is O.AffineDmaWaitOp:
            return compile_dma_wait(self.ex, self.ex._plan(op))
        if t is O.CallOp:
            return compile_call(self.ex, self.ex._plan(op))
        return None

    def op(self, op: Operation, indent: int) -> None:
        t = type(op)
        if t is O.ConstantOp:
            res, value = self.ex._plan(op)
            self.emit(indent, f"vals[{self.k(res)}] = {self.k(value)}")
        elif t is O.AffineApplyOp:
            self.emit(indent, f"vals[{self.k(op.results[0])}] = "
                              f"{self.k(compile_map(op.map))}({self.operands(op.operands)})[0]")
        elif t is O.AffineMinOp or t is O.AffineMaxOp:
            fn = "min" if t is O.AffineMinOp else "max"
            self.emit(indent, f"vals[{self.k(op.results[0])}] = "
                              f"{fn}({self.k(compile_map(op.map))}({self.operands(op.operands)}))")
        elif t is O.AffineForOp and not op.inits:
            self.depth += 1
            d = self.depth
            lo = f"max({self.k(compile_map(op.lower_map))}({self.operands(op.lower_operands)}))"
            hi = f"min({self.k(compile_map(op.upper_map))}({self.operands(op.upper_operands)}))"
            self.emit(indent, f"for i{d} in range({lo}, {hi}, {op.step}):")
            self.emit(indent + 1, f"vals[{self.k(op.iv)}] = i{d}")
            self.block(op.body, indent + 1)
        elif t is O.AffineIfOp and not op.results:
            cond = f"{self.k(compile_set(op.condition))}({self.operands(op.operands)})"
            self.emit(indent, f"if {cond}:")
            self.block(op.then_block, indent + 1)
            if op.else_block.ops:
                self.emit(indent, "else:")
                self.block(op.else_block, indent + 1)
        elif t is O.AffineYieldOp:
            pass  # the end of a loop body or an if branch without results
        elif t is O.ReturnOp:
            self.emit(indent, "return")
        elif (fn := self.specialized(op)) is not None:
            self.emit(indent, f"{self.k(fn)}(vals)")
        elif (site := self.ex.site(op)) is not None:
            handler, plan = site
            self.emit(indent, f"{self.k(handler)}({self.k(plan)}, vals)")
        elif t in self.ex.SYNC and t is not O.AffineForOp and t is not O.AffineIfOp:
            self.emit(indent, f"{self.k(self.ex.SYNC[t])}(ex, {self.k(op)}, vals)")
        elif t is O.AffineForOp:
            self.emit(indent, f"ex._for({self.k(op)}, vals)")
        elif t is O.AffineIfOp:
            self.emit(indent, f"ex._if({self.k(op)}, vals)")
        else:
            self.emit(indent, f"ex._unsupported({self.k(op)})")


def compile_control(executor: Any, func: O.FuncOp) -> Callable[[Any, dict], Any] | None:
    """A function `run(executor, vals)` for `func`, or None if Python refuses the generated
    code (e.g. more than 20 nested blocks): the caller then interprets."""
    em = _Emitter(executor)
    em.block(func.body, 1)
    em.lines.insert(0, "def run(ex, vals" + "".join(f", _c{i}=K[{i}]" for i in range(len(em.consts)))
                    + "):")
    source = "\n".join(em.lines)
    namespace: dict[str, Any] = {"K": em.consts}
    try:
        exec(compile_cached(source, f"<control program @{func.sym_name}>"), namespace)
    except (SyntaxError, RecursionError):
        return None
    return namespace["run"]  # type: ignore[no-any-return]


def compile_dma_start(executor: Any, p: Any) -> Callable[[dict], None] | None:
    """`Executor._dma_start_p` specialized to one op: `fn(vals)`. For an op whose memrefs
    have static shapes and whose element count, stride and elements per stride are constants,
    the plan-time facts (index code, transfer shape and cost, memref sizes, the kind, the
    config's issue cycles) are baked in; every check runs as in `_dma_start_p`, in the same
    order, and every error is raised by the same executor method. None for other ops."""
    from types import SimpleNamespace

    from compiler.diagnostics import AccelsimError

    op = p.op
    code = index_code([(op.src_map, op.src_indices, op.src.type),
                       (op.dst_map, op.dst_indices, op.dst.type),
                       (op.tag_map, op.tag_indices, op.tag.type)])
    if code is None or not p.constant:
        return None
    st, dt = op.src.type, op.dst.type
    n = index_constant(p.num)
    ckey: Any = n
    if p.stride is not None:
        ckey = (n, index_constant(p.stride), index_constant(p.per))
    if n is None or (p.stride is not None and None in ckey):
        return None
    try:
        sh = executor._dma_shape(p, n, ckey, SimpleNamespace(shape=tuple(st.shape)),
                                 SimpleNamespace(shape=tuple(dt.shape)))
    except AccelsimError:
        return None  # raised when executed, by the generic handler
    keys, idx_lines, (xs, xd, xt), may_fail = code
    snumel, dnumel = math.prod(st.shape), math.prod(dt.shape)
    consts: dict[str, Any] = {
        "_ex": executor, "_p": p, "_sh": sh, "_op": op, "_slots": executor._slots,
        "_stats": executor.stats, "_cp": executor._cp, "_env": executor.env,
        "_Dma": executor._dma_class, "_ks": p.src_v, "_kd": p.dst_v, "_kt": p.tag,
        "_loc": p.loc,
        **{f"_k{i}": k for i, k in enumerate(keys)},
    }
    lines = ["    if _ex._kernel_op is not None:",
             "        _ex._timing_op_in_kernel()",
             "    src = vals[_ks]", "    dst = vals[_kd]", "    tag = vals[_kt]",
             "    if not (src.alive and dst.alive and tag.alive):",
             "        for b in (src, dst, tag):",
             "            _ex._check_alive(b, _op)",
             *idx_lines]
    if any(may_fail):
        lines += [f"    if {' or '.join(f'{x} < 0' for x, m in zip((xs, xd, xt), may_fail) if m)}:",
                  f"        {xs}, {xd}, {xt} = _ex._dma_indices(_p, vals, src, dst, tag)"]
    over = [f"s_end > {snumel}", f"d_end > {dnumel}"]
    if sh.col_inner:
        ci = sh.col_inner
        over.append(f"0 < {xs if sh.col_src else xd} % {ci} > {ci - sh.per}")
    lines += [f"    key = (id(tag), {xt})",
              "    if key in _slots:",
              "        _ex._tag_reuse(_p, vals, tag, _slots[key])",
              f"    s_end = {xs} + {sh.s_ext}",
              f"    d_end = {xd} + {sh.d_ext}",
              f"    if {' or '.join(over)}:",
              f"        _ex._dma_overrun(_p, vals, src, dst, {xs}, {xd}, _sh)",
              "    label = _p.label if src is _p.label_src and dst is _p.label_dst "
              "else _ex._dma_label(_p, src, dst)",
              "    if src.writing:",
              "        for x in src.writing:",
              f"            if x.d_end > {xs} and s_end > x.d0:",
              f"                _ex._dma_read_race(_op, src, x, {xs}, _sh)",
              "    if dst.writing:",
              "        for x in dst.writing:",
              f"            if x.d_end > {xd} and d_end > x.d0:",
              f"                _ex._dma_overwrite_race(_op, dst, {xd}, _sh)",
              "    if dst.reading:",
              "        for x in dst.reading:",
              f"            if x.s_end > {xd} and d_end > x.s0:",
              f"                _ex._dma_overwrite_race(_op, dst, {xd}, _sh)",
              "    _stats.dma_ops = seq = _stats.dma_ops + 1",
              f"    _stats.dma_sram_bytes += {sh.sram_bytes}",
              f"    xfer = _Dma(_env, _sh, label, _env.now, seq, src, {xs}, s_end, dst, {xd}, d_end)",
              "    src.reading.append(xfer)", "    dst.writing.append(xfer)",
              "    _slots[key] = xfer"]
    if executor._cp.issue_cycles:
        lines.append("    _cp.issue(label, _loc)")
    lines.append("    _cp.submit(xfer)")
    return _define("start", consts, lines, f"<dma_start at {p.loc}>")


def _define(name: str, consts: dict[str, Any], lines: list[str], label: str) -> Any:
    """`def name(vals, <consts as defaults>):` + `lines`, compiled (cached by source); None
    when the generated source does not compile (the caller keeps the generic handler)."""
    head = f"def {name}(vals" + "".join(f", {k}={k}" for k in consts) + "):"
    ns: dict[str, Any] = dict(consts)
    try:
        exec(compile_cached("\n".join([head, *lines]), label), ns)
    except (SyntaxError, RecursionError):
        return None
    return ns[name]


def compile_dma_wait(executor: Any, p: Any) -> Callable[[dict], None] | None:
    """`Executor._dma_wait_p` specialized to one op with a static-shaped tag memref: the tag
    index code inlined, errors raised by the same executor methods. None for other ops."""

    op = p.op
    code = index_code([(op.tag_map, op.tag_indices, p.tag.type)])
    if code is None:
        return None
    keys, idx_lines, (xt,), (may_fail,) = code
    consts: dict[str, Any] = {
        "_ex": executor, "_p": p, "_pop": executor._slots.pop, "_cp": executor._cp,
        "_kt": p.tag, "_loc": p.loc, **{f"_k{i}": k for i, k in enumerate(keys)},
    }
    lines = ["    if _ex._kernel_op is not None:",
             "        _ex._timing_op_in_kernel()",
             "    tag = vals[_kt]", *idx_lines]
    if may_fail:
        lines += [f"    if {xt} < 0:", f"        {xt} = _ex._wait_index(_p, vals, tag)"]
    lines += [f"    pend = _pop((id(tag), {xt}), None)",
              "    if pend is None:",
              "        _ex._deadlock(_p, vals, tag)",
              "    if pend.callbacks is not None:",
              "        _cp.wait(pend, 'wait ' + pend.label, _loc)"]
    return _define("wait", consts, lines, f"<dma_wait at {p.loc}>")


def compile_call(executor: Any, p: Any) -> Callable[[dict], None] | None:
    """`Executor._call_p` specialized to one call of a kernel whose buffer arguments have
    static shapes: arguments read into locals, the mode and the issue cycles baked in; the
    per-argument-tuple entry (race checks, cost, count), every check and every error as in
    `_call_p`. None for other calls."""
    from accelsim.trace import TraceRecord

    if p.func is None or not p.static:
        return None
    ex = executor
    n = len(p.operands)
    bufs = [f"a{k}" for k in p.buf_pos]
    consts: dict[str, Any] = {
        "_ex": ex, "_p": p, "_op": p.op, "_func": p.func, "_entries": p.entries,
        "_cost_of": ex.cost.kernel, "_stats": ex.stats, "_cp": ex._cp, "_env": ex.env,
        "_records": ex._records, "_cunit": ex._compute_unit, "_callee": p.op.callee,
        "_loc": p.loc, "_tnew": tuple.__new__, "_TR": TraceRecord,
        **{f"_k{i}": v for i, v in enumerate(p.operands)},
    }
    args = ", ".join(f"a{i}" for i in range(n))
    key = "".join("None, " if k in p.buf_pos else f"int(a{k}), " for k in range(n))
    lines = ["    if _ex._kernel_op is not None:  # a call inside a kernel being interpreted",
             f"        _ex._run_kernel(_op, _func, [{', '.join(f'vals[_k{i}]' for i in range(n))}])",
             "        return",
             *(f"    a{i} = vals[_k{i}]" for i in range(n))]
    if bufs:
        lines += [f"    if not ({' and '.join(f'{b}.alive' for b in bufs)}):",
                  *(f"        _ex._check_alive({b}, _op)" for b in bufs)]
    lines += [f"    args = [{args}]",
              f"    key = ({key})",
              "    entry = _entries.get(key)",
              "    if entry is None:",
              "        entry = _ex._call_entry(_p, args, key)",
              "    for arg, read, written, regions, lo, hi in entry[0]:",
              "        buf = args[arg]",
              "        if buf.writing or (written and buf.reading):",
              "            for x in buf.writing:",
              "                if x.d_end > lo and hi > x.d0:",
              "                    _ex._kernel_race(_op, buf, read, written, regions)",
              "            if written:",
              "                for x in buf.reading:",
              "                    if x.s_end > lo and hi > x.s0:",
              "                        _ex._kernel_race(_op, buf, read, written, regions)",
              "    cost = entry[1]",
              "    if cost is None:",
              "        cost = entry[1] = _cost_of(_func, key)",
              "    entry[2] += 1",
              "    if cost.dram_direct_cycles and len(_stats.flags) < 20:",
              "        _ex._flag_dram(_op, cost)"]
    if ex.functional:
        lines.append("    _ex._run_kernel(_op, _func, args)")
    if ex._cp.issue_cycles:
        lines.append("    _cp.issue(_callee, _loc)")
    lines += ["    start = _env.now",
              "    end = start + cost.cycles",
              "    if end > start:",
              "        _env.advance_to(end)  # the compute unit is busy; the control processor waits",
              "    _records.append(_tnew(_TR, (_cunit, start, end, 'kernel', cost.sram_bytes, "
              "_callee, _loc)))"]
    return _define("call", consts, lines, f"<call at {p.loc}>")
