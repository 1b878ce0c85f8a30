"""The arith and math dialects' custom syntax: constants (exact float and integer literals),
binary and unary ops, comparisons, select, casts."""

from __future__ import annotations

import struct

from compiler.diagnostics import Location
from compiler.ir.core import Operation
from compiler.ir.ops import (
    BINARY_OPS,
    CAST_OPS,
    MATH_TERNARY,
    UNARY_OPS,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    SelectOp,
)
from compiler.ir.ops.arith import CMPF_PREDICATES, CMPI_PREDICATES
from compiler.ir.types import ELEMENT_TYPES, ElementType, Type, float_from_bits, round_float
from compiler.text.lexer import Token
from compiler.text.parsing.cursor import INDEX_MAX, INDEX_MIN
from compiler.text.parsing.structure import OpParseFn, OpParser


def parse_constant(p: OpParser, loc: Location) -> Operation:
    t = p.tok
    if t[0] == "bare" and t[1] in ("true", "false"):
        p.i += 1
        ty: Type = ELEMENT_TYPES["i1"]
        if p.accept(":"):
            ty = p.parse_element_type()
        if ty != ELEMENT_TYPES["i1"]:
            raise p.error(f"'{t[1]}' needs type i1, found {ty}", t)
        return p.insert(ConstantOp(t[1] == "true", ty, loc=loc))  # type: ignore[arg-type]
    neg = p.accept("-")
    t = p.tok
    if t[0] not in ("int", "float", "hex"):
        raise p.error(f"expected a constant value, found {p.describe()}")
    p.i += 1
    p.expect(":", "before the constant's type")
    ty_tok = p.tok
    ty = p.parse_element_type()
    value: int | float
    if t[0] == "hex":
        if not ty.is_float:
            value = int(t[1], 16)
        else:
            value = _float_from_bits(t[1], ty, p, t)
        if neg:
            raise p.error("a hexadecimal constant cannot be negated", t)
    elif t[0] == "float":
        if not ty.is_float:
            raise p.error(f"float literal {t[1]} is not valid for type {ty}", ty_tok)
        value = float(t[1])
    else:
        value = int(t[1]) if not ty.is_float else float(t[1])
    if neg:
        value = -value
    if ty.is_float:
        value = _round_to(value, ty)
    elif ty.is_int and ty.bitwidth > 1:
        lo, hi = -(1 << (ty.bitwidth - 1)), (1 << ty.bitwidth) - 1
        if not lo <= value <= hi:
            raise p.error(f"integer constant {value} does not fit in {ty}", t)
    elif ty.is_index and not INDEX_MIN <= value <= INDEX_MAX:
        raise p.error(f"integer constant {value} does not fit in index (64 bits: "
                      f"[{INDEX_MIN}, {INDEX_MAX}])", t)
    return p.insert(ConstantOp(value, ty, loc=loc))


def parse_binary(p: OpParser, cls: type, loc: Location) -> Operation:
    a = p.parse_operand()
    at = p.toks[p.i - 1]
    p.expect(",", f"between the operands of {cls.NAME}")
    b = p.parse_operand()
    bt = p.toks[p.i - 1]
    if p.at("fastmath") or p.at("overflow"):
        raise p.error(f"'{p.text()}' flags are not supported")
    p.expect(":", "before the operand type")
    ty = p.parse_type()
    p.check_type(a, at, ty)
    p.check_type(b, bt, ty)
    return p.insert(cls(a, b, loc=loc))


def parse_unary(p: OpParser, cls: type, loc: Location) -> Operation:
    a = p.parse_operand()
    at = p.toks[p.i - 1]
    if p.at("fastmath"):
        raise p.error("'fastmath' flags are not supported")
    p.expect(":", "before the operand type")
    ty = p.parse_type()
    p.check_type(a, at, ty)
    return p.insert(cls(a, loc=loc))


