"""SSA values: nested scopes of names, uses (`%x`, `%r#1`), definitions, typed operands."""

from __future__ import annotations

from compiler.ir.core import Value
from compiler.ir.types import Type
from compiler.text.lexer import Token
from compiler.text.parsing.types import TypeParser


class ValueParser(TypeParser):
    def __init__(self, text: str, filename: str):
        super().__init__(text, filename)
        self.scopes: list[dict[str, list[Value]]] = []

    def use_value(self, t: Token) -> Value:
        name = t[1][1:]
        if "#" not in name:  # the common case: a whole value, `%x`
            for scope in reversed(self.scopes):
                vals = scope.get(name)
                if vals is not None:
                    return vals[0]
            raise self.error(f"use of undefined SSA value '%{name}'", t)
        name, _, idx = name.partition("#")
        for scope in reversed(self.scopes):
            vals = scope.get(name)
            if vals is not None:
                k = int(idx)
                if k >= len(vals):
                    raise self.error(f"'%{name}' has {len(vals)} results, no result #{k}", t)
                return vals[k]
        raise self.error(f"use of undefined SSA value '%{name}'", t)

    def lookup(self, name_with_index: str) -> Value | None:
        name, _, idx = name_with_index[1:].partition("#")
        k = int(idx) if idx else 0
        for scope in reversed(self.scopes):
            vals = scope.get(name)
            if vals is not None:
                return vals[k] if k < len(vals) else None
        return None

    def parse_operand(self, type: Type | None = None) -> Value:
        t = self.tok
        if t[0] != "pct":
            raise self.error(f"expected an SSA operand, found {self.describe()}")
        v = self.use_value(t)
        self.i += 1
        if type is not None and v.type != type:
            raise self.error(f"'{t[1]}' has type {v.type}, but {type} is expected here", t)
        return v

    def parse_operand_list(self) -> list[tuple[Value, Token]]:
        out = [(self.parse_operand(), self.toks[self.i - 1])]
        while self.accept(","):
            out.append((self.parse_operand(), self.toks[self.i - 1]))
        return out

    def check_type(self, v: Value, t: Token, type: Type) -> None:
        if v.type != type:
            raise self.error(f"'{t[1]}' has type {v.type}, but the op's type is {type}", t)

    def define(self, t: Token, values: list[Value]) -> None:
        name = t[1][1:]
        if "#" in name:
            raise self.error(f"cannot define a result with '#': '{t[1]}'", t)
        for scope in self.scopes:
            if name in scope:
                raise self.error(f"redefinition of SSA value '{t[1]}'", t)
        self.scopes[-1][name] = values
        if not name[0].isdigit():
            values[0].name_hint = name

    def parse_value_def(self) -> Token:
        return self.expect_kind("pct", "an SSA name")
