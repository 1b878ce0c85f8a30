# ruff: noqa: E501  (MLIR text lines are as mlir-opt prints them)
"""The static race proof (`compiler.analysis.races`) on hand-written DMA programs: each racy
program is refused with the access, the element and both instances named; each race-free
one (the same program with the wait where it belongs) is accepted."""

from __future__ import annotations

import pytest

from compiler.analysis.races import check_clusters, check_races
from compiler.ir.ops import FuncOp
from compiler.text import parse_module

HEAD = "func.func @f(%A: memref<256xf32>, %B: memref<256xf32>) {\n"
ALLOC = """  %c0 = arith.constant 0 : index
  %n = arith.constant 64 : index
  %buf = memref.alloc() : memref<2x64xf32, 1>
  %tag = memref.alloc() : memref<2xi32, 2>
"""


def _func(body: str) -> FuncOp:
    m = parse_module(HEAD + ALLOC + body + "  return\n}\n")
    return m.funcs[0]


# double buffering: tile i+1 starts while tile i is read; waits in place
GOOD = """  affine.dma_start %A[0], %buf[0, 0], %tag[0], %n : memref<256xf32>, memref<2x64xf32, 1>, memref<2xi32, 2>
  affine.for %i = 0 to 4 {
    affine.if affine_set<(d0) : (2 - d0 >= 0)>(%i) {
      affine.dma_start %A[%i * 64 + 64], %buf[(%i + 1) mod 2, 0], %tag[(%i + 1) mod 2], %n : memref<256xf32>, memref<2x64xf32, 1>, memref<2xi32, 2>
    }
    affine.dma_wait %tag[%i mod 2], %n : memref<2xi32, 2>
    affine.for %j = 0 to 64 {
      %v = affine.load %buf[%i mod 2, %j] : memref<2x64xf32, 1>
      affine.store %v, %B[%i * 64 + %j] : memref<256xf32>
    }
  }
"""


def test_double_buffering_with_its_waits_is_race_free() -> None:
    r = check_races(_func(GOOD))
    assert r.ok and not r.unchecked


def test_a_read_before_the_wait_is_a_race_naming_element_and_instances() -> None:
    # the wait moved after the kernel: tile i is read while it is still arriving
    racy = GOOD.replace("""    affine.dma_wait %tag[%i mod 2], %n : memref<2xi32, 2>
    affine.for %j = 0 to 64 {
      %v = affine.load %buf[%i mod 2, %j] : memref<2x64xf32, 1>
      affine.store %v, %B[%i * 64 + %j] : memref<256xf32>
    }
""", """    affine.for %j = 0 to 64 {
      %v = affine.load %buf[%i mod 2, %j] : memref<2x64xf32, 1>
      affine.store %v, %B[%i * 64 + %j] : memref<256xf32>
    }
    affine.dma_wait %tag[%i mod 2], %n : memref<2xi32, 2>
""")
    r = check_races(_func(racy))
    assert not r.ok
    race = r.races[0]
    assert race.kind == "in-flight" and race.op.NAME == "affine.load"
    assert race.buffer == "%buf" and len(race.element) == 2
    i = race.op_at[0]
    assert race.element[0] == i % 2 and 0 <= race.element[1] < 64
    assert "reads %buf element" in race.message and "a dma_wait on its tag must come first" in race.message


def test_a_prefetch_into_the_slot_being_read_is_a_race() -> None:
    # one slot too few: the prefetch of tile i+1 lands in the slot tile i is read from
    racy = GOOD.replace("%buf[(%i + 1) mod 2, 0]", "%buf[%i mod 2, 0]")
    r = check_races(_func(racy))
    assert not r.ok
    assert r.races[0].buffer == "%buf"


def test_a_tag_reused_before_its_wait_is_a_race() -> None:
    racy = GOOD.replace("%tag[(%i + 1) mod 2], %n", "%tag[%i mod 2], %n")
    r = check_races(_func(racy))
    assert not r.ok
    assert any(x.kind == "tag-reuse" for x in check_races(_func(racy), first_only=False).races)


def test_a_dma_never_waited_races_with_every_later_access() -> None:
    body = """  affine.dma_start %A[0], %buf[0, 0], %tag[0], %n : memref<256xf32>, memref<2x64xf32, 1>, memref<2xi32, 2>
  %v = affine.load %buf[0, 5] : memref<2x64xf32, 1>
  affine.store %v, %B[0] : memref<256xf32>
"""
    r = check_races(_func(body))
    assert not r.ok and r.races[0].element == (0, 5)
    # the other slot is not touched by the DMA: no race
    ok = body.replace("%buf[0, 5]", "%buf[1, 5]")
    assert check_races(_func(ok)).ok


