"""A tiny, safe expression language for sweep constraints.

Constraints are written as Python expressions (`"stages <= dma.engines + 1"`), parsed with
`ast` and interpreted by a whitelist walker: names, numbers, strings, tuples, comparisons,
arithmetic, `and`/`or`/`not`, indexing and a few pure functions. Nothing is ever passed to
`eval`, and attribute access only spells dotted config keys (`sram.capacity_kib`).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accelsim.errors import ConfigError

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def _prod(values: Any) -> Any:
    return math.prod(values) if isinstance(values, tuple | list) else values


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "len": len,
    "prod": _prod,
    "ceil": math.ceil,
    "floor": math.floor,
    "log2": math.log2,
}
MAX_EXPONENT = 64


class ConstraintError(ConfigError):
    """A constraint that does not parse, uses a forbidden construct, or fails on a point."""


def _dotted(node: ast.AST) -> str | None:
    """`sram.capacity_kib` parses as Attribute(Name); give back the dotted key, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


@dataclass(frozen=True, slots=True)
class Constraint:
    """One validated constraint; call it with the point's environment to get a bool."""

    text: str
    tree: ast.Expression = field(repr=False, compare=False)
    names: frozenset[str] = field(compare=False)

    @staticmethod
    def parse(text: str) -> Constraint:
        if not isinstance(text, str) or not text.strip():
            raise ConstraintError(f"constraint: expected a non-empty expression string, found {text!r}")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise ConstraintError(f"constraint {text!r}: syntax error at column {exc.offset}: {exc.msg}")
        names: set[str] = set()
        _check(tree.body, text, names)
        return Constraint(text, tree, frozenset(names))

    def __call__(self, env: Mapping[str, Any]) -> bool:
        try:
            return bool(_eval(self.tree.body, env, self.text))
        except ConstraintError:
            raise
        except (TypeError, ValueError, ZeroDivisionError, IndexError, OverflowError) as exc:
            raise ConstraintError(f"constraint {self.text!r}: {type(exc).__name__}: {exc}")


def _check(node: ast.AST, text: str, names: set[str]) -> None:
    """Reject every construct outside the whitelist, collecting the names used."""
    match node:
        case ast.Constant(value=v):
            if not isinstance(v, int | float | str | bool):
                raise ConstraintError(f"constraint {text!r}: constant {v!r} is not allowed")
        case ast.Name() | ast.Attribute():
            key = _dotted(node)
            if key is None:
                raise ConstraintError(f"constraint {text!r}: only dotted names like sram.capacity_kib "
                                      "may use '.'")
            names.add(key)
        case ast.BoolOp(values=vals):
            for v in vals:
                _check(v, text, names)
        case ast.UnaryOp(op=op, operand=operand) if isinstance(op, ast.Not | ast.USub | ast.UAdd):
            _check(operand, text, names)
        case ast.BinOp(left=left, op=op, right=right) if type(op) in _BINOPS:
            _check(left, text, names)
            _check(right, text, names)
        case ast.Compare(left=left, ops=ops, comparators=comps):
            for op in ops:
                if type(op) not in _CMPOPS:
                    raise ConstraintError(f"constraint {text!r}: operator {type(op).__name__} is not allowed")
            _check(left, text, names)
            for c in comps:
                _check(c, text, names)
        case ast.Tuple(elts=elts) | ast.List(elts=elts):
            for e in elts:
                _check(e, text, names)
        case ast.Subscript(value=value, slice=index):
            _check(value, text, names)
            _check(index, text, names)
        case ast.IfExp(test=test, body=body, orelse=orelse):
            for part in (test, body, orelse):
                _check(part, text, names)
        case ast.Call(func=ast.Name(id=fname), args=args, keywords=[]) if fname in FUNCTIONS:
            for a in args:
                _check(a, text, names)
        case ast.Call():
            allowed = ", ".join(sorted(FUNCTIONS))
            raise ConstraintError(f"constraint {text!r}: only these functions may be called: {allowed}")
        case _:
            raise ConstraintError(f"constraint {text!r}: {type(node).__name__} is not allowed "
                                  "(names, numbers, strings, comparisons, arithmetic, and/or/not)")


def _eval(node: ast.AST, env: Mapping[str, Any], text: str) -> Any:
    match node:
        case ast.Constant(value=v):
            return v
        case ast.Name() | ast.Attribute():
            key = _dotted(node)
            if key not in env:
                known = ", ".join(sorted(env))
                raise ConstraintError(f"constraint {text!r}: unknown name '{key}' (known: {known})")
            return env[key]
        case ast.BoolOp(op=ast.And(), values=vals):
            result: Any = True
            for v in vals:
                result = _eval(v, env, text)
                if not result:
                    return result
            return result
        case ast.BoolOp(op=ast.Or(), values=vals):
            result = False
            for v in vals:
                result = _eval(v, env, text)
                if result:
                    return result
            return result
        case ast.UnaryOp(op=ast.Not(), operand=o):
            return not _eval(o, env, text)
        case ast.UnaryOp(op=ast.USub(), operand=o):
            return -_eval(o, env, text)
        case ast.UnaryOp(op=ast.UAdd(), operand=o):
            return +_eval(o, env, text)
        case ast.BinOp(left=left, op=op, right=right):
            a, b = _eval(left, env, text), _eval(right, env, text)
            if isinstance(op, ast.Pow) and isinstance(b, int | float) and abs(b) > MAX_EXPONENT:
                raise ConstraintError(f"constraint {text!r}: exponent {b} is larger than {MAX_EXPONENT}")
            if isinstance(op, ast.Mult) and (isinstance(a, str | tuple | list) or
                                             isinstance(b, str | tuple | list)):
                raise ConstraintError(f"constraint {text!r}: '*' needs numbers, found {a!r} and {b!r}")
            return _BINOPS[type(op)](a, b)
        case ast.Compare(left=left, ops=ops, comparators=comps):
            a = _eval(left, env, text)
            for op, c in zip(ops, comps):
                b = _eval(c, env, text)
                if not _CMPOPS[type(op)](a, b):
                    return False
                a = b
            return True
        case ast.Tuple(elts=elts) | ast.List(elts=elts):
            return tuple(_eval(e, env, text) for e in elts)
        case ast.Subscript(value=value, slice=index):
            seq, i = _eval(value, env, text), _eval(index, env, text)
            if not isinstance(seq, tuple | list | str) or not isinstance(i, int):
                raise ConstraintError(f"constraint {text!r}: cannot index {seq!r} with {i!r}")
            return seq[i]
        case ast.IfExp(test=test, body=body, orelse=orelse):
            return _eval(body, env, text) if _eval(test, env, text) else _eval(orelse, env, text)
        case ast.Call(func=ast.Name(id=fname), args=args):
            return FUNCTIONS[fname](*(_eval(a, env, text) for a in args))
    raise ConstraintError(f"constraint {text!r}: {type(node).__name__} is not allowed")
