"""Affine expressions, maps and sets as MLIR text, with caller-chosen names for dims/symbols.

The same expression printer serves `affine_map<(d0)[s0] -> (d0 + s0)>` (names `d0`, `s0`) and
the inline index syntax `%A[%i + symbol(%n)]` (names are the operands' SSA names).
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet

_HIGH = {"mul": "*", "floordiv": "floordiv", "ceildiv": "ceildiv", "mod": "mod"}


def format_expr(e: AffineExpr, dims: Sequence[str], syms: Sequence[str]) -> str:
    """MLIR spelling of `e`; parenthesized only where MLIR's precedence needs it."""
    if isinstance(e, Dim):
        return dims[e.pos]
    if isinstance(e, Sym):
        return syms[e.pos]
    if isinstance(e, Const):
        return str(e.value)
    assert isinstance(e, Binary)
    if e.kind == "add":
        lhs = format_expr(e.lhs, dims, syms)
        rhs = e.rhs
        if isinstance(rhs, Const) and rhs.value < 0:
            return f"{lhs} - {-rhs.value}"
        if (isinstance(rhs, Binary) and rhs.kind == "mul" and isinstance(rhs.rhs, Const)
                and rhs.rhs.value < 0):
            k = -rhs.rhs.value
            term = _operand(rhs.lhs, dims, syms, left=True)
            return f"{lhs} - {term}" if k == 1 else f"{lhs} - {term} * {k}"
        return f"{lhs} + {_operand_add(rhs, dims, syms)}"
    if e.kind == "mul" and isinstance(e.rhs, Const) and e.rhs.value == -1:
        return f"-{_operand(e.lhs, dims, syms, left=False)}"
    lhs = _operand(e.lhs, dims, syms, left=True)
    rhs = _operand(e.rhs, dims, syms, left=False)
    return f"{lhs} {_HIGH[e.kind]} {rhs}"


def _operand_add(e: AffineExpr, dims: Sequence[str], syms: Sequence[str]) -> str:
    """Right operand of `+`: a nested sum needs parentheses (left associativity)."""
    if isinstance(e, Binary) and e.kind == "add":
        return f"({format_expr(e, dims, syms)})"
    if isinstance(e, Binary) and e.kind == "mul" and isinstance(e.rhs, Const) and e.rhs.value == -1:
        return f"({format_expr(e, dims, syms)})"
    return format_expr(e, dims, syms)


def _operand(e: AffineExpr, dims: Sequence[str], syms: Sequence[str], left: bool) -> str:
    """Operand of a multiplicative op: atoms bare, a left-nested multiplicative op bare."""
    if isinstance(e, Dim | Sym):
        return format_expr(e, dims, syms)
    if isinstance(e, Const):
        return str(e.value) if e.value >= 0 else f"({e.value})"
    if (left and isinstance(e, Binary) and e.kind in _HIGH
            and not (e.kind == "mul" and isinstance(e.rhs, Const) and e.rhs.value == -1)):
        return format_expr(e, dims, syms)
    return f"({format_expr(e, dims, syms)})"


def dim_names(n: int) -> list[str]:
    return [f"d{i}" for i in range(n)]


def sym_names(n: int) -> list[str]:
    return [f"s{i}" for i in range(n)]


def _head(num_dims: int, num_syms: int) -> str:
    head = "(" + ", ".join(dim_names(num_dims)) + ")"
    if num_syms:
        head += "[" + ", ".join(sym_names(num_syms)) + "]"
    return head


def format_map(m: AffineMap) -> str:
    """`affine_map<(d0)[s0] -> (d0 + s0)>`."""
    d, s = dim_names(m.num_dims), sym_names(m.num_symbols)
    body = ", ".join(format_expr(r, d, s) for r in m.results)
    return f"affine_map<{_head(m.num_dims, m.num_symbols)} -> ({body})>"


def format_set(iset: IntegerSet) -> str:
    """`affine_set<(d0)[s0] : (d0 >= 0, s0 - d0 - 1 >= 0)>`."""
    d, s = dim_names(iset.num_dims), sym_names(iset.num_symbols)
    parts = [f"{format_expr(c, d, s)} {'==' if eq else '>='} 0"
             for c, eq in zip(iset.constraints, iset.eq_flags, strict=True)]
    body = ", ".join(parts) if parts else "0 == 0"
    return f"affine_set<{_head(iset.num_dims, iset.num_symbols)} : ({body})>"
