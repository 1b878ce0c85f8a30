"""Recursive-descent parser for the MLIR subset accelsim supports.

Reads what our printer writes and what upstream `mlir-opt-19` prints after its affine passes:
`#map`/`#set` aliases, `module` wrappers, `func.func` (with `private` declarations), the
custom syntax of the affine, memref, arith, math and func ops, `loc(...)` trailers, comments.
Every op records the location of its first token; every error is a ParseError carrying the
location and the source line.

Index lists of loads, stores and DMA ops (`%A[%i + 1, symbol(%n)]`) become an AffineMap plus
operands: an operand written `symbol(%x)`, or that is a valid symbol (compiler.ir.scope), is a
symbol; every other one is a dim; both in order of first appearance, the same value once.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np

from compiler.diagnostics import Location, ParseError
from compiler.ir.affine_expr import AffineExpr, Const, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.core import Block, Operation, Value
from compiler.ir.ops import (
    BINARY_OPS,
    CAST_OPS,
    UNARY_OPS,
    AffineApplyOp,
    AffineDmaStartOp,
    AffineDmaWaitOp,
    AffineForOp,
    AffineIfOp,
    AffineLoadOp,
    AffineMaxOp,
    AffineMinOp,
    AffineStoreOp,
    AffineYieldOp,
    AllocaOp,
    AllocOp,
    CallOp,
    CmpFOp,
    CmpIOp,
    ConstantOp,
    DeallocOp,
    FuncOp,
    ModuleOp,
    ReturnOp,
    SelectOp,
)
from compiler.ir.ops.arith import CMPF_PREDICATES, CMPI_PREDICATES
from compiler.ir.scope import is_valid_symbol
from compiler.ir.types import ELEMENT_TYPES, INDEX, ElementType, FunctionType, MemRefType, Type
from compiler.text.lexer import Source, Token, tokenize

# A parsed location: resolved, unknown (None), ("alias", "#name", offset) until the end, or the
# parts of a fused location that still contains aliases.
_LocRef = Location | tuple[str, str, int] | list | None

_MULTIPLICATIVE = {"*": "mul", "floordiv": "floordiv", "ceildiv": "ceildiv", "mod": "mod"}


def parse_module(text: str, filename: str = "<string>") -> ModuleOp:
    """Parse MLIR text into a ModuleOp; raises ParseError with file:line:col."""
    return _Parser(text, filename).parse_module()


def parse_file(path: str) -> ModuleOp:
    """Parse a `.mlir` file; `-` reads standard input (errors then name `<stdin>`)."""
    if path == "-":
        import sys

        return parse_module(sys.stdin.read(), "<stdin>")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ParseError(f"cannot read input file: {exc.strerror}", Location(path, 0, 0)) from None
    except UnicodeDecodeError as exc:
        raise ParseError(f"input is not UTF-8 text ({exc.reason})", Location(path, 0, 0)) from None
    return parse_module(text, path)


def parse_affine_map(text: str, filename: str = "<string>") -> AffineMap:
    """`affine_map<(d0)[s0] -> (d0 + s0)>` (the whole text) -> AffineMap."""
    p = _Parser(text, filename)
    m = p.parse_affine_map_attr()
    p.expect_eof()
    return m


def parse_integer_set(text: str, filename: str = "<string>") -> IntegerSet:
    """`affine_set<(d0)[s0] : (d0 >= 0)>` (the whole text) -> IntegerSet."""
    p = _Parser(text, filename)
    s = p.parse_affine_set_attr()
    p.expect_eof()
    return s


class _Parser:
    def __init__(self, text: str, filename: str):
        self.src = Source(text, filename)
        self.toks: list[Token] = tokenize(self.src)
        self.i = 0
        self.map_aliases: dict[str, AffineMap] = {}
        self.set_aliases: dict[str, IntegerSet] = {}
        self.loc_aliases: dict[str, _LocRef] = {}
        self.pending_locs: list[tuple[Operation, _LocRef]] = []
        self.scopes: list[dict[str, list[Value]]] = []
        self.block: Block | None = None
        self.type_cache: dict[str, MemRefType] = {}
        self.index_names: dict[str, tuple[tuple[str, bool], ...]] = {}
        self.index_maps: dict[tuple[str, tuple[bool, ...]], tuple[AffineMap, list[int]]] = {}

    # ---- token helpers ---------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def kind(self) -> str:
        return self.toks[self.i][0]

    def text(self) -> str:
        return self.toks[self.i][1]

    def advance(self) -> Token:
        t = self.toks[self.i]
        self.i += 1
        return t

    def error(self, message: str, tok: Token | None = None) -> ParseError:
        t = self.tok if tok is None else tok
        return self.src.error(t[2], message)

    def describe(self, tok: Token | None = None) -> str:
        t = self.tok if tok is None else tok
        return "end of file" if t[0] == "eof" else f"'{t[1]}'"

    def at(self, text: str) -> bool:
        """Current token is the punctuation or keyword `text`.

        Comparing the text alone is enough: no other token kind can spell a keyword or
        punctuation (SSA names start with %, strings with a quote, aliases with #).
        """
        return self.toks[self.i][1] == text

    def accept(self, text: str) -> bool:
        if self.toks[self.i][1] == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str, context: str = "") -> Token:
        t = self.toks[self.i]
        if t[1] != text:
            where = f" {context}" if context else ""
            raise self.error(f"expected '{text}'{where}, found {self.describe()}")
        self.i += 1
        return t

    def expect_kind(self, kind: str, what: str) -> Token:
        if self.kind() != kind:
            raise self.error(f"expected {what}, found {self.describe()}")
        return self.advance()

    def expect_eof(self) -> None:
        if self.kind() != "eof":
            raise self.error(f"unexpected {self.describe()} after the end of the input")

    def location(self, tok: Token) -> Location:
        return self.src.location(tok[2])

    def expect_int(self, what: str) -> int:
        neg = self.accept("-")
        t = self.tok
        if t[0] != "int":
            raise self.error(f"expected {what} (an integer), found {self.describe()}")
        self.i += 1
        v = int(t[1])
        return -v if neg else v

    # ---- module ----------------------------------------------------------------------
    def parse_module(self) -> ModuleOp:
        module: ModuleOp | None = None
        implicit: ModuleOp | None = None
        while self.kind() != "eof":
            t = self.tok
            if t[0] == "hash":
                self.parse_alias_definition()
            elif self.at("module") or self.at("builtin.module"):
                if module is not None or implicit is not None:
                    raise self.error("only one top-level module is supported")
                module = self.parse_module_op()
            elif t[0] == "bare" and t[1] in ("func.func", "func"):
                if module is not None:
                    raise self.error("a function after the top-level module must be inside it")
                if implicit is None:
                    implicit = ModuleOp(loc=self.location(t))
                self.block = implicit.body
                self.parse_func()
            else:
                raise self.error(f"expected 'module', 'func.func' or an alias definition at top "
                                 f"level, found {self.describe()}")
        result = module or implicit or ModuleOp(loc=self.src.location(0))
        self.resolve_pending_locs()
        return result

    def parse_module_op(self) -> ModuleOp:
        t = self.advance()  # `module` or `builtin.module`
        module = ModuleOp(loc=self.location(t))
        if self.kind() == "at":
            self.advance()  # module @name: the name carries no meaning for us
        if self.accept("attributes"):
            self.skip_attr_dict()
        self.expect("{", "to open the module body")
        self.block = module.body
        while not self.at("}"):
            tk = self.tok
            if tk[0] == "bare" and tk[1] in ("func.func", "func"):
                self.parse_func()
            elif tk[0] == "eof":
                raise self.error("expected '}' to close the module, found end of file")
            else:
                raise self.error(f"expected 'func.func' inside module, found {self.describe()}")
        self.advance()
        self.parse_trailing_loc(module)
        return module

    def skip_attr_dict(self) -> None:
        """Skip `{...}`; attributes we do not model carry no meaning for the IR."""
        self.expect("{", "to open an attribute dictionary")
        depth = 1
        while depth:
            t = self.advance()
            if t[0] == "eof":
                raise self.error("unterminated attribute dictionary", t)
            if t[1] == "{" and t[0] == "punct":
                depth += 1
            elif t[1] == "}" and t[0] == "punct":
                depth -= 1

    # ---- aliases ---------------------------------------------------------------------
    def parse_alias_definition(self) -> None:
        name_tok = self.advance()
        name = name_tok[1]
        self.expect("=", f"after alias name '{name}'")
        if name in self.map_aliases or name in self.set_aliases or name in self.loc_aliases:
            raise self.error(f"redefinition of alias '{name}'", name_tok)
        if self.at("affine_map"):
            self.map_aliases[name] = self.parse_affine_map_attr()
        elif self.at("affine_set"):
            self.set_aliases[name] = self.parse_affine_set_attr()
        elif self.at("loc"):
            self.loc_aliases[name] = self.parse_loc_body(None)
        else:
            raise self.error(f"expected 'affine_map<', 'affine_set<' or 'loc(' after '{name} =', "
                             f"found {self.describe()}")

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

    # ---- affine maps, sets, expressions -------------------------------------------------
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
            return Const(int(t[1]))
        if t[0] == "punct":
            if t[1] == "-":
                self.i += 1
                return -self.parse_affine_unary(atom, symbolic)
            if t[1] == "(":
                self.i += 1
                e = self.parse_affine_expr(atom, symbolic)
                self.expect(")", "to close the parenthesized affine expression")
                return e
        return atom()

    def parse_index_list(self) -> tuple[AffineMap, list[Value]]:
        """`[%i + 1, symbol(%n), 0]` after a memref operand -> (map, dims + symbols).

        Index lists repeat verbatim all over a file; a list spelled like one seen before, whose
        operands classify the same way (dim or symbol), reuses that parse.
        """
        lb = self.expect("[", "to open the index list")
        toks = self.toks
        j = self.i
        while toks[j][1] != "]" and toks[j][0] != "eof":
            j += 1
        key = self.src.text[lb[2]:toks[j][2]]
        names = self.index_names.get(key)
        if names is not None:
            values: list[Value] = []
            flags: list[bool] = []
            for name, explicit in names:
                v = self.lookup(name)
                if v is None or v.type != INDEX:
                    break  # let the full parse report it
                values.append(v)
                flags.append(explicit or is_valid_symbol(v))
            else:
                found = self.index_maps.get((key, tuple(flags)))
                if found is not None:
                    self.i = j + 1
                    return found[0], [values[k] for k in found[1]]
        m, operands, seen = self.parse_index_list_body()
        self.index_names[key] = tuple((name, explicit) for _, name, explicit, _ in seen)
        order = {id(v): k for k, (v, _, _, _) in enumerate(seen)}
        flags = tuple(is_sym for _, _, _, is_sym in seen)
        self.index_maps[(key, flags)] = (m, [order[id(v)] for v in operands])
        return m, operands

    def lookup(self, name_with_index: str) -> Value | None:
        name, _, idx = name_with_index[1:].partition("#")
        k = int(idx) if idx else 0
        for scope in reversed(self.scopes):
            vals = scope.get(name)
            if vals is not None:
                return vals[k] if k < len(vals) else None
        return None

    def parse_index_list_body(
            self) -> tuple[AffineMap, list[Value], list[tuple[Value, str, bool, bool]]]:
        """(map, operands, [(value, name, written as symbol(), is a symbol)] by first use)."""
        values: list[Value] = []
        names: list[str] = []
        explicit_flags: list[bool] = []
        is_sym: list[bool] = []
        position: dict[int, int] = {}

        def atom() -> AffineExpr:
            t = self.tok
            explicit_sym = False
            if t[0] == "bare" and t[1] == "symbol":
                self.i += 1
                self.expect("(", "after 'symbol'")
                explicit_sym = True
                t = self.tok
            if t[0] != "pct":
                raise self.error(f"expected an SSA value, an integer or '(' in an affine index, "
                                 f"found {self.describe()}")
            v = self.use_value(t)
            self.i += 1
            if v.type is not INDEX and v.type != INDEX:
                raise self.error(f"affine index operand '{t[1]}' must have type index, "
                                 f"found {v.type}", t)
            if explicit_sym:
                self.expect(")", "to close 'symbol('")
            k = position.get(id(v))
            if k is None:
                k = len(values)
                position[id(v)] = k
                values.append(v)
                names.append(t[1])
                explicit_flags.append(explicit_sym)
                is_sym.append(explicit_sym or is_valid_symbol(v))
            elif explicit_sym and not is_sym[k]:
                is_sym[k] = True
                explicit_flags[k] = True
            return Dim(k)

        def symbolic(e: AffineExpr) -> bool:
            return all(not isinstance(a, Dim) or is_sym[a.pos] for a in e.atoms())

        exprs: list[AffineExpr] = []
        toks = self.toks
        if not self.at("]"):
            while True:
                t = toks[self.i]
                follow = toks[self.i + 1][1]
                if follow == "," or follow == "]":
                    # Fast path for the common `%i` and `0` subscripts.
                    if t[0] == "pct":
                        exprs.append(atom())
                    elif t[0] == "int":
                        self.i += 1
                        exprs.append(Const(int(t[1])))
                    else:
                        exprs.append(self.parse_affine_expr(atom, symbolic))
                else:
                    exprs.append(self.parse_affine_expr(atom, symbolic))
                if not self.accept(","):
                    break
        self.expect("]", "to close the index list")
        seen = list(zip(values, names, explicit_flags, is_sym, strict=True))
        if not values:
            return AffineMap(0, 0, tuple(exprs)), [], seen
        if len(values) == 1:
            if is_sym[0]:
                return AffineMap(0, 1, tuple(e.substitute([Sym(0)], ()) for e in exprs)), values, seen
            return AffineMap(1, 0, tuple(exprs)), values, seen
        dims = [k for k in range(len(values)) if not is_sym[k]]
        syms = [k for k in range(len(values)) if is_sym[k]]
        if not syms:
            return (*_print_order(AffineMap(len(dims), 0, tuple(exprs)), values), seen)
        remap: list[AffineExpr] = [Const(0)] * len(values)
        for j, k in enumerate(dims):
            remap[k] = Dim(j)
        for j, k in enumerate(syms):
            remap[k] = Sym(j)
        results = tuple(e.substitute(remap, ()) for e in exprs)
        m, operands = _print_order(AffineMap(len(dims), len(syms), results),
                                   [values[k] for k in dims + syms])
        return m, operands, seen

    # ---- types -------------------------------------------------------------------------
    def parse_type(self) -> Type:
        t = self.tok
        if t[0] == "bare":
            et = ELEMENT_TYPES.get(t[1])
            if et is not None:
                self.i += 1
                return et
            if t[1] == "memref":
                return self.parse_memref_type()
            if t[1] in ("tensor", "vector"):
                raise self.error(f"unsupported type '{t[1]}' (accelsim supports memref and scalar types)")
        if t[1] == "(":
            return self.parse_function_type()
        raise self.error(f"expected a type, found {self.describe()}")

    def parse_element_type(self) -> ElementType:
        t = self.tok
        et = ELEMENT_TYPES.get(t[1]) if t[0] == "bare" else None
        if et is None:
            raise self.error(f"expected a scalar type (f32, f64, i32, i64, index, ...), "
                             f"found {self.describe()}")
        self.i += 1
        return et

    def parse_memref_type(self) -> MemRefType:
        self.i += 1  # `memref`
        lt = self.expect("<", "after 'memref'")
        # Types repeat a lot in real files: reuse the parse of an identical spelling.
        close = self.src.text.find(">", lt[2])
        key = self.src.text[lt[2]:close]
        cached = self.type_cache.get(key)
        if cached is not None:
            toks, i = self.toks, self.i
            while toks[i][1] != ">":
                i += 1
            self.i = i + 1
            return cached
        ty = self.parse_memref_type_body()
        self.type_cache[key] = ty
        return ty

    def parse_memref_type_body(self) -> MemRefType:
        # `32x?x16xf32` lexes as int, bare `x`..., `?` ...: glue the adjacent tokens back.
        first = self.tok
        parts: list[str] = []
        end = first[2]
        while self.tok[0] in ("int", "bare", "punct") and self.tok[1] not in (",", ">") \
                and self.tok[2] == end:
            t = self.advance()
            parts.append(t[1])
            end = t[2] + len(t[1])
        spelled = "".join(parts)
        pieces = spelled.split("x")
        shape: list[int | None] = []
        for p in pieces[:-1]:
            if p == "?":
                shape.append(None)
            elif p.isdigit():
                shape.append(int(p))
            else:
                raise self.error(f"invalid memref dimension '{p}' in '{spelled}'", first)
        et = ELEMENT_TYPES.get(pieces[-1])
        if et is None:
            raise self.error(f"expected a memref element type, found '{pieces[-1] or self.tok[1]}'", first)
        space = 0
        if self.accept(","):
            t = self.tok
            if t[0] == "int":
                self.i += 1
                space = int(t[1])
                if self.accept(":"):
                    self.parse_element_type()
            elif t[1] == "-" and self.toks[self.i + 1][0] == "int":
                raise self.error(f"memory space must be >= 0, found -{self.toks[self.i + 1][1]}")
            else:
                raise self.error(f"unsupported memref layout or memory space {self.describe()} "
                                 f"(expected an integer memory space)")
        self.expect(">", "to close 'memref<'")
        return MemRefType(tuple(shape), et, space)

    def parse_function_type(self) -> FunctionType:
        self.expect("(")
        ins: list[Type] = []
        if not self.at(")"):
            while True:
                ins.append(self.parse_type())
                if not self.accept(","):
                    break
        self.expect(")", "to close the function input types")
        self.expect("->", "in function type")
        return FunctionType(tuple(ins), tuple(self.parse_result_types()))

    def parse_result_types(self) -> list[Type]:
        if self.accept("("):
            out: list[Type] = []
            if not self.at(")"):
                while True:
                    out.append(self.parse_type())
                    if not self.accept(","):
                        break
            self.expect(")", "to close the result type list")
            return out
        return [self.parse_type()]

    def parse_type_list(self, n: int, what: str) -> list[Type]:
        out = [self.parse_type()]
        while self.accept(","):
            out.append(self.parse_type())
        if len(out) != n:
            raise self.error(f"{what}: expected {n} types, found {len(out)}")
        return out

    # ---- SSA values ----------------------------------------------------------------------
    def use_value(self, t: Token) -> Value:
        name, _, idx = t[1][1:].partition("#")
        for scope in reversed(self.scopes):
            vals = scope.get(name)
            if vals is not None:
                k = int(idx) if idx else 0
                if k >= len(vals):
                    raise self.error(f"'%{name}' has {len(vals)} results, no result #{k}", t)
                return vals[k]
        raise self.error(f"use of undefined SSA value '%{name}'", t)

    def parse_operand(self, type: Type | None = None) -> Value:
        t = self.tok
        if t[0] != "pct":
            raise self.error(f"expected an SSA operand, found {self.describe()}")
        v = self.use_value(t)
        self.i += 1
        if type is not None and v.type != type:
            raise self.error(f"'{t[1]}' has type {v.type}, but {type} is expected here", t)
        return v

    def parse_operand_list(self) -> list[tuple[Value, Token]]:
        out = [(self.parse_operand(), self.toks[self.i - 1])]
        while self.accept(","):
            out.append((self.parse_operand(), self.toks[self.i - 1]))
        return out

    def check_type(self, v: Value, t: Token, type: Type) -> None:
        if v.type != type:
            raise self.error(f"'{t[1]}' has type {v.type}, but the op's type is {type}", t)

    def define(self, t: Token, values: list[Value]) -> None:
        name = t[1][1:]
        if "#" in name:
            raise self.error(f"cannot define a result with '#': '{t[1]}'", t)
        for scope in self.scopes:
            if name in scope:
                raise self.error(f"redefinition of SSA value '{t[1]}'", t)
        self.scopes[-1][name] = values
        if not name[0].isdigit():
            values[0].name_hint = name

    def parse_value_def(self) -> Token:
        return self.expect_kind("pct", "an SSA name")

    # ---- functions ------------------------------------------------------------------------
    def parse_func(self) -> None:
        start = self.advance()
        if start[1] == "func":
            raise self.error("expected 'func.func' (the bare 'func' form is not supported)", start)
        private = False
        if self.tok[0] == "bare" and self.tok[1] in ("private", "public", "nested"):
            private = self.advance()[1] == "private"
        name_tok = self.expect_kind("at", "a function name ('@name')")
        name = name_tok[1][1:].strip('"')
        self.expect("(", "to open the argument list")
        arg_toks: list[Token | None] = []
        arg_types: list[Type] = []
        if not self.at(")"):
            while True:
                if self.kind() == "pct":
                    arg_toks.append(self.advance())
                    self.expect(":", "after the argument name")
                else:
                    arg_toks.append(None)
                arg_types.append(self.parse_type())
                if self.at("{"):
                    self.skip_attr_dict()
                if self.at("loc"):
                    self.parse_loc_body(None)
                if not self.accept(","):
                    break
        self.expect(")", "to close the argument list")
        results: list[Type] = []
        if self.accept("->"):
            results = self.parse_result_types()
        if self.accept("attributes"):
            self.skip_attr_dict()
        ftype = FunctionType(tuple(arg_types), tuple(results))
        has_body = self.at("{")
        named = [t for t in arg_toks if t is not None]
        if has_body and len(named) != len(arg_toks):
            bad = next(i for i, t in enumerate(arg_toks) if t is None)
            raise self.error(f"function '@{name}' has a body, so argument #{bad} needs a name "
                             f"('%name: type')", name_tok)
        names = [t[1][1:] if t is not None and not t[1][1].isdigit() else None for t in arg_toks]
        f = FuncOp(name, ftype, names, loc=self.location(start), private=private,
                   declaration=not has_body)
        assert self.block is not None
        outer_block = self.block
        outer_block.append(f)
        if has_body:
            saved_scopes = self.scopes
            self.scopes = [{}]
            for t, a in zip(arg_toks, f.args, strict=True):
                assert t is not None
                self.define(t, [a])
            self.parse_region_body(f.body, "func.return")
            self.scopes = saved_scopes
            self.block = outer_block
        self.parse_trailing_loc(f)

    def parse_region_body(self, block: Block, terminator: str) -> None:
        """`{ ops }` into `block`; a missing affine.yield is added as MLIR does."""
        self.expect("{", "to open a region")
        if self.tok[0] == "punct" and self.tok[1] == "^":
            raise self.error("block labels are not supported (accelsim regions have one block)")
        saved = self.block
        self.block = block
        while not self.at("}"):
            if self.kind() == "eof":
                raise self.error("expected '}' to close the region, found end of file")
            self.parse_operation()
        close = self.advance()
        if terminator == "affine.yield" and (not block.ops or not block.ops[-1].IS_TERMINATOR):
            block.append(AffineYieldOp(loc=self.location(close)))
        elif terminator == "func.return" and (not block.ops or not block.ops[-1].IS_TERMINATOR):
            raise self.error("function body must end with 'return' (func.return)", close)
        self.block = saved

    # ---- operations ---------------------------------------------------------------------
    def parse_operation(self) -> None:
        first = self.tok
        result_toks: list[Token] = []
        group = 0
        if first[0] == "pct":
            while True:
                result_toks.append(self.parse_value_def())
                if self.accept(":"):
                    group = self.expect_int("a result count")
                if not self.accept(","):
                    break
            self.expect("=", "after the result names")
        name_tok = self.tok
        if name_tok[0] == "str":
            raise self.error(f"unknown op {name_tok[1]} (generic op syntax is not supported)")
        if name_tok[0] != "bare":
            raise self.error(f"expected an operation name, found {self.describe()}")
        handler = _OPS.get(name_tok[1])
        if handler is None:
            raise self.error(f"unknown op '{name_tok[1]}'")
        self.i += 1
        loc = self.location(first)
        op = handler(self, loc)
        n_expected = len(op.results)
        n_given = group if group else len(result_toks)
        if group and len(result_toks) != 1:
            raise self.error("a result group ('%x:N') must be the only result name", first)
        if n_given != n_expected:
            raise self.error(f"'{name_tok[1]}' defines {n_expected} result(s) but {n_given} "
                             f"name(s) were given", first)
        if group:
            self.define(result_toks[0], list(op.results))
        else:
            for t, r in zip(result_toks, op.results, strict=True):
                self.define(t, [r])
        self.parse_trailing_loc(op)

    def insert(self, op: Operation) -> Operation:
        assert self.block is not None
        self.block.append(op)
        return op

    # ---- locations -------------------------------------------------------------------------
    def parse_trailing_loc(self, op: Operation) -> None:
        if self.at("loc"):
            self.parse_loc_body(op)

    def parse_loc_body(self, op: Operation | None) -> _LocRef:
        """`loc(...)`; with `op`, sets its location (alias references are resolved at the end)."""
        self.expect("loc")
        self.expect("(", "after 'loc'")
        ref = self.parse_loc_inner()
        self.expect(")", "to close 'loc('")
        if op is not None:
            if isinstance(ref, Location):
                op.loc = ref
            elif ref is not None:
                self.pending_locs.append((op, ref))
        return ref

    def parse_loc_inner(self) -> _LocRef:
        """A location: "file":line:col, "name"(child), unknown, #alias, fused[...], callsite(...).

        Fused and call-site locations keep their first component: the op's own position.
        """
        t = self.tok
        if t[0] == "str":
            self.i += 1
            fname = _unescape(t[1][1:-1])
            if self.accept(":"):
                line = self.expect_int("a line number")
                self.expect(":", "between line and column in loc(...)")
                col = self.expect_int("a column number")
                return Location(fname, line, col)
            if self.accept("("):  # a named location wrapping a child location
                child = self.parse_loc_inner()
                self.expect(")", "to close the named location")
                return child
            return Location(fname, 0, 0)
        if t[0] == "hash":
            self.i += 1
            return ("alias", t[1], t[2])
        if t[0] == "bare" and t[1] == "unknown":
            self.i += 1
            return None
        if t[0] == "bare" and t[1] == "fused":
            self.i += 1
            if self.at("<"):
                self.skip_balanced("<", ">")
            self.expect("[", "after 'fused'")
            parts = [self.parse_loc_inner()]
            while self.accept(","):
                parts.append(self.parse_loc_inner())
            self.expect("]", "to close the fused location")
            known = [p for p in parts if p is not None]
            if all(isinstance(p, Location) for p in known):
                return known[0] if known else None
            return known  # contains aliases: the first that resolves wins, at the end
        if t[0] == "bare" and t[1] == "callsite":
            self.i += 1
            self.expect("(", "after 'callsite'")
            callee = self.parse_loc_inner()
            self.expect("at", "in callsite(callee at caller)")
            self.parse_loc_inner()
            self.expect(")", "to close the callsite location")
            return callee
        raise self.error(f"unsupported location {self.describe()} (expected \"file\":line:col, "
                         f"unknown, #alias, fused[...] or callsite(...))")

    def skip_balanced(self, open_: str, close: str) -> None:
        self.expect(open_)
        depth = 1
        while depth:
            t = self.advance()
            if t[0] == "eof":
                raise self.error(f"unterminated '{open_}'", t)
            if t[1] == open_:
                depth += 1
            elif t[1] == close:
                depth -= 1

    def resolve_loc(self, ref: _LocRef) -> Location | None:
        if isinstance(ref, list):
            for part in ref:
                loc = self.resolve_loc(part)
                if loc is not None:
                    return loc
            return None
        seen: set[str] = set()
        while isinstance(ref, tuple):
            _, name, offset = ref
            if name not in self.loc_aliases:
                raise self.src.error(offset, f"undefined location alias '{name}'")
            if name in seen:
                raise self.src.error(offset, f"location alias '{name}' refers to itself")
            seen.add(name)
            ref = self.loc_aliases[name]
            if isinstance(ref, list):
                return self.resolve_loc(ref)
        return ref

    def resolve_pending_locs(self) -> None:
        for op, ref in self.pending_locs:
            loc = self.resolve_loc(ref)
            if loc is not None:
                op.loc = loc

    # ---- op handlers ------------------------------------------------------------------------
    def parse_bound(self, prefix: str) -> tuple[AffineMap, list[Value]]:
        t = self.tok
        if t[0] == "pct":
            v = self.parse_operand()
            if v.type != INDEX:
                raise self.error(f"loop bound '{t[1]}' must have type index, found {v.type}", t)
            return AffineMap.single_symbol(), [v]
        if t[0] == "int" or (t[0] == "punct" and t[1] == "-"):
            return AffineMap.constant(self.expect_int("a constant loop bound")), []
        has_prefix = self.accept(prefix)
        map_tok = self.tok
        m = self.parse_map_ref()
        operands = self.parse_dim_sym_operands(m, map_tok)
        if m.num_results == 0:
            raise self.error("a loop bound map must have at least one result", map_tok)
        if m.num_results > 1 and not has_prefix:
            which = "lower" if prefix == "max" else "upper"
            raise self.error(f"{which} loop bound map with {m.num_results} results needs the "
                             f"'{prefix}' prefix", map_tok)
        return m, operands

    def parse_dim_sym_operands(self, m: AffineMap, map_tok: Token) -> list[Value]:
        dims: list[Value] = []
        syms: list[Value] = []
        self.expect("(", "to open the dim operand list")
        if not self.at(")"):
            dims = [self.parse_operand(INDEX)]
            while self.accept(","):
                dims.append(self.parse_operand(INDEX))
        self.expect(")", "to close the dim operand list")
        if self.accept("["):
            if not self.at("]"):
                syms = [self.parse_operand(INDEX)]
                while self.accept(","):
                    syms.append(self.parse_operand(INDEX))
            self.expect("]", "to close the symbol operand list")
        if len(dims) != m.num_dims:
            raise self.error(f"the map takes {m.num_dims} dim operand(s) but {len(dims)} were given",
                             map_tok)
        if len(syms) != m.num_symbols:
            raise self.error(f"the map takes {m.num_symbols} symbol operand(s) but {len(syms)} "
                             f"were given", map_tok)
        return dims + syms

    def op_for(self, loc: Location) -> Operation:
        iv_tok = self.parse_value_def()
        if self.at("loc"):
            self.parse_loc_body(None)  # mlir-opt --mlir-print-debuginfo locates the IV too
        self.expect("=", "after the induction variable")
        lmap, lops = self.parse_bound("max")
        self.expect("to", "between the loop bounds")
        umap, uops = self.parse_bound("min")
        step = 1
        if self.accept("step"):
            step_tok = self.tok
            step = self.expect_int("a step")
            if step <= 0:
                raise self.error(f"affine.for step must be positive, found {step}", step_tok)
        iter_toks: list[Token] = []
        inits: list[Value] = []
        if self.accept("iter_args"):
            self.expect("(", "after 'iter_args'")
            while True:
                iter_toks.append(self.parse_value_def())
                if self.at("loc"):
                    self.parse_loc_body(None)
                self.expect("=", "in iter_args")
                inits.append(self.parse_operand())
                if not self.accept(","):
                    break
            self.expect(")", "to close iter_args")
            arrow = self.expect("->", "after iter_args (the result types)")
            types = self.parse_result_types()
            if len(types) != len(inits):
                raise self.error(f"iter_args has {len(inits)} value(s) but {len(types)} result "
                                 f"type(s)", arrow)
            for v, ty, t in zip(inits, types, iter_toks, strict=True):
                if v.type != ty:
                    raise self.error(f"iter_arg '{t[1]}' is initialized with a value of type "
                                     f"{v.type} but declared {ty}", t)
        op = AffineForOp(lmap, lops, umap, uops, step, inits, loc=loc)
        self.insert(op)
        self.scopes.append({})
        self.define(iv_tok, [op.iv])
        for t, a in zip(iter_toks, op.region_iter_args, strict=True):
            self.define(t, [a])
        self.parse_region_body(op.body, "affine.yield")
        self.scopes.pop()
        return op

    def op_if(self, loc: Location) -> Operation:
        set_tok = self.tok
        iset = self.parse_set_ref()
        dims: list[Value] = []
        syms: list[Value] = []
        self.expect("(", "to open the affine.if dim operands")
        if not self.at(")"):
            dims = [self.parse_operand(INDEX)]
            while self.accept(","):
                dims.append(self.parse_operand(INDEX))
        self.expect(")", "to close the affine.if dim operands")
        if self.accept("["):
            if not self.at("]"):
                syms = [self.parse_operand(INDEX)]
                while self.accept(","):
                    syms.append(self.parse_operand(INDEX))
            self.expect("]", "to close the affine.if symbol operands")
        if len(dims) != iset.num_dims or len(syms) != iset.num_symbols:
            raise self.error(f"the integer set takes {iset.num_dims} dim and {iset.num_symbols} "
                             f"symbol operand(s) but {len(dims)} and {len(syms)} were given", set_tok)
        types: list[Type] = []
        if self.accept("->"):
            types = self.parse_result_types()
        op = AffineIfOp(iset, dims + syms, types, loc=loc)
        self.insert(op)
        self.scopes.append({})
        self.parse_region_body(op.then_block, "affine.yield")
        self.scopes.pop()
        if self.accept("else"):
            self.scopes.append({})
            self.parse_region_body(op.else_block, "affine.yield")
            self.scopes.pop()
        return op

    def op_map(self, cls: type, loc: Location) -> Operation:
        map_tok = self.tok
        m = self.parse_map_ref()
        operands = self.parse_dim_sym_operands(m, map_tok)
        if cls is AffineApplyOp and m.num_results != 1:
            raise self.error(f"affine.apply needs a map with one result, found {m.num_results}", map_tok)
        if m.num_results == 0:
            raise self.error(f"{cls.NAME} needs a map with at least one result", map_tok)
        return self.insert(cls(m, operands, loc=loc))

    def parse_memref_access(self) -> tuple[Value, Token, AffineMap, list[Value]]:
        t = self.tok
        mem = self.parse_operand()
        if not isinstance(mem.type, MemRefType):
            raise self.error(f"'{t[1]}' has type {mem.type}, expected a memref", t)
        m, idx = self.parse_index_list()
        return mem, t, m, idx

    def expect_memref_type(self, mem: Value, mem_tok: Token) -> None:
        self.expect(":", "before the memref type")
        t = self.tok
        ty = self.parse_type()
        if ty != mem.type:
            raise self.error(f"type {ty} does not match the type of '{mem_tok[1]}' ({mem.type})", t)

    def op_load(self, loc: Location) -> Operation:
        mem, t, m, idx = self.parse_memref_access()
        self.expect_memref_type(mem, t)
        return self.insert(AffineLoadOp(mem, m, idx, loc=loc))

    def op_store(self, loc: Location) -> Operation:
        v = self.parse_operand()
        self.expect(",", "between the stored value and the memref")
        mem, t, m, idx = self.parse_memref_access()
        self.expect_memref_type(mem, t)
        return self.insert(AffineStoreOp(v, mem, m, idx, loc=loc))

    def op_dma_start(self, loc: Location) -> Operation:
        src, st, sm, si = self.parse_memref_access()
        self.expect(",", "after the DMA source")
        dst, dt, dm, di = self.parse_memref_access()
        self.expect(",", "after the DMA destination")
        tag, tt, tm, ti = self.parse_memref_access()
        self.expect(",", "after the DMA tag")
        n = self.parse_operand(INDEX)
        stride = per = None
        if self.accept(","):
            stride = self.parse_operand(INDEX)
            self.expect(",", "after the DMA stride (stride and elements per stride come together)")
            per = self.parse_operand(INDEX)
        self.expect(":", "before the DMA memref types")
        for mem, tok, what in ((src, st, "source"), (dst, dt, "destination"), (tag, tt, "tag")):
            ty_tok = self.tok
            ty = self.parse_type()
            if ty != mem.type:
                raise self.error(f"DMA {what} type {ty} does not match the type of '{tok[1]}' "
                                 f"({mem.type})", ty_tok)
            if what != "tag":
                self.expect(",", "between the DMA memref types")
        return self.insert(AffineDmaStartOp(src, sm, si, dst, dm, di, tag, tm, ti, n, stride, per,
                                            loc=loc))

    def op_dma_wait(self, loc: Location) -> Operation:
        tag, tt, tm, ti = self.parse_memref_access()
        self.expect(",", "after the DMA tag")
        n = self.parse_operand(INDEX)
        self.expect_memref_type(tag, tt)
        return self.insert(AffineDmaWaitOp(tag, tm, ti, n, loc=loc))

    def op_yield(self, loc: Location) -> Operation:
        values: list[Value] = []
        if self.kind() == "pct":
            pairs = self.parse_operand_list()
            self.expect(":", "before the yielded types")
            types = self.parse_type_list(len(pairs), "affine.yield")
            for (v, t), ty in zip(pairs, types, strict=True):
                self.check_type(v, t, ty)
            values = [v for v, _ in pairs]
        return self.insert(AffineYieldOp(values, loc=loc))

    def op_alloc(self, cls: type, loc: Location) -> Operation:
        self.expect("(", f"after '{cls.NAME}'")
        sizes: list[Value] = []
        if not self.at(")"):
            sizes = [self.parse_operand(INDEX)]
            while self.accept(","):
                sizes.append(self.parse_operand(INDEX))
        self.expect(")", f"to close the {cls.NAME} size operands")
        if self.at("["):
            raise self.error(f"symbol operands of {cls.NAME} are not supported")
        alignment = None
        if self.at("{"):
            alignment = self.parse_alignment_attr()
        self.expect(":", "before the memref type")
        ty_tok = self.tok
        ty = self.parse_type()
        if not isinstance(ty, MemRefType):
            raise self.error(f"{cls.NAME} must produce a memref, found {ty}", ty_tok)
        dyn = sum(1 for d in ty.shape if d is None)
        if dyn != len(sizes):
            raise self.error(f"{ty} has {dyn} dynamic dimension(s) but {len(sizes)} size "
                             f"operand(s) were given", ty_tok)
        return self.insert(cls(ty, sizes, loc=loc, alignment=alignment))

    def parse_alignment_attr(self) -> int:
        self.expect("{")
        key = self.expect_kind("bare", "an attribute name")
        if key[1] != "alignment":
            raise self.error(f"unsupported attribute '{key[1]}' (only 'alignment' is known)", key)
        self.expect("=", "after 'alignment'")
        value = self.expect_int("an alignment")
        if self.accept(":"):
            self.parse_element_type()
        self.expect("}", "to close the attribute dictionary")
        return value

    def op_dealloc(self, loc: Location) -> Operation:
        t = self.tok
        mem = self.parse_operand()
        self.expect_memref_type(mem, t)
        return self.insert(DeallocOp(mem, loc=loc))

    def op_constant(self, loc: Location) -> Operation:
        t = self.tok
        if t[0] == "bare" and t[1] in ("true", "false"):
            self.i += 1
            ty: Type = ELEMENT_TYPES["i1"]
            if self.accept(":"):
                ty = self.parse_element_type()
            if ty != ELEMENT_TYPES["i1"]:
                raise self.error(f"'{t[1]}' needs type i1, found {ty}", t)
            return self.insert(ConstantOp(t[1] == "true", ty, loc=loc))  # type: ignore[arg-type]
        neg = self.accept("-")
        t = self.tok
        if t[0] not in ("int", "float", "hex"):
            raise self.error(f"expected a constant value, found {self.describe()}")
        self.i += 1
        self.expect(":", "before the constant's type")
        ty_tok = self.tok
        ty = self.parse_element_type()
        value: int | float
        if t[0] == "hex":
            if not ty.is_float:
                value = int(t[1], 16)
            else:
                value = _float_from_bits(t[1], ty, self, t)
            if neg:
                raise self.error("a hexadecimal constant cannot be negated", t)
        elif t[0] == "float":
            if not ty.is_float:
                raise self.error(f"float literal {t[1]} is not valid for type {ty}", ty_tok)
            value = float(t[1])
        else:
            value = int(t[1]) if not ty.is_float else float(t[1])
        if neg:
            value = -value
        if ty.is_float:
            value = _round_to(value, ty)
        elif ty.is_int and ty.bitwidth > 1:
            lo, hi = -(1 << (ty.bitwidth - 1)), (1 << ty.bitwidth) - 1
            if not lo <= value <= hi:
                raise self.error(f"integer constant {value} does not fit in {ty}", t)
        return self.insert(ConstantOp(value, ty, loc=loc))

    def op_binary(self, cls: type, loc: Location) -> Operation:
        a = self.parse_operand()
        at = self.toks[self.i - 1]
        self.expect(",", f"between the operands of {cls.NAME}")
        b = self.parse_operand()
        bt = self.toks[self.i - 1]
        if self.at("fastmath") or self.at("overflow"):
            raise self.error(f"'{self.text()}' flags are not supported")
        self.expect(":", "before the operand type")
        ty = self.parse_type()
        self.check_type(a, at, ty)
        self.check_type(b, bt, ty)
        return self.insert(cls(a, b, loc=loc))

    def op_unary(self, cls: type, loc: Location) -> Operation:
        a = self.parse_operand()
        at = self.toks[self.i - 1]
        if self.at("fastmath"):
            raise self.error("'fastmath' flags are not supported")
        self.expect(":", "before the operand type")
        ty = self.parse_type()
        self.check_type(a, at, ty)
        return self.insert(cls(a, loc=loc))

    def op_cmp(self, cls: type, loc: Location) -> Operation:
        pt = self.expect_kind("bare", "a comparison predicate")
        allowed = CMPF_PREDICATES if cls is CmpFOp else CMPI_PREDICATES
        if pt[1] not in allowed:
            raise self.error(f"unknown {cls.NAME} predicate '{pt[1]}' (expected one of "
                             f"{', '.join(allowed)})", pt)
        self.expect(",", "after the predicate")
        a = self.parse_operand()
        at = self.toks[self.i - 1]
        self.expect(",", "between the compared operands")
        b = self.parse_operand()
        bt = self.toks[self.i - 1]
        self.expect(":", "before the operand type")
        ty = self.parse_type()
        self.check_type(a, at, ty)
        self.check_type(b, bt, ty)
        return self.insert(cls(pt[1], a, b, loc=loc))

    def op_select(self, loc: Location) -> Operation:
        c = self.parse_operand()
        ct = self.toks[self.i - 1]
        self.expect(",", "after the select condition")
        a = self.parse_operand()
        at = self.toks[self.i - 1]
        self.expect(",", "between the select operands")
        b = self.parse_operand()
        bt = self.toks[self.i - 1]
        self.expect(":", "before the select type")
        ty = self.parse_type()
        if self.accept(","):
            ty_c, ty = ty, self.parse_type()
            self.check_type(c, ct, ty_c)
        else:
            self.check_type(c, ct, ELEMENT_TYPES["i1"])
        self.check_type(a, at, ty)
        self.check_type(b, bt, ty)
        return self.insert(SelectOp(c, a, b, loc=loc))

    def op_cast(self, cls: type, loc: Location) -> Operation:
        a = self.parse_operand()
        at = self.toks[self.i - 1]
        self.expect(":", "before the source type")
        src = self.parse_type()
        self.check_type(a, at, src)
        self.expect("to", "between the source and result types")
        dst = self.parse_type()
        return self.insert(cls(a, dst, loc=loc))

    def op_return(self, loc: Location) -> Operation:
        values: list[Value] = []
        if self.kind() == "pct":
            pairs = self.parse_operand_list()
            self.expect(":", "before the returned types")
            types = self.parse_type_list(len(pairs), "return")
            for (v, t), ty in zip(pairs, types, strict=True):
                self.check_type(v, t, ty)
            values = [v for v, _ in pairs]
        return self.insert(ReturnOp(values, loc=loc))

    def op_call(self, loc: Location) -> Operation:
        callee = self.expect_kind("at", "a callee ('@name')")
        self.expect("(", "to open the call arguments")
        pairs: list[tuple[Value, Token]] = []
        if not self.at(")"):
            pairs = self.parse_operand_list()
        self.expect(")", "to close the call arguments")
        self.expect(":", "before the call's function type")
        ft_tok = self.tok
        ft = self.parse_function_type()
        if len(ft.inputs) != len(pairs):
            raise self.error(f"call has {len(pairs)} argument(s) but its type lists "
                             f"{len(ft.inputs)}", ft_tok)
        for (v, t), ty in zip(pairs, ft.inputs, strict=True):
            self.check_type(v, t, ty)
        return self.insert(CallOp(callee[1][1:].strip('"'), [v for v, _ in pairs], ft.results,
                                  loc=loc))


def _print_order(m: AffineMap, operands: list[Value]) -> tuple[AffineMap, list[Value]]:
    """Renumber dims and symbols in the order the printer writes them.

    Simplification may reorder terms (`%j + %i` becomes d0 + d1 with d0 = %i), so numbering
    by first appearance in the text is not a fixed point; numbering by first appearance in the
    canonical expression is, which makes print(parse(text)) stable after one round.
    """
    for _ in range(4):
        dim_order: list[int] = []
        sym_order: list[int] = []
        for r in m.results:
            for a in r.atoms():
                if isinstance(a, Dim) and a.pos not in dim_order:
                    dim_order.append(a.pos)
                elif isinstance(a, Sym) and a.pos not in sym_order:
                    sym_order.append(a.pos)
        if dim_order == sorted(dim_order) and sym_order == sorted(sym_order):
            return m, operands
        dim_order += [k for k in range(m.num_dims) if k not in dim_order]
        sym_order += [k for k in range(m.num_symbols) if k not in sym_order]
        dmap: list[AffineExpr] = [Const(0)] * m.num_dims
        smap: list[AffineExpr] = [Const(0)] * m.num_symbols
        for new, old in enumerate(dim_order):
            dmap[old] = Dim(new)
        for new, old in enumerate(sym_order):
            smap[old] = Sym(new)
        m = m.substitute(dmap, smap, m.num_dims, m.num_symbols)
        operands = [operands[k] for k in dim_order] + [operands[m.num_dims + k] for k in sym_order]
    return m, operands


def _no_dims(e: AffineExpr) -> bool:
    return all(not isinstance(a, Dim) for a in e.atoms())


def _unescape(s: str) -> str:
    return s.replace('\\"', '"').replace("\\\\", "\\")


def _round_to(value: float, ty: ElementType) -> float:
    """A float constant holds exactly what its type can represent."""
    if ty.bitwidth == 32:
        return float(np.float32(value))
    if ty.bitwidth == 16:
        return float(np.float16(value))
    return float(value)


def _float_from_bits(text: str, ty: ElementType, p: _Parser, t: Token) -> float:
    bits = int(text, 16)
    width = ty.bitwidth
    if bits >= 1 << width:
        raise p.error(f"hexadecimal float {text} has more than {width} bits for {ty}", t)
    fmt = {16: ("<H", "<e"), 32: ("<I", "<f"), 64: ("<Q", "<d")}[width]
    return struct.unpack(fmt[1], struct.pack(fmt[0], bits))[0]


def _handlers() -> dict[str, Callable[[_Parser, Location], Operation]]:
    table: dict[str, Callable[[_Parser, Location], Operation]] = {
        "affine.for": _Parser.op_for,
        "affine.if": _Parser.op_if,
        "affine.apply": lambda p, loc: p.op_map(AffineApplyOp, loc),
        "affine.min": lambda p, loc: p.op_map(AffineMinOp, loc),
        "affine.max": lambda p, loc: p.op_map(AffineMaxOp, loc),
        "affine.load": _Parser.op_load,
        "affine.store": _Parser.op_store,
        "affine.dma_start": _Parser.op_dma_start,
        "affine.dma_wait": _Parser.op_dma_wait,
        "affine.yield": _Parser.op_yield,
        "memref.alloc": lambda p, loc: p.op_alloc(AllocOp, loc),
        "memref.alloca": lambda p, loc: p.op_alloc(AllocaOp, loc),
        "memref.dealloc": _Parser.op_dealloc,
        "arith.constant": _Parser.op_constant,
        "arith.cmpf": lambda p, loc: p.op_cmp(CmpFOp, loc),
        "arith.cmpi": lambda p, loc: p.op_cmp(CmpIOp, loc),
        "arith.select": _Parser.op_select,
        "return": _Parser.op_return,
        "func.return": _Parser.op_return,
        "call": _Parser.op_call,
        "func.call": _Parser.op_call,
    }
    for name, cls in BINARY_OPS.items():
        table[name] = lambda p, loc, c=cls: p.op_binary(c, loc)
    for name, cls in UNARY_OPS.items():
        table[name] = lambda p, loc, c=cls: p.op_unary(c, loc)
    for name, cls in CAST_OPS.items():
        table[name] = lambda p, loc, c=cls: p.op_cast(c, loc)
    return table


_OPS = _handlers()
