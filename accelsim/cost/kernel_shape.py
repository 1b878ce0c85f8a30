"""What a kernel's cost can depend on, so that calls that cannot differ share one cost.

A kernel is *rectangular* when it has no `affine.if`, every loop bound reads only function
arguments and constants, or is a single linear form in which enclosing induction variables
cancel between the lower and the upper bound (`d0 to d0 + 256`), and every load/store index
is a linear form in the induction variables plus parts that read no induction variable. Then every loop runs
the same trip count each time it is entered, the op counts are products of trip counts, and
every accessed box is a point (the induction-variable-free parts) widened by the loops'
extents (interval widths that depend on the trip counts only): both the counts and the
footprint sizes of `compiler.analysis.counting` are functions
of the trip counts alone, whatever the argument values. `KernelShape.key(args)` is that tuple
of trip counts (None when the kernel is not rectangular: callers key on the arguments).

`fingerprint` is the kernel's structure (ops, maps, attributes, operand wiring, argument
types) without names: two kernels with equal fingerprints and equal trip counts cost the same,
so outlined copies of one nest (and clones of a module) share their counts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from compiler.ir.affine_eval import compile_map
from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym
from compiler.ir.analysis_cache import ObjectCache
from compiler.ir.ops import AffineForOp, AffineIfOp, AffineLoadOp, AffineStoreOp, ConstantOp, FuncOp

_Bound = tuple[Callable[[Sequence[int]], tuple[int, ...]], list[tuple[int, int]]]  # map, operands


class KernelShape:
    __slots__ = ("_fingerprint", "_func", "_keys", "loops", "trip_args")

    def __init__(self, func: FuncOp):
        self._func: FuncOp | None = func
        self._fingerprint: tuple[Any, ...] | None = None
        # the arguments a trip count can depend on (every one when not rectangular)
        self.trip_args: frozenset[int] = frozenset(range(len(func.args)))
        self.loops: list[tuple[_Bound, _Bound, int]] | None = _rectangular(func, self)
        self._keys: dict[tuple[int | None, ...], tuple[int, ...] | None] = {}

    @property
    def fingerprint(self) -> tuple[Any, ...]:
        """Computed on first use: only kernels called with several trip counts need it."""
        if self._fingerprint is None:
            assert self._func is not None
            self._fingerprint = _fingerprint(self._func)
            self._func = None
        return self._fingerprint

    def key(self, args: Sequence[int | None]) -> tuple[int, ...] | None:
        """The trip count of every loop (walk order) for these arguments, or None."""
        if self.loops is None:
            return None
        proj = tuple([args[k] for k in sorted(self.trip_args)])
        hit = self._keys.get(proj, False)
        if hit is not False:
            return hit  # type: ignore[return-value]
        out = self._keys[proj] = self._trips(args)
        return out

    def _trips(self, args: Sequence[int | None]) -> tuple[int, ...] | None:
        assert self.loops is not None
        out = []
        for lo_b, hi_b, step in self.loops:
            lo = _eval(lo_b, args, max)
            hi = _eval(hi_b, args, min)
            if lo is None or hi is None:
                return None
            out.append(-((lo - hi) // step) if hi > lo else 0)
        return tuple(out)


def _eval(b: _Bound, args: Sequence[int | None], pick: Callable[..., int]) -> int | None:
    fn, items = b
    vals = []
    for kind, x in items:
        if kind < 0:
            vals.append(x)
        else:
            a = args[x]
            if a is None:
                return None
            vals.append(a)
    return pick(fn(vals))


def _rectangular(func: FuncOp, shape: KernelShape) -> list[tuple[_Bound, _Bound, int]] | None:
    arg_pos = {a: k for k, a in enumerate(func.args)}
    consts: dict[Any, int] = {}
    ivs: set[Any] = set()
    loops: list[tuple[_Bound, _Bound, int]] = []
    trip_args: set[int] = set()

    def bound(amap: Any, operands: Sequence[Any]) -> _Bound | None:
        items: list[tuple[int, int]] = []
        for v in operands:
            if v in arg_pos:
                items.append((0, arg_pos[v]))
            elif v in consts:
                items.append((-1, consts[v]))
            elif v in ivs:
                items.append((-1, 0))  # cancels in the trip count (checked by the caller)
            else:
                return None  # a value computed inside the kernel
        return (compile_map(amap), items)

    def coeffs(amap: Any, operands: Sequence[Any]) -> dict[Any, int] | None:
        """Coefficient of each operand value in a single-result linear bound."""
        if len(amap.results) != 1:
            return None
        lin = amap.results[0].linear_coeffs(amap.num_dims, amap.num_symbols)
        if lin is None:
            return None
        out: dict[Any, int] = {}
        for v, c in zip(operands, [*lin[0], *lin[1]], strict=True):
            if c:
                out[v] = out.get(v, 0) + c
        return out

    for op in func.walk():
        if isinstance(op, AffineIfOp):
            return None
        if isinstance(op, ConstantOp):
            if isinstance(op.value, int) and not isinstance(op.value, bool):
                consts[op.results[0]] = op.value
        elif isinstance(op, AffineForOp):
            lo_ops, hi_ops = op.lower_operands, op.upper_operands
            lo = bound(op.lower_map, lo_ops)
            hi = bound(op.upper_map, hi_ops)
            if lo is None or hi is None:
                return None
            operands = [*lo_ops, *hi_ops]
            lc = coeffs(op.lower_map, lo_ops)
            uc = coeffs(op.upper_map, hi_ops)
            if lc is None or uc is None:
                if any(v in ivs for v in operands):
                    return None
                trip_args.update(arg_pos[v] for v in operands if v in arg_pos)
            else:
                # upper - lower: a loop shifted by enclosing induction variables (`d0 to
                # d0 + 256`) runs the same trip count for every enclosing iteration only if
                # they cancel; arguments that cancel move the loop without changing its trips
                diff = {v: uc.get(v, 0) - lc.get(v, 0) for v in {*lc, *uc}}
                if any(c and v in ivs for v, c in diff.items()):
                    return None
                trip_args.update(arg_pos[v] for v, c in diff.items() if c and v in arg_pos)
            loops.append((lo, hi, op.step))
            ivs.add(op.iv)
        elif isinstance(op, AffineLoadOp | AffineStoreOp):
            m = op.map
            indices = op.indices
            is_iv = [v in ivs for v in indices]
            for v, iv in zip(indices, is_iv):
                if not iv and v not in arg_pos and v not in consts:
                    return None  # an index computed inside the kernel
            if not _linear_access(m, is_iv):
                return None
    shape.trip_args = frozenset(trip_args)
    return loops


# per map: which operands are induction variables -> linear: shared by the kernels of a
# program (their copies share map objects)
_LINEAR: ObjectCache[dict[tuple[bool, ...], bool]] = ObjectCache("kernel_shape linear maps")


def _linear_access(m: Any, is_iv: list[bool]) -> bool:
    """Every result of the access map `m` is linear in the induction variables plus parts
    that read none."""
    table = _LINEAR.get(id(m))
    if table is None:
        table = _LINEAR.put(m, {})
    key = tuple(is_iv)
    ok = table.get(key)
    if ok is None:
        nd = m.num_dims
        ok = table[key] = all(_iv_form(r, is_iv, nd) < 2 for r in m.results)
    return ok


def clear_caches() -> None:
    _LINEAR.clear()


def _iv_form(e: AffineExpr, is_iv: list[bool], nd: int) -> int:
    """0: `e` reads no induction variable; 1: a sum of constant multiples of induction
    variables plus induction-variable-free parts; 2: anything else. (One pass over `e`.)"""
    if isinstance(e, Binary):
        a = _iv_form(e.lhs, is_iv, nd)
        b = _iv_form(e.rhs, is_iv, nd)
        if not a and not b:
            return 0
        kind = e.kind
        if kind == "add":
            return a if a > b else b
        if kind == "mul":
            if isinstance(e.rhs, Const):
                return a
            if isinstance(e.lhs, Const):
                return b
        return 2
    if isinstance(e, Dim):
        return 1 if is_iv[e.pos] else 0
    if isinstance(e, Sym):
        return 1 if is_iv[nd + e.pos] else 0
    return 0


def _fingerprint(func: FuncOp) -> tuple[Any, ...]:
    num: dict[Any, int] = {}
    for a in func.args:
        num[a] = len(num)
    out: list[Any] = [tuple(a.type for a in func.args)]
    for op in func.walk():
        if op is func:
            continue
        out.append((type(op), tuple([getattr(op, a) for a in op.ATTRS]),
                    tuple([num.get(v, -1) for v in op.operands]),
                    tuple([r.type for r in op.results]), len(op.blocks)))
        for r in op.results:
            num[r] = len(num)
        for b in op.blocks:
            out.append(len(b.ops))
            for a in b.args:
                num[a] = len(num)
                out.append(a.type)
    return tuple(out)
