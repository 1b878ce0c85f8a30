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
        self.index_names: dict[str, tuple[tuple[str, bool], ...]] = {}
        self.index_maps: dict[tuple[str, tuple[bool, ...]], tuple[AffineMap, list[int]]] = {}

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
