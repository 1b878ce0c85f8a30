"""print(parse(text)) re-parses to an equal module: hand-written kernels, upstream mlir-opt-19
outputs, locations, and random affine expressions / maps / sets / index lists (hypothesis)."""

from __future__ import annotations

import pathlib
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.diagnostics import Location
from compiler.ir import (
    AffineForOp,
    AffineLoadOp,
    AffineMap,
    Builder,
    Const,
    Dim,
    IntegerSet,
    Sym,
    memref,
)
from compiler.ir.affine_eval import evaluate_map
from compiler.ir.affine_expr import AffineExpr
from compiler.ir.ops import AffineDmaStartOp, AffineStoreOp, ConstantOp
from compiler.ir.types import F16, F32, F64, INDEX
from compiler.text import (
    format_float,
    module_diff,
    parse_affine_map,
    parse_file,
    parse_integer_set,
    parse_module,
    print_module,
    print_op,
)
from compiler.text.affine_text import format_map, format_set

HERE = pathlib.Path(__file__).parent
KERNELS = sorted((HERE / "kernels").glob("*.mlir"))
UPSTREAM = sorted((HERE / "upstream").glob("*.mlir"))


def assert_roundtrip(text: str, filename: str = "<t>") -> str:
    """Parse, print, re-parse; assert the two modules are equal and printing is stable."""
    m1 = parse_module(text, filename)
    t1 = print_module(m1)
    m2 = parse_module(t1, "<printed>")
    diff = module_diff(m1, m2)
    assert diff is None, diff
    assert print_module(m2) == t1
    return t1


@pytest.mark.parametrize("path", KERNELS + UPSTREAM, ids=lambda p: p.name)
def test_fixture_roundtrip(path: pathlib.Path) -> None:
    assert_roundtrip(path.read_text(), str(path))


def test_fixture_set_is_complete() -> None:
    names = {p.name for p in UPSTREAM}
    assert {"gemm_tile.mlir", "gemm_tile_copy_pipeline.mlir", "stencil_copy.mlir",
            "vadd_copy_pipeline.mlir", "rowsum_if_tile_copy.mlir", "seed_pipeline.mlir"} <= names
    for p in UPSTREAM:
        assert p.read_text().startswith("// RUN: mlir-opt-19 "), p


@pytest.mark.parametrize("path", UPSTREAM, ids=lambda p: p.name)
def test_upstream_op_counts_match_text(path: pathlib.Path) -> None:
    """Differential: every op spelled in the file is one op in the parsed module."""
    text = path.read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    module = parse_file(str(path))
    counts: dict[str, int] = {}
    for op in module.walk():
        counts[op.NAME] = counts.get(op.NAME, 0) + 1
    for name in ("affine.for", "affine.load", "affine.store", "affine.dma_start", "affine.dma_wait",
                 "affine.apply", "memref.alloc", "memref.dealloc", "arith.constant", "affine.if"):
        assert counts.get(name, 0) == len(re.findall(rf"\b{re.escape(name)}\b", body)), name


def test_upstream_pipelined_gemm_structure() -> None:
    """Golden facts about mlir-opt's pipelined gemm: double buffers, strided DMAs, mod-2 maps."""
    path = HERE / "upstream" / "gemm_tile_copy_pipeline.mlir"
    m = parse_file(str(path))
    dmas = [op for op in m.walk() if isinstance(op, AffineDmaStartOp)]
    strided = [op for op in dmas if op.is_strided]
    lines = [ln for ln in path.read_text().splitlines() if "affine.dma_start" in ln]
    strided_lines = [ln for ln in lines if re.search(r"\], %\w+, %\w+, %\w+ : memref", ln)]
    assert (len(dmas), len(strided)) == (len(lines), len(strided_lines)) == (14, 12)
    # %alloc[(%arg3 floordiv 16) mod 2, 0, 0] inside `affine.for %arg3 = 16 to 64 step 16`
    loop = next(op for op in m.walk() if isinstance(op, AffineForOp) and op.constant_lower == 16)
    first = loop.body.ops[0]
    assert isinstance(first, AffineDmaStartOp)
    assert first.dst_map == AffineMap(1, 0, (Dim(0).floordiv(16) % 2, Const(0), Const(0)))
    assert first.dst_indices == [loop.iv]
    assert first.dst.type == memref((2, 16, 64), F32, 1)
    assert first.tag.type.element.name == "i32"


def test_upstream_partial_tiles_have_min_bounds() -> None:
    m = parse_file(str(HERE / "upstream" / "gemm_tile_partial.mlir"))
    mins = [op for op in m.walk() if isinstance(op, AffineForOp) and op.upper_map.num_results == 2]
    assert len(mins) == 2
    assert mins[0].upper_map == AffineMap(1, 0, (Dim(0) + 24, Const(64)))
    text = print_module(m)
    assert "to min #map" in text


