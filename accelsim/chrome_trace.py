"""`--trace out.json`: a `Trace` as Chrome trace-event JSON, which Perfetto and chrome://tracing open.

One process per unit group (control, DMA engines, DRAM channels, compute units) and one thread
(track) per unit, named by metadata events (`process_name`, `thread_name`, sort indices). Every
interval is a complete event (`ph: "X"`) with `ts`/`dur` in microseconds of the config clock and
its op, buffer or kernel, bytes and IR location in `args` (plus the exact cycles). Intervals of
one unit that overlap get extra tracks (`dma0 #2`) so that every track nests properly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from accelsim.report import unit_group, unit_sort_key
from accelsim.trace import Trace, TraceRecord

GROUPS = ("control", "dma", "dram", "compute", "other")
GROUP_TITLES = {"control": "control processor", "dma": "DMA engines", "dram": "DRAM channels",
                "compute": "compute units", "other": "other"}
# what the interval was doing, named by the IR op that caused it
OP_OF_KIND = {"dma": "affine.dma_start", "read": "dram read", "write": "dram write",
              "copy": "dram copy", "kernel": "func.call", "stall": "stall", "issue": "issue"}


def to_chrome_trace(trace: Trace, clock_ghz: float = 1.0, units: Iterable[str] = (),
                    metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON object (`traceEvents` + `otherData`). `units` adds idle units as empty tracks."""
    us_per_cycle = 1.0 / (clock_ghz * 1e3)
    by_unit: dict[str, list[TraceRecord]] = {u: [] for u in units}
    for r in trace:
        by_unit.setdefault(r.unit, []).append(r)
    events: list[dict[str, Any]] = []
    for g, group in enumerate(GROUPS, start=1):
        names = sorted((u for u in by_unit if unit_group(u) == group), key=unit_sort_key)
        if not names:
            continue
        events.append(_meta("process_name", g, 0, {"name": GROUP_TITLES[group]}))
        events.append(_meta("process_sort_index", g, 0, {"sort_index": g}))
        tid = 0
        for unit in names:
            lanes = _lanes(sorted(by_unit[unit], key=lambda r: (r.start, -r.end)))
            for k, lane in enumerate(lanes or [[]]):
                tid += 1
                name = unit if k == 0 else f"{unit} #{k + 1}"
                events.append(_meta("thread_name", g, tid, {"name": name}))
                events.append(_meta("thread_sort_index", g, tid, {"sort_index": tid}))
                events.extend(_complete(r, g, tid, us_per_cycle) for r in lane)
    other = {"clock_ghz": clock_ghz, "cycles": trace.end, **trace.metadata, **(metadata or {})}
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {k: _jsonable(v) for k, v in other.items()}}


def write_chrome_trace(path: str | os.PathLike[str], trace: Trace, clock_ghz: float = 1.0,
                       units: Iterable[str] = (), metadata: dict[str, Any] | None = None) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(to_chrome_trace(trace, clock_ghz, units, metadata), fh, separators=(",", ":"))


def write_result_trace(path: str | os.PathLike[str], result: Any) -> None:
    """`--trace` for a `SimResult`: the config's clock and every unit of the machine."""
    from accelsim.report import expected_units

    write_chrome_trace(path, result.trace, result.config.clock_ghz, expected_units(result.config),
                       {"config": result.config.name, "func": result.func, "cycles": result.cycles})


def _lanes(recs: list[TraceRecord]) -> list[list[TraceRecord]]:
    """First-fit: a record goes to the first lane whose last interval ended by its start."""
    lanes: list[list[TraceRecord]] = []
    ends: list[int] = []
    for r in recs:
        for k, e in enumerate(ends):
            if e <= r.start:
                lanes[k].append(r)
                ends[k] = r.end
                break
        else:
            lanes.append([r])
            ends.append(r.end)
    return lanes


def _meta(name: str, pid: int, tid: int, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "ph": "M", "pid": pid, "tid": tid, "ts": 0, "args": args}


def _complete(r: TraceRecord, pid: int, tid: int, us_per_cycle: float) -> dict[str, Any]:
    op = OP_OF_KIND.get(r.kind, r.kind)
    if r.kind == "kernel":
        op = f"func.call @{r.label}"
    args: dict[str, Any] = {"op": op, "kind": r.kind, "bytes": r.bytes, "loc": r.loc,
                            "start_cycle": r.start, "end_cycle": r.end}
    if r.kind == "kernel":
        args["kernel"] = r.label
    elif r.kind == "stall":
        args["reason"] = r.label
    else:
        args["buffer"] = r.label
    return {"name": r.label or r.kind, "cat": r.kind, "ph": "X", "pid": pid, "tid": tid,
            "ts": r.start * us_per_cycle, "dur": r.duration * us_per_cycle, "args": args}


def _jsonable(v: Any) -> Any:
    if isinstance(v, str | int | float | bool) or v is None:
        return v
    return str(v)


def busy_cycles_from_chrome(data: dict[str, Any], clock_ghz: float) -> dict[str, int]:
    """Busy cycles per unit recomputed from the JSON alone (tracks `unit #k` fold into `unit`):
    what the round-trip test compares with the report."""
    from accelsim.trace import union_length

    names: dict[tuple[int, int], str] = {}
    for e in data["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"].split(" #")[0]
    cycles_per_us = clock_ghz * 1e3
    iv: dict[str, list[tuple[int, int]]] = {n: [] for n in names.values()}
    for e in data["traceEvents"]:
        if e["ph"] == "X":
            s = round(e["ts"] * cycles_per_us)
            iv[names[(e["pid"], e["tid"])]].append((s, s + round(e["dur"] * cycles_per_us)))
    return {u: union_length(v) for u, v in iv.items()}


__all__ = ["busy_cycles_from_chrome", "to_chrome_trace", "write_chrome_trace", "write_result_trace"]
