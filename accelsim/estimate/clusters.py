"""The analytic estimate of a many-cluster run: each cluster's program walked on the closed
form of one cluster (`accelsim.estimate.analytic.estimate`, the cost model of every
fidelity) whose shared resources are its fair share of the machine's:

- DRAM: each channel's bandwidth divided by the clusters, capped by the cluster's share of
  the interconnect (bus: `bandwidth_bytes_per_cycle` / clusters; mesh: `link_bytes_per_cycle`
  over the number of clusters whose XY route crosses the most used link), on as few channels
  as carry it at no more than a channel's own bandwidth (a burst is never slower than on a
  channel of the machine);
- the access latency plus the interconnect's (bus: `latency_cycles`; mesh: the mean hop
  count times `hop_latency_cycles`).

Barrier-aware: the programs are cut at their `accel.barrier`s into phases, and the phases
run one after the other, each as long as its slowest cluster. Every phase starts with every
cluster issuing its first transfers at once: the shared level grants them in issue order
(cluster 0's first; `DramPolicy` and `InterconnectModel.grant` on one `SharedStart` state),
and a descriptor reserves its channels and links when it is accepted, at its future ready
cycle, so cluster k's start-up is granted after every channel reservation of clusters
0 .. k-1, up to their last start-up DMA (the busiest engine's chain of setups and port
cycles, not the bytes at DRAM's peak). `first_wait` walks each cluster's start-up on the
same closed-form machine and cost model, on that shared state and alone; the difference is
the delay of its first kernel. Cluster k's phase ends at the later of its
fair-share cycles and the start-ups ahead of it plus its cycles alone on the whole machine
(one cluster, all of DRAM and the interconnect): a cluster that waited at start-up then runs
at the full machine's speed while the others finish, until the fair share bounds it.

What it leaves out is the rest of the contention in time (who waits for whom at a shared
channel or link in the steady state): the event fidelity has it, and the two are compared by
tests/accelsim/estimate/test_clusters_estimate.py and the workload matrix
(tests/accelsim/sim/test_cluster_matrix.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accelsim.config import DramConfig, HardwareConfig
from accelsim.cost.dram import DramPolicy
from accelsim.cost.energy import Energy, energy
from accelsim.cost.interconnect import InterconnectModel
from accelsim.errors import ConfigError, InputError
from accelsim.estimate.analytic import AnalyticResult, compiled_program, estimate
from accelsim.estimate.state import ClosedFormMachine, OverLimit
from compiler.ir.entry import entry_function
from compiler.ir.ops import ModuleOp
from compiler.ir.ops.opaque import BARRIER_OP, OpaqueOp


@dataclass(frozen=True, slots=True)
class ClusterEstimate:
    cycles: int
    per_cluster: tuple[int, ...]
    share: HardwareConfig     # the one-cluster machine each program was walked on
    phases: int = 1           # the programs' stretches between barriers
    startup_cycles: int = 0   # summed over the phases: the last cluster's wait at start-up
    # every cluster's estimate together: DRAM bytes and the kernels' work (for the energy)
    dram_bytes: int = 0
    macs: int = 0
    alu_ops: int = 0
    special_ops: int = 0
    kernel_sram_bytes: int = 0

    def energy(self, config: HardwareConfig) -> Energy:
        """The one formula (`accelsim.cost.energy`) on every cluster's counts, static power
        over the machine's cycles (as `AnalyticResult.energy` for one cluster)."""
        return energy(config, dram_bytes=self.dram_bytes,
                      sram_bytes=self.kernel_sram_bytes + self.dram_bytes, macs=self.macs,
                      alu_ops=self.alu_ops, special_ops=self.special_ops,
                      seconds=self.cycles / (config.clock_ghz * 1e9))


