"""Affine expressions: immutable, hashable, and canonical on construction.

Every constructor goes through `_simplify`, which flattens sums into a linear form
(term -> coefficient, plus a constant), folds constants, and rebuilds the sum in a fixed
term order. So two expressions that are equal as linear forms are equal Python objects,
and a pass never needs a separate canonicalization step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

ExprLike = Union["AffineExpr", int]


class AffineExpr:
    """Base of the expression tree. Use the operators; never build nodes directly."""

    __slots__ = ()

    # ---- operators -------------------------------------------------------------------
    def __add__(self, other: ExprLike) -> AffineExpr:
        return _add(self, as_expr(other))

    def __radd__(self, other: ExprLike) -> AffineExpr:
        return _add(as_expr(other), self)

    def __neg__(self) -> AffineExpr:
        return _mul(self, Const(-1))

    def __sub__(self, other: ExprLike) -> AffineExpr:
        return _add(self, -as_expr(other))

    def __rsub__(self, other: ExprLike) -> AffineExpr:
        return _add(as_expr(other), -self)

    def __mul__(self, other: ExprLike) -> AffineExpr:
        return _mul(self, as_expr(other))

    def __rmul__(self, other: ExprLike) -> AffineExpr:
        return _mul(as_expr(other), self)

    def floordiv(self, other: ExprLike) -> AffineExpr:
        return _div(self, as_expr(other), "floordiv")

    def ceildiv(self, other: ExprLike) -> AffineExpr:
        return _div(self, as_expr(other), "ceildiv")

    def __floordiv__(self, other: ExprLike) -> AffineExpr:
        return self.floordiv(other)

    def __mod__(self, other: ExprLike) -> AffineExpr:
        return _div(self, as_expr(other), "mod")

    # ---- queries (values: compiler.ir.affine_eval) ------------------------------------
    def substitute(self, dims: Sequence[AffineExpr], syms: Sequence[AffineExpr] = ()) -> AffineExpr:
        raise NotImplementedError

    def is_pure_affine(self) -> bool:
        """No product of two non-constants and no division by a non-constant."""
        raise NotImplementedError

    def max_dim(self) -> int:
        """One past the largest dim position used (0 if none)."""
        return max((t.pos + 1 for t in self.atoms() if isinstance(t, Dim)), default=0)

    def max_sym(self) -> int:
        return max((t.pos + 1 for t in self.atoms() if isinstance(t, Sym)), default=0)

    def atoms(self) -> list[AffineExpr]:
        """Every Dim/Sym/Const leaf in the tree, in order."""
        raise NotImplementedError

    def uses_dim(self, pos: int) -> bool:
        return any(isinstance(t, Dim) and t.pos == pos for t in self.atoms())

    @property
    def is_constant(self) -> bool:
        return isinstance(self, Const)

    def linear_coeffs(self, num_dims: int, num_syms: int) -> tuple[list[int], list[int], int] | None:
        """(dim coeffs, sym coeffs, constant) when the expression is a plain linear form."""
        terms, const = _linearize(self)
        dc = [0] * num_dims
        sc = [0] * num_syms
        for term, coeff in terms.items():
            if isinstance(term, Dim):
                dc[term.pos] += coeff
            elif isinstance(term, Sym):
                sc[term.pos] += coeff
            else:
                return None
        return dc, sc, const

    def __str__(self) -> str:
        return _print(self)

    def __repr__(self) -> str:
        return f"AffineExpr({_print(self)})"


@dataclass(frozen=True, slots=True, repr=False)
class Const(AffineExpr):
    value: int

    def substitute(self, dims: Sequence[AffineExpr], syms: Sequence[AffineExpr] = ()) -> AffineExpr:
        return self

    def is_pure_affine(self) -> bool:
        return True

    def atoms(self) -> list[AffineExpr]:
        return [self]


@dataclass(frozen=True, slots=True, repr=False)
class Dim(AffineExpr):
    pos: int

    def substitute(self, dims: Sequence[AffineExpr], syms: Sequence[AffineExpr] = ()) -> AffineExpr:
        return dims[self.pos]

    def is_pure_affine(self) -> bool:
        return True

    def atoms(self) -> list[AffineExpr]:
        return [self]


@dataclass(frozen=True, slots=True, repr=False)
class Sym(AffineExpr):
    pos: int

    def substitute(self, dims: Sequence[AffineExpr], syms: Sequence[AffineExpr] = ()) -> AffineExpr:
        return syms[self.pos]

    def is_pure_affine(self) -> bool:
        return True

    def atoms(self) -> list[AffineExpr]:
        return [self]


BINARY_KINDS = ("add", "mul", "floordiv", "ceildiv", "mod")


@dataclass(frozen=True, slots=True, repr=False)
class Binary(AffineExpr):
    """`kind` is one of add, mul, floordiv, ceildiv, mod. Built only by the simplifier."""

    kind: str
    lhs: AffineExpr
    rhs: AffineExpr

    def substitute(self, dims: Sequence[AffineExpr], syms: Sequence[AffineExpr] = ()) -> AffineExpr:
        lhs = self.lhs.substitute(dims, syms)
        rhs = self.rhs.substitute(dims, syms)
        if self.kind == "add":
            return _add(lhs, rhs)
        if self.kind == "mul":
            return _mul(lhs, rhs)
        return _div(lhs, rhs, self.kind)

    def is_pure_affine(self) -> bool:
        if not (self.lhs.is_pure_affine() and self.rhs.is_pure_affine()):
            return False
        if self.kind == "add":
            return True
        if self.kind == "mul":
            return self.lhs.is_constant or self.rhs.is_constant
        return self.rhs.is_constant and self.rhs.value > 0  # type: ignore[attr-defined]

    def atoms(self) -> list[AffineExpr]:
        return self.lhs.atoms() + self.rhs.atoms()


def as_expr(value: ExprLike) -> AffineExpr:
    if isinstance(value, AffineExpr):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"cannot use {value!r} ({type(value).__name__}) in an affine expression")
    return Const(int(value))


def apply_binary(kind: str, a: int, b: int) -> int:
    """The integer meaning of `a <kind> b` (MLIR: floor division, non-negative `mod`)."""
    if kind == "add":
        return a + b
    if kind == "mul":
        return a * b
    if b == 0:
        raise ZeroDivisionError(f"affine {kind} by zero")
    if kind == "floordiv":
        return a // b
    if kind == "ceildiv":
        return -((-a) // b)
    # MLIR's mod is the non-negative remainder for a positive divisor (Python's % too).
    return a % b


# ---- linear forms -----------------------------------------------------------------------

def _linearize(e: AffineExpr) -> tuple[dict[AffineExpr, int], int]:
    """Split into {term: coeff} and a constant; terms are Dim, Sym or opaque non-linear nodes."""
    if isinstance(e, Const):
        return {}, e.value
    if isinstance(e, Binary):
        if e.kind == "add":
            lt, lc = _linearize(e.lhs)
            rt, rc = _linearize(e.rhs)
            for t, c in rt.items():
                lt[t] = lt.get(t, 0) + c
            return {t: c for t, c in lt.items() if c}, lc + rc
        if e.kind == "mul" and isinstance(e.rhs, Const):
            lt, lc = _linearize(e.lhs)
            k = e.rhs.value
            return {t: c * k for t, c in lt.items() if c * k}, lc * k
    return {e: 1}, 0


def _term_key(t: AffineExpr) -> tuple[int, int, str]:
    if isinstance(t, Dim):
        return (0, t.pos, "")
    if isinstance(t, Sym):
        return (1, t.pos, "")
    return (2, 0, _print(t))


def _build(terms: dict[AffineExpr, int], const: int) -> AffineExpr:
    result: AffineExpr | None = None
    for t in sorted((t for t, c in terms.items() if c), key=_term_key):
        c = terms[t]
        piece: AffineExpr = t if c == 1 else Binary("mul", t, Const(c))
        result = piece if result is None else Binary("add", result, piece)
    if result is None:
        return Const(const)
    if const:
        result = Binary("add", result, Const(const))
    return result


def _add(a: AffineExpr, b: AffineExpr) -> AffineExpr:
    at, ac = _linearize(a)
    bt, bc = _linearize(b)
    for t, c in bt.items():
        at[t] = at.get(t, 0) + c
    return _build(at, ac + bc)


def _mul(a: AffineExpr, b: AffineExpr) -> AffineExpr:
    if isinstance(a, Const) and not isinstance(b, Const):
        a, b = b, a
    if isinstance(b, Const):
        terms, const = _linearize(a)
        return _build({t: c * b.value for t, c in terms.items()}, const * b.value)
    # Semi-affine product: kept as an opaque term; the verifier refuses it in affine ops.
    lhs, rhs = sorted((a, b), key=_term_key)
    return Binary("mul", lhs, rhs)


def _div(a: AffineExpr, b: AffineExpr, kind: str) -> AffineExpr:
    if isinstance(b, Const):
        d = b.value
        if d == 0:
            raise ZeroDivisionError(f"affine {kind} by zero")
        if isinstance(a, Const):
            return Const(apply_binary(kind, a.value, d))
        if d < 0:
            # Not pure affine; kept as written so the verifier can point at it.
            return Binary(kind, a, b)
        terms, const = _linearize(a)
        if kind == "mod":
            if d == 1:
                return Const(0)
            reduced = {t: c % d for t, c in terms.items() if c % d}
            if not reduced:
                return Const(const % d)
            if (isinstance(a, Binary) and a.kind == "mod" and isinstance(a.rhs, Const)
                    and a.rhs.value % d == 0):
                # (x mod (k*d)) mod d == x mod d
                return _div(a.lhs, b, "mod")
            return Binary("mod", _build(reduced, const % d), b)
        if d == 1:
            return a
        if all(c % d == 0 for c in terms.values()) and const % d == 0:
            return _build({t: c // d for t, c in terms.items()}, const // d)
        if kind == "floordiv" and all(c % d == 0 for c in terms.values()):
            # (d*q + r) floordiv d == q + r floordiv d, exact for constant r.
            return _build({t: c // d for t, c in terms.items()}, const // d)
        if kind == "ceildiv" and all(c % d == 0 for c in terms.values()):
            return _build({t: c // d for t, c in terms.items()}, -((-const) // d))
        return Binary(kind, a, b)
    return Binary(kind, a, b)


# ---- printing ---------------------------------------------------------------------------

def _print(e: AffineExpr) -> str:
    if isinstance(e, Const):
        return str(e.value)
    if isinstance(e, Dim):
        return f"d{e.pos}"
    if isinstance(e, Sym):
        return f"s{e.pos}"
    assert isinstance(e, Binary)
    if e.kind == "add":
        rhs = e.rhs
        if isinstance(rhs, Const) and rhs.value < 0:
            return f"{_print(e.lhs)} - {-rhs.value}"
        if (isinstance(rhs, Binary) and rhs.kind == "mul" and isinstance(rhs.rhs, Const)
                and rhs.rhs.value < 0):
            k = -rhs.rhs.value
            term = _operand(rhs.lhs)
            return f"{_print(e.lhs)} - {term}" + ("" if k == 1 else f" * {k}")
        return f"{_print(e.lhs)} + {_print(rhs)}"
    if e.kind == "mul" and isinstance(e.rhs, Const) and e.rhs.value == -1:
        return f"-{_operand(e.lhs)}"
    op = {"mul": "*", "floordiv": "floordiv", "ceildiv": "ceildiv", "mod": "mod"}[e.kind]
    return f"{_operand(e.lhs)} {op} {_operand(e.rhs, right=True)}"


def _operand(e: AffineExpr, right: bool = False) -> str:
    if isinstance(e, Const | Dim | Sym):
        return _print(e)
    if isinstance(e, Binary) and e.kind == "mul" and not right and isinstance(e.rhs, Const) \
            and e.rhs.value != -1:
        return _print(e)
    return f"({_print(e)})"


def dims(n: int) -> tuple[Dim, ...]:
    return tuple(Dim(i) for i in range(n))


def syms(n: int) -> tuple[Sym, ...]:
    return tuple(Sym(i) for i in range(n))
