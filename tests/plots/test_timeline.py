"""Overlap timeline, rendered headless: the drawn bars are the trace's intervals (read back from
the figure's rectangles), the window clips them, dense traces merge below a pixel and still
cover every interval, colours follow the buffer/kernel, and the µs axis follows the clock."""

from __future__ import annotations

import itertools
import math
import random
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workloads
from accelsim import load_config, simulate
from accelsim.trace import Trace
from compiler.transforms.registry import PassManager
from plots.timeline import LEFT, RIGHT, STALL_COLOR, plot_timeline, timeline_bars
from workloads.dma_programs import tile_sum, tiled_gemm

COPY = ("--affine-data-copy-generate=generate-dma fast-mem-space=1 slow-mem-space=0 "
        "tag-mem-space=2 fast-mem-capacity=2")
PIPE = "--affine-pipeline-data-transfer=stages=2 fast-mem-capacity=256"


def workload(spec, flags):
    m = workloads.get(spec).module()
    PassManager.from_flags(flags).run(m)
    return m


PROGRAMS = {
    "tile_sum": lambda: tile_sum(6, 256),
    "tile_sum sequential": lambda: tile_sum(6, 256, pipelined=False),
    "tiled gemm": lambda: tiled_gemm(64, 64, 64, 32),
    "gemm copy+pipeline": lambda: workload("gemm:M=32,N=24,K=16", [COPY, PIPE]),
    "conv2d copy": lambda: workload("conv2d:N=1,C=2,H=10,W=9,K=3,R=3,S=3,stride=1", [COPY]),
}


def drawn_rectangles(tl):
    """(lane, start, end, facecolor) of every lane bar in the figure, from the artists."""
    ax = tl.figure.axes[0]
    n = len(tl.lanes)
    lane_of_y = {n - 1 - i: u for i, u in enumerate(tl.lanes)}
    out = []
    for coll in ax.collections:
        colors = coll.get_facecolors()
        for k, path in enumerate(coll.get_paths()):
            v = path.vertices
            (x0, y0), (x1, y1) = v.min(axis=0), v.max(axis=0)
            if y1 - y0 > 1:  # the stall shading spans every lane
                continue
            lane = lane_of_y[round((y0 + y1) / 2)]
            out.append((lane, round(x0), round(x1), tuple(np.round(colors[k % len(colors)][:3], 3))))
    return sorted(out)


def rgb(hex_color):
    return tuple(round(int(hex_color[i:i + 2], 16) / 255, 3) for i in (1, 3, 5))


def unmerged_width(trace):
    """A figure width at which every interval is at least one pixel wide (nothing merges)."""
    shortest = min(r.duration for r in trace if r.duration > 0)
    return math.ceil(trace.end / (shortest * (RIGHT - LEFT))) + 8


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_bars_are_the_trace_intervals(name, tmp_path):
    r = simulate(PROGRAMS[name](), "default", functional=False)
    tl = plot_timeline(r.trace, tmp_path / "t.png", config=r.config, title=name,
                       width_px=unmerged_width(r.trace), dpi=50)
    want = sorted((x.unit, x.start, x.end, x.label, x.kind) for x in r.trace if x.end > x.start)
    assert sorted((b.lane, b.start, b.end, b.label, b.kind) for b in tl.bars) == want
    assert all(b.count == 1 for b in tl.bars)
    # overlapping intervals of a unit (a pipelined DMA engine) sit on separate sub-rows
    for lane in tl.lanes:
        for level in {b.level for b in tl.lane_bars(lane)}:
            row = sorted((b.start, b.end) for b in tl.lane_bars(lane) if b.level == level)
            assert all(e <= s2 for (_, e), (s2, _) in itertools.pairwise(row))
    # the figure holds exactly these rectangles, each in the colour of its label
    rects = drawn_rectangles(tl)
    assert [(lane, s, e) for lane, s, e, _ in rects] == sorted((b.lane, b.start, b.end) for b in tl.bars)
    for b in tl.bars:
        color = STALL_COLOR if b.kind == "stall" else tl.colors[b.label]
        assert (b.lane, b.start, b.end, rgb(color)) in rects
    # one lane per unit of the machine, even idle ones
    assert tl.lanes[0] == "cp" and "dma1" in tl.lanes and "compute0" in tl.lanes
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_buffer_has_one_colour_on_dma_and_dram_lanes_and_is_in_the_legend():
    r = simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False)
    tl = plot_timeline(r.trace, config=r.config)
    rects = drawn_rectangles(tl)
    colour_of = {}
    for b in tl.bars:
        if b.kind in ("dma", "read", "write", "kernel"):
            c = next(c for lane, s, e, c in rects if (lane, s, e) == (b.lane, b.start, b.end))
            colour_of.setdefault(b.label, set()).add(c)
    assert all(len(cs) == 1 for cs in colour_of.values())
    assert len({next(iter(cs)) for cs in colour_of.values()}) == len(colour_of)  # distinct
    legend = [t.get_text() for t in tl.figure.axes[0].get_legend().get_texts()]
    assert set(colour_of) <= set(legend) and "control stalled" in legend


def test_window_clips_to_the_zoomed_cycles(tmp_path):
    r = simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False)
    lo, hi = 1000, 3000
    tl = plot_timeline(r.trace, tmp_path / "w.svg", config=r.config, window=(lo, hi))
    want = sorted((x.unit, max(x.start, lo), min(x.end, hi), x.label) for x in r.trace
                  if x.end > lo and x.start < hi and x.end > x.start)
    assert sorted((b.lane, b.start, b.end, b.label) for b in tl.bars) == want
    ax = tl.figure.axes[0]
    assert ax.get_xlim() == (lo, hi)
    assert (tmp_path / "w.svg").read_text().lstrip().startswith("<?xml")


