"""The one llvm dialect op upstream's affine tests use, `llvm.mlir.constant(1.0 : f32) : f32`,
kept opaque (`OpaqueOp`, printed in the generic form; the host and the simulator refuse it)."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.core import Operation
from compiler.ir.ops import OpaqueOp
from compiler.text.parsing.structure import OpParseFn, OpParser


def parse_llvm_constant(p: OpParser, loc: Location) -> Operation:
    start = p.tok[2]
    p.skip_balanced("(", ")")
    value = p.src.text[start + 1:p.toks[p.i - 1][2]].strip()
    p.expect(":", "before the constant's type")
    ty = p.parse_type()
    return p.insert(OpaqueOp("llvm.mlir.constant", [], [ty], prop_text=f"<{{value = {value}}}>",
                             loc=loc))


OPAQUE = frozenset({"llvm.mlir.constant"})
OPS: dict[str, OpParseFn] = {"llvm.mlir.constant": parse_llvm_constant}
