"""Points whose buffers cannot fit are stored as `infeasible` with the reason, before any
simulation runs: visible in `dse status` and `dse export`, never on a Pareto front, never re-run."""

import re
import time

import pandas as pd
import pytest
import toy_eval

from accelsim.config import load_config
from accelsim.dse import Point, Sweep, load, pareto_front, run_sweep
from accelsim.dse.evaluate import compile_flags, compile_point, evaluate_point
from accelsim.dse.feasibility import InfeasiblePoint, capacity_refusals, check_buffers_fit, check_tiles_fit


def gemm_point(n: int, tiles: str, sram_kib: int, stages: int = 2, fidelity: str = "event") -> Point:
    opts = {"tile_sizes": tiles, "stages": stages}
    return Point(f"gemm:M={n},N={n},K={n}", hardware=(("sram.capacity_kib", sram_kib),),
                 compiler=tuple(sorted(opts.items())), fidelity=fidelity)


def message_of(p: Point) -> str:
    cfg = load_config("default").with_overrides(p.hw)
    with pytest.raises(InfeasiblePoint) as info:
        check_tiles_fit(p, cfg, compile_flags(p.options, cfg))
    return str(info.value)


def test_the_issues_point_is_infeasible_at_once_and_says_why():
    """1 KiB of SRAM with 128^3 tiles on a 128^3 gemm (it simulated for 148 s with copies of
    single elements and was stored as ok)."""
    start = time.perf_counter()
    msg = message_of(gemm_point(128, "128,128,128", 1))
    assert time.perf_counter() - start < 10
    assert re.fullmatch(
        r"tile_sizes=128,128,128 do not fit: one tile of the loop nest at \S+gemm\.py:\d+:\d+ needs "
        r"%C 65,536 B \+ %A 65,536 B \+ %B 65,536 B = 196,608 B, x2 buffers for stages=2 = 393,216 B "
        r"of SRAM; the SRAM holds 1,024 B \(sram\.capacity_kib=1\)", msg), msg


def test_a_sweep_stores_infeasible_points_without_simulating_them(tmp_path, monkeypatch):
    import accelsim.sim.simulate as simulate_module

    def no_simulation(*args, **kwargs):
        raise AssertionError("an infeasible point must not be simulated")

    sweep = Sweep(workloads=["gemm:M=32,N=32,K=32"], fidelity="event",
                  hardware={"sram.capacity_kib": [4, 32]},
                  compiler={"tile_sizes": [[32, 32, 32]], "stages": 2})
    monkeypatch.setattr(simulate_module, "simulate", no_simulation)
    small = [p for p in sweep.points() if p.hw["sram.capacity_kib"] == 4]
    summary = run_sweep(small, tmp_path / "r.sqlite", workers=0, progress=False)
    assert (summary.ran, summary.failed, summary.infeasible) == (1, 0, 1)
    monkeypatch.undo()
    summary = run_sweep(sweep, tmp_path / "r.sqlite", workers=0, progress=False)
    assert (summary.skipped, summary.ran, summary.infeasible) == (1, 1, 0)  # the stored one is not re-run
    df = load(tmp_path / "r.sqlite").set_index("sram.capacity_kib")
    assert df.loc[4, "status"] == "infeasible" and pd.isna(df.loc[4, "cycles"])
    assert df.loc[4, "error"].startswith("tile_sizes=32,32,32 do not fit: one tile of the loop nest at ")
    assert "= 24,576 B of SRAM; the SRAM holds 4,096 B (sram.capacity_kib=4)" in df.loc[4, "error"]
    assert df.loc[32, "status"] == "ok" and df.loc[32, "cycles"] > 0  # 24 KiB fit in 32 KiB


def test_tiles_that_fit_are_not_flagged():
    for p in (gemm_point(128, "32,32,32", 24), gemm_point(32, "16,16,16", 4, stages=1),
              gemm_point(128, "64,64,64", 96), gemm_point(128, "auto", 1), gemm_point(128, "none", 1)):
        cfg = load_config("default").with_overrides(p.hw)
        check_tiles_fit(p, cfg, compile_flags(p.options, cfg))  # raises if flagged


def test_copies_that_would_go_inside_the_tile_are_infeasible():
    """3,584 B per tile x 2 stages fits 7 KiB, but copies given 3 KiB per stage would be made
    row by row inside the tile: the point as given cannot run."""
    p = Point("gemm:M=32,N=32,K=40", hardware=(("sram.capacity_kib", 7),),
              compiler=(("stages", 2), ("tile_sizes", "16,16,20")))
    cfg = load_config("default").with_overrides(p.hw)
    flags = [("affine-loop-tile", "tile-sizes=16,16,20"),
             ("affine-data-copy-generate", "generate-dma fast-mem-space=1 slow-mem-space=0 tag-mem-space=2 "
                                           "fast-mem-capacity=3"),
             ("affine-pipeline-data-transfer", "stages=2 fast-mem-space=1 fast-mem-capacity=7")]
    expected = (r"= 3,584 B, x2 buffers for stages=2 = 7,168 B of SRAM; the SRAM holds 7,168 B "
                r"\(sram.capacity_kib=7\), and the copies get 3,072 B per stage, so they would be placed "
                r"inside the tile")
    with pytest.raises(InfeasiblePoint, match=expected):
        check_tiles_fit(p, cfg, flags)
    roomy = [(n, o.replace("fast-mem-capacity=3", "fast-mem-capacity=4")) for n, o in flags]
    check_tiles_fit(p, cfg, roomy)


