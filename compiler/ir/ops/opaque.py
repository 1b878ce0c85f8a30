"""Ops of dialects accelsim does not model, kept as written (upstream's tests run with
`-allow-unregistered-dialect`: `"foo"(%v) : (f32) -> ()`, `"test.foo"(%i, %j)`).

An `OpaqueOp` holds its name, operands, result types and the source text of its properties
(`<{...}>`) and attribute dictionary (`{...}`), and prints back in MLIR's generic form. Every
analysis and pass treats it conservatively: it may read and write every memref operand
(`opaque_memref_uses`); the host and the simulator refuse to run it.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.core import Operation, Value
from compiler.ir.types import MemRefType, Type

# The barrier between compute clusters (`affine-cluster-distribute`): `"accel.barrier"() :
# () -> ()`. The simulator waits there for every cluster; the host, running one program
# alone, passes it.
BARRIER_OP = "accel.barrier"


class OpaqueOp(Operation):
    __slots__ = ("op_name", "attr_text", "prop_text")
    ATTRS = ("op_name", "attr_text", "prop_text")

    def __init__(self, op_name: str, operands: Sequence[Value] = (),
                 result_types: Sequence[Type] = (), attr_text: str = "", prop_text: str = "",
                 loc: Location = UNKNOWN_LOC):
        super().__init__(operands=operands, result_types=result_types, loc=loc)
        self.op_name = op_name
        self.attr_text = attr_text
        self.prop_text = prop_text

    @property  # type: ignore[override]
    def NAME(self) -> str:
        return self.op_name


def opaque_memref_uses(root: Operation, memref: Value | None = None) -> list[Operation]:
    """Ops in `root` (nested included) whose effect on memory is unknown: an OpaqueOp taking
    a memref (`memref` itself when given)."""
    return [op for op in root.walk() if isinstance(op, OpaqueOp)
            and any(v is memref if memref is not None else isinstance(v.type, MemRefType)
                    for v in op.operands)]
