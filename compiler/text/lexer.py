"""Tokenizer for the MLIR subset: one compiled regex over the whole text, no Python loop per
token; positions resolved to line:col lazily.

Tokens are plain tuples `(kind, text, offset)` because the parser touches every one of them
and tuples are the cheapest thing Python can build. `tokenize` lets C do the per-token work:
`re.findall` cuts the text into pieces (each token with the blanks before it), and `map` /
`accumulate` / `zip` strip the blanks, intern the spellings (the parser's dict lookups of SSA
names and op names then compare pointers), sum the offsets and look each spelling's kind up in
a table that classifies a spelling the first time it is seen (by the same regex, so a token
means what it meant in place). `Source.location(offset)` turns an offset into a `Location`
only when an error needs one; an op gets a `SourceLocation`, which finds its line and column
the first time anything reads them.
"""

from __future__ import annotations

import bisect
import operator
import re
import sys
from itertools import accumulate, compress, repeat

from compiler.diagnostics import Location, ParseError

Token = tuple[str, str, int]

# Kinds: pct (%x, %x#1), at (@f), hash (#map), float, int, hex, bare, str, punct, eof.
# Leading whitespace is folded into every match (one regex step per token, not two).
_TOKEN_RE = re.compile(
    r"""
    [ \t\r\n]*
    (?:
      (?P<pct>%(?:[A-Za-z_$.][\w$.\-]*|\d+)(?:\#\d+)?)
    | (?P<bare>[A-Za-z_][\w$.]*)
    | (?P<punct>->|==|>=|<=|[()\[\]{}<>,:=+\-*?^!])
    | (?P<int>\d+(?![.x\d]))
    | (?P<comment>//[^\n]*)
    | (?P<at>@(?:[A-Za-z_$.][\w$.\-]*|"[^"\n]*"))
    | (?P<hash>\#[A-Za-z_$.][\w$.\-]*)
    | (?P<hex>0x[0-9a-fA-F]+)
    | (?P<float>\d+\.\d*(?:[eE][-+]?\d+)?)
    | (?P<int2>\d+)
    | (?P<str>"(?:[^"\\\n]|\\.)*")
    | (?P<end>\Z)
    | (?P<bad>.)
    )
    """,
    re.VERBOSE,
)
# The same language without groups: `findall` then returns each match (blanks + token) as one
# string, built in C.
_PIECE_RE = re.compile(re.sub(r"\(\?P<\w+>", "(?:", _TOKEN_RE.pattern), re.VERBOSE)

_BLANKS = " \t\r\n"  # what the regex skips before a token (str.strip would skip more)

_KIND_OF_GROUP = {index: ("int" if name == "int2" else name)
                  for name, index in _TOKEN_RE.groupindex.items()}


class _KindTable(dict[str, str]):
    """Spelling -> token kind, filled on first sight: the alternative `_TOKEN_RE` picks for the
    spelling alone is the one it picked in place (the only lookahead, after an integer, can
    only turn `int` into `int2`, which is `int` too). Bounded: cleared when it grows large."""

    def __missing__(self, text: str) -> str:
        m = _TOKEN_RE.match(text)
        assert m is not None  # the last alternatives match anything
        kind = _KIND_OF_GROUP[m.lastindex] if m.end() == len(text) else "bad"
        if len(self) > 200_000:
            self.clear()
        self[text] = kind
        return kind


_KINDS = _KindTable()


class Source:
    """The text being parsed, with a line table for offset -> line:col."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self._starts: list[int] | None = None

    @property
    def line_starts(self) -> list[int]:
        """Offsets at which lines begin (built on first use: a file without errors whose
        op locations nobody reads never needs it)."""
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return self._starts

    def location(self, offset: int) -> Location:
        starts = self.line_starts
        line = bisect.bisect_right(starts, offset)
        return Location(self.filename, line, offset - starts[line - 1] + 1)

    def line_text(self, line: int) -> str:
        start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def error(self, offset: int, message: str) -> ParseError:
        loc = self.location(offset)
        return ParseError(message, loc, self.line_text(loc.line))


class SourceLocation(Location):
    """The location of an op read from text: an offset into its `Source`, resolved to
    file:line:col the first time it is read. Equal to (and hashes as) the plain `Location`
    it resolves to, and pickles as that plain `Location`."""

    __slots__ = ("_src", "_offset", "_resolved")

    def _get(self) -> Location:
        r = self._resolved
        if r is None:
            r = self._src.location(self._offset)
            _set_resolved(self, r)
        return r

    file = property(lambda self: self._src.filename)  # type: ignore[assignment]
    line = property(lambda self: self._get().line)  # type: ignore[assignment]
    col = property(lambda self: self._get().col)  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Location):
            a = self._get()
            b = other._get() if isinstance(other, SourceLocation) else other
            return (a.file, a.line, a.col) == (b.file, b.line, b.col)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._get())

    def __repr__(self) -> str:
        return repr(self._get())

    def __reduce__(self):  # type: ignore[no-untyped-def]
        r = self._get()
        return (Location, (r.file, r.line, r.col))

    def __copy__(self) -> SourceLocation:
        return self

    def __deepcopy__(self, memo: object) -> SourceLocation:
        return self


_new = object.__new__
_set_src = SourceLocation._src.__set__  # type: ignore[attr-defined]
_set_offset = SourceLocation._offset.__set__  # type: ignore[attr-defined]
_set_resolved = SourceLocation._resolved.__set__  # type: ignore[attr-defined]


def source_location(src: Source, offset: int) -> SourceLocation:
    """A lazy location of `offset` in `src` (no line table lookup until it is read)."""
    loc = _new(SourceLocation)
    _set_src(loc, src)
    _set_offset(loc, offset)
    _set_resolved(loc, None)
    return loc


def tokenize(src: Source) -> list[Token]:
    """All tokens of `src`, ending with an `eof` token; comments and whitespace dropped."""
    pieces = _PIECE_RE.findall(src.text)
    # The regex ends with one or two zero-width `end` matches (trailing blanks, then none).
    while pieces and not pieces[-1].strip(_BLANKS):
        pieces.pop()
    texts = list(map(sys.intern, map(str.lstrip, pieces, repeat(_BLANKS))))
    starts = map(operator.sub, accumulate(map(len, pieces)), map(len, texts))
    kinds = list(map(_KINDS.__getitem__, texts))
    if "bad" in kinds:
        t = kinds.index("bad")
        offset = sum(map(len, pieces[:t + 1])) - len(texts[t])
        hint = " (unterminated string?)" if texts[t] == '"' else ""
        raise src.error(offset, f"unexpected character '{texts[t]}'{hint}")
    out = list(zip(kinds, texts, starts))
    if "comment" in kinds:
        out = list(compress(out, map(operator.ne, kinds, repeat("comment"))))
    out.append(("eof", "", len(src.text)))
    return out
