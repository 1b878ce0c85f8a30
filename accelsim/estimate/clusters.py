"""The analytic estimate of a many-cluster run: each cluster's program walked on the closed
form of one cluster (`accelsim.estimate.analytic.estimate`, the cost model of every
fidelity) whose shared resources are its fair share of the machine's:

- DRAM: each channel's bandwidth divided by the clusters, capped by the cluster's share of
  the interconnect (bus: `bandwidth_bytes_per_cycle` / clusters; mesh: `link_bytes_per_cycle`
  over the number of clusters whose XY route crosses the most used link), spread over the
  channels;
- the access latency plus the interconnect's (bus: `latency_cycles`; mesh: the mean hop
  count times `hop_latency_cycles`).

The machine's cycles are the slowest cluster's. What it leaves out is contention in time
(who waits for whom at a shared channel or link, barrier waits): the event fidelity has it,
and the two are compared by tests/accelsim/test_clusters_estimate.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accelsim.config import HardwareConfig
from accelsim.cost.interconnect import InterconnectModel
from accelsim.estimate.analytic import estimate
from compiler.ir.ops import ModuleOp


@dataclass(frozen=True, slots=True)
class ClusterEstimate:
    cycles: int
    per_cluster: tuple[int, ...]
    share: HardwareConfig     # the one-cluster machine each program was walked on


def share_config(config: HardwareConfig) -> HardwareConfig:
    """One cluster's fair share of `config` (see the module docstring)."""
    n = config.clusters
    if n == 1:
        return config
    d, ic = config.dram, config.interconnect
    model = InterconnectModel.for_config(config)
    assert model is not None
    if ic.kind == "bus":
        fabric = ic.bandwidth_bytes_per_cycle / n        # per cluster
        extra = ic.latency_cycles
    else:  # the most used link (XY routes from the memory's router) bounds its users
        users: dict[int, int] = {}
        for path in model.read_paths:
            for k in path:
                users[k] = users.get(k, 0) + 1
        fabric = ic.link_bytes_per_cycle / max(users.values(), default=1)
        extra = round(sum(model.latency) / n)
    per_cluster = min(d.channels * d.bandwidth_bytes_per_cycle / n, fabric)
    # the share over as many channels as keep a whole number of bytes per cycle on each
    channels = min(d.channels, max(1, int(per_cluster)))
    per_channel = max(1, round(per_cluster / channels))
    return config.with_overrides({
        "clusters": 1,
        "dram.channels": channels,
        "dram.bandwidth_bytes_per_cycle": per_channel,
        "dram.latency_cycles": d.latency_cycles + extra})


def estimate_clusters(modules: Sequence[ModuleOp], config: HardwareConfig,
                      func: str | None = None) -> ClusterEstimate:
    share = share_config(config)
    per = tuple(estimate(m, share, func=func).cycles for m in modules)
    return ClusterEstimate(max(per), per, share)
