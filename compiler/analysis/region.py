"""Memory regions: the elements of each memref touched by a sequence of ops, and their box.

The region is parameterized by the IVs of the loops enclosing the ops' block (or only the
loops the caller names, the others projected out) and by the function's symbols, so a copy
generated at that depth can use its bounding box directly: per dimension a lower bound that
is an affine function of those values and, where one exists, a constant extent (the maximum
over all parameter values of `max - lower + 1`).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import islpy as isl

from compiler.analysis.access import accesses_in, is_exact_side, relation_in_frame
from compiler.analysis.domain import domain_in_frame, enclosing_loops
from compiler.analysis.isl_bridge import (
    CTX,
    AnalysisError,
    Frame,
    _val,
    aff_to_index_expr,
    isl_name,
    pw_single_aff,
    val_to_int,
)
from compiler.ir.builder import IndexExpr
from compiler.ir.core import BlockArgument, Operation, Value
from compiler.ir.ops import AffineForOp
from compiler.ir.types import MemRefType


@dataclass(frozen=True, slots=True)
class MemRefRegion:
    """Elements of `memref` accessed inside some ops, as a function of the outer IVs/symbols.

    `exact` and `written_set` live in `[params] -> { M[a0, ...] }`. `lower[d]` and
    `extents[d]` describe the bounding box (`symbolic_extents[d]` when the extent is an
    affine function of symbols instead of a constant); `box` is that box as an isl set and
    `clipped[d]` says whether the box can leave the memref's shape along dim d (a partial
    tile: the copy must then be clipped with `min(lower + extent, size)`, see `clipped_box`
    and `upper_bounds`). `exact_ranges` is False when a DMA side's transferred range could
    not be modelled (only its start element is in `exact`).
    """

    memref: Value
    read: bool
    written: bool
    exact: isl.Set
    written_set: isl.Set
    params: tuple[Value, ...]
    lower: tuple[IndexExpr, ...]
    extents: tuple[int | None, ...]
    symbolic_extents: tuple[IndexExpr | None, ...]
    box_lower: isl.MultiPwAff  # per dim: lower bound as a function of the parameters
    box_upper: isl.MultiPwAff  # per dim: inclusive upper bound (lower + extent - 1 if constant)
    clipped: tuple[bool, ...]
    exact_ranges: bool = True

    @property
    def box(self) -> isl.Set:
        """`[params] -> { M[a] : lower <= a <= upper }` (built on demand: most callers only
        need `lower`/`extents`)."""
        box = isl.Set.universe(self.exact.get_space())
        if self.rank:
            box = box.lower_bound_multi_pw_aff(self.box_lower).upper_bound_multi_pw_aff(self.box_upper)
        return box.intersect_params(self.exact.params())

    @property
    def clipped_box(self) -> isl.Set:
        """The box intersected with the memref's shape (what a copy may touch)."""
        mt = self.memref.type
        assert isinstance(mt, MemRefType)
        return self.box.intersect(_shape_set(self.exact.get_space(), mt))

    @property
    def rank(self) -> int:
        return len(self.lower)

    @property
    def element_bytes(self) -> int:
        mt = self.memref.type
        assert isinstance(mt, MemRefType)
        return mt.element.byte_width

    @property
    def num_elements(self) -> int | None:
        """Elements in the bounding box (an upper bound on the exact set's size)."""
        if any(e is None for e in self.extents):
            return None
        return math.prod(self.extents)  # type: ignore[arg-type]

    def size_bytes(self) -> int | None:
        n = self.num_elements
        return None if n is None else n * self.element_bytes

    @property
    def is_clipped(self) -> bool:
        return any(self.clipped)

    def upper_bounds(self, d: int) -> list[IndexExpr]:
        """Exclusive upper bounds of the clipped box along dim d; their min is the bound."""
        ext = self.extents[d]
        if ext is None:
            raise ValueError(f"dim {d} of the region of %{self.memref.name_hint} has no constant extent")
        ubs = [self.lower[d] + ext]
        mt = self.memref.type
        assert isinstance(mt, MemRefType)
        if self.clipped[d] and mt.shape[d] is not None:
            ubs.append(IndexExpr.of(int(mt.shape[d])))  # type: ignore[arg-type]
        return ubs


