"""`builtin.module`, `func.func`, `func.return`, `func.call`."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.core import Block, Operation, Value
from compiler.ir.types import FunctionType, Type


class ModuleOp(Operation):
    __slots__ = ()
    NAME = "builtin.module"

    def __init__(self, loc: Location = UNKNOWN_LOC):
        super().__init__(blocks=[Block()], loc=loc)

    @property
    def body(self) -> Block:
        return self.blocks[0]

    @property
    def funcs(self) -> list[FuncOp]:
        return [op for op in self.body.ops if isinstance(op, FuncOp)]

    def lookup(self, name: str) -> FuncOp | None:
        for f in self.funcs:
            if f.sym_name == name:
                return f
        return None


class FuncOp(Operation):
    """A function; `private` with no body is a declaration."""

    __slots__ = ("sym_name", "function_type", "private")
    NAME = "func.func"
    ATTRS = ("sym_name", "function_type", "private")

    def __init__(self, sym_name: str, function_type: FunctionType,
                 arg_names: Sequence[str | None] = (), loc: Location = UNKNOWN_LOC,
                 private: bool = False, declaration: bool = False):
        blocks = [] if declaration else [Block(function_type.inputs, arg_names)]
        super().__init__(blocks=blocks, loc=loc)
        self.sym_name = sym_name
        self.function_type = function_type
        self.private = private

    @property
    def body(self) -> Block:
        return self.blocks[0]

    @property
    def is_declaration(self) -> bool:
        return not self.blocks

    @property
    def args(self) -> list:
        return self.body.args

    def arg_names(self) -> list[str]:
        """Names by which inputs are addressed (`%A` -> "A", else `arg<i>`)."""
        return [a.name_hint or f"arg{i}" for i, a in enumerate(self.args)]


class ReturnOp(Operation):
    __slots__ = ()
    NAME = "func.return"
    IS_TERMINATOR = True

    def __init__(self, values: Sequence[Value] = (), loc: Location = UNKNOWN_LOC):
        super().__init__(operands=values, loc=loc)


class CallOp(Operation):
    __slots__ = ("callee",)
    NAME = "func.call"
    ATTRS = ("callee",)

    def __init__(self, callee: str, args: Sequence[Value], result_types: Sequence[Type] = (),
                 loc: Location = UNKNOWN_LOC):
        super().__init__(operands=args, result_types=result_types, loc=loc)
        self.callee = callee
