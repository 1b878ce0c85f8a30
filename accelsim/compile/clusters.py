"""The per-cluster programs of a module for a machine of `config.clusters` clusters.

Each cluster's program is the module with `affine-cluster-distribute` keeping that
cluster's share of every parallel nest, then the accelerator pipeline of one cluster
(`compile_for_accelerator`: the tile search on the largest share, on one cluster's fair share
of DRAM and the interconnect (`accelsim.estimate.clusters.share_config`), then every cluster's
own copies, pipelining and kernels).

`cyclic` deals the tile search's row tiles round-robin: the search runs on the largest
`block` share (a rectangular band of about the rows a cyclic share has), and the chunk is
its tile along the distributed loop (where the search does not apply `CYCLIC_CHUNK`, or
fewer rows where a cluster would get none; a multiple of the tile where a cluster would get
more than `MAX_CHUNKS` chunks); every chunk is
a nest of its own, so no tile and no copy spans two chunks (a copy's box over them would
hold the rows of other clusters in between: a race).

`distribution="auto"` compiles every cluster's program for `block`, `block2d` and `cyclic`
and keeps the one the barrier-aware analytic estimate
(`accelsim.estimate.clusters.estimate_clusters`, the cost model of every fidelity) finishes
first (ties: that order); the estimates after block's stop as soon as they pass the best
so far (their cycles then None), since only the winner matters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from accelsim.compile.accelerator import check_input_program, compile_for_accelerator, run_pipeline
from accelsim.compile.clone import clone_module
from accelsim.compile.frontend import lower_linalg
from accelsim.compile.pipeline import AcceleratorPipeline
from accelsim.config import HardwareConfig
from accelsim.estimate.clusters import share_config
from compiler.diagnostics import Remark
from compiler.ir.ops import ModuleOp

CHOICES = ("auto", "block", "cyclic", "block2d")
CANDIDATES = ("block", "block2d", "cyclic")  # what `auto` weighs, in the order ties keep
CYCLIC_CHUNK = 16   # cyclic's chunk where the tile search gives no tile along the loop
MAX_CHUNKS = 16     # at most this many chunks (nests) per cluster and nest


@dataclass
class ClusterPrograms:
    modules: list[ModuleOp]
    distribution: str
    flags: list[str] = field(default_factory=list)   # cluster 0's pipeline
    remarks: list[Remark] = field(default_factory=list)
    # the nests that are not parallel: each runs whole on cluster 0 (located messages)
    serial: list[str] = field(default_factory=list)
    # `auto`: the analytic cycles of every distribution it weighed (None: its estimate stopped
    # once slower than the best before it)
    weighed: dict[str, int | None] = field(default_factory=dict)
    chunk: int = 1     # cyclic's chunk
    active: int = 0    # the clusters given work (0: all); the rest run an empty program

    def label(self, clusters: int) -> str:
        """The distribution as the report names it (`block on 1 of 2 clusters`)."""
        if not self.active:
            return self.distribution
        return f"{self.distribution} on {self.active} of {clusters} clusters"


def distribute(module: ModuleOp, config: HardwareConfig, k: int, distribution: str,
               remarks: list[Remark] | None = None, chunk: int = 1, active: int = 0) -> ModuleOp:
    """Cluster k's share of `module` (uncompiled, a copy); the pass's remarks (a nest that
    is not parallel runs whole on cluster 0) appended to `remarks`. `chunk`: cyclic's.
    `active` (0: all): the work is shared by clusters 0 .. active-1 alone, a cluster past
    them gets the module without its entry function's loops, calls and DMAs."""
    from compiler.transforms.affine_cluster_distribute import AffineClusterDistributePass

    m = clone_module(module)
    n = active or config.clusters
    if k >= n:
        return _idle(m)
    if n == 1:
        return m
    p = AffineClusterDistributePass(clusters=n, cluster=k, distribution=distribution,
                                    chunk=chunk if distribution == "cyclic" else 1)
    p.run(m)
    if remarks is not None:
        remarks.extend(p.remarks)
    return m


