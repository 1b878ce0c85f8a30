"""`memref.alloc`, `memref.alloca`, `memref.dealloc`."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.core import Operation, Value
from compiler.ir.types import MemRefType


class AllocOp(Operation):
    """Operands are the dynamic sizes, one per `?` in the type."""

    __slots__ = ("alignment",)
    NAME = "memref.alloc"
    ATTRS = ("alignment",)

    def __init__(self, type: MemRefType, dynamic_sizes: Sequence[Value] = (),
                 loc: Location = UNKNOWN_LOC, name_hint: str | None = None,
                 alignment: int | None = None):
        super().__init__(operands=dynamic_sizes, result_types=[type], loc=loc,
                         result_names=[name_hint])
        self.alignment = alignment

    @property
    def memref_type(self) -> MemRefType:
        return self.results[0].type  # type: ignore[return-value]


class AllocaOp(AllocOp):
    __slots__ = ()
    NAME = "memref.alloca"


class DeallocOp(Operation):
    __slots__ = ()
    NAME = "memref.dealloc"

    def __init__(self, memref: Value, loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[memref], loc=loc)

    @property
    def memref(self) -> Value:
        return self.operands[0]


class DimOp(Operation):
    """`%d = memref.dim %A, %c : memref<?x?xf32>`: the extent of dimension `%c` of `%A`."""

    __slots__ = ()
    NAME = "memref.dim"

    def __init__(self, memref: Value, index: Value, loc: Location = UNKNOWN_LOC,
                 name_hint: str | None = None):
        from compiler.ir.types import INDEX

        super().__init__(operands=[memref, index], result_types=[INDEX], loc=loc,
                         result_names=[name_hint])

    @property
    def memref(self) -> Value:
        return self.operands[0]

    @property
    def index(self) -> Value:
        return self.operands[1]

    def constant_index(self) -> int | None:
        """The dimension when `index` is an `arith.constant`."""
        from compiler.ir.ops.arith import ConstantOp

        owner = getattr(self.index, "owner", None)
        return int(owner.value) if isinstance(owner, ConstantOp) else None
