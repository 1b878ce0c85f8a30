"""User-defined SimPy units on the DRAM link (`accelsim.hw.units`): the compression engine of
docs/concepts/extending.md, taken from that page and run inside real simulations of a compiled
memory-bound kernel."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest

import workloads
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.config import load_config
from accelsim.errors import ConfigError
from accelsim.hw.units import LinkUnit, Unit
from accelsim.report.figures import Report
from accelsim.sim.options import SimOptions
from accelsim.sim.simulate import simulate

DOC = Path(__file__).resolve().parents[3] / "docs" / "concepts" / "extending.md"


def _doc_unit() -> type:
    """The first Python block of the page: the `CompressionEngine` class."""
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)[0]
    ns: dict[str, object] = {}
    exec(compile(code, str(DOC), "exec"), ns)
    return ns["CompressionEngine"]  # type: ignore[return-value]


@pytest.fixture(scope="module")
def program():  # type: ignore[no-untyped-def]
    cfg = load_config("default")
    mod = workloads.get("vector_add").module()
    compile_for_accelerator(cfg, mod, None)
    return cfg, mod


def _dram(res):  # type: ignore[no-untyped-def]
    """(busy cycles of each DRAM channel, bytes moved on DRAM)."""
    recs = [r for r in res.trace.records if r.unit.startswith("dram")]
    busy = {}
    for r in recs:
        busy[r.unit] = busy.get(r.unit, 0) + r.end - r.start
    return busy, sum(r.bytes for r in recs)


def test_a_unit_that_changes_nothing_changes_no_cycle(program):  # type: ignore[no-untyped-def]
    cfg, mod = program
    plain = simulate(mod, cfg, functional=False)
    same = simulate(mod, cfg, functional=False, units=[LinkUnit()])
    assert same.cycles == plain.cycles
    key = lambda r: (r.unit, r.start, r.end, r.kind, r.bytes)
    assert sorted(map(key, same.trace.records)) == sorted(map(key, plain.trace.records))


def test_compression_lowers_dma_time_by_the_predicted_amount(program):  # type: ignore[no-untyped-def]
    cfg, mod = program
    engine_cls = _doc_unit()
    plain = simulate(mod, cfg, functional=False)
    unit = engine_cls(ratio=2.0, bytes_per_cycle=1024, pj_per_byte=0.5)
    packed = simulate(mod, cfg, functional=False, units=[unit])
    busy0, bytes0 = _dram(plain)
    busy1, bytes1 = _dram(packed)
    burst = cfg.dram.burst_bytes
    # every DMA moves its DRAM bytes halved (whole bursts) ...
    assert bytes1 == sum(-(-(r.bytes // 2) // burst) * burst for r in plain.trace.records
                         if r.unit.startswith("dram"))
    assert bytes1 * 2 == bytes0
    # ... so a memory-bound run is shorter by the channel cycles saved (the busiest
    # channel's), give or take the prologue and epilogue, where DRAM waits for the engine
    saved = max(busy0.values()) - max(busy1.values())
    assert saved > 0.45 * plain.cycles
    predicted = plain.cycles - saved
    assert predicted <= packed.cycles <= predicted * 1.005
    # the report: the unit's row (busy = its SimPy timeouts, bytes = payload) and energy
    serves = [r for r in packed.trace.records if r.unit == "compress"]
    assert len(serves) == packed.stats.dma_ops
    rep = Report.build(packed.trace, cfg, packed.stats, cycles=packed.cycles)
    row = rep.unit("compress")
    assert row.busy_cycles == sum(math.ceil(r.bytes / 1024) for r in serves)
    assert row.bytes == sum(r.bytes for r in serves) == unit.energy_pj / 0.5
    assert rep.to_dict()["energy_units_pj"] == unit.energy_pj
    assert "units" in rep.format_table()
    assert "energy_units_pj" not in Report.build(plain.trace, cfg, plain.stats).to_dict()


def test_a_slow_unit_is_a_simpy_resource_bottleneck(program):  # type: ignore[no-untyped-def]
    cfg, mod = program
    unit = _doc_unit()(ratio=1.0, bytes_per_cycle=8)
    res = simulate(mod, cfg, functional=False, units=[unit])
    serves = sorted((r.start, r.end) for r in res.trace.records if r.unit == "compress")
    for (_, e0), (s1, _) in itertools.pairwise(serves):
        assert s1 >= e0  # capacity 1: one DMA at a time
    assert res.cycles >= sum(e - s for s, e in serves)
    assert res.cycles > simulate(mod, cfg, functional=False).cycles


def test_the_summary_run_reports_the_unit_as_the_records_run(program):  # type: ignore[no-untyped-def]
    cfg, mod = program
    cls = _doc_unit()
    full = simulate(mod, cfg, functional=False, units=[cls()])
    summ = simulate(mod, cfg, functional=False, units=[cls()],
                    options=SimOptions(keep_records=False))
    assert summ.cycles == full.cycles
    a = Report.build(full.trace, cfg, full.stats).unit("compress")
    b = Report.build(summ.trace, cfg, summ.stats).unit("compress")
    assert (a.busy_cycles, a.bytes, a.intervals) == (b.busy_cycles, b.bytes, b.intervals)


def test_functional_results_are_unchanged(program):  # type: ignore[no-untyped-def]
    cfg, _ = program
    w = workloads.get("vector_add:N=4096")
    mod = w.module()
    compile_for_accelerator(cfg, mod, None)
    inputs = w.random_inputs()
    plain = simulate(mod, cfg, inputs)
    packed = simulate(mod, cfg, inputs, units=[_doc_unit()(bytes_per_cycle=16)])
    assert packed.outputs is not None and plain.outputs is not None
    for k, v in w.reference(inputs).items():
        assert (packed.outputs[k] == v).all() and (plain.outputs[k] == v).all()
    assert packed.cycles != plain.cycles


class _Vector(Unit):
    name = "vec"


@pytest.mark.parametrize("units, message", [
    ([_Vector()], "LinkUnit subclasses"),
    ([LinkUnit(), LinkUnit()], "at most one"),
    ([type("U", (LinkUnit,), {"name": "dma_x"})()], "must be non-empty and not start with"),
])
def test_units_the_machine_cannot_run_are_config_errors(program, units, message):  # type: ignore[no-untyped-def]
    cfg, mod = program
    with pytest.raises(ConfigError, match=message):
        simulate(mod, cfg, functional=False, units=units)


def test_units_refuse_the_dram_timing_model(program):  # type: ignore[no-untyped-def]
    cfg, mod = program
    timed = cfg.with_overrides({"dram.model": "timing"})
    with pytest.raises(ConfigError, match="bandwidth model"):
        simulate(mod, timed, functional=False, units=[LinkUnit()])
