"""Upstream mlir-opt-19's tile + DMA data-copy + pipelining output runs natively and gives
bit-identical results to the original kernel.

Sizes divide the tiles: upstream's copy generation is wrong for partial tiles. Tiling keeps
every output element's accumulation order, so the results must match exactly, not just closely.
"""

import subprocess

import numpy as np
import pytest

import workloads
from compiler.backend import run_host
from compiler.ir import AffineDmaStartOp, AffineDmaWaitOp, AllocOp
from compiler.text import parse_module, print_module

CASES = [
    # (workload spec, tile sizes, fast-mem-capacity KiB, upstream emits a strided DMA)
    ("gemm:M=64,N=48,K=32", "16,16,16", 4, True),
    ("gemm:M=32,N=32,K=64,dtype=f64", "8,16,16", 8, True),
    ("vector_add:N=4096", "256", 4, False),
    ("saxpy:N=2048,a=-1.5", "128", 2, False),
    ("jacobi-2d:N=66,T=2", "16,16", 4, False),
    ("2mm:NI=32,NJ=32,NK=32,NL=32", "16,16,16", 8, False),
    ("conv2d:N=1,C=4,H=18,W=18,K=8,R=3,S=3,stride=1", "1,4,8,8,2,3,3", 8, True),
    ("mvt:N=64", "16,16", 4, True),
    ("softmax:M=32,N=64", "16,16", 8, False),
]


def upstream(mlir_opt: str, text: str, tiles: str, capacity: int) -> str:
    cmd = [mlir_opt, f"--affine-loop-tile=tile-sizes={tiles}",
           f"--affine-data-copy-generate=generate-dma fast-mem-space=1 fast-mem-capacity={capacity}",
           "--affine-pipeline-data-transfer"]
    done = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.mlir_opt
@pytest.mark.parametrize("spec,tiles,capacity,strided", CASES)
def test_upstream_tiled_dma_pipelined_kernel_matches_original(mlir_opt, spec, tiles, capacity, strided):
    w = workloads.get(spec)
    original = w.module()
    transformed = parse_module(upstream(mlir_opt, print_module(original), tiles, capacity), "<mlir-opt>")
    ops = list(transformed.walk())
    starts = [op for op in ops if isinstance(op, AffineDmaStartOp)]
    assert starts and any(isinstance(op, AffineDmaWaitOp) for op in ops)
    assert any(s.is_strided for s in starts) == strided
    assert any(isinstance(op, AllocOp) and op.memref_type.memory_space == 1 for op in ops)

    inputs = w.random_inputs(seed=5)
    want = run_host(original, inputs, w.func_name)
    # upstream renames arguments to %arg0...; the positional keys address them
    positional = {f"arg{i}": inputs[name] for i, name in enumerate(w.func().arg_names())}
    got = run_host(transformed, positional, w.func_name)
    for i, name in enumerate(w.func().arg_names()):
        np.testing.assert_array_equal(got[f"arg{i}"], want[name], err_msg=f"{spec}: {name}")
    ref = w.reference(inputs)
    for name in w.outputs:
        np.testing.assert_allclose(want[name], ref[name], rtol=w.rtol, atol=w.atol)
