"""The MLIR spellings upstream's own tests use: blanks inside types, vector elements, identity
layouts, unnamed results, the generic op form (unregistered ops kept opaque), memref.dim and
the memref ops kept opaque. Properties over generated spellings, and mlir-opt-19 as the
reference reader of everything we print."""

from __future__ import annotations

import pathlib
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.diagnostics import ParseError
from compiler.ir.ops import DimOp, OpaqueOp
from compiler.ir.types import MemRefType, VectorType
from compiler.ir.verifier import verify
from compiler.text import module_diff, parse_module, print_module

HERE = pathlib.Path(__file__).parent
SCALARS = ["f16", "f32", "f64", "i1", "i8", "i32", "i64", "index"]


@st.composite
def spaced_memref(draw: st.DrawFn) -> tuple[str, str]:
    """(a memref type spelled with random blanks, its canonical glued spelling)."""
    blank = st.sampled_from(["", " ", "  ", "\n  "])
    dims = draw(st.lists(st.one_of(st.integers(1, 64).map(str), st.just("?")), max_size=3))
    scalar = draw(st.sampled_from(SCALARS))
    vec = draw(st.lists(st.integers(1, 16), max_size=2)) if scalar != "index" else []
    def join(parts: list[str]) -> str:
        return "".join(p + draw(blank) + "x" + draw(blank) for p in parts)
    if vec:
        elem_sp = "vector<" + draw(blank) + join([str(d) for d in vec]) + scalar + draw(blank) + ">"
        elem = "vector<" + "".join(f"{d}x" for d in vec) + scalar + ">"
    else:
        elem_sp = elem = scalar
    space = draw(st.sampled_from(["", "1", "2"]))
    layout = draw(st.sampled_from(["", "affine_map<(" + ", ".join(f"d{k}" for k in range(len(dims)))
                                   + ") -> (" + ", ".join(f"d{k}" for k in range(len(dims))) + ")>"]))
    tail_sp = (", " + layout if layout else "") + (", " + space if space else "")
    text = "memref<" + draw(blank) + join(dims) + elem_sp + draw(blank) + tail_sp + ">"
    canon = "memref<" + "".join(f"{d}x" for d in dims) + elem + (f", {space}" if space else "") + ">"
    return text, canon


def _func_with_arg(ty: str) -> str:
    return f"func.func @f(%A: {ty}) {{\n  return\n}}\n"


@given(spaced_memref())
@settings(max_examples=200)
def test_blanks_vectors_and_identity_layouts_read_as_the_glued_type(pair: tuple[str, str]) -> None:
    text, canon = pair
    module = parse_module(_func_with_arg(text), "t.mlir")
    t = module.funcs[0].function_type.inputs[0]
    assert isinstance(t, MemRefType) and str(t) == canon
    assert module_diff(module, parse_module(_func_with_arg(canon))) is None


@pytest.mark.mlir_opt
@given(st.lists(spaced_memref(), min_size=1, max_size=8))
@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_mlir_opt_spells_the_generated_types_as_we_do(mlir_opt: str, pairs: list[tuple[str, str]]) -> None:
    text = "".join(f"func.func @f{k}(%arg0: {t}) {{\n  return\n}}\n" for k, (t, _) in enumerate(pairs))
    done = subprocess.run([mlir_opt], input=text, capture_output=True, text=True, check=True)
    ours = print_module(parse_module(text))
    assert [ln.strip() for ln in done.stdout.splitlines() if "func.func" in ln] == \
        [ln.strip() for ln in ours.splitlines() if "func.func" in ln]


NAMES = st.sampled_from(["foo", "test.foo", "compute", "my.dialect.op", "do_more_compute"])
ATTRS = st.sampled_from(["", "{a = 1 : i64}", '{note = "x", flag}', "{m = affine_map<(d0) -> (d0)>}"])


@st.composite
def generic_op(draw: st.DrawFn) -> str:
    operands = draw(st.lists(st.sampled_from([("%x", "f32"), ("%i", "index"), ("%A", "memref<4xf32>")]),
                             max_size=3))
    results = draw(st.lists(st.sampled_from(["f32", "index", "i1"]), max_size=2))
    ins = ", ".join(t for _, t in operands)
    outs = results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
    head = ""
    if results:
        head = "%r = " if len(results) == 1 else f"%r:{len(results)} = "
    props = draw(st.sampled_from(["", " <{p = 2 : i32}>"]))
    op = (f'{head}"{draw(NAMES)}"({", ".join(v for v, _ in operands)}){props} {draw(ATTRS)} '
          f": ({ins}) -> {outs}")
    return ("func.func @g(%x: f32, %i: index, %A: memref<4xf32>) {\n  affine.for %k = 0 to 4 {\n    "
            + op + "\n  }\n  return\n}\n")


