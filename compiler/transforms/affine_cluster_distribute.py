"""`affine-cluster-distribute`: the work of one compute cluster (`cluster=k` of `clusters=N`).

Every top-level nest of a function whose outer loops are parallel — an `affine.parallel`
(first turned into a perfect nest of `affine.for`s, one per dimension), or `affine.for`s the
dependence analysis proves carry no dependence (`compiler.analysis.legality.is_parallel`) —
keeps only cluster k's share of their iterations; the rest of the program is unchanged.
Run with k = 0 .. N-1, the N programs together execute every iteration of the distributed
loops exactly once (tests check the union on the host against the original).

Distributions (`distribution=`), of chunks of `chunk` iterations (a tile's worth: the
accelerator pipeline passes its tile size) of the outermost parallel loop, or of the two
outermost for `block2d`:
- `block`: chunks [k*C/N, (k+1)*C/N) of the C chunks (uneven splits differ by one chunk);
- `cyclic`: chunks k, k+N, k+2N, ..., each chunk a nest of its own (a copy of the nest over
  that chunk: the tiles and copies of the passes downstream stay within a chunk, so no copy's
  box reaches the rows of another cluster in between; chunks of one iteration, when a cluster
  would get more than `CYCLIC_NESTS` of them, one loop of step N instead);
- `block2d`: an R x S grid of clusters (R*S = N, R the largest divisor <= sqrt N), cluster k
  at (k // S, k % S) takes block k // S of R along the outer loop and k % S of S along the
  second. With one parallel loop it is `block`.
Loops need constant bounds and step 1 to be distributed, and a loop of one iteration (a
batch of one) is passed over for the next parallel loop of the band; a top-level loop of
one iteration holding several nests is replaced by its body first (its nests are
distributed, with barriers between them); a nest that is not parallel (or
not constant) runs whole on cluster 0 only, with a remark. A nest whose share is empty is
removed from the cluster's program.

Barriers: between two top-level nests where the later one reads or writes a memref an
earlier one writes, or writes a memref an earlier one reads, an
`"accel.barrier"() : () -> ()` op (generic form, kept opaque by every pass): each cluster
waits there until every cluster has reached it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from compiler.analysis.legality import is_parallel
from compiler.diagnostics import OptionError
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Operation
from compiler.ir.ops import AffineForOp, AffineYieldOp, FuncOp, ModuleOp
from compiler.ir.ops.affine_parallel import AffineParallelOp
from compiler.ir.ops.opaque import BARRIER_OP, OpaqueOp
from compiler.ir.types import MemRefType
from compiler.transforms.pass_base import Pass
from compiler.transforms.rewrite.promote import promote_if_single_iteration

DISTRIBUTIONS = ("block", "cyclic", "block2d")
BARRIER = BARRIER_OP


@dataclass(frozen=True)
class Options:
    clusters: int = 1
    cluster: int = 0
    distribution: str = "block"
    chunk: int = 1


class AffineClusterDistributePass(Pass):
    name = "affine-cluster-distribute"
    summary = "keep one cluster's share of every parallel top-level nest; barriers between nests"
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        o = self.options
        if o.clusters < 1:
            raise OptionError(f"{self.name}: clusters = {o.clusters}: must be >= 1")
        if not 0 <= o.cluster < o.clusters:
            raise OptionError(f"{self.name}: cluster = {o.cluster}: must be in [0, {o.clusters - 1}]")
        if o.distribution not in DISTRIBUTIONS:
            raise OptionError(f"{self.name}: distribution = {o.distribution!r}: must be one of "
                              f"{', '.join(DISTRIBUTIONS)}")
        if o.chunk < 1:
            raise OptionError(f"{self.name}: chunk = {o.chunk}: must be >= 1")
        for f in module.funcs:
            if not f.is_declaration and not _is_kernel(f):
                self._function(f)

    def _function(self, f: FuncOp) -> None:
        o = self.options
        if o.clusters > 1:  # a top-level loop run once holding several nests: those nests
            for op in list(f.body.ops):  # are the top level (jacobi-2d's time loop, T = 2)
                if isinstance(op, AffineForOp) and _nests_inside(op) > 1:
                    promote_if_single_iteration(op)
        nests = [op for op in f.body.ops if isinstance(op, AffineForOp | AffineParallelOp)]
        written: set[object] = set()
        used: set[object] = set()      # read or written by an earlier nest
        for nest in nests:
            if isinstance(nest, AffineParallelOp):
                nest = _as_for_nest(nest)
            touched, writes = _memrefs(nest)
            # true and output dependences (touches what an earlier nest writes) and
            # anti-dependences (writes what an earlier nest reads): another cluster may still
            # be reading it
            if o.clusters > 1 and (touched & written or writes & used):
                f.body.insert_before(nest, OpaqueOp(BARRIER, loc=nest.loc))
            written |= writes
            used |= touched
            loops = _parallel_loops(nest)
            if not loops:
                self.remark(nest.loc, "the nest's outer loop is not parallel (or its bounds are "
                            "not constant): it runs whole on cluster 0")
                if o.cluster != 0:
                    nest.erase()
                continue
            if o.clusters == 1:
                continue
            if o.distribution == "block2d" and len(loops) >= 2:
                rows = max(r for r in range(1, o.clusters + 1)
                           if r * r <= o.clusters and o.clusters % r == 0)
                cols = o.clusters // rows
                keep = _block(loops[0], rows, o.cluster // cols, o.chunk) \
                    and _block(loops[1], cols, o.cluster % cols, o.chunk)
            elif o.distribution == "cyclic":
                keep = _cyclic(nest, loops[0], o.clusters, o.cluster, o.chunk)
            else:
                keep = _block(loops[0], o.clusters, o.cluster, o.chunk)
            if not keep:
                nest.erase()


def _nests_inside(lp: AffineForOp) -> int:
    return sum(isinstance(op, AffineForOp | AffineParallelOp) for op in lp.body.ops)


def _is_kernel(f: FuncOp) -> bool:
    return bool(f.private)


def _parallel_loops(nest: AffineForOp) -> list[AffineForOp]:
    """The outer loops of the perfect band at `nest` that are parallel with constant bounds
    and step 1, outermost first (at most two). A loop of one iteration (a batch of one) is
    passed over: split, it would leave clusters without work; a band of nothing else gives
    its outermost."""
    out: list[AffineForOp] = []
    single: list[AffineForOp] = []
    lp: Operation = nest
    while isinstance(lp, AffineForOp) and len(out) < 2:
        if lp.step != 1 or lp.constant_lower is None or lp.constant_upper is None \
                or lp.inits or not is_parallel(lp):
            break
        (out if lp.constant_upper - lp.constant_lower > 1 else single).append(lp)
        body = [op for op in lp.body.ops if not isinstance(op, AffineYieldOp)]
        if len(body) != 1:
            break
        lp = body[0]
    return out or single[:1]


def distributed_loop(nest: Operation) -> tuple[int, int, int] | None:
    """The loop of the top-level `nest` that `block` and `cyclic` split: its depth in the
    nest's band and its constant bounds; None for a nest that is not distributed (or an
    `affine.parallel`, which the pass first turns into loops)."""
    if not isinstance(nest, AffineForOp):
        return None
    loops = _parallel_loops(nest)
    if not loops:
        return None
    depth, lp = 0, loops[0]
    parent = lp.parent_op
    while parent is not None and parent is not nest.parent_op:
        depth += 1
        parent = parent.parent_op
    lo, hi = _bounds(lp)
    return depth, lo, hi


def _bounds(lp: AffineForOp) -> tuple[int, int]:
    lo, hi = lp.constant_lower, lp.constant_upper
    assert lo is not None and hi is not None
    return lo, hi


def _block(lp: AffineForOp, parts: int, k: int, chunk: int) -> bool:
    """Keep block `k` of `parts` of `lp`'s chunks; False when it is empty."""
    lo, hi = _bounds(lp)
    chunks = math.ceil(max(hi - lo, 0) / chunk)
    a, b = k * chunks // parts, (k + 1) * chunks // parts
    new_lo, new_hi = lo + a * chunk, min(lo + b * chunk, hi)
    if new_lo >= new_hi:
        return False
    lp.set_lower_bound(AffineMap.constant(new_lo), [])
    lp.set_upper_bound(AffineMap.constant(new_hi), [])
    return True


