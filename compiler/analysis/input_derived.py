"""Output bytes whose value depends on an input: the elements of a function's memref
arguments that only stores of a value computed from an input load ever write.

An input here is a memref argument the function never writes (no store, DMA destination,
call or opaque op takes it); a store is input-derived when its stored value's SSA operands
lead (through any ops of the function) to an `affine.load` of an input. An element counts
when some input-derived store writes it and no other store does (so its final value is an
input's, whatever the order). That is an under-approximation, which is what a lower bound
needs (`accelsim.report.roofline.write_chain`): no schedule can write those bytes before an
input byte has arrived on chip.
"""

from __future__ import annotations

import islpy as isl

from compiler.analysis.access import access_relation
from compiler.analysis.isl_bridge import AnalysisError
from compiler.ir.core import OpResult, Value
from compiler.ir.ops import AffineLoadOp, AffineStoreOp, FuncOp
from compiler.ir.types import MemRefType


def input_derived_written_bytes(f: FuncOp, memory_space: int) -> int:
    """Bytes of `f`'s memref arguments in `memory_space` written only by input-derived stores
    (0 where the analysis does not apply: a symbolic size, a non-affine access)."""
    args = [a for a in f.args if isinstance(a.type, MemRefType)]
    stores: list[AffineStoreOp] = []
    writers: set[int] = set()
    for op in f.walk():
        if isinstance(op, AffineStoreOp):
            stores.append(op)
            writers.add(id(op.memref))
        elif not isinstance(op, AffineLoadOp):
            writers.update(id(v) for v in op.operands if isinstance(v.type, MemRefType))
    inputs = {id(a) for a in args if id(a) not in writers}
    if not inputs:
        return 0
    total = 0
    try:
        for a in args:
            mt = a.type
            assert isinstance(mt, MemRefType)
            if mt.memory_space != memory_space or id(a) in inputs:
                continue
            derived = other = None
            for st in stores:
                if st.memref is not a:
                    continue
                elems = access_relation(st).range()
                if _from_input(st.value, inputs):
                    derived = elems if derived is None else derived.union(elems)
                else:
                    other = elems if other is None else other.union(elems)
            if derived is None:
                continue
            only = derived if other is None else derived.subtract(other)
            if only.dim(isl.dim_type.param):
                continue
            n = only.count_val().to_python()
            total += int(n) * mt.element.byte_width
    except (AnalysisError, isl.Error):
        return 0
    return total


def _from_input(v: Value, inputs: set[int]) -> bool:
    """Does `v` depend (through SSA operands) on an affine.load of an input memref?"""
    seen: set[int] = set()
    todo = [v]
    while todo:
        x = todo.pop()
        if id(x) in seen or not isinstance(x, OpResult):
            continue
        seen.add(id(x))
        op = x.owner
        if isinstance(op, AffineLoadOp) and id(op.memref) in inputs:
            return True
        todo.extend(op.operands)
    return False
