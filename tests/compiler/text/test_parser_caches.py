"""The parser's speed-ups keep its results: a memref type spelled like one seen before is that
type (from the cache), a cached spelling followed by something else still gives the error of a
fresh parse, and parse_module leaves the garbage collector as it found it."""

from __future__ import annotations

import gc

import pytest

from compiler.diagnostics import ParseError
from compiler.text import parse_module, print_module


def _func(args: str) -> str:
    return f"func.func @f({args}) {{\n  return\n}}\n"


def test_repeated_memref_spelling_is_parsed_once() -> None:
    m = parse_module(_func("%a: memref<4x?xf32, 1>, %b: memref<4x?xf32, 1>, %c: memref<4x?xf32>"))
    a, b, c = m.body.ops[0].args
    assert a.type is b.type  # the second spelling came from the cache
    assert c.type != a.type and c.type.memory_space == 0 and a.type.memory_space == 1


@pytest.mark.parametrize("tail", [">=", ">>", "> > "])
def test_cached_spelling_gives_the_errors_of_a_fresh_parse(tail: str) -> None:
    bad = f"%x: memref<4xf32{tail}"
    with pytest.raises(ParseError) as fresh:
        parse_module(_func(bad))
    first = "%a: memref<4xf32>, "
    with pytest.raises(ParseError) as cached:
        parse_module(_func(first + bad))
    assert cached.value.message == fresh.value.message
    assert cached.value.loc.col == fresh.value.loc.col + len(first)


def test_a_closing_bracket_in_a_comment_is_not_the_end_of_a_cached_type() -> None:
    text = _func("%a: memref<4xf32, 1 // >\n>, %b: memref<4xf32, 1 // >\n>")
    m = parse_module(text)
    assert [str(a.type) for a in m.body.ops[0].args] == ["memref<4xf32, 1>"] * 2
    assert print_module(parse_module(print_module(m))) == print_module(m)


@pytest.mark.parametrize("enabled", [True, False])
def test_parse_module_restores_the_collector(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        parse_module(_func("%a: memref<4xf32>"))
        assert gc.isenabled() is enabled
        with pytest.raises(ParseError):
            parse_module(_func("%a: memref<4xf32"))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