# chunks of one iteration: at most this many nests per cluster, else one strided loop
CYCLIC_NESTS = 64


def _cyclic(nest: AffineForOp, lp: AffineForOp, parts: int, k: int, chunk: int) -> bool:
    """Keep chunks k, k + parts, ... of `lp` (a loop of the top-level `nest`); False when
    none is left. Every chunk is a nest of its own (with chunk 1 and more than `CYCLIC_NESTS`
    chunks, the loop's step becomes `parts` instead: a strided loop, whose copies' boxes span
    the rows of the other clusters in between), a copy of `nest` whose `lp` runs over that
    chunk alone (constant bounds): a tile or a copy of the passes downstream then never spans
    two chunks, so its box (a copy's bounding box) holds no row of another cluster between
    them. (One loop over the chunks would let the tiler tile across chunks and the copy pass
    hoist a copy above it, a box over the rows in between: a copy-out writing back what other
    clusters wrote.)"""
    lo, hi = _bounds(lp)
    starts = range(lo + k * chunk, hi, parts * chunk)
    if not starts:
        return False
    if chunk == 1 and len(starts) > CYCLIC_NESTS:
        lp.set_lower_bound(AffineMap.constant(starts[0]), [])
        lp.step = parts
        return True
    block = nest.parent_block
    assert block is not None
    at = next(n for n, op in enumerate(nest.walk()) if op is lp)
    for start in starts:
        copy = nest.clone()
        block.insert_before(nest, copy)
        inner = next(op for n, op in enumerate(copy.walk()) if n == at)
        assert isinstance(inner, AffineForOp)
        inner.set_lower_bound(AffineMap.constant(start), [])
        inner.set_upper_bound(AffineMap.constant(min(start + chunk, hi)), [])
    nest.erase()
    return True


