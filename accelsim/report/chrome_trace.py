"""`--trace out.json`: a `Trace` as Chrome trace-event JSON, which Perfetto and chrome://tracing open.

One process per unit group (control, DMA engines, DRAM channels, compute units) and one thread
(track) per unit, named by metadata events (`process_name`, `thread_name`, sort indices). Every
interval is a complete event (`ph: "X"`, or a `B`/`E` pair with `complete=False`), timestamps in
microseconds of the config clock, with its op, buffer or kernel, bytes and IR location in `args`
(plus the exact cycles). Intervals of one unit that overlap get extra tracks (`dma0 #2`) so
that every track nests properly.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

from accelsim.report.figures import unit_group, unit_sort_key
from accelsim.trace import Trace, TraceRecord

GROUPS = ("control", "dma", "dram", "port", "compute", "other")
GROUP_TITLES = {"control": "control processor", "dma": "DMA engines", "dram": "DRAM channels",
                "port": "memory level ports", "compute": "compute units", "other": "other"}
# what the interval was doing, named by the IR op that caused it
OP_OF_KIND = {"dma": "affine.dma_start", "read": "dram read", "write": "dram write",
              "copy": "dram copy", "kernel": "func.call", "stall": "stall", "issue": "issue"}


def to_chrome_trace(trace: Trace, clock_ghz: float = 1.0, units: Iterable[str] = (),
                    metadata: dict[str, Any] | None = None, complete: bool = True) -> dict[str, Any]:
    """The JSON object (`traceEvents` + `otherData`). `units` adds idle units as empty tracks;
    `complete=False` writes begin/end pairs (`B`/`E`) instead of complete events (`X`)."""
    text = chrome_trace_json(trace, clock_ghz, units, metadata, complete)
    return json.loads(text)  # type: ignore[no-any-return]


def write_chrome_trace(path: str | os.PathLike[str], trace: Trace, clock_ghz: float = 1.0,
                       units: Iterable[str] = (), metadata: dict[str, Any] | None = None,
                       complete: bool = True) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(chrome_trace_json(trace, clock_ghz, units, metadata, complete))


def chrome_trace_json(trace: Trace, clock_ghz: float = 1.0, units: Iterable[str] = (),
                      metadata: dict[str, Any] | None = None, complete: bool = True) -> str:
    """The JSON text, one event per line. Events are formatted directly (labels and locations
    are encoded once each), which is several times faster than building dicts for json."""
    us_per_cycle = 1.0 / (clock_ghz * 1e3)
    by_unit: dict[str, list[TraceRecord]] = {u: [] for u in units}
    for r in trace:
        by_unit.setdefault(r.unit, []).append(r)
    enc = _Encoder()
    lines: list[str] = []
    # a many-cluster run: one process per cluster (its `c<k>.` units), then the shared units
    local = [u for u in by_unit if _CLUSTER_RE.match(u)]
    procs: list[tuple[str, list[str]]] = []
    for k in sorted({int(_CLUSTER_RE.match(u).group(1)) for u in local}):  # type: ignore[union-attr]
        procs.append((f"cluster {k}", sorted((u for u in local if u.startswith(f"c{k}.")),
                                             key=lambda u: unit_sort_key(u.split(".", 1)[1]))))
    for group in GROUPS:
        procs.append((GROUP_TITLES[group], sorted(
            (u for u in by_unit if unit_group(u) == group and u not in local), key=unit_sort_key)))
    for g, (title, names) in enumerate(procs, start=1):
        if not names:
            continue
        lines.append(_meta("process_name", g, 0, {"name": title}))
        lines.append(_meta("process_sort_index", g, 0, {"sort_index": g}))
        tid = 0
        for unit in names:
            lanes = _lanes(sorted(by_unit[unit], key=lambda r: (r.start, -r.end)))
            for k, lane in enumerate(lanes or [[]]):
                tid += 1
                name = unit if k == 0 else f"{unit} #{k + 1}"
                lines.append(_meta("thread_name", g, tid, {"name": name}))
                lines.append(_meta("thread_sort_index", g, tid, {"sort_index": tid}))
                if complete:
                    head = f'"ph":"X","pid":{g},"tid":{tid},'
                    lines.extend(_complete(r, head, us_per_cycle, enc) for r in lane)
                else:
                    for r in lane:
                        lines.append(_complete(r, f'"ph":"B","pid":{g},"tid":{tid},', us_per_cycle,
                                               enc, with_dur=False))
                        lines.append(f'{{"ph":"E","pid":{g},"tid":{tid},'
                                     f'"ts":{r.end * us_per_cycle!r}}}')
    other = {"clock_ghz": clock_ghz, "cycles": trace.end, **trace.metadata, **(metadata or {})}
    other_json = json.dumps({k: _jsonable(v) for k, v in other.items()})
    return ('{"traceEvents":[\n' + ",\n".join(lines) + '\n],"displayTimeUnit":"ns","otherData":'
            + other_json + "}\n")


def write_result_trace(path: str | os.PathLike[str], result: Any) -> None:
    """`--trace` for a `SimResult`: the config's clock and every unit of the machine."""
    from accelsim.report.figures import expected_units

    write_chrome_trace(path, result.trace, result.config.clock_ghz, expected_units(result.config),
                       {"config": result.config.name, "func": result.func, "cycles": result.cycles})


