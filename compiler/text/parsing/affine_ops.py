"""The affine dialect's custom syntax: affine.for / if / apply / min / max / load / store /
dma_start / dma_wait / yield."""

from __future__ import annotations

from compiler.diagnostics import Location
from compiler.ir.affine_map import AffineMap
from compiler.ir.core import Operation, Value
from compiler.ir.ops import (
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
)
from compiler.ir.types import INDEX, Type
from compiler.text.lexer import Token
from compiler.text.parsing.structure import OpParseFn, OpParser


def parse_bound(p: OpParser, prefix: str) -> tuple[AffineMap, list[Value]]:
    t = p.tok
    if t[0] == "pct":
        v = p.parse_operand()
        if v.type != INDEX:
            raise p.error(f"loop bound '{t[1]}' must have type index, found {v.type}", t)
        return AffineMap.single_symbol(), [v]
    if t[0] == "int" or (t[0] == "punct" and t[1] == "-"):
        c = p.expect_int("a constant loop bound")
        m = p.const_maps.get(c)
        if m is None:
            m = p.const_maps[c] = AffineMap.constant(c)
        return m, []
    has_prefix = p.accept(prefix)
    map_tok = p.tok
    m = p.parse_map_ref()
    operands = parse_dim_sym_operands(p, m, map_tok)
    if m.num_results == 0:
        raise p.error("a loop bound map must have at least one result", map_tok)
    if m.num_results > 1 and not has_prefix:
        which = "lower" if prefix == "max" else "upper"
        raise p.error(f"{which} loop bound map with {m.num_results} results needs the "
                         f"'{prefix}' prefix", map_tok)
    return m, operands


def parse_dim_sym_lists(p: OpParser, dims_what: str, syms_what: str
                        ) -> tuple[list[Value], list[Value]]:
    """`(%d, ...)[%s, ...]`: index operands of a map or set (the symbol list optional)."""
    dims = _index_operands(p, "(", ")", dims_what)
    syms = _index_operands(p, "[", "]", syms_what) if p.at("[") else []
    return dims, syms


def _index_operands(p: OpParser, open_: str, close: str, what: str) -> list[Value]:
    p.expect(open_, f"to open {what}")
    out: list[Value] = []
    if not p.at(close):
        out.append(p.parse_operand(INDEX))
        while p.accept(","):
            out.append(p.parse_operand(INDEX))
    p.expect(close, f"to close {what}")
    return out


def parse_dim_sym_operands(p: OpParser, m: AffineMap, map_tok: Token) -> list[Value]:
    dims, syms = parse_dim_sym_lists(p, "the dim operand list", "the symbol operand list")
    if len(dims) != m.num_dims:
        raise p.error(f"the map takes {m.num_dims} dim operand(s) but {len(dims)} were given",
                         map_tok)
    if len(syms) != m.num_symbols:
        raise p.error(f"the map takes {m.num_symbols} symbol operand(s) but {len(syms)} "
                         f"were given", map_tok)
    return dims + syms


def parse_for(p: OpParser, loc: Location) -> Operation:
    iv_tok = p.parse_value_def()
    if p.at("loc"):
        p.parse_loc_body(None)  # mlir-opt --mlir-print-debuginfo locates the IV too
    p.expect("=", "after the induction variable")
    lmap, lops = parse_bound(p, "max")
    p.expect("to", "between the loop bounds")
    umap, uops = parse_bound(p, "min")
    step = 1
    if p.accept("step"):
        step_tok = p.tok
        step = p.expect_int("a step")
        if step <= 0:
            raise p.error(f"affine.for step must be positive, found {step}", step_tok)
    iter_toks: list[Token] = []
    inits: list[Value] = []
    if p.accept("iter_args"):
        p.expect("(", "after 'iter_args'")
        while True:
            iter_toks.append(p.parse_value_def())
            if p.at("loc"):
                p.parse_loc_body(None)
            p.expect("=", "in iter_args")
            inits.append(p.parse_operand())
            if not p.accept(","):
                break
        p.expect(")", "to close iter_args")
        arrow = p.expect("->", "after iter_args (the result types)")
        types = p.parse_result_types()
        if len(types) != len(inits):
            raise p.error(f"iter_args has {len(inits)} value(s) but {len(types)} result "
                             f"type(s)", arrow)
        for v, ty, t in zip(inits, types, iter_toks, strict=True):
            if v.type != ty:
                raise p.error(f"iter_arg '{t[1]}' is initialized with a value of type "
                                 f"{v.type} but declared {ty}", t)
    op = AffineForOp(lmap, lops, umap, uops, step, inits, loc=loc)
    p.insert(op)
    p.scopes.append({})
    p.define(iv_tok, [op.iv])
    for t, a in zip(iter_toks, op.region_iter_args, strict=True):
        p.define(t, [a])
    p.parse_region_body(op.body, "affine.yield")
    p.scopes.pop()
    return op


