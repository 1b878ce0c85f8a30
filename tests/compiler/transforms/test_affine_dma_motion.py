"""`affine-copy-forward`, `affine-dma-forward` and `affine-dma-start-hoist` change no bit of
any result and never overfill the fast memory: PolyBench's kernels (tiny sizes) and the library's compiled by
the accelerator pipeline with and without them run bit-identically on the host backend and
in the functional simulator, to each other and to the program as written; at any capacity
the passes leave every point of the program within it; and on atax the round trip of `y`
is gone and `A` starts before the first nest."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from compiler.backend import run_host
from compiler.ir.ops import AffineDmaStartOp, AffineForOp, FuncOp
from compiler.transforms.affine_dma_forward import AffineDmaForwardPass
from compiler.transforms.affine_dma_start_hoist import AffineDmaStartHoistPass
from compiler.transforms.data_copy.fast_memory import peak_live_bytes
from compiler.transforms.registry import PassManager
from tests.workloads.test_polybench import TINY_CASES

CFG = load_config("default")
CASES = [*TINY_CASES, "gemm:M=33,N=17,K=9", "rmsnorm", "pad2d", "softmax"]


def _compiled(spec: str, moves: bool, stream: bool = True):  # type: ignore[no-untyped-def]
    w = workloads.get(spec)
    m = w.module()
    pipe = accelerator_pipeline(CFG, w.module(), w.func_name).replace(copy_forward=moves,
                                                                      start_hoist=moves)
    if not stream:
        pipe = pipe.replace(copy_stream=False)
    PassManager.from_flags(pipe.flags()).run(m)
    return w, m


@pytest.mark.parametrize("spec", CASES)
def test_moved_dmas_are_bit_identical_on_host_and_sim(spec: str) -> None:
    w, moved = _compiled(spec, True)
    _, plain = _compiled(spec, False)
    inputs = w.random_inputs(seed=5)
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    want = list(run_host(w.module(), positional, w.func_name).values())
    for m in (moved, plain):
        for a, b in zip(run_host(m, positional, w.func_name).values(), want, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=spec)
    outs = [simulate(m, CFG, inputs=dict(inputs), func=w.func_name).outputs for m in (moved, plain)]
    assert outs[0] is not None and outs[1] is not None
    for name in outs[1]:
        np.testing.assert_array_equal(outs[0][name], outs[1][name], err_msg=f"{spec}: {name}")


def _entry(m, name: str) -> FuncOp:  # type: ignore[no-untyped-def]
    return next(f for f in m.body.ops if isinstance(f, FuncOp) and f.sym_name == name)


def test_atax_keeps_y_on_chip_and_starts_A_first() -> None:
    # (without affine-copy-stream, which splits the plain program's nests where the moves
    # have not run: the count below compares the moves alone)
    _, m = _compiled("atax:M=38,N=42", True, stream=False)
    f = _entry(m, "atax")
    starts = [o for o in f.walk() if isinstance(o, AffineDmaStartOp)]
    y = f.args[2]
    assert [s for s in starts if s.src is y] == []            # y is never read back
    assert len([s for s in starts if s.dst is y]) == 1         # and written back once
    top = f.body.ops
    first_nest = next(i for i, o in enumerate(top) if isinstance(o, AffineForOp))
    a_start = next(i for i, o in enumerate(top) if isinstance(o, AffineDmaStartOp) and o.src is f.args[0])
    assert a_start < first_nest
    _, plain = _compiled("atax:M=38,N=42", False, stream=False)
    assert len([o for o in plain.walk() if isinstance(o, AffineDmaStartOp)]) == len(starts) + 2


@settings(max_examples=12, deadline=None)
@given(spec=st.sampled_from(["atax:M=38,N=42", "bicg:M=7,N=5", "durbin:N=9", "gemver:N=9",
                             "covariance:M=7,N=9"]),
       kib=st.integers(min_value=1, max_value=16))
def test_the_moves_keep_the_fast_memory_within_capacity(spec: str, kib: int) -> None:
    """With any capacity the passes leave every point of the program at most at it (or at
    the peak it had before them, where the copies alone already exceed it)."""
    _, m = _compiled(spec, False)
    space = CFG.spaces.sram
    before = peak_live_bytes(m, space)
    AffineDmaForwardPass(fast_mem_space=space, fast_mem_capacity=kib).run(m)
    AffineDmaStartHoistPass(fast_mem_space=space, fast_mem_capacity=kib).run(m)
    assert peak_live_bytes(m, space) <= max(before, kib * 1024)
