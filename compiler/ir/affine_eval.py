"""The one affine evaluator: expressions, maps and sets as values, Python source, compiled
callables and intervals, all with MLIR's semantics (floor division, non-negative `mod`).

- `evaluate_expr` / `evaluate_map` / `set_contains`: one evaluation at given integer values
  (a tree walk: nothing is compiled, so one-off and randomized evaluations stay cheap).
- `fold_source`: Python source of an expression over operands given as source with a known
  value range (None when unknown); constants are folded and the result's range is derived, so
  a caller can drop checks the range proves (the simulator's generated index code).
  `expr_source` is the same with every operand `v[k]` (dims first, then symbols) and unknown.
- `compile_map` / `compile_set`: `fn(operand values)`, compiled from that source once per
  map or set (memoized by value), the form every hot path calls.
- `interval_of` / `map_intervals`: a sound enclosure of the results over a box of operands.

The integer meaning of each binary kind is `compiler.ir.affine_expr.apply_binary`; its
Python spelling is `binary_source`, and the range rule `binary_range` serves both the folded
source and the interval evaluation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym, apply_binary
from compiler.ir.affine_map import AffineMap, IntegerSet

Interval = tuple[int, int]  # inclusive [lo, hi]
# (Python source, lo, hi) of a folded expression: lo and hi both None when the range is
# unknown; lo == hi when the expression is that constant.
Folded = tuple[str, "int | None", "int | None"]
MapFn = Callable[[Sequence[int]], tuple[int, ...]]
SetFn = Callable[[Sequence[int]], bool]
IntervalFn = Callable[[Sequence[Interval]], list[Interval]]

# ---- one evaluation ------------------------------------------------------------------------


def evaluate_expr(e: AffineExpr, dims: Sequence[int], syms: Sequence[int] = ()) -> int:
    """The value of `e` with dims `dims` and symbols `syms`."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Dim):
        return dims[e.pos]
    if isinstance(e, Sym):
        return syms[e.pos]
    assert isinstance(e, Binary)
    return apply_binary(e.kind, evaluate_expr(e.lhs, dims, syms), evaluate_expr(e.rhs, dims, syms))


def evaluate_map(m: AffineMap, dims: Sequence[int], syms: Sequence[int] = ()) -> tuple[int, ...]:
    """The results of `m` with dims `dims` and symbols `syms`."""
    return tuple(evaluate_expr(r, dims, syms) for r in m.results)


def set_contains(s: IntegerSet, dims: Sequence[int], syms: Sequence[int] = ()) -> bool:
    """Whether the point (`dims`, `syms`) satisfies every constraint of `s`."""
    for c, eq in zip(s.constraints, s.eq_flags, strict=True):
        v = evaluate_expr(c, dims, syms)
        if (v != 0) if eq else (v < 0):
            return False
    return True


# ---- Python source -------------------------------------------------------------------------


def binary_source(kind: str, a: str, b: str) -> str:
    """Python source of `a <kind> b` (each already parenthesized or atomic), floor semantics."""
    if kind == "add":
        return f"({a} + {b})"
    if kind == "mul":
        return f"({a} * {b})"
    if kind == "floordiv":
        return f"({a} // {b})"
    if kind == "ceildiv":
        return f"(-((-{a}) // {b}))"
    return f"({a} % {b})"


