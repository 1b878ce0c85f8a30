"""All op classes, importable from one place."""

from compiler.ir.ops.affine import (
    AffineApplyOp,
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    AffineYieldOp,
)
from compiler.ir.ops.affine_parallel import REDUCTIONS, AffineParallelOp
from compiler.ir.ops.arith import (
    BINARY_OPS,
    CAST_OPS,
    UNARY_OPS,
    AbsFOp,
    AddFOp,
    AddIOp,
    AndIOp,
    BinaryOp,
    BitcastOp,
    CastOp,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    DivFOp,
    DivSIOp,
    DivUIOp,
    ExpOp,
    ExtFOp,
    ExtSIOp,
    ExtUIOp,
    FPToSIOp,
    FPToUIOp,
    IndexCastOp,
    LogOp,
    MaximumFOp,
    MaxSIOp,
    MaxUIOp,
    MinimumFOp,
    MinSIOp,
    MinUIOp,
    MulFOp,
    MulIOp,
    NegFOp,
    OrIOp,
    RemSIOp,
    RemUIOp,
    SelectOp,
    ShLIOp,
    ShRSIOp,
    ShRUIOp,
    SIToFPOp,
    SqrtOp,
    SubFOp,
    SubIOp,
    TruncFOp,
    TruncIOp,
    UIToFPOp,
    UnaryOp,
    XOrIOp,
)
from compiler.ir.ops.func import CallOp, FuncOp, ModuleOp, ReturnOp
from compiler.ir.ops.math_ops import MATH_BINARY, MATH_TERNARY, MATH_UNARY, FmaOp, TernaryOp
from compiler.ir.ops.memref import AllocaOp, AllocOp, DeallocOp, DimOp
from compiler.ir.ops.opaque import OpaqueOp, opaque_memref_uses

# the math dialect's other float ops parse, print and lower through the same tables
UNARY_OPS.update(MATH_UNARY)
BINARY_OPS.update(MATH_BINARY)

__all__ = [
    "FmaOp", "MATH_BINARY", "MATH_TERNARY", "MATH_UNARY", "TernaryOp",
    "AbsFOp", "AddFOp", "AddIOp", "AffineApplyOp", "AffineDmaStartOp", "AffineDmaWaitOp",
    "AffineForOp", "AffineIfOp", "AffineParallelOp", "REDUCTIONS", "AffineLoadOp", "AffineMaxOp",
    "AffineMinOp", "AffineStoreOp",
    "AffineYieldOp", "AllocOp", "AllocaOp", "BINARY_OPS", "BinaryOp", "CAST_OPS", "CallOp",
    "CastOp", "CmpFOp", "CmpIOp", "ConstantOp", "DeallocOp", "DimOp", "OpaqueOp",
    "opaque_memref_uses", "DivFOp", "DivSIOp", "ExpOp", "LogOp",
    "ExtFOp", "FPToSIOp", "FuncOp", "IndexCastOp", "MaxSIOp", "MaximumFOp", "MinSIOp",
    "MinimumFOp", "ModuleOp", "MulFOp", "MulIOp", "NegFOp", "RemSIOp", "ReturnOp", "SIToFPOp",
    "SelectOp", "SqrtOp", "SubFOp", "SubIOp", "TruncFOp", "UNARY_OPS", "UnaryOp",
    "DivUIOp", "RemUIOp", "MaxUIOp", "MinUIOp", "ShLIOp", "ShRSIOp", "ShRUIOp", "AndIOp",
    "OrIOp", "XOrIOp", "UIToFPOp", "FPToUIOp", "ExtSIOp", "ExtUIOp", "TruncIOp", "BitcastOp",
]
