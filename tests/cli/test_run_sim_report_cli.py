"""`accelsim run ... --target sim`: the report table by default, the rows in --json, figures and
the Perfetto trace written, `--compare A B` side by side, and clean errors."""

from __future__ import annotations

import json

from accelsim.cli import main
from accelsim.report.chrome_trace import busy_cycles_from_chrome

SPEC = "gemm:M=32,N=24,K=16"
SIDE = ("affine-data-copy-generate=generate-dma fast-mem-space=1 slow-mem-space=0 tag-mem-space=2 "
        "fast-mem-capacity=2")


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_default_output_is_the_report_table_and_files_are_written(capsys, tmp_path):
    tl, roof, trace = tmp_path / "t.png", tmp_path / "r.svg", tmp_path / "t.json"
    status, out, err = _run(capsys, "run", SPEC, "--target", "sim", "--timing-only",
                            "--timeline", str(tl), "--roofline", str(roof), "--trace", str(trace),
                            "--window", "0:")
    assert status == 0, err
    for fragment in ("roofline", "SRAM peak", "hidden", "exposed", "dma_start at", "compute0",
                     "dram.ch1", f"wrote {tl}", f"wrote {trace}"):
        assert fragment in out
    assert tl.read_bytes()[:4] == b"\x89PNG" and roof.read_text().lstrip().startswith("<?xml")
    data = json.loads(trace.read_text())
    assert any(e["ph"] == "X" for e in data["traceEvents"])


def test_json_has_the_figures_and_the_rows_consistent_with_the_trace(capsys, tmp_path):
    trace = tmp_path / "t.json"
    status, out, err = _run(capsys, "run", SPEC, "--target", "sim", "--json", "--trace", str(trace))
    assert status == 0, err
    d = json.loads(out)
    for k in ("cycles", "dram_bytes_read", "overlap_fraction", "roofline_ratio", "energy_pj",
              "energy_static_pj", "units", "buffers"):
        assert k in d
    busy = busy_cycles_from_chrome(json.loads(trace.read_text()), d["clock_ghz"])
    assert busy == {u["unit"]: u["busy_cycles"] for u in d["units"]}


def test_compare_prints_both_with_ratios(capsys):
    status, out, err = _run(capsys, "run", SPEC, "--target", "sim", "--timing-only",
                            "--compare", SIDE, SIDE + " affine-pipeline-data-transfer")
    assert status == 0, err
    cycles = next(line for line in out.splitlines() if line.strip().startswith("cycles"))
    a, b, ratio = cycles.split()[1:4]
    a, b = int(a.replace(",", "")), int(b.replace(",", ""))
    assert ratio == f"{b / a:.3f}x"
    status, out, err = _run(capsys, "run", SPEC, "--target", "sim", "--timing-only", "--json",
                            "--compare", "as-is", SIDE)
    assert status == 0, err
    c = json.loads(out)["compare"]
    assert (c["A"]["side"], c["B"]["side"]) == ("as-is", SIDE)
    assert c["A"]["pipeline"] == [] and len(c["B"]["pipeline"]) == 1
    assert c["ratios"]["cycles"] == c["B"]["cycles"] / c["A"]["cycles"]


def test_compare_default_uses_the_same_tiles_as_target_sim(capsys):
    """"default" and "no-pipeline" tile for the machine like `--target sim` does, so the two
    sides differ only in the pipelining pass."""
    import workloads
    from accelsim.compile.accelerator import accelerator_pipeline
    from accelsim.config import load_config

    spec = "gemm:M=128,N=96,K=64"
    status, out, err = _run(capsys, "run", spec, "--target", "sim", "--timing-only", "--json",
                            "--compare", "no-pipeline", "default")
    assert status == 0, err
    c = json.loads(out)["compare"]
    want = accelerator_pipeline(load_config("default"), workloads.get(spec).module()).flags()
    assert want[0].startswith("--affine-producer-consumer-fusion")
    assert want[1] == "--affine-sibling-fusion"
    assert want[2].startswith("--affine-loop-tile=tile-sizes=")
    assert c["B"]["pipeline"] == want
    assert c["A"]["pipeline"] == [f for f in want if "pipeline-data-transfer" not in f]
    status, out, err = _run(capsys, "run", spec, "--target", "sim", "--timing-only", "--json")
    assert json.loads(out)["cycles"] == c["B"]["cycles"] < c["A"]["cycles"]


def test_bad_window_and_bad_compare_side_are_clean_errors(capsys, tmp_path):
    status, _, err = _run(capsys, "run", SPEC, "--target", "sim", "--timing-only", "--timeline",
                          str(tmp_path / "t.png"), "--window", "50:10")
    assert status == 1 and "--window '50:10'" in err and "START < END" in err
    status, _, err = _run(capsys, "run", SPEC, "--target", "sim", "--compare", "as-is", "fastest")
    assert status == 1 and "not a pass: --fastest" in err


def test_figures_need_an_event_run(capsys, tmp_path):
    status, _, err = _run(capsys, "run", SPEC, "--target", "sim", "--fidelity", "analytic",
                          "--trace", str(tmp_path / "t.json"))
    assert status == 1 and "--trace need(s) a trace" in err
    assert not (tmp_path / "t.json").exists()


def test_compare_of_one_pipeline_with_itself_writes_two_files(capsys, tmp_path):
    tl = tmp_path / "t.svg"
    status, out, err = _run(capsys, "run", SPEC, "--target", "sim", "--timing-only", "--compare",
                            "as-is", "as-is", "--timeline", str(tl))
    assert status == 0, err
    assert "same number of cycles" in out
    assert (tmp_path / "t-A.svg").exists() and (tmp_path / "t-B.svg").exists()