def _block_of(ops: Sequence[Operation]) -> None:
    if not ops:
        raise ValueError("memref_regions needs at least one op")
    blk = ops[0].parent_block
    for op in ops:
        if op.parent_block is not blk:
            raise ValueError(f"{op.NAME} at {op.loc} is not in the block of the first op")


def _to_params(obj, dim_type, positions: list[int]):  # type: ignore[no-untyped-def]
    """Move the given dims (ascending positions) to the end of the parameters."""
    for pos in sorted(positions, reverse=True):
        obj = obj.move_dims(isl.dim_type.param, obj.dim(isl.dim_type.param), dim_type, pos, 1)
    return obj


def region_context(ops: Sequence[Operation], param_loops: Sequence[AffineForOp]) -> tuple[isl.Set, Frame]:
    """Constraints on the parameters: the outer loops' domain (and ifs) around the block."""
    outer = enclosing_loops(ops[0])
    frame = Frame([lp.iv for lp in outer])
    dom = domain_in_frame(ops[0], frame)
    keep = [k for k, lp in enumerate(outer) if any(lp is p for p in param_loops)]
    dom = _to_params(dom, isl.dim_type.set, keep)
    # [symbols, outer IVs] -> { [other outer IVs] }  ->  params only
    return dom.params(), frame


def memref_regions(ops: Sequence[Operation],
                   depth_ops: Sequence[AffineForOp] | None = None) -> dict[Value, MemRefRegion]:
    """Every memref accessed inside `ops` (consecutive ops of one block, nested included).

    Parameters are the IVs of the loops enclosing that block (only `depth_ops` when given;
    the other IVs are projected out) and the symbols.
    """
    _block_of(ops)
    outer = enclosing_loops(ops[0])
    param_loops = list(outer) if depth_ops is None else list(depth_ops)
    for lp in param_loops:
        if not any(lp is o for o in outer):
            raise ValueError(f"depth op {lp.NAME} at {lp.loc} does not enclose the ops")
    n_outer = len(outer)
    keep = [k for k, lp in enumerate(outer) if any(lp is p for p in param_loops)]
    ctx, ctx_frame = region_context(ops, param_loops)
    names: dict[str, Value] = {isl_name(lp.iv): lp.iv for lp in outer}
    names.update(ctx_frame.params)

    reads: dict[int, isl.Set] = {}
    writes: dict[int, isl.Set] = {}
    memrefs: dict[int, Value] = {}
    exact_ranges: dict[int, bool] = {}
    frames: dict[int, tuple[Frame, isl.Set]] = {}
    for root in ops:
        for acc in accesses_in(root):
            fk = id(acc.op.parent_block)  # same block: same loops and ifs, same domain
            if fk not in frames:
                frame = Frame([lp.iv for lp in enclosing_loops(acc.op)])
                frames[fk] = (frame, domain_in_frame(acc.op, frame))
            frame, dom = frames[fk]
            rel = relation_in_frame(acc.op, acc.side, frame, dom)
            names.update(frame.params)
            # [symbols] -> { [outer IVs, inner IVs] -> M[a] }
            rel = _to_params(rel, isl.dim_type.in_, [k for k in keep if k < n_outer])
            # [symbols, kept outer IVs] -> { [other IVs] -> M[a] }
            elems = rel.range()
            # [symbols, kept outer IVs] -> { M[a] }
            key = id(acc.memref)
            memrefs[key] = acc.memref
            table = writes if acc.is_write else reads
            table[key] = elems if key not in table else table[key].union(elems)
            if acc.side in ("src", "dst"):
                exact_ranges[key] = exact_ranges.get(key, True) and is_exact_side(acc.op, acc.side)

    out: dict[Value, MemRefRegion] = {}
    for key, memref in memrefs.items():
        r, w = reads.get(key), writes.get(key)
        parts = [s for s in (r, w) if s is not None]
        exact = parts[0] if len(parts) == 1 else parts[0].union(parts[1])
        exact = exact.intersect_params(ctx).coalesce()
        if w is not None:
            written = w.intersect_params(ctx).coalesce()
        else:
            written = isl.Set.empty(exact.get_space())
        out[memref] = _make_region(memref, r is not None, w is not None, exact, written, names,
                                   exact_ranges.get(key, True))
    return out


