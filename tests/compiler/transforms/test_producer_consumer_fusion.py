"""`affine-producer-consumer-fusion`: a consumer nest fused into the producer nest before it at
the deepest depth isl proves legal; private allocs shrink.

Differential: every workload, fused, gives bit-identical results on the host backend
(layernorm and rmsnorm must become one nest); random shapes of a producer-consumer chain with a
private temporary (hypothesis) equal the original bit for bit on the host and in the simulator
after the whole accelerator pipeline. Legality: fusions that would reverse a dependence are
refused with the dependence named.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from compiler.backend import run_host
from compiler.ir.ops import AffineForOp, AllocOp
from compiler.ir.verifier import verify
from compiler.text import parse_module
from compiler.transforms.affine_producer_consumer_fusion import AffineProducerConsumerFusionPass
from compiler.transforms.registry import PASSES
from tests.compiler.transforms.test_pipeline_workloads import SPECS


def _top_loops(m) -> int:  # type: ignore[no-untyped-def]
    return sum(isinstance(op, AffineForOp) for op in m.funcs[0].body.ops)


def _inputs(m, seed: int = 1) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    return {f"arg{k}": rng.uniform(-1, 1, a.type.shape).astype(np.float32)
            for k, a in enumerate(m.funcs[0].args)}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_workload_fused_is_bit_identical(name: str) -> None:
    w = workloads.get(f"{name}:{SPECS[name]}")
    inputs = w.random_inputs(seed=5)
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    want = list(run_host(w.module(), positional, w.func_name).values())
    m = w.module()
    AffineProducerConsumerFusionPass().run(m)
    verify(m)
    if name in ("layernorm", "rmsnorm"):
        assert _top_loops(m) == 1  # every nest under the row loop
    for a, b in zip(run_host(m, positional, w.func_name).values(), want, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)


def test_registered_under_its_flag() -> None:
    assert PASSES["affine-producer-consumer-fusion"] is AffineProducerConsumerFusionPass


CHAIN = """
func.func @f(%X: memref<MxNxf32>, %s: memref<Mxf32>, %Y: memref<MxNxf32>) {
  %c = arith.constant 0.5 : f32
  %T = memref.alloc() : memref<MxNxf32>
  affine.for %i = 0 to M {
    affine.for %j = 0 to N {
      %x = affine.load %X[%i, %j] : memref<MxNxf32>
      %m = arith.mulf %x, %c : f32
      affine.store %m, %T[%i, %j] : memref<MxNxf32>
    }
  }
  affine.for %i = 0 to M {
    affine.for %j = 0 to N {
      %a = affine.load %s[%i] : memref<Mxf32>
      %t = affine.load %T[%i, %j] : memref<MxNxf32>
      %p = arith.mulf %t, %t : f32
      %n = arith.addf %a, %p : f32
      affine.store %n, %s[%i] : memref<Mxf32>
    }
  }
  affine.for %i = 0 to M {
    affine.for %j = 0 to N {
      %t = affine.load %T[%i, READ] : memref<MxNxf32>
      %r = affine.load %s[%i] : memref<Mxf32>
      %y = arith.mulf %t, %r : f32
      affine.store %y, %Y[%i, %j] : memref<MxNxf32>
    }
  }
  memref.dealloc %T : memref<MxNxf32>
  return
}
"""


def _chain(m: int, n: int, read: str = "%j") -> str:
    return CHAIN.replace("MxN", f"{m}x{n}").replace("Mx", f"{m}x").replace(
        "0 to M", f"0 to {m}").replace("0 to N", f"0 to {n}").replace("READ", read)


def _fused(text: str) -> tuple:  # type: ignore[type-arg]
    orig, m = parse_module(text), parse_module(text)
    p = AffineProducerConsumerFusionPass()
    p.run(m)
    verify(m)
    inputs = _inputs(orig)
    for a, b in zip(run_host(m, inputs).values(), run_host(orig, inputs).values(), strict=True):
        np.testing.assert_array_equal(a, b)
    return m, p


@settings(max_examples=8, deadline=None)
@given(m=st.integers(1, 9), n=st.integers(1, 9))
def test_chain_fuses_and_temporary_shrinks_host_bit_identical(m: int, n: int) -> None:
    mod, _ = _fused(_chain(m, n))
    assert _top_loops(mod) == 1
    alloc = next(op for op in mod.funcs[0].walk() if isinstance(op, AllocOp))
    # the temporary is written and read at (i, j) of the shared row loop: its row dim goes
    assert alloc.memref_type.shape == (1, n)


@settings(max_examples=4, deadline=None)
@given(m=st.integers(2, 24), n=st.integers(2, 40))
def test_chain_through_the_accelerator_pipeline_sim_equals_host(m: int, n: int) -> None:
    """The fused module (fusion first in the pipeline, private buffer in SRAM) simulated with
    data equals the unfused original run on the host, bit for bit."""
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.config import load_config
    from accelsim.sim.simulate import simulate

    text = _chain(m, n)
    cfg = load_config("default")
    orig = parse_module(text)
    inputs = _inputs(orig, seed=m * 41 + n)
    want = run_host(orig, inputs)
    mod = parse_module(text)
    pipe, _ = compile_for_accelerator(cfg, mod)
    named = dict(zip(("X", "s", "Y"), inputs.values(), strict=True))
    got = simulate(mod, cfg, inputs=named).outputs
    for key, w in zip(("X", "s", "Y"), want.values(), strict=True):
        np.testing.assert_array_equal(got[key], w, err_msg=f"{m}x{n} {key} {pipe.flags()}")


def test_a_reversed_dependence_is_refused_and_named() -> None:
    """The last nest reads T[i][N-1-j]: under a shared (i, j) it would read what the first
    nest writes only later in the row, so depth 2 is refused; depth 1 is legal (T's row is
    complete when the row's last nest runs). The first two fuse at depth 2 (both at (i, j))."""
    mod, p = _fused(_chain(4, 5, "4 - %j"))
    assert _top_loops(mod) == 1
    inner = next(op for op in mod.funcs[0].body.ops if isinstance(op, AffineForOp))
    assert sum(isinstance(op, AffineForOp) for op in inner.body.ops) == 2  # nests 1+2, then 3
    depths = [r.message.rsplit(" ", 1)[-1] for r in p.remarks if r.message.startswith("fused into")]
    assert depths == ["2", "1"]


def test_reading_a_later_row_refuses_every_depth() -> None:
    text = _chain(4, 5).replace("%t = affine.load %T[%i, %j] : memref<4x5xf32>\n      %p",
                                "%t = affine.load %T[3 - %i, %j] : memref<4x5xf32>\n      %p")
    mod, p = _fused(text)
    assert _top_loops(mod) == 2  # nest 2 reads row 3 - i of T: it waits for all of nest 1
    assert any(r.message.startswith("not fused") and "%T" in r.message for r in p.remarks)


def test_an_unmodelled_op_keeps_nests_apart() -> None:
    text = """
func.func private @g(memref<4xf32>)
func.func @f(%X: memref<4xf32>, %t: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    %x = affine.load %X[%i] : memref<4xf32>
    affine.store %x, %t[%i] : memref<4xf32>
  }
  affine.for %i = 0 to 4 {
    func.call @g(%t) : (memref<4xf32>) -> ()
  }
  return
}
"""
    m = parse_module(text)
    p = AffineProducerConsumerFusionPass()
    p.run(m)
    f = next(f for f in m.funcs if not f.is_declaration)
    assert sum(isinstance(op, AffineForOp) for op in f.body.ops) == 2
    assert any("does not model" in r.message for r in p.remarks)