_CLUSTER_RE = re.compile(r"c(\d+)\.")


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


def _meta(name: str, pid: int, tid: int, args: dict[str, Any]) -> str:
    return json.dumps({"name": name, "ph": "M", "pid": pid, "tid": tid, "ts": 0, "args": args},
                      separators=(",", ":"))


class _Encoder:
    """JSON string literals, encoded once per distinct string."""

    def __init__(self) -> None:
        self.cache: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        out = self.cache.get(text)
        if out is None:
            out = self.cache[text] = json.dumps(text)
        return out


def _complete(r: TraceRecord, head: str, us_per_cycle: float, enc: _Encoder,
              with_dur: bool = True) -> str:
    kind = r.kind
    if kind == "kernel":
        op, role = f"func.call @{r.label}", "kernel"
    else:
        op, role = OP_OF_KIND.get(kind, kind), ("reason" if kind == "stall" else "buffer")
    return (f'{{"name":{enc(r.label or kind)},"cat":{enc(kind)},{head}'
            f'"ts":{r.start * us_per_cycle!r},'
            + (f'"dur":{(r.end - r.start) * us_per_cycle!r},' if with_dur else "") +
            f'"args":{{"op":{enc(op)},"kind":{enc(kind)},"bytes":{r.bytes},"loc":{enc(r.loc)},'
            f'"start_cycle":{r.start},"end_cycle":{r.end},"{role}":{enc(r.label)}}}}}')


def _jsonable(v: Any) -> Any:
    if isinstance(v, str | int | float | bool) or v is None:
        return v
    if isinstance(v, dict):  # e.g. the levels' high-water marks, by level name
        return {str(k): _jsonable(x) for k, x in v.items()}
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
    open_b: dict[tuple[int, int], list[float]] = {}
    for e in data["traceEvents"]:
        track = (e["pid"], e["tid"])
        if e["ph"] == "X":
            s = round(e["ts"] * cycles_per_us)
            iv[names[track]].append((s, s + round(e["dur"] * cycles_per_us)))
        elif e["ph"] == "B":
            open_b.setdefault(track, []).append(e["ts"])
        elif e["ph"] == "E":
            start = open_b[track].pop()  # an E closes the innermost open B of its track
            iv[names[track]].append((round(start * cycles_per_us), round(e["ts"] * cycles_per_us)))
    return {u: union_length(v) for u, v in iv.items()}


def trace_from_chrome(data: dict[str, Any]) -> Trace:
    """The `Trace` back from JSON this module wrote (either form), using the exact cycles kept in
    `args`: a saved `--trace` file can be re-plotted or re-reported without re-simulating."""
    names: dict[tuple[int, int], str] = {}
    for e in data["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"].split(" #")[0]
    t = Trace()
    for e in data["traceEvents"]:
        if e["ph"] in ("X", "B"):
            a = e["args"]
            label = a.get("buffer", a.get("kernel", a.get("reason", "")))
            t.add(names[(e["pid"], e["tid"])], int(a["start_cycle"]), int(a["end_cycle"]), a["kind"],
                  int(a["bytes"]), label, a["loc"])
    t.records.sort(key=lambda r: (r.end, r.start, r.unit))
    other = data.get("otherData", {})
    t.metadata.update(other)
    return t


def read_chrome_trace(path: str | os.PathLike[str]) -> Trace:
    with open(path, encoding="utf-8") as fh:
        return trace_from_chrome(json.load(fh))


__all__ = ["busy_cycles_from_chrome", "chrome_trace_json", "read_chrome_trace", "to_chrome_trace",
           "trace_from_chrome", "write_chrome_trace", "write_result_trace"]
