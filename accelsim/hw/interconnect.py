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
        model, free, names, records, nb = self.model, self.free_at, self.model.names, self.records, self.bytes
        counts = self.dram_bytes if from_dram else None
        latency = model.latency[cluster]
        grant, hold_of = model.grant, model.hold
        reads, writes = model.path(cluster, "read"), model.path(cluster, "write")

        def reserve(ready: int, nbytes: int, hold: int, xfer: Transfer) -> int:
            end = parent(ready, nbytes, hold, xfer)
            desc = xfer.desc
            kind = desc[4]
            path = reads if kind == "read" else writes
            if counts is not None and kind in counts:
                counts[kind][cluster] += nbytes
            h = hold_of(nbytes)
            t0 = grant(free, path, ready, h)
            for k in path:
                nb[k] += nbytes
                records.append(_tnew(TraceRecord, (names[k], t0, t0 + h, kind, nbytes,
                                                   xfer.label, desc[5])))
            t1 = t0 + h + latency
            return t1 if t1 > end else end

        return reserve
