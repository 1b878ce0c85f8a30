"""The generated box key of a kernel (`accelsim.sim.kernel_boxes`) against the analysis it
stands for (`compiler.analysis.counting.access_boxes`): the same boxes for every argument
tuple, and argument tuples with the same key have the same boxes. Also: a call site keeps a
bounded number of entries however many distinct argument tuples it is called with, and the
overlap test of same-stride regions equals the chunk-by-chunk one."""

from __future__ import annotations

import contextlib
import itertools
import json
import random
from pathlib import Path

import pytest

from accelsim import load_config, simulate
from accelsim.sim import kernel_calls
from accelsim.sim.kernel_boxes import box_key, kernel_box_key
from accelsim.sim.regions import Region
from compiler.analysis.counting import access_boxes
from compiler.ir import ops as O
from compiler.text import parse_module

DATA = Path(__file__).parent / "data" / "sim_golden"

# each kernel exercises one rule of the interval walk
KERNELS = """
func.func private @offsets(%a0: index, %a1: index, %A: memref<3x64x64xf32, 1>) {
  affine.for %i = %a0 to affine_map<()[s0] -> (s0 + 64)>()[%a0] {
    affine.for %j = %a1 to affine_map<()[s0] -> (s0 + 64)>()[%a1] {
      %x = affine.load %A[(symbol(%a1) floordiv 64) mod 3, %i - symbol(%a0), %j - symbol(%a1)]
        : memref<3x64x64xf32, 1>
      affine.store %x, %A[symbol(%a0) mod 3, %i - symbol(%a0), %j - symbol(%a1)] : memref<3x64x64xf32, 1>
    }
  }
  return
}
func.func private @periods(%a0: index, %A: memref<16xf32, 1>) {
  affine.for %i = %a0 to affine_map<()[s0] -> (s0 + 3)>()[%a0] {
    %x = affine.load %A[%i mod 5] : memref<16xf32, 1>
    affine.store %x, %A[%i mod 2 + 8] : memref<16xf32, 1>
    %y = affine.load %A[%i ceildiv 4] : memref<16xf32, 1>
  }
  return
}
func.func private @triangle(%a0: index, %a1: index, %A: memref<64x64xf32, 1>) {
  affine.for %i = %a0 to min affine_map<()[s0] -> (s0 + 8, 64)>()[%a0] {
    affine.for %j = max affine_map<(d0)[s0] -> (d0, s0)>(%i)[%a1] to 64 step 3 {
      %x = affine.load %A[%i, %j] : memref<64x64xf32, 1>
      affine.store %x, %A[%j, %i] : memref<64x64xf32, 1>
    }
  }
  return
}
func.func private @products(%a0: index, %a1: index, %A: memref<4096xf32, 1>) {
  affine.for %i = 0 to affine_map<()[s0] -> (s0)>()[%a1] {
    %k = affine.apply affine_map<(d0)[s0] -> (d0 * 3 - s0 * 2)>(%i)[%a0]
    %m = affine.min affine_map<(d0)[s0] -> (d0, s0 + 7)>(%k)[%a0]
    %x = affine.load %A[%m + 100] : memref<4096xf32, 1>
    %y = affine.load %A[%i * symbol(%a0) + symbol(%a1) mod 7] : memref<4096xf32, 1>
  }
  return
}
"""


def _funcs() -> dict[str, O.FuncOp]:
    mod = parse_module(KERNELS, "kernels.mlir")
    return {f.sym_name: f for f in mod.funcs}


def _reference(func: O.FuncOp, args: tuple[int | None, ...]) -> object:
    try:
        return access_boxes(func, args)
    except (ValueError, KeyError) as exc:
        return type(exc)


def _check(func: O.FuncOp, arg_tuples: list[tuple[int | None, ...]]) -> int:
    """Every tuple: the generated boxes equal access_boxes; equal keys, equal boxes. Returns
    how many distinct keys the tuples had."""
    bk = box_key(func)
    assert bk is not None, func.sym_name
    by_key: dict[object, object] = {}
    for args in arg_tuples:
        ref = _reference(func, args)
        got = bk.boxes(args)
        key = bk.key(args)
        if got is None:  # the generated walk gave up at this call: only where a loop may be empty
            assert key is None and bk.fallible
            continue
        assert got == ref, (func.sym_name, args)
        assert by_key.setdefault(key, ref) == ref, (func.sym_name, args, key)
    return len(by_key)


def test_tile_offsets_cancel_and_only_the_slot_is_in_the_key():
    f = _funcs()["offsets"]
    tuples = [(i, j, None) for i, j in itertools.product(range(0, 2048, 64), range(0, 2048, 64))]
    # 1024 tuples, 6 distinct boxes: the two slots merged, (min, max) of {0, 1, 2}
    assert _check(f, tuples) == 6
    bk = box_key(f)
    assert bk is not None and not bk.fallible
    assert bk.key((0, 64, None)) == (0, 1)  # the key is the merged slot range, no offsets


