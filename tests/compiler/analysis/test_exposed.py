"""Exposed reads (`compiler.analysis.exposed`) against brute force: execute the control and
collect, per execution of the range (per outer iteration, per tile), the elements a load reads
before any store of that execution wrote them."""

from __future__ import annotations

import pytest

from compiler.analysis.exposed import copy_in_needed, exposed_reads
from compiler.analysis.isl_bridge import isl_name
from compiler.ir.ops import AffineForOp
from compiler.text import parse_module

PROGRAMS = {
    # a running max initialized in place (maxpool2d's shape)
    "pool": """
func.func @f(%I: memref<8x8xf32>, %O: memref<4x4xf32>) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 4 {
      %0 = affine.load %I[%i * 2, %j * 2] : memref<8x8xf32>
      affine.store %0, %O[%i, %j] : memref<4x4xf32>
      affine.for %r = 0 to 2 {
        affine.for %s = 0 to 2 {
          %1 = affine.load %O[%i, %j] : memref<4x4xf32>
          %2 = affine.load %I[%i * 2 + %r, %j * 2 + %s] : memref<8x8xf32>
          %3 = arith.maximumf %1, %2 : f32
          affine.store %3, %O[%i, %j] : memref<4x4xf32>
        }
      }
    }
  }
  return
}""",
    # O[i] read before the store of iteration i, written by iteration i - 1: covered within
    # one execution of the whole loop or of a tile, except at each tile's first iteration
    "carried": """
func.func @f(%O: memref<17xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    %0 = affine.load %O[%i] : memref<17xf32>
    affine.store %0, %O[%i + 1] : memref<17xf32>
  }
  return
}""",
    # a store in the then block of an if only: the else iterations read what is there
    "conditional": """
#set = affine_set<(d0) : (d0 - 4 >= 0)>
func.func @f(%A: memref<8xf32>, %O: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.if #set(%i) {
      affine.store %a, %O[%i] : memref<8xf32>
    }
    %o = affine.load %O[%i] : memref<8xf32>
    affine.store %o, %A[%i] : memref<8xf32>
  }
  return
}""",
}


def _brute(brute, func, memref, group):  # type: ignore[no-untyped-def]
    """{ execution key: elements read before written in it } with `group(inst)` the key."""
    seen: dict[object, tuple[set, set]] = {}
    for inst in brute.run_control(func, {}):
        if inst.memref is not memref:
            continue
        written, exposed = seen.setdefault(group(inst), (set(), set()))
        if inst.is_write:
            written.add(inst.element)
        elif inst.element not in written:
            exposed.add(inst.element)
    return seen


def _func(name):  # type: ignore[no-untyped-def]
    f = parse_module(PROGRAMS[name]).funcs[0]
    return f, [op for op in f.body.ops if not op.IS_TERMINATOR]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_exposed_reads_of_the_whole_function_are_the_executed_ones(brute, name: str) -> None:  # type: ignore[no-untyped-def]
    f, ops = _func(name)
    for memref in f.args:
        got = exposed_reads(memref, ops)
        want = _brute(brute, f, memref, lambda _: 0).get(0, (set(), set()))[1]
        if got is None:
            assert not want
            continue
        assert brute.points(got) == want, memref.name_hint


