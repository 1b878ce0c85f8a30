"""The tokenizer (one regex over the whole text, kinds from a table) and the lazy op locations."""

from __future__ import annotations

import copy
import pickle

import pytest

from compiler.diagnostics import Location, ParseError
from compiler.text import parse_module
from compiler.text.lexer import Source, SourceLocation, source_location, tokenize


def kinds(text: str) -> list[tuple[str, str, int]]:
    return tokenize(Source(text, "t.mlir"))


def test_tokens_kinds_texts_offsets() -> None:
    text = ('  %x#1 = "foo"(%a) {v = 0x1F, f = 1.5e-3} : memref<4x4xf32> // c\n'
            '@f #map -> 12 ^bb0\n')
    toks = kinds(text)
    assert [t[:2] for t in toks] == [
        ("pct", "%x#1"), ("punct", "="), ("str", '"foo"'), ("punct", "("), ("pct", "%a"),
        ("punct", ")"), ("punct", "{"), ("bare", "v"), ("punct", "="), ("hex", "0x1F"),
        ("punct", ","), ("bare", "f"), ("punct", "="), ("float", "1.5e-3"), ("punct", "}"),
        ("punct", ":"), ("bare", "memref"), ("punct", "<"), ("int", "4"), ("bare", "x4xf32"),
        ("punct", ">"), ("at", "@f"), ("hash", "#map"), ("punct", "->"), ("int", "12"),
        ("punct", "^"), ("bare", "bb0"), ("eof", "")]
    for kind, spelling, offset in toks[:-1]:
        assert text[offset:offset + len(spelling)] == spelling, (kind, spelling)
    assert toks[-1][2] == len(text)


def test_spellings_are_interned() -> None:
    a = kinds("%" + "acc" + " %" + "acc")
    assert a[0][1] is a[1][1]


@pytest.mark.parametrize("bad, col", [("\f", 3), ("`", 3), ('"abc', 3), ("\u00a0", 3)])
def test_a_character_no_token_starts_with_is_an_error(bad: str, col: int) -> None:
    with pytest.raises(ParseError) as e:
        kinds("%a" + bad + " %b")
    assert e.value.loc == Location("t.mlir", 1, col)
    assert "unexpected character" in e.value.message


def test_op_locations_are_lazy_and_equal_plain_locations() -> None:
    mod = parse_module("func.func @f() {\n  %c = arith.constant 1 : index\n  return\n}\n",
                       "f.mlir")
    const = mod.body.ops[0].body.ops[0]  # type: ignore[attr-defined]
    loc = const.loc
    assert isinstance(loc, SourceLocation) and isinstance(loc, Location)
    plain = Location("f.mlir", 2, 3)
    assert loc == plain and plain == loc and hash(loc) == hash(plain)
    assert str(loc) == "f.mlir:2:3" and (loc.file, loc.line, loc.col) == ("f.mlir", 2, 3)
    assert loc != Location("f.mlir", 2, 4)
    back = pickle.loads(pickle.dumps(loc))
    assert type(back) is Location and back == plain
    assert copy.deepcopy(loc) == plain


def test_source_location_resolves_offsets() -> None:
    src = Source("ab\ncd\n\nef", "s.mlir")
    assert [source_location(src, o) for o in (0, 1, 3, 6, 7)] == [
        Location("s.mlir", 1, 1), Location("s.mlir", 1, 2), Location("s.mlir", 2, 1),
        Location("s.mlir", 3, 1), Location("s.mlir", 4, 1)]
