"""The loop IR: types, affine expressions/maps/sets, ops, builder, verifier."""

from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym, dims, syms
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.builder import Builder, IndexExpr, affine_map_of, current_builder
from compiler.ir.core import Block, BlockArgument, Operation, OpResult, Value
from compiler.ir.ops import *  # noqa: F403
from compiler.ir.ops import __all__ as _ops_all
from compiler.ir.types import (
    BF16,
    F8E4M3FN,
    F8E5M2,
    F16,
    F32,
    F64,
    I1,
    I4,
    I8,
    I16,
    I32,
    I64,
    INDEX,
    ElementType,
    FunctionType,
    MemRefType,
    Type,
    memref,
)

__all__ = [
    "AffineExpr", "AffineMap", "Binary", "Block", "BlockArgument", "Builder", "Const", "Dim",
    "BF16", "ElementType", "F8E4M3FN", "F8E5M2", "F16", "F32", "F64", "FunctionType", "I1",
    "I4", "I16", "I32", "I64", "I8", "INDEX",
    "IndexExpr", "IntegerSet", "MemRefType", "OpResult", "Operation", "Sym", "Type", "Value",
    "affine_map_of", "current_builder", "dims", "memref", "syms", *_ops_all,
]
