"""The LLVM types and values the lowering shares: scalar and in-memory types, memref handles."""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from compiler.backend.lower_floats import EMULATED
from compiler.ir.types import ElementType, MemRefType

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I64 = ir.IntType(64)
PTR = ir.PointerType()
ALIGN = 64


def scalar_type(t: ElementType) -> ir.Type:
    """Register type of a scalar: bf16 and fp8 live in a float (lower_floats.py)."""
    if t.is_float:
        if t.name in EMULATED:
            return ir.FloatType()
        return {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}[t.bitwidth]
    return ir.IntType(t.bitwidth)


def memory_type(t: ElementType) -> ir.Type:
    """In-memory type of a memref element, the layout of its numpy/ml_dtypes array: i1 and i4
    take a byte (i4 its low four bits), bf16 and fp8 are their raw bits."""
    if t.is_float:
        return ir.IntType(t.bitwidth) if t.name in EMULATED else scalar_type(t)
    return I8 if t.bitwidth < 8 else scalar_type(t)


def i64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


@dataclass(frozen=True, slots=True)
class MemRefHandle:
    """A memref in registers: its base pointer and one i64 per extent."""

    ptr: ir.Value
    sizes: tuple[ir.Value, ...]
    type: MemRefType