def _make_region(memref: Value, read: bool, written: bool, exact: isl.Set, written_set: isl.Set,
                 names: dict[str, Value], exact_ranges: bool) -> MemRefRegion:
    mt = memref.type
    assert isinstance(mt, MemRefType)
    exact, written_set = _canonical_params(exact, written_set, names)
    space = exact.get_space()
    rank = exact.dim(isl.dim_type.set)
    params = tuple(names[exact.get_dim_name(isl.dim_type.param, k)]
                   for k in range(exact.dim(isl.dim_type.param)))
    lowers: list[IndexExpr] = []
    extents: list[int | None] = []
    sym_extents: list[IndexExpr | None] = []
    lo_list = isl.PwAffList.alloc(CTX, rank)
    hi_list = isl.PwAffList.alloc(CTX, rank)
    for d in range(rank):
        lo_pw, hi_pw, lo_ie, ext, sym = _dim_box(exact, d, names)
        lowers.append(lo_ie)
        extents.append(ext)
        sym_extents.append(sym)
        lo_list = lo_list.add(lo_pw)
        hi_list = hi_list.add(hi_pw)
    # [params] -> { M[a] : lower(params) <= a <= lower(params) + extent - 1 }, per dim
    box_lower = isl.MultiPwAff.from_pw_aff_list(space, lo_list)
    box_upper = isl.MultiPwAff.from_pw_aff_list(space, hi_list)
    clipped: list[bool] = []
    for d, size in enumerate(mt.shape):
        clipped.append(_leaves(d, lo_list.get_at(d), hi_list.get_at(d), size, space,
                               box_lower, box_upper, exact))
    return MemRefRegion(memref, read, written, exact, written_set, params, tuple(lowers),
                        tuple(extents), tuple(sym_extents), box_lower, box_upper,
                        tuple(clipped), exact_ranges)


def _shape_set(space: isl.Space, mt: MemRefType) -> isl.Set:
    """`{ M[a] : 0 <= a_d < shape_d }` (dynamic extents only bounded below)."""
    shape = isl.Set.universe(space)
    for d, size in enumerate(mt.shape):
        shape = shape.lower_bound_val(isl.dim_type.set, d, _val(0))
        if size is not None:
            shape = shape.upper_bound_val(isl.dim_type.set, d, _val(int(size) - 1))
    return shape


def _leaves(d: int, lo: isl.PwAff, hi: isl.PwAff, size: int | None, space: isl.Space,
            box_lower: isl.MultiPwAff, box_upper: isl.MultiPwAff, exact: isl.Set) -> bool:
    """Whether the box's [lo, hi] along this dim can leave [0, size) for some parameter value."""
    try:
        low, high = lo.min_val(), hi.max_val()
    except isl.Error:  # quasi-affine bounds: ask the sets instead
        box = isl.Set.universe(space).lower_bound_multi_pw_aff(box_lower)
        box = box.upper_bound_multi_pw_aff(box_upper).intersect_params(exact.params())
        along = isl.Set.universe(space).lower_bound_val(isl.dim_type.set, d, _val(0))
        if size is not None:
            along = along.upper_bound_val(isl.dim_type.set, d, _val(int(size) - 1))
        return not box.subtract(along).is_empty()
    if low.is_neginfty() or (low.is_int() and low.is_neg()):
        return True
    if size is None:
        return False
    return high.is_infty() or (high.is_int() and val_to_int(high) >= size)  # type: ignore[operator]


def _canonical_params(exact: isl.Set, written: isl.Set, names: dict[str, Value]
                      ) -> tuple[isl.Set, isl.Set]:
    """Order the parameters: loop IVs outer -> inner first, then symbols, by first appearance."""
    found = [exact.get_dim_name(isl.dim_type.param, k) for k in range(exact.dim(isl.dim_type.param))]
    found += [n for n in (written.get_dim_name(isl.dim_type.param, k)
                          for k in range(written.dim(isl.dim_type.param))) if n not in found]
    order = list(names)  # insertion order: outer IVs first (outer -> inner), then symbols
    ivs = [n for n in order if n in found and _is_loop_iv(names[n])]
    rest = [n for n in found if n not in ivs]
    model = isl.Space.create_from_names(CTX, set=[], params=ivs + rest).params()
    return exact.align_params(model), written.align_params(model)


