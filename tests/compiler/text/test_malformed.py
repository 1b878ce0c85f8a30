"""A corpus of malformed inputs, each with its own golden message and line:col.

Each case is a small file; the expected error is what `accelsim opt` prints on its first line
(`bad.mlir:LINE:COL: error: MESSAGE`), followed by the source line and a caret under COL.
"""

from __future__ import annotations

import pytest

from compiler.diagnostics import ParseError
from compiler.text import parse_module

HEAD = ("func.func @f(%A: memref<8x8xf32>, %B: memref<64xf32, 1>, %T: memref<1xi32>, %n: index, "
        "%x: f32) {\n")


def F(body: str) -> str:
    """A function whose body starts on line 2."""
    return HEAD + body + "\n  return\n}\n"


LOOP = "  affine.for %i = 0 to 8 {\n    affine.for %j = 0 to 8 {\n"


def L(stmt: str) -> str:
    """`stmt` on line 4, inside two loops (%i, %j)."""
    return F(LOOP + stmt + "\n    }\n  }")


# (name, source, line, col, message)
CASES: list[tuple[str, str, int, int, str]] = [
    ("unknown_op", F("  %y = foo.bar %n : index"),
     2, 8, "unknown op 'foo.bar' (an op of a dialect accelsim does not model must be written in "
     "the generic form, '\"name\"(...)')"),
    ("generic_registered_op", F('  "func.call"(%n) : (index) -> index'),
     2, 3, "the generic form of the registered op 'func.call' is not supported; write its "
     "custom form"),
    ("generic_registered_op_flags", F('  "arith.addi"(%n, %n) <{overflowFlags = #arith.overflow<nuw>}>'
                                      ' : (index, index) -> index'),
     2, 3, "'arith.addi': attribute 'overflowFlags = #arith.overflow<nuw>' is not supported "
     "(accelsim would drop it)"),
    ("generic_op_types", F('  "compute"(%n) : (f32) -> index'),
     2, 13, "'%n' has type index, but the op's type is f32"),
    ("generic_op_region", F('  "compute"(%n) ({ }) : (index) -> index'),
     2, 17, "regions of the unregistered op 'compute' are not supported"),
    ("undefined_value", F("  %v = affine.load %A[%i, 0] : memref<8x8xf32>"),
     2, 23, "use of undefined SSA value '%i'"),
    ("redefinition", F("  %c = arith.constant 0 : index\n  %c = arith.constant 1 : index"),
     3, 3, "redefinition of SSA value '%c'"),
    ("load_type_mismatch", F("  %v = affine.load %A[0, 0] : memref<8xf32>"),
     2, 31, "type memref<8xf32> does not match the type of '%A' (memref<8x8xf32>)"),
    ("product_of_dims", L("      %v = affine.load %A[%i * %j, 0] : memref<8x8xf32>"),
     4, 30, "non-affine expression: a product of two dims is not affine (one operand of '*' must be a constant or a symbol)"),  # noqa: E501
    ("floordiv_by_dim", L("      %v = affine.load %A[%i floordiv %j, 0] : memref<8x8xf32>"),
     4, 30, "non-affine expression: the right operand of 'floordiv' must be a constant or a symbol"),
    ("mod_by_zero", L("      %v = affine.load %A[%i mod 0, %j] : memref<8x8xf32>"),
     4, 30, "non-affine expression: 'mod' by a non-positive constant (0)"),
    ("for_missing_to", F("  affine.for %i = 0 8 {\n  }"),
     2, 21, "expected 'to' between the loop bounds, found '8'"),
    ("for_zero_step", F("  affine.for %i = 0 to 8 step 0 {\n  }"),
     2, 31, 'affine.for step must be positive, found 0'),
    ("multi_result_bound_no_min", "#map = affine_map<(d0) -> (d0, 8)>\n" + F("  affine.for %i = 0 to #map(%n) {\n  }"),  # noqa: E501
     3, 24, "upper loop bound map with 2 results needs the 'min' prefix"),
    ("undefined_alias", F("  %y = affine.apply #map9(%n)"),
     2, 21, "undefined alias '#map9'"),
    ("set_used_as_map", "#set = affine_set<(d0) : (d0 >= 0)>\n" + F("  %y = affine.apply #set(%n)"),
     3, 21, "expected an affine map, '#set' is an integer set"),
    ("map_operand_count", "#map = affine_map<(d0) -> (d0 + 1)>\n" + F("  %y = affine.apply #map(%n, %n)"),
     3, 21, 'the map takes 1 dim operand(s) but 2 were given'),
    ("undeclared_map_identifier", F("  %y = affine.apply affine_map<(d0) -> (d1)>(%n)"),
     2, 41, "use of undeclared identifier 'd1' in affine expression"),
    ("bad_constraint_operator", F("  affine.if affine_set<(d0) : (d0 > 0)>(%n) {\n  }"),
     2, 35, "expected '>=', '<=' or '==' in affine constraint, found '>'"),
    ("unterminated_region", "func.func @f(%n: index) {\n  affine.for %i = 0 to 8 {\n  }\n",
     4, 1, "expected '}' to close the region, found end of file"),
    ("unexpected_character", F("  %c = arith.constant 0 : index `"),
     2, 33, "unexpected character '`'"),
    ("bad_element_type", F("  %m = memref.alloc() : memref<8xf33>"),
     2, 32, "expected a memref element type, found 'f33'"),
    ("unsupported_layout", F("  %m = memref.alloc() : memref<8xf32, #map>"),
     2, 39, "unsupported memref layout or memory space '#map' (expected an integer memory space)"),
    ("tensor_type", "func.func @f(%t: tensor<8xf32>) {\n  return\n}\n",
     1, 18, "unsupported type 'tensor' (accelsim supports memref and scalar types)"),
    ("result_count", F("  %a, %b = arith.constant 0 : index"),
     2, 3, "'arith.constant' defines 1 result(s) but 2 name(s) were given"),
    ("store_missing_comma", F("  affine.store %x %A[0, 0] : memref<8x8xf32>"),
     2, 19, "expected ',' between the stored value and the memref, found '%A'"),
    ("dma_stride_without_count", F("  affine.dma_start %A[0, 0], %B[0], %T[0], %n, %n : memref<8x8xf32>, memref<64xf32, 1>, memref<1xi32>"),  # noqa: E501
     2, 51, "expected ',' after the DMA stride (stride and elements per stride come together), found ':'"),
    ("dma_type_mismatch", F("  affine.dma_start %A[0, 0], %B[0], %T[0], %n : memref<8x8xf32>, memref<64xf32, 1>, memref<1xi64>"),  # noqa: E501
     2, 85, "DMA tag type memref<1xi64> does not match the type of '%T' (memref<1xi32>)"),
    ("cmpf_predicate", F("  %b = arith.cmpf foo, %x, %x : f32"),
     2, 19, "unknown arith.cmpf predicate 'foo' (expected one of false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno, true)"),  # noqa: E501
    ("float_literal_for_int", F("  %c = arith.constant 1.5 : i32"),
     2, 29, 'float literal 1.5 is not valid for type i32'),
    ("int_overflow", F("  %c = arith.constant 300 : i8"),
     2, 23, 'integer constant 300 does not fit in i8'),
    ("iter_args_type", F("  %r = affine.for %i = 0 to 8 iter_args(%a = %n) -> (f32) {\n    affine.yield %a : index\n  }"),  # noqa: E501
     2, 41, "iter_arg '%a' is initialized with a value of type index but declared f32"),
    ("iter_args_count", F("  %r = affine.for %i = 0 to 8 iter_args(%a = %x) -> (f32, f32) {\n    affine.yield %a : f32\n  }"),  # noqa: E501
     2, 50, 'iter_args has 1 value(s) but 2 result type(s)'),
    ("missing_return", "func.func @f() {\n  %c = arith.constant 0 : index\n}\n",
     3, 1, "function body must end with 'return' (func.return)"),
    ("block_label", F("  affine.for %i = 0 to 8 {\n  ^bb0:\n  }"),
     3, 3, 'block labels are not supported (accelsim regions have one block)'),
    ("top_level_garbage", "foo\n",
     1, 1, "expected 'module', 'func.func' or an alias definition at top level, found 'foo'"),
    ("two_modules", "module {\n}\nmodule {\n}\n",
     3, 1, 'only one top-level module is supported'),
    ("unnamed_argument_with_body", "func.func @f(memref<4xf32>) {\n  return\n}\n",
     1, 11, "function '@f' has a body, so argument #0 needs a name ('%name: type')"),
    ("alloc_dynamic_sizes", F("  %m = memref.alloc() : memref<?xf32>"),
     2, 25, 'memref<?xf32> has 1 dynamic dimension(s) but 0 size operand(s) were given'),
    ("index_operand_not_index", F("  %v = affine.load %A[%x, 0] : memref<8x8xf32>"),
     2, 23, "affine index operand '%x' must have type index, found f32"),
    ("loop_bound_not_index", F("  affine.for %i = 0 to %x {\n  }"),
     2, 24, "loop bound '%x' must have type index, found f32"),
    ("result_group_size", F("  %r:3 = affine.for %i = 0 to 8 iter_args(%a = %x) -> (f32) {\n    affine.yield %a : f32\n  }"),  # noqa: E501
     2, 3, "'affine.for' defines 1 result(s) but 3 name(s) were given"),
    ("result_index_out_of_range", F("  %r:2 = affine.for %i = 0 to 8 iter_args(%a = %x, %b = %x) -> (f32, f32) {\n    affine.yield %a, %b : f32, f32\n  }\n  %s = arith.addf %r#0, %r#5 : f32"),  # noqa: E501
     5, 25, "'%r' has 2 results, no result #5"),
    ("call_type_count", F("  call @g(%n) : (index, index) -> ()"),
     2, 17, 'call has 1 argument(s) but its type lists 2'),
    ("binary_operand_type", F("  %s = arith.addf %x, %n : f32"),
     2, 23, "'%n' has type index, but the op's type is f32"),
    ("map_missing_close", F("  %y = affine.apply affine_map<(d0) -> (d0)(%n)"),
     2, 44, "expected '>' to close 'affine_map<', found '('"),
    ("unsupported_location", F("  %c = arith.constant 0 : index loc(42)"),
     2, 37, 'unsupported location \'42\' (expected "file":line:col, unknown, #alias, fused[...] or '
            'callsite(...))'),
    ("undefined_location_alias", F("  %c = arith.constant 0 : index loc(#loc7)"),
     2, 37, "undefined location alias '#loc7'"),
    ("unterminated_string", F('  %c = arith.constant 0 : index loc("a.mlir'),
     2, 37, 'unexpected character \'"\' (unterminated string?)'),
    ("alias_redefinition", "#map = affine_map<(d0) -> (d0)>\n#map = affine_map<(d0) -> (d0 + 1)>\n",
     2, 1, "redefinition of alias '#map'"),
    ("old_func_syntax", "func @f() {\n  return\n}\n",
     1, 1, "expected 'func.func' (the bare 'func' form is not supported)"),
    ("if_operand_count", F("  affine.if affine_set<(d0, d1) : (d0 - d1 >= 0)>(%n) {\n  }"),
     2, 13, 'the integer set takes 2 dim and 0 symbol operand(s) but 1 and 0 were given'),
    ("fastmath_flags", F("  %s = arith.addf %x, %x fastmath<fast> : f32"),
     2, 26, "'fastmath' flags are not supported"),
    ("negative_memory_space", F("  %m = memref.alloc() : memref<8xf32, -1>"),
     2, 39, 'memory space must be >= 0, found -1'),
    ("index_list_unclosed", F("  %v = affine.load %A[0, 0 : memref<8x8xf32>"),
     2, 28, "expected ']' to close the index list, found ':'"),
]


def test_corpus_is_large_and_distinct() -> None:
    assert len(CASES) >= 30
    assert len({c[0] for c in CASES}) == len(CASES)
    assert len({c[4] for c in CASES}) >= 45  # each case has its own message


@pytest.mark.parametrize("name,source,line,col,message", CASES, ids=[c[0] for c in CASES])
def test_malformed_input_golden(name: str, source: str, line: int, col: int, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_module(source, "bad.mlir")
    err = info.value
    assert (err.loc.file, err.loc.line, err.loc.col) == ("bad.mlir", line, col)
    assert err.message == message
    rendered = err.render().split("\n")
    assert rendered[0] == f"bad.mlir:{line}:{col}: error: {message}"
    assert rendered[1] == source.split("\n")[line - 1].rstrip()
    assert rendered[2] == " " * (col - 1) + "^"
