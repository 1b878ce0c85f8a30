"""MLIR's generic op form, `"dialect.op"(%a, %b) <{props}> {attrs} : (f32, f32) -> f32`.

An op whose name accelsim does not model becomes an `OpaqueOp` (as `-allow-unregistered-dialect`
lets upstream do): operands, result types and the text of its properties and attributes are
kept and printed back. Regions and successors inside the generic form are refused with a
located error. A registered op written in the generic form becomes that op where
`generic_registered` has a builder for it (arith/math, func.return, memref.alloc/alloca/dealloc);
any other registered op in the generic form is refused (write its custom form).
"""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.core import Operation, Value
from compiler.ir.ops import OpaqueOp
from compiler.ir.types import FunctionType
from compiler.text.parsing.generic_registered import BUILDERS, GenericFormError, GenericOp, split_attrs
from compiler.text.parsing.structure import OpParser


def balanced_text(p: OpParser, open_: str, close: str) -> str:
    """The source text of a balanced `open_ ... close` group at the cursor (consumed)."""
    start = p.tok[2]
    p.skip_balanced(open_, close)
    end = p.toks[p.i - 1][2] + 1
    return p.src.text[start:end]


def parse_generic(p: OpParser, loc: Location) -> Operation:
    name_tok = p.advance()
    name = name_tok[1][1:-1]
    if not name:
        raise p.error("an op name cannot be empty", name_tok)
    registered = name in p.ops and name not in p.opaque_names
    if registered and name not in BUILDERS:
        raise p.error(f"the generic form of the registered op '{name}' is not supported; "
                      "write its custom form", name_tok)
    p.expect("(", f"to open the operands of '{name}'")
    operands: list[Value] = []
    toks = []
    if not p.at(")"):
        pairs = p.parse_operand_list()
        operands = [v for v, _ in pairs]
        toks = [t for _, t in pairs]
    p.expect(")", f"to close the operands of '{name}'")
    if p.at("["):
        raise p.error(f"successors of '{name}' are not supported (accelsim regions have one block)")
    prop_text = ""
    if p.at("<"):
        start = p.tok[2]
        p.expect("<")
        balanced_text(p, "{", "}")
        p.expect(">", "to close the properties")
        prop_text = p.src.text[start:p.toks[p.i - 1][2] + 1]
    if p.at("("):
        raise p.error(f"regions of the unregistered op '{name}' are not supported")
    attr_text = balanced_text(p, "{", "}") if p.at("{") else ""
    p.expect(":", f"before the function type of '{name}'")
    ft_tok = p.tok
    ft = p.parse_type()
    if not isinstance(ft, FunctionType):
        raise p.error(f"expected the function type of '{name}', found {ft}", ft_tok)
    if len(ft.inputs) != len(operands):
        raise p.error(f"'{name}' has {len(operands)} operand(s) but its type lists "
                      f"{len(ft.inputs)}", ft_tok)
    for v, t, ty in zip(operands, toks, ft.inputs, strict=True):
        p.check_type(v, t, ty)
    if registered:
        generic = GenericOp(name, operands, ft, {**split_attrs(prop_text), **split_attrs(attr_text)})
        try:
            op = BUILDERS[name](generic)
        except GenericFormError as exc:
            raise p.error(str(exc), name_tok) from None
        if [r.type for r in op.results] != list(ft.results):
            raise p.error(f"'{name}' gives {', '.join(str(r.type) for r in op.results) or 'no results'}"
                          f", but its type says {ft}", ft_tok)
        op.loc = loc
        return p.insert(op)
    return p.insert(OpaqueOp(name, operands, ft.results, attr_text, prop_text, loc=loc))