@pytest.mark.parametrize("size", [1, 3, 4, 16])
def test_exposed_reads_per_tile_are_the_executed_ones(brute, size: int) -> None:  # type: ignore[no-untyped-def]
    f, ops = _func("carried")
    loop = ops[-1]
    assert isinstance(loop, AffineForOp)
    memref = f.args[0]
    got = exposed_reads(memref, ops, {loop: size})
    assert got is not None
    want = _brute(brute, f, memref, lambda inst: inst.ivs[0] // size * size)
    param = f"tile_{isl_name(loop.iv)}"
    for origin, (_, exposed) in want.items():
        assert brute.points(brute.fix_params(got, {param: origin})) == exposed
    # one element exposed per tile: the one its first iteration reads
    assert all(len(e) == 1 for _, e in want.values())


def test_exposed_reads_per_outer_iteration(brute) -> None:  # type: ignore[no-untyped-def]
    f, ops = _func("pool")
    outer = ops[0]
    assert isinstance(outer, AffineForOp)
    body = [op for op in outer.body.ops if not op.IS_TERMINATOR]
    out = f.args[1]
    got = exposed_reads(out, body)
    assert got is not None and got.is_empty()
    assert not copy_in_needed(out, body) and not copy_in_needed(out, ops)
    assert copy_in_needed(f.args[0], ops)  # the input is read only


def test_copy_in_needed_follows_the_exposed_reads() -> None:
    f, ops = _func("conditional")
    assert copy_in_needed(f.args[1], ops)  # i < 4 reads O[i] unwritten
    f, ops = _func("carried")
    assert copy_in_needed(f.args[0], ops)  # O[0] read first


ACCUMULATE = """
func.func @f(%A: memref<6x5xf32>, %B: memref<5x4xf32>, %C: memref<6x4xf32>) {
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 4 {
      affine.for %k = 0 to 5 {
        %a = affine.load %A[%i, %k] : memref<6x5xf32>
        %b = affine.load %B[%k, %j] : memref<5x4xf32>
        %c = affine.load %C[%i, %j] : memref<6x4xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<6x4xf32>
      }
    }
  }
  return
}"""


def _ranges(f):  # type: ignore[no-untyped-def]
    """The whole body and the body of each loop of the first nest (one execution per outer
    iteration)."""
    ops = [op for op in f.body.ops if not op.IS_TERMINATOR]
    out = [ops]
    cur = ops[0] if ops and isinstance(ops[0], AffineForOp) else None
    while cur is not None:
        body = [op for op in cur.body.ops if not op.IS_TERMINATOR]
        out.append(body)
        cur = next((op for op in body if isinstance(op, AffineForOp)), None)
    return out


@pytest.mark.parametrize("name", [*sorted(PROGRAMS), "accumulate"])
def test_first_access_shortcut_agrees_with_the_dataflow(monkeypatch, name: str) -> None:  # type: ignore[no-untyped-def]
    """`copy_in_needed`'s cheap test (the first access of an execution is a load) only ever
    answers True where the full dataflow finds an exposed read: with and without it the
    answers are the same, for every memref, range and tiling here; and it does fire on the
    accumulator (the convolutions' and gemms' output), where it saves the dataflow. The same
    for `any_read_exposed` (the tile model's question) against `exposed_reads`."""
    import compiler.analysis.exposed as ex

    f = parse_module(ACCUMULATE if name == "accumulate" else PROGRAMS[name]).funcs[0]
    cases = []
    for ops in _ranges(f):
        loops = [op for root in ops for op in root.walk() if isinstance(op, AffineForOp)]
        for tiles in ({}, *({lp: 2} for lp in loops[:2])):
            cases += [(m, ops, tiles) for m in f.args]
    fast = [copy_in_needed(m, ops, tiles) for m, ops, tiles in cases]
    fired = []
    for m, ops, tiles in cases:
        found = ex._accesses(m, ops, tiles)
        if found is not None and not found[0].is_empty() and not found[1].is_empty():
            fired.append(ex._first_access_reads(found[0], found[2], found[3]))
    def some_exposed(m, ops):  # type: ignore[no-untyped-def]
        got = exposed_reads(m, ops)
        return got is None or not got.is_empty()

    plain = [(m, ops) for m, ops, tiles in cases if not tiles]
    anywhere = [ex.any_read_exposed(m, ops) for m, ops in plain]
    assert anywhere == [some_exposed(m, ops) for m, ops in plain]
    monkeypatch.setattr(ex, "_first_access_reads", lambda *_: False)
    assert fast == [copy_in_needed(m, ops, tiles) for m, ops, tiles in cases]
    assert anywhere == [ex.any_read_exposed(m, ops) for m, ops in plain]
    if name == "accumulate":
        assert any(fired)