@given(generic_op())
@settings(max_examples=150)
def test_generic_ops_are_kept_and_print_back_identically(text: str) -> None:
    module = parse_module(text, "g.mlir")
    verify(module)
    [op] = [o for o in module.walk() if isinstance(o, OpaqueOp)]
    printed = print_module(module)
    again = parse_module(printed)
    assert module_diff(module, again) is None
    assert print_module(again) == printed
    assert f'"{op.NAME}"(' in printed


@pytest.mark.mlir_opt
def test_mlir_opt_reads_what_we_print_for_the_upstream_spellings(mlir_opt: str) -> None:
    src = (HERE / "upstream_syntax" / "spelling.mlir").read_text()
    module = parse_module(src, "spelling.mlir")
    verify(module)
    printed = print_module(module)
    done = subprocess.run([mlir_opt, "-allow-unregistered-dialect"], input=printed,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    # and mlir-opt's own print of the input reads back to the same module here
    theirs = subprocess.run([mlir_opt, "-allow-unregistered-dialect", "-mlir-print-op-generic"],
                            input=src, capture_output=True, text=True, check=True).stdout
    assert '"memref.store"' in theirs and '"test.use"' in theirs
    names = {o.NAME for o in module.walk() if isinstance(o, OpaqueOp)}
    assert names == {"memref.global", "memref.get_global", "memref.load", "memref.store",
                     "memref.copy", "test.use", "test.make"}


def test_the_upstream_spellings_file_keeps_its_pieces() -> None:
    module = parse_module((HERE / "upstream_syntax" / "spelling.mlir").read_text(), "s.mlir")
    f = module.funcs[0]
    assert str(f.function_type.inputs[1]) == "memref<4xvector<2xf32>>"
    vt = f.function_type.inputs[1].element  # type: ignore[union-attr]
    assert isinstance(vt, VectorType) and vt.byte_width == 8 and vt.shape == (2,)
    dims = [o for o in module.walk() if isinstance(o, DimOp)]
    assert len(dims) == 1 and dims[0].constant_index() == 0
    printed = print_module(module)
    assert "%0 = affine.load %D[%i]" in printed            # an unnamed result gets a number
    assert "{alignment = 64 : i64}" in printed             # the attribute is kept
    assert ', #id' not in printed and "affine_map<(d0) -> (d0)>, 1" not in printed


@pytest.mark.parametrize("text,message", [
    ("memref<4xf32, affine_map<(d0) -> (d0 + 1)>>",
     "unsupported memref layout (d0) -> (d0 + 1) (only the identity layout is supported)"),
    ("memref<4xvector<?xf32>>", "a vector type needs static positive dimensions"),
    ("memref<4 x y x f32>", "invalid memref dimension 'y' in '4xyxf32'"),
])
def test_bad_spellings_are_located_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_module(_func_with_arg(text), "b.mlir")
    assert info.value.message == message and info.value.loc.line == 1


def test_results_may_go_unnamed_but_not_miscounted() -> None:
    ok = parse_module("func.func @f(%A: memref<4xf32>) {\n  affine.load %A[0] : memref<4xf32>\n"
                      "  return\n}\n")
    verify(ok)
    with pytest.raises(ParseError, match="defines 1 result"):
        parse_module("func.func @f(%A: memref<4xf32>) {\n  %a, %b = affine.load %A[0] : memref<4xf32>\n"
                     "  return\n}\n")


def test_an_attribute_memory_space_is_kept_and_is_slow_memory_to_the_passes() -> None:
    text = ("func.func @s(%A: memref<8x8xi8, #spirv.storage_class<StorageBuffer>>) {\n"
            "  affine.for %i = 0 to 8 {\n"
            "    %v = affine.load %A[%i, 0] : memref<8x8xi8, #spirv.storage_class<StorageBuffer>>\n"
            "    affine.store %v, %A[%i, 1] : memref<8x8xi8, #spirv.storage_class<StorageBuffer>>\n"
            "  }\n  return\n}\n")
    module = parse_module(text)
    t = module.funcs[0].function_type.inputs[0]
    assert isinstance(t, MemRefType) and t.memory_space == 0
    assert str(t) == "memref<8x8xi8, #spirv.storage_class<StorageBuffer>>"
    assert module_diff(module, parse_module(print_module(module))) is None
    assert t != MemRefType((8, 8), t.element)  # not the plain memref<8x8xi8>
