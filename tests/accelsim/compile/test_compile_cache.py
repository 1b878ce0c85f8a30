"""The content-keyed compile cache (issue 28): a sweep's points reuse the compiler work their
hardware does not change, and get exactly the figures they get without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import workloads
from accelsim.compile import compile_cache
from accelsim.config import load_config
from accelsim.dse.evaluate import evaluate_point
from accelsim.dse.spec import Point
from compiler.text.printer import print_module
from compiler.transforms.registry import PassManager

CONV = "conv2d:N=1,C=64,H=58,W=58,K=64,R=3,S=3,stride=1"   # a ResNet layer (3 finalists)
GEMM = "gemm:M=64,N=3136,K=64"                              # a ResNet 1x1 layer as a gemm


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ACCELSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ACCELSIM_COMPILE_CACHE", raising=False)
    compile_cache.clear_memory()
    yield tmp_path
    compile_cache.clear_memory()


def _passes() -> list[Any]:
    from accelsim.compile.pipeline import AcceleratorPipeline

    return AcceleratorPipeline.for_config(load_config("default")).passes()


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    runs: list[int] = []
    real = PassManager.run

    def run(self: Any, module: Any) -> Any:
        runs.append(1)
        return real(self, module)

    monkeypatch.setattr(PassManager, "run", run)
    return runs


def test_a_pass_list_runs_once_per_content_in_memory_and_on_disk(cache_dir: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pm = PassManager(_passes())
    plain = workloads.get(GEMM).module()
    pm.run(plain)
    want = (print_module(plain, debug_locs=True), [str(r) for r in pm.remarks])
    runs = _counting(monkeypatch)
    got = []
    for fresh_process in (False, False, True):
        if fresh_process:
            compile_cache.clear_memory()   # only the disk entry is left
        m = workloads.get(GEMM).module()
        with compile_cache.enabled():
            remarks = compile_cache.run_passes(m, _passes())
        got.append((print_module(m, debug_locs=True), [str(r) for r in remarks]))
    assert len(runs) == 1                   # computed once, then from memory, then from disk
    assert got == [want] * 3
    assert any(cache_dir.rglob("*")), "the entry is on disk"


def test_inactive_or_disabled_caches_keep_nothing(cache_dir: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _counting(monkeypatch)
    for _ in range(2):   # not inside `enabled()`: computed every time
        compile_cache.run_passes(workloads.get(GEMM).module(), _passes())
    assert len(runs) == 2
    monkeypatch.setenv("ACCELSIM_COMPILE_CACHE", "0")   # memory only
    for _ in range(2):
        with compile_cache.enabled():
            compile_cache.run_passes(workloads.get(GEMM).module(), _passes())
    assert len(runs) == 3
    assert not [p for p in cache_dir.rglob("*") if p.is_file()]


def test_another_pass_option_or_another_program_is_another_entry(cache_dir: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from accelsim.compile.pipeline import AcceleratorPipeline

    runs = _counting(monkeypatch)
    base = AcceleratorPipeline.for_config(load_config("default"))
    with compile_cache.enabled():
        for pipe, spec in ((base, GEMM), (base.replace(stages=3), GEMM), (base, "gemm:M=64,N=3136,K=128")):
            compile_cache.run_passes(workloads.get(spec).module(), pipe.passes())
    assert len(runs) == 3


def test_a_damaged_entry_is_computed_again(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with compile_cache.enabled():
        compile_cache.run_passes(workloads.get(GEMM).module(), _passes())
    files = [p for p in cache_dir.rglob("*") if p.is_file()]
    assert files
    for p in files:
        p.write_bytes(b"not a cache entry")
    compile_cache.clear_memory()
    runs = _counting(monkeypatch)
    m = workloads.get(GEMM).module()
    with compile_cache.enabled():
        compile_cache.run_passes(m, _passes())
    assert len(runs) == 1
    ref = workloads.get(GEMM).module()
    PassManager(_passes()).run(ref)
    assert print_module(m) == print_module(ref)


def test_the_race_proof_is_kept_only_for_a_proven_program(cache_dir: Path) -> None:
    from accelsim.compile.accelerator import compile_for_accelerator

    m = workloads.get(GEMM).module()
    compile_for_accelerator(load_config("default"), m)
    with compile_cache.enabled():
        assert not compile_cache.proven_race_free(m)
        compile_cache.record_race_free(m)
        assert compile_cache.proven_race_free(m)
        other = workloads.get(GEMM).module()   # another content: not proven
        assert not compile_cache.proven_race_free(other)
    assert not compile_cache.proven_race_free(m)   # outside a sweep: always proven again


def _point(spec: str, capacity: int, fidelity: str) -> Point:
    return Point(workload=spec, config="default", hardware=(("sram.capacity_kib", capacity),),
                 compiler=(("tile_sizes", "search"),), fidelity=fidelity, functional=False)


@pytest.mark.parametrize("fidelity", ["analytic", "event"])
def test_sweep_points_have_the_figures_of_an_uncached_compile(cache_dir: Path, fidelity: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Points of a sweep over SRAM sizes, cold then from the cache (memory, then disk as a
    new process sees it), against the figures with the cache switched off: equal."""
    from accelsim.dse import evaluate as ev

    def figures(capacity: int) -> dict[str, Any]:
        ev._COMPILED.clear()   # the per-config module cache: every call compiles
        f = dict(evaluate_point(_point(CONV, capacity, fidelity)))
        return {k: v for k, v in f.items() if "wall" not in k}

    caps = (192, 256)
    cached = [figures(c) for c in caps] + [figures(c) for c in caps]
    compile_cache.clear_memory()
    cached += [figures(c) for c in caps]
    monkeypatch.setattr(compile_cache, "active", lambda: False)
    plain = [figures(c) for c in caps]
    assert cached == plain * 3