def _idle(m: ModuleOp) -> ModuleOp:
    """`m` with its entry function's work (loops, calls, DMAs) removed: an idle cluster."""
    from accelsim.estimate.clusters import is_work

    for f in m.funcs:
        if not f.is_declaration:
            for op in reversed(list(f.body.ops)):
                if is_work(op):
                    op.erase()
    return m


def compile_for_clusters(config: HardwareConfig, module: ModuleOp, func: str | None = None,
                         distribution: str = "auto") -> ClusterPrograms:
    """The tile search runs once, on the largest cluster's share (the tile sizes, copy
    capacity and stages it picks fit every smaller share); every cluster's program is its
    share through that pipeline. `auto`: see the module docstring."""
    from accelsim.compile.race_check import cluster_race

    source = clone_module(module)
    if distribution == "auto":
        progs = _choose(config, module, func)
    else:
        progs = _compile(config, module, func, distribution)
    if config.clusters > 1 and cluster_race(progs.modules, func) is not None:
        # a share's box copy-in reads elements another cluster writes between the same
        # barriers (a box over a strided or triangular share): the same distribution, each
        # share reading only the elements it loads where its box holds others
        again = _compile(config, clone_module(source), func, progs.distribution,
                         active=progs.active, exact_in=True)
        again.weighed = progs.weighed
        progs = again
        _check(config, source, func, progs, across=True)
    else:
        _check(config, source, func, progs, across=False)
    return progs


def _check(config: HardwareConfig, module: ModuleOp, func: str | None,
           progs: ClusterPrograms, across: bool) -> None:
    """The kept programs race-free, each and (`across`) together
    (`accelsim.compile.race_check`)."""
    from accelsim.compile.race_check import check_cluster_programs
    from compiler.transforms.registry import parse_pass_flag

    def rebuild(k: int) -> ModuleOp:
        m = clone_module(module)
        lower_linalg(m)
        m = distribute(m, config, k, progs.distribution, chunk=progs.chunk, active=progs.active)
        check_input_program(m)
        return m

    check_cluster_programs(progs.modules, func, rebuild,
                           lambda: [parse_pass_flag(f) for f in progs.flags], progs.flags, across)


def _compile(config: HardwareConfig, module: ModuleOp, func: str | None, distribution: str,
             searched: dict[str, tuple[AcceleratorPipeline, ModuleOp, list[Remark]]] | None = None,
             active: int = 0, exact_in: bool = False) -> ClusterPrograms:
    """`searched` keeps the block search for cyclic (auto runs both). `active` (0: all, block
    only): the work shared by that many clusters, the tile search on their fair share.
    `exact_in`: the copy pass's `exact-copy-in` (see `compile_for_clusters`). A share
    the pipeline's copies do not fit is compiled with `skip-oversized` (`run_pipeline`), which
    changes nothing where the buffers fit: the shares compiled before keep their programs."""
    lower_linalg(module)
    found = {} if searched is None else searched
    chunk = 1
    if distribution == "cyclic":
        pipe, _, remarks = _searched(config, module, func, "block", found, exact_in=exact_in)
        chunk = cyclic_chunk(config, module, func, pipe)
        serial: list[Remark] = []
        shares = [distribute(module, config, k, "cyclic", serial if k == 0 else None, chunk)
                  for k in range(config.clusters)]
        for k, m in enumerate(shares):
            check_input_program(m)
            pipe, got = run_pipeline(pipe, m)
            if k == 0:
                remarks = got
    else:
        serial = []
        shares = [distribute(module, config, k, distribution, serial if k == 0 else None,
                             active=active)
                  for k in range(config.clusters)]
        largest = _largest(shares)
        pipe, compiled, remarks = _searched(config, module, func, distribution, found, shares,
                                            active, exact_in)
        shares[largest] = compiled
        for k, m in enumerate(shares):
            if k != largest:
                check_input_program(m)
                pipe, _ = run_pipeline(pipe, m)
    return ClusterPrograms(shares, distribution, pipe.flags(), [*serial, *remarks],
                           [f"{r.loc}: {r.message}" for r in serial], chunk=chunk,
                           active=active if 0 < active < config.clusters else 0)


