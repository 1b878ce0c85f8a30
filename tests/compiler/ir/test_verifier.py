"""One test per verifier rule: the exact message and the offending op's location.

Text inputs give precise locations (`v.mlir:LINE:COL`); rules the parser already enforces are
broken through the builder or by editing parsed IR, as a pass could.
"""

from __future__ import annotations

import pathlib

import pytest

from compiler.diagnostics import Location, VerifyError
from compiler.ir import F32, I32, INDEX, AffineMap, Builder, Dim, memref
from compiler.ir.affine_expr import Const, Sym
from compiler.ir.ops import (
    AffineDmaStartOp,
    AffineForOp,
    AffineLoadOp,
    AffineYieldOp,
    AllocOp,
    BinaryOp,
    ConstantOp,
    ReturnOp,
)
from compiler.ir.verifier import non_affine_reason, verify
from compiler.text import parse_module

TEXT_DIR = pathlib.Path(__file__).parents[1] / "text"

HEAD = ("func.func @f(%A: memref<8x8xf32>, %B: memref<64xf32, 1>, %T: memref<1xi32>, %n: index, "
        "%x: f32) {\n")


def F(body: str) -> str:
    return HEAD + body + "\n  return\n}\n"


def verify_error(text: str) -> VerifyError:
    module = parse_module(text, "v.mlir")
    with pytest.raises(VerifyError) as info:
        verify(module)
    return info.value


