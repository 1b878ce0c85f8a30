"""Issue 31: the pipelining of the copies into a level below a pipelined level must not hoist
a copy over the wait of the copy that fills its source.

gemm 1000x1x512 on `three_level` with 4 clusters and a 4 MiB glb: the glb level's
pipeline leaves the waits of its last copies (started before the loop) in its epilogue; the
scratchpad level then pipelined that epilogue and issued the copy glb -> spad of the last
tile of C before the wait of the copy DRAM -> glb filling it, a race the event run
reported at the user's source line. The run is now correct against numpy, on the event
machine with data.
"""

from __future__ import annotations

import numpy as np

import workloads
from accelsim.config import load_config
from accelsim.dse.cluster_run import run_clusters


def test_gemm_1000x1x512_on_four_clusters_and_a_4mib_glb_is_correct() -> None:
    cfg = load_config("three_level", {"clusters": 4, "memory.glb.capacity_kib": 4096})
    b = workloads.get("gemm:M=1000,N=1,K=512")
    inputs = b.random_inputs(0)
    run = run_clusters(b.module(), cfg, b.func_name, inputs=inputs, functional=True)
    want = b.reference(inputs)["C"]
    np.testing.assert_allclose(run.result.outputs["C"], want, rtol=b.rtol, atol=b.atol)
