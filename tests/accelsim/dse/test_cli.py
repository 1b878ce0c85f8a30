"""`accelsim dse run/export/pareto` through the CLI entry point (closed-form evaluator)."""

import sqlite3

import numpy as np
import pandas as pd
import pytest

from accelsim.cli import main
from accelsim.dse import load, load_spec, pareto_front

SPEC = """
name = "cli-toy"
workloads = ["gemm:M=16,N=16,K=16"]
constraints = ["stages <= dma.engines + 1"]
[hardware]
sram.capacity_kib = [32, 64, 128, 256]
dma.engines = [1, 2, 4]
[compiler]
tile_sizes = "auto"
stages = [1, 2, 3]
"""


@pytest.fixture
def spec(tmp_path):
    p = tmp_path / "toy.toml"
    p.write_text(SPEC)
    return p


def test_run_export_pareto(tmp_path, spec, capsys):
    db = tmp_path / "r.sqlite"
    assert main(["dse", "run", str(spec), "--db", str(db), "--workers", "0",
                 "--evaluator", "toy_eval:failing"]) == 0
    err = capsys.readouterr().err
    n = len(load_spec(spec).points())
    assert f"{n} points evaluated (8 failed), 0 already stored" in err
    assert f"{n}/{n} points, 8 failed" in err
    df = load(db)
    assert len(df) == n

    csv, parquet = tmp_path / "r.csv", tmp_path / "r.parquet"
    assert main(["dse", "export", str(db), "--csv", str(csv), "--parquet", str(parquet)]) == 0
    back = pd.read_csv(csv)
    assert back["key"].tolist() == df["key"].tolist()
    assert np.allclose(back["cycles"].to_numpy(float), df["cycles"].to_numpy(float), equal_nan=True)
    pq = pd.read_parquet(parquet)
    assert pq["key"].tolist() == df["key"].tolist() and pq["error"].equals(df["error"])

    png = tmp_path / "front.png"
    capsys.readouterr()
    assert main(["dse", "pareto", str(db), "--objectives", "cycles,energy_pj", "--plot", str(png)]) == 0
    out, err = capsys.readouterr()
    front = pareto_front(df, ["cycles", "energy_pj"])
    assert f"{len(front)} of {n - 8} points on the front" in err
    printed = out.splitlines()[1:]
    assert len(printed) == len(front)
    for line, (_, row) in zip(printed, front.iterrows()):
        assert [float(x) for x in line.split()[-2:]] == [row["cycles"], row["energy_pj"]]
    assert png.stat().st_size > 10_000


def test_bad_spec_fails_before_any_point_runs(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(SPEC.replace("stages = [1, 2, 3]", "stages = [1, 2, 3]\nunroll = [4]"))
    db = tmp_path / "never.sqlite"
    assert main(["dse", "run", str(bad), "--db", str(db), "--evaluator", "toy_eval:closed_form"]) == 1
    err = capsys.readouterr().err
    assert "key 'compiler.unroll'" in err and "unknown compiler option" in err
    assert not db.exists()


def test_dry_run_counts_points(spec, capsys):
    assert main(["dse", "run", str(spec), "--dry-run"]) == 0
    assert "32 points (36 before constraints)" in capsys.readouterr().out


def test_export_needs_a_format(tmp_path, spec, capsys):
    db = tmp_path / "r.sqlite"
    main(["dse", "run", str(spec), "--db", str(db), "--workers", "0", "--evaluator", "toy_eval:closed_form",
          "--no-progress"])
    assert main(["dse", "export", str(db)]) == 1
    assert "--csv" in capsys.readouterr().err
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM points").fetchone()[0] == 32


def test_status_groups_failures_by_message(tmp_path, spec, capsys):
    db = tmp_path / "s.sqlite"
    main(["dse", "run", str(spec), "--db", str(db), "--workers", "0", "--evaluator", "toy_eval:failing",
          "--no-progress"])
    capsys.readouterr()
    assert main(["dse", "status", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{db}: 32 points, 24 ok, 8 failed"
    assert out[1:3] == ["failures by message (first line):",
                        "      8  ValueError: SRAM of 32 KiB cannot hold the tile buffers"]
