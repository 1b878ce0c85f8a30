"""Compile a control function into one Python function (the control processor's program).

The interpreter (`Executor._block`) dispatches every op through a table and recurses per
loop/if level. The compiled form is straight-line Python with native `for`/`if` statements:
index arithmetic is inlined, DMA/wait/call ops call the executor's handlers with their plans
directly. Semantics are the interpreter's (same handlers, same order); constructs the compiler
does not cover (loops with iter_args, ifs with results) are delegated to the interpreter for
that op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compiler.analysis.counting import compile_map, compile_set
from compiler.ir import ops as O
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

    def op(self, op: Operation, indent: int) -> None:
        from accelsim.executor import _SYNC

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
        elif (site := self.ex.site(op)) is not None:
            handler, plan = site
            self.emit(indent, f"{self.k(handler)}({self.k(plan)}, vals)")
        elif t in _SYNC and t is not O.AffineForOp and t is not O.AffineIfOp:
            self.emit(indent, f"{self.k(_SYNC[t])}(ex, {self.k(op)}, vals)")
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
        exec(compile(source, f"<control program @{func.sym_name}>", "exec"), namespace)
    except (SyntaxError, RecursionError):
        return None
    return namespace["run"]  # type: ignore[no-any-return]
