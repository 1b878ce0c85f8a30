# ruff: noqa: E501  (MLIR text lines are as mlir-opt prints them)
"""The race proof through `func.call` (`compiler.analysis.call_effects`): a callee defined in
the module counts for what its affine loads and stores touch, with its index parameters bound
at the call; the same program with the kernel inlined gets the same verdict. An external,
recursive or non-affine callee keeps the conservative every-element effect."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.analysis.races import RaceReport, check_races
from compiler.ir.ops import ModuleOp
from compiler.text import parse_module

SCALE3 = (Path(__file__).parents[2] / "accelsim" / "data" / "levels" / "scale3.mlir").read_text()

TYPES = "memref<2x64xf32, 1>, memref<256xf32>, index"
KERNEL = """func.func private @tile(%buf: memref<2x64xf32, 1>, %B: memref<256xf32>, %i: index) {
  affine.for %j = 0 to 64 {
    %v = affine.load %buf[%i mod 2, %j] : memref<2x64xf32, 1>
    affine.store %v, %B[%i * 64 + %j] : memref<256xf32>
  }
  return
}
"""
# the kernel through a second call, inside a loop of one trip, at a shifted index
OUTER = f"""func.func private @outer(%buf: memref<2x64xf32, 1>, %B: memref<256xf32>, %i: index) {{
  affine.for %t = 0 to 1 {{
    %k = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%i, %t)
    func.call @tile(%buf, %B, %k) : ({TYPES}) -> ()
  }}
  return
}}
"""
INLINE = """    affine.for %j = 0 to 64 {
      %v = affine.load %buf[%i mod 2, %j] : memref<2x64xf32, 1>
      affine.store %v, %B[%i * 64 + %j] : memref<256xf32>
    }
