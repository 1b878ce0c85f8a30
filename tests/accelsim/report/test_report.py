"""Report figures against brute force (cycle-by-cycle bitmaps of random traces) and against
closed forms on small programs whose timelines are known."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accelsim import load_config, simulate
from accelsim.report import Report, compare, compare_rows, input_traffic, metrics
from accelsim.report.roofline import peak_compute_cycles
from accelsim.trace import Trace
from compiler.analysis.compulsory import ArgumentTraffic, CompulsoryTraffic
from compiler.analysis.contraction import ContractionMatch
from compiler.ir import F32, I32, Builder, memref
from workloads.dma_programs import tile_sum, tiled_gemm

ISSUE_KEYS = ("cycles", "seconds", "dram_bytes_read", "dram_bytes_written", "compute_utilization",
              "dma_utilization", "overlap_fraction", "stall_cycles", "roofline_cycles",
              "roofline_ratio", "traffic_ratio", "compulsory_bytes", "schedule_roofline_cycles",
              "sram_peak_bytes", "energy_pj")


def stats(**kw):
    base = dict(macs=0, alu_ops=0, special_ops=0, kernel_sram_bytes=0, dma_sram_bytes=0,
                ideal_compute_cycles=0, dma_ops=0, kernel_calls=0)
    base.update(kw)
    return SimpleNamespace(**base)


def seq_config():
    return load_config("default").with_overrides({"dma.engines": 1, "compute.kind": "vector"})


# ---- brute force on random traces -------------------------------------------------------

UNITS = {"cp": ("stall",), "dma0": ("dma",), "dma1": ("dma",), "dram.ch0": ("read", "write"),
         "dram.ch1": ("read", "write", "copy"), "compute0": ("kernel",)}


@st.composite
def traces(draw):
    t = Trace()
    for unit, kinds in UNITS.items():
        for _ in range(draw(st.integers(0, 6))):
            s = draw(st.integers(0, 60))
            e = s + draw(st.integers(0, 25))
            t.add(unit, s, e, draw(st.sampled_from(kinds)), draw(st.integers(0, 300)),
                  draw(st.sampled_from(["A->a", "B->b", "k"])), draw(st.sampled_from(["f:1:1", "f:2:1"])))
    return t


def bitmap(trace, pred, n):
    m = np.zeros(n, dtype=bool)
    for r in trace:
        if pred(r):
            m[r.start:r.end] = True
    return m


@settings(max_examples=150, deadline=None)
@given(traces(), st.integers(0, 3), st.integers(0, 2000), st.integers(0, 2000))
def test_figures_match_cycle_by_cycle_brute_force(trace, extra_cycles, need_read, need_written):
    cfg = load_config("default")
    n = trace.end + extra_cycles
    st_ = stats(macs=7, alu_ops=5, special_ops=2, ideal_compute_cycles=3, kernel_sram_bytes=11,
                dma_sram_bytes=13)
    need = CompulsoryTraffic("f", 0, (ArgumentTraffic("A", 4, 4000, need_read, need_written),),
                             ContractionMatch(None, "test"))
    rep = Report.build(trace, cfg, st_, sram_peak_bytes=99, cycles=n, compulsory=need)
    for row in rep.units:
        busy = int(bitmap(trace, lambda r, u=row.unit: r.unit == u, n).sum())
        assert row.busy_cycles == busy
        assert row.bytes == sum(r.bytes for r in trace if r.unit == row.unit)
        assert row.utilization == (busy / n if n else 0.0)
        assert row.bytes_per_cycle == pytest.approx(row.bytes / n if n else 0.0)
    dma = bitmap(trace, lambda r: r.kind == "dma", n)
    comp = bitmap(trace, lambda r: r.kind == "kernel", n)
    stall = bitmap(trace, lambda r: r.kind == "stall", n)
    assert rep.dma_busy_cycles == dma.sum() and rep.compute_busy_cycles == comp.sum()
    assert rep.hidden_dma_cycles == (dma & comp).sum()
    assert rep.exposed_dma_cycles == (stall & ~comp).sum()
    assert rep.stall_cycles == stall.sum()
    shorter = min(dma.sum(), comp.sum())
    assert rep.overlap_fraction == pytest.approx((dma & comp).sum() / shorter if shorter else 0.0)
    # every DMA record lands in exactly one buffer row; stalls are all attributed
    assert sum(b.transfers for b in rep.buffers) == sum(1 for r in trace if r.kind == "dma")
    assert sum(b.dma_cycles for b in rep.buffers) == sum(r.duration for r in trace if r.kind == "dma")
    per_stall = sum(r.duration - int((comp[r.start:r.end]).sum()) for r in trace if r.kind == "stall")
    assert sum(b.exposed_cycles for b in rep.buffers) == per_stall
    for b in rep.buffers:
        recs = [r for r in trace if r.kind == "dma" and (r.label, r.loc) == (b.label, b.loc)]
        assert b.hidden_cycles == sum(int(comp[r.start:r.end].sum()) for r in recs)
    dram = [r for r in trace if r.unit.startswith("dram")]
    read = sum(r.bytes for r in dram if r.kind == "read")
    written = sum(r.bytes for r in dram if r.kind == "write")
    moved = sum(r.bytes for r in dram)
    assert (rep.dram_bytes_read, rep.dram_bytes_written, rep.schedule_roofline.dram_bytes) == \
        (read, written, moved)
    peak = cfg.dram.channels * cfg.dram.bandwidth_bytes_per_cycle
    assert rep.schedule_roofline.cycles == max(3, math.ceil(moved / peak))
    # the honest roofline: the ops at the machine's peak, the compulsory bytes
    compulsory = 4 * (need_read + need_written)
    peak_compute = peak_compute_cycles(cfg, 7, 5, 2)
    assert peak_compute == math.ceil(7 / 256) + math.ceil((5 + 2 * cfg.compute.special_op_cycles) / 16)
    assert rep.roofline.cycles == max(peak_compute, math.ceil(compulsory / peak))
    assert rep.roofline.dram_bytes == compulsory == rep.to_dict()["compulsory_bytes"]
    assert rep.traffic_ratio == (moved / compulsory if compulsory else None)
    assert rep.io_bound.bytes is None and rep.io_bound.description == "none known: test"
    assert rep.dram_bytes_per_cycle == pytest.approx(moved / n if n else 0.0)
    work = [u for u in rep.units if u.unit != "cp"]
    assert rep.busiest.busy_cycles == max(u.busy_cycles for u in work)
    assert rep.roofline.ops == rep.schedule_roofline.ops == 2 * 7 + 5 + 2
    e = cfg.energy
    assert rep.energy.dram_pj == pytest.approx(moved * e.dram_pj_per_byte)
    assert rep.energy.sram_pj == pytest.approx(24 * e.sram_pj_per_byte)
    assert rep.energy.compute_pj == pytest.approx(7 * (3.7 + 0.9) + 5 * 0.9 + 2 * e.special_pj)  # f32
    assert rep.energy.static_pj == pytest.approx(e.static_mw * 1e-3 * n / 1e9 * 1e12)
    json.dumps(rep.to_dict(), allow_nan=False)


# ---- closed forms on programs -----------------------------------------------------------

def test_sequential_loop_exposes_every_dma_and_hides_none():
    cfg = seq_config()
    r = simulate(tile_sum(10, 256, pipelined=False), cfg, functional=False)
    rep = Report.from_result(r)
    dmas = r.trace.of("dma", "dma")
    assert rep.hidden_dma_cycles == 0 and rep.overlap_fraction == 0.0
    assert rep.exposed_dma_cycles == sum(d.duration for d in dmas) == rep.stall_cycles
    rows = {b.label: b for b in rep.buffers}
    assert set(rows) == {"A->buf", "acc->out"}
    a = rows["A->buf"]
    assert (a.transfers, a.bytes, a.direction) == (10, 10 * 256 * 4, "in")
    assert a.exposed_cycles == a.dma_cycles == sum(d.duration for d in dmas if d.label == "A->buf")
    assert rows["acc->out"].direction == "out" and rows["acc->out"].transfers == 1
    # each row points at its dma_start, not at the dma_wait
    assert {b.loc for b in rep.buffers} == {d.loc for d in dmas}
    assert rep.unit("dma0").busy_cycles == sum(d.duration for d in dmas)
    assert rep.unit("compute0").busy_cycles == sum(k.duration for k in r.trace.of("compute"))
    assert rep.sram_peak_bytes == r.sram_peak_bytes == 2 * 256 * 4 + 4


def test_double_buffering_hides_dma_under_compute_and_attributes_the_rest():
    cfg = seq_config().with_overrides({"compute.lanes": 2})  # slow compute: DMA can hide
    seq = Report.from_result(simulate(tile_sum(12, 256, pipelined=False), cfg, functional=False))
    pip = Report.from_result(simulate(tile_sum(12, 256), cfg, functional=False))
    assert pip.cycles < seq.cycles
    assert pip.hidden_dma_cycles > 0 and pip.exposed_dma_cycles < seq.exposed_dma_cycles
    # hidden + exposed never exceed the DMA busy time; stalls never overlap compute here
    assert pip.hidden_dma_cycles + pip.exposed_dma_cycles <= pip.dma_busy_cycles
    assert sum(b.exposed_cycles for b in pip.buffers) == pip.exposed_dma_cycles == pip.stall_cycles
    assert sum(b.hidden_cycles for b in pip.buffers) == pip.hidden_dma_cycles  # one engine


def test_queue_full_stall_is_charged_to_the_dma_start_being_enqueued():
    cfg = seq_config().with_overrides({"dma.queue_depth": 1})
    b = Builder()
    with b.func("f", A=memref((4, 64), F32)) as (A,):
        buf = b.alloc(memref((4, 64), F32, 1), "buf")
        tag = b.alloc(memref((4,), I32, 2), "tag")
        b.dma_start(A, [0, 0], buf, [0, 0], tag, [0], 64)
        b.dma_start(A, [1, 0], buf, [1, 0], tag, [1], 64)
        b.dma_start(A, [2, 0], buf, [2, 0], tag, [2], 64)
        for k in range(3):
            b.dma_wait(tag, [k], 64)
    r = simulate(b.module, cfg, functional=False)
    queue = [s for s in r.trace.of("cp", "stall") if s.label.startswith("queue full")]
    assert queue, "the third descriptor must wait for queue space"
    rep = Report.from_result(r)
    by_loc = {row.loc: row for row in rep.buffers}
    for s in queue:
        assert by_loc[s.loc].exposed_cycles >= s.duration
    assert sum(row.exposed_cycles for row in rep.buffers) == rep.stall_cycles


def test_roofline_bound_switches_with_the_compute_unit():
    prog = tiled_gemm(64, 64, 64, 32)
    cfg = load_config("default")
    need = input_traffic(prog, None, cfg)  # as given: A and B read, C read and written, once
    assert need.bytes == 4 * 64 * 64 * 4
    mat = Report.from_result(simulate(prog, "default", functional=False), need)
    peak = cfg.dram.channels * cfg.dram.bandwidth_bytes_per_cycle
    sched = mat.schedule_roofline
    assert sched.bound == "bandwidth"
    assert sched.cycles == math.ceil(sched.dram_bytes / peak)
    assert sched.ops == 2 * 64 ** 3
    assert mat.schedule_roofline_ratio == pytest.approx(mat.cycles / sched.cycles)
    assert mat.schedule_roofline_ratio >= 1.0
    # honest: 64^3 MACs on the 16x16 array = 1,024 cycles < 65,536 compulsory bytes / 32 B/cycle
    assert (mat.roofline.bound, mat.roofline.compute_cycles) == ("bandwidth", 64 ** 3 // 256)
    assert mat.roofline.cycles == need.bytes // peak == 2048
    assert mat.roofline_ratio == pytest.approx(mat.cycles / 2048)
    assert mat.roofline_ratio >= mat.schedule_roofline_ratio >= 1.0  # compulsory <= moved
    assert mat.traffic_ratio == sched.dram_bytes / need.bytes >= 1.0
    vec_cfg = cfg.with_overrides({"compute.kind": "vector", "compute.lanes": 4})
    vec = Report.from_result(simulate(tiled_gemm(64, 64, 64, 32), vec_cfg, functional=False),
                             input_traffic(tiled_gemm(64, 64, 64, 32), None, vec_cfg))
    assert vec.schedule_roofline.bound == vec.roofline.bound == "compute"
    # a MAC is one fused lane-op on the vector unit: 64^3 / 4 lanes
    assert vec.schedule_roofline.cycles == vec.schedule_roofline.compute_cycles == 64 ** 3 // 4
    assert vec.roofline.cycles == vec.roofline.compute_cycles == 64 ** 3 // 4
    assert "compute-bound (vector 4 lanes" in vec.roofline.describe()
    assert vec.roofline.attainable_ops_per_cycle(1e9) == pytest.approx(8.0)  # 2 ops per FMA


def test_energy_components_follow_the_config_table():
    cfg = seq_config().with_overrides({"energy.static_mw": 250.0, "energy.dram_pj_per_byte": 100.0,
                                       "clock_ghz": 2.0})
    r = simulate(tile_sum(4, 64, pipelined=False), cfg, functional=False)
    rep = Report.from_result(r)
    s = r.stats
    assert rep.energy.dram_pj == pytest.approx(100.0 * (rep.dram_bytes_read + rep.dram_bytes_written))
    assert rep.energy.sram_pj == pytest.approx(2.5 * (s.kernel_sram_bytes + s.dma_sram_bytes))
    assert rep.energy.compute_pj == pytest.approx(s.alu_ops * 0.9)
    assert rep.energy.static_pj == pytest.approx(0.250 * r.cycles / 2e9 * 1e12)
    assert rep.seconds == pytest.approx(r.cycles / 2e9)
    assert metrics(r)["energy_pj"] == pytest.approx(rep.energy.total_pj)


def test_to_dict_has_the_issue_keys_and_rows_and_is_strict_json():
    need = input_traffic(tiled_gemm(64, 64, 64, 32), None, load_config("default"))
    r = simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False)
    d = Report.from_result(r, need).to_dict()
    for k in ISSUE_KEYS:
        assert d[k] is not None
    assert {u["unit"] for u in d["units"]} == {"cp", "dma0", "dma1", "dram.ch0", "dram.ch1", "compute0"}
    assert all({"buffer", "loc", "hidden_cycles", "exposed_cycles"} <= set(b) for b in d["buffers"])
    json.loads(json.dumps(d, allow_nan=False))
    flat = metrics(r, need)
    assert not any(isinstance(v, dict) for v in flat.values())
    assert all(flat[k] == d[k] for k in ISSUE_KEYS)


def test_format_table_lists_every_unit_and_every_dma_start():
    r = simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False)
    rep = Report.from_result(r, input_traffic(tiled_gemm(64, 64, 64, 32), None, r.config))
    text = rep.format_table()
    for row in rep.units:
        assert f"\n  {row.unit} " in text
        assert f"{row.busy_cycles:,}" in text
    for d in r.trace.of("dma", "dma"):
        assert d.loc in text
    assert f"{rep.cycles:,} cycles" in text and "bandwidth-bound" in text
    short = rep.format_table(max_buffers=1)
    assert rep.buffers[0].loc in short and rep.buffers[-1].loc not in short.split("dma_start at")[1]
    assert f"... {len(rep.buffers) - 1} more dma_start sites" in short


def test_compare_prints_b_over_a_and_the_speedup():
    a = Report.from_result(simulate(tiled_gemm(64, 64, 64, 32, pipelined=False), "default",
                                    functional=False))
    b = Report.from_result(simulate(tiled_gemm(64, 64, 64, 32), "default", functional=False))
    rows = {m: (va, vb, ratio) for m, va, vb, ratio in compare_rows(a, b)}
    assert rows["cycles"] == (a.cycles, b.cycles, b.cycles / a.cycles)
    assert rows["DMA hidden cycles"][2] is None  # A hides nothing
    text = compare(a, b, ("copy", "pipelined"))
    cycles_line = next(line for line in text.splitlines() if line.strip().startswith("cycles"))
    assert f"{a.cycles:,}" in cycles_line and f"{b.cycles / a.cycles:.3f}x" in cycles_line
    assert f"pipelined takes {a.cycles / b.cycles:.3f}x fewer cycles than copy" in text
    assert "same number of cycles" in compare(a, a)


def test_sram_ceiling_is_reported_when_kernels_are_sram_bound():
    """A vector unit reading A, B, C and writing C per MAC (16 B) from a 32 B/cycle SRAM runs
    at 2 MACs a cycle, a quarter of its 8 lanes: the report names that third ceiling. (No
    register file: with `edge`'s registers see the end.)"""
    cfg = load_config("edge").with_overrides({"compute.vector_registers": 0})
    mod = tiled_gemm(64, 64, 64, 32)
    res = simulate(mod, cfg, functional=False)
    rep = Report.from_result(res)
    r = rep.schedule_roofline
    macs = 64 ** 3
    assert rep.macs == macs
    assert r.sram_bytes_per_cycle == cfg.sram.banks * cfg.sram.bank_bytes_per_cycle == 32
    assert r.sram_cycles == math.ceil(macs * 16 / 32) > r.cycles
    assert r.sram_bound and rep.cycles >= r.sram_cycles
    text = rep.format_table()
    assert (f"kernels are SRAM-bound: their SRAM traffic at 32 B/cycle takes {r.sram_cycles:,} "
            f"cycles; run is {rep.cycles / r.sram_cycles:.3f}x that") in text
    d = rep.to_dict()
    assert d["roofline_sram_cycles"] == r.sram_cycles and d["sram_bound"] is True
    # the matrix unit streams its operands once per kernel: not SRAM-bound, no such line
    mat = Report.from_result(simulate(mod, load_config("default"), functional=False))
    assert not mat.schedule_roofline.sram_bound and "SRAM-bound" not in mat.format_table()
    # edge's 32 registers: per 32^3 tile C[i, j] held across k (read and written once), the
    # A row held across j (4 registers), B's 32 x 32 block (128 registers) streamed per MAC
    reg = Report.from_result(simulate(mod, load_config("edge"), functional=False)).schedule_roofline
    assert reg.sram_cycles == math.ceil(8 * 4 * (3 * 32 * 32 + 32 ** 3) / 32) < r.sram_cycles
