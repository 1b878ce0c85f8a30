"""The C fast path of the DRAM channel controller (accelsim/hw/dram_kernel.c) against the
Python reference (accelsim/hw/dram_controller.py): random request streams served identically
(every end, the bus, the queue, the counters), whole runs identical per technology, and the
fallback (ACCELSIM_DRAM_NATIVE=0, a failing compiler) runs the reference."""

from __future__ import annotations

import random

import pytest

import workloads
from accelsim.compile.accelerator import compile_for_accelerator
from accelsim.config import HardwareConfig, load_config
from accelsim.cost.dram_timing import DramTiming, Pattern
from accelsim.hw import dram_native
from accelsim.hw.dma import Transfer
from accelsim.hw.dram import Dram
from accelsim.hw.dram_controller import ChannelController
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.sim.options import SimOptions
from accelsim.sim.simulate import simulate
from accelsim.trace import Trace

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


def run(tech: str, native: str = "1") -> tuple[object, ...]:
    """cycles and every record of gemm 128^3 on `default` with `tech`; ACCELSIM_DRAM_NATIVE
    set to `native` for the run."""
    cfg = load_config("default").with_overrides({"dram.model": "timing", "dram.technology": tech})
    mod = workloads.get("gemm:M=128,N=128,K=128").module()
    compile_for_accelerator(cfg, mod, None)
    with pytest.MonkeyPatch.context() as m:
        m.setenv("ACCELSIM_DRAM_NATIVE", native)
        r = simulate(mod, cfg, functional=False, options=SimOptions(keep_records=True))
    return r.cycles, tuple(r.trace.records)


@needs_cc
@pytest.mark.parametrize("tech", TECHS)
def test_whole_runs_equal_the_reference(tech: str) -> None:
    native, python = run(tech), run(tech, "0")
    assert native == python
    assert sum(x.unit.startswith("dram") for x in native[1]) > 40


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
    built = dram_native._build()
    assert built is not None
    path, is_ext = built
    assert path.parent == tmp_path and path.name.startswith("dram_kernel-")
    assert is_ext == (EXT is not None)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # the temporary file renamed


