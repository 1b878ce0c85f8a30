"""Tokenizer for the MLIR subset: one compiled regex, positions resolved to line:col lazily.

Tokens are plain tuples `(kind, text, offset)` because the parser touches every one of them
and tuples are the cheapest thing Python can build; `Source.location(offset)` turns an offset
into a `Location` only when an op or an error needs one.
"""

from __future__ import annotations

import bisect
import re

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


class Source:
    """The text being parsed, with a line table for offset -> line:col."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def location(self, offset: int) -> Location:
        starts = self._line_starts
        line = bisect.bisect_right(starts, offset)
        return Location(self.filename, line, offset - starts[line - 1] + 1)

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def error(self, offset: int, message: str) -> ParseError:
        loc = self.location(offset)
        return ParseError(message, loc, self.line_text(loc.line))


_KIND_OF_GROUP = {index: ("int" if name == "int2" else name)
                  for name, index in _TOKEN_RE.groupindex.items()}


def tokenize(src: Source) -> list[Token]:
    """All tokens of `src`, ending with an `eof` token; comments and whitespace dropped."""
    kinds = _KIND_OF_GROUP
    out: list[Token] = [(kinds[i], m.group(i), m.start(i))
                        for m in _TOKEN_RE.finditer(src.text) for i in (m.lastindex,)]
    # The regex ends with one or two zero-width `end` matches (trailing blanks, then none).
    while out and out[-1][0] == "end":
        out.pop()
    out.append(("eof", "", len(src.text)))
    if any(t[0] == "comment" or t[0] == "bad" for t in out):
        for t in out:
            if t[0] == "bad":
                hint = " (unterminated string?)" if t[1] == '"' else ""
                raise src.error(t[2], f"unexpected character '{t[1]}'{hint}")
        out = [t for t in out if t[0] != "comment"]
    return out