def _is_loop_iv(v: Value) -> bool:
    return isinstance(v, BlockArgument) and isinstance(v.block.parent_op, AffineForOp)


HULL_OPERATIONS = 400_000   # isl's operation budget of one convex hull (~0.2 s)


def _unit_bounds(bsets: Sequence[isl.BasicSet], seen: set[str]) -> list[isl.Aff]:
    """The unit lower-bound constraints of `bsets` without existentials, not in `seen`."""
    cands: list[isl.Aff] = []
    for bset in bsets:
        for c in bset.get_constraints():
            coef = c.get_coefficient_val(isl.dim_type.set, 0).to_python()
            if coef == 1 or (c.is_equality() and coef == -1):
                try:
                    aff = c.get_bound(isl.dim_type.set, 0)
                except isl.Error:  # the constraint involves an existential without a formula
                    continue
                key = str(aff)
                if aff.dim(isl.dim_type.div) == 0 and key not in seen:
                    seen.add(key)
                    cands.append(aff)
    return cands


def _convex_hull(proj: isl.Set, operations: int) -> isl.BasicSet | None:
    """The convex hull of the set without existentials within `operations` isl operations
    (the hull of several pieces in many parameters can take isl seconds: a tile of a tile of
    a strided nest, 8 parameters, 3.5 s a call), else None."""
    flat = proj.remove_divs()
    ctx = flat.get_ctx()
    ctx.set_max_operations(operations)
    ctx.reset_operations()
    try:
        return flat.convex_hull()
    except isl.Error:
        return None
    finally:
        ctx.set_max_operations(0)


def _simple_hull(proj: isl.Set) -> list[isl.BasicSet]:
    """The simple hull (the pieces' own constraint directions, valid for every piece: its
    bounds may be loose), when the convex hull is too costly."""
    with contextlib.suppress(isl.Error):
        return [proj.remove_divs().simple_hull()]
    return []