def _searched(config: HardwareConfig, module: ModuleOp, func: str | None, distribution: str,
              found: dict[str, tuple[AcceleratorPipeline, ModuleOp, list[Remark]]],
              shares: list[ModuleOp] | None = None, active: int = 0, exact_in: bool = False
              ) -> tuple[AcceleratorPipeline, ModuleOp, list[Remark]]:
    """The tile search on the largest share of `distribution` (on one cluster's fair share of
    the machine, or of `active` clusters): its pipeline, that share compiled (a copy, each
    caller its own) and the passes' remarks; memoized in `found`."""
    key = (distribution if not active else f"{distribution}/{active}") + ("/in" if exact_in else "")
    if key not in found:
        if shares is None:
            shares = [distribute(module, config, k, distribution) for k in range(config.clusters)]
        largest = shares[_largest(shares)]
        m = clone_module(largest)
        machine = config
        if active and config.interconnect.kind == "bus":  # (as the estimate shares a bus)
            machine = config.with_overrides({"clusters": active})
        pipe, remarks = compile_for_accelerator(share_config(machine), m, func, check=False)
        # a share's copy-outs write back only what it stores: a box may span elements other
        # clusters write (a parallel loop's iterations write disjoint elements, but one
        # iteration's bounding box may hold another's)
        if config.clusters > 1:
            m = clone_module(largest)
            pipe, _ = run_pipeline(pipe.replace(exact_copy_out=True, exact_copy_in=exact_in), m)
        found[key] = (pipe, m, remarks)
    pipe, m, remarks = found[key]
    return pipe, clone_module(m), list(remarks)


