"""Every workload through tile -> copy (DMA and point-wise) -> pipeline (stages 2-4) gives
bit-identical results to the original on the host backend; the output never holds more live
fast memory than the capacity, and no DMA leaves its memref.

Tiling keeps each output's accumulation order and copies move data without arithmetic, so
equality is exact. Sizes leave partial tiles. Hypothesis draws further sizes and options.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from compiler.backend import run_host
from compiler.ir.verifier import verify
from compiler.transforms.affine_data_copy_generate import AffineDataCopyGeneratePass
from compiler.transforms.affine_pipeline_data_transfer import AffinePipelineDataTransferPass
from compiler.transforms.data_copy.fast_memory import peak_live_bytes
from tests.compiler.transforms.fixtures import copy_support as cs

SPECS = {
    "gemm": "M=19,N=13,K=23", "batched_gemm": "batch=2,M=9,N=7,K=11", "vector_add": "N=301",
    "saxpy": "N=299", "row_sum": "M=13,N=17", "row_sum_iter": "M=13,N=17", "softmax": "M=5,N=19",
    "conv2d": "N=1,C=2,H=13,W=11,K=3,R=3,S=3,stride=2", "depthwise_conv2d": "N=1,C=2,H=11,W=10,R=3,S=2",
    "jacobi-2d": "N=19,T=2", "2mm": "NI=9,NJ=11,NK=7,NL=13", "atax": "M=17,N=11", "bicg": "M=11,N=17",
    "mvt": "N=19", "syrk": "N=17,M=9",
    "relu": "N=61",
    "sigmoid": "N=61",
    "silu": "N=61",
    "gelu": "N=61",
    "vector_mul": "N=61",
    "maxpool2d": "C=3,H=9,W=7,R=3,S=2,stride=2",
    "avgpool2d": "C=3,H=9,W=7,R=3,S=2,stride=1",
    "layernorm": "M=5,N=7",
    "rmsnorm": "M=5,N=7",
    "pad2d": "C=3,H=7,W=5,top=2,left=0,bottom=1,right=3",
    "permute": "d0=3,d1=5,d2=7,d3=2,p0=3,p1=0,p2=2,p3=1",
    "im2col": "C=3,H=9,W=7,R=3,S=2,stride=2,dilation=1",
}

CORE_GRID = [  # (dma, stages, capacity KiB, tile size)
    (True, 2, 1, 5), (True, 3, 4, 8), (True, 4, 2, 5), (False, 3, 1, 8),
]


def assert_flow_bit_identical(name: str, spec: str, dma: bool, stages: int, cap: int, tile: int,
                              seed: int = 0) -> None:
    """tile -> copy -> pipeline; assert capacity, bounds, and results equal to the original."""
    w = workloads.get(f"{name}:{spec}")
    inputs = w.random_inputs(seed=seed)
    expected = run_host(w.module(), inputs, w.func_name)
    m = cs.tile(w.module(), tile)
    copy = AffineDataCopyGeneratePass(f"generate-dma={'true' if dma else 'false'} fast-mem-capacity={cap}")
    copy.run(m)
    verify(m)
    pipe = AffinePipelineDataTransferPass(f"stages={stages} fast-mem-capacity={cap}")
    pipe.run(m)
    verify(m)
    assert peak_live_bytes(m, 1) <= cap * 1024, f"{name}: live fast buffers above {cap} KiB"
    func = next(f for f in m.funcs if f.sym_name == w.func_name)
    assert cs.out_of_bounds(func) == []
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    got = run_host(m, positional, w.func_name)
    for (arg, want), have in zip(expected.items(), got.values(), strict=True):
        np.testing.assert_array_equal(have, want, err_msg=f"{name}:{spec} {arg} dma={dma} "
                                                          f"stages={stages} cap={cap} tile={tile}")


@pytest.mark.parametrize("dma,stages,cap,tile", CORE_GRID)
@pytest.mark.parametrize("name", ["gemm", "conv2d", "jacobi-2d"])
def test_core_workloads_grid(name: str, dma: bool, stages: int, cap: int, tile: int) -> None:
    assert_flow_bit_identical(name, SPECS[name], dma, stages, cap, tile)


@pytest.mark.parametrize("name", sorted(set(SPECS) - {"gemm", "conv2d", "jacobi-2d"}))
def test_every_other_workload(name: str) -> None:
    assert_flow_bit_identical(name, SPECS[name], True, 3, 2, 5, seed=1)


def test_every_workload_has_a_spec_here() -> None:
    assert sorted(SPECS) == workloads.names()


@settings(max_examples=6, deadline=None)
@given(m=st.integers(3, 17), n=st.integers(3, 17), k=st.integers(3, 17), tile=st.integers(2, 9),
       dma=st.booleans(), stages=st.integers(2, 4), cap=st.sampled_from([1, 2, 4]))
def test_gemm_random_sizes_and_options(m: int, n: int, k: int, tile: int, dma: bool, stages: int,
                                       cap: int) -> None:
    assert_flow_bit_identical("gemm", f"M={m},N={n},K={k}", dma, stages, cap, tile, seed=m * n + k)


@settings(max_examples=4, deadline=None)
@given(n=st.integers(6, 16), tile=st.integers(2, 7), dma=st.booleans(), stages=st.integers(2, 4))
def test_jacobi_random_sizes_and_options(n: int, tile: int, dma: bool, stages: int) -> None:
    assert_flow_bit_identical("jacobi-2d", f"N={n},T=2", dma, stages, 1, tile, seed=n)


# ---- asynchronous correctness: the simulator runs DMAs concurrently and flags hazards --------------

SIM_CASES = [  # (workload spec, tile, capacity KiB, pipeline options)
    ("gemm:M=32,N=24,K=40", 8, 2, "stages=3 fast-mem-capacity=2"),          # cross-tile prefetch
    ("saxpy:N=1000", 64, 1, "stages=2 fast-mem-capacity=1"),                 # copy-out pipelining
    ("2mm:NI=16,NJ=16,NK=16,NL=16", 8, 2, "stages=4"),
    ("jacobi-2d:N=20,T=2", 8, 1, "stages=3 fast-mem-capacity=1"),
]


@pytest.mark.parametrize("spec,tile,cap,popts", SIM_CASES)
def test_pipelined_programs_have_no_hazards_in_the_simulator(spec: str, tile: int, cap: int,
                                                             popts: str) -> None:
    """The host backend runs DMAs synchronously, so it cannot see a buffer read while a
    transfer into it is in flight; the simulator can (HazardError), and checks capacity."""
    from accelsim import simulate

    w = workloads.get(spec)
    m = cs.tile(w.module(), tile)
    AffineDataCopyGeneratePass(f"generate-dma fast-mem-capacity={cap}").run(m)
    pipe = AffinePipelineDataTransferPass(popts)
    pipe.run(m)
    verify(m)
    from compiler.ir.ops import AllocOp

    stages = int(popts.split()[0].split("=")[1])
    assert any(isinstance(op, AllocOp) and op.memref_type.memory_space == 1
               and op.memref_type.shape[0] == stages for op in m.walk()), "nothing was pipelined"
    inputs = w.random_inputs(seed=5)
    r = simulate(m, "default", inputs=inputs, func=w.func_name)
    ref = w.reference(inputs)
    for out in w.outputs:
        np.testing.assert_allclose(r.outputs[out], ref[out], rtol=w.rtol, atol=w.atol)


def test_simulator_hazard_check_can_fail() -> None:
    """Mutation check of the test above: a wait moved after the compute is a hazard."""
    from accelsim import simulate
    from accelsim.errors import HazardError
    from compiler.ir.ops import AffineDmaWaitOp, AffineForOp

    m = cs.stream_kernel(hi=128)
    loop = next(op for op in m.funcs[0].body.ops if isinstance(op, AffineForOp))
    wait = next(op for op in loop.body.ops if isinstance(op, AffineDmaWaitOp))
    wait.detach()
    loop.body.insert_before(loop.body.ops[-1], wait)
    with pytest.raises(HazardError, match="while a DMA into it is in flight"):
        simulate(m, "default", inputs=cs.inputs_for(m))
