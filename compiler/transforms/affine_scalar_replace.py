"""`affine-scalar-replace`: an access of an innermost loop whose address does not change in
the loop becomes one value for the whole loop, so the loop stops going to memory for it.

    affine.for %j = 0 to 410 {                 %t0 = affine.load %tmp[%i]
      %t = affine.load %tmp[%i]                %r = affine.for %j = 0 to 410 iter_args(%t = %t0) {
      ...                               ->       ...
      affine.store %s, %tmp[%i]                  affine.yield %s
    }                                          }
                                               affine.store %r, %tmp[%i]

First, within one iteration, a load of an address an earlier load or store of the body
already read or wrote (no other store to that memref between them) takes that value (as
upstream's `affine-scalrep` does: bicg loads `A[i][j]` twice). Then a reduction's
accumulator (loads and stores of one loop-invariant address) becomes an `iter_args` value:
loaded once before the loop, stored once after it; a loop-invariant address that is only
read is loaded once before the loop. Not an upstream mlir-opt pass (upstream
`affine-scalrep` does only the first step, and not across iterations); this project runs
it last in the accelerator pipeline, on the kernels' fast-memory buffers, where each access
is an SRAM access the kernel cost charges.

Legal only when provably so: the loop's body holds no region, call or DMA (every memory
access of the loop is one of its loads and stores), every index of the replaced access is
defined outside the loop, the loop runs at least once (its trip count is a constant >= 1, so
the access moved out of it happens in the original too), and every other access of the same
memref in the loop that could conflict (a store, or any access when the group stores) is
proven by isl never to touch the replaced element (`analysis.dependence.pair_relation`
empty). Distinct memref values are taken not to alias, as in the dependence analysis. The
float operations and their order are unchanged, so results are bit-identical.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from compiler.analysis.access import Access
from compiler.analysis.counting import static_trip_count
from compiler.analysis.dependence import _Cache, pair_relation
from compiler.analysis.isl_bridge import AnalysisError
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import BlockArgument, Operation, OpResult, Value
from compiler.ir.ops import (
    AffineForOp,
    AffineLoadOp,
    AffineStoreOp,
    AffineYieldOp,
    CallOp,
    FuncOp,
    ModuleOp,
)
from compiler.ir.types import MemRefType
from compiler.transforms.pass_base import Pass

_Access = AffineLoadOp | AffineStoreOp


@dataclass(frozen=True)
class Options:
    pass


@dataclass(frozen=True, slots=True)
class _Group:
    """The accesses of one memref at one loop-invariant address, in body order."""

    memref: Value
    map: AffineMap
    indices: tuple[Value, ...]
    ops: tuple[_Access, ...]

    @property
    def stores(self) -> bool:
        return any(isinstance(o, AffineStoreOp) for o in self.ops)


class AffineScalarReplacePass(Pass):
    name = "affine-scalar-replace"
    summary = ("keep a loop-invariant access of an innermost loop in a value: a reduction's "
               "accumulator in iter_args (loaded once before, stored once after), an "
               "invariant read loaded once")
    Options = Options
    options: Options

    def run(self, module: ModuleOp) -> None:
        for func in module.funcs:
            if not func.is_declaration:
                scalar_replace(func, self.remark)


def scalar_replace(func: FuncOp, remark: object = None,
                   runs: Callable[[AffineForOp], bool] | None = None) -> int:
    """Apply the replacement to every innermost loop of `func`; the number of accesses
    replaced (groups). `remark(loc, text)` is told why a candidate loop is left alone.
    `runs(loop)`: the caller knows the loop runs at least once (else its trip count must be
    a constant >= 1)."""
    done = 0
    for loop in [op for op in func.walk() if isinstance(op, AffineForOp)]:
        if not _innermost(loop):
            continue
        done += _forward_within_iteration(loop)
        groups = _groups(loop)
        if not groups:
            continue
        trips = static_trip_count(loop)
        if (trips is None or trips < 1) and not (runs is not None and runs(loop)):
            if callable(remark):
                remark(loop.loc, "loop-invariant accesses kept: the loop's trip count is not "
                                 "a constant >= 1 (moving an access out could add one)")
            continue
        for g in groups:
            _replace(loop, g)
            done += 1
    return done


def _innermost(loop: AffineForOp) -> bool:
    """Every op of the body is region-free, no call, and touches memory only as a load or
    store (so the loop's accesses are exactly its loads and stores)."""
    for op in loop.body.ops:
        if op.blocks or isinstance(op, CallOp):
            return False
        if not isinstance(op, _Access) and any(isinstance(v.type, MemRefType) for v in op.operands):
            return False
    return True


def _forward_within_iteration(loop: AffineForOp) -> int:
    """Loads of an address the body already loaded or stored in this iteration, with no other
    store to that memref between, take the known value; the number removed."""
    known: dict[tuple[int, AffineMap, tuple[int, ...]], Value] = {}
    done = 0
    for op in list(loop.body.ops):
        if not isinstance(op, _Access):
            continue
        key = (id(op.memref), op.map, tuple(id(v) for v in op.indices))
        if isinstance(op, AffineStoreOp):
            for k in [k for k in known if k[0] == key[0]]:
                del known[k]  # any store to the memref may hit another known address
            known[key] = op.value
        elif key in known:
            _replace_uses(loop, op.results[0], known[key])
            op.detach()
            done += 1
        else:
            known[key] = op.results[0]
    return done


def _defined_outside(v: Value, loop: AffineForOp) -> bool:
    if isinstance(v, BlockArgument):
        owner = v.block.parent_op
        return owner is not loop and not (owner is not None and loop.is_ancestor_of(owner))
    if isinstance(v, OpResult):
        return v.owner.parent_block is not loop.body
    return True


def _groups(loop: AffineForOp) -> list[_Group]:
    """The replaceable groups of `loop`, proven legal."""
    by_addr: dict[tuple[int, AffineMap, tuple[int, ...]], list[_Access]] = {}
    by_memref: dict[int, list[_Access]] = {}
    for op in loop.body.ops:
        if isinstance(op, _Access):
            by_memref.setdefault(id(op.memref), []).append(op)
            by_addr.setdefault((id(op.memref), op.map, tuple(id(v) for v in op.indices)),
                               []).append(op)
    out: list[_Group] = []
    cache = _Cache()
    for ops in by_addr.values():
        first = ops[0]
        if not all(_defined_outside(v, loop) for v in first.indices):
            continue
        g = _Group(first.memref, first.map, tuple(first.indices), tuple(ops))
        others = [o for o in by_memref[id(first.memref)] if all(o is not x for x in ops)]
        # a read-only group conflicts only with stores; a storing group with any access
        if all(_disjoint(g, o, cache) for o in others if g.stores or isinstance(o, AffineStoreOp)):
            out.append(g)
    return out


def _disjoint(g: _Group, other: _Access, cache: _Cache) -> bool:
    """isl proves `other` never touches the element of `g` (in any iteration pair)."""
    mine = Access(g.ops[0], g.memref, "", isinstance(g.ops[0], AffineStoreOp))
    theirs = Access(other, other.memref, "", isinstance(other, AffineStoreOp))
    try:
        return bool(pair_relation(mine, theirs, cache).is_empty())
    except AnalysisError:
        return False


def _replace(loop: AffineForOp, g: _Group) -> None:
    block = loop.parent_block
    assert block is not None
    t = g.memref.type
    assert isinstance(t, MemRefType)
    loc = g.ops[0].loc
    init = AffineLoadOp(g.memref, g.map, list(g.indices), loc=loc)
    block.insert_before(loop, init)
    cur: Value = init.results[0]
    if g.stores:
        cur = loop.body.add_arg(t.element, None)
        loop.operands.append(init.results[0])
        result = OpResult(t.element, loop, len(loop.results))
        loop.results.append(result)
    for op in g.ops:
        if isinstance(op, AffineLoadOp):
            _replace_uses(loop, op.results[0], cur)
        else:
            cur = op.value
        op.detach()
    if g.stores:
        term = loop.body.terminator
        if isinstance(term, AffineYieldOp):
            term.operands.append(cur)
        else:
            loop.body.append(AffineYieldOp([cur], loc=loop.loc))
        block.insert_after(loop, AffineStoreOp(result, g.memref, g.map, list(g.indices), loc=loc))


def _replace_uses(loop: AffineForOp, old: Value, new: Value) -> None:
    op: Operation
    for op in loop.body.ops:
        op.replace_uses_of(old, new)
