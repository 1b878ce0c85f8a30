"""`convert-linalg-to-affine-loops`: each linalg op on memrefs becomes a nest of affine.for
loops with affine.load / affine.store and the op's payload (arith / math ops), as upstream's
LinalgToLoops does it:

- one loop per iterator, outermost first, from 0 to the loop's static extent (the size of the
  first operand dimension its map indexes with that loop alone);
- in the innermost body, for every input then every output whose value the payload uses: one
  `affine.apply` per index that is neither a loop variable nor a constant, then the load (a
  scalar input is used as it is); then the applies of the stores' indices, the payload (the
  generic's region, `linalg.index` replaced by its loop variable; a named op's fixed body),
  and one store per output of the value it yields.

Loads whose value the payload does not use are not emitted (upstream emits and then erases
them as dead). The program's meaning is unchanged, loop order and op order are upstream's:
tests/compiler/transforms/test_convert_linalg_to_affine_loops.py runs both on the host.
"""

from __future__ import annotations

import dataclasses

from compiler.ir.affine_expr import AffineExpr, Const, Dim
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    AddFOp,
    AddIOp,
    AffineApplyOp,
    AffineForOp,
    AffineLoadOp,
    AffineStoreOp,
    AffineYieldOp,
    MaximumFOp,
    MaxSIOp,
    MinimumFOp,
    MinSIOp,
    ModuleOp,
    MulFOp,
    MulIOp,
)
from compiler.ir.ops.arith import cast_op_for
from compiler.ir.ops.linalg import (
    NAMED_OPS,
    GenericOp,
    LinalgIndexOp,
    LinalgOp,
    LinalgYieldOp,
    NamedLinalgOp,
)
from compiler.ir.types import ElementType, MemRefType
from compiler.transforms.pass_base import Pass

# payload -> (float op, integer op); "mac" is out + in0 * in1
_COMBINE: dict[str, tuple[type[Operation], type[Operation]]] = {
    "add": (AddFOp, AddIOp),
    "max": (MaximumFOp, MaxSIOp),
    "min": (MinimumFOp, MinSIOp),
}


@dataclasses.dataclass(frozen=True)
class Options:
    pass


class ConvertLinalgToAffineLoopsPass(Pass):
    name = "convert-linalg-to-affine-loops"
    summary = "Lower linalg ops on memrefs to affine loops (loads, stores, arith payload)"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        for op in list(module.walk()):
            if isinstance(op, LinalgOp):
                lower_to_affine_loops(op)


def memref_copy_as_linalg(op: Operation) -> LinalgOp | None:
    """`memref.copy %a, %b` (kept opaque by the parser) between two memrefs of one static shape
    and element type: the `linalg.copy` that means the same, in its place (for the front door
    of the accelerator pipeline: bufferized modules copy results out this way). None (and no
    change) for any other op or copy."""
    if op.NAME != "memref.copy" or len(op.operands) != 2 or op.results or op.blocks:
        return None
    src, dst = op.operands
    st, dt = src.type, dst.type
    if not isinstance(st, MemRefType) or not isinstance(dt, MemRefType):
        return None
    if st.shape != dt.shape or st.element != dt.element or not st.has_static_shape:
        return None
    copy = NAMED_OPS["linalg.copy"]([src], [dst], loc=op.loc)
    block = op.parent_block
    assert block is not None
    block.insert_before(op, copy)
    op.erase()
    return copy


def lower_to_affine_loops(op: LinalgOp) -> AffineForOp | None:
    """Replace `op` by its loop nest (the outermost loop; None when it has no loops, then the
    body is emitted in place)."""
    block = op.parent_block
    assert block is not None
    sizes = op.loop_sizes()
    outer: AffineForOp | None = None
    body, anchor = block, op
    ivs: list[Value] = []
    for size in sizes:
        assert size is not None  # the verifier refuses ops without static extents
        loop = AffineForOp(AffineMap.constant(0), [], AffineMap.constant(size), [], loc=op.loc)
        loop.body.append(AffineYieldOp(loc=op.loc))
        body.insert_before(anchor, loop)
        outer = outer or loop
        ivs.append(loop.iv)
        body, anchor = loop.body, loop.body.ops[-1]
    _Emitter(op, ivs, body, anchor).emit()
    op.erase()
    return outer


