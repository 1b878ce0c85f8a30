"""The linalg dialect's custom syntax, on memrefs (compiler.ir.ops.linalg):

    linalg.matmul ins(%A, %B : memref<8x16xf32>, memref<16x4xf32>) outs(%C : memref<8x4xf32>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
        ins(%I, %K : ...) outs(%O : ...)
    linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<...>) outs(%b : memref<...>) {
    ^bb0(%in: f32, %out: f32):
      ...
      linalg.yield %x : f32
    }

Linalg on tensors (ops with `-> tensor<...>` results) is refused with the command that
bufferizes it.
"""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops.linalg import (
    ITERATOR_TYPES,
    NAMED_OPS,
    GenericOp,
    LinalgIndexOp,
    LinalgYieldOp,
    NamedLinalgOp,
    element_type,
)
from compiler.ir.types import INDEX, Type
from compiler.text.lexer import Token
from compiler.text.parsing.cursor import MAX_REGION_NESTING
from compiler.text.parsing.structure import OpParseFn, OpParser

BUFFERIZE_HINT = ("linalg on tensors is not supported: bufferize first, e.g. mlir-opt-19 "
                  "--one-shot-bufferize=\"bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map\"")


def _operand_group(p: OpParser, keyword: str, op_name: str) -> list[Value]:
    """`ins(%a, %b : T, T)` / `outs(...)`; the types must be those of the values."""
    if keyword == "ins" and p.at("outs"):
        return []  # no inputs: `ins(...)` is left out
    p.expect(keyword, f"in '{op_name}'")
    p.expect("(", f"after '{keyword}'")
    if p.accept(")"):
        return []
    pairs = p.parse_operand_list()
    p.expect(":", f"before the {keyword} types")
    types: list[tuple[Type, Token]] = []
    while True:
        if p.at("tensor"):
            raise p.error(BUFFERIZE_HINT)
        t = p.tok
        types.append((p.parse_type(), t))
        if not p.accept(","):
            break
    p.expect(")", f"to close '{keyword}('")
    if len(types) != len(pairs):
        raise p.error(f"'{keyword}' has {len(pairs)} operand(s) but {len(types)} type(s)", types[0][1])
    for (v, vt), (ty, _) in zip(pairs, types, strict=True):
        p.check_type(v, vt, ty)
    return [v for v, _ in pairs]


def _no_tensor_results(p: OpParser) -> None:
    if p.at("->"):
        raise p.error(BUFFERIZE_HINT)


def _parse_dense_pair(p: OpParser, key: Token) -> tuple[int, int]:
    """`dense<2> : tensor<2xi64>` or `dense<[2, 1]> : tensor<2xi64>` (or vector<...>)."""
    p.expect("dense", f"as the value of '{key[1]}'")
    p.expect("<", "after 'dense'")
    values: list[int] = []
    if p.accept("["):
        while True:
            values.append(p.expect_int(f"a value of '{key[1]}'"))
            if not p.accept(","):
                break
        p.expect("]", f"to close the values of '{key[1]}'")
    else:
        values = [p.expect_int(f"the value of '{key[1]}'")] * 2
    p.expect(">", "to close 'dense<'")
    p.expect(":", "before the type of the dense attribute")
    tt = p.tok
    if not (p.at("tensor") or p.at("vector")):
        raise p.error(f"expected 'tensor<2xi64>' after '{key[1]} = dense<...> :', found {p.describe()}")
    p.i += 1
    p.skip_balanced("<", ">")
    if len(values) != 2:
        raise p.error(f"'{key[1]}' must have 2 values (height, width), found {len(values)}", tt)
    if any(v <= 0 for v in values):
        raise p.error(f"'{key[1]}' must be positive, found {values}", key)
    return values[0], values[1]


def parse_named(p: OpParser, cls: type[NamedLinalgOp], loc: Location) -> Operation:
    attrs: dict[str, tuple[int, int]] = {}
    if p.accept("{"):
        while not p.at("}"):
            key = p.expect_kind("bare", "an attribute name")
            if key[1] not in ("strides", "dilations") or not cls.WINDOWED:
                raise p.error(f"unsupported attribute '{key[1]}' on '{cls.NAME}'"
                              + (" (known: dilations, strides)" if cls.WINDOWED else ""), key)
            if key[1] in attrs:
                raise p.error(f"duplicate attribute '{key[1]}'", key)
            p.expect("=", f"after '{key[1]}'")
            attrs[key[1]] = _parse_dense_pair(p, key)
            if not p.accept(","):
                break
        p.expect("}", "to close the attribute dictionary")
    ins = _operand_group(p, "ins", cls.NAME)
    outs = _operand_group(p, "outs", cls.NAME)
    _no_tensor_results(p)
    return p.insert(cls(ins, outs, strides=attrs.get("strides"), dilations=attrs.get("dilations"),
                        loc=loc))


