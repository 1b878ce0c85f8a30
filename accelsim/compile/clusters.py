"""The per-cluster programs of a module for a machine of `config.clusters` clusters.

Each cluster's program is the module with `affine-cluster-distribute` keeping that
cluster's share of every parallel nest, then the accelerator pipeline of one cluster
(`compile_for_accelerator`: the tile search on the cluster's share, its copies, pipelining
and kernels). `distribution="auto"` tries `block` and `block2d` and keeps the one whose
largest share the analytic estimate (the one cost model) scores fastest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.compile.clone import clone_module
from accelsim.config import HardwareConfig
from compiler.diagnostics import Remark
from compiler.ir.ops import ModuleOp

CHOICES = ("auto", "block", "cyclic", "block2d")
CYCLIC_CHUNK = 16


@dataclass
class ClusterPrograms:
    modules: list[ModuleOp]
    distribution: str
    flags: list[str] = field(default_factory=list)   # cluster 0's pipeline
    remarks: list[Remark] = field(default_factory=list)


def distribute(module: ModuleOp, config: HardwareConfig, k: int, distribution: str) -> ModuleOp:
    """Cluster k's share of `module` (uncompiled, a copy)."""
    from compiler.transforms.affine_cluster_distribute import AffineClusterDistributePass

    m = clone_module(module)
    # cyclic deals chunks of a tile's height: a copy's bounding box stays within the chunk
    p = AffineClusterDistributePass(clusters=config.clusters, cluster=k, distribution=distribution,
                                    chunk=CYCLIC_CHUNK if distribution == "cyclic" else 1)
    p.run(m)
    return m


def compile_for_clusters(config: HardwareConfig, module: ModuleOp, func: str | None = None,
                         distribution: str = "auto") -> ClusterPrograms:
    if distribution == "auto":
        distribution = _choose(config, module, func)
    mods, flags, remarks = [], [], []
    for k in range(config.clusters):
        m = distribute(module, config, k, distribution)
        pipe, rem = compile_for_accelerator(config, m, func)
        if k == 0:
            flags, remarks = pipe.flags(), rem
        mods.append(m)
    return ClusterPrograms(mods, distribution, flags, remarks)


def _choose(config: HardwareConfig, module: ModuleOp, func: str | None) -> str:
    if config.clusters == 1:
        return "block"
    from accelsim.estimate.analytic import estimate

    best: tuple[int, str] | None = None
    for d in ("block", "block2d"):
        worst = 0
        for k in sorted({0, config.clusters - 1}):
            m = distribute(module, config, k, d)
            compile_for_accelerator(config, m, func)
            worst = max(worst, estimate(m, config, func=func).cycles)
        if best is None or worst < best[0]:
            best = (worst, d)
    assert best is not None
    return best[1]
