"""Autotuning with the simulator as the cost model, checked against exhaustive event runs."""

import pytest

from accelsim.cli import main
from accelsim.dse import Point
from accelsim.dse.autotune import autotune, tile_candidates, tiled_band
from accelsim.dse.evaluate import evaluate_point
from accelsim.errors import ConfigError

WL = "gemm:M=64,N=64,K=64"
TILES = ["8,8,8", "16,16,16", "32,32,32", "64,64,64", "32,16,64"]


def test_band_and_candidates():
    assert tiled_band(WL) == (64, 64, 64)
    cands = tile_candidates((64, 64, 64), max_candidates=10)
    assert len(cands) == len(set(cands)) == 10
    assert cands[:4] == ["8,8,8", "16,16,16", "32,32,32", "64,64,64"]  # uniform tiles first
    assert all(int(x) in (8, 16, 32, 64) for c in cands for x in c.split(","))
    assert tile_candidates((64, 64, 64), 10) == cands  # seeded: the same every time
    assert tile_candidates((20,), 10) == ["8", "16", "20"]  # powers of two below, and the extent


def test_with_every_candidate_in_the_final_round_the_winner_is_the_exhaustive_optimum(tmp_path):
    stages = (1, 2)
    result = autotune(WL, "default", stages=stages, tile_sizes=TILES, top_k=len(TILES) * len(stages),
                      workers=0, progress=False, db=tmp_path / "tune.sqlite")
    exhaustive = {}
    for t in TILES:
        for s in stages:
            f = evaluate_point(Point(result.workload, "default",
                                     compiler=tuple(sorted({**Point("x").options,
                                                            "tile_sizes": t, "stages": s}.items())),
                                     fidelity="event"))
            exhaustive[(t, s)] = f["cycles"]
    best_cycles = min(exhaustive.values())
    assert result.best.event_cycles == best_cycles
    assert exhaustive[(result.best.tile_sizes, result.best.stages)] == best_cycles
    assert result.best.roofline_ratio == pytest.approx(best_cycles / result.best_figures["roofline_cycles"])
    assert result.best.roofline_ratio >= 1.0
    assert "x the roofline bound" in result.summary()


def test_top_k_runs_event_only_on_the_best_analytic_candidates():
    result = autotune(WL, "default", stages=(1, 2), tile_sizes=TILES, top_k=3, workers=0, progress=False)
    assert len(result.candidates) == len(TILES) * 2
    analytic = [c.analytic_cycles for c in result.candidates if c.analytic_cycles is not None]
    assert analytic == sorted(analytic)  # ranked best analytic first
    finalists = [c for c in result.candidates if c.event_cycles is not None]
    assert finalists == list(result.candidates[:3])
    assert result.best == min(finalists, key=lambda c: c.event_cycles)
    direct = evaluate_point(result.best_point)
    assert direct["cycles"] == result.best.event_cycles


def test_cli_tune(capsys):
    assert main(["dse", "tune", WL, "--config", "default", "--stages", "1,2", "--top", "2",
                 "--max-candidates", "4", "--workers", "0", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"autotune {WL},dtype=f32 on default: band 64x64x64, 8 candidates")
    assert "best: tile_sizes=" in out


def test_bad_requests():
    with pytest.raises(ConfigError, match="top_k"):
        autotune(WL, top_k=0)
    with pytest.raises(ConfigError, match="unknown hardware preset"):
        autotune(WL, "no-such-config", tile_sizes=["8,8,8"], workers=0, progress=False)
