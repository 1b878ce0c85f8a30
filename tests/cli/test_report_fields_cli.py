"""Report figures the issue found missing or ambiguous (issue 34): a many-cluster run carries
the one-cluster figures (roofline, DRAM bytes, energy) in text and --json, equal to the DSE
row's; utilization is reported as array busy time and as MAC utilization; the analytic
fidelity gives more than cycles, for a kernel and a network; a network whose layer fails
reports the layers that finished."""

from __future__ import annotations

import json

import pytest

from accelsim.cli import main
from accelsim.dse.evaluate import evaluate_point
from accelsim.dse.spec import Point

GEMM = "gemm:M=64,N=64,K=64"


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def _json(capsys, *argv) -> dict:
    status, out, err = _run(capsys, *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def test_a_cluster_run_has_the_figures_of_its_dse_row(capsys):
    d = _json(capsys, "run", GEMM, "--config", "cluster4", "--timing-only")
    row = evaluate_point(Point(GEMM, config="cluster4", compiler=(("tile_sizes", "search"),),
                               fidelity="event"))
    for key in ("roofline_ratio", "roofline_cycles", "dram_bytes", "energy_pj", "compulsory_bytes",
                "mac_utilization", "array_busy_fraction"):
        assert d[key] is not None and row[key] is not None, key
        assert d[key] == pytest.approx(row[key]), key
    assert d["dram_bytes"] == d["dram_bytes_read"] + d["dram_bytes_written"] + d["dram_bytes_copied"]
    assert d["roofline_ratio"] == pytest.approx(d["cycles"] / d["roofline_cycles"])
    assert d["mac_utilization"] == pytest.approx(d["macs"] / (d["cycles"] * 4 * 16 * 16))


def test_a_cluster_text_report_has_roofline_energy_and_both_utilizations(capsys):
    status, out, err = _run(capsys, "run", GEMM, "--config", "cluster4", "--timing-only")
    assert status == 0, err
    d = _json(capsys, "run", GEMM, "--config", "cluster4", "--timing-only")
    assert f"roofline   {d['roofline_cycles']:,} cycles" in out
    assert f"run is {d['roofline_ratio']:.3f}x the roofline" in out
    assert f"energy     {d['energy_pj'] / 1e6:,.4g} uJ" in out
    assert f"array busy {d['array_busy_fraction']:.1%}" in out
    assert f"MAC utilization {d['mac_utilization']:.1%}" in out


def test_busy_time_and_mac_utilization_are_two_figures(capsys):
    # a narrow GEMM keeps the 16x16 array busy with few of its PEs used
    spec = "gemm:M=64,N=4,K=64"
    d = _json(capsys, "run", spec, "--target", "sim", "--timing-only")
    assert d["array_busy_fraction"] == d["compute_utilization"]
    assert d["mac_utilization"] == pytest.approx(d["macs"] / (d["cycles"] * 256))
    assert d["mac_utilization"] < d["array_busy_fraction"] / 2
    _, out, _ = _run(capsys, "run", spec, "--target", "sim", "--timing-only")
    assert (f"(array busy {d['array_busy_fraction']:.1%}; MAC utilization "
            f"{d['mac_utilization']:.1%})") in out


def test_the_analytic_fidelity_gives_roofline_dram_bytes_and_energy(capsys):
    event = _json(capsys, "run", GEMM, "--target", "sim", "--timing-only")
    d = _json(capsys, "run", GEMM, "--fidelity", "analytic")
    assert d["fidelity"] == "analytic"
    assert d["roofline_cycles"] == event["roofline_cycles"]  # the same honest roofline
    assert d["roofline_ratio"] == pytest.approx(d["cycles"] / d["roofline_cycles"])
    assert d["dram_bytes"] > 0 and d["macs"] == event["macs"]
    e = d["energy_compute_pj"]
    assert e == pytest.approx(event["energy_compute_pj"])
    # the estimate's own counts (AnalyticResult.energy): SRAM bytes counted as well
    assert d["energy_sram_pj"] > 0 and "SRAM" in d["energy_basis"]
    assert d["energy_pj"] == pytest.approx(d["energy_dram_pj"] + d["energy_sram_pj"] + e
                                           + d["energy_static_pj"])


def _layers(tmp_path):
    path = tmp_path / "net.layers"
    path.write_text("a  vector_add:N=64\nb  gemm:M=16,N=16,K=16\nc  relu:N=256\n"
                    "d  vector_add:N=128\n")
    return path


def test_a_network_at_the_analytic_fidelity_gives_more_than_cycles(capsys, tmp_path):
    d = _json(capsys, "run", str(_layers(tmp_path)), "--fidelity", "analytic", "--workers", "0")
    assert d["fidelity"] == "analytic" and d["target"] == "sim"
    for key in ("dram_bytes", "energy_pj", "roofline_cycles", "roofline_ratio", "mac_utilization"):
        assert d[key] is not None, key
        assert all(layer[key] is not None for layer in d["layers"]), key
    assert d["dram_bytes"] == sum(layer["dram_bytes"] for layer in d["layers"])


def _fail_on(name, monkeypatch):
    import accelsim.dse.evaluate as ev
    from accelsim.errors import InputError

    real = ev.evaluate_point

    def evaluate(point):
        if point.workload.startswith(name):
            raise InputError(f"{point.workload}: refused for the test")
        return real(point)

    for attr in ("group_key", "confirm", "preload"):
        setattr(evaluate, attr, getattr(real, attr))
    monkeypatch.setattr(ev, "evaluate_point", evaluate)


def test_a_failed_layer_is_named_and_the_finished_ones_reported(capsys, tmp_path, monkeypatch):
    _fail_on("relu", monkeypatch)
    net, csv = _layers(tmp_path), tmp_path / "out.csv"
    status, out, err = _run(capsys, "run", str(net), "--timing-only", "--workers", "0",
                            "--csv", str(csv))
    assert status == 1
    assert "layer 3 of 4, 'c' (kernel relu:N=256" in err and "refused for the test" in err
    assert "2 layers before it" in err
    assert f"{net}:3:" in err  # located at the layer's line
    lines = out.splitlines()
    assert [ln.split()[0] for ln in lines[3:5]] == ["a", "b"] and "stopped at layer 3 (c)" in out
    assert [row.split(",")[0] for row in csv.read_text().splitlines()[1:]] == ["a", "b"]
    status, out, err = _run(capsys, "run", str(net), "--timing-only", "--workers", "0", "--json")
    assert status == 1 and "failed" in err
    d = json.loads(out)
    assert [layer["name"] for layer in d["layers"]] == ["a", "b"] and d["complete"] is False
    assert d["failed_layer"]["name"] == "c" and d["failed_layer"]["index"] == 3
    assert d["cycles"] == sum(layer["cycles"] for layer in d["layers"]) > 0


def test_a_failed_layer_of_a_model_with_data_names_it_and_the_finished_ones(capsys, tmp_path,
                                                                            monkeypatch):
    import sys
    from pathlib import Path

    import accelsim.network.functional as fn
    from accelsim.errors import InputError

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "accelsim" / "network"))
    try:
        import onnx_models
    finally:
        sys.path.pop(0)
    model = onnx_models.save(onnx_models.convnet(), tmp_path / "convnet.onnx")
    real, calls = fn._Runner.run, []

    def run(self, spec, arrays):
        calls.append(spec)
        if len(calls) == 3:
            raise InputError(f"{spec}: refused for the test")
        return real(self, spec, arrays)

    monkeypatch.setattr(fn._Runner, "run", run)
    status, out, err = _run(capsys, "run", str(model), "--target", "host", "--json")
    assert status == 1 and "refused for the test" in err
    d = json.loads(out)
    assert d["complete"] is False and d["failed_layer"]["index"] == len(d["layers"]) + 1
    assert len(d["layers"]) >= 1 and f"'{d['failed_layer']['name']}' failed" in err


