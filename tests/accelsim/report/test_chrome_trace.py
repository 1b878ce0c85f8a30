"""Chrome trace-event JSON: valid against the format (required keys, microsecond timestamps,
well-nested tracks), loads back, and the report's busy cycles are recomputed from it alone."""

from __future__ import annotations

import itertools
import json

import pytest

import workloads
from accelsim import load_config, simulate
from accelsim.report import Report
from accelsim.report.chrome_trace import (
    busy_cycles_from_chrome,
    read_chrome_trace,
    to_chrome_trace,
    trace_from_chrome,
    write_result_trace,
)
from accelsim.trace import Trace
from compiler.transforms.registry import PassManager
from workloads.dma_programs import tile_sum, tiled_gemm

COPY = ("--affine-data-copy-generate=generate-dma fast-mem-space=1 slow-mem-space=0 "
        "tag-mem-space=2 fast-mem-capacity=2")
PIPE = "--affine-pipeline-data-transfer=stages=2 fast-mem-capacity=256"


def workload(spec: str, flags: list[str]):
    m = workloads.get(spec).module()
    PassManager.from_flags(flags).run(m)
    return m


PROGRAMS = {
    "tile_sum": lambda: tile_sum(8, 256),
    "tile_sum sequential": lambda: tile_sum(8, 256, pipelined=False),
    "tiled gemm": lambda: tiled_gemm(64, 64, 64, 32),
    "gemm copy+pipeline": lambda: workload("gemm:M=32,N=24,K=16", [COPY, PIPE]),
    "jacobi-2d copy": lambda: workload("jacobi-2d:N=20,T=2", [COPY]),
}
CONFIGS = {"default": {}, "2.5 GHz, 3 engines": {"clock_ghz": 2.5, "dma.engines": 3}}


def check_format(data: dict) -> None:
    """The trace-event format's rules that Perfetto relies on."""
    assert isinstance(data["traceEvents"], list)
    named_threads, named_procs = set(), set()
    for e in data["traceEvents"]:
        for key in ("name", "ph", "pid", "tid", "ts"):
            assert key in e, f"event without {key!r}: {e}"
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        assert isinstance(e["ts"], int | float) and e["ts"] >= 0
        assert e["ph"] in ("X", "M")
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "thread_name", "process_sort_index",
                                 "thread_sort_index")
            if e["name"] == "thread_name":
                named_threads.add((e["pid"], e["tid"]))
            if e["name"] == "process_name":
                named_procs.add(e["pid"])
        else:
            assert isinstance(e["dur"], int | float) and e["dur"] >= 0
            assert (e["pid"], e["tid"]) in named_threads  # metadata comes first
            assert e["pid"] in named_procs
            assert {"op", "bytes", "loc", "start_cycle", "end_cycle"} <= set(e["args"])
    # complete events on one track never partially overlap (B/E order is implied by X)
    by_track: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for e in data["traceEvents"]:
        if e["ph"] == "X":
            by_track.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_track.values():
        spans.sort()
        for (_, end), (start, _) in itertools.pairwise(spans):
            assert start >= end - 1e-9


@pytest.mark.parametrize("cfg_name", sorted(CONFIGS))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_trace_validates_and_round_trips_the_busy_cycles(name, cfg_name, tmp_path):
    cfg = load_config("default").with_overrides(CONFIGS[cfg_name])
    r = simulate(PROGRAMS[name](), cfg, functional=False)
    path = tmp_path / "t.json"
    write_result_trace(path, r)
    data = json.loads(path.read_text())
    check_format(data)
    rep = Report.from_result(r)
    busy = busy_cycles_from_chrome(data, cfg.clock_ghz)
    assert busy == {row.unit: row.busy_cycles for row in rep.units}
    # microseconds of the config clock, for every record, with its cycles and IR location
    xs = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == len(r.trace)
    us = 1 / (cfg.clock_ghz * 1e3)
    for e in xs:
        a = e["args"]
        assert e["ts"] == pytest.approx(a["start_cycle"] * us, abs=1e-9)
        assert e["dur"] == pytest.approx((a["end_cycle"] - a["start_cycle"]) * us, abs=1e-9)
    want = sorted((x.start, x.end, x.label, x.loc, x.bytes) for x in r.trace)
    got = sorted((e["args"]["start_cycle"], e["args"]["end_cycle"], e["name"], e["args"]["loc"],
                  e["args"]["bytes"]) for e in xs)
    assert got == want
    assert data["otherData"]["cycles"] == r.cycles and data["otherData"]["clock_ghz"] == cfg.clock_ghz


