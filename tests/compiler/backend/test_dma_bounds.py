"""Bounds checks on DMAs (the strided copies a dma_start becomes on the host), seeded random
cases against Python's count of the elements each side moves (CONTRACTS.md semantics)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from compiler.backend import OutOfBoundsError, compile_module
from compiler.ir import F32, I32, Builder, memref


def _module(sshape, sspace, dshape, dspace, sidx, didx, tidx, n, stride, per):  # type: ignore[no-untyped-def]
    b = Builder()
    with b.func("k", src=memref(sshape, F32, sspace), dst=memref(dshape, F32, dspace)) as (src, dst):
        tag = b.alloc(memref((2,), I32, 2))
        b.dma_start(src, list(sidx), dst, list(didx), tag, [tidx], n, stride, per)
        b.dma_wait(tag, [tidx], n)
        b.dealloc(tag)
    return b.module


def _offsets(n: int, stride: int | None, per: int | None, strided: bool) -> list[int]:
    """Offsets from a side's start element that the transfer touches, in order."""
    if stride is None or per is None or not strided:
        return list(range(max(n, 0)))
    out, moved, chunk = [], 0, 0
    while moved < n:
        length = min(per, n - moved)
        out += [chunk * stride + e for e in range(length)]
        moved += length
        chunk += 1
    return out


def _expected(case) -> tuple[np.ndarray | None, bool]:  # type: ignore[no-untyped-def]
    sshape, sspace, dshape, dspace, sidx, didx, tidx, n, stride, per, src, dst = case
    if any(not 0 <= i < s for i, s in zip(sidx, sshape)) or \
            any(not 0 <= i < s for i, s in zip(didx, dshape)) or not 0 <= tidx < 2:
        return None, True
    s0, d0 = int(np.ravel_multi_index(sidx, sshape)), int(np.ravel_multi_index(didx, dshape))
    src_strided = sspace <= dspace
    s_off = _offsets(n, stride, per, src_strided)
    d_off = _offsets(n, stride, per, not src_strided)
    if any(not 0 <= s0 + o < src.size for o in s_off) or any(not 0 <= d0 + o < dst.size for o in d_off):
        return None, True
    out = dst.copy().reshape(-1)
    flat = src.reshape(-1)
    for so, do in zip(s_off, d_off, strict=True):
        out[d0 + do] = flat[s0 + so]
    return out.reshape(dshape), False


def _random_case(seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    sshape = tuple(rng.randint(1, 9) for _ in range(rng.randint(1, 2)))
    dshape = tuple(rng.randint(1, 9) for _ in range(rng.randint(1, 2)))
    sspace, dspace = rng.choice([(0, 1), (1, 0), (0, 0), (1, 1)])
    sidx = tuple(rng.randint(0, s) if rng.random() < 0.1 else rng.randint(0, s - 1) for s in sshape)
    didx = tuple(rng.randint(0, s) if rng.random() < 0.1 else rng.randint(0, s - 1) for s in dshape)
    tidx = rng.choice([0, 1, 1, 1, 2]) if rng.random() < 0.2 else 1
    room = min(int(np.prod(sshape)), int(np.prod(dshape)))
    n = rng.randint(0, room if rng.random() < 0.8 else room + 8)
    stride = per = None
    if rng.random() < 0.6:
        per = rng.randint(1, 4)
        stride = rng.randint(1, per + 3)
    nrng = np.random.default_rng(seed)
    src = nrng.uniform(-1, 1, sshape).astype(np.float32)
    dst = nrng.uniform(-1, 1, dshape).astype(np.float32)
    return sshape, sspace, dshape, dspace, sidx, didx, tidx, n, stride, per, src, dst


@pytest.mark.parametrize("seed", range(100))
def test_random_dma_is_checked_exactly(seed: int) -> None:
    case = _random_case(seed)
    want, outside = _expected(case)
    src, dst = case[-2], case[-1]
    module = _module(*case[:10])
    compiled = compile_module(module, bounds_check=True)
    got_src, got_dst = src.copy(), dst.copy()
    if outside:
        with pytest.raises(OutOfBoundsError, match=r"affine\.dma_start"):
            compiled.call("k", [got_src, got_dst])
        np.testing.assert_array_equal(got_dst, dst)  # stopped before moving anything
        return
    compiled.call("k", [got_src, got_dst])
    np.testing.assert_array_equal(got_dst, want)
    plain_dst = dst.copy()
    compile_module(module).call("k", [src.copy(), plain_dst])
    np.testing.assert_array_equal(got_dst, plain_dst)  # bit-identical to the unchecked copy


def test_the_messages_name_the_side_the_element_and_the_range():
    cases = {
        # contiguous: 10 elements from [3, 5] of a 4x6 destination run past its end
        "destination %dst (memref<4x6xf32, 1>) out of bounds: the transfer touches elements "
        "[23, 33) in row-major order, outside the 24 element(s) of the memref: it reaches "
        "element [4, 0], index 4 of dimension 0 not in [0, 3]":
            _module((8, 8), 0, (4, 6), 1, (0, 0), (3, 5), 1, 10, None, None),
        # the start index itself
        "source %src (memref<8x8xf32>) out of bounds: index 8 of dimension 1 not in [0, 7]":
            _module((8, 8), 0, (4, 6), 1, (0, 8), (0, 0), 1, 4, None, None),
        # the tag
        "tag %? (memref<2xi32, 2>) out of bounds: index 2 of dimension 0 not in [0, 1]":
            _module((8, 8), 0, (4, 6), 1, (0, 0), (0, 0), 2, 4, None, None),
    }
    for message, module in cases.items():
        with pytest.raises(OutOfBoundsError) as err:
            compile_module(module, bounds_check=True).call(
                "k", [np.zeros((8, 8), np.float32), np.zeros((4, 6), np.float32)])
        assert str(err.value).endswith("error: affine.dma_start " + message)


def test_overlapping_chunks_reach_past_the_last_one():
    """stride < per: chunk 1 of 3 (elements 1..4 from the start) ends after the last chunk
    (element 2): the span is the hull of all chunks, not the last one's end."""
    module = _module((6,), 0, (9,), 1, (2,), (0,), 1, 9, 1, 4)
    with pytest.raises(OutOfBoundsError, match=r"touches elements \[2, 7\) .* outside the 6"):
        compile_module(module, bounds_check=True).call(
            "k", [np.zeros(6, np.float32), np.zeros(9, np.float32)])
    ok = _module((7,), 0, (9,), 1, (2,), (0,), 1, 9, 1, 4)  # one element more: in bounds
    src, dst = np.arange(7, dtype=np.float32), np.zeros(9, np.float32)
    compile_module(ok, bounds_check=True).call("k", [src, dst])
    np.testing.assert_array_equal(dst, [2, 3, 4, 5, 3, 4, 5, 6, 4])