def _parse_generic_attrs(p: OpParser) -> tuple[list[AffineMap], list[str]]:
    maps: list[AffineMap] | None = None
    iters: list[str] | None = None
    p.expect("{", "after 'linalg.generic' (its attribute dictionary)")
    while not p.at("}"):
        key = p.expect_kind("bare", "an attribute name")
        p.expect("=", f"after '{key[1]}'")
        if key[1] == "indexing_maps":
            p.expect("[", "to open the indexing maps")
            maps = []
            if not p.at("]"):
                while True:
                    maps.append(p.parse_map_ref())
                    if not p.accept(","):
                        break
            p.expect("]", "to close the indexing maps")
        elif key[1] == "iterator_types":
            iters = _parse_iterators(p)
        elif key[1] in ("doc", "library_call"):
            p.expect_kind("str", f"a string for '{key[1]}'")
        else:
            raise p.error(f"unsupported attribute '{key[1]}' on 'linalg.generic' (known: "
                          "indexing_maps, iterator_types, doc, library_call)", key)
        if not p.accept(","):
            break
    close = p.expect("}", "to close the attribute dictionary")
    if maps is None or iters is None:
        missing = "indexing_maps" if maps is None else "iterator_types"
        raise p.error(f"'linalg.generic' needs '{missing}'", close)
    return maps, iters


def _parse_iterators(p: OpParser) -> list[str]:
    """`["parallel", "reduction"]` or `[#linalg.iterator_type<parallel>, ...]`."""
    p.expect("[", "to open the iterator types")
    out: list[str] = []
    while not p.at("]"):
        t = p.tok
        if t[0] == "str":
            p.i += 1
            name = t[1][1:-1]
        elif t[1] == "#linalg.iterator_type":
            p.i += 1
            p.expect("<")
            name = p.expect_kind("bare", "an iterator type")[1]
            p.expect(">")
        else:
            raise p.error(f"expected an iterator type (\"parallel\" or \"reduction\"), found {p.describe()}")
        if name not in ITERATOR_TYPES:
            raise p.error(f"unknown iterator type '{name}' (expected parallel or reduction)", t)
        out.append(name)
        if not p.accept(","):
            break
    p.expect("]", "to close the iterator types")
    return out


def parse_generic(p: OpParser, loc: Location) -> Operation:
    maps, iters = _parse_generic_attrs(p)
    ins = _operand_group(p, "ins", "linalg.generic")
    outs = _operand_group(p, "outs", "linalg.generic")
    if p.accept("attrs"):
        p.expect("=")
        p.skip_attr_dict()
    op = GenericOp(ins, outs, maps, iters, body=Block(), loc=loc)
    p.insert(op)
    _parse_body(p, op)
    _no_tensor_results(p)
    return op


def _parse_body(p: OpParser, op: GenericOp) -> None:
    """`{ ^bb0(%in: f32, %out: f32): ops }`: one block, one argument per operand."""
    if p.region_depth >= MAX_REGION_NESTING:
        raise p.error(f"regions nested more than {MAX_REGION_NESTING} deep (a limit of accelsim)")
    p.expect("{", "to open the linalg.generic body")
    p.scopes.append({})
    body = op.body
    if p.accept("^"):
        p.expect_kind("bare", "a block name ('^bb0')")
        if p.accept("("):
            while not p.at(")"):
                at = p.parse_value_def()
                p.expect(":", "after the block argument name")
                arg = body.add_arg(p.parse_type())
                p.define(at, [arg])
                if p.at("loc"):
                    p.parse_loc_body(None)
                if not p.accept(","):
                    break
            p.expect(")", "to close the block arguments")
        p.expect(":", "after the block label")
    want = [element_type(v.type) for v in op.operands]
    if [a.type for a in body.args] != want:
        raise p.error(f"the linalg.generic body needs one argument per operand, of types "
                      f"({', '.join(map(str, want))}); found "
                      f"({', '.join(str(a.type) for a in body.args)})")
    saved = p.block
    p.block = body
    p.region_depth += 1
    while not p.at("}"):
        if p.kind() == "eof":
            raise p.error("expected '}' to close the region, found end of file")
        p.parse_operation()
    p.region_depth -= 1
    close = p.advance()
    p.block = saved
    p.scopes.pop()
    if not body.ops or not isinstance(body.ops[-1], LinalgYieldOp):
        raise p.error("the linalg.generic body must end with 'linalg.yield'", close)


def parse_yield(p: OpParser, loc: Location) -> Operation:
    values: list[Value] = []
    if p.kind() == "pct":
        pairs = p.parse_operand_list()
        p.expect(":", "before the yielded types")
        for k, (v, vt) in enumerate(pairs):
            if k:
                p.expect(",", "between the yielded types")
            p.check_type(v, vt, p.parse_type())
        values = [v for v, _ in pairs]
    return p.insert(LinalgYieldOp(values, loc=loc))


def parse_index(p: OpParser, loc: Location) -> Operation:
    dim = p.expect_int("the loop number of linalg.index")
    p.expect(":", "before the result type")
    t = p.tok
    if p.parse_type() != INDEX:
        raise p.error("linalg.index produces an 'index'", t)
    return p.insert(LinalgIndexOp(dim, loc=loc))


OPS: dict[str, OpParseFn] = {
    "linalg.generic": parse_generic,
    "linalg.yield": parse_yield,
    "linalg.index": parse_index,
}
for _name, _cls in NAMED_OPS.items():
    OPS[_name] = lambda p, loc, c=_cls: parse_named(p, c, loc)
