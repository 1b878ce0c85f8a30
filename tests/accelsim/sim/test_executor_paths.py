"""The executor's paths for dynamic shapes and interpreted kernels against the static ones: a
program whose DRAM argument has a dynamic shape runs its DMA handlers without generated index
code or cached transfer shapes (each one's shape computed when it runs) and must give exactly
the trace of the same program with a static shape."""

from __future__ import annotations

import numpy as np
import pytest

from accelsim import load_config, simulate
from accelsim.errors import SimulationError
from compiler.ir import F32, I32, Builder, memref

CFG = load_config("default")


def strided_tiles(rows: int | None, n_tiles: int = 4) -> Builder:
    """Copy the 8x16 tiles of `A: rows x 64` (strided DMAs, double-buffered) into SRAM and
    back out to `B` (same shape), one tile per iteration; `rows=None` makes A and B `?x64`."""
    b = Builder()
    shape = (rows, 64)
    with b.func("tiles", A=memref(shape, F32), B=memref(shape, F32)) as (A, B):
        buf = b.alloc(memref((2, 8, 16), F32, 1), "buf")
        tin = b.alloc(memref((2,), I32, 2), "tin")
        tout = b.alloc(memref((2,), I32, 2), "tout")
        b.dma_start(A, [0, 0], buf, [0, 0, 0], tin, [0], 128, 64, 16)
        for i in b.range(n_tiles):
            with b.if_(i < n_tiles - 1):
                b.dma_start(A, [0, (i + 1) * 16], buf, [(i + 1) % 2, 0, 0], tin, [(i + 1) % 2],
                            128, 64, 16)
            b.dma_wait(tin, [i % 2], 128)
            b.dma_start(buf, [i % 2, 0, 0], B, [0, i * 16], tout, [i % 2], 128, 64, 16)
            b.dma_wait(tout, [i % 2], 128)
        b.dealloc(buf)
    return b


@pytest.mark.parametrize("functional", [False, True])
def test_dynamic_shapes_give_the_trace_of_static_shapes(functional, monkeypatch):
    from accelsim.sim.plans import DmaStartPlan

    generic = []
    new_shape = DmaStartPlan.new_shape
    monkeypatch.setattr(DmaStartPlan, "new_shape",
                        lambda p, *a: generic.append(p) or new_shape(p, *a))
    A = np.arange(8 * 64, dtype=np.float32).reshape(8, 64)
    inputs = {"A": A, "B": np.zeros_like(A)}
    static = simulate(strided_tiles(8).module, CFG, inputs=inputs, functional=functional)
    assert not generic  # one shape, known when the handler was made
    dynamic = simulate(strided_tiles(None).module, CFG, inputs=inputs, functional=functional)
    assert len(generic) == 8  # every DMA's shape computed when it runs
    assert static.cycles == dynamic.cycles > 0
    assert static.stats.dma_ops == dynamic.stats.dma_ops == 8
    assert list(static.trace.records) == list(dynamic.trace.records)
    if functional:
        np.testing.assert_array_equal(static.outputs["B"], A)
        np.testing.assert_array_equal(dynamic.outputs["B"], A)


@pytest.mark.parametrize("compiled", [True, False])
def test_generic_and_interpreted_handlers_agree_with_the_specialized_ones(compiled):
    """The same static program with the control program compiled (specialized handlers) or
    interpreted (generic handlers): identical traces, including under issue cycles and a
    one-deep queue (control-processor stalls)."""
    cfg = CFG.with_overrides({"control.issue_cycles": 5, "dma.queue_depth": 1, "dma.engines": 1})
    mod = strided_tiles(8).module
    ref = simulate(mod, cfg, functional=False, compiled=True)
    got = simulate(mod, cfg, functional=False, compiled=compiled)
    assert got.cycles == ref.cycles
    assert list(got.trace.records) == list(ref.trace.records)
    assert any(r.kind == "stall" for r in ref.trace.records)
    assert any(r.kind == "issue" for r in ref.trace.records)


def test_dma_inside_an_interpreted_kernel_is_an_error():
    b = Builder()
    with b.func("k", private=True, buf=memref((16,), F32, 1), src=memref((16,), F32, 1)) as (buf, src):
        tag = b.alloc(memref((1,), I32, 2), "t")
        b.dma_start(src, [0], buf, [0], tag, [0], 16)
        b.dma_wait(tag, [0], 16)
    with b.func("main", A=memref((16,), F32)) as (_A,):
        buf = b.alloc(memref((16,), F32, 1), "buf")
        src = b.alloc(memref((16,), F32, 1), "src")
        b.call("k", [buf, src])
    with pytest.raises(SimulationError, match=r"kernel @k contains DMA or timing ops"):
        simulate(b.module, CFG, interpret_kernels=True, func="main")
