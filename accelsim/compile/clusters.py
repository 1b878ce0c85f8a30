"""The per-cluster programs of a module for a machine of `config.clusters` clusters.

Each cluster's program is the module with `affine-cluster-distribute` keeping that
cluster's share of every parallel nest, then the accelerator pipeline of one cluster
(`compile_for_accelerator`: the tile search on the largest share, on one cluster's fair share
of DRAM and the interconnect (`accelsim.estimate.clusters.share_config`), then every cluster's
own copies, pipelining and kernels). `distribution="auto"` tries `block` and `block2d` and keeps the one whose
largest share the analytic estimate (the one cost model) scores fastest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from accelsim.compile.accelerator import check_input_program, compile_for_accelerator
from accelsim.compile.clone import clone_module
from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.config import HardwareConfig
from accelsim.estimate.clusters import share_config
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
    # the nests that are not parallel: each runs whole on cluster 0 (located messages)
    serial: list[str] = field(default_factory=list)


def distribute(module: ModuleOp, config: HardwareConfig, k: int, distribution: str,
               remarks: list[Remark] | None = None) -> ModuleOp:
    """Cluster k's share of `module` (uncompiled, a copy); the pass's remarks (a nest that
    is not parallel runs whole on cluster 0) appended to `remarks`."""
    from compiler.transforms.affine_cluster_distribute import AffineClusterDistributePass

    m = clone_module(module)
    # cyclic deals chunks of a tile's height: a copy's bounding box stays within the chunk
    p = AffineClusterDistributePass(clusters=config.clusters, cluster=k, distribution=distribution,
                                    chunk=CYCLIC_CHUNK if distribution == "cyclic" else 1)
    p.run(m)
    if remarks is not None:
        remarks.extend(p.remarks)
    return m


def compile_for_clusters(config: HardwareConfig, module: ModuleOp, func: str | None = None,
                         distribution: str = "auto") -> ClusterPrograms:
    """The tile search runs once per distribution tried, on the largest cluster's share (the
    tile sizes, copy capacity and stages it picks fit every smaller share); every cluster's
    program is its share through that pipeline."""
    from compiler.transforms.registry import PassManager

    if distribution == "auto":
        plan = _choose(config, module, func)
    else:
        plan = _plan(config, module, func, distribution)
    for k, m in enumerate(plan.shares):
        if k != plan.largest:
            check_input_program(m)
            PassManager(plan.pipe.passes()).run(m)
    return ClusterPrograms(plan.shares, plan.distribution, plan.pipe.flags(),
                           [*plan.serial, *plan.remarks],
                           [f"{r.loc}: {r.message}" for r in plan.serial])


@dataclass
class _Plan:
    distribution: str
    shares: list[ModuleOp]      # the largest compiled, the others as distributed
    largest: int
    pipe: AcceleratorPipeline
    remarks: list[Remark]       # the search's and the passes' on the largest share
    serial: list[Remark]        # the distribution's: nests run whole on cluster 0


def _plan(config: HardwareConfig, module: ModuleOp, func: str | None, distribution: str) -> _Plan:
    """The shares of `distribution` and the largest compiled (its tile search on one
    cluster's fair share of DRAM and the interconnect)."""
    serial: list[Remark] = []
    shares = [distribute(module, config, k, distribution, serial if k == 0 else None)
              for k in range(config.clusters)]
    largest = max(range(config.clusters), key=lambda k: (_iterations(shares[k]), -k))
    pipe, remarks = compile_for_accelerator(share_config(config), shares[largest], func)
    return _Plan(distribution, shares, largest, pipe, list(remarks), serial)


def _iterations(m: ModuleOp) -> int:
    """The iterations of the module's constant-bound loops (a share's size)."""
    from compiler.ir.ops import AffineForOp

    total = 0
    for op in m.walk():
        if isinstance(op, AffineForOp) and op.constant_lower is not None \
                and op.constant_upper is not None:
            total += max(op.constant_upper - op.constant_lower, 0) // op.step
    return total


def _choose(config: HardwareConfig, module: ModuleOp, func: str | None) -> _Plan:
    """`block` or `block2d`: the one whose largest share the analytic estimate (the cost
    model of every fidelity and of the tile search) finishes first; its plan is kept, so
    the chosen distribution is not searched again."""
    if config.clusters == 1:
        return _plan(config, module, func, "block")
    from accelsim.estimate.analytic import estimate

    share = share_config(config)
    best: tuple[int, _Plan] | None = None
    for d in ("block", "block2d"):
        plan = _plan(config, module, func, d)
        cycles = estimate(plan.shares[plan.largest], share, func=func).cycles
        if best is None or cycles < best[0]:
            best = (cycles, plan)
    assert best is not None
    return best[1]
