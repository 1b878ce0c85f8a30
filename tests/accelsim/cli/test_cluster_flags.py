"""`accelsim run --target sim` flags on a machine of several clusters: --fidelity both (the
divergence of the barrier-aware estimate), --timeline and --trace work; --as-is, pass flags,
--compare and --roofline are refused with the reason, a non-zero exit and no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from accelsim.cli import main

SPEC = "gemm:M=32,N=32,K=16"
BASE = ["run", SPEC, "--target", "sim", "--config", "cluster4"]


def test_fidelity_both_gives_the_divergence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--set", "interconnect.kind=mesh", "--fidelity", "both", "--json",
                 "--check"]) == 0
    f = json.loads(capsys.readouterr().out)
    assert f["fidelity"] == "both" and f["event_cycles"] == f["cycles"]
    assert f["divergence"] == pytest.approx(f["analytic_cycles"] / f["cycles"] - 1)
    assert len(f["clusters"]) == 4


def test_timeline_and_trace_with_clusters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png, trace = tmp_path / "t.png", tmp_path / "t.json"
    assert main([*BASE, "--timeline", str(png), "--trace", str(trace), "--check"]) == 0
    out = capsys.readouterr().out
    assert "clusters: 4" in out and "phase(s) between barriers" in out
    assert png.stat().st_size > 0
    procs = {e["args"]["name"] for e in json.loads(trace.read_text())["traceEvents"]
             if e.get("name") == "process_name"}
    assert {f"cluster {k}" for k in range(4)} <= procs


def test_report_names_a_nest_on_cluster_0(capsys: pytest.CaptureFixture[str]) -> None:
    """atax's second nest (y += A^T tmp) reduces over the rows in its outer loop: it is not
    spread and runs whole on cluster 0, and the report says so (text and --json); gemm's
    report has no such line. (`block`: at this size `auto` runs both nests on one cluster.)"""
    atax = ["run", "atax:M=8,N=8", "--target", "sim", "--config", "cluster4", "--distribution", "block"]
    assert main([*atax, "--check"]) == 0
    out = capsys.readouterr().out
    assert "on cluster 0 only:" in out and "runs whole on cluster 0" in out
    assert main([*atax, "--json"]) == 0
    f = json.loads(capsys.readouterr().out)
    assert len(f["serial_nests"]) == 1 and "not parallel" in f["serial_nests"][0]
    assert main([*BASE, "--check"]) == 0
    assert "on cluster 0 only" not in capsys.readouterr().out


@pytest.mark.parametrize("flags,message", [
    (["--as-is"], "--as-is with clusters = 4: every cluster needs its own share"),
    (["--affine-loop-tile=tile-size=8"], "pass flags with clusters = 4: each cluster's program"),
    (["--compare", "default", "no-pipeline"], "--compare with clusters = 4: --compare sets two"),
    (["--roofline", "r.png"], "--roofline with clusters = 4: the plot is one cluster's roofline"),
    (["--fidelity", "analytic", "--trace", "x.json"], "--trace needs the event fidelity"),
])
def test_refused_flags_are_clear_errors(flags: list[str], message: str, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "accelsim", *BASE, *flags], cwd=tmp_path,
                          capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(Path(__file__).resolve().parents[3]),
                               "PATH": "/usr/bin:/bin"})
    assert proc.returncode != 0
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert "--set clusters=1" in proc.stderr or "event fidelity" in proc.stderr