def test_args_name_the_op_buffer_and_kernel():
    r = simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False)
    data = to_chrome_trace(r.trace, 1.0)
    xs = [e for e in data["traceEvents"] if e["ph"] == "X"]
    kinds = {e["args"]["kind"]: e for e in xs}
    assert kinds["dma"]["args"]["op"] == "affine.dma_start" and "->" in kinds["dma"]["args"]["buffer"]
    assert kinds["kernel"]["args"]["op"] == "func.call @gemm_tile"
    assert kinds["kernel"]["args"]["kernel"] == "gemm_tile"
    assert kinds["stall"]["args"]["reason"].startswith("wait ")
    # overlapping intervals of one unit (a pipelined DMA engine) get extra tracks "unit #k"
    threads = {e["args"]["name"].split(" #")[0] for e in data["traceEvents"] if e["name"] == "thread_name"}
    # a pipelined engine's overlapping descriptors get extra tracks "dma0 #2", ...
    assert {t.split(" #")[0] for t in threads} == set(r.trace.units())


def test_overlapping_intervals_of_one_unit_get_their_own_tracks():
    t = Trace()
    t.add("dma0", 0, 10, "dma", 8, "a")
    t.add("dma0", 5, 15, "dma", 8, "b")   # overlaps the first
    t.add("dma0", 10, 12, "dma", 8, "c")  # fits after the first
    data = to_chrome_trace(t, 1.0, units=["dma1"])
    check_format(data)
    names = {e["tid"]: e["args"]["name"] for e in data["traceEvents"] if e["name"] == "thread_name"}
    assert sorted(names.values()) == ["dma0", "dma0 #2", "dma1"]  # idle dma1 still has a track
    track = {e["name"]: names[e["tid"]] for e in data["traceEvents"] if e["ph"] == "X"}
    assert track == {"a": "dma0", "c": "dma0", "b": "dma0 #2"}
    assert busy_cycles_from_chrome(data, 1.0) == {"dma0": 15, "dma1": 0}


def check_begin_end(data: dict) -> list[tuple[tuple[int, int], float, float, dict]]:
    """B/E events: every E closes the innermost open B of its track, at a later or equal time,
    nothing stays open; returns (track, begin, end, args of the B)."""
    stacks: dict[tuple[int, int], list[dict]] = {}
    spans = []
    for e in data["traceEvents"]:
        for key in ("ph", "pid", "tid", "ts"):
            assert key in e
        track = (e["pid"], e["tid"])
        if e["ph"] == "B":
            assert "name" in e and "args" in e
            stacks.setdefault(track, []).append(e)
        elif e["ph"] == "E":
            assert stacks.get(track), f"E without an open B on track {track}"
            b = stacks[track].pop()
            assert e["ts"] >= b["ts"]
            spans.append((track, b["ts"], e["ts"], b["args"]))
        else:
            assert e["ph"] == "M"
    assert all(not st for st in stacks.values()), "B without its E"
    return spans


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_begin_end_pairs_match_and_round_trip(name):
    cfg = load_config("default").with_overrides({"clock_ghz": 1.5})
    r = simulate(PROGRAMS[name](), cfg, functional=False)
    data = to_chrome_trace(r.trace, cfg.clock_ghz, complete=False)
    spans = check_begin_end(data)
    assert len(spans) == len(r.trace)
    us = 1 / (cfg.clock_ghz * 1e3)
    for _, b, e, args in spans:
        assert b == pytest.approx(args["start_cycle"] * us, abs=1e-9)
        assert e == pytest.approx(args["end_cycle"] * us, abs=1e-9)
    rep = Report.from_result(r)
    busy = busy_cycles_from_chrome(data, cfg.clock_ghz)
    assert busy == {row.unit: row.busy_cycles for row in rep.units if row.unit in busy}
    assert set(busy) == set(r.trace.units())


@pytest.mark.parametrize("complete", [True, False])
def test_the_trace_reads_back_exactly(complete, tmp_path):
    r = simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False)
    key = lambda x: (x.unit, x.start, x.end, x.kind, x.bytes, x.label, x.loc)
    back = trace_from_chrome(to_chrome_trace(r.trace, 1.0, complete=complete))
    assert sorted(map(key, back)) == sorted(map(key, r.trace))
    write_result_trace(tmp_path / "t.json", r)
    again = read_chrome_trace(tmp_path / "t.json")
    assert sorted(map(key, again)) == sorted(map(key, r.trace))
    assert again.metadata["cycles"] == r.cycles
    assert Report.build(again, r.config, r.stats, r.sram_peak_bytes).to_dict() == \
        Report.from_result(r).to_dict() | {"flags": []}
