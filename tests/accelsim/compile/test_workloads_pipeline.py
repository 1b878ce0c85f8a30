"""Workloads through the accelerator pipeline: the simulator's arrays equal the host backend's
on the same compiled program, and the workload's numpy reference."""

import numpy as np
import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline
from accelsim.estimate.analytic import estimate
from compiler.backend import run_host
from compiler.transforms.outline_kernels import ensure_outlined
from compiler.transforms.registry import PassManager

SPECS = ["gemm:M=48,N=40,K=56", "2mm:NI=20,NJ=24,NK=28,NL=18", "atax:M=39,N=41",
         "conv2d:C=4,H=12,W=12,K=8", "softmax:M=24,N=40", "jacobi-2d:N=30,T=2",
         "syrk:N=12,M=10", "row_sum_iter:M=64,N=72"]


@pytest.mark.parametrize("spec", SPECS)
def test_pipeline_output_equals_host_and_reference(spec):
    cfg = load_config("edge").with_overrides({"sram.capacity_kib": 8})  # forces several tiles
    w = workloads.get(spec)
    mod = w.module()
    flags = accelerator_pipeline(cfg).flags()
    PassManager.from_flags(flags).run(mod)
    ensure_outlined(mod)  # what simulate() does; outlining first lets both runs share one compile
    inputs = w.random_inputs(seed=11)
    host = run_host(mod, inputs, func=w.func_name)
    sim = simulate(mod, cfg, inputs=inputs, func=w.func_name)
    for name, arr in host.items():
        np.testing.assert_array_equal(sim.outputs[name], arr, err_msg=f"{spec}: {name}")
    ref = w.reference(inputs)
    for name in w.outputs:
        np.testing.assert_allclose(sim.outputs[name], ref[name], rtol=w.rtol, atol=w.atol)
    assert sim.sram_peak_bytes <= cfg.sram.capacity_bytes
    timing = simulate(mod, cfg, func=w.func_name, functional=False)
    assert timing.cycles == sim.cycles
    est = estimate(mod, cfg, func=w.func_name)
    assert abs(est.cycles - sim.cycles) <= 0.25 * sim.cycles