def _dim_box(exact: isl.Set, d: int, names: dict[str, Value]
             ) -> tuple[isl.PwAff, isl.PwAff, IndexExpr, int | None, IndexExpr | None]:
    """Lower bound (pw, IndexExpr), inclusive upper bound pw, constant and symbolic extent."""
    rank = exact.dim(isl.dim_type.set)
    # [params] -> { M[a_d] }
    proj = exact.project_out(isl.dim_type.set, d + 1, rank - d - 1).project_out(isl.dim_type.set, 0, d)
    if proj.is_empty():
        zero = isl.PwAff.val_on_domain(isl.Set.universe(proj.params().get_space()), _val(0))
        return zero, zero.add(_param_const(zero, -1)), IndexExpr.of(0), 0, None
    dom = proj.params()
    cache: dict[str, isl.PwAff] = {}

    def lo() -> isl.PwAff:
        if "lo" not in cache:
            cache["lo"] = proj.dim_min(0)
        return cache["lo"]

    def hi() -> isl.PwAff:
        if "hi" not in cache:
            cache["hi"] = proj.dim_max(0)
        return cache["hi"]

    best: tuple[tuple[int, int], isl.PwAff, isl.Aff, int | None] | None = None

    def consider(aff: isl.Aff) -> None:
        nonlocal best
        # The candidate as a parameter-only function (the basic-set bound lives on [x] -> []).
        cand = _param_aff(aff, dom)
        if cand is None:
            return
        try:
            slack, span = _slack_and_span(proj, cand, lo, hi)
        except isl.Error:  # isl's ILP wants integer affine objectives
            return
        if slack.is_neginfty() or slack.is_nan() or (slack.is_int() and slack.is_neg()):
            return  # not a lower bound for every parameter value
        ext = val_to_int(span)
        ext = None if ext is None else ext + 1
        key = (0 if ext is not None else 1,
               (ext or 0) * 2 + (1 if cand.dim(isl.dim_type.div) else 0))
        if best is None or key < best[0]:
            best = (key, cand, aff, ext)

    # Candidates: the unit lower bounds of the set's pieces, then of its convex hull (valid
    # for every piece). Past `HULL_OPERATIONS` isl operations the simple hull stands in for
    # the convex hull and `hull` is False: its bounds may be loose, so the pieces of the
    # exact minimum are weighed too. A costly hull is not computed when a piece's own bound
    # already gives the smallest extent any box has (`_tightest`) and starts at or above the
    # region's smallest coordinate: the hull's candidates come after the pieces' and could
    # not beat it (the same box as with the hull, without seconds of isl).
    seen: set[str] = set()
    cands = _unit_bounds(list(proj.get_basic_sets()), seen)
    n_par = proj.dim(isl.dim_type.param)
    floor_cache: list[int | None] = []

    def floor() -> int | None:
        if not floor_cache:
            floor_cache.append(val_to_int(
                proj.move_dims(isl.dim_type.set, 0, isl.dim_type.param, 0, n_par).dim_min_val(n_par)))
        return floor_cache[0]

    for aff in cands:
        consider(aff)
    hull = True
    if best is not None and _tightest(proj, best) and _not_below(best[1], floor):
        cands = []
    else:
        convex = _convex_hull(proj, HULL_OPERATIONS)
        if convex is not None:   # the pieces' candidates are weighed already
            cands = _unit_bounds([convex], seen)
        else:   # all again, none below the floor
            hull, best = False, None
            cands = cands + _unit_bounds(_simple_hull(proj), seen)
    floor_val: int | None = None
    if not hull:
        # the simple hull's bounds can be loose enough to reach below every coordinate the
        # region has (below 0: a copy out of the memref): the box never starts below them
        floor_val = floor()
        inner = consider

        def consider(aff: isl.Aff) -> None:
            cand = _param_aff(aff, dom)
            if cand is None or floor_val is None:
                return
            try:
                low_c = val_to_int(cand.min_val())
            except isl.Error:  # a candidate with rational coefficients: isl's ILP refuses it
                return
            if low_c is not None and low_c >= floor_val:
                inner(aff)

    for aff in cands:
        consider(aff)
    # The pieces of the exact (parametric) minimum: needed when the set's constraints bound
    # the dim only through existentials (DMA ranges, mod/floordiv), or when the hull was too
    # costly (the simple hull's bounds may be loose), skipped when a unit constraint already
    # gives the tightest box (its extent equals the widest single span).
    if best is None or best[3] is None or not hull or _needs_pieces(proj):
        for piece_dom, aff in lo().get_pieces():
            consider(aff.gist(piece_dom))
    if floor_val is not None:
        # and the smallest coordinate over all parameter values: the simple hull's bounds
        # can be loose enough that a constant makes the smaller box
        const = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(dom.get_space()))
        consider(const.set_constant_val(_val(floor_val)))
    if best is None:
        # Last resort: the smallest coordinate over all parameter values, if bounded.
        low = val_to_int(lo().min_val())
        if low is not None:
            cand = isl.PwAff.val_on_domain(dom, _val(low))
            span = val_to_int(hi().max_val())
            ext = None if span is None else span - low + 1
            best = ((0, 0), cand, None, ext)  # type: ignore[assignment]
    if best is None:
        raise AnalysisError(f"no affine lower bound for dim {d} of region {exact}")
    _, cand, _, ext = best
    single = pw_single_aff(cand)
    assert single is not None
    lo_ie = aff_to_index_expr(single, names)
    sym: IndexExpr | None = None
    if ext is None:
        diff = pw_single_aff(hi().sub(cand).coalesce())
        if diff is not None and diff.dim(isl.dim_type.div) == 0:
            sym = aff_to_index_expr(diff, names) + 1
    upper = hi() if ext is None else cand.add(_param_const(cand, ext - 1))
    return cand, upper, lo_ie, ext, sym