def test_microsecond_axis_follows_the_config_clock(tmp_path):
    cfg = load_config("default").with_overrides({"clock_ghz": 2.0})
    r = simulate(tile_sum(4, 128), cfg, functional=False)
    tl = plot_timeline(r.trace, tmp_path / "t.pdf", config=cfg)
    ax = tl.figure.axes[0]
    sec = next(c for c in ax.child_axes)
    assert sec.get_xlabel() == "time (µs)"
    # 2 GHz: 2000 cycles are one microsecond
    fwd = sec._functions[0]
    assert fwd(2000.0) == pytest.approx(1.0) and ax.get_xlabel() == "cycles"
    assert (tmp_path / "t.pdf").read_bytes()[:4] == b"%PDF"


def dense_trace(n, seed=0):
    rng = random.Random(seed)
    t = Trace()
    x = 0
    for i in range(n):
        d = rng.randint(1, 5)
        unit = "dma0" if i % 3 else "compute0"
        t.add(unit, x, x + d, "dma" if i % 3 else "kernel", 64, f"buf{i % 4}")
        x += d + rng.randint(0, 3)
    return t


def test_dense_traces_merge_below_a_pixel_and_cover_every_interval():
    t = dense_trace(60_000)
    tl = plot_timeline(t, width_px=800)
    cpp = tl.cycles_per_pixel
    assert cpp > 10
    for lane in ("dma0", "compute0"):
        recs = sorted((r.start, r.end) for r in t if r.unit == lane)
        bars = tl.lane_bars(lane)
        assert sum(b.count for b in bars) == len(recs)
        assert len(bars) <= 2 * 800  # about one bar per pixel column
        # every record lies inside the bar it merged into, in order
        i = 0
        for b in bars:
            for s, e in recs[i:i + b.count]:
                assert b.start <= s and e <= b.end
            if b.count > 1:
                assert b.end - b.start < 2 * cpp
            i += b.count
        # the merged bars differ from the exact union by less than a pixel per bar
        covered = sum(b.end - b.start for b in bars)
        exact = sum(e - s for s, e in recs)
        assert exact <= covered <= exact + len(bars) * cpp


def test_merged_bar_takes_the_label_with_most_cycles():
    t = Trace()
    t.add("dma0", 0, 1, "dma", 0, "small")
    t.add("dma0", 1, 4, "dma", 0, "big")
    t.add("dma0", 4, 5, "dma", 0, "small")
    (bar,) = timeline_bars(t, ["dma0"], (0, 1000), cpp=10.0)
    assert (bar.start, bar.end, bar.label, bar.count) == (0, 5, "big", 3)
    # a gap of a pixel or more, or a wide interval, is never merged
    t.add("dma0", 30, 31, "dma", 0, "far")
    t.add("dma0", 31, 60, "dma", 0, "wide")
    bars = timeline_bars(t, ["dma0"], (0, 1000), cpp=10.0)
    assert [(b.start, b.end, b.label) for b in bars] == [(0, 5, "big"), (30, 31, "far"), (31, 60, "wide")]


def test_a_quarter_million_intervals_draw_quickly(tmp_path):
    t = dense_trace(250_000, seed=1)
    t0 = time.perf_counter()
    tl = plot_timeline(t, tmp_path / "big.png")
    assert time.perf_counter() - t0 < 20  # typically ~1 s
    assert sum(b.count for b in tl.bars) == 250_000 and len(tl.bars) < 5_000


def test_bad_window_is_an_error():
    with pytest.raises(ValueError, match="window 10:10"):
        plot_timeline(dense_trace(10), window=(10, 10))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 400), st.integers(0, 30), st.sampled_from("abc")),
                max_size=60),
       st.floats(0.5, 40.0), st.integers(0, 200), st.integers(1, 300))
def test_merging_invariants_on_random_lanes(recs, cpp, lo, span):
    t = Trace()
    for s, d, lab in recs:
        t.add("dma0", s, s + d, "dma", 0, lab)
    hi = lo + span
    bars = timeline_bars(t, ["dma0"], (lo, hi), cpp)
    clipped = sorted((max(s, lo), min(s + d, hi)) for s, d, _ in recs
                     if s + d > lo and s < hi and d > 0)
    assert sum(b.count for b in bars) == len(clipped)
    i = 0
    for b in bars:
        group = clipped[i:i + b.count]
        assert b.start == group[0][0] and b.end == max(e for _, e in group)
        if b.count > 1:  # only sub-pixel intervals, all starting in one pixel column
            assert all(e - s < cpp for s, e in group)
            assert len({int((s - lo) // cpp) for s, _ in group}) == 1
        i += b.count
    assert all(lo <= b.start < b.end <= hi for b in bars)


def test_a_saved_trace_redraws_the_same_bars(tmp_path, capsys):
    from accelsim.report.chrome_trace import write_result_trace
    from plots.timeline import main

    r = simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False)
    write_result_trace(tmp_path / "t.json", r)
    assert main([str(tmp_path / "t.json"), str(tmp_path / "t.png"), "--window", "500:4000"]) == 0
    direct = plot_timeline(r.trace, config=r.config, window=(500, 4000))
    assert f"{len(direct.bars):,} bars from {len(r.trace):,} intervals" in capsys.readouterr().out
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