def test_symbol_syntax_and_valid_symbols_become_symbols() -> None:
    text = """
func.func @f(%A: memref<8x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  affine.for %i = 0 to %n {
    %v = affine.load %A[%i + symbol(%n), %c0 mod 2] : memref<8x8xf32>
    affine.store %v, %A[%i * 2, %i - 1] : memref<8x8xf32>
  }
  return
}"""
    m = parse_module(text)
    load = next(op for op in m.walk() if isinstance(op, AffineLoadOp))
    f = m.funcs[0]
    loop = next(op for op in m.walk() if isinstance(op, AffineForOp))
    assert load.map == AffineMap(1, 2, (Dim(0) + Sym(0), Sym(1) % 2))
    assert load.indices == [loop.iv, f.args[1], f.body.ops[0].result]
    assert loop.upper_map == AffineMap.single_symbol() and loop.upper_operands == [f.args[1]]
    store = next(op for op in m.walk() if isinstance(op, AffineStoreOp))
    assert store.map == AffineMap(1, 0, (Dim(0) * 2, Dim(0) - 1))
    printed = assert_roundtrip(text)
    assert "%A[%i + symbol(%n), symbol(%c0) mod 2]" in printed
    assert "affine.for %i = 0 to %n {" in printed


def test_locations_are_first_tokens() -> None:
    text = "func.func @f(%A: memref<4xf32>) {\n  affine.for %i = 0 to 4 {\n" \
           "    %v = affine.load %A[%i] : memref<4xf32>\n  }\n  return\n}\n"
    m = parse_module(text, "k.mlir")
    f = m.funcs[0]
    loop = f.body.ops[0]
    assert f.loc == Location("k.mlir", 1, 1)
    assert loop.loc == Location("k.mlir", 2, 3)
    assert loop.body.ops[0].loc == Location("k.mlir", 3, 5)
    assert f.body.ops[-1].loc == Location("k.mlir", 5, 3)


@pytest.mark.parametrize("path", KERNELS + UPSTREAM[:4], ids=lambda p: p.name)
def test_debug_locs_survive_print_parse(path: pathlib.Path) -> None:
    m1 = parse_file(str(path))
    text = print_module(m1, debug_locs=True)
    implicit = sum(1 for op in m1.walk() if op.NAME == "affine.yield" and not op.operands)
    assert len(re.findall(r"\bloc\(", text)) == sum(1 for _ in m1.walk()) - implicit
    m2 = parse_module(text, "<other name>")
    assert module_diff(m1, m2, compare_locs=True) is None


def test_location_aliases_and_unknown() -> None:
    text = """
module {
  func.func @f() {
    %c = arith.constant 1 : index loc(#loc1)
    %d = arith.constant 2 : index loc(unknown)
    %e = arith.constant 3 : index loc(fused<"tag">["fused.mlir":3:4, "other":1:1])
    %g = arith.constant 4 : index loc(callsite("callee.mlir":5:6 at "caller.mlir":1:1))
    %h = arith.constant 5 : index loc("name"("named.mlir":7:8))
    %k = arith.constant 6 : index loc(#loc3)
    %m = arith.constant 7 : index loc(#loc4)
    return loc("x.mlir":9:7)
  } loc(#loc1)
} loc(unknown)
#loc1 = loc("orig.py":12:5)
#loc2 = loc(unknown)
#loc3 = loc(fused[#loc2, #loc1])
#loc4 = loc(#loc2)
"""
    m = parse_module(text, "a.mlir")
    f = m.funcs[0]
    assert f.loc == Location("orig.py", 12, 5)
    assert [op.loc for op in f.body.ops] == [
        Location("orig.py", 12, 5), Location("a.mlir", 5, 5), Location("fused.mlir", 3, 4),
        Location("callee.mlir", 5, 6), Location("named.mlir", 7, 8), Location("orig.py", 12, 5),
        Location("a.mlir", 10, 5), Location("x.mlir", 9, 7)]