def _work(results: Sequence[AnalyticResult]) -> dict[str, int]:
    """The counts of several estimates summed (the `ClusterEstimate` fields of that name)."""
    names = ("dram_bytes", "macs", "alu_ops", "special_ops", "kernel_sram_bytes")
    return {n: sum(int(getattr(r, n)) for r in results) for n in names}


def share_config(config: HardwareConfig) -> HardwareConfig:
    """One cluster's fair share of `config` (see the module docstring)."""
    n = config.clusters
    if n == 1:
        return config
    # DRAM in bandwidth terms: with dram.model = "timing" the technology's peak and latency
    # (`bandwidth_view`), never the bandwidth key that model does not read
    config = config.bandwidth_view()
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
    # the interconnect is on the link into the cluster's own level: its parent, the last
    # shared level, is reached over it (DRAM on a machine of one link, `_levels_share` else)
    on_dram = config.single_link
    over = {"dram.latency_cycles": d.latency_cycles + extra} if on_dram else {}
    return config.with_overrides({"clusters": 1, **_dram_share(d, n, fabric if on_dram else None),
                                  **over, **_levels_share(config, fabric, extra)})


def _dram_share(d: DramConfig, n: int, fabric: float | None) -> dict[str, int]:
    """DRAM's channels and per-channel bandwidth for one of `n` clusters, capped by the
    interconnect's `fabric` bytes per cycle when DRAM is reached over it."""
    # the share over as few channels as carry it at no more than a channel's own bandwidth: a
    # transfer of a burst or two sees a channel's speed, as in the event run where the
    # clusters' few bursts spread over every channel (spread over all the channels, the share
    # made each burst `channels` times slower than any channel ever is)
    channels, per_channel = _ports_share(d.channels, d.bandwidth_bytes_per_cycle, n, fabric)
    return {"dram.channels": channels, "dram.bandwidth_bytes_per_cycle": max(1, round(per_channel))}


def _levels_share(config: HardwareConfig, fabric: float, extra: int) -> dict[str, int]:
    """Every shared on-chip level's share (`HardwareConfig.shared_levels`, the root aside):
    its capacity / clusters (whole KiB, rounded down) and its ports' bandwidth / clusters, as
    few ports as carry it at no more than a port's own (`_dram_share`'s rule); the last
    shared level's, the parent of the cluster's own level, also capped by the interconnect
    share `fabric`, its latency plus the interconnect's `extra` (the event run's
    `Interconnect.reserve_for` on the link into the cluster's level)."""
    n = config.clusters
    shared = config.shared_levels()[1:]
    out: dict[str, int] = {}
    for lv in shared:
        key = f"memory.{lv.name}"
        kib = lv.capacity_kib // n
        if kib < 1:
            raise ConfigError(f"{key}.capacity_kib = {lv.capacity_kib} shared by {n} clusters: "
                              "a cluster's share is less than 1 KiB")
        out[f"{key}.capacity_kib"] = kib
        cap = fabric if lv is shared[-1] else None
        reads = _ports_share(lv.ports, lv.read_bytes_per_cycle, n, cap)
        writes = _ports_share(lv.ports, lv.write_bytes_per_cycle, n, cap)
        out[f"{key}.ports"] = ports = max(reads[0], writes[0])
        out[f"{key}.read_bytes_per_cycle"] = max(1, round(reads[0] * reads[1] / ports))
        out[f"{key}.write_bytes_per_cycle"] = max(1, round(writes[0] * writes[1] / ports))
        if lv is shared[-1]:
            out[f"{key}.latency_cycles"] = lv.latency_cycles + extra
    return out


