"""Mutated inputs either parse or raise ParseError with a location inside the text: never
another exception (which the CLI would print as a traceback)."""

from __future__ import annotations

import pathlib

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.diagnostics import ParseError, VerifyError
from compiler.ir.verifier import verify
from compiler.text import parse_module, print_module

HERE = pathlib.Path(__file__).parent
SOURCES = [p.read_text() for p in sorted((HERE / "kernels").glob("*.mlir"))] + [
    (HERE / "upstream" / name).read_text()
    for name in ("gemm_tile_partial.mlir", "rowsum_if_tile_copy.mlir", "vadd_copy_pipeline.mlir")] + [
    p.read_text() for p in sorted((HERE / "upstream_syntax").glob("*.mlir"))]

SNIPPETS = ["%", "%i", "%0#3", "(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", "->", "-",
            "*", " floordiv ", " mod ", "0", "-1", "1.5", "0x7F", "f32", "index", "memref<4xf32>",
            "affine.for", "affine.yield", "symbol(", "#map", "#map9", "loc(", "\"", "max ", "step 0",
            "iter_args(", "affine_map<(d0) -> (d0)>", "affine_set<(d0) : (d0 >= 0)>", "\n", "^bb0:",
            "return", "func.func", "module {", "@f", "?", "x", "i1", "true",
            # the upstream spellings: generic ops, blanks in types, vectors, layouts, globals
            '"test.op"', '"memref.load"', "() : () -> ()", " x ", "vector<", "vector<4 x f32>",
            "<{", "}>", "{a = 1 : i64}", ", #id", "affine_map<(d0) -> (d0 + 1)>", "memref.dim ",
            "memref.global ", "dense<", "@table", "to", "constant "]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        if kind == "delete":
            n = draw(st.integers(1, 12))
            text = text[:pos] + text[pos + n:]
        else:
            snippet = draw(st.sampled_from(SNIPPETS))
            cut = draw(st.integers(0, 8)) if kind == "replace" else 0
            text = text[:pos] + snippet + text[pos + cut:]
    return text


@given(mutated())
@settings(max_examples=300)
def test_mutated_text_never_crashes(text: str) -> None:
    try:
        module = parse_module(text, "m.mlir")
    except ParseError as err:
        lines = text.split("\n")
        assert err.loc.file == "m.mlir"
        assert 1 <= err.loc.line <= len(lines)
        assert 1 <= err.loc.col <= len(lines[err.loc.line - 1]) + 1
        assert err.render().count("\n") == 2
        return
    try:
        verify(module)
    except VerifyError as err:
        assert err.loc.line >= 1
        return
    # Whatever parses and verifies prints to text that parses and verifies again.
    verify(parse_module(print_module(module)))
