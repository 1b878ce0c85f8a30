"""Memory dependences between two ops as isl relations, with distance/direction vectors.

As in MLIR's checkMemrefAccessDependence: the relation `{ src iter -> dst iter }` of
iteration pairs that touch the same element, restricted to both iteration domains and to
"src runs before dst, first at loop depth `depth`" (equal IVs on the common loops outside
that depth, src IV < dst IV at it; depth = #common loops + 1 means the same iteration of
all common loops with src textually first). Empty relation = proven independent. Only the
same memref Value is compared (no alias analysis, like MLIR).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.access import Access, op_accesses, relation_in_frame
from compiler.analysis.domain import domain_frame, enclosing_loops
from compiler.analysis.isl_bridge import Frame, val_to_int
from compiler.ir.core import Operation, Value
from compiler.ir.ops import AffineForOp

KINDS = ("flow", "anti", "output", "input")


@dataclass(frozen=True, slots=True)
class Dependence:
    """A (possible) dependence from `src` to `dst` first carried at loop depth `depth`.

    `components[k]` is the (min, max) of `dst IV - src IV` on common loop k (outer -> inner),
    in IV units (None = unbounded); `pairs` is `[symbols] -> { [src ivs] -> [dst ivs] }`, the
    iteration pairs touching a common element in any order, and `relation` the same restricted
    to this dependence's order (src first, carried at `depth`).
    """

    src: Operation
    dst: Operation
    memref: Value
    kind: str
    depth: int
    loops: tuple[AffineForOp, ...]
    components: tuple[tuple[int | None, int | None], ...]
    pairs: isl.Map
    src_side: str = ""
    dst_side: str = ""

    @property
    def relation(self) -> isl.Map:
        return _order(self.pairs, len(self.loops), self.depth)

    @property
    def distance(self) -> tuple[int | None, ...]:
        """Constant distance per common loop, None where it varies."""
        return tuple(lo if lo is not None and lo == hi else None for lo, hi in self.components)

    @property
    def direction(self) -> tuple[str, ...]:
        """Per common loop: '<' (positive distance), '=', '>', '<=', '>=', or '*'."""
        out = []
        for lo, hi in self.components:
            if lo is not None and hi is not None and lo == hi == 0:
                out.append("=")
            elif lo is not None and lo > 0:
                out.append("<")
            elif hi is not None and hi < 0:
                out.append(">")
            elif lo is not None and lo >= 0:
                out.append("<=")
            elif hi is not None and hi <= 0:
                out.append(">=")
            else:
                out.append("*")
        return tuple(out)

    @property
    def is_loop_carried(self) -> bool:
        return self.depth <= len(self.loops)

    def __str__(self) -> str:
        comps = ", ".join("?" if lo is None or hi is None else (str(lo) if lo == hi else f"{lo}..{hi}")
                          for lo, hi in self.components)
        name = self.memref.name_hint or "?"
        where = f"carried by loop depth {self.depth}" if self.is_loop_carried else "loop-independent"
        return (f"{self.kind} dependence on %{name} from {self.src.NAME} at {self.src.loc} to "
                f"{self.dst.NAME} at {self.dst.loc}, {where}, distance ({comps})")


def common_loops(a: Operation, b: Operation) -> list[AffineForOp]:
    out = []
    for x, y in zip(enclosing_loops(a), enclosing_loops(b), strict=False):
        if x is not y:
            break
        out.append(x)
    return out


def _position(op: Operation) -> list[tuple[int, int]]:
    """(block index in parent op, op index in block) from the outermost op down."""
    path = []
    cur: Operation | None = op
    while cur is not None and cur.parent_block is not None:
        blk = cur.parent_block
        parent = blk.parent_op
        bidx = next((k for k, b in enumerate(parent.blocks) if b is blk), 0) if parent else 0
        path.append((bidx, blk.index_of(cur)))
        cur = parent
    return list(reversed(path))


def precedes(a: Operation, b: Operation) -> bool:
    """`a` comes textually before `b` (and is neither `b` nor an ancestor of it)."""
    pa, pb = _position(a), _position(b)
    for x, y in zip(pa, pb, strict=False):
        if x != y:
            return x < y
    return False


def kind_of(src_write: bool, dst_write: bool) -> str:
    if src_write:
        return "output" if dst_write else "flow"
    return "anti" if dst_write else "input"


class _Cache:
    """Per-query cache of frames and access relations, keyed by op identity."""

    def __init__(self) -> None:
        self.frames: dict[int, tuple[Frame, isl.Set]] = {}
        self.rels: dict[tuple[int, str], isl.Map] = {}
        self.pairs: dict[tuple[int, str, int, str], tuple[isl.Map, isl.Set | None]] = {}

    def pair_deltas(self, src: Access, dst: Access, n_common: int) -> tuple[isl.Map, isl.Set | None]:
        """The pair relation and its common-loop deltas (None when no pair touches)."""
        key = (id(src.op), src.side, id(dst.op), dst.side)
        if key not in self.pairs:
            pairs = pair_relation(src, dst, self)
            self.pairs[key] = (pairs, None if pairs.is_empty() else common_deltas(pairs, n_common))
        return self.pairs[key]

    def relation(self, acc: Access) -> isl.Map:
        key = (id(acc.op), acc.side)
        if key not in self.rels:
            # ops of one block share their enclosing loops and ifs, hence their domain
            bk = id(acc.op.parent_block)
            if bk not in self.frames:
                self.frames[bk] = domain_frame(acc.op)
            frame, dom = self.frames[bk]
            self.rels[key] = relation_in_frame(acc.op, acc.side, frame, dom)
        return self.rels[key]


def pair_relation(src: Access, dst: Access, cache: _Cache | None = None) -> isl.Map:
    """`[symbols] -> { [src ivs] -> [dst ivs] }`: pairs touching a common element (no order)."""
    cache = cache or _Cache()
    rs = cache.relation(src)
    rt = cache.relation(dst)
    # { [s] -> M[a] } . { M[a] -> [t] }  =  { [s] -> [t] }
    return rs.apply_range(rt.reverse())


def _order(rel: isl.Map, n_common: int, depth: int) -> isl.Map:
    """Restrict to src IVs == dst IVs on loops < depth and src < dst at loop `depth`."""
    ls = isl.LocalSpace.from_space(rel.get_space())
    for k in range(min(depth - 1, n_common)):
        c = isl.Constraint.equality_alloc(ls)
        c = c.set_coefficient_val(isl.dim_type.in_, k, 1).set_coefficient_val(isl.dim_type.out, k, -1)
        rel = rel.add_constraint(c)
    if depth <= n_common:
        c = isl.Constraint.inequality_alloc(ls)
        c = c.set_coefficient_val(isl.dim_type.out, depth - 1, 1)
        c = c.set_coefficient_val(isl.dim_type.in_, depth - 1, -1).set_constant_val(-1)
        rel = rel.add_constraint(c)
    # [symbols] -> { [s] -> [t] : s[:depth-1] = t[:depth-1] and s[depth-1] < t[depth-1] }
    return rel


def common_deltas(pairs: isl.Map, n_common: int) -> isl.Set:
    """`[symbols] -> { [t0 - s0, ..., t(c-1) - s(c-1)] }` over the pairs (common loops only).

    The order constraints of every depth only involve these differences, so emptiness and
    distance bounds per depth are asked on this small set instead of the full relation.
    """
    n_in, n_out = pairs.dim(isl.dim_type.in_), pairs.dim(isl.dim_type.out)
    common = pairs.project_out(isl.dim_type.in_, n_common, n_in - n_common)
    common = common.project_out(isl.dim_type.out, n_common, n_out - n_common)
    return common.deltas().coalesce()


def order_deltas(deltas: isl.Set, depth: int) -> isl.Set:
    """Deltas of pairs ordered at `depth`: zero on loops < depth, >= 1 at loop `depth`."""
    n = deltas.dim(isl.dim_type.set)
    ls = isl.LocalSpace.from_space(deltas.get_space())
    for k in range(min(depth - 1, n)):
        deltas = deltas.add_constraint(
            isl.Constraint.equality_alloc(ls).set_coefficient_val(isl.dim_type.set, k, 1))
    if depth <= n:
        c = isl.Constraint.inequality_alloc(ls).set_coefficient_val(isl.dim_type.set, depth - 1, 1)
        deltas = deltas.add_constraint(c.set_constant_val(-1))
    return deltas


def components_of(deltas: isl.Set) -> tuple[tuple[int | None, int | None], ...]:
    """(min, max) of each delta over the set (and over all symbol values)."""
    out = []
    ls = isl.LocalSpace.from_space(deltas.get_space())
    for k in range(deltas.dim(isl.dim_type.set)):
        obj = isl.Aff.var_on_domain(ls, isl.dim_type.set, k)
        out.append((val_to_int(deltas.min_val(obj)), val_to_int(deltas.max_val(obj))))
    return tuple(out)


def deltas_by_depth(deltas: isl.Set, depths: Sequence[int]) -> dict[int, isl.Set]:
    """`order_deltas(deltas, d)` for each wanted depth, built incrementally, empty ones left out.

    Fixing the outer deltas to 0 one loop at a time shares the work between depths, and once
    no pair is equal on the outer loops no deeper depth can have a dependence.
    """
    n = deltas.dim(isl.dim_type.set)
    ls = isl.LocalSpace.from_space(deltas.get_space())
    wanted = set(depths)
    out: dict[int, isl.Set] = {}
    equal = deltas  # pairs equal on loops < depth
    for depth in range(1, n + 2):
        if depth > max(wanted, default=0):
            break
        if depth == n + 1:
            if depth in wanted and not equal.is_empty():
                out[depth] = equal
            break
        if depth in wanted:
            c = isl.Constraint.inequality_alloc(ls).set_coefficient_val(isl.dim_type.set, depth - 1, 1)
            carried = equal.add_constraint(c.set_constant_val(-1))
            if not carried.is_empty():
                out[depth] = carried
        eq = isl.Constraint.equality_alloc(ls).set_coefficient_val(isl.dim_type.set, depth - 1, 1)
        equal = equal.add_constraint(eq)
        if equal.is_empty():
            break
    return out


def access_dependence(src: Access, dst: Access, depth: int,
                      cache: _Cache | None = None) -> Dependence | None:
    if src.memref is not dst.memref:
        return None
    loops = common_loops(src.op, dst.op)
    n = len(loops)
    if depth < 1 or depth > n + 1:
        raise ValueError(f"depth must be in 1..{n + 1} for ops with {n} common loops, got {depth}")
    if depth == n + 1 and not precedes(src.op, dst.op):
        return None
    pairs, deltas = (cache or _Cache()).pair_deltas(src, dst, n)
    if deltas is None:
        return None
    ordered = order_deltas(deltas, depth)
    if ordered.is_empty():
        return None
    return Dependence(src.op, dst.op, src.memref, kind_of(src.is_write, dst.is_write), depth,
                      tuple(loops), components_of(ordered), pairs, src.side, dst.side)


def dependence_list(src_op: Operation, dst_op: Operation, depth: int,
                    include_input: bool = True, cache: _Cache | None = None) -> list[Dependence]:
    """Every dependence between an access of `src_op` and one of `dst_op` at `depth`."""
    cache = cache or _Cache()
    out = []
    for sa in op_accesses(src_op):
        for da in op_accesses(dst_op):
            if sa.memref is not da.memref:
                continue
            if not include_input and not (sa.is_write or da.is_write):
                continue
            dep = access_dependence(sa, da, depth, cache)
            if dep is not None:
                out.append(dep)
    return out


def dependences(src_op: Operation, dst_op: Operation, depth: int) -> Dependence | None:
    """The dependence from `src_op` to `dst_op` first carried at loop `depth`, or None.

    `depth` is 1-based over the common loops (#common + 1 = loop-independent). When the ops
    have several accesses (DMA), the strongest kind found is returned (flow, anti, output,
    input); `dependence_list` gives all.
    """
    deps = dependence_list(src_op, dst_op, depth)
    if not deps:
        return None
    return min(deps, key=lambda d: KINDS.index(d.kind))


def all_dependences(roots: Iterable[Operation] | Operation, include_input: bool = False,
                    min_depth: int = 1) -> list[Dependence]:
    """Every dependence among accesses nested in `roots`, at every depth >= `min_depth`."""
    roots = [roots] if isinstance(roots, Operation) else list(roots)
    accs = [a for r in roots for op in r.walk() for a in op_accesses(op)]
    cache = _Cache()
    out: list[Dependence] = []
    for sa in accs:
        for da in accs:
            if sa.memref is not da.memref or not (include_input or sa.is_write or da.is_write):
                continue
            loops = tuple(common_loops(sa.op, da.op))
            n = len(loops)
            depths = [d for d in range(min_depth, n + 2)
                      if d <= n or precedes(sa.op, da.op)]
            if not depths:
                continue
            base = pair_relation(sa, da, cache)
            if base.is_empty():
                continue
            by_depth = deltas_by_depth(common_deltas(base, n), depths)
            for depth in sorted(by_depth):
                out.append(Dependence(sa.op, da.op, sa.memref, kind_of(sa.is_write, da.is_write),
                                      depth, loops, components_of(by_depth[depth]), base,
                                      sa.side, da.side))
    return out


def loop_depth(loop: AffineForOp) -> int:
    """1-based depth of a loop: 1 for an outermost loop."""
    return len(enclosing_loops(loop)) + 1