TEXT_CASES = [
    ("index_count_vs_rank", F("  %v = affine.load %A[0] : memref<8x8xf32>"), 2, 3,
     "'affine.load' op memref has 1 index(es) but %A of type memref<8x8xf32> has rank 2"),
    ("store_value_type", F("  %c = arith.constant 1 : i32\n  affine.store %c, %A[0, 0] : memref<8x8xf32>"),
     3, 3, "'affine.store' op stores a i32 value into memref<8x8xf32> (element type f32)"),
    ("dim_times_symbol", F("  affine.for %i = 0 to 8 {\n    %v = affine.load %A[%i * %n, 0] : "
                           "memref<8x8xf32>\n  }"), 3, 5,
     "'affine.load' op non-affine expression 'd0 * s0' in memref index map: a product of a dim "
     "and a symbol is not affine (where d0 = %i, s0 = %n)"),
    ("iv_used_as_symbol", F("  affine.for %i = 0 to 8 {\n    %v = affine.load %A[symbol(%i), 0] : "
                            "memref<8x8xf32>\n  }"), 3, 5,
     "'affine.load' op memref index map operand %i is used as a symbol (s0) but is not a valid "
     "symbol (a function argument, a top-level value or a constant)"),
    ("arith_result_not_a_dim", F("  affine.for %i = 0 to 8 {\n    %k = arith.addi %i, %i : index\n"
                                 "    %v = affine.load %A[%k, 0] : memref<8x8xf32>\n  }"), 4, 5,
     "'affine.load' op memref index map operand %k is used as a dim (d0) but is not a valid dim "
     "(a loop induction variable, a top-level value, or affine.apply of those)"),
    ("loop_bound_not_symbol", F("  affine.for %i = 0 to 8 {\n    affine.for %j = 0 to %i {\n    }\n"
                                "  }"), 3, 5,
     "'affine.for' op upper bound operand %i is used as a symbol (s0) but is not a valid symbol "
     "(a function argument, a top-level value or a constant)"),
    ("yield_vs_iter_args", F("  %r = affine.for %i = 0 to 8 iter_args(%a = %x) -> (f32) {\n"
                             "    affine.yield %n : index\n  }"), 3, 5,
     "'affine.yield' op yields (index) but the enclosing 'affine.for' expects (f32)"),
    ("missing_yield_value", F("  %r = affine.for %i = 0 to 8 iter_args(%a = %x) -> (f32) {\n  }"),
     3, 3, "'affine.yield' op yields () but the enclosing 'affine.for' expects (f32)"),
    ("if_result_without_else", F("  %r = affine.if affine_set<(d0) : (d0 >= 0)>(%n) -> f32 {\n"
                                 "    affine.yield %x : f32\n  }"), 2, 3,
     "'affine.if' op has 1 result(s), so it needs an else block"),
    ("if_else_yield_type", F("  %r = affine.if affine_set<(d0) : (d0 >= 0)>(%n) -> f32 {\n"
                             "    affine.yield %x : f32\n  } else {\n    affine.yield %n : index\n  }"),
     5, 5, "'affine.yield' op yields (index) but the enclosing 'affine.if' expects (f32)"),
    ("float_op_on_ints", F("  %c = arith.constant 1 : i32\n  %s = arith.addf %c, %c : i32"), 3, 3,
     "'arith.addf' op operands must be floats, found i32"),
    ("int_op_on_floats", F("  %s = arith.muli %x, %x : f32"), 2, 3,
     "'arith.muli' op operands must be integers or index, found f32"),
    ("cmpi_on_floats", F("  %b = arith.cmpi slt, %x, %x : f32"), 2, 3,
     "'arith.cmpi' op operands must be integers or index, found f32"),
    ("bad_index_cast", F("  %k = arith.index_cast %x : f32 to i32"), 2, 3,
     "'arith.index_cast' op operand type 'f32' and result type 'i32' are cast incompatible "
     "(one side index, the other an integer)"),
    ("extf_narrowing", F("  %k = arith.extf %x : f32 to f16"), 2, 3,
     "'arith.extf' op operand type 'f32' and result type 'f16' are cast incompatible "
     "(float to a wider float)"),
    ("call_undefined", F("  func.call @nowhere(%n) : (index) -> ()"), 2, 3,
     "'func.call' op calls '@nowhere', which is not defined in the module"),
    ("call_signature", "func.func private @g(index) -> f32\n" + F(
        "  %r = func.call @g(%x) : (f32) -> f32"), 3, 3,
     "'func.call' op passes (f32) but @g takes (index)"),
    ("call_results", "func.func private @g(index) -> f32\n" + F("  func.call @g(%n) : (index) -> ()"),
     3, 3, "'func.call' op expects results () but @g returns (f32)"),
    ("return_types", "func.func @r(%x: f32) -> index {\n  return %x : f32\n}\n", 2, 3,
     "'func.return' op returns (f32) but @r is declared to return (index)"),
    ("duplicate_function", "func.func @f() {\n  return\n}\nfunc.func @f() {\n  return\n}\n", 4, 1,
     "'func.func' op redefines symbol '@f'"),
    ("dma_element_mismatch", "func.func @d(%A: memref<8xf32>, %B: memref<8xf64, 1>, %T: "
     "memref<1xi32>, %n: index) {\n  affine.dma_start %A[0], %B[0], %T[0], %n : memref<8xf32>, "
     "memref<8xf64, 1>, memref<1xi32>\n  return\n}\n", 2, 3,
     "'affine.dma_start' op source and destination element types differ (f32 vs f64)"),
    ("dma_tag_rank", F("  affine.dma_start %A[0, 0], %B[0], %T[0, 0], %n : memref<8x8xf32>, "
                       "memref<64xf32, 1>, memref<1xi32>"), 2, 3,
     "'affine.dma_start' op tag has 2 index(es) but %T of type memref<1xi32> has rank 1"),
    ("dma_wait_rank", F("  affine.dma_wait %T[], %n : memref<1xi32>"), 2, 3,
     "'affine.dma_wait' op tag has 0 index(es) but %T of type memref<1xi32> has rank 1"),
    ("dma_source_rank", F("  affine.dma_start %A[0], %B[0], %T[0], %n : memref<8x8xf32>, "
                          "memref<64xf32, 1>, memref<1xi32>"), 2, 3,
     "'affine.dma_start' op source has 1 index(es) but %A of type memref<8x8xf32> has rank 2"),
]


@pytest.mark.parametrize("name,text,line,col,message", TEXT_CASES, ids=[c[0] for c in TEXT_CASES])
def test_verifier_rule(name: str, text: str, line: int, col: int, message: str) -> None:
    err = verify_error(text)
    assert err.message == message
    assert err.loc == Location("v.mlir", line, col)


