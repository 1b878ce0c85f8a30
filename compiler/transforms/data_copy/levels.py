"""What copies between two inner levels of a memory hierarchy need beyond the two-level case.

`affine-data-copy-generate slow-mem-space=1 fast-mem-space=2` after a `0 -> 1` run copies
tiles of the level-1 buffers (a tile of level 2 is a partition of level 1's tile):

- a loop that allocates a buffer of the slow space is not a place for copies of it (its
  copies can only go below the alloc), so the pass recurses into it (`allocates_slow_buffer`);
- the DMA nests of the level above are copies, not computation: they are never copied again
  (`is_dma_nest`);
- exact partial tiles: where the level above holds a partial tile, the buffer's box is
  larger than what was filled; the copies are clipped to the exact upper bound of the
  accessed elements, a `min` of affine functions of the outer IVs proven equal to isl's
  parametric maximum (`exact_uppers`). Only buffers allocated in the function get this
  clipping: the copies of function arguments stay as in the two-level pass.
"""

from __future__ import annotations

import islpy as isl

from compiler.analysis.isl_bridge import AnalysisError, aff_to_index_expr
from compiler.analysis.region import MemRefRegion
from compiler.ir.builder import IndexExpr
from compiler.ir.core import BlockArgument, Operation
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineLoadOp,
    AffineStoreOp,
    AllocOp,
)


def is_dma_nest(op: Operation) -> bool:
    """A loop nest of DMA starts/waits (and index ops), no load or store: a copy."""
    if not isinstance(op, AffineForOp):
        return False
    dma = False
    for o in op.walk():
        if isinstance(o, AffineLoadOp | AffineStoreOp):
            return False
        dma = dma or isinstance(o, AffineDmaStartOp | AffineDmaWaitOp)
    return dma


def allocates_slow_buffer(loop: AffineForOp, slow_space: int) -> bool:
    """Whether `loop` allocates a `slow_space` buffer that loads or stores inside it use."""
    allocated = {id(o.result) for o in loop.walk()
                 if isinstance(o, AllocOp) and o.memref_type.memory_space == slow_space}
    if not allocated:
        return False
    return any(isinstance(o, AffineLoadOp | AffineStoreOp) and id(o.memref) in allocated
               for o in loop.walk())


def exact_uppers(region: MemRefRegion, box: isl.Set
                 ) -> tuple[tuple[tuple[IndexExpr, ...], ...], isl.Set]:
    """Per dim, the exclusive upper bounds to add to the copies of `region` (empty where the
    box's own clipping is already exact), and `box` clipped by them. Nothing for a function
    argument or where the maximum is not a min of affine functions."""
    if isinstance(region.memref, BlockArgument) or not region.rank:
        return (), box
    ex = region.exact
    names = {ex.get_dim_name(isl.dim_type.param, k): v for k, v in enumerate(region.params)}
    rank = region.rank
    out: list[tuple[IndexExpr, ...]] = []
    his: list[isl.PwAff] = []
    for d in range(rank):
        # [params] -> { M[a_d] }
        proj = ex.project_out(isl.dim_type.set, d + 1, rank - d - 1).project_out(isl.dim_type.set, 0, d)
        if proj.is_empty():
            out.append(())
            his.append(region.box_upper.get_pw_aff(d))
            continue
        hi = proj.dim_max(0).coalesce()
        his.append(hi)
        out.append(_as_min(proj, hi, box, d, names))
    if not any(out):
        return (), box
    lst = isl.PwAffList.alloc(ex.get_ctx(), rank)
    for d in range(rank):
        lst = lst.add(his[d] if out[d] else region.box_upper.get_pw_aff(d))
    mpa = isl.MultiPwAff.from_pw_aff_list(ex.get_space(), lst)
    return tuple(out), box.upper_bound_multi_pw_aff(mpa)


def _as_min(proj: isl.Set, hi: isl.PwAff, box: isl.Set, d: int, names: dict
            ) -> tuple[IndexExpr, ...]:
    """`hi` (inclusive maximum along dim d of `proj`, `[params] -> { M[a_d] }`) as exclusive
    bounds `e + 1` whose min equals it on its domain, when the box's largest index can exceed
    it; else (). The candidates are the set's own upper-bound constraints `a_d <= e(params)`."""
    dom = hi.domain()
    # [params] -> { [max index of the box along d] }
    box_hi = box.project_out(isl.dim_type.set, d + 1, box.dim(isl.dim_type.set) - d - 1) \
        .project_out(isl.dim_type.set, 0, d).dim_max(0)
    if box_hi.le_set(hi).intersect(dom).is_equal(dom):
        return ()                        # the box never passes the accessed maximum
    cands: list[isl.Aff] = []
    for bset in proj.get_basic_sets():
        for c in bset.get_constraints():
            if c.get_coefficient_val(isl.dim_type.set, 0).to_python() != -1:
                continue
            try:
                aff = c.get_bound(isl.dim_type.set, 0)
            except isl.Error:
                continue
            if aff.dim(isl.dim_type.div) == 0:
                cands.append(aff)
    # every candidate is >= hi: their min equals hi where, at each parameter value, one of
    # them does (a union of the candidates' equality sets, not a min of pieces that doubles
    # with each candidate: seconds of isl on a tile of a tile)
    cover: isl.Set | None = None
    valid: list[isl.Aff] = []
    for a in _distinct(cands):
        pa = isl.PwAff.from_aff(_params_only(a)).intersect_domain(dom)
        if not hi.le_set(pa).is_equal(dom):
            continue                     # not an upper bound for every parameter value
        valid.append(a)
        eq = pa.eq_set(hi)
        cover = eq if cover is None else cover.union(eq)
    if cover is None or not dom.is_subset(cover):
        return ()
    try:
        return tuple(aff_to_index_expr(_params_only(a), names) + 1 for a in valid)
    except (AnalysisError, KeyError):
        return ()


def _params_only(aff: isl.Aff) -> isl.Aff:
    """A bound of a basic set's constraint lives on `[params] -> { [a_d] }` with a zero
    coefficient on a_d: the same function on the parameter space."""
    return aff.project_domain_on_params()


def _distinct(affs: list[isl.Aff]) -> list[isl.Aff]:
    seen: set[str] = set()
    out = []
    for a in affs:
        if str(a) not in seen:
            seen.add(str(a))
            out.append(a)
    return out