@pytest.mark.parametrize("name", ["periods", "triangle", "products"])
def test_generated_boxes_equal_access_boxes(name):
    f = _funcs()[name]
    nidx = sum(1 for a in f.args if not hasattr(a.type, "memory_space"))
    tuples = [(*vals, None) for vals in itertools.product(range(-9, 75), repeat=nidx)]
    if len(tuples) > 3000:
        tuples = random.Random(0).sample(tuples, 3000)
    _check(f, tuples)


def test_a_loop_that_may_be_empty_gives_up_at_that_call_only():
    bk = box_key(_funcs()["triangle"])
    assert bk is not None and bk.fallible
    assert bk.key((70, 0, None)) is None  # i in [70, 64): empty
    assert bk.key((3, 0, None)) is not None


def _golden_calls() -> list[tuple[O.FuncOp, set[tuple[int | None, ...]]]]:
    """Every kernel of the golden programs with the argument tuples the runs call it with."""
    table = json.loads((DATA / "golden.json").read_text())
    seen: dict[int, tuple[O.FuncOp, set[tuple[int | None, ...]]]] = {}
    real = access_boxes

    def spy(func, args):  # type: ignore[no-untyped-def]
        seen.setdefault(id(func), (func, set()))[1].add(tuple(args))
        return real(func, args)

    mp = pytest.MonkeyPatch()
    mp.setattr(kernel_calls, "access_boxes", spy)
    # every call reaches the analysis: one entry per argument tuple
    mp.setattr(kernel_calls.KernelCalls, "entry", _entry_per_tuple)
    try:
        for fname in sorted(set(table["programs"].values())):
            mod = parse_module((DATA / fname).read_text(), fname)
            # misuse programs: their calls up to the error count too
            with contextlib.suppress(Exception):
                simulate(mod, load_config("default"), functional=False)
    finally:
        mp.undo()
    return list(seen.values())


_real_entry = kernel_calls.KernelCalls.entry


def _entry_per_tuple(self, p, args, idx_args):  # type: ignore[no-untyped-def]
    saved = p.entry_key
    p.entry_key = lambda a: None
    try:
        return _real_entry(self, p, args, idx_args)
    finally:
        p.entry_key = saved


def test_golden_kernels_boxes_and_keys_agree_with_access_boxes():
    calls = _golden_calls()
    assert len(calls) > 50
    rnd = random.Random(1)
    for func, tuples in calls:
        assert kernel_box_key(func) is not None, func.sym_name
        near = [tuple(None if x is None else x + rnd.randint(-70, 70) for x in t)
                for t in list(tuples)[:30] for _ in range(10)]
        _check(func, sorted(tuples, key=str) + near)


def test_call_site_entries_stay_bounded_and_counters_are_exact(monkeypatch):
    from workloads.dma_programs import tiled_gemm

    mod = tiled_gemm(256, 256, 256, 32)
    cfg = load_config("default")
    ref = simulate(mod, cfg, functional=False)
    monkeypatch.setattr(kernel_calls, "MAX_ENTRIES", 3)  # drop the entries every few keys
    small = simulate(mod, cfg, functional=False)
    assert ref.stats == small.stats and ref.cycles == small.cycles
    assert ref.trace.records == small.trace.records
    monkeypatch.undo()
    kept = []
    real = kernel_calls.KernelCalls.fold_stats

    def spy(self):  # type: ignore[no-untyped-def]
        kept.append(len(self.entries))
        real(self)

    monkeypatch.setattr(kernel_calls.KernelCalls, "fold_stats", spy)
    r = simulate(mod, cfg, functional=False)
    assert r.stats.kernel_calls == 512 and kept[-1] <= 4  # 512 calls, one entry per buffer slot


def _chunkwise(a: Region, b: Region) -> bool:
    if a.count == 0 or b.count == 0 or a.end <= b.start or b.end <= a.start:
        return False
    small, big = (a, b) if a.count <= b.count else (b, a)
    return any(big.hits(x, y) for x, y in small.chunks())


def test_same_stride_overlap_equals_the_chunk_by_chunk_test():
    rnd = random.Random(3)
    for _ in range(100_000):
        st = rnd.randint(1, 12)

        def region(st: int = st) -> Region:
            n = rnd.randint(0, 6)
            per = rnd.randint(0, st + 3)
            last = rnd.randint(0, per + 1)
            if rnd.random() < 0.6:  # the regions the simulator makes
                per = rnd.randint(1, st)
                last = rnd.randint(1, per)
            return Region(rnd.randint(0, 60), st if rnd.random() < 0.8 else rnd.randint(1, 12),
                          per, n, last)

        a, b = region(), region()
        assert a.overlaps(b) == _chunkwise(a, b), (a, b)
