"""Groups of references to one memref whose elements never overlap: separate fast buffers
when that is smaller than one bounding box (regions from the analysis, queried with a stand-in
memref per group)."""

from __future__ import annotations

from collections.abc import Sequence

from compiler.analysis.region import MemRefRegion
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineLoadOp, AffineStoreOp


def split_disjoint(memref: Value, region: MemRefRegion, range_ops: Sequence[Operation]
                   ) -> list[tuple[MemRefRegion, list[Operation] | None]]:
    """[(region, access ops)] per group of references to `memref` whose element sets never
    overlap another group's (for any outer IV values), when separate boxes are smaller than
    the one bounding box; else [(region, None)] (one buffer for every reference)."""
    accesses = [op for root in range_ops for op in root.walk()
                if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is memref]
    if len(accesses) < 2 or region.size_bytes() is None:
        return [(region, None)]
    patterns = {(str(op.map), tuple(id(v) for v in op.indices)) for op in accesses}  # type: ignore[attr-defined]
    if len(patterns) < 2:             # every reference touches the same elements
        return [(region, None)]
    singles = _probe(memref, range_ops, [[a] for a in accesses])
    if singles is None:
        return [(region, None)]
    parent = list(range(len(accesses)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    sets = [r.exact.reset_tuple_id() for r in singles]
    for a in range(len(accesses)):
        for b in range(a + 1, len(accesses)):
            if find(a) != find(b) and not sets[a].intersect(sets[b]).is_empty():
                parent[find(a)] = find(b)
    groups: dict[int, list[Operation]] = {}
    for k, op in enumerate(accesses):
        groups.setdefault(find(k), []).append(op)
    if len(groups) < 2:
        return [(region, None)]
    parts = _probe(memref, range_ops, list(groups.values()))
    if parts is None or any(p.size_bytes() is None for p in parts):
        return [(region, None)]
    if sum(p.size_bytes() for p in parts) >= region.size_bytes():
        return [(region, None)]
    return list(zip(parts, groups.values(), strict=True))


def _probe(memref: Value, range_ops: Sequence[Operation], groups: list[list[Operation]]
           ) -> list[MemRefRegion] | None:
    """Regions of each group of accesses, from the analysis: each group is pointed at its own
    stand-in memref value for the query, then restored."""
    import islpy as isl

    from compiler.analysis import memref_regions
    from compiler.analysis.isl_bridge import AnalysisError

    stand_ins = [Value(memref.type, memref.name_hint) for _ in groups]
    saved: list[tuple[Operation, list[Value]]] = []
    for group, fake in zip(groups, stand_ins, strict=True):
        for op in group:
            saved.append((op, list(op.operands)))
            op.operands = [fake if v is memref else v for v in op.operands]
    try:
        regions = memref_regions(range_ops)
    except (AnalysisError, isl.Error):  # a group the analysis cannot model: no split
        return None
    finally:
        for op, operands in saved:
            op.operands = operands
    out = []
    for fake in stand_ins:
        r = regions.get(fake)
        if r is None or any(e is None for e in r.extents):
            return None
        out.append(_rebind(r, memref))
    return out


def _rebind(region: MemRefRegion, memref: Value) -> MemRefRegion:
    import dataclasses

    return dataclasses.replace(region, memref=memref)
