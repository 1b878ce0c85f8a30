"""The func dialect's op syntax inside a body: return / func.return, call / func.call
(`func.func` itself is structure: compiler.text.parsing.structure)."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.core import Operation, Value
from compiler.ir.ops import CallOp, ReturnOp
from compiler.text.lexer import Token
from compiler.text.parsing.structure import OpParseFn, OpParser


def parse_return(p: OpParser, loc: Location) -> Operation:
    values: list[Value] = []
    if p.kind() == "pct":
        pairs = p.parse_operand_list()
        p.expect(":", "before the returned types")
        types = p.parse_type_list(len(pairs), "return")
        for (v, t), ty in zip(pairs, types, strict=True):
            p.check_type(v, t, ty)
        values = [v for v, _ in pairs]
    return p.insert(ReturnOp(values, loc=loc))


def parse_call(p: OpParser, loc: Location) -> Operation:
    callee = p.expect_kind("at", "a callee ('@name')")
    p.expect("(", "to open the call arguments")
    pairs: list[tuple[Value, Token]] = []
    if not p.at(")"):
        pairs = p.parse_operand_list()
    p.expect(")", "to close the call arguments")
    p.expect(":", "before the call's function type")
    ft_tok = p.tok
    ft = p.parse_function_type()
    if len(ft.inputs) != len(pairs):
        raise p.error(f"call has {len(pairs)} argument(s) but its type lists "
                         f"{len(ft.inputs)}", ft_tok)
    for (v, t), ty in zip(pairs, ft.inputs, strict=True):
        p.check_type(v, t, ty)
    return p.insert(CallOp(callee[1][1:].strip('"'), [v for v, _ in pairs], ft.results,
                              loc=loc))


OPS: dict[str, OpParseFn] = {
    "return": parse_return,
    "func.return": parse_return,
    "call": parse_call,
    "func.call": parse_call,
}
