"""`affine-dma-wait-sink` changes no bit of any result: every shipped workload compiled by the
accelerator pipeline with and without it (the default sizes, where the waits move and
pad2d's nest is split, and small ones with partial tiles) runs bit-identically on the host
backend and in the functional simulator, to each other and to the program as written; and
the pass moves the waits the issue-14 workloads stalled on."""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from compiler.backend import run_host
from compiler.ir.ops import AffineDmaWaitOp, AffineForOp, DeallocOp, FuncOp
from compiler.transforms.affine_dma_wait_sink import sink_waits
from compiler.transforms.registry import PassManager
from tests.compiler.transforms.test_pipeline_workloads import SPECS

CFG = load_config("default")
CASES = [*workloads.names(), *(f"{n}:{p}" for n, p in sorted(SPECS.items()))]


def _compiled(spec: str, sink: bool):  # type: ignore[no-untyped-def]
    w = workloads.get(spec)
    m = w.module()
    pipe = accelerator_pipeline(CFG, w.module(), w.func_name).replace(wait_sink=sink)
    PassManager.from_flags(pipe.flags()).run(m)
    return w, m


@pytest.mark.parametrize("spec", CASES)
def test_sunk_waits_are_bit_identical_on_host_and_sim(spec: str) -> None:
    w, sunk = _compiled(spec, True)
    _, plain = _compiled(spec, False)
    inputs = w.random_inputs(seed=3)
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    want = list(run_host(w.module(), positional, w.func_name).values())
    for m in (sunk, plain):
        for a, b in zip(run_host(m, positional, w.func_name).values(), want, strict=True):
            np.testing.assert_array_equal(a, b, err_msg=spec)
    outs = [simulate(m, CFG, inputs=dict(inputs), func=w.func_name).outputs for m in (sunk, plain)]
    assert outs[0] is not None and outs[1] is not None
    for name in outs[1]:
        np.testing.assert_array_equal(outs[0][name], outs[1][name], err_msg=f"{spec}: {name}")


def _entry(m, name: str) -> FuncOp:  # type: ignore[no-untyped-def]
    return next(f for f in m.body.ops if isinstance(f, FuncOp) and f.sym_name == name)


def test_the_issue_14_waits_move() -> None:
    """rmsnorm: gamma's wait passes the first X copy-ins; pad2d: the fill nest is split off
    and the input's wait sits between the fill and the copy; a second run moves nothing."""
    _, m = _compiled("rmsnorm", False)
    f = _entry(m, "rmsnorm")
    top = f.body.ops
    first_wait = next(i for i, o in enumerate(top) if isinstance(o, AffineDmaWaitOp))
    assert sink_waits(f.body, distribute=True) >= 1
    assert next(i for i, o in enumerate(f.body.ops) if isinstance(o, AffineDmaWaitOp)) > first_wait
    assert sink_waits(f.body, distribute=True) == 0
    _, p = _compiled("pad2d", True)
    ops = _entry(p, "pad2d").body.ops
    w = next(i for i, o in enumerate(ops) if isinstance(o, AffineDmaWaitOp))
    # (the tag's dealloc moves down with its wait)
    after = next(o for o in ops[w + 1:] if not isinstance(o, DeallocOp))
    assert isinstance(ops[w - 1], AffineForOp) and isinstance(after, AffineForOp)