def parse_if(p: OpParser, loc: Location) -> Operation:
    set_tok = p.tok
    iset = p.parse_set_ref()
    dims, syms = parse_dim_sym_lists(p, "the affine.if dim operands",
                                     "the affine.if symbol operands")
    if len(dims) != iset.num_dims or len(syms) != iset.num_symbols:
        raise p.error(f"the integer set takes {iset.num_dims} dim and {iset.num_symbols} "
                         f"symbol operand(s) but {len(dims)} and {len(syms)} were given", set_tok)
    types: list[Type] = []
    if p.accept("->"):
        types = p.parse_result_types()
    op = AffineIfOp(iset, dims + syms, types, loc=loc)
    p.insert(op)
    p.scopes.append({})
    p.parse_region_body(op.then_block, "affine.yield")
    p.scopes.pop()
    if p.accept("else"):
        p.scopes.append({})
        p.parse_region_body(op.else_block, "affine.yield")
        p.scopes.pop()
    return op


def parse_map_op(p: OpParser, cls: type, loc: Location) -> Operation:
    map_tok = p.tok
    m = p.parse_map_ref()
    operands = parse_dim_sym_operands(p, m, map_tok)
    if cls is AffineApplyOp and m.num_results != 1:
        raise p.error(f"affine.apply needs a map with one result, found {m.num_results}", map_tok)
    if m.num_results == 0:
        raise p.error(f"{cls.NAME} needs a map with at least one result", map_tok)
    return p.insert(cls(m, operands, loc=loc))


def parse_load(p: OpParser, loc: Location) -> Operation:
    mem, t, m, idx = p.parse_memref_access()
    p.expect_memref_type(mem, t)
    return p.insert(AffineLoadOp(mem, m, idx, loc=loc))


def parse_store(p: OpParser, loc: Location) -> Operation:
    v = p.parse_operand()
    p.expect(",", "between the stored value and the memref")
    mem, t, m, idx = p.parse_memref_access()
    p.expect_memref_type(mem, t)
    return p.insert(AffineStoreOp(v, mem, m, idx, loc=loc))


def parse_dma_start(p: OpParser, loc: Location) -> Operation:
    src, st, sm, si = p.parse_memref_access()
    p.expect(",", "after the DMA source")
    dst, dt, dm, di = p.parse_memref_access()
    p.expect(",", "after the DMA destination")
    tag, tt, tm, ti = p.parse_memref_access()
    p.expect(",", "after the DMA tag")
    n = p.parse_operand(INDEX)
    stride = per = None
    if p.accept(",") and p.kind() == "pct":  # (a trailing comma before ':' is accepted, as upstream does)
        stride = p.parse_operand(INDEX)
        p.expect(",", "after the DMA stride (stride and elements per stride come together)")
        per = p.parse_operand(INDEX)
        p.accept(",")
    p.expect(":", "before the DMA memref types")
    for mem, tok, what in ((src, st, "source"), (dst, dt, "destination"), (tag, tt, "tag")):
        ty_tok = p.tok
        ty = p.parse_type()
        if ty != mem.type:
            raise p.error(f"DMA {what} type {ty} does not match the type of '{tok[1]}' "
                             f"({mem.type})", ty_tok)
        if what != "tag":
            p.expect(",", "between the DMA memref types")
    return p.insert(AffineDmaStartOp(src, sm, si, dst, dm, di, tag, tm, ti, n, stride, per,
                                        loc=loc))


def parse_dma_wait(p: OpParser, loc: Location) -> Operation:
    tag, tt, tm, ti = p.parse_memref_access()
    p.expect(",", "after the DMA tag")
    n = p.parse_operand(INDEX)
    p.expect_memref_type(tag, tt)
    return p.insert(AffineDmaWaitOp(tag, tm, ti, n, loc=loc))


def parse_yield(p: OpParser, loc: Location) -> Operation:
    values: list[Value] = []
    if p.kind() == "pct":
        pairs = p.parse_operand_list()
        p.expect(":", "before the yielded types")
        types = p.parse_type_list(len(pairs), "affine.yield")
        for (v, t), ty in zip(pairs, types, strict=True):
            p.check_type(v, t, ty)
        values = [v for v, _ in pairs]
    return p.insert(AffineYieldOp(values, loc=loc))


OPS: dict[str, OpParseFn] = {
    "affine.for": parse_for,
    "affine.if": parse_if,
    "affine.apply": lambda p, loc: parse_map_op(p, AffineApplyOp, loc),
    "affine.min": lambda p, loc: parse_map_op(p, AffineMinOp, loc),
    "affine.max": lambda p, loc: parse_map_op(p, AffineMaxOp, loc),
    "affine.load": parse_load,
    "affine.store": parse_store,
    "affine.dma_start": parse_dma_start,
    "affine.dma_wait": parse_dma_wait,
    "affine.yield": parse_yield,
}
