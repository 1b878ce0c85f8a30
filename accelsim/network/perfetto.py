"""A network run as Chrome trace-event JSON (Perfetto, chrome://tracing): one slice per layer.

Process "network <name>", one track "layers" with a complete event (`ph: "X"`) per layer from
its start cycle to its end cycle (microseconds of the config clock), and one track per lowering
kind repeating the slice, so the layers of one kind line up. `args` carry the layer's figures.
When the rows name the clusters that ran them (a many-cluster schedule: `cluster` "0-3"), a
second process "clusters" has one track per cluster with a slice for each layer on it, so
layers that overlap in time show on different clusters' tracks.
"""

from __future__ import annotations

import json
import os
from typing import Any

from accelsim.network.pipeline_model import cluster_span
from accelsim.network.results import NetworkResult

CLUSTERS_PID = 2


def network_trace(result: NetworkResult) -> dict[str, Any]:
    us = 1.0 / (result.clock_ghz * 1e3)
    events: list[dict[str, Any]] = [
        {"ph": "M", "pid": 1, "tid": 0, "name": "process_name",
         "args": {"name": f"network {result.network.name} on {result.config}"}},
        {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "layers"}},
    ]
    kinds = list(dict.fromkeys(r.layer.lowering for r in result.layers))
    for i, kind in enumerate(kinds, start=2):
        events.append({"ph": "M", "pid": 1, "tid": i, "name": "thread_name", "args": {"name": kind}})
    lanes = sorted({c for r in result.layers if r.cluster for c in cluster_span(r.cluster)})
    if lanes:
        events.append({"ph": "M", "pid": CLUSTERS_PID, "tid": 0, "name": "process_name",
                       "args": {"name": f"clusters ({result.schedule} schedule)"}})
        events += [{"ph": "M", "pid": CLUSTERS_PID, "tid": c + 1, "name": "thread_name",
                    "args": {"name": f"cluster {c}"}} for c in lanes]
    for r in result.layers:
        row = r.row()
        args = {k: row[k] for k in ("op", "lowering", "cycles", "dram_bytes_read", "dram_bytes_written",
                                    "roofline_ratio", "bound", "energy_pj", "kernels", "where")}
        args["cluster"] = r.cluster
        base = {"ph": "X", "pid": 1, "name": r.layer.name, "ts": r.start_cycle * us,
                "dur": (r.end_cycle - r.start_cycle) * us, "args": args}
        events.append({**base, "tid": 1, "cat": "layer"})
        events.append({**base, "tid": 2 + kinds.index(r.layer.lowering), "cat": r.layer.lowering})
        if r.cluster:
            events += [{**base, "pid": CLUSTERS_PID, "tid": c + 1, "cat": "cluster"}
                       for c in cluster_span(r.cluster)]
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"network": result.network.name, "config": result.config,
                          "schedule": result.schedule,
                          "cycles": result.totals()["cycles"], "clock_ghz": result.clock_ghz}}


def write_network_trace(path: str | os.PathLike[str], result: NetworkResult) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(network_trace(result), fh)
