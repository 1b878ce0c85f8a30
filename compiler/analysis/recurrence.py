"""The longest loop-carried dependence chain of a program (a recurrence: durbin, trisolv, a
prefix sum): a lower bound on its run whatever the schedule, after the roofline and the
latency floor (`accelsim.report.roofline.critical_path`).

A recurrence is a store S whose stored value is computed (through SSA, within one iteration)
from a load L of the same memref, where L reads, in a later iteration of a common loop k,
what S wrote: isl gives the pairs (S before L at loop k, equal outer IVs) and their least
distance d along loop k. When every iteration of loop k from the first that has one (lo)
on reads what the iteration d before it wrote, in every outer iteration, the chain
lo -> lo + d -> lo + 2d ... is a path of `links` = (trip span) // d dependent steps, each at
least the ops on the SSA path from L's value to S's value (the `Link`: ordinary ops one
cycle each, specials — div, exp, sqrt, math transcendentals — a special op's cost; a
multiply-add pair counts as one). Loads and stores on the path are not counted (a register
may carry the value), nor ops that do not depend on L (they can run ahead). Nests run one
after another in the program, but a compiler may overlap them: the bound is the longest
chain of one nest.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from compiler.analysis.access import Access
from compiler.analysis.dependence import _order, common_loops, pair_relation
from compiler.analysis.domain import iteration_domain
from compiler.analysis.isl_bridge import CTX, AnalysisError
from compiler.ir.core import Operation, OpResult, Value
from compiler.ir.ops import (
    AddFOp,
    AffineForOp,
    AffineLoadOp,
    AffineStoreOp,
    DivFOp,
    ExpOp,
    FuncOp,
    MulFOp,
    SqrtOp,
    SubFOp,
)
from compiler.ir.ops.math_ops import CHEAP as MATH_CHEAP
from compiler.ir.ops.math_ops import LLVM as MATH_LLVM


@dataclass(frozen=True, slots=True)
class Recurrence:
    """`links` dependent steps of loop `loop`, each `plain` ordinary ops and `special`
    special ops on the path from the load to the store."""

    links: int
    plain: int
    special: int
    store: Operation
    loop: AffineForOp

    def cycles(self, special_op_cycles: int) -> int:
        return self.links * (self.plain + self.special * special_op_cycles)


def longest_recurrence(func: FuncOp) -> Recurrence | None:
    """The recurrence of `func` with the most cycles at 1 cycle per op (None: no chain)."""
    best: Recurrence | None = None
    for s in func.walk():
        if not isinstance(s, AffineStoreOp):
            continue
        for load, path in _loads_feeding(s.value):
            if load.memref is not s.memref:
                continue
            try:
                got = _chain(s, load, path)
            except AnalysisError:
                continue
            if got is not None and (best is None or got.cycles(4) > best.cycles(4)):
                best = got
    return best


def _loads_feeding(v: Value) -> list[tuple[AffineLoadOp, list[Operation]]]:
    """Each load whose value reaches `v` through SSA, with the ops on the longest path."""
    out: dict[int, tuple[AffineLoadOp, list[Operation]]] = {}
    memo: dict[int, dict[int, list[Operation]]] = {}

    def walk(x: Value, depth: int) -> dict[int, list[Operation]]:
        if not isinstance(x, OpResult) or depth > 64:
            return {}
        op = x.owner
        if id(op) in memo:
            return memo[id(op)]
        res: dict[int, list[Operation]] = {}
        if isinstance(op, AffineLoadOp):
            res[id(op)] = []
            out.setdefault(id(op), (op, []))
        else:
            for operand in op.operands:
                for k, path in walk(operand, depth + 1).items():
                    cand = [*path, op]
                    if k not in res or _weight(cand) > _weight(res[k]):
                        res[k] = cand
        memo[id(op)] = res
        return res

    paths = walk(v, 0)
    return [(out[k][0], path) for k, path in paths.items()]


def _weight(path: list[Operation]) -> tuple[int, int]:
    p, s = _counts(path)
    return (p + 4 * s, len(path))


def _counts(path: list[Operation]) -> tuple[int, int]:
    plain = special = 0
    prev: Operation | None = None
    for op in path:
        if isinstance(op, DivFOp | ExpOp | SqrtOp) or (op.NAME in MATH_LLVM
                                                       and op.NAME not in MATH_CHEAP):
            special += 1
        elif isinstance(op, AddFOp | SubFOp) and isinstance(prev, MulFOp):
            pass   # a multiply-add: one step
        elif op.results and not isinstance(op, AffineForOp):
            plain += 1
        prev = op
    return plain, special


def _chain(s: AffineStoreOp, load: AffineLoadOp, path: list[Operation]) -> Recurrence | None:
    loops = common_loops(s, load)
    if not loops:
        return None
    pairs = pair_relation(Access(s, s.memref, "", True), Access(load, load.memref, "", False))
    if pairs.is_empty():
        return None
    plain, special = _counts(path)
    if plain + special == 0:
        return None
    best: Recurrence | None = None
    n = len(loops)
    for depth in range(1, n + 1):
        loop = loops[depth - 1]
        lo, hi = loop.constant_lower, loop.constant_upper
        if lo is None or hi is None or hi - lo <= loop.step:
            continue
        ordered = _order(pairs, n, depth)
        if ordered.is_empty():
            continue
        # { [outer, s_k] -> [outer, t_k] }: the pairs ordered at loop `depth` (outer equal)
        k = depth - 1
        ni, no = ordered.dim(isl.dim_type.in_), ordered.dim(isl.dim_type.out)
        rel = ordered.project_out(isl.dim_type.in_, k + 1, ni - k - 1).project_out(
            isl.dim_type.out, k + 1, no - k - 1)
        dist = rel.deltas().project_out(isl.dim_type.set, 0, k)   # { [t_k - s_k] }
        if dist.is_empty():
            continue
        dmin = dist.dim_min_val(0).to_python()
        if not isinstance(dmin, int) or dmin <= 0:
            continue
        # in every outer iteration, every iteration of loop k from lo + d on is the sink of
        # the one d before it: the chain lo -> lo + d -> ... lies in one outer iteration
        step = isl.Map.read_from_str(CTX, "{ [" + ", ".join(f"o{j}" for j in range(k)) + ("," if k else "")
                                     + " a] -> [" + ", ".join(f"o{j}" for j in range(k))
                                     + ("," if k else "") + f" a + {dmin}] }}")
        sinks = rel.intersect(step.align_params(rel.get_space())).range()
        outer = iteration_domain(s)
        outer = outer.project_out(isl.dim_type.set, k, outer.dim(isl.dim_type.set) - k)
        first = sinks.project_out(isl.dim_type.set, 0, k).dim_min_val(0).to_python()
        if not isinstance(first, int):
            continue
        lo = max(lo, first - dmin)   # the chain starts at the first iteration with a successor
        want = isl.Set.read_from_str(
            CTX, f"{{ [t] : {lo + dmin} <= t < {hi} and (t - {lo}) mod {loop.step} = 0 }}")
        need = outer.flat_product(want) if k else want
        if not need.align_params(sinks.get_space()).is_subset(sinks):
            continue
        links = (hi - 1 - lo) // dmin
        got = Recurrence(links, plain, special, s, loop)
        if best is None or got.cycles(4) > best.cycles(4):
            best = got
    return best
