"""Functional mode: the simulator's arrays equal the host backend's on DMA + kernel programs."""

import numpy as np
import pytest

from accelsim import load_config, simulate
from compiler.backend import random_inputs, run_host
from workloads.dma_programs import tile_sum, tiled_gemm

CFG = load_config("default")


@pytest.mark.parametrize("pipelined", [True, False])
def test_tiled_gemm_matches_host_backend_bit_for_bit(pipelined):
    mod = tiled_gemm(32, 48, 64, 16, pipelined=pipelined)
    inputs = random_inputs(mod.lookup("gemm"), seed=3)
    host = run_host(mod, inputs, func="gemm")
    sim = simulate(mod, CFG, inputs=inputs, func="gemm")
    for name in ("A", "B", "C"):
        np.testing.assert_array_equal(sim.outputs[name], host[name])
    ref = inputs["C"] + inputs["A"].astype(np.float64) @ inputs["B"]
    np.testing.assert_allclose(sim.outputs["C"], ref, rtol=1e-4, atol=1e-4)
    assert sim.stats.macs == 32 * 48 * 64


def test_interpreted_kernels_equal_native_kernels():
    mod = tiled_gemm(16, 16, 32, 8)
    inputs = random_inputs(mod.lookup("gemm"), seed=5)
    native = simulate(mod, CFG, inputs=inputs)
    interp = simulate(mod, CFG, inputs=inputs, interpret_kernels=True)
    np.testing.assert_array_equal(native.outputs["C"], interp.outputs["C"])
    assert native.trace.timeline() == interp.trace.timeline()


def test_inputs_are_not_modified_and_timing_is_data_independent():
    mod = tile_sum(4, 32)
    A = np.ones((4, 32), np.float32)
    r = simulate(mod, CFG, inputs={"A": A})
    assert r.outputs["out"][0] == 128.0
    assert r.outputs["A"] is not A
    r2 = simulate(tile_sum(4, 32), CFG, inputs={"A": -A})
    assert r2.outputs["out"][0] == -128.0 and r2.cycles == r.cycles


def test_loop_with_used_results_stays_inline_and_is_flagged():
    from compiler.ir import F32, Builder, memref

    b = Builder()
    with b.func("f", A=memref((16,), F32), out=memref((1,), F32)) as (A, out):
        z = b.constant(0.0, F32)
        with b.loop(0, 16, iter_args=[z]) as loop:
            b.yield_([loop.region_iter_args[0] + A[loop.iv]])
        out[0] = loop.results[0]
    A = np.arange(16, dtype=np.float32)
    r = simulate(b.module, CFG, inputs={"A": A})
    assert r.outputs["out"][0] == A.sum()
    assert any("stayed in the control program" in f for f in r.flags)


@pytest.mark.parametrize("make", [lambda: tile_sum(7, 32), lambda: tiled_gemm(32, 32, 48, 16),
                                  lambda: tiled_gemm(32, 32, 48, 16, pipelined=False)])
def test_compiled_control_program_equals_the_interpreter(make):
    from accelsim.sim.executor import Executor

    def run(compiled):
        mod = make()
        ex = Executor(mod, CFG, functional=True, compiled=compiled)
        func = next(f for f in mod.funcs if not f.private)
        inputs = random_inputs(func, seed=9)
        bufs = ex.run(func, inputs)
        return ex.trace.records, {k: b.array for k, b in bufs.items()}

    (tc, oc), (ti, oi) = run(True), run(False)
    assert tc == ti
    for k in oi:
        np.testing.assert_array_equal(oc[k], oi[k])


def test_dynamic_shaped_arguments_take_their_extents_from_the_inputs():
    from accelsim.errors import InputError
    from compiler.ir import F32, I32, Builder, memref

    b = Builder()
    with b.func("f", A=memref((None, 8), F32), out=memref((8,), F32)) as (A, out):
        buf = b.alloc(memref((8,), F32, 1), "buf")
        tag = b.alloc(memref((1,), I32, 2), "tag")
        b.dma_start(A, [2, 0], buf, [0], tag, [0], 8)
        b.dma_wait(tag, [0], 8)
        b.dma_start(buf, [0], out, [0], tag, [0], 8)
        b.dma_wait(tag, [0], 8)
    A = np.arange(24, dtype=np.float32).reshape(3, 8)
    r = simulate(b.module, CFG, inputs={"A": A})
    np.testing.assert_array_equal(r.outputs["out"], A[2])
    with pytest.raises(InputError, match="dynamic shape"):
        simulate(b.module, CFG, functional=False)
    with pytest.raises(InputError, match=r"expected a shape matching memref<\?x8xf32>, got \(3, 4\)"):
        simulate(b.module, CFG, inputs={"A": np.zeros((3, 4), np.float32)})
