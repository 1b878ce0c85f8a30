"""Registered ops read from MLIR's generic form: `"arith.addi"(%a, %b) <{overflowFlags =
#arith.overflow<none>}> : (i32, i32) -> i32` becomes the `AddIOp` its custom form gives.

Each builder takes what the generic form carries (operands, the function type, the properties
and attributes as `key = value` texts) and builds the op, or refuses with a located error when
something it carries would be lost (a flag other than the default, an attribute we do not model,
a result type the op would not produce). Ops without a builder here stay refused by
`generic_ops` ("write its custom form").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from compiler.ir.core import Operation, Value
from compiler.ir.ops import (
    BINARY_OPS,
    CAST_OPS,
    MATH_TERNARY,
    UNARY_OPS,
    CmpFOp,
    CmpIOp,
    DeallocOp,
    ReturnOp,
    SelectOp,
)
from compiler.ir.ops.arith import CMPF_PREDICATES, CMPI_PREDICATES
from compiler.ir.ops.memref import AllocaOp, AllocOp
from compiler.ir.types import ELEMENT_TYPES, FunctionType, MemRefType


class GenericFormError(Exception):
    """A generic form the registered op cannot be built from (message only; the caller locates it)."""


@dataclass(frozen=True)
class GenericOp:
    name: str
    operands: Sequence[Value]
    type: FunctionType
    attrs: dict[str, str]  # properties and discardable attributes, key -> value text


Builder = Callable[[GenericOp], Operation]

# values that mean "no flag": the custom form prints none, so nothing is lost
_DEFAULTS = {"overflowFlags": "#arith.overflow<none>", "fastmath": "#arith.fastmath<none>"}


def split_attrs(text: str) -> dict[str, str]:
    """`<{a = 1 : i64, b = array<i32: 0, 0>}>` or `{...}` -> {'a': '1 : i64', 'b': ...}:
    top-level commas split entries (brackets of every kind nest)."""
    body = text.strip()
    if body.startswith("<") and body.endswith(">"):
        body = body[1:-1].strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    out: dict[str, str] = {}
    depth, start, in_str = 0, 0, False
    for i, ch in enumerate(body + ","):
        if ch == '"' and (i == 0 or body[i - 1] != "\\"):
            in_str = not in_str
        elif in_str:
            continue
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and i > 0 and body[i - 1] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            entry = body[start:i].strip()
            start = i + 1
            if not entry:
                continue
            key, eq, value = entry.partition("=")
            out[key.strip().strip('"')] = value.strip() if eq else "unit"
    return out


def _only(g: GenericOp, allowed: Sequence[str]) -> None:
    for key, value in g.attrs.items():
        if key in _DEFAULTS and value == _DEFAULTS[key]:
            continue
        if key not in allowed:
            raise GenericFormError(f"'{g.name}': attribute '{key} = {value}' is not supported "
                                   "(accelsim would drop it)")


def _arity(g: GenericOp, n: int, results: int) -> None:
    if len(g.operands) != n or len(g.type.results) != results:
        raise GenericFormError(f"'{g.name}' takes {n} operand(s) and gives {results} result(s), "
                               f"found {len(g.operands)} and {len(g.type.results)}")


def _same_type(g: GenericOp) -> None:
    types = {v.type for v in g.operands} | set(g.type.results)
    if len(types) != 1:
        raise GenericFormError(f"'{g.name}' needs one type for its operands and result, "
                               f"found {g.type}")


def _elementwise(cls: type, n: int) -> Builder:
    def build(g: GenericOp) -> Operation:
        _only(g, ())
        _arity(g, n, 1)
        _same_type(g)
        return cls(*g.operands)  # type: ignore[no-any-return]
    return build


def _cast(cls: type) -> Builder:
    def build(g: GenericOp) -> Operation:
        _only(g, ())
        _arity(g, 1, 1)
        return cls(g.operands[0], g.type.results[0])  # type: ignore[no-any-return]
    return build


def _cmp(cls: type, predicates: Sequence[str]) -> Builder:
    def build(g: GenericOp) -> Operation:
        _only(g, ("predicate",))
        _arity(g, 2, 1)
        number = g.attrs.get("predicate", "").split(":")[0].strip()
        if not number.isdigit() or int(number) >= len(predicates):
            raise GenericFormError(f"'{g.name}': predicate must be an integer in "
                                   f"[0, {len(predicates) - 1}], found {g.attrs.get('predicate')!r}")
        if g.operands[0].type != g.operands[1].type or g.type.results[0] != ELEMENT_TYPES["i1"]:
            raise GenericFormError(f"'{g.name}' compares two values of one type into i1, found {g.type}")
        return cls(predicates[int(number)], *g.operands)  # type: ignore[no-any-return]
    return build


def _select(g: GenericOp) -> Operation:
    _only(g, ())
    _arity(g, 3, 1)
    c, a, b = g.operands
    if c.type != ELEMENT_TYPES["i1"] or not a.type == b.type == g.type.results[0]:
        raise GenericFormError(f"'{g.name}' needs (i1, T, T) -> T, found {g.type}")
    return SelectOp(c, a, b)


def _alloc(cls: type) -> Builder:
    def build(g: GenericOp) -> Operation:
        _only(g, ("alignment", "operandSegmentSizes"))
        if len(g.type.results) != 1 or not isinstance(g.type.results[0], MemRefType):
            raise GenericFormError(f"'{g.name}' gives one memref, found {g.type}")
        t = g.type.results[0]
        dynamic = sum(d is None for d in t.shape)
        segments = g.attrs.get("operandSegmentSizes", f"array<i32: {len(g.operands)}, 0>")
        if segments.replace(" ", "") != f"array<i32:{dynamic},0>" or len(g.operands) != dynamic:
            raise GenericFormError(f"'{g.name}' needs one size operand per '?' of {t} and no "
                                   f"symbol operands, found {segments}")
        alignment = None
        if "alignment" in g.attrs:
            number = g.attrs["alignment"].split(":")[0].strip()
            if not number.isdigit():
                raise GenericFormError(f"'{g.name}': alignment must be an integer, found "
                                       f"{g.attrs['alignment']!r}")
            alignment = int(number)
        return cls(t, list(g.operands), alignment=alignment)  # type: ignore[no-any-return]
    return build


def _dealloc(g: GenericOp) -> Operation:
    _only(g, ())
    _arity(g, 1, 0)
    if not isinstance(g.operands[0].type, MemRefType):
        raise GenericFormError(f"'{g.name}' frees a memref, found {g.type}")
    return DeallocOp(g.operands[0])


def _return(g: GenericOp) -> Operation:
    _only(g, ())
    if g.type.results:
        raise GenericFormError(f"'{g.name}' gives no results, found {g.type}")
    return ReturnOp(list(g.operands))


BUILDERS: dict[str, Builder] = {
    "arith.cmpi": _cmp(CmpIOp, CMPI_PREDICATES),
    "arith.cmpf": _cmp(CmpFOp, CMPF_PREDICATES),
    "arith.select": _select,
    "memref.alloc": _alloc(AllocOp),
    "memref.alloca": _alloc(AllocaOp),
    "memref.dealloc": _dealloc,
    "func.return": _return,
}
BUILDERS.update({name: _elementwise(cls, 2) for name, cls in BINARY_OPS.items()})
BUILDERS.update({name: _elementwise(cls, 1) for name, cls in UNARY_OPS.items()})
BUILDERS.update({name: _elementwise(cls, 3) for name, cls in MATH_TERNARY.items()})
BUILDERS.update({name: _cast(cls) for name, cls in CAST_OPS.items()})
