"""A text cut anywhere (the fuzzed input of issue 31 ended inside an index list,
`affine.load %A[`, and ran the parser off its token list: an IndexError traceback) parses or
raises a located ParseError, never another exception; memref dimensions beyond int64 are an
error as in mlir-opt-19 (one of 2^64 reached islpy as a TypeError on --target sim)."""

from __future__ import annotations

import pathlib
import re

import pytest

from compiler.diagnostics import AccelsimError, ParseError
from compiler.text import parse_module

HERE = pathlib.Path(__file__).parent
SOURCES = sorted((HERE / "kernels").glob("*.mlir"))[:6]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_every_prefix_parses_or_is_a_located_parse_error(path: pathlib.Path) -> None:
    text = path.read_text()
    unlocated = []
    for cut in range(0, len(text), 3):
        try:
            parse_module(text[:cut])
        except AccelsimError as exc:   # any other exception fails the test by itself
            if not re.match(r"<string>:\d+:\d+: error: ", str(exc)):
                unlocated.append((cut, str(exc)))
    assert not unlocated, unlocated[:3]


@pytest.mark.parametrize("tail", ["affine.load %A[", "affine.store %s, %C[%i, %j", "%v = affine.load %A[%i"])
def test_the_fuzzed_endings_are_parse_errors(tail: str) -> None:
    text = ("func.func @f(%A: memref<4x4xf32>, %C: memref<4x4xf32>, %s: f32) {\n"
            "  affine.for %i = 0 to 4 {\n    affine.for %j = 0 to 4 {\n      " + tail)
    with pytest.raises(ParseError) as err:
        parse_module(text)
    assert "end of file" in str(err.value) or "expected" in str(err.value)


@pytest.mark.parametrize("dim", [2**63, 2**64 - 1, 2**64])
def test_a_dimension_beyond_int64_is_invalid(dim: int) -> None:
    with pytest.raises(ParseError, match="invalid dimension"):
        parse_module(f"func.func @f(%A: memref<{dim}x2xf32>) {{\n  return\n}}\n")


def test_the_largest_dimension_is_accepted_and_compiles_for_sim() -> None:
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.config import load_config

    m = parse_module("func.func @f(%A: memref<4611686018427387904x4xf32>) {\n"
                     "  affine.for %i = 0 to 4 {\n"
                     "    %v = affine.load %A[%i, 0] : memref<4611686018427387904x4xf32>\n"
                     "    affine.store %v, %A[%i, 1] : memref<4611686018427387904x4xf32>\n"
                     "  }\n  return\n}\n")
    pipeline, _ = compile_for_accelerator(load_config("default"), m, "f")  # strides beyond int64 in isl
    assert pipeline.flags()  # the accelerator pipeline ran on it
    assert m.funcs[0].NAME == "func.func" and any(
        op.NAME == "affine.dma_start" for op in m.funcs[0].walk())  # and copied its tiles by DMA
