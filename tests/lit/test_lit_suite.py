"""Runs the lit + FileCheck suite (tests/lit/**.mlir) so `pytest` (= `make test`) covers it;
a failing lit test fails here with lit's own report."""

from __future__ import annotations

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent


def test_lit_suite_passes() -> None:
    proc = subprocess.run([sys.executable, "-c", "import lit.main; lit.main.main()", "-v", str(HERE)],
                          capture_output=True, text=True, timeout=900, check=False)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert "Passed" in report or "PASS" in report, report
