"""`arith.*` and `math.*` scalar ops. One class per op name, grouped by shape."""

from __future__ import annotations

from compiler.diagnostics import UNKNOWN_LOC, Location
from compiler.ir.core import Operation, Value
from compiler.ir.types import I1, ElementType, Type, round_float, wrap_int


class ConstantOp(Operation):
    """`arith.constant`; `value` is a Python int/float/bool matching the result type. An
    integer in [-2**(w-1), 2**w) is kept as its signed reading (`255 : i8` is -1, as MLIR
    prints it); one outside stays as given for the verifier to refuse."""

    __slots__ = ("value",)
    NAME = "arith.constant"
    ATTRS = ("value",)

    def __init__(self, value: int | float | bool, type: ElementType, loc: Location = UNKNOWN_LOC,
                 name_hint: str | None = None):
        super().__init__(result_types=[type], loc=loc, result_names=[name_hint])
        if type.is_float:  # a narrow float holds what its type can represent
            self.value: int | float = (round_float(float(value), type) if type.bitwidth < 32
                                       else float(value))
        else:
            v = int(value)
            w = type.bitwidth
            if type.is_int and w > 1 and -(1 << (w - 1)) <= v < (1 << w):
                v = wrap_int(v, w)
            self.value = v


class BinaryOp(Operation):
    """Two operands of one type, one result of that type."""

    __slots__ = ()
    FLOAT: bool = True  # operand class: float, or int/index

    def __init__(self, lhs: Value, rhs: Value, loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type], loc=loc)

    @property
    def lhs(self) -> Value:
        return self.operands[0]

    @property
    def rhs(self) -> Value:
        return self.operands[1]


class AddFOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.addf"


class SubFOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.subf"


class MulFOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.mulf"


class DivFOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.divf"


class MaximumFOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.maximumf"


class MinimumFOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.minimumf"


class AddIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.addi"
    FLOAT = False


class SubIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.subi"
    FLOAT = False


class MulIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.muli"
    FLOAT = False


class DivSIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.divsi"
    FLOAT = False


class RemSIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.remsi"
    FLOAT = False


class MaxSIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.maxsi"
    FLOAT = False


class MinSIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.minsi"
    FLOAT = False


class DivUIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.divui"
    FLOAT = False


class RemUIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.remui"
    FLOAT = False


class MaxUIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.maxui"
    FLOAT = False


class MinUIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.minui"
    FLOAT = False


class ShLIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.shli"
    FLOAT = False


class ShRSIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.shrsi"
    FLOAT = False


class ShRUIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.shrui"
    FLOAT = False


class AndIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.andi"
    FLOAT = False


class OrIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.ori"
    FLOAT = False


class XOrIOp(BinaryOp):
    __slots__ = ()
    NAME = "arith.xori"
    FLOAT = False


class UnaryOp(Operation):
    """One float operand, one result of its type."""

    __slots__ = ()

    def __init__(self, operand: Value, loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[operand], result_types=[operand.type], loc=loc)

    @property
    def operand(self) -> Value:
        return self.operands[0]


class NegFOp(UnaryOp):
    __slots__ = ()
    NAME = "arith.negf"


class ExpOp(UnaryOp):
    __slots__ = ()
    NAME = "math.exp"


class LogOp(UnaryOp):
    __slots__ = ()
    NAME = "math.log"


class SqrtOp(UnaryOp):
    __slots__ = ()
    NAME = "math.sqrt"


class AbsFOp(UnaryOp):
    __slots__ = ()
    NAME = "math.absf"


CMPF_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                   "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


class CmpFOp(Operation):
    __slots__ = ("predicate",)
    NAME = "arith.cmpf"
    ATTRS = ("predicate",)

    def __init__(self, predicate: str, lhs: Value, rhs: Value, loc: Location = UNKNOWN_LOC):
        if predicate not in CMPF_PREDICATES:
            raise ValueError(f"unknown cmpf predicate {predicate!r}")
        super().__init__(operands=[lhs, rhs], result_types=[I1], loc=loc)
        self.predicate = predicate


class CmpIOp(Operation):
    __slots__ = ("predicate",)
    NAME = "arith.cmpi"
    ATTRS = ("predicate",)

    def __init__(self, predicate: str, lhs: Value, rhs: Value, loc: Location = UNKNOWN_LOC):
        if predicate not in CMPI_PREDICATES:
            raise ValueError(f"unknown cmpi predicate {predicate!r}")
        super().__init__(operands=[lhs, rhs], result_types=[I1], loc=loc)
        self.predicate = predicate


class SelectOp(Operation):
    __slots__ = ()
    NAME = "arith.select"

    def __init__(self, cond: Value, a: Value, b: Value, loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[cond, a, b], result_types=[a.type], loc=loc)


class CastOp(Operation):
    """A one-operand conversion whose result type is given."""

    __slots__ = ()

    def __init__(self, operand: Value, result_type: Type, loc: Location = UNKNOWN_LOC):
        super().__init__(operands=[operand], result_types=[result_type], loc=loc)

    @property
    def operand(self) -> Value:
        return self.operands[0]


class IndexCastOp(CastOp):
    __slots__ = ()
    NAME = "arith.index_cast"


class SIToFPOp(CastOp):
    __slots__ = ()
    NAME = "arith.sitofp"


class FPToSIOp(CastOp):
    __slots__ = ()
    NAME = "arith.fptosi"


class ExtFOp(CastOp):
    __slots__ = ()
    NAME = "arith.extf"


class TruncFOp(CastOp):
    __slots__ = ()
    NAME = "arith.truncf"


class UIToFPOp(CastOp):
    __slots__ = ()
    NAME = "arith.uitofp"


class FPToUIOp(CastOp):
    __slots__ = ()
    NAME = "arith.fptoui"


class ExtSIOp(CastOp):
    __slots__ = ()
    NAME = "arith.extsi"


class ExtUIOp(CastOp):
    __slots__ = ()
    NAME = "arith.extui"


class TruncIOp(CastOp):
    __slots__ = ()
    NAME = "arith.trunci"


class BitcastOp(CastOp):
    __slots__ = ()
    NAME = "arith.bitcast"


BINARY_OPS: dict[str, type[BinaryOp]] = {c.NAME: c for c in (
    AddFOp, SubFOp, MulFOp, DivFOp, MaximumFOp, MinimumFOp,
    AddIOp, SubIOp, MulIOp, DivSIOp, RemSIOp, MaxSIOp, MinSIOp,
    DivUIOp, RemUIOp, MaxUIOp, MinUIOp, ShLIOp, ShRSIOp, ShRUIOp, AndIOp, OrIOp, XOrIOp)}
UNARY_OPS: dict[str, type[UnaryOp]] = {c.NAME: c for c in (NegFOp, ExpOp, LogOp, SqrtOp, AbsFOp)}
CAST_OPS: dict[str, type[CastOp]] = {c.NAME: c for c in (
    IndexCastOp, SIToFPOp, FPToSIOp, ExtFOp, TruncFOp,
    UIToFPOp, FPToUIOp, ExtSIOp, ExtUIOp, TruncIOp, BitcastOp)}
