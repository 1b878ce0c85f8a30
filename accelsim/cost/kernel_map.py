"""Which loop of a matmul-like kernel is which GEMM dimension, so that a dataflow can map the
kernel onto the array (`accelsim.cost.systolic`).

The kernel's one reduction `out[..] = out[..] + a[..] * b[..]` names the operands: `a`, the
first factor, is the input operand (SCALE-Sim's ifmap), `b` the weights (its filter). Each
loop around it gets a role from the operands its induction variable indexes:

- indexes the output and `a` but not `b`: `m` (an output row; a convolution's n, p, q);
- indexes the output and `b` but not `a`: `n` (an output column; a convolution's filters);
- indexes the output and both operands: `batch` (independent GEMMs);
- indexes the output and neither: `batch` too (the same product repeated per index);
- does not index the output: `k` (the reduction; a convolution's c, r, s).

The extent of a role is the product of its loops' trip counts. A kernel with no such
reduction, more than one, an accumulator carried in `iter_args`, or operands that are not
loads gets no roles (None): the cost model then keeps the `fixed` rule for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from accelsim.cost.systolic import GemmView
from compiler.ir.affine_expr import AffineExpr, Binary, Dim, Sym
from compiler.ir.core import OpResult, Value
from compiler.ir.ops import AddFOp, AffineForOp, AffineLoadOp, AffineStoreOp, FuncOp, MulFOp

# id(func) -> (func, roles by loop in walk order or None)
_ROLES: dict[int, tuple[FuncOp, tuple[str, ...] | None]] = {}


def loop_roles(func: FuncOp) -> tuple[str, ...] | None:
    """The role ("m", "n", "k", "batch", or "" for a loop not around the reduction) of every
    `affine.for` of `func` in walk order, or None when the kernel has no single reduction."""
    hit = _ROLES.get(id(func))
    if hit is not None and hit[0] is func:
        return hit[1]
    out = _roles(func)
    if len(_ROLES) > 1000:  # entries keep their function alive: stay bounded
        _ROLES.clear()
    _ROLES[id(func)] = (func, out)
    return out


def gemm_view(roles: Sequence[str], trips: Sequence[int]) -> GemmView:
    """The GEMM of one call from the loops' roles and trip counts (both in walk order)."""
    ext = {"m": 1, "n": 1, "k": 1, "batch": 1, "": 1}
    for role, trip in zip(roles, trips, strict=True):
        ext[role] *= trip
    return GemmView(ext["m"], ext["n"], ext["k"], ext["batch"])


def _roles(func: FuncOp) -> tuple[str, ...] | None:
    found = None
    for op in func.walk():
        if isinstance(op, AddFOp):
            hit = _reduction(op)
            if hit is not None:
                if found is not None:
                    return None  # two reductions: no one view of the kernel
                found = hit
    if found is None:
        return None
    store, lhs, rhs = found
    used_out, used_a, used_b = _ivs_used(store), _ivs_used(lhs), _ivs_used(rhs)
    around = {id(a) for a in store.ancestors()}
    out: list[str] = []
    for op in func.walk():
        if not isinstance(op, AffineForOp):
            continue
        iv = id(op.iv)
        if id(op) not in around:
            out.append("")
        elif iv not in used_out:
            out.append("k")
        elif iv in used_a and iv not in used_b:
            out.append("m")
        elif iv in used_b and iv not in used_a:
            out.append("n")
        else:
            out.append("batch")
    return tuple(out)


def _reduction(add: AddFOp) -> tuple[AffineStoreOp, AffineLoadOp, AffineLoadOp] | None:
    """(the store, the load of the first factor, of the second) of `out = out + a * b`."""
    mul = acc = None
    for v in add.operands:
        d = v.owner if isinstance(v, OpResult) else None
        if mul is None and isinstance(d, MulFOp):
            mul = d
        else:
            acc = d
    if mul is None or not isinstance(acc, AffineLoadOp) or add.parent_block is None:
        return None
    factors = [v.owner if isinstance(v, OpResult) else None for v in mul.operands]
    if not all(isinstance(f, AffineLoadOp) for f in factors):
        return None
    for op in add.parent_block.ops:
        if isinstance(op, AffineStoreOp) and op.value is add.results[0] and op.memref is acc.memref:
            return op, factors[0], factors[1]  # type: ignore[return-value]
    return None


def _ivs_used(op: AffineLoadOp | AffineStoreOp) -> set[int]:
    """ids of the index operands the access map's results read."""
    m = op.map
    pos: set[int] = set()
    for r in m.results:
        _positions(r, m.num_dims, pos)
    idx: Sequence[Value] = op.indices
    return {id(idx[p]) for p in pos if p < len(idx)}


def _positions(e: AffineExpr, nd: int, out: set[int]) -> None:
    if isinstance(e, Binary):
        _positions(e.lhs, nd, out)
        _positions(e.rhs, nd, out)
    elif isinstance(e, Dim):
        out.add(e.pos)
    elif isinstance(e, Sym):
        out.add(nd + e.pos)


def clear_caches() -> None:
    _ROLES.clear()
