"""Compile a control function into one Python function (the control processor's program).

The executor's block walk runs a list of steps per block and recurses per loop/if level.
The compiled form is straight-line Python with native `for`/`if` statements: constants and
index arithmetic inlined, every other op a call of its step (`host.step(op)`, the same step
the walk runs: for DMA starts, waits and calls the handler specialized to the op). Loops
with iter_args and ifs with results run as their steps too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from accelsim.sim.codegen import compile_cached
from accelsim.sim.memory import Vals
from accelsim.sim.plans import ConstantPlan, ForPlan, Plan
from compiler.ir import ops as O
from compiler.ir.core import Block, Operation, Value

Step = Callable[[Vals], None]  # one op's execution: `step(vals)`


class ControlHost(Protocol):
    """What the compiled program is built from: each op's plan and step."""

    def plan(self, op: Operation) -> Plan: ...

    def step(self, op: Operation) -> Step: ...


class _Emitter:
    def __init__(self, host: ControlHost):
        self.host = host
        self.lines: list[str] = []
        self.consts: list[object] = []
        self.depth = 0

    def k(self, obj: object) -> str:
        """A name for `obj` in the generated code (a default argument: a fast local)."""
        self.consts.append(obj)
        return f"_c{len(self.consts) - 1}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def operands(self, values: list[Value]) -> str:
        return "[" + ", ".join(f"vals[{self.k(v)}]" for v in values) + "]"

    def block(self, block: Block, indent: int) -> None:
        start = len(self.lines)
        for op in block.ops:
            self.op(op, indent)
        if len(self.lines) == start:
            self.emit(indent, "pass")

    def op(self, op: Operation, indent: int) -> None:
        t = type(op)
        host = self.host
        if t is O.ConstantOp:
            p = host.plan(op)
            assert isinstance(p, ConstantPlan)
            self.emit(indent, f"vals[{self.k(p.result)}] = {self.k(p.value)}")
        elif t is O.AffineApplyOp:
            self.emit(indent, f"vals[{self.k(op.results[0])}] = "
                              f"{self.k(host.plan(op))}({self.operands(op.operands)})[0]")
        elif t is O.AffineMinOp or t is O.AffineMaxOp:
            fn = "min" if t is O.AffineMinOp else "max"
            self.emit(indent, f"vals[{self.k(op.results[0])}] = "
                              f"{fn}({self.k(host.plan(op))}({self.operands(op.operands)}))")
        elif t is O.AffineForOp and not op.inits:
            p = host.plan(op)
            assert isinstance(p, ForPlan)
            self.depth += 1
            d = self.depth
            lo = f"max({self.k(p.lower)}({self.operands(p.lower_operands)}))"
            hi = f"min({self.k(p.upper)}({self.operands(p.upper_operands)}))"
            self.emit(indent, f"for i{d} in range({lo}, {hi}, {op.step}):")
            self.emit(indent + 1, f"vals[{self.k(op.iv)}] = i{d}")
            self.block(op.body, indent + 1)
        elif t is O.AffineIfOp and not op.results:
            cond = f"{self.k(host.plan(op))}({self.operands(op.operands)})"
            self.emit(indent, f"if {cond}:")
            self.block(op.then_block, indent + 1)
            if op.else_block.ops:
                self.emit(indent, "else:")
                self.block(op.else_block, indent + 1)
        elif t is O.AffineYieldOp:
            pass  # the end of a loop body or an if branch without results
        elif t is O.ReturnOp:
            self.emit(indent, "return")
        else:
            self.emit(indent, f"{self.k(host.step(op))}(vals)")


def compile_control(host: ControlHost, func: O.FuncOp) -> Step | None:
    """A function `run(vals)` for `func`, or None if Python refuses the generated code (e.g.
    more than 20 nested blocks): the caller then walks the blocks."""
    em = _Emitter(host)
    em.block(func.body, 1)
    em.lines.insert(0, "def run(vals" + "".join(f", _c{i}=K[{i}]" for i in range(len(em.consts)))
                    + "):")
    source = "\n".join(em.lines)
    namespace: dict[str, object] = {"K": em.consts}
    try:
        exec(compile_cached(source, f"<control program @{func.sym_name}>"), namespace)
    except (SyntaxError, RecursionError):
        return None
    return namespace["run"]  # type: ignore[return-value]
