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
    BinaryOp,
    CastOp,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    DivFOp,
    DivSIOp,
    ExpOp,
    ExtFOp,
    FPToSIOp,
    IndexCastOp,
    LogOp,
    MaximumFOp,
    MaxSIOp,
    MinimumFOp,
    MinSIOp,
    MulFOp,
    MulIOp,
    NegFOp,
    RemSIOp,
    SelectOp,
    SIToFPOp,
    SqrtOp,
    SubFOp,
    SubIOp,
    TruncFOp,
    UnaryOp,
)
from compiler.ir.ops.func import CallOp, FuncOp, ModuleOp, ReturnOp
from compiler.ir.ops.memref import AllocaOp, AllocOp, DeallocOp, DimOp
from compiler.ir.ops.opaque import OpaqueOp, opaque_memref_uses

__all__ = [
    "AbsFOp", "AddFOp", "AddIOp", "AffineApplyOp", "AffineDmaStartOp", "AffineDmaWaitOp",
    "AffineForOp", "AffineIfOp", "AffineParallelOp", "REDUCTIONS", "AffineLoadOp", "AffineMaxOp",
    "AffineMinOp", "AffineStoreOp",
    "AffineYieldOp", "AllocOp", "AllocaOp", "BINARY_OPS", "BinaryOp", "CAST_OPS", "CallOp",
    "CastOp", "CmpFOp", "CmpIOp", "ConstantOp", "DeallocOp", "DimOp", "OpaqueOp",
    "opaque_memref_uses", "DivFOp", "DivSIOp", "ExpOp", "LogOp",
    "ExtFOp", "FPToSIOp", "FuncOp", "IndexCastOp", "MaxSIOp", "MaximumFOp", "MinSIOp",
    "MinimumFOp", "ModuleOp", "MulFOp", "MulIOp", "NegFOp", "RemSIOp", "ReturnOp", "SIToFPOp",
    "SelectOp", "SqrtOp", "SubFOp", "SubIOp", "TruncFOp", "UNARY_OPS", "UnaryOp",
]
