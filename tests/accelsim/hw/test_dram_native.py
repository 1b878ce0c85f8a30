"""The C fast path of the DRAM channel controller (accelsim/hw/dram_kernel.c) against the
Python reference (accelsim/hw/dram_controller.py): random request streams served identically
(every end, the bus, the queue, the counters), whole runs identical per technology, and the
fallback (ACCELSIM_DRAM_NATIVE=0, a failing compiler) runs the reference."""

from __future__ import annotations

import random

import pytest

import workloads
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.config import load_config
from accelsim.cost.dram_timing import DramTiming, Pattern
from accelsim.hw import dram_native
from accelsim.hw.dram_controller import ChannelController
from accelsim.sim.options import SimOptions
from accelsim.sim.simulate import simulate

TECHS = ("DDR4-3200", "LPDDR5-6400", "HBM2e")
LIB = dram_native.library()
needs_cc = pytest.mark.skipif(LIB is None, reason="no C compiler: the reference alone runs")


def timing(tech: str, **over: object) -> DramTiming:
    o: dict[str, object] = {"dram.model": "timing", "dram.technology": tech}
    o.update({f"dram.{k}": v for k, v in over.items()})
    return DramTiming.for_config(load_config("default").with_overrides(o))


def state(c: object) -> tuple[object, ...]:
    return tuple(getattr(c, k) for k in ("bus", "pending", "hits", "misses", "conflicts",
                                         "refreshes"))


@needs_cc
@pytest.mark.parametrize("seed", range(150))
def test_random_streams_are_served_as_the_reference_serves_them(seed: int) -> None:
    rng = random.Random(seed)
    tech = TECHS[seed % 3]
    over: dict[str, object] = {}
    if seed % 5 == 0:
        over["page_policy"] = "closed"
    if seed % 7 == 0:
        over.update(read_queue=rng.choice((1, 4, 16)), write_queue=24, write_high_watermark=12,
                    write_low_watermark=rng.choice((0, 4)))
    t = timing(tech, **over)
    ref, nat = ChannelController(t), dram_native.NativeController(t, LIB)
    now = 0.0
    span = t.bursts_per_row * t.banks * min(t.rows, 64) * t.channels
    for _ in range(rng.randint(5, 40)):
        n = rng.randint(1, 24)
        stride = rng.choice((t.burst_bytes, 256, 4096, rng.randrange(1, 9000)))
        chunk = rng.randint(1, 4 * t.burst_bytes)
        p = Pattern(rng.randrange(span) * t.burst_bytes, chunk, stride, n, rng.randint(1, chunk))
        reqs = t.requests(p)[0]
        write = rng.random() < 0.4
        now += rng.choice((0.0, rng.uniform(0, 400), rng.uniform(0, 3 * t.tREFI)))
        a, b = ref.access(reqs, now, write), nat.access(reqs, now, write)
        assert a == b
        assert state(ref) == state(nat)
    assert ref.hits + ref.misses + ref.conflicts > 0


def run(tech: str) -> tuple[object, ...]:
    cfg = load_config("default").with_overrides({"dram.model": "timing", "dram.technology": tech})
    mod = workloads.get("gemm:M=128,N=128,K=128").module()
    compile_for_accelerator(cfg, mod, None)
    r = simulate(mod, cfg, functional=False, options=SimOptions(keep_records=True))
    recs = tuple((x.unit, x.start, x.end, x.bytes) for x in r.trace.records
                 if x.unit.startswith("dram"))
    return r.cycles, recs


@needs_cc
@pytest.mark.parametrize("tech", TECHS)
def test_whole_runs_equal_the_reference(tech: str, monkeypatch: pytest.MonkeyPatch) -> None:
    native = run(tech)
    monkeypatch.setenv("ACCELSIM_DRAM_NATIVE", "0")
    python = run(tech)
    assert native == python and len(native[1]) > 40


def test_native_off_uses_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACCELSIM_DRAM_NATIVE", "0")
    assert isinstance(dram_native.controller(timing("HBM2e")), ChannelController)


def test_a_failing_compiler_falls_back_with_one_warning_line(
        monkeypatch: pytest.MonkeyPatch, tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ACCELSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CC", "false")
    monkeypatch.setattr(dram_native, "_tried", False)
    monkeypatch.setattr(dram_native, "_lib", None)
    assert dram_native.library() is None
    assert isinstance(dram_native.controller(timing("DDR4-3200")), ChannelController)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning: the DRAM kernel did not build" in err
    assert not list(tmp_path.iterdir())  # no half-written library left behind


@needs_cc
def test_the_build_lands_in_the_cache_dir_by_source_hash(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ACCELSIM_CACHE_DIR", str(tmp_path))
    path = dram_native._build()
    assert path is not None and path.parent == tmp_path and path.name.startswith("dram_kernel-")
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # the temporary file renamed
