"""Affine maps and integer sets: frozen values over positional dims and symbols (their values
at given operands: compiler.ir.affine_eval)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.ir.affine_expr import AffineExpr, Const, Dim, Sym, as_expr


@dataclass(frozen=True, slots=True, weakref_slot=True)  # results cached per map: analysis_cache
class AffineMap:
    """`(d0, ..., dn)[s0, ..., sm] -> (results)`."""

    num_dims: int
    num_symbols: int
    results: tuple[AffineExpr, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.results, tuple):
            object.__setattr__(self, "results", tuple(as_expr(r) for r in self.results))
        for r in self.results:
            if r.max_dim() > self.num_dims or r.max_sym() > self.num_symbols:
                raise ValueError(f"result {r} uses a dim or symbol outside "
                                 f"({self.num_dims} dims, {self.num_symbols} symbols)")

    # ---- constructors ------------------------------------------------------------
    @staticmethod
    def constant(value: int) -> AffineMap:
        return AffineMap(0, 0, (Const(value),))

    @staticmethod
    def identity(n: int) -> AffineMap:
        return AffineMap(n, 0, tuple(Dim(i) for i in range(n)))

    @staticmethod
    def single_symbol() -> AffineMap:
        return AffineMap(0, 1, (Sym(0),))

    # ---- queries -------------------------------------------------------------------
    @property
    def num_inputs(self) -> int:
        return self.num_dims + self.num_symbols

    @property
    def num_results(self) -> int:
        return len(self.results)

    @property
    def is_constant(self) -> bool:
        return all(isinstance(r, Const) for r in self.results)

    @property
    def single_constant(self) -> int | None:
        if len(self.results) == 1 and isinstance(self.results[0], Const):
            return self.results[0].value
        return None

    @property
    def is_identity(self) -> bool:
        return self.num_symbols == 0 and self.results == tuple(Dim(i) for i in range(self.num_dims))

    def is_pure_affine(self) -> bool:
        return all(r.is_pure_affine() for r in self.results)

    # ---- rewriting -----------------------------------------------------------------
    def substitute(self, dims: Sequence[AffineExpr], syms: Sequence[AffineExpr],
                   num_dims: int, num_symbols: int) -> AffineMap:
        return AffineMap(num_dims, num_symbols, tuple(r.substitute(dims, syms) for r in self.results))

    def compose(self, inner: AffineMap) -> AffineMap:
        """self ∘ inner: inner's results feed self's dims; symbols are concatenated."""
        if inner.num_results != self.num_dims:
            raise ValueError(f"cannot compose {self} with {inner}: {inner.num_results} results "
                             f"for {self.num_dims} dims")
        syms = tuple(Sym(inner.num_symbols + i) for i in range(self.num_symbols))
        return self.substitute(inner.results, syms, inner.num_dims,
                               inner.num_symbols + self.num_symbols)

    def with_results(self, results: Sequence[AffineExpr]) -> AffineMap:
        return AffineMap(self.num_dims, self.num_symbols, tuple(results))

    def __str__(self) -> str:
        head = "(" + ", ".join(f"d{i}" for i in range(self.num_dims)) + ")"
        if self.num_symbols:
            head += "[" + ", ".join(f"s{i}" for i in range(self.num_symbols)) + "]"
        return f"{head} -> ({', '.join(map(str, self.results))})"


@dataclass(frozen=True, slots=True, weakref_slot=True)
class IntegerSet:
    """Conjunction of `expr >= 0` and `expr == 0` constraints (`eq_flags[i]` true for ==)."""

    num_dims: int
    num_symbols: int
    constraints: tuple[AffineExpr, ...]
    eq_flags: tuple[bool, ...]

    def __post_init__(self) -> None:
        if len(self.constraints) != len(self.eq_flags):
            raise ValueError("constraints and eq_flags differ in length")
        for c in self.constraints:
            if c.max_dim() > self.num_dims or c.max_sym() > self.num_symbols:
                raise ValueError(f"constraint {c} uses a dim or symbol outside the set's space")

    @property
    def num_inputs(self) -> int:
        return self.num_dims + self.num_symbols

    def is_pure_affine(self) -> bool:
        return all(c.is_pure_affine() for c in self.constraints)

    def substitute(self, dims: Sequence[AffineExpr], syms: Sequence[AffineExpr],
                   num_dims: int, num_symbols: int) -> IntegerSet:
        return IntegerSet(num_dims, num_symbols,
                          tuple(c.substitute(dims, syms) for c in self.constraints), self.eq_flags)

    def __str__(self) -> str:
        head = "(" + ", ".join(f"d{i}" for i in range(self.num_dims)) + ")"
        if self.num_symbols:
            head += "[" + ", ".join(f"s{i}" for i in range(self.num_symbols)) + "]"
        body = ", ".join(f"{c} {'==' if eq else '>='} 0"
                         for c, eq in zip(self.constraints, self.eq_flags, strict=True))
        if not self.constraints:
            body = "0 == 0"
        return f"{head} : ({body})"