def test_every_report_names_the_energy_table_a_partial_energy_section_falls_back_on(capsys,
                                                                                    tmp_path):
    from accelsim.config import load_config
    from accelsim.cost.energy import technology_of

    chip = tmp_path / "chip.toml"
    chip.write_text("clock_ghz = 1.0\n[energy]\ndram_pj_per_byte = 100.0\n")  # the rest omitted
    name = technology_of(load_config(str(chip)))
    assert name == "horowitz45"
    for extra in ([], ["--fidelity", "analytic"], ["--set", "clusters=4"]):
        d = _json(capsys, "run", GEMM, "--config", str(chip), "--timing-only", *extra)
        assert d["energy_technology"] == name and d["energy_dram_pj"] > 0, extra
        status, out, _ = _run(capsys, "run", GEMM, "--config", str(chip), "--timing-only", *extra)
        assert status == 0
        energy_line = next(ln for ln in out.splitlines() if ln.strip().startswith("energy "))
        assert f"{name} table" in energy_line, extra


def test_a_cluster_estimate_has_dram_bytes_and_energy_near_the_event_run(capsys):
    event = _json(capsys, "run", GEMM, "--config", "cluster4", "--timing-only")
    est = _json(capsys, "run", GEMM, "--config", "cluster4", "--fidelity", "analytic")
    assert est["fidelity"] == "analytic"
    assert est["dram_bytes"] > 0 and est["energy_pj"] > 0 and est["energy_sram_pj"] > 0
    assert est["traffic_ratio"] == pytest.approx(est["dram_bytes"] / est["compulsory_bytes"])
    assert est["dram_bytes"] == pytest.approx(event["dram_bytes"], rel=0.25)
    assert est["energy_pj"] == pytest.approx(event["energy_pj"], rel=0.25)
