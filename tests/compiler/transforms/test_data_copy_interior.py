"""Copies are clipped at the largest element the nest ever touches, not only at the memref's
extent: a stencil that writes only the interior keeps a dense, DMA-able copy-out on its
partial last tile instead of falling back to point-wise write-back."""

import numpy as np

import accelsim
import workloads
from compiler.backend import run_host
from compiler.ir import AffineDmaStartOp, AffineStoreOp
from compiler.transforms import PassManager


def _compile(spec: str, tiles: str):  # type: ignore[no-untyped-def]
    w = workloads.get(spec)
    m = w.module()
    pm = PassManager.from_flags([f"--affine-loop-tile=tile-sizes={tiles}",
                                 "--affine-data-copy-generate=generate-dma fast-mem-capacity=8"])
    pm.run(m)
    return w, m, pm.remarks


def test_interior_writes_of_a_partial_tile_copy_out_by_dma():
    # N=40: the interior rows 1..38 in tiles of 16 leave a partial last tile (rows 33..38).
    w, m, remarks = _compile("jacobi-2d:N=40", "16,38")
    assert not any("point-wise" in r.message for r in remarks), [str(r) for r in remarks]
    func = m.funcs[0]
    b_arg = func.args[[a.name_hint for a in func.args].index("B")]
    outgoing = [op for op in m.walk() if isinstance(op, AffineDmaStartOp) and op.dst is b_arg]
    assert outgoing, "B is written back by a DMA"
    # No store to B outside a kernel copy loop remains: every write goes through the buffer.
    assert not any(isinstance(op, AffineStoreOp) and op.memref is b_arg for op in m.walk())

    inputs = w.random_inputs(3)
    want = run_host(w.module(), inputs)
    got = run_host(m, inputs)
    assert np.array_equal(got["B"], want["B"])
    # The simulator checks every DMA against its memref's bounds and moves the real data.
    sim = accelsim.simulate(m, "default", inputs=inputs)
    assert np.array_equal(sim.outputs["B"], want["B"])


def test_clip_limit_never_exceeds_the_memref():
    # gemm touches every element: the limits are the memref extents, partial tiles still clip.
    w, m, _ = _compile("gemm:M=50,N=40,K=30", "16,16,16")
    inputs = w.random_inputs(1)
    want = run_host(w.module(), inputs)
    assert np.array_equal(run_host(m, inputs)["C"], want["C"])
    sim = accelsim.simulate(m, "default", inputs=inputs)
    assert np.array_equal(sim.outputs["C"], want["C"])
