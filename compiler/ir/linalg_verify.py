"""The rules of the linalg ops (compiler.ir.ops.linalg), as messages: each function returns
what is wrong with an op, or None. compiler.ir.verifier raises them with the op's location."""

from __future__ import annotations

from compiler.ir.affine_expr import Dim
from compiler.ir.ops.arith import cast_op_for
from compiler.ir.ops.linalg import (
    ITERATOR_TYPES,
    GenericOp,
    LinalgIndexOp,
    LinalgOp,
    LinalgYieldOp,
    NamedLinalgOp,
    element_type,
)
from compiler.ir.types import INDEX, ElementType, MemRefType, VectorType


def structured_problem(op: LinalgOp) -> str | None:
    """Operands, maps, iterators and the static loop sizes of a structured op."""
    maps = op.indexing_maps()
    iters = op.iterator_types()
    if not op.outputs:
        return "needs at least one output (outs(...))"
    if len(maps) != len(op.operands):
        return f"has {len(maps)} indexing map(s) for {len(op.operands)} operand(s)"
    bad_iter = [t for t in iters if t not in ITERATOR_TYPES]
    if bad_iter:
        return f"unknown iterator type '{bad_iter[0]}' (expected one of {', '.join(ITERATOR_TYPES)})"
    for k, (v, m) in enumerate(zip(op.operands, maps, strict=True)):
        what = f"operand #{k} ({'input' if k < op.num_inputs else 'output'})"
        if m.num_dims != len(iters) or m.num_symbols:
            return (f"indexing map #{k} has {m.num_dims} dim(s) and {m.num_symbols} symbol(s), "
                    f"expected {len(iters)} dim(s) (one per iterator) and none")
        if not all(r.is_pure_affine() for r in m.results):
            return f"indexing map #{k} is not affine"
        t = v.type
        if isinstance(t, MemRefType):
            if m.num_results != t.rank:
                return f"{what} has rank {t.rank} but its indexing map has {m.num_results} result(s)"
        elif isinstance(t, ElementType) and k < op.num_inputs:
            if m.num_results:
                return f"{what} is a scalar ({t}), so its indexing map must have no results"
        else:
            return f"{what} must be a memref{' or a scalar' if k < op.num_inputs else ''}, found {t}"
    return _sizes_problem(op)


def _sizes_problem(op: LinalgOp) -> str | None:
    sizes = op.loop_sizes()
    for d, s in enumerate(sizes):
        if s is None:
            return (f"loop d{d} has no static extent (no operand dimension of static size is "
                    f"indexed by d{d} alone; dynamic shapes are not supported)")
    for k, (v, m) in enumerate(zip(op.operands, op.indexing_maps(), strict=True)):
        if not isinstance(v.type, MemRefType):
            continue
        for j, (r, extent) in enumerate(zip(m.results, v.type.shape, strict=True)):
            if isinstance(r, Dim) and extent != sizes[r.pos]:
                return (f"operand #{k} dimension {j} has size {extent}, but loop d{r.pos} runs "
                        f"{sizes[r.pos]} times (from an earlier operand)")
    return None


def named_problem(op: NamedLinalgOp) -> str | None:
    if op.num_inputs != op.NUM_INPUTS or len(op.outputs) != 1:
        return (f"takes {op.NUM_INPUTS} input(s) and 1 output, found {op.num_inputs} and "
                f"{len(op.outputs)}")
    out = op.outputs[0].type
    if not isinstance(out, MemRefType):
        return f"output must be a memref, found {out}"
    if op.NAME in ("linalg.fill", "linalg.copy"):
        src = op.inputs[0].type
        want = "a scalar" if op.NAME == "linalg.fill" else "a memref"
        if isinstance(src, MemRefType) == (op.NAME == "linalg.fill"):
            return f"input must be {want}, found {src}"
        if isinstance(src, MemRefType) and src.rank != out.rank:
            return f"input rank {src.rank} differs from output rank {out.rank}"
    elif len(op.iterator_types()) and any(not isinstance(v.type, MemRefType) for v in op.inputs):
        return "inputs must be memrefs"
    for attr in ("strides", "dilations"):
        vals = getattr(op, attr)
        if vals is None:
            continue
        if not op.WINDOWED:
            return f"has no '{attr}' attribute"
        if len(vals) != 2 or any(x <= 0 for x in vals):
            return f"'{attr}' must be 2 positive integers, found {list(vals)}"
    if op.NAME != "linalg.copy" and op.NAME != "linalg.fill":
        want_rank = [m.num_results for m in op.indexing_maps()]
        for k, v in enumerate(op.operands):
            t = v.type
            if isinstance(t, MemRefType) and t.rank != want_rank[k]:
                return f"operand #{k} must have rank {want_rank[k]}, found {t}"
    types = {element_type(v.type) for v in op.operands}
    if len(types) != 1:  # inputs convert to the output's type, as upstream's (signed) casts do
        want = element_type(out)
        for t in types - {want}:
            if (t is None or want is None or isinstance(t, VectorType)
                    or isinstance(want, VectorType) or cast_op_for(t, want) is None):
                return (f"cannot convert element type {t} to the output's {want} (mixed element "
                        "types need one arith cast from each input's type to the output's)")
    return structured_problem(op)


def generic_problem(op: GenericOp) -> str | None:
    problem = structured_problem(op)
    if problem is not None:
        return problem
    args = op.body.args
    if len(args) != len(op.operands):
        return f"body has {len(args)} argument(s) for {len(op.operands)} operand(s)"
    for k, (a, v) in enumerate(zip(args, op.operands, strict=True)):
        if a.type != element_type(v.type):
            return f"body argument #{k} has type {a.type}, expected {element_type(v.type)}"
    return None


def yield_problem(op: LinalgYieldOp) -> str | None:
    parent = op.parent_op
    if not isinstance(parent, GenericOp):
        return "must be inside a linalg.generic"
    want = [element_type(v.type) for v in parent.outputs]
    got = [v.type for v in op.operands]
    if got != want:
        return (f"yields ({', '.join(map(str, got))}) but the outputs hold "
                f"({', '.join(map(str, want))})")
    return None


def index_problem(op: LinalgIndexOp) -> str | None:
    generic = next((a for a in op.ancestors() if isinstance(a, GenericOp)), None)
    if generic is None:
        return "must be inside a linalg.generic"
    if not 0 <= op.dim < generic.num_loops:
        return f"dimension {op.dim} is out of range (the generic has {generic.num_loops} loops)"
    if op.results[0].type != INDEX:
        return "must produce an index"
    return None