def parse_ternary(p: OpParser, cls: type, loc: Location) -> Operation:
    """`math.fma %a, %b, %c : f32`."""
    operands = []
    for k in range(3):
        if k:
            p.expect(",", f"between the operands of {cls.NAME}")
        operands.append((p.parse_operand(), p.toks[p.i - 1]))
    if p.at("fastmath"):
        raise p.error("'fastmath' flags are not supported")
    p.expect(":", "before the operand type")
    ty = p.parse_type()
    for v, t in operands:
        p.check_type(v, t, ty)
    return p.insert(cls(*(v for v, _ in operands), loc=loc))


def parse_cmp(p: OpParser, cls: type, loc: Location) -> Operation:
    pt = p.expect_kind("bare", "a comparison predicate")
    allowed = CMPF_PREDICATES if cls is CmpFOp else CMPI_PREDICATES
    if pt[1] not in allowed:
        raise p.error(f"unknown {cls.NAME} predicate '{pt[1]}' (expected one of "
                         f"{', '.join(allowed)})", pt)
    p.expect(",", "after the predicate")
    a = p.parse_operand()
    at = p.toks[p.i - 1]
    p.expect(",", "between the compared operands")
    b = p.parse_operand()
    bt = p.toks[p.i - 1]
    p.expect(":", "before the operand type")
    ty = p.parse_type()
    p.check_type(a, at, ty)
    p.check_type(b, bt, ty)
    return p.insert(cls(pt[1], a, b, loc=loc))


def parse_select(p: OpParser, loc: Location) -> Operation:
    c = p.parse_operand()
    ct = p.toks[p.i - 1]
    p.expect(",", "after the select condition")
    a = p.parse_operand()
    at = p.toks[p.i - 1]
    p.expect(",", "between the select operands")
    b = p.parse_operand()
    bt = p.toks[p.i - 1]
    p.expect(":", "before the select type")
    ty = p.parse_type()
    if p.accept(","):
        ty_c, ty = ty, p.parse_type()
        p.check_type(c, ct, ty_c)
    else:
        p.check_type(c, ct, ELEMENT_TYPES["i1"])
    p.check_type(a, at, ty)
    p.check_type(b, bt, ty)
    return p.insert(SelectOp(c, a, b, loc=loc))


def parse_cast(p: OpParser, cls: type, loc: Location) -> Operation:
    a = p.parse_operand()
    at = p.toks[p.i - 1]
    p.expect(":", "before the source type")
    src = p.parse_type()
    p.check_type(a, at, src)
    p.expect("to", "between the source and result types")
    dst = p.parse_type()
    return p.insert(cls(a, dst, loc=loc))


def _round_to(value: float, ty: ElementType) -> float:
    """A float constant holds exactly what its type can represent."""
    return round_float(value, ty)


def _float_from_bits(text: str, ty: ElementType, p: OpParser, t: Token) -> float:
    bits = int(text, 16)
    width = ty.bitwidth
    if bits >= 1 << width:
        raise p.error(f"hexadecimal float {text} has more than {width} bits for {ty}", t)
    if width == 64:
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    return float_from_bits(bits, ty)


OPS: dict[str, OpParseFn] = {
    "arith.constant": parse_constant,
    "arith.cmpf": lambda p, loc: parse_cmp(p, CmpFOp, loc),
    "arith.cmpi": lambda p, loc: parse_cmp(p, CmpIOp, loc),
    "arith.select": parse_select,
}
for _name, _cls in BINARY_OPS.items():
    OPS[_name] = lambda p, loc, c=_cls: parse_binary(p, c, loc)
for _name, _cls in UNARY_OPS.items():
    OPS[_name] = lambda p, loc, c=_cls: parse_unary(p, c, loc)
for _name, _cls in MATH_TERNARY.items():
    OPS[_name] = lambda p, loc, c=_cls: parse_ternary(p, c, loc)
for _name, _cls in CAST_OPS.items():
    OPS[_name] = lambda p, loc, c=_cls: parse_cast(p, c, loc)