def test_wrappers_declarations_and_attributes() -> None:
    text = """
// comment before everything
#map = affine_map<(d0) -> (d0 + 1)>
module attributes {test.attr = "x", other = {nested = 1}} {
  func.func private @ext(memref<4xf32>, index) -> f32
  func.func @g(%arg0: memref<4xf32> {llvm.noalias}, %arg1: index) -> f32 attributes {x} {
    %0 = call @ext(%arg0, %arg1) : (memref<4xf32>, index) -> f32  // trailing comment
    %1 = affine.apply #map(%arg1)
    %2 = affine.apply affine_map<(d0)[s0] -> (d0 * 2 + s0)>(%1)[%arg1]
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32, 1>
    memref.dealloc %alloc : memref<4xf32, 1>
    func.return %0 : f32
  }
}"""
    m = parse_module(text)
    ext, g = m.funcs
    assert ext.is_declaration and ext.private and ext.function_type.results == (F32,)
    assert [a.name_hint for a in g.args] == ["arg0", "arg1"]
    printed = assert_roundtrip(text)
    assert "func.func private @ext(memref<4xf32>, index) -> f32" in printed
    assert "memref.alloc() {alignment = 64 : i64} : memref<4xf32, 1>" in printed


def test_ssa_suffixes_and_result_groups() -> None:
    text = """
func.func @f(%A: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c0_0 = arith.constant 0.0 : f32
  %r:2 = affine.for %i = 0 to 4 iter_args(%a = %c0_0, %b = %c0_0) -> (f32, f32) {
    %v = affine.load %A[%i] : memref<4xf32>
    %s = arith.addf %a, %v : f32
    affine.yield %s, %b : f32, f32
  }
  %t = arith.addf %r#0, %r#1 : f32
  return %t : f32
}"""
    m = parse_module(text)
    loop = m.funcs[0].body.ops[2]
    assert isinstance(loop, AffineForOp) and len(loop.results) == 2
    add = m.funcs[0].body.ops[3]
    assert add.operands == loop.results
    printed = assert_roundtrip(text)
    assert "%r:2 = affine.for %i = 0 to 4 iter_args(%a = %c0_0, %b = %c0_0) -> (f32, f32) {" in printed
    assert "arith.addf %r#0, %r#1 : f32" in printed


def test_printer_uniquifies_names_like_mlir() -> None:
    b = Builder()
    with b.func("f", A=memref((4,))) as (A,):
        for _ in range(3):
            c = b.constant(0, INDEX)
            c.name_hint = "c0"
        for i in b.range(4):
            A[i] = 1.0
    text = print_module(b.module)
    assert re.findall(r"%c0(?:_\d+)? =", text) == ["%c0 =", "%c0_0 =", "%c0_1 ="]
    assert "affine.for %arg0 = 0 to 4" in text  # unnamed block arguments are numbered
    assert module_diff(b.module, parse_module(text)) is None


def test_print_op_of_nested_op_names_outer_values() -> None:
    m = parse_file(str(HERE / "kernels" / "gemm.mlir"))
    load = next(op for op in m.walk() if isinstance(op, AffineLoadOp))
    assert print_op(load) == "%a = affine.load %A[%i, %k] : memref<64x64xf32>"


# ---- floats ---------------------------------------------------------------------------------

@pytest.mark.parametrize("value,type,text", [
    (1.0, F32, "1.0"), (0.1, F32, "0.1"), (-2.5, F64, "-2.5"), (1e-20, F32, "1.0e-20"),
    (float("inf"), F32, "0x7F800000"), (float("-inf"), F64, "0xFFF0000000000000"),
    (1e10, F32, "1.0e+10"), (65504.0, F16, "6.55e+04"),
])
def test_format_float_golden(value: float, type, text: str) -> None:  # type: ignore[no-untyped-def]
    assert format_float(value, type) == text


@given(st.floats(allow_nan=True, allow_infinity=True, width=32), st.sampled_from([F32, F64]))
@settings(max_examples=150)
def test_float_constants_roundtrip_bit_exactly(value: float, type) -> None:  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("f", results=[type]) as ():
        b.ret([b.constant(value, type)])
    m2 = parse_module(print_module(b.module))
    const = m2.funcs[0].body.ops[0]
    assert isinstance(const, ConstantOp)
    assert module_diff(b.module, m2) is None


# ---- random affine expressions, maps, sets ------------------------------------------------