"""
CALL = f"    func.call @tile(%buf, %B, %i) : ({TYPES}) -> ()\n"
# double buffering as in test_races.GOOD, with the kernel in place of KERNEL_AT
MAIN = """func.func @f(%A: memref<256xf32>, %B: memref<256xf32>) {
  %n = arith.constant 64 : index
  %buf = memref.alloc() : memref<2x64xf32, 1>
  %tag = memref.alloc() : memref<2xi32, 2>
  affine.dma_start %A[0], %buf[0, 0], %tag[0], %n : memref<256xf32>, memref<2x64xf32, 1>, memref<2xi32, 2>
  affine.for %i = 0 to 4 {
    affine.if affine_set<(d0) : (2 - d0 >= 0)>(%i) {
      affine.dma_start %A[%i * 64 + 64], %buf[(%i + 1) mod 2, 0], %tag[(%i + 1) mod 2], %n : memref<256xf32>, memref<2x64xf32, 1>, memref<2xi32, 2>
    }
    affine.dma_wait %tag[%i mod 2], %n : memref<2xi32, 2>
KERNEL_AT  }
  return
}
"""
WAIT = "    affine.dma_wait %tag[%i mod 2], %n : memref<2xi32, 2>\n"

# (name, edit of the whole program, racy)
VARIANTS = [
    ("as written", lambda s: s, False),
    ("wait after the kernel", lambda s: s.replace(WAIT + "KERNEL_AT", "KERNEL_AT" + WAIT), True),
    ("prefetch into the slot read", lambda s: s.replace("%buf[(%i + 1) mod 2, 0]", "%buf[%i mod 2, 0]"), True),
    ("kernel reads the slot being filled", lambda s: s.replace("%buf[%i mod 2, %j]", "%buf[(%i + 1) mod 2, %j]"), True),
]


def _check(text: str) -> RaceReport:
    m = parse_module(text)
    assert isinstance(m, ModuleOp)
    f = m.lookup("f")
    assert f is not None
    return check_races(f)


def _program(how: str, edit=lambda s: s) -> str:  # type: ignore[no-untyped-def]
    """MAIN with the kernel inlined, called, called through @outer, or called in a nest;
    `edit` applies to each piece of text."""
    main, kernel = edit(MAIN), edit(KERNEL)
    if how == "inline":
        return main.replace("KERNEL_AT", edit(INLINE))
    if how == "call":
        return kernel + main.replace("KERNEL_AT", CALL)
    if how == "nested call":
        return kernel + OUTER + main.replace("KERNEL_AT", CALL.replace("@tile", "@outer"))
    assert how == "call in a nest"   # a DMA-free nest around the call: one unit
    nest = "    affine.for %r = 0 to 1 {\n  " + CALL + "    }\n"
    return kernel + main.replace("KERNEL_AT", nest)


@pytest.mark.parametrize("how", ["call", "nested call", "call in a nest"])
@pytest.mark.parametrize("name,edit,racy", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_a_call_has_the_verdict_of_its_inlined_body(how: str, name: str, edit, racy: bool) -> None:  # type: ignore[no-untyped-def]
    inline = _check(_program("inline", edit))
    called = _check(_program(how, edit))
    assert inline.ok is not racy, name
    assert called.ok is inline.ok and not called.unchecked, name
    if racy and "kernel" in name:
        race = called.races[0]
        assert race.op.NAME == "func.call" and race.buffer == "%buf"
        # the element is in the row the racing DMA fills: (i + 1) mod 2 of its instance
        assert race.element[0] == (race.dma_at[0] + 1) % 2 if race.dma_at else race.element[0] == 0


def test_scale3_double_buffered_scratchpad_is_race_free() -> None:
    m = parse_module(SCALE3)
    for f in m.funcs:
        if not f.is_declaration:
            r = check_races(f)
            assert r.ok and not r.unchecked, (f.sym_name, [x.message for x in r.races])


def test_scale3_calling_on_the_row_being_filled_races() -> None:
    racy = SCALE3.replace("affine_map<(d0) -> (d0 mod 2)>(%i)", "affine_map<(d0) -> ((d0 + 1) mod 2)>(%i)")
    assert racy != SCALE3
    r = check_races(parse_module(racy).lookup("scale3"))  # type: ignore[arg-type]
    assert not r.ok
    race = r.races[0]
    assert race.op.NAME == "func.call" and race.buffer == "%spad"
    # call at iteration i touches row (i+1) mod 2, which the prefetch of iteration i fills
    assert race.op_at == race.dma_at and race.element[0] == (race.op_at[0] + 1) % 2


CONSERVATIVE = {
    # a declaration: nothing is known, every element of %buf is read and written
    "external": f"func.func private @tile({TYPES})\n",
    # a use of %buf other than an affine load/store (memref.load)
    "memref.load": """func.func private @tile(%buf: memref<2x64xf32, 1>, %B: memref<256xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %v = memref.load %buf[%c0, %c0] : memref<2x64xf32, 1>
  return
}
""",
    # an index the callee computes beyond affine reach: any row
    "non-affine index": """func.func private @tile(%buf: memref<2x64xf32, 1>, %B: memref<256xf32>, %i: index) {
  %k = arith.muli %i, %i : index
  affine.for %j = 0 to 64 {
    %v = affine.load %buf[%k mod 2, %j] : memref<2x64xf32, 1>
  }
  return
}
""",
    # an index computed in the kernel's loop beyond affine reach: the access is opaque
    "non-affine index in a loop": """func.func private @tile(%buf: memref<2x64xf32, 1>, %B: memref<256xf32>, %i: index) {
  affine.for %j = 0 to 64 {
    %k = arith.muli %j, %i : index
    %v = affine.load %buf[%k, %j] : memref<2x64xf32, 1>
  }
  return
}
""",
    # recursion: the summary stops and keeps every element
    "recursive": f"""func.func private @tile(%buf: memref<2x64xf32, 1>, %B: memref<256xf32>, %i: index) {{
  affine.for %j = 0 to 64 {{
    %v = affine.load %buf[%i mod 2, %j] : memref<2x64xf32, 1>
  }}
  func.call @tile(%buf, %B, %i) : ({TYPES}) -> ()
  return
}}
""",
}


@pytest.mark.parametrize("kind", sorted(CONSERVATIVE))
def test_an_unknown_callee_touches_every_element(kind: str) -> None:
    r = _check(CONSERVATIVE[kind] + MAIN.replace("KERNEL_AT", CALL))
    assert not r.ok
    race = r.races[0]
    assert race.op.NAME == "func.call" and race.buffer == "%buf"
    # only the row the call may touch differs from the affine kernel's: the slot in flight
    assert race.element[0] == (race.dma_at[0] + 1) % 2


def test_a_non_affine_call_operand_is_any_value() -> None:
    # %k = i * i is beyond the caller's affine frame: the kernel's row is any row
    call = CALL.replace("@tile(%buf, %B, %i)", "@tile(%buf, %B, %k)")
    text = KERNEL + MAIN.replace("KERNEL_AT", "    %k = arith.muli %i, %i : index\n" + call)
    assert not _check(text).ok
    # the same call with an affine operand (i * 1) is race-free
    text = KERNEL + MAIN.replace("KERNEL_AT", "    %k = affine.apply affine_map<(d0) -> (d0)>(%i)\n" + call)
    assert _check(text).ok


def test_a_callee_reading_its_buffers_shape_stays_exact() -> None:
    # memref.dim touches no element: the kernel still reads only row i mod 2
    kernel = KERNEL.replace("  affine.for %j = 0 to 64 {", """  %c1 = arith.constant 1 : index
  %d = memref.dim %buf, %c1 : memref<2x64xf32, 1>
  affine.for %j = 0 to %d {""")
    assert "memref.dim" in kernel
    r = _check(kernel + MAIN.replace("KERNEL_AT", CALL))
    assert r.ok and not r.unchecked
    racy = kernel.replace("%buf[%i mod 2, %j]", "%buf[(%i + 1) mod 2, %j]")
    assert not _check(racy + MAIN.replace("KERNEL_AT", CALL)).ok
