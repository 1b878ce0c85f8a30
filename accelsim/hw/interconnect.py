"""The interconnect as the event machine's component: each link a FIFO server like a DRAM
channel (`free_at`, granted in issue order), with a trace record per transfer per link.
Costs, paths and the grant are `accelsim.cost.interconnect.InterconnectModel`'s.

`reserve_for(cluster, parent_reserve)` wraps the reserve of the link into a cluster's local
level: the transfer streams through the shared level's ports or DRAM channels and the
interconnect at once (cut-through) and ends when both have carried it, plus the path's
latency.
Each cluster's DRAM bytes by kind (`dram_bytes[kind][cluster]`, kind "read", "write" or
"copy") are counted there when the link into its local level is the one from DRAM."""

from __future__ import annotations

from collections.abc import Callable

from accelsim.cost.interconnect import InterconnectModel
from accelsim.hw.dma import Transfer
from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__
Reserve = Callable[[int, int, int, Transfer], int]


class Interconnect:
    def __init__(self, model: InterconnectModel, trace: Trace):
        self.model = model
        self.records = trace.records
        self.free_at = [0] * len(model.names)
        self.bytes = [0] * len(model.names)
        n = len(model.latency)
        self.dram_bytes: dict[str, list[int]] = {k: [0] * n for k in ("read", "write", "copy")}

    def reserve_for(self, cluster: int, parent: Reserve, from_dram: bool = True) -> Reserve:
        """`from_dram`: `parent` is DRAM's reserve (not a shared on-chip level's), so the bytes
        count as the cluster's DRAM bytes."""
        reads, writes = self.model.path(cluster, "read"), self.model.path(cluster, "write")
        if len(reads) == len(writes) == 1 and reads == writes:
            return self.link_reserve(cluster, parent, from_dram)
        return self.path_reserve(cluster, parent, from_dram)

    def link_reserve(self, cluster: int, parent: Reserve, from_dram: bool = True) -> Reserve:
        """`reserve_for` when the cluster's transfers cross one link both ways (the bus):
        the grant in closed form (`InterconnectModel.grant` over a path of one link), the
        link's name and byte counter bound once."""
        model, free, records, nb = self.model, self.free_at, self.records, self.bytes
        latency, bpc = model.latency[cluster], model.bytes_per_cycle
        (k,) = model.path(cluster, "read")
        assert model.path(cluster, "write") == (k,)
        name = model.names[k]
        counts = self.dram_bytes if from_dram else None

        def reserve_one(ready: int, nbytes: int, hold: int, xfer: Transfer) -> int:
            end = parent(ready, nbytes, hold, xfer)
            desc = xfer.desc
            if counts is not None and desc[4] in counts:
                counts[desc[4]][cluster] += nbytes
            h = -(-nbytes // bpc)  # InterconnectModel.hold
            t0 = free[k]
            if ready > t0:
                t0 = ready
            free[k] = t1 = t0 + h
            nb[k] += nbytes
            records.append(_tnew(TraceRecord, (name, t0, t1, desc[4], nbytes, xfer.label,
                                               desc[5])))
            t1 += latency
            return t1 if t1 > end else end

        return reserve_one

    def path_reserve(self, cluster: int, parent: Reserve, from_dram: bool = True) -> Reserve:
        """`reserve_for` over the links of each direction's path (any interconnect)."""
        model, free, names, records, nb = self.model, self.free_at, self.model.names, self.records, self.bytes
        latency, bpc = model.latency[cluster], model.bytes_per_cycle
        counts = self.dram_bytes if from_dram else None
        # per direction: the path's links with their names (routes fixed per cluster)
        reads = tuple((k, names[k]) for k in model.path(cluster, "read"))
        writes = tuple((k, names[k]) for k in model.path(cluster, "write"))

        def reserve(ready: int, nbytes: int, hold: int, xfer: Transfer) -> int:
            end = parent(ready, nbytes, hold, xfer)
            desc = xfer.desc
            kind = desc[4]
            path = reads if kind == "read" else writes
            if counts is not None and kind in counts:
                counts[kind][cluster] += nbytes
            h = -(-nbytes // bpc)  # InterconnectModel.hold
            t0 = ready  # InterconnectModel.grant: the first cycle every link is free
            for k, _ in path:
                if free[k] > t0:
                    t0 = free[k]
            t1 = t0 + h
            label, loc = xfer.label, desc[5]
            for k, name in path:
                free[k] = t1
                nb[k] += nbytes
                records.append(_tnew(TraceRecord, (name, t0, t1, kind, nbytes, label, loc)))
            t1 += latency
            return t1 if t1 > end else end

        return reserve
