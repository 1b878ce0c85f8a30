"""The memref dialect's custom syntax: memref.alloc / alloca / dealloc."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AllocaOp, AllocOp, DeallocOp, DimOp
from compiler.ir.types import INDEX, MemRefType
from compiler.text.parsing.structure import OpParseFn, OpParser


def parse_alloc(p: OpParser, cls: type, loc: Location) -> Operation:
    p.expect("(", f"after '{cls.NAME}'")
    sizes: list[Value] = []
    if not p.at(")"):
        sizes = [p.parse_operand(INDEX)]
        while p.accept(","):
            sizes.append(p.parse_operand(INDEX))
    p.expect(")", f"to close the {cls.NAME} size operands")
    if p.at("["):
        raise p.error(f"symbol operands of {cls.NAME} are not supported")
    alignment = None
    if p.at("{"):
        alignment = parse_alignment_attr(p)
    p.expect(":", "before the memref type")
    ty_tok = p.tok
    ty = p.parse_type()
    if not isinstance(ty, MemRefType):
        raise p.error(f"{cls.NAME} must produce a memref, found {ty}", ty_tok)
    dyn = sum(1 for d in ty.shape if d is None)
    if dyn != len(sizes):
        raise p.error(f"{ty} has {dyn} dynamic dimension(s) but {len(sizes)} size "
                         f"operand(s) were given", ty_tok)
    return p.insert(cls(ty, sizes, loc=loc, alignment=alignment))


def parse_alignment_attr(p: OpParser) -> int:
    p.expect("{")
    key = p.expect_kind("bare", "an attribute name")
    if key[1] != "alignment":
        raise p.error(f"unsupported attribute '{key[1]}' (only 'alignment' is known)", key)
    p.expect("=", "after 'alignment'")
    value = p.expect_int("an alignment")
    if p.accept(":"):
        p.parse_element_type()
    p.expect("}", "to close the attribute dictionary")
    return value


def parse_dealloc(p: OpParser, loc: Location) -> Operation:
    t = p.tok
    mem = p.parse_operand()
    p.expect_memref_type(mem, t)
    return p.insert(DeallocOp(mem, loc=loc))


def parse_dim(p: OpParser, loc: Location) -> Operation:
    t = p.tok
    mem = p.parse_operand()
    p.expect(",", "between the memref and the dimension")
    index = p.parse_operand(INDEX)
    p.expect_memref_type(mem, t)
    return p.insert(DimOp(mem, index, loc=loc))


OPS: dict[str, OpParseFn] = {
    "memref.dim": parse_dim,
    "memref.alloc": lambda p, loc: parse_alloc(p, AllocOp, loc),
    "memref.alloca": lambda p, loc: parse_alloc(p, AllocaOp, loc),
    "memref.dealloc": parse_dealloc,
}
