"""The token cursor every parser layer stands on: the current token, `expect`/`accept`, and
errors that carry the source location (`file:line:col: error: ...`)."""

from __future__ import annotations

from compiler.diagnostics import Location, ParseError
from compiler.text.lexer import Source, Token, source_location, tokenize

INDEX_MIN, INDEX_MAX = -(1 << 63), (1 << 63) - 1
# Documented limits on nesting (each level is a few Python frames in the parser and in every
# pass that walks the IR): regions (affine.for / affine.if / func bodies) and affine
# expressions (parentheses and unary minus).
MAX_REGION_NESTING = 128
MAX_EXPR_NESTING = 100
_EOF_PAD = 4


class TokenCursor:
    def __init__(self, text: str, filename: str):
        self.src = Source(text, filename)
        self.toks: list[Token] = tokenize(self.src)
        # the end of the input, repeated: a lookahead (`toks[i + 1]`) at the last token, or a
        # layer that consumed the end as a token, still finds the end (and says so) instead of
        # running off the list
        self.toks += [self.toks[-1]] * _EOF_PAD
        self.i = 0
        self.region_depth = 0  # regions open around the current token
        self.expr_depth = 0    # parentheses / unary minus open in the current affine expression

    # ---- token helpers ---------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def kind(self) -> str:
        return self.toks[self.i][0]

    def text(self) -> str:
        return self.toks[self.i][1]

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t[0] != "eof":   # the end is never passed
            self.i += 1
        return t

    def error(self, message: str, tok: Token | None = None) -> ParseError:
        t = self.tok if tok is None else tok
        return self.src.error(t[2], message)

    def describe(self, tok: Token | None = None) -> str:
        t = self.tok if tok is None else tok
        return "end of file" if t[0] == "eof" else f"'{t[1]}'"

    def at(self, text: str) -> bool:
        """Current token is the punctuation or keyword `text`.

        Comparing the text alone is enough: no other token kind can spell a keyword or
        punctuation (SSA names start with %, strings with a quote, aliases with #).
        """
        return self.toks[self.i][1] == text

    def accept(self, text: str) -> bool:
        if self.toks[self.i][1] == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str, context: str = "") -> Token:
        t = self.toks[self.i]
        if t[1] != text:
            where = f" {context}" if context else ""
            raise self.error(f"expected '{text}'{where}, found {self.describe()}")
        self.i += 1
        return t

    def expect_kind(self, kind: str, what: str) -> Token:
        if self.kind() != kind:
            raise self.error(f"expected {what}, found {self.describe()}")
        return self.advance()

    def expect_eof(self) -> None:
        if self.kind() != "eof":
            raise self.error(f"unexpected {self.describe()} after the end of the input")

    def location(self, tok: Token) -> Location:
        """The location of `tok` for an op (resolved to line:col when first read)."""
        return source_location(self.src, tok[2])

    def expect_int(self, what: str) -> int:
        neg = self.accept("-")
        t = self.tok
        if t[0] != "int":
            raise self.error(f"expected {what} (an integer), found {self.describe()}")
        self.i += 1
        v = self.index_literal(t)
        return -v if neg else v

    def index_literal(self, t: Token) -> int:
        """The value of integer token `t` as an index (64-bit signed, as MLIR's `index` and
        affine constants): a literal outside that range is an error, not a wrap."""
        v = int(t[1])
        if not INDEX_MIN <= v <= INDEX_MAX:
            raise self.error(f"integer literal {t[1]} does not fit in 64 bits (index: "
                             f"[{INDEX_MIN}, {INDEX_MAX}])", t)
        return v

    # ---- skipping what carries no meaning for the IR ----------------------------------
    def skip_attr_dict(self) -> None:
        """Skip `{...}`; attributes we do not model carry no meaning for the IR."""
        self.expect("{", "to open an attribute dictionary")
        depth = 1
        while depth:
            t = self.advance()
            if t[0] == "eof":
                raise self.error("unterminated attribute dictionary", t)
            if t[1] == "{" and t[0] == "punct":
                depth += 1
            elif t[1] == "}" and t[0] == "punct":
                depth -= 1

    def skip_balanced(self, open_: str, close: str) -> None:
        self.expect(open_)
        depth = 1
        while depth:
            t = self.advance()
            if t[0] == "eof":
                raise self.error(f"unterminated '{open_}'", t)
            if t[1] == open_:
                depth += 1
            elif t[1] == close:
                depth -= 1
