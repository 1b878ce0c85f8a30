"""Recursive-descent parser for the MLIR subset accelsim supports (the layers and the dialect
op parsers are in compiler.text.parsing; this module composes them).

Reads what our printer writes and what upstream `mlir-opt-19` prints after its affine passes:
`#map`/`#set` aliases, `module` wrappers, `func.func` (with `private` declarations), the
custom syntax of the affine, memref, arith, math and func ops, `loc(...)` trailers, comments.
Every op records the location of its first token; every error is a ParseError carrying the
location and the source line.

Index lists of loads, stores and DMA ops (`%A[%i + 1, symbol(%n)]`) become an AffineMap plus
operands: an operand written `symbol(%x)`, or that is a valid symbol (compiler.ir.scope), is a
symbol; every other one is a dim; both in order of first appearance, the same value once.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping

from compiler.diagnostics import Location, ParseError
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.ops import ModuleOp
from compiler.text.parsing import (
    affine_ops,
    affine_parallel_ops,
    arith_ops,
    cf_ops,
    func_ops,
    generic_ops,
    linalg_ops,
    llvm_ops,
    memref_ops,
)
from compiler.text.parsing.structure import OpParseFn, OpParser

# Every op the parser knows, by dialect.
OP_PARSERS: Mapping[str, OpParseFn] = {
    **affine_ops.OPS,
    **affine_parallel_ops.OPS,
    **memref_ops.OPS,
    **arith_ops.OPS,
    **func_ops.OPS,
    **cf_ops.OPS,
    **llvm_ops.OPS,
    **linalg_ops.OPS,
}


class Parser(OpParser):
    ops = OP_PARSERS
    module_ops = memref_ops.MODULE_OPS
    opaque_names = memref_ops.OPAQUE | llvm_ops.OPAQUE
    generic = staticmethod(generic_ops.parse_generic)


def parse_module(text: str, filename: str = "<string>") -> ModuleOp:
    """Parse MLIR text into a ModuleOp; raises ParseError with file:line:col.

    The cyclic garbage collector is paused meanwhile: the parse allocates hundreds of thousands
    of objects that all stay alive (ops point at their results and back), so each collection
    it would trigger walks the growing module for nothing (a third of the parse time).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return Parser(text, filename).parse_module()
    finally:
        if enabled:
            gc.enable()


def parse_file(path: str) -> ModuleOp:
    """Parse a `.mlir` file; `-` reads standard input (errors then name `<stdin>`)."""
    if path == "-":
        import sys

        return parse_module(sys.stdin.read(), "<stdin>")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ParseError(f"cannot read input file: {exc.strerror}", Location(path, 0, 0)) from None
    except UnicodeDecodeError as exc:
        raise ParseError(f"input is not UTF-8 text ({exc.reason})", Location(path, 0, 0)) from None
    return parse_module(text, path)


def parse_affine_map(text: str, filename: str = "<string>") -> AffineMap:
    """`affine_map<(d0)[s0] -> (d0 + s0)>` (the whole text) -> AffineMap."""
    p = Parser(text, filename)
    m = p.parse_affine_map_attr()
    p.expect_eof()
    return m


def parse_integer_set(text: str, filename: str = "<string>") -> IntegerSet:
    """`affine_set<(d0)[s0] : (d0 >= 0)>` (the whole text) -> IntegerSet."""
    p = Parser(text, filename)
    s = p.parse_affine_set_attr()
    p.expect_eof()
    return s