def test_compiled_buffers_larger_than_the_sram_are_infeasible():
    import workloads

    p = gemm_point(32, "16,16,16", 64)
    big = load_config("default").with_overrides(p.hw)
    module = compile_point(p, workloads.get(p.workload).module(), big)
    check_buffers_fit(module, big)
    small = load_config("default").with_overrides({"sram.capacity_kib": 4})
    # 64 KiB hold the whole arrays: the copies are hoisted above the tile loops
    expected = (r"the compiled program keeps 12,288 B of SRAM buffers live at once; the SRAM holds "
                r"4,096 B \(sram.capacity_kib=4\); largest buffers: %C_fast memref<32x32xf32, 1> 4,096 B, "
                r"%A_fast")
    with pytest.raises(InfeasiblePoint, match=expected):
        check_buffers_fit(module, small)


def test_the_copy_pass_refusing_for_capacity_is_infeasible():
    import workloads
    from compiler.diagnostics import PassError
    from compiler.transforms import create_pass

    module = workloads.get("gemm:M=8,N=8,K=8").module()
    copy = create_pass("affine-data-copy-generate", "generate-dma fast-mem-space=1 fast-mem-capacity=0")
    expected = (r"the compiler refuses the point: affine-data-copy-generate: the copy buffers for this block "
                r"need 12 bytes of fast memory, 0 bytes")
    with pytest.raises(InfeasiblePoint, match=expected), capacity_refusals():
        copy.run(module)
    with pytest.raises(PassError, match="other"), capacity_refusals():
        raise PassError("some other refusal")


def test_evaluate_point_raises_infeasible_before_compiling_the_point(monkeypatch):
    from accelsim.dse import evaluate

    def no_compile(*args, **kwargs):
        raise AssertionError("an infeasible tile size must be caught before the point is compiled")

    monkeypatch.setattr(evaluate, "compile_point", no_compile)
    evaluate._COMPILED.clear()
    with pytest.raises(InfeasiblePoint, match="tile_sizes=32,32,32 do not fit"):
        evaluate_point(gemm_point(32, "32,32,32", 2, fidelity="analytic"))


def test_status_export_and_pareto_treat_infeasible_points_apart(tmp_path, capsys):
    from accelsim.cli import main

    spec = tmp_path / "s.toml"
    spec.write_text('workloads = ["gemm:M=16,N=16,K=16"]\n[hardware]\nsram.capacity_kib = [32, 64, 128]\n'
                    'dma.engines = [1, 2]\n[compiler]\ntile_sizes = "auto"\nstages = [1, 2]\n')
    db = tmp_path / "s.sqlite"
    assert main(["dse", "run", str(spec), "--db", str(db), "--workers", "0", "--evaluator",
                 "toy_eval:infeasible", "--no-progress"]) == 0
    assert "12 points evaluated (0 failed, 4 infeasible), 0 already stored" in capsys.readouterr().err
    assert main(["dse", "status", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{db}: 12 points, 8 ok, 0 failed, 4 infeasible"
    i = out.index("infeasible points by reason (first line):")
    assert out[i + 1] == "      4  tile buffers need 49,152 B of SRAM; the SRAM holds 32,768 B"

    csv = tmp_path / "s.csv"
    assert main(["dse", "export", str(db), "--csv", str(csv)]) == 0
    back = pd.read_csv(csv)
    bad = back[back["status"] == "infeasible"]
    assert sorted(bad["sram.capacity_kib"]) == [32] * 4 and bad["cycles"].isna().all()
    assert set(bad["error"]) == {"tile buffers need 49,152 B of SRAM; the SRAM holds 32,768 B"}

    capsys.readouterr()
    assert main(["dse", "pareto", str(db), "--objectives", "cycles,energy_pj"]) == 0
    front = pareto_front(load(db), ["cycles", "energy_pj"])
    assert 32 not in set(front["sram.capacity_kib"])
    assert f"{len(front)} of 8 points on the front" in capsys.readouterr().err


def test_infeasible_points_are_not_retried(tmp_path):
    sweep = Sweep(workloads=["gemm:M=16,N=16,K=16"], hardware={"sram.capacity_kib": [32, 64]})
    db = tmp_path / "r.sqlite"
    first = run_sweep(sweep, db, evaluate=toy_eval.infeasible, workers=2, progress=False)
    assert (first.ran, first.infeasible, first.failed) == (2, 1, 0)
    again = run_sweep(sweep, db, evaluate=toy_eval.closed_form, workers=0, progress=False, retry_failed=True)
    assert (again.skipped, again.ran) == (2, 0)
    assert sorted(load(db)["status"]) == ["infeasible", "ok"]