def _tightest(proj: isl.Set, best: tuple[tuple[int, int], isl.PwAff, isl.Aff, int | None]) -> bool:
    """Whether the candidate's key is the smallest any lower bound can have: a constant
    extent `ext` without existentials that the region spans at some parameter value (no
    lower bound can make a smaller box). Checked at one point where `a - cand` reaches
    `ext - 1`: the region holds `cand` there too (False when that point does not show it)."""
    (kind, key), cand, _, ext = best
    if kind != 0 or ext is None or key != 2 * ext:
        return False
    if ext == 1:
        return True
    got = _objective(proj, cand)
    if got is None:
        return False
    full, obj = got
    n_par = proj.dim(isl.dim_type.param)
    top = obj.eq_set(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(full.get_space()))
                     .set_constant_val(_val(ext - 1)))
    at = full.intersect(top).sample_point()
    if at.is_void():
        return False
    a = at.get_coordinate_val(isl.dim_type.set, n_par).to_python()
    low = at.set_coordinate_val(isl.dim_type.set, n_par, _val(a - ext + 1))
    return isl.Set.from_point(low).is_subset(full)


def _not_below(cand: isl.PwAff, floor: Callable[[], int | None]) -> bool:
    """Whether `cand` never goes below the region's smallest coordinate (`floor()`)."""
    low_f = floor()
    if low_f is None:
        return False
    try:
        low_c = val_to_int(cand.min_val())
    except isl.Error:
        return False
    return low_c is not None and low_c >= low_f


def _needs_pieces(proj: isl.Set) -> bool:
    """Whether some constraint bounds the dim with a non-unit coefficient or through an
    existential: then the unit constraints may miss the tightest lower bound."""
    for bset in proj.get_basic_sets():
        n_div = bset.dim(isl.dim_type.div)
        for c in bset.get_constraints():
            coef = c.get_coefficient_val(isl.dim_type.set, 0).to_python()
            if coef == 0:
                continue
            if abs(coef) != 1 or (n_div and c.involves_dims(isl.dim_type.div, 0, n_div)):
                return True
    return False


def _slack_and_span(proj: isl.Set, cand: isl.PwAff, lo: Callable[[], isl.PwAff],
                    hi: Callable[[], isl.PwAff]) -> tuple[isl.Val, isl.Val]:
    """min and max over the region of `a - cand(params)`: >= 0 means a valid lower bound."""
    aff = pw_single_aff(cand)
    if aff is None or aff.dim(isl.dim_type.div) != 0:
        return lo().sub(cand).min_val(), hi().sub(cand).max_val()
    got = _objective(proj, cand)
    assert got is not None
    full, obj = got
    return full.min_val(obj), full.max_val(obj)


def _objective(proj: isl.Set, cand: isl.PwAff) -> tuple[isl.Set, isl.Aff] | None:
    """The region as `{ [params..., a] }` and `a - cand(params)` on it (None: `cand` is not
    one affine function without existentials)."""
    aff = pw_single_aff(cand)
    if aff is None or aff.dim(isl.dim_type.div) != 0:
        return None
    n_par = proj.dim(isl.dim_type.param)
    # [params] -> { [a] }  ->  { [params..., a] }
    full = proj.move_dims(isl.dim_type.set, 0, isl.dim_type.param, 0, n_par)
    obj = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(full.get_space()))
    obj = obj.set_coefficient_val(isl.dim_type.in_, n_par, _val(1))
    for k in range(aff.dim(isl.dim_type.param)):
        name = aff.get_dim_name(isl.dim_type.param, k)
        pos = proj.find_dim_by_name(isl.dim_type.param, name)
        coef = aff.get_coefficient_val(isl.dim_type.param, k)
        obj = obj.set_coefficient_val(isl.dim_type.in_, pos, coef.neg())
    obj = obj.set_constant_val(aff.get_constant_val().neg())
    return full, obj


def _param_const(like: isl.PwAff, n: int) -> isl.PwAff:
    return isl.PwAff.val_on_domain(like.domain(), _val(n))


def _param_aff(aff: isl.Aff, dom: isl.Set) -> isl.PwAff | None:
    """`aff` (over params, maybe with an unused set dim) as a PwAff on the parameter set `dom`."""
    n_in = aff.dim(isl.dim_type.in_)
    for k in range(n_in):
        if not aff.get_coefficient_val(isl.dim_type.in_, k).is_zero():
            return None
    if n_in or not aff.get_domain_space().is_params():
        aff = aff.project_domain_on_params()
    # [params] -> { [(f)] } on the parameter domain of the region's minimum
    return isl.PwAff.from_aff(aff).intersect_params(dom)