def test_valid_fixtures_verify() -> None:
    paths = sorted((TEXT_DIR / "kernels").glob("*.mlir")) + sorted((TEXT_DIR / "upstream").glob("*.mlir"))
    checked = 0
    for p in paths:
        module = parse_module(p.read_text(), str(p))
        verify(module)  # (the seed's f32 tag memref is accepted, as upstream accepts it)
        checked += 1
    assert checked >= 14


# ---- rules that only built or transformed IR can break ----------------------------------------

def small_gemm() -> tuple[Builder, object]:
    b = Builder()
    with b.func("g", A=memref((8, 8)), C=memref((8, 8))) as (A, C):
        for i in b.range(8):
            for j in b.range(8):
                C[i, j] = A[i, j] * 2.0
    return b, b.module


def test_builder_product_of_two_dims_is_refused_at_the_python_line() -> None:
    b = Builder()
    with b.func("p", A=memref((64,))) as (A,):
        for i in b.range(8):
            for j in b.range(8):
                A[i * j] = 1.0
                line = pathlib.Path(__file__).read_text().splitlines().index(
                    "                A[i * j] = 1.0") + 1
    with pytest.raises(VerifyError) as info:
        verify(b.module)
    err = info.value
    assert "non-affine expression 'd0 * d1' in memref index map: a product of two dims is not affine" \
        in err.message
    assert err.loc.file == __file__ and err.loc.line == line
    assert "A[i * j] = 1.0" in err.render()


def test_use_before_definition() -> None:
    _, module = small_gemm()
    body = module.funcs[0].body.ops[0].body.ops[0].body
    load, _const, mul, _store = body.ops[:4]
    assert isinstance(load, AffineLoadOp) and isinstance(mul, BinaryOp)
    body.insert(0, mul)  # mulf now precedes the load and constant it uses
    with pytest.raises(VerifyError, match=r"'arith.mulf' op uses result #0 of the affine.load at .* "
                                          r"before its definition"):
        verify(module)


def test_value_from_a_sibling_region_is_not_visible() -> None:
    b = Builder()
    with b.func("s", A=memref((8,))) as (A,):
        for i in b.range(8):
            A[i] = 1.0
        for j in b.range(8):
            A[j] = 2.0
    loops = [op for op in b.module.funcs[0].body.ops if isinstance(op, AffineForOp)]
    store = loops[1].body.ops[1]
    store.operands[2] = loops[0].iv  # index the second loop's store by the first loop's IV
    with pytest.raises(VerifyError, match=r"uses the induction variable of the affine.for at .* "
                                          r"outside the region that defines it"):
        verify(b.module)


def test_missing_terminators() -> None:
    _, module = small_gemm()
    f = module.funcs[0]
    f.body.ops[-1].detach()
    with pytest.raises(VerifyError, match=r"'func.func' op region must end with 'func.return', found "
                                          r"'affine.for'"):
        verify(module)
    _, module = small_gemm()
    inner = module.funcs[0].body.ops[0].body.ops[0]
    inner.body.ops[-1].detach()
    with pytest.raises(VerifyError, match=r"'affine.for' op region must end with 'affine.yield', found "
                                          r"'affine.store'"):
        verify(module)


def test_terminator_in_the_middle() -> None:
    _, module = small_gemm()
    f = module.funcs[0]
    f.body.insert(0, ReturnOp(loc=Location("x.py", 3, 4)))
    with pytest.raises(VerifyError) as info:
        verify(module)
    assert info.value.message == "'func.return' op is a terminator but is not the last op of its block"
    assert info.value.loc == Location("x.py", 3, 4)


def test_yield_outside_affine_region() -> None:
    _, module = small_gemm()
    f = module.funcs[0]
    f.body.insert(0, AffineYieldOp())
    with pytest.raises(VerifyError, match=r"'affine.yield' op is a terminator but is not the last"):
        verify(module)


