"""Tile sizes for a band tree: given per depth (`tile-sizes`), or from the cache model.

The cache model is `tile_sizes.cache_tile_sizes` generalised to trees: the footprint of one
tile of a leaf group is the bytes of the bounding boxes of its accesses over one tile of
each loop of its path; the sizes are the largest whose every leaf's footprint fits, grown
innermost loop first (reverse pre-order: the deepest, last loops first), rounded down to a
divisor of a constant trip count when one is at least half as large. A loop whose bounds
depend on outer tree IVs (a triangle) is measured on a full tile: its own bounds are
replaced by the range its IV takes over the whole nest, so a tile at the triangle's corner
does not make the footprint look small.
"""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl

from compiler.analysis.access import accesses_in, relation_in_frame
from compiler.analysis.domain import domain_frame, domain_in_frame, enclosing_loops
from compiler.analysis.isl_bridge import AnalysisError, Frame, val_to_int
from compiler.ir.types import MemRefType
from compiler.transforms.tiling.band_tree import BandNode, LeafGroup
from compiler.transforms.tiling.bands import constant_trip_count
from compiler.transforms.tiling.tile_sizes import DEFAULT_TILE_SIZE, largest_divisor_at_most

UNKNOWN_TRIP = 1024  # the largest size tried for a loop without a known extent


def depth_tile_sizes(tree: BandNode, sizes: Sequence[int]) -> dict[BandNode, int]:
    """`sizes[d]` for every loop at depth d (MLIR's default 4 past the end of the list)."""
    return {n: (sizes[n.depth] if n.depth < len(sizes) else DEFAULT_TILE_SIZE) for n in tree.nodes()}


def iv_range(node: BandNode) -> tuple[int, int] | None:
    """(min, max) of the loop's IV over the whole nest, when constant."""
    ops = [op for op in node.loop.body.ops if not op.IS_TERMINATOR]
    if not ops:
        return None
    try:
        _, dom = domain_frame(ops[0])
    except AnalysisError:
        return None
    k = len(node.path) - 1
    if dom.is_empty():
        return None
    lo, hi = val_to_int(dom.dim_min_val(k)), val_to_int(dom.dim_max_val(k))
    return None if lo is None or hi is None else (lo, hi)


class _LeafFootprint:
    """Bytes of the bounding boxes of one tile of a leaf group's accesses."""

    def __init__(self, leaf: LeafGroup, ranges: dict[BandNode, tuple[int, int]]):
        self.path = leaf.parent.path
        free = [n.loop for n in self.path if n.dependent]
        self.rels: list[tuple[isl.Map, int, str]] = []
        for top in leaf.ops:
            for acc in accesses_in(top):
                frame = Frame([lp.iv for lp in enclosing_loops(acc.op)])
                # the dependent loops' own bounds are left out: their range is the box's
                dom = domain_in_frame(acc.op, frame, skip=free)
                mt = acc.memref.type
                assert isinstance(mt, MemRefType)
                # [symbols] -> { [path ivs, inner ivs] -> M[a] }
                rel = relation_in_frame(acc.op, acc.side, frame, dom)
                self.rels.append((rel, mt.element.byte_width, rel.get_tuple_name(isl.dim_type.out)))
        self.frame = Frame([n.loop.iv for n in self.path])
        self.first: list[isl.PwAff] = []
        self.last: list[isl.PwAff | None] = []
        for n in self.path:
            if n.dependent:
                lo, hi = ranges[n]
                self.first.append(self.frame.constant(lo))
                self.last.append(self.frame.constant(hi))
            else:
                lbs = self.frame.map_results(n.loop.lower_map, n.loop.lower_operands)
                first = lbs[0]
                for lb in lbs[1:]:
                    first = first.max(lb)
                self.first.append(first)
                self.last.append(None)

    def bytes(self, sizes: dict[BandNode, int]) -> int | None:
        # [symbols] -> { [path ivs] : first_k <= iv_k < first_k + T_k * step_k (<= last_k) }
        box = self.frame.universe
        for k, n in enumerate(self.path):
            iv = self.frame.dim(k)
            box = box.intersect(iv.ge_set(self.first[k]))
            box = box.intersect(iv.lt_set(self.first[k].add(self.frame.constant(sizes[n] * n.loop.step))))
            last = self.last[k]
            if last is not None:
                box = box.intersect(iv.le_set(last))
        nb = len(self.path)
        images: dict[str, isl.Set] = {}
        width: dict[str, int] = {}
        for rel, w, name in self.rels:
            n_in = rel.dim(isl.dim_type.in_)
            lifted = box.insert_dims(isl.dim_type.set, nb, n_in - nb).align_params(rel.get_space())
            img = rel.intersect_domain(lifted).range()
            images[name] = img if name not in images else images[name].union(img)
            width[name] = w
        total = 0
        for name, s in images.items():
            n_el = _box_elements(s)
            if n_el is None:
                return None
            total += n_el * width[name]
        return total


