"""Index lists of loads, stores and DMA ops (`%A[%i + 1, symbol(%n)]`) -> an AffineMap plus
operands: an operand written `symbol(%x)`, or that is a valid symbol (compiler.ir.scope), is a
symbol; every other one is a dim; both in order of first appearance, the same value once."""

from __future__ import annotations

from compiler.ir.affine_expr import AffineExpr, Const, Dim, Sym
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Value
from compiler.ir.scope import is_valid_symbol
from compiler.ir.types import INDEX, MemRefType
from compiler.text.lexer import Token
from compiler.text.parsing.affine import AffineParser


class IndexListParser(AffineParser):
    def __init__(self, text: str, filename: str):
        super().__init__(text, filename)
        # spelling of an index list -> (its operands: name, result #, written `symbol(...)`;
        # its number of tokens); (spelling, dim/symbol class of each operand) -> (map, order)
        self.index_names: dict[str, tuple[tuple[tuple[str, int, bool], ...], int]] = {}
        self.index_maps: dict[tuple[str, tuple[bool, ...]], tuple[AffineMap, list[int]]] = {}
        self.const_maps: dict[int, AffineMap] = {}  # constant loop bounds, shared (frozen)

    def parse_index_list(self) -> tuple[AffineMap, list[Value]]:
        """`[%i + 1, symbol(%n), 0]` after a memref operand -> (map, dims + symbols).

        Index lists repeat verbatim all over a file; a list spelled like one seen before (up to
        the first ']', which must be the same token: not in a comment), whose operands classify
        the same way (dim or symbol), reuses that parse.
        """
        lb = self.expect("[", "to open the index list")
        text = self.src.text
        close = text.find("]", lb[2])
        key = text[lb[2] + 1:close]
        entry = self.index_names.get(key) if close >= 0 else None
        if entry is not None and self.i + entry[1] < len(self.toks):
            names, ntoks = entry
            t = self.toks[self.i + ntoks]
            if t[2] == close and t[1] == "]":
                values: list[Value] = []
                flags: list[bool] = []
                scopes = self.scopes[::-1]
                for name, k, explicit in names:
                    for scope in scopes:
                        vals = scope.get(name)
                        if vals is not None:
                            break
                    else:
                        break  # let the full parse report it
                    if k >= len(vals):
                        break
                    v = vals[k]
                    if v.type is not INDEX and v.type != INDEX:
                        break
                    values.append(v)
                    flags.append(explicit or is_valid_symbol(v))
                else:
                    found = self.index_maps.get((key, tuple(flags)))
                    if found is not None:
                        self.i += ntoks + 1
                        return found[0], [values[k] for k in found[1]]
        start = self.i
        m, operands, seen = self.parse_index_list_body()
        if close < 0 or self.toks[self.i - 1][2] != close:
            return m, operands  # the first ']' is not the one that closed the list
        self.index_names[key] = (tuple((*_split_use(name), explicit) for _, name, explicit, _ in seen),
                                 self.i - 1 - start)
        order = {id(v): k for k, (v, _, _, _) in enumerate(seen)}
        flags_key = tuple(is_sym for _, _, _, is_sym in seen)
        self.index_maps[(key, flags_key)] = (m, [order[id(v)] for v in operands])
        return m, operands

    def parse_index_list_body(
            self, close: str = "]") -> tuple[AffineMap, list[Value], list[tuple[Value, str, bool, bool]]]:
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
        if not self.at(close):
            while True:
                t = toks[self.i]
                follow = toks[self.i + 1][1]
                if follow == "," or follow == close:
                    # Fast path for the common `%i` and `0` subscripts.
                    if t[0] == "pct":
                        exprs.append(atom())
                    elif t[0] == "int":
                        self.i += 1
                        exprs.append(Const(self.index_literal(t)))
                    else:
                        exprs.append(self.parse_affine_expr(atom, symbolic))
                else:
                    exprs.append(self.parse_affine_expr(atom, symbolic))
                if not self.accept(","):
                    break
        self.expect(close, "to close the index list")
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

    # ---- memref accesses ---------------------------------------------------------------
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


def _split_use(name: str) -> tuple[str, int]:
    """`%x#1` -> ("x", 1); `%x` -> ("x", 0)."""
    base, _, idx = name[1:].partition("#")
    return base, int(idx) if idx else 0


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