def test_map_operand_count_and_pure_affine_bounds() -> None:
    _, module = small_gemm()
    loop = module.funcs[0].body.ops[0]
    assert isinstance(loop, AffineForOp)
    loop.upper_map = AffineMap(1, 0, (Dim(0),))  # now wants an operand it does not have
    with pytest.raises(VerifyError, match=r"has 0 operands, expected 1"):
        verify(module)
    b = Builder()
    with b.func("nb", A=memref((8,)), n=INDEX) as (A, n):
        for i in b.range(n):
            A[i] = 1.0
    loop = b.module.funcs[0].body.ops[0]
    loop.set_upper_bound(AffineMap(0, 1, (Sym(0) * Sym(0),)), [n])
    verify(b.module)  # semi-affine in its symbols only: a bound MLIR accepts too
    loop.set_upper_bound(AffineMap(1, 1, (Dim(0) * Sym(0),)), [n, n])
    verify(b.module)  # semi-affine: a dim times a symbol (parametric tiling's bounds), as MLIR
    loop.set_upper_bound(AffineMap(2, 0, (Dim(0) * Dim(1),)), [n, n])
    with pytest.raises(VerifyError) as info:
        verify(b.module)
    assert info.value.message == ("'affine.for' op non-affine expression 'd0 * d1' in upper bound: a "
                                  "product of two dims is not affine (where d0 = %n, d1 = %n)")


def test_symbol_division_is_refused_even_when_operands_are_valid() -> None:
    b = Builder()
    with b.func("q", A=memref((64,)), n=INDEX) as (A, n):
        for i in b.range(8):
            b.insert(AffineLoadOp(A, AffineMap(1, 1, (Dim(0).floordiv(Sym(0)),)), [i, n]))
    with pytest.raises(VerifyError, match=r"non-affine expression 'd0 floordiv s0' in memref index "
                                          r"map: 'floordiv' by a non-constant is not affine "
                                          r"\(where d0 = the induction variable of the affine.for"):
        verify(b.module)


def test_dma_operand_forms() -> None:
    b = Builder()
    with b.func("d", A=memref((64,)), n=INDEX) as (A, _n):
        buf = b.alloc(memref((64,), F32, 1))
        tag = b.alloc(memref((1,), I32))
        b.dma_start(A, [0], buf, [0], tag, [0], 64, stride=8, elements_per_stride=4)
        b.dma_wait(tag, [0], 64)
    verify(b.module)
    dma = next(op for op in b.module.walk() if isinstance(op, AffineDmaStartOp))
    dma.operands.pop()  # stride without elements-per-stride
    with pytest.raises(VerifyError, match=r"has 5 operands; expected 4 \(no stride\) or 6"):
        verify(b.module)
    dma.operands.append(dma.operands[0])  # elements-per-stride is now a memref
    with pytest.raises(VerifyError, match=r"elements per stride %A must have type index, found "
                                          r"memref<64xf32>"):
        verify(b.module)


def test_alloc_dynamic_sizes_and_constant_values() -> None:
    b = Builder()
    with b.func("a", n=INDEX) as (_n,):
        b.insert(AllocOp(memref((None, 4)), []))
    with pytest.raises(VerifyError, match=r"memref<\?x4xf32> has 1 dynamic dimension\(s\) but 0 size"):
        verify(b.module)
    b = Builder()
    with b.func("c") as ():
        c = b.insert(ConstantOp(1, I32))
        c.value = 2**40  # a pass that forgot the width
    with pytest.raises(VerifyError, match=r"value 1099511627776 does not fit in i32"):
        verify(b.module)


def test_entry_block_must_match_function_type() -> None:
    _, module = small_gemm()
    f = module.funcs[0]
    f.body.add_arg(INDEX, "extra")
    with pytest.raises(VerifyError, match=r"entry block arguments \(memref<8x8xf32>, memref<8x8xf32>, "
                                          r"index\) do not match the function type"):
        verify(module)


@pytest.mark.parametrize("expr,reason", [
    (Dim(0) * Dim(1), "a product of two dims is not affine"),
    (Dim(0) * Sym(0), "a product of a dim and a symbol is not affine"),
    (Sym(0) * Sym(1), "a product of two symbols is not affine"),
    (Dim(0) % Sym(0), "'mod' by a non-constant is not affine"),
    (Dim(0).ceildiv(-2), "'ceildiv' by a non-positive constant (-2) is not affine"),
    (Dim(0) * 3 + (Dim(1) + 1).floordiv(4), None),
    (Const(7), None),
])
def test_non_affine_reason(expr, reason) -> None:  # type: ignore[no-untyped-def]
    found = non_affine_reason(expr)
    assert (found[1] if found else None) == reason