@needs_cc
def test_without_python_headers_the_plain_library_builds_and_dram_uses_it(
        monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sysconfig
    monkeypatch.setenv("ACCELSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(sysconfig, "get_paths", lambda: {"include": str(tmp_path / "none")})
    built = dram_native._build()
    assert built is not None and not built[1] and built[0].name.endswith(".so")
    monkeypatch.setattr(dram_native, "_tried", False)
    monkeypatch.setattr(dram_native, "_lib", None)
    monkeypatch.setattr(dram_native, "_ext", None)
    assert dram_native.library() is not None and dram_native.extension() is None
    cfg = load_config("default").with_overrides({"dram.model": "timing"})
    dram = Dram(cfg.dram, Trace(), DramTiming.for_config(cfg))
    assert dram._native is None
    assert all(isinstance(c, dram_native.NativeController) for c in dram.controllers)


# ---- the extension: a DMA's whole DRAM side in one call ----------------------------------------
EXT = dram_native.extension()
needs_ext = pytest.mark.skipif(EXT is None, reason="no Python headers: the ctypes path runs")
MAPPINGS = ("ro:ra:ba:co:bg:ch", "ro:ch:ra:ba:bg:co", "ch:ro:bg:ra:co:ba", "ro:co:ra:ba:bg:ch")


def cfg_timing(tech: str, **over: object) -> HardwareConfig:
    o: dict[str, object] = {"dram.model": "timing", "dram.technology": tech}
    o.update({f"dram.{k}": v for k, v in over.items()})
    return load_config("default").with_overrides(o)


def random_pattern(rng: random.Random, t: DramTiming) -> Pattern:
    bb = t.burst_bytes
    span = t.bursts_per_row * t.banks * t.channels * min(t.rows, 64) * bb
    chunk = rng.choice((bb, 2 * bb, 4 * bb, rng.randint(1, 5 * bb)))
    stride = rng.choice((chunk, 2048, bb * t.bursts_per_row, rng.randrange(1, 9000),
                         t.bursts_per_row * t.banks * t.channels * bb))
    n = rng.choice((1, 2, rng.randint(1, 70)))
    return Pattern(rng.randrange(span) // rng.choice((1, bb)) * rng.choice((1, bb)) % span,
                   chunk, stride, n, rng.randint(0, chunk))


def channels_of(t: DramTiming, records: list | None = None):  # type: ignore[no-untyped-def]
    return dram_native.channels(t, tuple(f"dram.ch{c}" for c in range(t.channels)),
                                [] if records is None else records, Dram._no_addresses)


@needs_ext
@pytest.mark.parametrize("seed", range(60))
def test_the_c_mapping_gives_the_references_requests(seed: int) -> None:
    rng = random.Random(seed)
    over: dict[str, object] = {"address_mapping": MAPPINGS[seed % len(MAPPINGS)],
                               "channels": rng.choice((1, 2, 3, 4))}
    if seed % 3 == 0:
        over["ranks"] = 2
    if seed % 4 == 1:
        over["banks_per_group"] = 3  # no power of two needed anywhere
    t = DramTiming.for_config(cfg_timing(TECHS[seed % 3], **over))
    ch = channels_of(t)
    for _ in range(40):
        p = random_pattern(rng, t)
        assert ch.requests(*p) == t.split(p), p
    assert ch.requests(0, 0, 64, 3, 0) == t.split(Pattern(0, 0, 64, 3, 0))  # no bytes


@needs_ext
def test_the_memo_is_cleared_when_full_and_still_answers() -> None:
    t = DramTiming.for_config(cfg_timing("HBM2e"))
    ch = channels_of(t)
    bb = t.burst_bytes
    for i in range(EXT.MEMO_ENTRIES + 10):
        ch.requests(i * bb, bb, bb, 1, bb)
    entries, _ = ch.memo()
    assert entries == 10
    for i in (0, 5, EXT.MEMO_ENTRIES + 3):
        p = Pattern(i * bb, bb, bb, 1, bb)
        assert ch.requests(*p) == t.split(p)


def python_dram(cfg: HardwareConfig, trace: Trace, monkeypatch: pytest.MonkeyPatch) -> Dram:
    """A `Dram` on the Python reference controllers (`_timed`)."""
    with monkeypatch.context() as m:
        m.setenv("ACCELSIM_DRAM_NATIVE", "0")
        d = Dram(cfg.dram, trace, DramTiming.for_config(cfg))
    assert d._native is None and isinstance(d.controllers[0], ChannelController)
    return d


class SidesTransfer(Transfer):
    """A transfer with the given DRAM sides."""

    __slots__ = ("sides",)

    def dram_patterns(self) -> tuple[tuple[bool, Pattern], ...]:
        return self.sides  # type: ignore[no-any-return]


@needs_ext
@pytest.mark.parametrize("seed", range(60))
def test_reserve_equals_the_reference_dram_for_random_transfers(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(1000 + seed)
    over: dict[str, object] = {"channels": rng.choice((1, 2, 4)),
                               "address_mapping": MAPPINGS[seed % len(MAPPINGS)]}
    if seed % 3 == 1:
        over["ranks"] = 2  # eight bank groups: the choice over groups in a loop, refresh per rank
    if seed % 5 == 0:
        over["page_policy"] = "closed"
    if seed % 7 == 0:
        over.update(read_queue=rng.choice((1, 4, 16)), write_queue=24, write_high_watermark=12,
                    write_low_watermark=rng.choice((0, 4)))
    cfg = cfg_timing(TECHS[seed % 3], **over)
    t = DramTiming.for_config(cfg)
    nat_trace, ref_trace = Trace(), Trace()
    nat, ref = Dram(cfg.dram, nat_trace, t), python_dram(cfg, ref_trace, monkeypatch)
    assert nat._native is not None
    env = SimEnv()
    ready = 0
    for i in range(rng.randint(20, 80)):
        kind = rng.choice(("read", "read", "write", "copy"))
        sides: tuple[tuple[bool, Pattern], ...] = (
            ((False, random_pattern(rng, t)),) if kind == "read"
            else ((True, random_pattern(rng, t)),) if kind == "write"
            else ((False, random_pattern(rng, t)), (True, random_pattern(rng, t))))
        x = SidesTransfer(env, 10, 640, 640, kind, f"x{i}", f"loc{i % 3}")
        x.sides = sides
        ready += rng.choice((0, rng.randint(0, 300), rng.randint(0, 3 * t.tREFI)))
        assert nat.reserve(ready, 640, 10, x) == ref.reserve(ready, 640, 10, x)
    assert nat_trace.records == ref_trace.records and len(ref_trace.records) >= 20
    for c, ctl in enumerate(ref.controllers):
        bus, last_read, last_wdata, pending, hits, misses, conflicts, refreshes = \
            nat._native.stats(c)
        assert (bus, pending, hits, misses, conflicts, refreshes) == (
            ctl.bus, ctl.pending, ctl.hits, ctl.misses, ctl.conflicts, ctl.refreshes)
        assert (last_read, last_wdata) == (ctl.last_read, ctl.last_wdata)


@needs_ext
def test_a_transfer_without_addresses_is_the_same_error_through_c() -> None:
    from accelsim.errors import SimulationError

    cfg = cfg_timing("HBM2e")
    dram = Dram(cfg.dram, Trace(), DramTiming.for_config(cfg))
    assert dram._native is not None and dram.reserve == dram._native.reserve
    xfer = Transfer(SimEnv(), 10, 640, 640, "read", "A->a", "loc")
    with pytest.raises(SimulationError, match="needs the DRAM addresses of transfer A->a "
                                              r"\(640 DRAM bytes\)"):
        dram.reserve(0, 640, 10, xfer)


@needs_cc
@pytest.mark.parametrize("tech", TECHS)
def test_whole_runs_on_the_ctypes_path_equal_the_reference(
        tech: str, monkeypatch: pytest.MonkeyPatch) -> None:
    python = run(tech, "0")
    monkeypatch.setattr(dram_native, "extension", lambda: None)
    assert run(tech) == python
