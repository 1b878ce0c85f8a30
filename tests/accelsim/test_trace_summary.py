"""A run that keeps only the trace summary (`SimOptions(keep_records=False)`) reports exactly
what the full trace reports: every program of the golden table on every config, the report's
`to_dict()` from the summary equals the one from the records, bit for bit; the same errors
and counters; also with tiny batches (the fold at every watermark) and through the
interpreted control program. Its memory stays bounded: the batch never outgrows its size."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from accelsim import load_config, simulate
from accelsim.errors import InputError
from accelsim.report import Report
from accelsim.sim.options import SimOptions
from accelsim.trace import summary as trace_summary
from compiler.diagnostics import AccelsimError
from compiler.text import parse_module

DATA = Path(__file__).parent / "data" / "sim_golden"
TABLE = json.loads((DATA / "golden.json").read_text())
CONFIGS = {label: (preset, over) for label, preset, over in TABLE["configs"]}
ROWS = [r for r in TABLE["runs"] if not r["functional"]]


@functools.cache
def _config(label: str) -> Any:
    preset, over = CONFIGS[label]
    cfg = load_config(preset)
    return cfg.with_overrides(over) if over else cfg


def _run(row: dict[str, Any], keep: bool, compiled: bool = True) -> tuple[str, dict[str, Any]]:
    fname = TABLE["programs"][row["program"]]
    mod = parse_module((DATA / fname).read_text(), fname)
    try:
        r = simulate(mod, _config(row["config"]), functional=False, compiled=compiled,
                     options=SimOptions(keep_records=keep))
    except AccelsimError as exc:
        return f"{type(exc).__name__}: {exc}", {}
    assert (r.trace.summary is None) == keep
    return "", {"report": Report.from_result(r).to_dict(), "stats": r.stats, "cycles": r.cycles,
                "records": len(r.trace)}


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['program']}-{r['config']}" for r in ROWS])
def test_summary_report_equals_the_full_trace_report(row):
    assert _run(row, keep=False) == _run(row, keep=True)


SMALL = [r for r in ROWS if r["config"] in ("default", "q1") and "error" not in r]


@pytest.mark.parametrize(("batch", "fold"), [(1, 1), (3, 3), (64, 64), (2, 9), (16, 200)])
def test_tiny_batches_fold_at_every_watermark(monkeypatch, batch, fold):
    monkeypatch.setattr(trace_summary.TraceSummary.__init__, "__defaults__", (batch, fold))
    for row in SMALL[::3]:
        assert _run(row, keep=False) == _run(row, keep=True), row["program"]


def test_interpreted_control_program_keeps_the_same_summary(monkeypatch):
    monkeypatch.setattr(trace_summary.TraceSummary.__init__, "__defaults__", (5, 12))
    for row in SMALL[::4]:
        assert _run(row, keep=False, compiled=False) == _run(row, keep=True), row["program"]


def test_summary_batch_stays_bounded_and_records_are_not_readable(monkeypatch):
    from workloads.dma_programs import tiled_gemm

    largest, held = [0], [0]
    real = trace_summary.TraceSummary.flush

    def spy(self, now):  # type: ignore[no-untyped-def]
        largest[0] = max(largest[0], len(self.records))
        real(self, now)
        held[0] = max(held[0], self._held)

    monkeypatch.setattr(trace_summary.TraceSummary, "flush", spy)
    monkeypatch.setattr(trace_summary.TraceSummary.__init__, "__defaults__", (100, 400))
    r = simulate(tiled_gemm(256, 256, 256, 32), "default", functional=False,
                 options=SimOptions(keep_records=False))
    assert len(r.trace) > 2000 and 100 <= largest[0] < 100 + 16  # one op's records at most over
    assert 300 <= held[0] < 400  # arrays held until a fold: bounded too
    assert r.trace.records == [] and r.trace.end == r.cycles
    with pytest.raises(InputError, match="kept no trace records"):
        r.trace.of("dma")
    with pytest.raises(InputError, match="kept no trace records"):
        list(r.trace)


def test_a_record_starting_before_the_watermark_is_refused():
    from accelsim.trace import TraceRecord

    s = trace_summary.TraceSummary(batch=2, fold=1)
    s.records.append(TraceRecord("dma0", 5, 9, "dma", 4, "A->B", "x.mlir:1:1"))
    s.flush(7)
    s.records.append(TraceRecord("dma0", 6, 12, "dma", 4, "A->B", "x.mlir:1:1"))
    with pytest.raises(AssertionError, match="starts at cycle 6, before cycle 7"):
        s.flush(8)


def test_cli_keeps_records_only_when_a_trace_output_is_asked_for(capsys, tmp_path, monkeypatch):
    from accelsim.cli import main
    from accelsim.sim import simulate as simulate_module

    kept: list[bool] = []
    real = simulate_module.Executor

    def spy(*args, **kw):  # type: ignore[no-untyped-def]
        ex = real(*args, **kw)
        kept.append(ex.summary is None)
        return ex

    monkeypatch.setattr(simulate_module, "Executor", spy)
    outs = []
    for extra in ([], ["--trace", str(tmp_path / "t.json")]):
        assert main(["run", "gemm:M=64,N=48,K=32", "--target", "sim", "--timing-only", "--json",
                     *extra]) == 0
        d = json.loads(capsys.readouterr().out)
        outs.append({k: v for k, v in d.items() if k not in ("wall_seconds", "compile_seconds",
                                                             "files")})
    assert kept == [False, True]
    assert outs[0] == outs[1]
