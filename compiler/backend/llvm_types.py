"""The LLVM types and values the lowering shares: scalar and in-memory types, memref handles."""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from compiler.ir.types import ElementType, MemRefType

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I64 = ir.IntType(64)
PTR = ir.PointerType()
ALIGN = 64


def scalar_type(t: ElementType) -> ir.Type:
    """Register type of a scalar."""
    if t.is_float:
        return {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}[t.bitwidth]
    return ir.IntType(t.bitwidth)


def memory_type(t: ElementType) -> ir.Type:
    """In-memory type of a memref element: i1 is stored as a byte, like numpy's bool."""
    return I8 if t.bitwidth == 1 and not t.is_float else scalar_type(t)


def i64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


@dataclass(frozen=True, slots=True)
class MemRefHandle:
    """A memref in registers: its base pointer and one i64 per extent."""

    ptr: ir.Value
    sizes: tuple[ir.Value, ...]
    type: MemRefType