def test_importing_the_ir_does_not_import_ml_dtypes() -> None:
    code = ("import sys, compiler.ir, compiler.text, workloads, accelsim.compile.accelerator; "
            "assert 'ml_dtypes' not in sys.modules; from compiler.ir.types import BF16; "
            "BF16.numpy_dtype; assert 'ml_dtypes' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_element_type_table_has_one_row_per_type() -> None:
    from compiler.ir.types import ELEMENT_FACTS, ELEMENT_TYPES

    assert list(ELEMENT_FACTS) == list(ELEMENT_TYPES)
    for name, row in ELEMENT_FACTS.items():
        assert row.type is ELEMENT_TYPES[name] and row.type.name == name


def _tiled_passes(sram_kib: int) -> list[Any]:
    """The pipeline of a fixed tiling (tiles, copy capacity) on an SRAM of `sram_kib`: only
    the pipelining pass's capacity differs between SRAM sizes."""
    import dataclasses

    from accelsim.compile.pipeline import AcceleratorPipeline

    cfg = load_config("default").with_overrides({"sram.capacity_kib": sram_kib})
    pipe = AcceleratorPipeline.for_config(cfg).with_tiles((64, 64, 64), 48)
    # only the pipelining pass here (copy forwarding and start hoisting report their ranges
    # too: `test_every_capacity_in_a_passs_range_gives_its_output`)
    return dataclasses.replace(pipe, copy_forward=False, start_hoist=False, copy_stream=False).passes()


def test_a_pipelining_run_holds_for_every_capacity_that_decides_alike(
        cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def uncached(kib: int) -> tuple[str, list[str]]:
        m = workloads.get(GEMM).module()
        pm = PassManager(_tiled_passes(kib))
        pm.run(m)
        return print_module(m, debug_locs=True), [str(r) for r in pm.remarks]

    want = {kib: uncached(kib) for kib in (200, 232, 56, 60)}
    assert want[200] == want[232]   # both fit every buffer: the same decisions
    assert want[56] != want[200]    # less SRAM: another decision (no cross-tile prefetch)
    runs = _counting(monkeypatch)
    counts = []
    for kib in (200, 232, 56, 60):
        m = workloads.get(GEMM).module()
        with compile_cache.enabled():
            remarks = compile_cache.run_passes(m, _tiled_passes(kib))
        assert (print_module(m, debug_locs=True), [str(r) for r in remarks]) == want[kib]
        counts.append(len(runs))
    # 232 is in the range of 200's run; 56 decides otherwise and runs; 60 runs once at most
    assert counts[:3] == [1, 1, 2]
    assert counts[3] in (2, 3)


@pytest.mark.parametrize("spec", ["2mm:NI=40,NJ=48,NK=56,NL=36", "atax", "mvt", "softmax",
                                  "layernorm"])
def test_every_capacity_in_a_passs_range_gives_its_output(spec: str) -> None:
    """Each pass of the accelerator pipeline that reports a `capacity_range` (pipelining, copy
    forwarding, round trips, start hoisting): run again at either end of its range, on the
    same input, it gives the same module and remarks. Capacities from a fifth of the SRAM up,
    so the fast-memory checks decide both ways."""
    import dataclasses
    import math

    from accelsim.compile.clone import clone_module
    from accelsim.compile.pipeline import AcceleratorPipeline

    def text(m: Any, remarks: Any) -> tuple[str, list[str]]:
        return print_module(m, debug_locs=True), [str(r) for r in remarks]

    checked = 0
    for kib in (12, 24, 48, 96, 256):
        cfg = load_config("default").with_overrides({"sram.capacity_kib": kib})
        m = workloads.get(spec).module()
        for step in AcceleratorPipeline.for_config(cfg).passes():
            field = getattr(step, "CAPACITY_OPTION", None)
            if field is None or getattr(step.options, field) is None:
                PassManager([step]).run(m)
                continue
            before = clone_module(m)
            pm = PassManager([step])
            pm.run(m)
            want = text(m, pm.remarks)
            lo, hi = step.capacity_range
            for end in {math.ceil(lo / 1024), min(hi // 1024, 1 << 20)}:
                if end < 0 or end * 1024 < lo or end * 1024 > hi:
                    continue   # no whole KiB in the range but the run's own
                again = type(step)(dataclasses.replace(step.options, **{field: end}))
                other = clone_module(before)
                pm2 = PassManager([again])
                pm2.run(other)
                assert text(other, pm2.remarks) == want, (spec, kib, step.name, end)
                checked += 1
    assert checked
