"""`accelsim run ... --fidelity both`: event and analytic in one run, `divergence`
(analytic/event - 1) in --json and in the report, per run and per DMA group."""

from __future__ import annotations

import json
from pathlib import Path

from accelsim.cli import main

SPEC = "gemm:M=128,N=128,K=128"


def _timing_config(tmp: Path) -> str:
    text = Path("accelsim/presets/default.toml").read_text()
    assert 'model = "bandwidth"' in text
    text = text.replace('model = "bandwidth"', 'model = "timing"\ntechnology = "LPDDR5-6400"', 1)
    path = tmp / "lp5.toml"
    path.write_text(text)
    return str(path)


def test_json_has_divergence_per_run_and_per_group(capsys, tmp_path):
    status = main(["run", SPEC, "--target", "sim", "--timing-only", "--fidelity", "both",
                   "--config", _timing_config(tmp_path), "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)
    assert d["fidelity"] == "both"
    assert d["divergence"] == d["analytic_cycles"] / d["event_cycles"] - 1
    assert d["event_cycles"] == d["cycles"]
    assert d["divergence"] != 0.0  # the timing model has dynamics the closed form lacks
    groups = d["dma_groups"]
    assert {g["buffer"] for g in groups} == {b["buffer"] for b in d["buffers"]}
    for g in groups:
        assert g["divergence"] == g["analytic_dma_cycles"] / g["event_dma_cycles"] - 1


def test_report_shows_the_divergence(capsys, tmp_path):
    status = main(["run", SPEC, "--target", "sim", "--timing-only", "--fidelity", "both",
                   "--config", _timing_config(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "divergence" in out and "(analytic/event - 1)" in out


def test_bandwidth_model_both_fidelities_agree(capsys):
    status = main(["run", SPEC, "--target", "sim", "--timing-only", "--fidelity", "both", "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert json.loads(out)["divergence"] == 0.0
