"""The -affine-pipeline-data-transfer example of seed 004, as the document prints it."""

from __future__ import annotations

import pathlib

import pytest

from compiler.diagnostics import ParseError
from compiler.ir.affine_eval import evaluate_map
from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, AffineForOp, AllocOp, OpaqueOp
from compiler.ir.types import F32, MemRefType
from compiler.ir.verifier import verify
from compiler.text import module_diff, parse_module, print_module

SEED = pathlib.Path(__file__).parent / "seed"
MISSING_ALIASES = "#map3 = affine_map<(d0) -> (d0 - 1)>\n#map4 = affine_map<(d0) -> (d0 mod 2)>\n"


def test_seed_input_keeps_the_unregistered_compute_op_opaque() -> None:
    text = (SEED / "004_pipeline_input.mlir").read_text()
    module = parse_module(text, "seed.mlir")
    verify(module)
    opaque = [op for op in module.walk() if isinstance(op, OpaqueOp)]
    assert [op.NAME for op in opaque] == ["compute"]
    assert [str(r.type) for r in opaque[0].results] == ["f32"]
    printed = print_module(module)
    assert '"compute"(' in printed and ": (f32) -> f32" in printed
    assert module_diff(module, parse_module(printed)) is None


def test_seed_output_stops_at_the_alias_the_document_omits() -> None:
    text = (SEED / "004_pipeline_output.mlir").read_text()
    with pytest.raises(ParseError) as info:
        parse_module(text, "seed.mlir")
    col = text.splitlines()[2].index("#map3") + 1
    assert str(info.value) == f"seed.mlir:3:{col}: error: undefined alias '#map3'"


def completed_seed_output() -> str:
    text = (SEED / "004_pipeline_output.mlir").read_text()
    for k in (3, 6, 11):  # "compute" -> a registered unary op
        text = text.replace(f'"compute"(%{k}) : (f32) -> f32', f"math.sqrt %{k} : f32")
    return MISSING_ALIASES + text


def test_completed_seed_output_parses_with_the_pipelined_structure() -> None:
    module = parse_module(completed_seed_output(), "seed.mlir")
    ops = list(module.walk())
    starts = [op for op in ops if isinstance(op, AffineDmaStartOp)]
    waits = [op for op in ops if isinstance(op, AffineDmaWaitOp)]
    loops = [op for op in ops if isinstance(op, AffineForOp)]
    assert len(starts) == 2 and len(waits) == 2 and len(loops) == 1
    assert (loops[0].constant_lower, loops[0].constant_upper) == (1, 8)
    allocs = [op.memref_type for op in ops if isinstance(op, AllocOp)]
    assert MemRefType((2, 32), F32, 1) in allocs  # the double buffer
    # `%1[%arg0 mod 2, %arg0]` inside the loop: the buffer index alternates with the IV.
    inner = next(op for op in starts if op.parent_op is loops[0])
    assert evaluate_map(inner.dst_map, [5]) == (1, 5) and inner.dst_indices == [loops[0].iv]
    again = parse_module(print_module(module))
    assert module_diff(module, again) is None
    verify(module)  # the seed's tag is memref<2x1xf32>: accepted, as upstream accepts it