def _ports_share(ports: int, per_port: int, n: int, cap: float | None) -> tuple[int, float]:
    """(ports, bytes per cycle per port) of one of `n` clusters' share of `ports` ports (or
    DRAM channels) of `per_port` bytes per cycle each, at most `cap` bytes per cycle in all,
    on as few of them as carry it at no more than one's own bandwidth."""
    total = ports * per_port / n
    if cap is not None:
        total = min(total, cap)
    k = min(ports, max(1, -(-int(total) // per_port)))
    return k, total / k


def estimate_clusters(modules: Sequence[ModuleOp], config: HardwareConfig,
                      func: str | None = None, limit: int | None = None) -> ClusterEstimate:
    """`limit`: raise `OverLimit` as soon as the estimate is known to exceed that many cycles
    (a phase's cluster walk past what is left of it: `auto` stops weighing a candidate that
    cannot beat the best so far)."""
    share = share_config(config)
    if config.clusters == 1:
        runs = [estimate(m, share, func=func, limit=limit) for m in modules]
        per = tuple(r.cycles for r in runs)
        return ClusterEstimate(max(per), per, share, **_work(runs))
    phased = [phases_of(m, func) for m in modules]
    count = max(len(p) for p in phased)
    whole = config.with_overrides({"clusters": 1})
    model = InterconnectModel.for_config(config)
    assert model is not None
    collide = config.single_link  # with more links the clusters reach DRAM through a shared level
    total = startup = 0
    per = [0] * len(modules)
    walked: list[AnalyticResult] = []  # each cluster's phases on its fair share: the counts
    shares = {config.clusters: share}
    for p in range(count):
        left = None if limit is None else limit - total  # what this phase may take
        shared = SharedStart.fresh(whole, model)
        ends, waits = [], []
        busy = [p < len(ph) and _has_work(ph[p], func) for ph in phased]
        # the clusters with work in this phase share the machine (an idle one takes no share;
        # on a mesh the links the busy ones' routes cross would decide: the full share there)
        n = max(1, sum(busy)) if config.interconnect.kind == "bus" else config.clusters
        if n not in shares:
            shares[n] = share_config(config.with_overrides({"clusters": n}))
        share = shares[n]
        for k, ph in enumerate(phased):
            if not busy[k]:  # no work (the event run names a phase mismatch): idle
                ends.append(0)
                waits.append(0)
                continue
            fair_run = estimate(ph[p], share, func=func, limit=left)
            walked.append(fair_run)
            fair = fair_run.cycles
            alone = estimate(ph[p], whole, func=func, limit=left).cycles
            ahead = 0
            if collide:  # its first kernel's delay behind the start-ups issued before its own
                own = first_wait(ph[p], whole, func, SharedStart.fresh(whole, model), model, k)
                ahead = max(0, first_wait(ph[p], whole, func, shared, model, k) - own)
            ends.append(max(fair, ahead + alone))
            waits.append(ahead if ahead + alone > fair else 0)
        slowest = max(ends)
        if left is not None and slowest > left:
            raise OverLimit(total + slowest)
        startup += waits[ends.index(slowest)]
        total += slowest
        per = [a + b for a, b in zip(per, ends, strict=True)]
    return ClusterEstimate(total, tuple(per), shares[config.clusters], count, startup,
                           **_work(walked))


def phases_of(module: ModuleOp, func: str | None = None) -> list[ModuleOp]:
    """`module` cut at the barriers of its entry function: phase i keeps the ops between
    barrier i-1 and barrier i and every other op (allocs, constants, the return) that is not
    a loop, a call or a DMA. Without a barrier, `[module]`."""
    f = entry_function(module, func)
    cuts = [k for k, op in enumerate(f.body.ops)
            if isinstance(op, OpaqueOp) and op.op_name == BARRIER_OP]
    if not cuts:
        return [module]
    bounds = [-1, *cuts, len(f.body.ops)]
    out = []
    for p in range(len(bounds) - 1):
        copy = module.clone()
        assert isinstance(copy, ModuleOp)
        g = entry_function(copy, func)
        for k, op in reversed(list(enumerate(g.body.ops))):
            inside = bounds[p] < k < bounds[p + 1]
            if k in cuts or (not inside and is_work(op)):
                op.erase()
        out.append(copy)
    return out


def _has_work(module: ModuleOp, func: str | None) -> bool:
    """Does the entry function of `module` hold a loop, a call or a DMA (not only allocs,
    constants and its return)?"""
    return any(is_work(op) for op in entry_function(module, func).body.ops)


def is_work(op: object) -> bool:
    from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, AffineForOp, CallOp
    from compiler.ir.ops.affine_parallel import AffineParallelOp

    return isinstance(op, AffineForOp | AffineParallelOp | CallOp | AffineDmaStartOp
                      | AffineDmaWaitOp | OpaqueOp)


class _FirstKernel(Exception):
    pass


@dataclass(slots=True)
class SharedStart:
    """The shared level's state while the clusters' start-ups are issued, cluster 0's first:
    when each DRAM channel and interconnect link is free, the interleave rotation's next
    first channel (the event run's in-order request queues, read and advanced as
    `DramPolicy` and `InterconnectModel.grant` say)."""

    free_at: list[int]
    next_channel: int
    links: list[int]

    @staticmethod
    def fresh(config: HardwareConfig, model: InterconnectModel) -> SharedStart:
        """Every channel of `config`'s DRAM and every link of `model` free at cycle 0."""
        return SharedStart([0] * DramPolicy.for_config(config.bandwidth_view().dram).states, 0,
                           [0] * len(model.names))


class _StartupMachine(ClosedFormMachine):
    """The closed-form machine stopped where the control processor first waits: at its first
    kernel, or at the first DMA after a wait for a transfer still in flight. With `shared`,
    its DRAM channels are the shared ones and every transfer also holds the cluster's read
    path through the interconnect (a start-up's transfers are loads: nothing has been
    computed yet), cut-through as in the event run (`accelsim.hw.interconnect`)."""

    __slots__ = ()

    def __init__(self, config: HardwareConfig, shared: SharedStart | None,
                 model: InterconnectModel | None, cluster: int):
        super().__init__(config)
        if shared is None or model is None:
            return
        self.free_at, self.next_channel = shared.free_at, shared.next_channel
        dram, links = self._reserve, shared.links
        path, latency = model.path(cluster, "read"), model.latency[cluster]

        def reserve(ready: int, nbytes: int, hold: int, token: None) -> int:
            end = dram(ready, nbytes, hold, token)
            h = model.hold(nbytes)
            t1 = model.grant(links, path, ready, h) + h + latency
            return t1 if t1 > end else end

        self._reserve = reserve

    def dma(self, dram_bytes: int, port: int, T: int, tag: tuple[int, ...],
            write: bool = False) -> None:
        if self.t > self.issue * (self.dma_ops + 1):  # it waited (the walk's waits are inline)
            raise _FirstKernel
        super().dma(dram_bytes, port, T, tag, write)

    def busy_for(self, cycles: int) -> None:
        if cycles > self.issue:
            raise _FirstKernel
        super().busy_for(cycles)


def first_wait(module: ModuleOp, config: HardwareConfig, func: str | None = None,
               shared: SharedStart | None = None, model: InterconnectModel | None = None,
               cluster: int = 0) -> int:
    """The cycle the control processor of `module` first waits (its first kernel, or its
    first DMA after waiting for one in flight), on `config` (one cluster, the closed form).
    With `shared` (the machine's `SharedStart`, advanced here), its start-up DMAs are granted
    after those already issued on the shared channels and the links of `model` (cluster
    `cluster`'s read path).
    0 for a walk that needs the inputs (symbolic sizes)."""
    prog = compiled_program(module, func)
    m = _StartupMachine(config.bandwidth_view(), shared, model, cluster)
    env: list[object] = [None] * len(prog.slots)
    try:
        for step in prog.body:
            step(env, m)
    except _FirstKernel:
        pass
    except InputError:
        return 0
    if shared is not None:
        shared.next_channel = m.next_channel
    return m.t