def _box_elements(s: isl.Set) -> int | None:
    """Elements of the bounding box of `s` (None when a span is not a constant)."""
    n = 1
    rank = s.dim(isl.dim_type.set)
    for d in range(rank):
        proj = s.project_out(isl.dim_type.set, d + 1, rank - d - 1).project_out(isl.dim_type.set, 0, d)
        if proj.is_empty():
            return 0
        try:
            span = val_to_int(proj.dim_max(0).sub(proj.dim_min(0)).max_val())
        except isl.Error:  # a quasi-affine span isl cannot optimize: unknown
            return None
        if span is None:
            return None
        n *= span + 1
    return n


def tree_cache_tile_sizes(tree: BandNode, cache_bytes: int) -> dict[BandNode, int]:
    """The cache model's sizes for every loop of `tree` (see the module docstring)."""
    nodes = list(tree.nodes())
    default = {n: DEFAULT_TILE_SIZE for n in nodes}
    ranges: dict[BandNode, tuple[int, int]] = {}
    for n in nodes:
        if n.dependent:
            r = iv_range(n)
            if r is None:
                return default
            ranges[n] = r
    try:
        feet = [(_LeafFootprint(leaf, ranges), set(leaf.parent.path)) for leaf in tree.leaves()]
    except AnalysisError:
        return default
    sizes = {n: 1 for n in nodes}

    def fits(trial: dict[BandNode, int], node: BandNode | None = None) -> bool | None:
        worst = 0
        for fp, path in feet:
            if node is not None and node not in path:
                continue
            b = fp.bytes(trial)
            if b is None:
                return None
            worst = max(worst, b)
        return worst <= cache_bytes

    if fits(sizes) is None:  # a footprint is unknown (unbounded or not computable)
        return default
    for node in reversed(nodes):
        tc = _extent(node, ranges)
        hi, lo = tc if tc is not None else UNKNOWN_TRIP, 1

        def fits_at(t: int, node: BandNode = node) -> bool:
            return bool(fits({**sizes, node: t}, node))

        if not fits_at(1):
            continue
        while lo < hi:  # the footprint grows with the tile size: binary search
            mid = (lo + hi + 1) // 2
            if fits_at(mid):
                lo = mid
            else:
                hi = mid - 1
        best = lo
        exact = constant_trip_count(node.loop) if not node.dependent else None
        if exact:
            divisor = largest_divisor_at_most(exact, best)
            if 2 * divisor >= best:
                best = divisor
        sizes[node] = max(1, best)
    return sizes


def _extent(node: BandNode, ranges: dict[BandNode, tuple[int, int]]) -> int | None:
    """Iterations of the loop (over the whole nest for a dependent one), when known."""
    if node.dependent:
        lo, hi = ranges[node]
        return max(1, -(-(hi - lo + 1) // node.loop.step))
    return constant_trip_count(node.loop)


def covers_extent(node: BandNode, size: int) -> bool:
    """One tile of `size` iterations spans the loop's whole range (over the whole nest)."""
    if node.dependent:
        r = iv_range(node)
        return r is not None and size >= _extent(node, {node: r})  # type: ignore[operator]
    tc = constant_trip_count(node.loop)
    return tc is not None and size >= tc