def test_a_copy_out_overtaken_by_the_next_copy_in_of_its_slot_is_a_race() -> None:
    body = """  affine.for %i = 0 to 4 {
    affine.dma_start %A[%i * 64], %buf[0, 0], %tag[0], %n : memref<256xf32>, memref<2x64xf32, 1>, memref<2xi32, 2>
    affine.dma_wait %tag[0], %n : memref<2xi32, 2>
    affine.dma_start %buf[0, 0], %B[%i * 64], %tag[1], %n : memref<2x64xf32, 1>, memref<256xf32>, memref<2xi32, 2>
  }
  affine.dma_wait %tag[1], %n : memref<2xi32, 2>
"""
    # the copy-out of tile i still reads slot 0 when tile i+1's copy-in writes it (and its
    # tag 1 is reused)
    assert not check_races(_func(body)).ok
    fixed = body.replace("""    affine.dma_start %buf[0, 0], %B[%i * 64], %tag[1], %n : memref<2x64xf32, 1>, memref<256xf32>, memref<2xi32, 2>
  }
  affine.dma_wait %tag[1], %n : memref<2xi32, 2>
""", """    affine.dma_start %buf[0, 0], %B[%i * 64], %tag[1], %n : memref<2x64xf32, 1>, memref<256xf32>, memref<2xi32, 2>
    affine.dma_wait %tag[1], %n : memref<2xi32, 2>
  }
""")
    assert check_races(_func(fixed)).ok


@pytest.mark.parametrize("lo,hi,racy", [(0, 128, False), (0, 64, True)])
def test_clusters_writing_overlapping_rows_between_barriers_race(lo: int, hi: int, racy: bool) -> None:
    def prog(start: int) -> FuncOp:
        body = f"""  affine.for %i = {start} to {start + 128} {{
    %v = affine.load %A[%i] : memref<256xf32>
    affine.store %v, %B[%i] : memref<256xf32>
  }}
"""
        return parse_module(HEAD + body + "  return\n}\n").funcs[0]

    r = check_clusters([prog(lo), prog(hi)])
    assert r.ok is not racy
    if racy:
        assert "%B" in r.races[0].message and "clusters 0 and 1" in r.races[0].message


def test_a_copy_box_reading_what_it_never_uses_is_a_cluster_race() -> None:
    """Cluster 0's compiled program copies B[0:8] (a bounding box) but uses only B[0:4];
    cluster 1 writes B[4:8] between the same barriers. The box's DMA reads B[4:8] all the
    same, as the simulator's cluster check sees it (fuzz seeds 1335, 1643): a race, and
    the proof names that element; the same program copying B[0:4] only is race-free."""
    head = "func.func @f(%A: memref<256xf32>, %B: memref<256xf32>) {\n"
    compiled0 = parse_module(head + """  %n = arith.constant 8 : index
  %buf = memref.alloc() : memref<8xf32, 1>
  %tag = memref.alloc() : memref<1xi32, 2>
  affine.dma_start %B[0], %buf[0], %tag[0], %n : memref<256xf32>, memref<8xf32, 1>, memref<1xi32, 2>
  affine.dma_wait %tag[0], %n : memref<1xi32, 2>
  affine.for %i = 0 to 4 {
    %v = affine.load %buf[%i] : memref<8xf32, 1>
    affine.store %v, %A[%i] : memref<256xf32>
  }
  return
}
""").funcs[0]
    source0 = parse_module(head + """  affine.for %i = 0 to 4 {
    %v = affine.load %B[%i] : memref<256xf32>
    affine.store %v, %A[%i] : memref<256xf32>
  }
  return
}
""").funcs[0]
    writer = parse_module(head + """  %c = arith.constant 1.0 : f32
  affine.for %i = 4 to 8 {
    affine.store %c, %B[%i] : memref<256xf32>
  }
  return
}
""").funcs[0]
    r = check_clusters([compiled0, writer])
    assert not r.ok
    assert r.races[0].buffer == "%B" and 4 <= r.races[0].element[0] < 8
    assert check_clusters([source0, writer]).ok


# a copy waited for in its own block (the program-order shortcut, `_span_to_wait`): only an
# op between the start and the wait on its tag element can be in its window
SAME_BLOCK = """  affine.for %i = 0 to 4 {
    affine.dma_start %A[%i * 64], %buf[0, 0], %tag[0], %n : memref<256xf32>, memref<2x64xf32, 1>, memref<2xi32, 2>
    BETWEEN
    affine.dma_wait %tag[WAITED], %n : memref<2xi32, 2>
    affine.for %j = 0 to 64 {
      %v = affine.load %buf[0, %j] : memref<2x64xf32, 1>
      affine.store %v, %B[%i * 64 + %j] : memref<256xf32>
    }
  }
"""
READ = """affine.for %k = 0 to 2 {
      %w = affine.load %buf[0, %k] : memref<2x64xf32, 1>
      affine.store %w, %B[%k] : memref<256xf32>
    }"""


@pytest.mark.parametrize(("between", "waited", "racy"), [
    ("", "0", False),      # waited right away: every later access is after the wait
    (READ, "0", True),     # a nest between the start and its wait reads the buffer
    ("", "1", True),       # the wait is on another tag element: it does not close the window
])
def test_a_copy_waited_in_its_own_block_races_only_with_what_lies_between(
        between: str, waited: str, racy: bool) -> None:
    r = check_races(_func(SAME_BLOCK.replace("BETWEEN", between).replace("WAITED", waited)))
    assert not r.unchecked
    assert (not r.ok) == racy
