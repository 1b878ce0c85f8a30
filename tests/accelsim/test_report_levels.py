"""The memory hierarchy in the report and in `--json`: `levels` (one per level) and `links`
(one per link) with the promised keys, the figures against the program's own traffic, the
hierarchical roofline, and one timeline / Perfetto lane per link engine and level port."""

import json
from pathlib import Path

import pytest

from accelsim import load_config, simulate
from accelsim.cli import main
from accelsim.report import Report, expected_units
from accelsim.report.chrome_trace import to_chrome_trace
from accelsim.sim.options import SimOptions
from compiler.text import parse_file

SCALE3 = str(Path(__file__).parent / "data" / "levels" / "scale3.mlir")
LEVEL_KEYS = {"name", "capacity_bytes", "peak_bytes", "bytes_read", "bytes_written"}
LINK_KEYS = {"src", "dst", "bytes", "busy_cycles", "peak_bytes_per_cycle"}


def run_json(capsys, *argv):
    code = main(["run", *argv, "--target", "sim", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_two_level_json_has_two_levels_and_one_link(capsys):
    rep = run_json(capsys, "gemm:M=64,N=64,K=64")
    levels, links = rep["levels"], rep["links"]
    assert [lv["name"] for lv in levels] == ["dram", "sram"] and len(links) == 1
    assert all(set(lv) >= LEVEL_KEYS for lv in levels) and set(links[0]) >= LINK_KEYS
    dram, sram = levels
    assert (dram["bytes_read"], dram["bytes_written"]) == (rep["dram_bytes_read"], rep["dram_bytes_written"])
    assert sram["capacity_bytes"] == rep["sram_capacity_bytes"]
    assert sram["peak_bytes"] == rep["sram_peak_bytes"]
    # the per-level energies are the report's DRAM and SRAM energy
    assert dram["energy_pj"] == pytest.approx(rep["energy_dram_pj"])
    assert sram["energy_pj"] == pytest.approx(rep["energy_sram_pj"])
    (link,) = links
    assert (link["src"], link["dst"]) == ("dram", "sram")
    assert link["busy_cycles"] == rep["dma_busy_cycles"]
    assert link["hidden_cycles"] == rep["hidden_dma_cycles"]
    assert link["exposed_cycles"] == rep["exposed_dma_cycles"]
    assert link["bytes"] == sum(b["bytes"] for b in rep["buffers"])
    assert link["peak_bytes_per_cycle"] == rep["dram_peak_bytes_per_cycle"]
    assert rep["hierarchical_roofline_cycles"] == max(link["ceiling_cycles"],
                                                      rep["schedule_roofline_compute_cycles"])


def test_two_level_figures_equal_with_and_without_records():
    import workloads
    from accelsim.compile.accelerator import compile_for_accelerator

    cfg = load_config("default")
    wl = workloads.get("gemm:M=64,N=64,K=64")
    mod = wl.module()
    compile_for_accelerator(cfg, mod, wl.func_name)
    reps = [Report.from_result(simulate(mod, cfg, func=wl.func_name, functional=False,
                                        options=SimOptions(keep_records=keep)))
            for keep in (True, False)]
    assert reps[0].to_dict()["levels"] == reps[1].to_dict()["levels"]
    assert reps[0].to_dict()["links"] == reps[1].to_dict()["links"]


def test_three_level_json_levels_and_links(capsys):
    rep = run_json(capsys, SCALE3, "--config", "three_level", "--as-is")
    levels = {lv["name"]: lv for lv in rep["levels"]}
    assert list(levels) == ["dram", "glb", "spad"]
    assert all(set(lv) >= LEVEL_KEYS for lv in levels.values())
    n = 256 * 4  # A and B, 1 KiB each
    # DRAM: A read, B written; glb: A in and B out, every tile out and back; spad: every tile
    # in and out, plus the kernel's operand bytes (read and written in place: 2 x 64 x 4 per call)
    assert (levels["dram"]["bytes_read"], levels["dram"]["bytes_written"]) == (n, n)
    assert (levels["glb"]["bytes_read"], levels["glb"]["bytes_written"]) == (2 * n, 2 * n)
    assert (levels["spad"]["bytes_read"], levels["spad"]["bytes_written"]) == (n + 4 * 512, n)
    assert levels["glb"]["peak_bytes"] == n and levels["spad"]["peak_bytes"] == 512
    assert levels["dram"]["peak_bytes"] == 2 * n
    cfg = load_config("three_level")
    assert levels["glb"]["capacity_bytes"] == cfg.memory_chain()[1].capacity_bytes
    energy = sum(lv["bytes_read"] * c.read_pj_per_byte + lv["bytes_written"] * c.write_pj_per_byte
                 for lv, c in zip(rep["levels"], cfg.memory_chain(), strict=True))
    assert energy == pytest.approx(rep["energy_dram_pj"] + rep["energy_sram_pj"])
    links = rep["links"]
    assert [(lk["src"], lk["dst"]) for lk in links] == [("dram", "glb"), ("glb", "spad")]
    assert all(set(lk) >= LINK_KEYS for lk in links)
    assert [lk["bytes"] for lk in links] == [2 * n, 2 * n]
    assert links[0]["peak_bytes_per_cycle"] == 32    # 2 DRAM channels x 16 B
    assert links[1]["peak_bytes_per_cycle"] == 128   # glb 2 x 64 B read, spad 128 B write
    for lk in links:
        assert lk["ceiling_cycles"] == -(-lk["bytes"] // lk["peak_bytes_per_cycle"])
        assert 0 < lk["busy_cycles"] <= rep["cycles"]
        assert lk["hidden_cycles"] + lk["exposed_cycles"] <= lk["busy_cycles"]
        assert lk["achieved_bytes_per_cycle"] == pytest.approx(lk["bytes"] / rep["cycles"])
    assert rep["hierarchical_roofline_bound"] == "dram->glb"
    assert rep["hierarchical_roofline_cycles"] == links[0]["ceiling_cycles"]
    # the engines of both links together are the report's DMA busy time (union)
    assert max(lk["busy_cycles"] for lk in links) <= rep["dma_busy_cycles"] <= sum(
        lk["busy_cycles"] for lk in links)


def test_three_level_text_report_shows_levels_and_links(capsys):
    code = main(["run", SCALE3, "--target", "sim", "--config", "three_level", "--as-is"])
    out = capsys.readouterr().out
    assert code == 0
    assert "level  space" in out and "glb->spad" in out
    assert "hierarchical roofline 64 cycles, bound by dram->glb" in out


def test_lanes_per_link_engine_and_level_port(tmp_path):
    cfg = load_config("three_level")
    units = expected_units(cfg)
    assert {"dma[dram->glb]0", "dma[dram->glb]1", "dma[glb->spad]0", "dma[glb->spad]1",
            "port.glb.0", "port.glb.1", "dram.ch0", "dram.ch1"} <= set(units)
    assert not any(u.startswith("port.spad") for u in units)  # no link below the spad
    res = simulate(parse_file(SCALE3), cfg, func="scale3")
    data = to_chrome_trace(res.trace, cfg.clock_ghz, units)
    names = {e["args"]["name"] for e in data["traceEvents"] if e.get("name") == "thread_name"}
    assert set(units) <= names
    procs = {e["args"]["name"] for e in data["traceEvents"] if e.get("name") == "process_name"}
    assert "memory level ports" in procs
    from plots.timeline import plot_timeline

    plot = plot_timeline(res.trace, tmp_path / "t.png", config=cfg)
    assert set(units) <= set(plot.lanes)
    assert plot.lane_bars("port.glb.0") and plot.lane_bars("dma[glb->spad]0")
