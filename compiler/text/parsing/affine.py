"""Affine maps, integer sets and expressions (`affine_map<(d0)[s0] -> (d0 + s0)>`,
`affine_set<...>`), and references to them through `#map` / `#set` aliases."""

from __future__ import annotations

from collections.abc import Callable

from compiler.ir.affine_expr import AffineExpr, Const, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.text.parsing.cursor import MAX_EXPR_NESTING
from compiler.text.parsing.values import ValueParser

_MULTIPLICATIVE = {"*": "mul", "floordiv": "floordiv", "ceildiv": "ceildiv", "mod": "mod"}


class AffineParser(ValueParser):
    def __init__(self, text: str, filename: str):
        super().__init__(text, filename)
        self.map_aliases: dict[str, AffineMap] = {}
        self.set_aliases: dict[str, IntegerSet] = {}

    def at_map_alias(self) -> bool:
        return self.tok[1] in self.map_aliases

    def parse_layout_map(self) -> None:
        t = self.tok
        m = self.parse_map_ref()
        if not m.is_identity:
            raise self.error(f"unsupported memref layout {m} (only the identity layout is "
                             f"supported)", t)

    def parse_map_ref(self) -> AffineMap:
        t = self.tok
        if t[0] == "hash":
            self.i += 1
            m = self.map_aliases.get(t[1])
            if m is None:
                if t[1] in self.set_aliases:
                    raise self.error(f"expected an affine map, '{t[1]}' is an integer set", t)
                raise self.error(f"undefined alias '{t[1]}'", t)
            return m
        if self.at("affine_map"):
            return self.parse_affine_map_attr()
        raise self.error(f"expected an affine map ('#map' or 'affine_map<...>'), found {self.describe()}")

    def parse_set_ref(self) -> IntegerSet:
        t = self.tok
        if t[0] == "hash":
            self.i += 1
            s = self.set_aliases.get(t[1])
            if s is None:
                if t[1] in self.map_aliases:
                    raise self.error(f"expected an integer set, '{t[1]}' is an affine map", t)
                raise self.error(f"undefined alias '{t[1]}'", t)
            return s
        if self.at("affine_set"):
            return self.parse_affine_set_attr()
        raise self.error(f"expected an integer set ('#set' or 'affine_set<...>'), found {self.describe()}")

    def parse_dim_sym_decl(self) -> tuple[dict[str, AffineExpr], int, int]:
        names: dict[str, AffineExpr] = {}
        self.expect("(", "to open the dimension list")
        nd = 0
        if not self.at(")"):
            while True:
                t = self.expect_kind("bare", "a dimension name")
                if t[1] in names:
                    raise self.error(f"redefinition of identifier '{t[1]}'", t)
                names[t[1]] = Dim(nd)
                nd += 1
                if not self.accept(","):
                    break
        self.expect(")", "to close the dimension list")
        ns = 0
        if self.accept("["):
            if not self.at("]"):
                while True:
                    t = self.expect_kind("bare", "a symbol name")
                    if t[1] in names:
                        raise self.error(f"redefinition of identifier '{t[1]}'", t)
                    names[t[1]] = Sym(ns)
                    ns += 1
                    if not self.accept(","):
                        break
            self.expect("]", "to close the symbol list")
        return names, nd, ns

    def named_atom(self, names: dict[str, AffineExpr]) -> Callable[[], AffineExpr]:
        def atom() -> AffineExpr:
            t = self.tok
            if t[0] == "bare" and t[1] in names:
                self.i += 1
                return names[t[1]]
            if t[0] == "bare":
                raise self.error(f"use of undeclared identifier '{t[1]}' in affine expression")
            raise self.error(f"expected an affine expression term, found {self.describe()}")
        return atom

    def parse_affine_map_attr(self) -> AffineMap:
        self.expect("affine_map")
        self.expect("<", "after 'affine_map'")
        names, nd, ns = self.parse_dim_sym_decl()
        self.expect("->", "in affine map")
        self.expect("(", "to open the affine map results")
        atom = self.named_atom(names)
        symbolic = _no_dims
        results: list[AffineExpr] = []
        if not self.at(")"):
            while True:
                results.append(self.parse_affine_expr(atom, symbolic))
                if not self.accept(","):
                    break
        self.expect(")", "to close the affine map results")
        self.expect(">", "to close 'affine_map<'")
        return AffineMap(nd, ns, tuple(results))

    def parse_affine_set_attr(self) -> IntegerSet:
        self.expect("affine_set")
        self.expect("<", "after 'affine_set'")
        names, nd, ns = self.parse_dim_sym_decl()
        self.expect(":", "between the dimension list and the constraints of an affine set")
        self.expect("(", "to open the constraint list")
        atom = self.named_atom(names)
        constraints: list[AffineExpr] = []
        eqs: list[bool] = []
        while True:
            lhs = self.parse_affine_expr(atom, _no_dims)
            t = self.tok
            if t[1] not in (">=", "<=", "==") or t[0] != "punct":
                raise self.error(f"expected '>=', '<=' or '==' in affine constraint, found {self.describe()}")
            self.i += 1
            rhs = self.parse_affine_expr(atom, _no_dims)
            if t[1] == ">=":
                constraints.append(lhs - rhs)
            elif t[1] == "<=":
                constraints.append(rhs - lhs)
            else:
                constraints.append(lhs - rhs)
            eqs.append(t[1] == "==")
            if not self.accept(","):
                break
        self.expect(")", "to close the constraint list")
        self.expect(">", "to close 'affine_set<'")
        return IntegerSet(nd, ns, tuple(constraints), tuple(eqs))

    def parse_affine_expr(self, atom: Callable[[], AffineExpr],
                          symbolic: Callable[[AffineExpr], bool]) -> AffineExpr:
        """Sum of terms; `+`/`-` bind loosest, then `*`, floordiv, ceildiv, mod, then unary `-`."""
        lhs = self.parse_affine_term(atom, symbolic)
        while True:
            t = self.tok
            if t[0] != "punct" or t[1] not in ("+", "-"):
                return lhs
            self.i += 1
            rhs = self.parse_affine_term(atom, symbolic)
            lhs = lhs + rhs if t[1] == "+" else lhs - rhs

    def parse_affine_term(self, atom: Callable[[], AffineExpr],
                          symbolic: Callable[[AffineExpr], bool]) -> AffineExpr:
        lhs = self.parse_affine_unary(atom, symbolic)
        while True:
            t = self.tok
            kind = _MULTIPLICATIVE.get(t[1]) if t[0] in ("punct", "bare") else None
            if kind is None:
                return lhs
            self.i += 1
            rhs = self.parse_affine_unary(atom, symbolic)
            if kind == "mul":
                if not (symbolic(lhs) or symbolic(rhs)):
                    raise self.error("non-affine expression: a product of two dims is not affine "
                                     "(one operand of '*' must be a constant or a symbol)", t)
                lhs = lhs * rhs
                continue
            if not symbolic(rhs):
                raise self.error(f"non-affine expression: the right operand of '{t[1]}' must be a "
                                 f"constant or a symbol", t)
            if isinstance(rhs, Const) and rhs.value <= 0:
                raise self.error(f"non-affine expression: '{t[1]}' by a non-positive constant "
                                 f"({rhs.value})", t)
            lhs = lhs.floordiv(rhs) if kind == "floordiv" else (
                lhs.ceildiv(rhs) if kind == "ceildiv" else lhs % rhs)

    def parse_affine_unary(self, atom: Callable[[], AffineExpr],
                           symbolic: Callable[[AffineExpr], bool]) -> AffineExpr:
        t = self.tok
        if t[0] == "int":
            self.i += 1
            return Const(self.index_literal(t))
        if t[0] == "punct" and t[1] in ("-", "("):
            if self.expr_depth >= MAX_EXPR_NESTING:
                raise self.error(f"affine expression nested more than {MAX_EXPR_NESTING} deep "
                                 "(a limit of accelsim)", t)
            self.i += 1
            self.expr_depth += 1
            if t[1] == "-":
                e = -self.parse_affine_unary(atom, symbolic)
            else:
                e = self.parse_affine_expr(atom, symbolic)
                self.expect(")", "to close the parenthesized affine expression")
            self.expr_depth -= 1
            return e
        return atom()


def _no_dims(e: AffineExpr) -> bool:
    return all(not isinstance(a, Dim) for a in e.atoms())
