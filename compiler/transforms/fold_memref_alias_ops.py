"""`fold-memref-alias-ops` (mlir-opt's flag): a static `memref.subview` is folded into the
subscripts of its users, so every later stage sees accesses of the source buffer.

    %s = memref.subview %A[4, 2] [8, 8] [1, 2]      affine.load %A[%i + 4, %j * 2 + 2]
    affine.load %s[%i, %j]                    ->

A user's subscript k becomes `offset_k + stride_k * subscript_k` on the source; a
rank-reducing subview (a source dimension of size 1 dropped from the result) gives that
dimension its offset. Users folded: `affine.load`, `affine.store`, the sides of
`affine.dma_start`, and other subviews (composed). A subview whose offsets, sizes or strides
are not static, or that leaves its source's bounds, or whose result is used by any other op
(a call, a `memref.copy` ...) is an error naming it; the subview is erased once folded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compiler.diagnostics import VerifyError
from compiler.ir.affine_expr import AffineExpr, Const
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineDmaStartOp, AffineLoadOp, AffineStoreOp, ModuleOp, OpaqueOp
from compiler.ir.types import MemRefType
from compiler.transforms.pass_base import NoOptions, Pass

SUBVIEW = "memref.subview"
_ARRAY = r"{}\s*=\s*array<i64:?\s*([-\d,\s]*)>"


@dataclass(frozen=True, slots=True)
class Subview:
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    kept: tuple[int, ...]      # the source dimension of each result dimension


def subview_of(op: OpaqueOp) -> Subview:
    """The static offsets, sizes and strides of a `memref.subview` (its properties)."""
    vals = []
    for key in ("static_offsets", "static_sizes", "static_strides"):
        m = re.search(_ARRAY.format(key), op.prop_text or "")
        if m is None:
            raise VerifyError(f"memref.subview without {key}", op.loc)
        vals.append(tuple(int(x) for x in m.group(1).replace(",", " ").split()))
    offsets, sizes, strides = vals
    if len(op.operands) != 1 or any(v < 0 for v in offsets + strides) \
            or any(v == -(1 << 63) for v in offsets + sizes + strides):
        raise VerifyError("memref.subview with dynamic offsets, sizes or strides is not "
                          "supported (static ones only)", op.loc)
    src, res = op.operands[0].type, op.results[0].type
    assert isinstance(src, MemRefType) and isinstance(res, MemRefType)
    if not (len(offsets) == len(sizes) == len(strides) == src.rank):
        raise VerifyError(f"memref.subview of {src} needs {src.rank} offsets, sizes and strides",
                          op.loc)
    for k, (o, n, s, d) in enumerate(zip(offsets, sizes, strides, src.shape, strict=True)):
        if d is not None and n > 0 and o + (n - 1) * s >= d:
            raise VerifyError(f"memref.subview leaves {src}: dimension {k} reaches "
                              f"{o + (n - 1) * s} (offset {o}, size {n}, stride {s})", op.loc)
    if res.rank == src.rank:
        kept = tuple(range(src.rank))
    else:   # rank-reducing: the unit dimensions go
        kept = tuple(k for k, n in enumerate(sizes) if n != 1)
        if len(kept) != res.rank:
            raise VerifyError(f"memref.subview of {src} to {res}: cannot tell which unit "
                              "dimensions are dropped", op.loc)
    if tuple(sizes[k] for k in kept) != tuple(res.shape):
        raise VerifyError(f"memref.subview sizes {list(sizes)} do not give {res}", op.loc)
    return Subview(offsets, sizes, strides, kept)


def _compose(sv: Subview, m: AffineMap) -> AffineMap:
    """`m` (subscripts of the subview) as subscripts of the source."""
    results: list[AffineExpr] = []
    j = {k: r for r, k in enumerate(sv.kept)}
    for k, (o, s) in enumerate(zip(sv.offsets, sv.strides, strict=True)):
        if k in j:
            results.append(m.results[j[k]] * s + o)
        else:
            results.append(Const(o))
    return AffineMap(m.num_dims, m.num_symbols, tuple(results))


class FoldMemrefAliasOpsPass(Pass):
    name = "fold-memref-alias-ops"
    summary = "Fold static memref.subview ops into the subscripts of their users"
    Options = NoOptions

    def run(self, module: ModuleOp) -> None:
        for op in list(module.walk()):
            if isinstance(op, OpaqueOp) and op.op_name == SUBVIEW and op.parent_block is not None:
                self._fold(op, module)

    def _fold(self, op: OpaqueOp, module: ModuleOp) -> None:
        sv = subview_of(op)
        src, res = op.operands[0], op.results[0]
        for user in [u for u in module.walk() if any(v is res for v in u.operands)]:
            if isinstance(user, AffineLoadOp | AffineStoreOp) and user.memref is res:
                user.set_access(src, _compose(sv, user.map), user.indices)
            elif isinstance(user, AffineDmaStartOp):
                for side in ("src", "dst"):
                    mem, m, idx = ((user.src, user.src_map, user.src_indices) if side == "src"
                                   else (user.dst, user.dst_map, user.dst_indices))
                    if mem is res:
                        if not _contiguous_rows(sv):
                            raise VerifyError("affine.dma_start on a memref.subview that is not a "
                                              "row-major block of its source is not supported",
                                              user.loc)
                        user.set_side(side, src, _compose(sv, m), idx)
            elif isinstance(user, OpaqueOp) and user.op_name == SUBVIEW:
                continue   # composed when its turn comes: its source is folded below
            else:
                raise VerifyError(f"the result of memref.subview at {op.loc} is used by "
                                  f"'{user.NAME}', which cannot be folded (affine loads, stores "
                                  "and DMAs only)", user.loc)
        for user in [u for u in module.walk() if isinstance(u, OpaqueOp)
                     and u.op_name == SUBVIEW and u.operands and u.operands[0] is res]:
            inner = subview_of(user)   # a subview of this subview: one subview of the source
            offsets = list(sv.offsets)
            strides = [0] * len(sv.offsets)
            for r, k in enumerate(sv.kept):
                offsets[k] += sv.strides[k] * inner.offsets[r] if r < len(inner.offsets) else 0
            sizes = [1] * len(sv.offsets)
            for r, k in enumerate(sv.kept):
                strides[k] = sv.strides[k] * inner.strides[r]
                sizes[k] = inner.sizes[r]
            for k in range(len(strides)):
                if strides[k] == 0:
                    strides[k] = 1
            user.operands = [src]
            user.prop_text = (f"<{{operandSegmentSizes = array<i32: 1, 0, 0, 0>, "
                              f"static_offsets = array<i64: {', '.join(map(str, offsets))}>, "
                              f"static_sizes = array<i64: {', '.join(map(str, sizes))}>, "
                              f"static_strides = array<i64: {', '.join(map(str, strides))}>}}>")
            self._fold(user, module)
        self.remark(op.loc, "memref.subview folded into its users' subscripts")
        op.erase()


def _contiguous_rows(sv: Subview) -> bool:
    """A DMA moves row-major runs: the subview's innermost stride must be 1."""
    return not sv.strides or sv.strides[-1] == 1


def has_subview(module: ModuleOp) -> bool:
    return any(isinstance(o, OpaqueOp) and o.op_name == SUBVIEW for o in module.walk())


__all__ = ["FoldMemrefAliasOpsPass", "Subview", "has_subview", "subview_of", "Operation", "Value"]
