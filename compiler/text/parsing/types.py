"""Types: scalars (`f32`, `index`, ...), `memref<4x?xf32, 1>` and function types."""

from __future__ import annotations

import re

from compiler.ir.types import ELEMENT_TYPES, ElementType, FunctionType, MemRefType, Type, VectorType
from compiler.text.lexer import Token
from compiler.text.parsing.cursor import TokenCursor

# the dimensions of a memref type body, `4x?x16x` (each one followed by `x`)
_DIMS = re.compile(r"(?:(?:\d+|\?)x)*")
# a malformed dimension: something that is not an element type, followed by `x`
_BAD_DIM = re.compile(r"([^x]*)x")
_DIM_MAX = (1 << 63) - 1


class TypeParser(TokenCursor):
    def __init__(self, text: str, filename: str):
        super().__init__(text, filename)
        self.type_cache: dict[str, MemRefType] = {}

    def parse_type(self) -> Type:
        t = self.tok
        if t[0] == "bare":
            et = ELEMENT_TYPES.get(t[1])
            if et is not None:
                self.i += 1
                return et
            if t[1] == "memref":
                return self.parse_memref_type()
            if t[1] == "vector":
                self.i += 1
                return self.parse_vector_type(t)
            if t[1] == "tensor":
                raise self.error(f"unsupported type '{t[1]}' (accelsim supports memref and scalar types)")
        if t[1] == "(":
            return self.parse_function_type()
        raise self.error(f"expected a type, found {self.describe()}")

    def parse_element_type(self) -> ElementType:
        t = self.tok
        et = ELEMENT_TYPES.get(t[1]) if t[0] == "bare" else None
        if et is None:
            raise self.error(f"expected a scalar type (f32, f64, i32, i64, index, ...), "
                             f"found {self.describe()}")
        self.i += 1
        return et

    def parse_memref_type(self) -> MemRefType:
        self.i += 1  # `memref`
        lt = self.expect("<", "after 'memref'")
        # Types repeat a lot in real files: reuse the parse of an identical spelling (only for
        # a body with no nested `<...>` or `->`, where the first '>' closes the type, and only
        # when that '>' is a token of its own: not in a comment, not the start of `>=`).
        text = self.src.text
        close = text.find(">", lt[2])
        key = text[lt[2] + 1:close]
        simple = close >= 0 and "<" not in key and "-" not in key
        cached = self.type_cache.get(key) if simple else None
        if cached is not None:
            toks, i = self.toks, self.i
            while toks[i][2] < close:
                i += 1
            if toks[i][2] == close and toks[i][1] == ">":
                self.i = i + 1
                return cached
        ty = self.parse_memref_type_body()
        if simple and self.toks[self.i - 1][2] == close:
            self.type_cache[key] = ty
        return ty

    def parse_shaped_prefix(self, what: str) -> tuple[list[int | None], str, Token]:
        """`32x?x16xf32`, `256 x f32`, `8 x vector<...>`: the dimensions, and the spelling of
        what follows the last `x` (`vector` when a vector element type opens next). The lexer
        splits such bodies anywhere (`32x?x16xf32` is int, bare `x`, `?`, bare `x16xf32`), so
        the tokens up to ',' or '>' are glued back, blanks dropped."""
        first = self.tok
        parts: list[str] = []
        while self.tok[0] in ("int", "hex", "bare", "punct") and self.tok[1] not in (",", ">", "<"):
            parts.append(self.advance()[1])
        spelled = "".join(parts)
        dims = _DIMS.match(spelled)
        assert dims is not None  # the pattern matches the empty prefix
        shape: list[int | None] = [None if d == "?" else int(d)
                                   for d in dims.group(0).split("x")[:-1]]
        for d in shape:
            if d is not None and d > _DIM_MAX:   # as mlir-opt: a dimension is an int64
                raise self.error(f"invalid dimension {d} in {what}<{spelled}>: a dimension is at "
                                 f"most {_DIM_MAX} (2^63 - 1)", first)
        return shape, spelled[dims.end():], first

    def parse_vector_type(self, first: Token) -> VectorType:
        self.expect("<", "after 'vector'")
        shape, rest, _ = self.parse_shaped_prefix("vector")
        et = ELEMENT_TYPES.get(rest)
        if et is None:
            raise self.error(f"expected a scalar vector element type, found '{rest or self.tok[1]}'",
                             first)
        if not shape or any(d is None or d <= 0 for d in shape):
            raise self.error("a vector type needs static positive dimensions", first)
        self.expect(">", "to close 'vector<'")
        return VectorType.of(tuple(shape), et)  # type: ignore[arg-type]

    def parse_layout_map(self) -> None:
        """`affine_map<...>` or `#alias` as a memref layout: the layer that reads affine maps
        accepts the identity layout (dropped, as MLIR prints it) and refuses any other."""
        raise self.error(f"unsupported memref layout {self.describe()}")

    def parse_memref_type_body(self) -> MemRefType:
        shape, rest, first = self.parse_shaped_prefix("memref")
        et: ElementType | None
        if rest == "vector" and self.at("<"):
            et = self.parse_vector_type(first)
        else:
            et = ELEMENT_TYPES.get(rest)
        if et is None:
            bad = _BAD_DIM.match(rest)
            spelled = "".join(f"{'?' if d is None else d}x" for d in shape) + rest
            if bad is not None:
                raise self.error(f"invalid memref dimension '{bad.group(1)}' in '{spelled}'", first)
            raise self.error(f"expected a memref element type, found '{rest or self.tok[1]}'", first)
        space = 0
        layout = None
        if self.at(",") and self.toks[self.i + 1][1] == "strided":
            self.i += 1
            start = self.tok[2]
            self.i += 1
            self.skip_balanced("<", ">")
            layout = " ".join(self.src.text[start:self.toks[self.i - 1][2] + 1].split())
            if not self.at(","):
                self.expect(">", "to close 'memref<'")
                return MemRefType(tuple(shape), et, 0, None, layout)
        if self.accept(","):
            if self.at("affine_map") or (self.kind() == "hash" and self.at_map_alias()):
                self.parse_layout_map()
                if not self.accept(","):
                    self.expect(">", "to close 'memref<'")
                    return MemRefType(tuple(shape), et, 0)
            t = self.tok
            if t[0] == "int":
                self.i += 1
                space = int(t[1])
                if self.accept(":"):
                    self.parse_element_type()
            elif t[0] == "hash" and self.toks[self.i + 1][1] == "<":
                start = t[2]
                self.i += 1
                self.skip_balanced("<", ">")
                attr = self.src.text[start:self.toks[self.i - 1][2] + 1]
                self.expect(">", "to close 'memref<'")
                return MemRefType(tuple(shape), et, 0, attr)
            elif t[1] == "-" and self.toks[self.i + 1][0] == "int":
                raise self.error(f"memory space must be >= 0, found -{self.toks[self.i + 1][1]}")
            else:
                raise self.error(f"unsupported memref layout or memory space {self.describe()} "
                                 f"(expected an integer memory space)")
        self.expect(">", "to close 'memref<'")
        return MemRefType(tuple(shape), et, space, None, layout)

    def at_map_alias(self) -> bool:
        return False

    def parse_function_type(self) -> FunctionType:
        self.expect("(")
        ins: list[Type] = []
        if not self.at(")"):
            while True:
                ins.append(self.parse_type())
                if not self.accept(","):
                    break
        self.expect(")", "to close the function input types")
        self.expect("->", "in function type")
        return FunctionType(tuple(ins), tuple(self.parse_result_types()))

    def parse_result_types(self) -> list[Type]:
        if self.accept("("):
            out: list[Type] = []
            if not self.at(")"):
                while True:
                    out.append(self.parse_type())
                    if not self.accept(","):
                        break
            self.expect(")", "to close the result type list")
            return out
        return [self.parse_type()]

    def parse_type_list(self, n: int, what: str) -> list[Type]:
        out = [self.parse_type()]
        while self.accept(","):
            out.append(self.parse_type())
        if len(out) != n:
            raise self.error(f"{what}: expected {n} types, found {len(out)}")
        return out
