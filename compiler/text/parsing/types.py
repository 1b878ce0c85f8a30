"""Types: scalars (`f32`, `index`, ...), `memref<4x?xf32, 1>` and function types."""

from __future__ import annotations

import re

from compiler.ir.types import ELEMENT_TYPES, ElementType, FunctionType, MemRefType, Type
from compiler.text.parsing.cursor import TokenCursor

# the dimensions of a memref type body, `4x?x16x` (each one followed by `x`)
_DIMS = re.compile(r"(?:(?:\d+|\?)x)*")
# a malformed dimension: something that is not an element type, followed by `x`
_BAD_DIM = re.compile(r"([^x]*)x")


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
            if t[1] in ("tensor", "vector"):
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
        # Types repeat a lot in real files: reuse the parse of an identical spelling.
        close = self.src.text.find(">", lt[2])
        key = self.src.text[lt[2]:close]
        cached = self.type_cache.get(key) if close >= 0 else None
        if cached is not None:
            toks, i = self.toks, self.i
            while toks[i][1] != ">" and toks[i][0] != "eof":
                i += 1
            if toks[i][0] != "eof":  # the same spelling up to the same '>': the same type
                self.i = i + 1
                return cached
        ty = self.parse_memref_type_body()
        self.type_cache[key] = ty
        return ty

    def parse_memref_type_body(self) -> MemRefType:
        # `32x?x16xf32` lexes as int, bare `x`..., `?` ...: glue the adjacent tokens back.
        first = self.tok
        parts: list[str] = []
        end = first[2]
        # (`0xf32` lexes as a hex literal, `8xindex` as int + bare: both are glued back too)
        while self.tok[0] in ("int", "hex", "bare", "punct") and self.tok[1] not in (",", ">") \
                and self.tok[2] == end:
            t = self.advance()
            parts.append(t[1])
            end = t[2] + len(t[1])
        spelled = "".join(parts)
        dims = _DIMS.match(spelled)
        assert dims is not None  # the pattern matches the empty prefix
        shape: list[int | None] = [None if d == "?" else int(d)
                                   for d in dims.group(0).split("x")[:-1]]
        rest = spelled[dims.end():]
        et = ELEMENT_TYPES.get(rest)
        if et is None:
            bad = _BAD_DIM.match(rest)
            if bad is not None:
                raise self.error(f"invalid memref dimension '{bad.group(1)}' in '{spelled}'", first)
            raise self.error(f"expected a memref element type, found '{rest or self.tok[1]}'", first)
        space = 0
        if self.accept(","):
            t = self.tok
            if t[0] == "int":
                self.i += 1
                space = int(t[1])
                if self.accept(":"):
                    self.parse_element_type()
            elif t[1] == "-" and self.toks[self.i + 1][0] == "int":
                raise self.error(f"memory space must be >= 0, found -{self.toks[self.i + 1][1]}")
            else:
                raise self.error(f"unsupported memref layout or memory space {self.describe()} "
                                 f"(expected an integer memory space)")
        self.expect(">", "to close 'memref<'")
        return MemRefType(tuple(shape), et, space)

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
