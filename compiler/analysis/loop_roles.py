"""Which loop of a matmul-like kernel is which GEMM dimension (the IR half of
`accelsim.cost.kernel_map`, which makes the GEMM of one call from these roles).

The kernel's one reduction `out[..] = out[..] + a[..] * b[..]` names the operands: `a`, the
first factor, is the input operand (SCALE-Sim's ifmap), `b` the weights (its filter); a
factor is a load or a value computed from loads (`(x - mean) * (x - mean)`: it reads the
indices of the loads it is computed from). Each loop around it gets a role from the operands
its induction variable indexes:

- indexes the output and `a` but not `b`: `m` (an output row; a convolution's n, p, q);
- indexes the output and `b` but not `a`: `n` (an output column; a convolution's filters);
- indexes the output and both operands: `batch` (independent GEMMs);
- indexes the output and neither: `batch` too (the same product repeated per index);
- does not index the output: `k` (the reduction; a convolution's c, r, s).

A kernel with no such reduction or more than one gets no roles (None). The accumulator may
be carried in `iter_args` of the reduction loops (as `affine-scalar-replace` leaves it:
loaded before them, stored after).
"""


from __future__ import annotations

from collections.abc import Sequence

from compiler.ir.affine_expr import AffineExpr, Binary, Dim, Sym
from compiler.ir.core import BlockArgument, OpResult, Value
from compiler.ir.ops import (
    AddFOp,
    AddIOp,
    AffineForOp,
    AffineLoadOp,
    AffineStoreOp,
    AffineYieldOp,
    ConstantOp,
    FuncOp,
    MulFOp,
    MulIOp,
)

_ADD = (AddFOp, AddIOp)  # float and integer multiply-adds alike
_MUL = (MulFOp, MulIOp)

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


def _roles(func: FuncOp) -> tuple[str, ...] | None:
    found = None
    for op in func.walk():
        if isinstance(op, _ADD):
            hit = _reduction(op)
            if hit is not None:
                if found is not None:
                    return None  # two reductions: no one view of the kernel
                found = hit
    if found is None:
        return None
    add, store, lhs, rhs = found
    used_out, used_a, used_b = _ivs_used(store), _ivs_of(lhs), _ivs_of(rhs)
    around = {id(a) for a in add.ancestors()}  # (iter_args: the reduction loops are not the store's)
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


def _reduction(add: AddFOp | AddIOp) -> tuple[AddFOp | AddIOp, AffineStoreOp, Value, Value] | None:
    """(the add, the store, the first factor, the second) of `out = out + a * b`, the
    accumulator loaded and stored around the add or carried in iter_args between them; a
    factor is a load or a value computed from loads (`(x - mean) * (x - mean)`: its indices
    are those of the loads it is computed from)."""
    mul = None
    acc_value: Value | None = None
    for v in add.operands:
        d = v.owner if isinstance(v, OpResult) else None
        if mul is None and isinstance(d, _MUL):
            mul = d
        else:
            acc_value = v
    if mul is None or acc_value is None:
        return None
    factors = list(mul.operands)
    if not all(isinstance(f, OpResult) for f in factors):
        return None
    result: Value = add.results[0]
    while isinstance(acc_value, BlockArgument):  # carried in iter_args: to the loop's init
        loop = acc_value.block.parent_op
        if not isinstance(loop, AffineForOp) or acc_value.index == 0:
            return None
        j = acc_value.index - 1
        yields = [op for op in loop.body.ops if isinstance(op, AffineYieldOp)]
        if len(yields) != 1 or yields[0].operands[j] is not result:
            return None
        result, acc_value = loop.results[j], loop.inits[j]
    acc = acc_value.owner if isinstance(acc_value, OpResult) else None
    if isinstance(acc, ConstantOp) and isinstance(result, OpResult) \
            and result.owner.parent_block is not None:
        # a sum started at a constant in iter_args and stored once done, maybe through
        # value-wise ops (a requantization: shift, clamp, narrow): `out = f(Σ a*b)`
        for op in result.owner.parent_block.ops:
            if isinstance(op, AffineStoreOp) and _derives(op.value, result):
                return add, op, factors[0], factors[1]  # type: ignore[return-value]
        return None
    if not isinstance(acc, AffineLoadOp) or acc.parent_block is None:
        return None
    for op in acc.parent_block.ops:
        if isinstance(op, AffineStoreOp) and op.value is result and op.memref is acc.memref:
            return add, op, factors[0], factors[1]  # type: ignore[return-value]
    return None


def _derives(v: Value, source: Value) -> bool:
    """`v` is `source` through ops whose other operands are all constants."""
    while v is not source:
        if not isinstance(v, OpResult) or isinstance(v.owner, AffineLoadOp | AffineForOp):
            return False
        data = [x for x in v.owner.operands
                if not (isinstance(x, OpResult) and isinstance(x.owner, ConstantOp))]
        if len(data) != 1:
            return False
        v = data[0]
    return True


def _ivs_of(v: Value) -> set[int]:
    """ids of the index values the loads `v` is computed from read (a load: its own)."""
    out: set[int] = set()
    stack, seen = [v], set()
    while stack:
        x = stack.pop()
        if id(x) in seen or not isinstance(x, OpResult):
            continue
        seen.add(id(x))
        d = x.owner
        if isinstance(d, AffineLoadOp):
            out |= _ivs_used(d)
        elif not isinstance(d, AffineForOp):  # a loop's result: not an operand of this point
            stack.extend(d.operands)
    return out


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
