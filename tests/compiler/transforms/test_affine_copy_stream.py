"""`affine-copy-stream` in the accelerator pipeline: every whole-buffer copy around one nest
streams around the same pieces, a read-only buffer's chunks may move row by row (the columns
some op reaches: `descriptor-bytes`), and the piece count is weighed by the analytic estimate.

Each streamed program computes bit-identically to the program as written on the host backend
and in the functional simulator, and is proven race-free (`compile_for_accelerator` runs the
race proof); the pipeline the compiler keeps is never estimated slower than any of the
streaming choices it weighs."""

from __future__ import annotations

import numpy as np
import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.compile.accelerator import accelerator_pipeline, compile_for_accelerator
from accelsim.compile.clone import clone_module
from accelsim.compile.compile_cache import run_passes
from accelsim.compile.pipeline import STREAM, STREAM_CHUNKS, AcceleratorPipeline
from accelsim.estimate.analytic import estimate
from compiler.backend import run_host
from compiler.ir.ops import AffineDmaStartOp

CFG = load_config("default")


@pytest.mark.parametrize("spec", ["trisolv:N=13", "trmm:M=9,N=7", "lu:N=11", "gramschmidt:M=9,N=6"])
@pytest.mark.parametrize("chunks", STREAM_CHUNKS)
def test_streamed_copies_compute_as_written(spec: str, chunks: int) -> None:
    w = workloads.get(spec)
    m = w.module()
    # a small descriptor so the tiny buffers stream and a triangle goes row by row
    pipe = AcceleratorPipeline.for_config(CFG).replace(stream_chunks=chunks, stream_descriptor_bytes=4)
    remarks = run_passes(m, pipe.passes())
    streamed = [r.message for r in remarks if r.pass_name == STREAM]
    assert streamed, spec
    if spec.startswith("trisolv"):  # L (read only, a triangle) moves row by row, with b
        assert any("%L_fast" in s and "row by row" in s for s in streamed), streamed
        assert any("%b_fast" in s for s in streamed), streamed
    inputs = w.random_inputs(seed=3)
    positional = {f"arg{i}": a for i, a in enumerate(inputs.values())}
    want = list(run_host(w.module(), positional, w.func_name).values())
    got = list(run_host(m, positional, w.func_name).values())
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=spec)
    sim = simulate(clone_module(m), CFG, inputs=dict(inputs), func=w.func_name).outputs
    assert sim is not None
    for name, a in zip(inputs, want, strict=True):
        np.testing.assert_array_equal(sim[name], a, err_msg=f"{spec}: {name}")


@pytest.mark.parametrize("spec", ["trisolv", "trmm"])
def test_the_kept_streaming_is_the_fastest_weighed(spec: str) -> None:
    """At SMALL the copies stream (trisolv's triangle partly row by row) and the pipeline
    kept estimates no slower than any piece count weighed, nor than not streaming."""
    w = workloads.get(spec)
    m = w.module()
    pipe, remarks = compile_for_accelerator(CFG, m)       # with the race proof
    assert pipe.copy_stream and any(r.pass_name == STREAM for r in remarks)
    if spec == "trisolv":
        assert any("row by row" in r.message for r in remarks if r.pass_name == STREAM)
        # fewer bytes than whole rows of L: the row DMAs move only the columns reached
        moved = sum(1 for op in m.walk() if isinstance(op, AffineDmaStartOp))
        assert moved > 8
    kept = estimate(m, CFG, func=w.func_name).cycles
    for other in [pipe.replace(stream_chunks=n) for n in STREAM_CHUNKS] + [pipe.replace(copy_stream=False)]:
        alt = w.module()
        run_passes(alt, other.passes())
        assert kept <= estimate(alt, CFG, func=w.func_name).cycles, other
    assert accelerator_pipeline(CFG, w.module()) == pipe
