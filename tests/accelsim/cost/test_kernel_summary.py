"""The cost model's kernel summary (`accelsim.cost.kernel.summary`): made once per kernel
function, shared by every config, fresh after a pass changed the kernel's module."""

from __future__ import annotations

import workloads
from accelsim.config import load_config
from accelsim.cost.kernel import CostModel, summary
from compiler.ir.ops import FuncOp
from compiler.transforms.registry import PassManager


def test_one_summary_per_kernel_shared_by_configs_and_renewed_by_a_pass():
    mod = workloads.get("gemm:M=32,N=32,K=32").module()
    PassManager.from_flags(["outline-kernels"]).run(mod)
    kernel = next(f for f in mod.body.ops if isinstance(f, FuncOp) and f.sym_name != "gemm")
    args = [None] * len(kernel.args)
    a, b = load_config("default"), load_config("default").with_overrides({"dram.latency_cycles": 60})
    ks = summary(kernel)
    ca = CostModel.for_config(a).kernel(kernel, args)
    cb = CostModel.for_config(b).kernel(kernel, args)
    assert summary(kernel) is ks and ks.costed and ks.direct  # one summary, both configs
    assert ca.counts == cb.counts and ca.cycles != cb.cycles
    assert CostModel.for_config(a).kernel(kernel, args) is ca  # cached per call
    PassManager.from_flags(["affine-loop-tile=tile-size=8"]).run(mod)
    assert summary(kernel) is not ks  # the module changed: its kernels' summaries are fresh