def cyclic_chunk(config: HardwareConfig, module: ModuleOp, func: str | None,
                 pipe: AcceleratorPipeline) -> int:
    """Cyclic's chunk: the tile size of `pipe` along the distributed loop of the module's
    first distributed nest (`CYCLIC_CHUNK` without one), grown by whole tiles until no
    cluster gets more than `MAX_CHUNKS` chunks of it."""
    from compiler.ir.entry import entry_function
    from compiler.transforms.affine_cluster_distribute import distributed_loop

    f = entry_function(module, func)
    for nest in f.body.ops:
        found = distributed_loop(nest)
        if found is None:
            continue
        depth, lo, hi = found
        tiles = pipe.tile_sizes
        if tiles is not None and depth < len(tiles):
            tile = tiles[depth]
        else:  # no tile along it: CYCLIC_CHUNK, smaller where a cluster would get no chunk
            tile = max(1, min(CYCLIC_CHUNK, (hi - lo) // config.clusters))
        per_cluster = math.ceil(math.ceil((hi - lo) / tile) / config.clusters)
        return tile * math.ceil(per_cluster / MAX_CHUNKS)
    return CYCLIC_CHUNK


def _largest(shares: list[ModuleOp]) -> int:
    return max(range(len(shares)), key=lambda k: (_iterations(shares[k]), -k))


def _iterations(m: ModuleOp) -> int:
    """The iterations of the module's constant-bound loops (a share's size)."""
    from compiler.ir.ops import AffineForOp

    total = 0
    for op in m.walk():
        if isinstance(op, AffineForOp) and op.constant_lower is not None \
                and op.constant_upper is not None:
            total += max(op.constant_upper - op.constant_lower, 0) // op.step
    return total


def weigh(config: HardwareConfig, module: ModuleOp, func: str | None = None,
          prune: bool = False) -> dict[str, tuple[ClusterPrograms, int | None]]:
    """Every candidate distribution (`CANDIDATES`) compiled for every cluster, with the
    barrier-aware analytic cycles of its programs (the block search shared with cyclic).
    `prune`: a candidate's estimate stops as soon as it is slower than the fastest before it
    (its cycles None: it cannot win, and a bad candidate's walk can cost minutes, as
    cyclic's one-element DMAs on gemm 1x4096x11008 over 16 clusters)."""
    from accelsim.estimate.clusters import estimate_clusters
    from accelsim.estimate.state import OverLimit

    found: dict[str, tuple[AcceleratorPipeline, ModuleOp, list[Remark]]] = {}
    out: dict[str, tuple[ClusterPrograms, int | None]] = {}
    best: int | None = None
    for d in CANDIDATES:
        chunk = 1
        if d == "cyclic":
            chunk = cyclic_chunk(config, module, func, _searched(config, module, func, "block", found)[0])
        if _same_shares(config, module, d, chunk):
            progs, cycles = out["block"]  # one parallel loop, or chunks as large as blocks
            out[d] = (ClusterPrograms([clone_module(m) for m in progs.modules], d, progs.flags,
                                      progs.remarks, progs.serial, chunk=chunk), cycles)
            continue
        progs = _compile(config, module, func, d, found)
        try:
            cycles: int | None = estimate_clusters(progs.modules, config, func,
                                                   best if prune else None).cycles
        except OverLimit:
            cycles = None
        out[d] = (progs, cycles)
        if cycles is not None and (best is None or cycles < best):
            best = cycles
    return out


def _same_shares(config: HardwareConfig, module: ModuleOp, d: str, chunk: int) -> bool:
    """Does distribution `d` give every cluster the share `block` gives it (as text)?"""
    from compiler.text import print_module

    if d == "block":
        return False
    return all(print_module(distribute(module, config, k, d, chunk=chunk))
               == print_module(distribute(module, config, k, "block"))
               for k in range(config.clusters))


def _choose(config: HardwareConfig, module: ModuleOp, func: str | None) -> ClusterPrograms:
    """The candidate the barrier-aware estimate finishes first (ties: `CANDIDATES` order;
    one cluster: `block`)."""
    if config.clusters == 1:
        return _compile(config, module, func, "block")
    weighed = weigh(config, module, func, prune=True)
    done = [d for d in CANDIDATES if weighed[d][1] is not None]  # block's always is
    best = min(done, key=lambda d: (weighed[d][1], CANDIDATES.index(d)))
    progs, cycles = weighed[best]
    assert cycles is not None
    progs.weighed = {d: c for d, (_, c) in weighed.items()}
    fewer = _fewer(config, module, func, cycles)
    if fewer is not None:
        fewer.weighed = {**progs.weighed, **fewer.weighed}
        return fewer
    return progs


def _fewer(config: HardwareConfig, module: ModuleOp, func: str | None, best: int
           ) -> ClusterPrograms | None:
    """More clusters never make the run slower: `block` over half the clusters, a quarter,
    ... and one (the rest idle), each estimated on this machine (an idle cluster takes no
    share of a bus: `estimate_clusters`) and stopped once past `best`; the fastest if it
    beats `best`, else None. Only with a bus (on a mesh the estimate gives every cluster its
    full-machine share)."""
    from accelsim.estimate.clusters import estimate_clusters
    from accelsim.estimate.state import OverLimit

    if config.interconnect.kind != "bus":
        return None
    found: dict[str, tuple[AcceleratorPipeline, ModuleOp, list[Remark]]] = {}
    kept: ClusterPrograms | None = None
    weighed: dict[str, int | None] = {}
    n = config.clusters // 2
    while n >= 1:
        progs = _compile(config, module, func, "block", found, active=n)
        try:
            cycles: int | None = estimate_clusters(progs.modules, config, func, best).cycles
        except OverLimit:
            cycles = None
        weighed[f"block on {n}"] = cycles
        if cycles is not None and cycles < best:
            best, kept = cycles, progs
        n //= 2
    if kept is not None:
        kept.weighed = weighed
    return kept