def affine_exprs(num_dims: int, num_syms: int, semi: bool = False) -> st.SearchStrategy[AffineExpr]:
    leaves: list[st.SearchStrategy[AffineExpr]] = [st.integers(-20, 20).map(Const)]
    if num_dims:
        leaves.append(st.integers(0, num_dims - 1).map(Dim))
    if num_syms:
        leaves.append(st.integers(0, num_syms - 1).map(Sym))
    base = st.one_of(*leaves)

    def extend(children: st.SearchStrategy[AffineExpr]) -> st.SearchStrategy[AffineExpr]:
        k = st.integers(-6, 6)
        pos = st.integers(1, 9)
        options = [
            st.tuples(children, children).map(lambda t: t[0] + t[1]),
            st.tuples(children, children).map(lambda t: t[0] - t[1]),
            st.tuples(children, k).map(lambda t: t[0] * t[1]),
            st.tuples(children, pos).map(lambda t: t[0].floordiv(t[1])),
            st.tuples(children, pos).map(lambda t: t[0].ceildiv(t[1])),
            st.tuples(children, pos).map(lambda t: t[0] % t[1]),
            children.map(lambda e: -e),
        ]
        if semi and num_syms:
            options.append(st.tuples(children, st.integers(0, num_syms - 1)).map(
                lambda t: t[0] * Sym(t[1])))
        return st.one_of(*options)

    return st.recursive(base, extend, max_leaves=8)


@st.composite
def affine_maps(draw: st.DrawFn) -> AffineMap:
    nd = draw(st.integers(0, 3))
    ns = draw(st.integers(0, 2))
    results = draw(st.lists(affine_exprs(nd, ns, semi=True), min_size=1, max_size=3))
    return AffineMap(nd, ns, tuple(results))


@st.composite
def integer_sets(draw: st.DrawFn) -> IntegerSet:
    nd = draw(st.integers(0, 3))
    ns = draw(st.integers(0, 2))
    cs = draw(st.lists(affine_exprs(nd, ns), min_size=1, max_size=3))
    eqs = draw(st.lists(st.booleans(), min_size=len(cs), max_size=len(cs)))
    return IntegerSet(nd, ns, tuple(cs), tuple(eqs))


@given(affine_maps())
@settings(max_examples=100)
def test_affine_map_text_roundtrip(m: AffineMap) -> None:
    text = format_map(m)
    assert parse_affine_map(text) == m, text


@given(integer_sets())
@settings(max_examples=60)
def test_integer_set_text_roundtrip(s: IntegerSet) -> None:
    text = format_set(s)
    assert parse_integer_set(text) == s, text


@given(affine_maps(), st.integers(0, 2**31))
@settings(max_examples=50)
def test_affine_apply_roundtrip_in_module(m: AffineMap, seed: int) -> None:
    """Maps as #map aliases on affine.apply / affine.min / affine.max operands."""
    rnd = random.Random(seed)
    names = [f"%s{i}" for i in range(m.num_inputs)]
    args = ", ".join(f"{n}: index" for n in names)
    dims = ", ".join(names[: m.num_dims])
    syms = ", ".join(names[m.num_dims:])
    op = rnd.choice(["affine.apply", "affine.min", "affine.max"]) if m.num_results == 1 \
        else rnd.choice(["affine.min", "affine.max"])
    text = (f"func.func @f({args}) -> index {{\n  %r = {op} {format_map(m)}({dims})[{syms}]\n"
            f"  return %r : index\n}}\n")
    module = parse_module(text)
    assert module.funcs[0].body.ops[0].map == m
    assert_roundtrip(text)


@given(st.lists(affine_exprs(2, 2), min_size=1, max_size=3), st.integers(0, 2**31))
@settings(max_examples=200)
def test_inline_index_list_roundtrip_is_exact_in_meaning(exprs: list[AffineExpr], seed: int) -> None:
    """`%A[...]` with loop IVs as dims and function args as symbols: print, parse, compare the
    accessed element for random operand values (and the printed text is a fixed point)."""
    rank = len(exprs)
    b = Builder()
    with b.func("f", A=memref((None,) * rank), n=INDEX, m=INDEX) as (A, n, mm):
        for i in b.range(4):
            for j in b.range(4):
                op = AffineLoadOp(A, AffineMap(2, 2, tuple(exprs)), [i, j, n, mm])
                b.insert(op)
    text = print_module(b.module)
    m2 = parse_module(text)
    assert module_diff(b.module, m2) is None
    text2 = print_module(m2)
    assert print_module(parse_module(text2)) == text2
    new = next(o for o in m2.walk() if isinstance(o, AffineLoadOp))
    f2 = m2.funcs[0]
    loops = [o for o in m2.walk() if isinstance(o, AffineForOp)]
    env_values = {id(loops[0].iv): 0, id(loops[1].iv): 1, id(f2.args[1]): 2, id(f2.args[2]): 3}
    rnd = random.Random(seed)
    for _ in range(5):
        vals = [rnd.randint(-50, 50) for _ in range(4)]
        want = evaluate_map(AffineMap(2, 2, tuple(exprs)), vals[:2], vals[2:])
        ins = [vals[env_values[id(v)]] for v in new.indices]
        got = evaluate_map(new.map, ins[: new.map.num_dims], ins[new.map.num_dims:])
        assert got == want, text
