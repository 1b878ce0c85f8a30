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
_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\n]+)
  | (?P<comment>//[^\n]*)
  | (?P<pct>%(?:[A-Za-z_$.][\w$.\-]*|\d+)(?:\#\d+)?)
  | (?P<at>@(?:[A-Za-z_$.][\w$.\-]*|"[^"\n]*"))
  | (?P<hash>\#[A-Za-z_$.][\w$.\-]*)
  | (?P<hex>0x[0-9a-fA-F]+)
  | (?P<float>\d+\.\d*(?:[eE][-+]?\d+)?)
  | (?P<int>\d+)
  | (?P<bare>[A-Za-z_][\w$.]*)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<punct>->|==|>=|<=|[()\[\]{}<>,:=+\-*?^!])
  | (?P<bad>.)
    """,
    re.VERBOSE,
)


class Source:
    """The text being parsed, with a line table for offset -> line:col."""

    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def location(self, offset: int) -> Location:
        line, col = self.line_col(offset)
        return Location(self.filename, line, col)

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def error(self, offset: int, message: str) -> ParseError:
        loc = self.location(offset)
        return ParseError(message, loc, self.line_text(loc.line))


def tokenize(src: Source) -> list[Token]:
    """All tokens of `src`, ending with an `eof` token; comments and whitespace dropped."""
    out: list[Token] = []
    append = out.append
    for m in _TOKEN_RE.finditer(src.text):
        kind = m.lastgroup
        if kind == "ws" or kind == "comment":
            continue
        if kind == "bad":
            ch = m.group()
            hint = " (unterminated string?)" if ch == '"' else ""
            raise src.error(m.start(), f"unexpected character '{ch}'{hint}")
        append((kind, m.group(), m.start()))  # type: ignore[arg-type]
    append(("eof", "", len(src.text)))
    return out
