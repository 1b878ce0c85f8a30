"""Accesses the bounds-checked mode need not check at run time: isl proves them in bounds.

For an affine.load/store, the image of its iteration domain under its index map (symbols and
any non-affine index value universally quantified, as isl parameters) is intersected with the
outside of each statically sized dimension; an empty intersection is a proof that no
execution of the op can leave that dimension, for every value of the parameters. The checks
left are the dimensions isl cannot prove (dynamic extents, indices that depend on loaded
values, accesses that really do go out of bounds): those are checked at run time.
"""

from __future__ import annotations

import islpy as isl

from compiler.analysis import AnalysisError, access_relation
from compiler.ir.core import Operation
from compiler.ir.types import MemRefType


def proven_dims(op: Operation, memref_type: MemRefType) -> frozenset[int]:
    """The dimensions of `op`'s index that isl proves within [0, extent) whenever `op` runs.
    Empty when the analysis cannot model the op (then every dimension is checked)."""
    static = [(k, d) for k, d in enumerate(memref_type.shape) if d is not None]
    if not static:
        return frozenset()
    try:
        # [params] -> { M[a0, ...] }: every element the op touches
        touched = access_relation(op, "", full_range=False).range()
        proven = set()
        for k, extent in static:
            below = touched.upper_bound_val(isl.dim_type.set, k, isl.Val(-1))
            above = touched.lower_bound_val(isl.dim_type.set, k, isl.Val(extent))
            if below.is_empty() and above.is_empty():
                proven.add(k)
    except (AnalysisError, isl.Error):
        return frozenset()
    return frozenset(proven)
