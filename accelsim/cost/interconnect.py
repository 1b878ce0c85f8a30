"""The interconnect between compute clusters and the shared levels: which links a transfer of
a cluster crosses, how long it holds them, its latency, and the grant (earliest time every
link of the path is free, in issue order).

- `bus`: one shared link (`noc.bus`) of `bandwidth_bytes_per_cycle`; every transfer holds it
  for ceil(bytes / bandwidth) cycles, then `latency_cycles`.
- `mesh`: cluster k sits at router (k // cols, k % cols), the shared memory at
  (`memory_row`, `memory_col`). A read (shared level -> cluster) goes from the memory's
  router to the cluster's, a write back; XY routing (along the row first, then the column)
  over directed links of `link_bytes_per_cycle`. Cut-through: a transfer holds every link of
  its path for ceil(bytes / link bandwidth) cycles from the cycle all of them are free, then
  `hop_latency_cycles` per hop. The memory's own attachment is not a link (DRAM's channels or
  the shared level's ports bound it).

The event machine (`accelsim.hw.interconnect`) keeps the `free_at` list and the trace
records; the analytic estimate keeps its own. Used only when `clusters` > 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from accelsim.config import HardwareConfig


@dataclass(frozen=True, slots=True)
class InterconnectModel:
    kind: str
    names: tuple[str, ...]                       # every link, by index
    read_paths: tuple[tuple[int, ...], ...]      # per cluster: shared level -> cluster
    write_paths: tuple[tuple[int, ...], ...]     # per cluster: cluster -> shared level
    latency: tuple[int, ...]                     # per cluster
    bytes_per_cycle: int                         # of each link

    @staticmethod
    def for_config(config: HardwareConfig) -> InterconnectModel | None:
        """The model of `config`'s interconnect; None with one cluster (no interconnect)."""
        n = config.clusters
        if n == 1:
            return None
        ic = config.interconnect
        if ic.kind == "bus":
            one = ((0,),) * n
            return InterconnectModel("bus", ("noc.bus",), one, one, (ic.latency_cycles,) * n,
                                     ic.bandwidth_bytes_per_cycle)
        _, cols = ic.mesh_dims(n)
        mem = (ic.memory_row, ic.memory_col)
        index: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
        names: list[str] = []

        def link(a: tuple[int, int], b: tuple[int, int]) -> int:
            k = index.get((a, b))
            if k is None:
                k = index[(a, b)] = len(names)
                names.append(f"noc.({a[0]},{a[1]})->({b[0]},{b[1]})")
            return k

        reads, writes, lat = [], [], []
        for c in range(n):
            node = (c // cols, c % cols)
            reads.append(tuple(link(a, b) for a, b in xy_route(mem, node)))
            writes.append(tuple(link(a, b) for a, b in xy_route(node, mem)))
            lat.append(ic.hop_latency_cycles * len(reads[-1]))
        return InterconnectModel("mesh", tuple(names), tuple(reads), tuple(writes), tuple(lat),
                                 ic.link_bytes_per_cycle)

    def hold(self, nbytes: int) -> int:
        """Cycles a transfer of `nbytes` holds each link of its path."""
        return -(-nbytes // self.bytes_per_cycle)

    def path(self, cluster: int, kind: str) -> tuple[int, ...]:
        """The links of a transfer of `kind` ("read": towards the cluster, else from it)."""
        return (self.read_paths if kind == "read" else self.write_paths)[cluster]

    def grant(self, free_at: list[int], path: tuple[int, ...], ready: int, hold: int) -> int:
        """Reserve every link of `path` for `hold` cycles from the first cycle >= `ready` all
        are free (issue order); the start. `free_at` is advanced."""
        t0 = ready
        for k in path:
            if free_at[k] > t0:
                t0 = free_at[k]
        end = t0 + hold
        for k in path:
            free_at[k] = end
        return t0


def xy_route(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The directed hops from router `a` to router `b`: along the row (X) first, then the
    column (Y)."""
    hops = []
    r, c = a
    while c != b[1]:
        nc = c + (1 if b[1] > c else -1)
        hops.append(((r, c), (r, nc)))
        c = nc
    while r != b[0]:
        nr = r + (1 if b[0] > r else -1)
        hops.append(((r, c), (nr, c)))
        r = nr
    return hops
