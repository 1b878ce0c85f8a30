"""`accelsim run NETWORK --target sim`: the JSON promised by issue 18, per-layer figures equal
to running each layer's kernel alone, totals equal to the sums, and the outputs (CSV, layer
timeline, Perfetto trace)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accelsim.cli import main

TOPO = """Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,
c1, 10, 10, 3, 3, 4, 8, 1,
p1, 8, 8, 1, 1, 8, 16, 1,
c2, 10, 10, 3, 3, 4, 8, 1,
"""
LAYER_KEYS = {"name", "cycles", "dram_bytes_read", "dram_bytes_written", "roofline_ratio", "bound"}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


@pytest.fixture
def topo(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.csv"
    path.write_text(TOPO)
    return path


def test_json_layers_equal_their_kernels_run_alone(capsys, topo: Path, tmp_path: Path) -> None:
    status, out, _ = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only", "--json",
                          "--workers", "0", "--schedule", "layer-by-layer")
    assert status == 0
    net = json.loads(out)
    assert [layer["name"] for layer in net["layers"]] == ["c1", "p1", "c2"]
    for layer in net["layers"]:
        assert set(layer) >= LAYER_KEYS
    for key in ("cycles", "energy_pj", "dram_bytes_read", "dram_bytes_written"):
        assert net[key] == pytest.approx(sum(layer[key] for layer in net["layers"]))
    assert net["distinct_kernels"] == 2  # c1 and c2 share a shape
    assert net["layers"][0]["cycles"] == net["layers"][2]["cycles"]
    starts = [layer["start_cycle"] for layer in net["layers"]]
    assert starts == [0, net["layers"][0]["cycles"], net["layers"][0]["cycles"] + net["layers"][1]["cycles"]]
    # each layer = its kernel run alone by `accelsim run SPEC --target sim --timing-only`
    for layer in net["layers"][:2]:
        status, out, _ = _run(capsys, "run", layer["kernels"], "--target", "sim", "--timing-only", "--json")
        alone = json.loads(out)
        for key in ("cycles", "dram_bytes_read", "dram_bytes_written", "roofline_ratio", "energy_pj"):
            assert layer[key] == pytest.approx(alone[key]), key
        assert layer["bound"] == alone["roofline_bound"]
    assert net["layers"][1]["lowering"] == "gemm" and net["layers"][0]["lowering"] == "direct"


def test_text_csv_timeline_and_trace(capsys, topo: Path, tmp_path: Path) -> None:
    csv_path, png, trace = tmp_path / "l.csv", tmp_path / "t.png", tmp_path / "t.json"
    status, out, _ = _run(capsys, "run", str(topo), "--target", "sim", "--workers", "0",
                          "--csv", str(csv_path), "--timeline", str(png), "--trace", str(trace),
                          "--layer", "c1", "--schedule", "layer-by-layer")
    assert status == 0
    assert "network tiny (3 layers, 2 distinct kernels)" in out
    rows = csv_path.read_text().splitlines()
    assert rows[0].startswith("name,op,lowering,start_cycle") and len(rows) == 4
    assert png.stat().st_size > 1000
    assert (tmp_path / "t.c1.png").stat().st_size > 1000  # --layer: c1's engine timeline
    events = json.loads(trace.read_text())["traceEvents"]
    slices = [e for e in events if e["ph"] == "X" and e.get("cat") == "layer"]
    assert [e["name"] for e in slices] == ["c1", "p1", "c2"]
    assert slices[1]["ts"] == pytest.approx(slices[0]["ts"] + slices[0]["dur"])


def test_bad_topology_row_is_one_located_error(capsys, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(TOPO.replace("p1, 8, 8, 1, 1, 8, 16, 1,", "p1, 8, 8, 1, 1, eight, 16, 1,"))
    status, out, err = _run(capsys, "run", str(bad), "--target", "sim")
    assert status == 1 and out == ""
    assert f"{bad}:3:17: error: column 'channels': expected an integer, found 'eight'" in err


def test_networks_lists_the_zoo(capsys) -> None:
    status, out, _ = _run(capsys, "networks", "--json")
    assert status == 0
    names = set(json.loads(out)["networks"])
    assert {"resnet18", "resnet50", "mobilenetv2", "bert_base_layer", "gpt2", "llama2_7b_prefill",
            "llama2_7b_decode"} <= names


def test_kernel_only_options_are_refused(capsys, topo: Path, tmp_path: Path) -> None:
    status, _, err = _run(capsys, "run", str(topo), "--target", "sim", "--func", "main")
    assert status == 1 and "--func: not available for a network run" in err
    png = tmp_path / "x.png"
    status, _, err = _run(capsys, "run", str(topo), "--target", "sim", "--layer", "nosuch", "--timeline",
                          str(png))
    assert status == 1 and "--layer 'nosuch': no such layer in tiny (layers: c1, p1, c2)" in err
    assert not png.exists()  # refused before anything ran


def test_schedule_option(capsys, topo: Path) -> None:
    status, out, _ = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only", "--json",
                          "--workers", "0", "--schedule", "layer-by-layer", "--fidelity", "analytic")
    assert status == 0
    net = json.loads(out)
    assert net["schedule"] == "layer-by-layer" and net["dram_bytes_saved"] == 0
    assert [layer["end_cycle"] for layer in net["layers"]] == \
        [layer["start_cycle"] + layer["cycles"] for layer in net["layers"]]
    status, out, _ = _run(capsys, "run", str(topo), "--target", "sim", "--timing-only",
                          "--workers", "0", "--fidelity", "analytic")
    assert status == 0 and "schedule " in out.splitlines()[0]
    status, _, err = _run(capsys, "run", str(topo), "--target", "sim", "--schedule", "fuse")
    assert status == 2 and "invalid choice: 'fuse'" in err
    status, _, err = _run(capsys, "run", "gemm:M=8,N=8,K=8", "--target", "sim", "--schedule", "fused")
    assert status == 1 and "--schedule fused: for a network INPUT" in err
