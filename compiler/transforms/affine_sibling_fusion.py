"""`affine-sibling-fusion`: two adjacent perfect nests that read the same memref element at
the same iterations become one nest (the second interchanged where that lines the reads up),
so the element is read once.

    affine.for %i = 0 to 400 {                 affine.for %i = 0 to 400 {
      affine.for %j = 0 to 400 {                 affine.for %j = 0 to 400 {
        x1[i] += A[i][j] * y1[j]                   x1[i] += A[i][j] * y1[j]
    affine.for %k = 0 to 400 {          ->         x2[j] += A[i][j] * y2[i]
      affine.for %l = 0 to 400 {
        x2[k] += A[l][k] * y2[l]

(mvt: its second nest, interchanged, reads `A[i][j]` where the first does.) Not an upstream
mlir-opt pass: upstream's `affine-loop-fusion=mode=sibling` slices one nest into the other
without interchange. This project runs it first in the accelerator pipeline, so the tiles
that follow copy the shared memref once.

Candidates: adjacent nests (no op between them) of the same depth, each a perfect nest of
loops with constant bounds and no iter_args whose innermost body holds no region and no call,
and a permutation of the second nest's loops onto the first's with equal bounds and steps
under which some load of a memref in the second nest touches the same element as a load of
it in the first at every iteration (checked on the corners of the iteration box: this picks
the fusion; it does not decide legality). Legal only when provably so: the fused order (the
first nest's body, then the second's, in every iteration of the shared loops) must reverse
no dependence among the two nests' accesses, checked exactly by isl
(`analysis.tiling_order.tiled_order_violation` with both nests as statements under the shared
loops, tile size 1). The float operations of each output keep their order, so results are
bit-identical.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from compiler.analysis.isl_bridge import AnalysisError
from compiler.analysis.tiling_order import TiledStatement, TileGrid, tiled_order_violation
from compiler.diagnostics import Location
from compiler.ir.affine_eval import compile_map
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import AffineForOp, AffineLoadOp, CallOp, ModuleOp
from compiler.transforms.pass_base import Pass


@dataclass(frozen=True)
class Options:
    pass


class AffineSiblingFusionPass(Pass):
    name = "affine-sibling-fusion"
    summary = ("fuse adjacent perfect nests that read a memref element at the same iterations "
               "(interchanging the second where needed), when no dependence forbids it")
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if not func.is_declaration:
                for block in _blocks(func):
                    fuse_siblings(block, self.remark)


def _blocks(op: Operation) -> list[Block]:
    return [b for o in op.walk() for b in o.blocks]


def fuse_siblings(block: Block, remark: Callable[[Location, str], None] | None = None) -> int:
    """Fuse adjacent candidate nests of `block`, left to right; the number of fusions."""
    done = 0
    k = 0
    while k + 1 < len(block.ops):
        first, second = block.ops[k], block.ops[k + 1]
        if isinstance(first, AffineForOp) and isinstance(second, AffineForOp):
            a, b = _band(first), _band(second)
            if a is not None and b is not None and len(a) == len(b):
                perm = _aligning_permutation(a, b)
                if perm is not None:
                    why = _violation(a, b, perm)
                    if why is None:
                        _fuse(a, b, perm)
                        done += 1
                        continue  # the fused nest may fuse with the next one
                    if remark is not None:
                        remark(second.loc, f"not fused with the nest at {first.loc}: {why}")
        k += 1
    return done


def _band(root: AffineForOp) -> list[AffineForOp] | None:
    """The loops of a perfect nest with constant bounds, no iter_args, and an innermost body
    of region-free ops and no call; None otherwise."""
    band: list[AffineForOp] = []
    lp: Operation = root
    while isinstance(lp, AffineForOp):
        if lp.inits or lp.constant_lower is None or lp.constant_upper is None:
            return None
        band.append(lp)
        body = [o for o in lp.body.ops if not o.IS_TERMINATOR]
        if len(body) == 1 and isinstance(body[0], AffineForOp):
            lp = body[0]
            continue
        if any(o.blocks or isinstance(o, CallOp) for o in body):
            return None
        break
    return band


def _bounds(lp: AffineForOp) -> tuple[int | None, int | None, int]:
    return lp.constant_lower, lp.constant_upper, lp.step


def _aligning_permutation(a: Sequence[AffineForOp], b: Sequence[AffineForOp]
                          ) -> tuple[int, ...] | None:
    """`perm[k]`: the loop of `a` that loop k of `b` becomes, such that the bounds agree and
    a load of `b` reads the element a load of `a` reads (identity first)."""
    loads_a = [o for o in a[-1].body.ops if isinstance(o, AffineLoadOp)]
    loads_b = [o for o in b[-1].body.ops if isinstance(o, AffineLoadOp)]
    for perm in itertools.permutations(range(len(a))):
        if any(_bounds(b[k]) != _bounds(a[perm[k]]) for k in range(len(b))):
            continue
        rename = {b[k].iv: a[perm[k]].iv for k in range(len(b))}
        for la in loads_a:
            for lb in loads_b:
                if la.memref is lb.memref and _same_element(la, lb, rename, a):
                    return perm
    return None


def _same_element(la: AffineLoadOp, lb: AffineLoadOp, rename: dict[Value, Value],
                  loops: Sequence[AffineForOp]) -> bool:
    """`la` and `lb` (its IVs renamed) read one element at every corner of the iteration box
    (their indices are IVs of the nests only)."""
    ivs = [lp.iv for lp in loops]
    ops_a = [next((k for k, v in enumerate(ivs) if v is x), None) for x in la.indices]
    ops_b = [next((k for k, v in enumerate(ivs) if v is rename.get(x)), None) for x in lb.indices]
    if None in ops_a or None in ops_b:
        return False
    ranges = []
    for lp in loops:
        lo, hi = lp.constant_lower, lp.constant_upper
        assert lo is not None and hi is not None  # _band
        if hi <= lo:
            return False
        ranges.append((lo, lo + (hi - 1 - lo) // lp.step * lp.step))  # first and last IV
    fa, fb = compile_map(la.map), compile_map(lb.map)
    for corner in itertools.product(*ranges):
        if fa([corner[k] for k in ops_a]) != fb([corner[k] for k in ops_b]):  # type: ignore[index]
            return False
    return True


def _violation(a: Sequence[AffineForOp], b: Sequence[AffineForOp], perm: tuple[int, ...]
               ) -> str | None:
    """Why the fused order is illegal (a reversed dependence, or accesses isl cannot model),
    or None."""
    inv = {p: k for k, p in enumerate(perm)}  # loop of a -> loop of b at that position
    d = len(a)
    first = TiledStatement(tuple(o for o in a[-1].body.ops if not o.IS_TERMINATOR),
                           tuple(TileGrid(lp, 1, False) for lp in a), (0,) * d)
    second = TiledStatement(tuple(o for o in b[-1].body.ops if not o.IS_TERMINATOR),
                            tuple(TileGrid(b[inv[k]], 1, False) for k in range(d)),
                            (0,) * (d - 1) + (1,))
    try:
        dep = tiled_order_violation([a[0], b[0]], [first, second])
    except AnalysisError as exc:
        return f"the accesses cannot be modelled ({exc})"
    return None if dep is None else str(dep)


def _fuse(a: Sequence[AffineForOp], b: Sequence[AffineForOp], perm: tuple[int, ...]) -> None:
    """Move the innermost body of `b` (IVs renamed) to the end of `a`'s; erase `b`."""
    mapping: dict[Value, Value] = {b[k].iv: a[perm[k]].iv for k in range(len(b))}
    inner = a[-1].body
    term = inner.terminator
    for op in [o for o in b[-1].body.ops if not o.IS_TERMINATOR]:
        op.detach()
        for v in list(mapping):
            op.replace_uses_of(v, mapping[v])
        if term is not None:
            inner.insert_before(term, op)
        else:
            inner.append(op)
    b[0].erase()