def _as_for_nest(par: AffineParallelOp) -> AffineForOp:
    """`affine.parallel` as a perfect nest of `affine.for`s in its place (same bounds and
    steps, one loop per dimension); the outermost."""
    if par.results:
        raise OptionError(f"affine-cluster-distribute: affine.parallel at {par.loc} with "
                          "reductions is not distributed (no cross-cluster reduction yet)")
    block = par.parent_block
    assert block is not None
    lower_ops, upper_ops = par.lower_operands, par.upper_operands
    loops: list[AffineForOp] = []
    for d, step in enumerate(par.steps):
        lp = AffineForOp(par.bound("lower", d), lower_ops, par.bound("upper", d), upper_ops,
                         step=step, loc=par.loc, iv_name=par.ivs[d].name_hint)
        if loops:
            loops[-1].body.append(lp)
        else:
            block.insert_before(par, lp)
        loops.append(lp)
    for lp in loops[:-1]:
        lp.body.append(AffineYieldOp(loc=par.loc))
    inner = loops[-1]
    for op in list(par.body.ops):
        op.detach()
        if isinstance(op, AffineYieldOp) or op.NAME == "affine.yield":
            continue
        inner.body.append(op)
    inner.body.append(AffineYieldOp(loc=par.loc))
    for d, iv in enumerate(par.ivs):
        for op in inner.walk():
            op.replace_uses_of(iv, loops[d].iv)
    par.erase()
    return loops[0]


def _memrefs(nest: Operation) -> tuple[set[object], set[object]]:
    """(memrefs the nest reads or writes, memrefs it writes), by value."""
    from compiler.ir import ops as O

    touched: set[object] = set()
    writes: set[object] = set()
    for op in nest.walk():
        if isinstance(op, O.AffineStoreOp):
            writes.add(op.memref)
        for v in op.operands:
            if isinstance(v.type, MemRefType):
                touched.add(v)
    return touched, writes