class _Emitter:
    """Inserts the loop body's ops before `anchor` (the innermost affine.yield)."""

    def __init__(self, op: LinalgOp, ivs: list[Value], block: Block, anchor: Operation):
        self.op, self.ivs, self.block, self.anchor = op, ivs, block, anchor
        self.maps = op.indexing_maps()

    def put(self, new: Operation) -> Operation:
        new.loc = self.op.loc
        self.block.insert_before(self.anchor, new)
        return new

    def indices(self, m: AffineMap) -> tuple[AffineMap, list[Value]]:
        """The access map and operands for `m` at the loop variables: a loop variable or a
        constant goes into the map, any other result through an `affine.apply` first."""
        operands: list[Value] = []
        results: list[AffineExpr] = []
        for e in m.results:
            if isinstance(e, Const):
                results.append(e)
                continue
            v = self.ivs[e.pos] if isinstance(e, Dim) else self.apply(m.num_dims, e)
            if v not in operands:
                operands.append(v)
            results.append(Dim(operands.index(v)))
        return AffineMap(len(operands), 0, tuple(results)), operands

    def apply(self, num_dims: int, e: AffineExpr) -> Value:
        used = sorted({a.pos for a in e.atoms() if isinstance(a, Dim)})
        renumber = [Dim(used.index(d)) if d in used else Const(0) for d in range(num_dims)]
        m = AffineMap(len(used), 0, (e.substitute(renumber),))
        return self.put(AffineApplyOp(m, [self.ivs[d] for d in used])).results[0]

    def load(self, k: int) -> Value:
        v = self.op.operands[k]
        if not isinstance(v.type, MemRefType):
            return v  # a scalar input
        m, operands = self.indices(self.maps[k])
        return self.put(AffineLoadOp(v, m, operands)).results[0]

    def emit(self) -> None:
        op = self.op
        used = self.used_operands()
        values = {k: self.load(k) for k in range(len(op.operands)) if k in used}
        n_in = op.num_inputs
        stores = [self.indices(self.maps[n_in + j]) for j in range(len(op.outputs))]
        yielded = self.payload(values)
        for j, (value, (m, operands)) in enumerate(zip(yielded, stores, strict=True)):
            self.put(AffineStoreOp(value, op.outputs[j], m, operands))

    def used_operands(self) -> set[int]:
        op = self.op
        if isinstance(op, GenericOp):
            ids = {id(a): k for k, a in enumerate(op.body.args)}
            return {ids[id(v)] for inner in op.body.walk() for v in inner.operands if id(v) in ids}
        assert isinstance(op, NamedLinalgOp)
        n_in = op.num_inputs
        if op.PAYLOAD == "yield":
            return {0}
        if op.PAYLOAD == "mac":
            return {0, 1, n_in}
        return {0, n_in}  # add / max / min: the window operand only gives the loop extents

    def payload(self, values: dict[int, Value]) -> list[Value]:
        op = self.op
        if isinstance(op, GenericOp):
            return self.inline_region(op, values)
        assert isinstance(op, NamedLinalgOp)
        out = values.get(op.num_inputs)
        t = op.outputs[0].type
        assert isinstance(t, MemRefType)
        # inputs of another element type convert to the output's first (upstream's signed casts)
        values = {k: self.converted(v, t.element) if k < op.num_inputs else v
                  for k, v in values.items()}
        if op.PAYLOAD == "yield":
            return [values[0]]
        assert out is not None
        is_float = t.element.is_float
        if op.PAYLOAD == "mac":
            mul = MulFOp if is_float else MulIOp
            add = AddFOp if is_float else AddIOp
            prod = self.put(mul(values[0], values[1])).results[0]
            return [self.put(add(out, prod)).results[0]]
        cls = _COMBINE[op.PAYLOAD][0 if is_float else 1]
        return [self.put(cls(out, values[0])).results[0]]  # type: ignore[call-arg]

    def converted(self, v: Value, to: ElementType) -> Value:
        cls = cast_op_for(v.type, to) if isinstance(v.type, ElementType) else None
        return v if cls is None else self.put(cls(v, to)).results[0]

    def inline_region(self, op: GenericOp, values: dict[int, Value]) -> list[Value]:
        mapping: dict[Value, Value] = {a: values[k] for k, a in enumerate(op.body.args) if k in values}
        result: list[Value] = []
        for inner in op.body.ops:
            if isinstance(inner, LinalgYieldOp):
                result = [mapping.get(v, v) for v in inner.operands]
            elif isinstance(inner, LinalgIndexOp):
                mapping[inner.results[0]] = self.ivs[inner.dim]
            else:  # keeps its own location
                self.block.insert_before(self.anchor, inner.clone(mapping))
        return result