def binary_range(kind: str, a: Interval | None, b: Interval | None) -> Interval | None:
    """The range of `a <kind> b` over the ranges of its operands (None: unknown), where the
    operation allows one: sums and products of known ranges, divisions and `mod` by a positive
    constant (`mod` is monotone within one period of its divisor, else spans the period)."""
    if b is None:
        return None
    if a is None:
        if kind == "mod" and b[0] == b[1] and b[0] > 0:
            return (0, b[0] - 1)
        return None
    if kind == "add":
        return (a[0] + b[0], a[1] + b[1])
    if kind == "mul":
        c = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
        return (min(c), max(c))
    d = b[0]
    if d != b[1] or d <= 0:
        return None
    if kind == "floordiv":
        return (a[0] // d, a[1] // d)
    if kind == "ceildiv":
        return (-((-a[0]) // d), -((-a[1]) // d))
    if a[0] // d == a[1] // d:
        return (a[0] % d, a[1] % d)
    return (0, d - 1)


def fold_source(e: AffineExpr, operands: Sequence[Folded], nd: int) -> Folded:
    """Python source of `e` over `operands` (`nd` dims, then symbols; each a folded source),
    constants folded, with the range of `e` where `binary_range` gives one."""
    if isinstance(e, Const):
        return str(e.value), e.value, e.value
    if isinstance(e, Dim):
        return operands[e.pos]
    if isinstance(e, Sym):
        return operands[nd + e.pos]
    assert isinstance(e, Binary)
    a, alo, ahi = fold_source(e.lhs, operands, nd)
    b, blo, bhi = fold_source(e.rhs, operands, nd)
    k = e.kind
    if alo is not None and alo == ahi and blo is not None and blo == bhi:  # both constant
        if k != "add" and k != "mul" and blo <= 0:
            return binary_source(k, a, b), None, None  # left to run time (never in valid maps)
        v = apply_binary(k, alo, blo)
        return str(v), v, v
    src = binary_source(k, a, b)
    r = binary_range(k, None if alo is None or ahi is None else (alo, ahi),
                     None if blo is None or bhi is None else (blo, bhi))
    if r is None:
        return src, None, None
    return src, r[0], r[1]


def expr_source(e: AffineExpr, nd: int) -> str:
    """Python source of `e` over `v` (`v[k]`: dims first, then symbols), ranges unknown."""
    operands = [(f"v[{k}]", None, None) for k in range(nd + e.max_sym())]
    return fold_source(e, operands, nd)[0]


# ---- compiled callables --------------------------------------------------------------------


@cache
def compile_map(m: AffineMap) -> MapFn:
    """`fn(operand_values) -> results` for a map whose operands are (dims..., symbols...)."""
    body = "".join(f"{expr_source(r, m.num_dims)}, " for r in m.results)
    return eval(f"lambda v: ({body})")  # type: ignore[no-any-return]  # () for a zero-rank index


@cache
def compile_set(s: IntegerSet) -> SetFn:
    """`fn(operand_values) -> bool`: whether the operands satisfy every constraint of `s`."""
    parts = [f"{expr_source(c, s.num_dims)} {'==' if eq else '>='} 0"
             for c, eq in zip(s.constraints, s.eq_flags, strict=True)]
    return eval(f"lambda v: {' and '.join(parts) or 'True'}")  # type: ignore[no-any-return]


# ---- intervals -----------------------------------------------------------------------------


def interval_of(e: AffineExpr, dims: Sequence[Interval], syms: Sequence[Interval]) -> Interval:
    """A sound enclosure of `e` over the box `dims x syms`."""
    if isinstance(e, Const):
        return (e.value, e.value)
    if isinstance(e, Dim):
        return dims[e.pos]
    if isinstance(e, Sym):
        return syms[e.pos]
    assert isinstance(e, Binary)
    r = binary_range(e.kind, interval_of(e.lhs, dims, syms), interval_of(e.rhs, dims, syms))
    if r is None:
        raise ValueError(f"cannot bound {e}: divisor is not a positive constant")
    return r


def map_intervals(m: AffineMap, operands: Sequence[Interval]) -> list[Interval]:
    """The interval of each result of `m` over the box `operands` (dims, then symbols)."""
    return _interval_by_id(m)(operands)


_IV_BY_ID: dict[int, tuple[AffineMap, IntervalFn]] = {}


def _interval_by_id(m: AffineMap) -> IntervalFn:
    hit = _IV_BY_ID.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    fn = _interval_fn(m)
    if len(_IV_BY_ID) > 200_000:
        _IV_BY_ID.clear()
    _IV_BY_ID[id(m)] = (m, fn)
    return fn


@cache
def _interval_fn(m: AffineMap) -> IntervalFn:
    """Interval evaluation compiled per map: straight-line code for linear results (exact),
    `interval_of` for the rest."""
    parts = []
    for k, r in enumerate(m.results):
        lin = r.linear_coeffs(m.num_dims, m.num_symbols)
        if lin is None:
            parts.append(f"_iv(_r[{k}], v[:{m.num_dims}], v[{m.num_dims}:])")
            continue
        dc, sc, c0 = lin
        lo, hi = [str(c0)], [str(c0)]
        for pos, c in enumerate([*dc, *sc]):
            if c > 0:
                lo.append(f"{c} * v[{pos}][0]")
                hi.append(f"{c} * v[{pos}][1]")
            elif c < 0:
                lo.append(f"{c} * v[{pos}][1]")
                hi.append(f"{c} * v[{pos}][0]")
        parts.append(f"({' + '.join(lo)}, {' + '.join(hi)})")
    fn = eval(f"lambda v: [{', '.join(parts)}]", {"_iv": interval_of, "_r": m.results})
    return fn  # type: ignore[no-any-return]
