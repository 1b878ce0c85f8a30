import sqlite3

import pytest

from accelsim.dse import Outcome, Point, ResultStore, load
from accelsim.errors import ConfigError


def pt(sram: int, stages: int = 2) -> Point:
    return Point("gemm:M=8", hardware=(("sram.capacity_kib", sram),), compiler=(("stages", stages),))


def test_wal_mode_and_one_row_per_key(tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as s:
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        s.put(Outcome(pt(64), "ok", {"cycles": 10, "energy_pj": 1.5, "config_hash": "abc"}, None, "0.1.0"))
        s.put(Outcome(pt(128), "error", {}, "CapacityError: too big", "0.1.0"))
        s.put(Outcome(pt(64), "ok", {"cycles": 11, "energy_pj": 1.5}, None, "0.1.0"))  # same key: replaced
        assert s.count() == 2
        assert s.keys("ok") == {pt(64).key}
        assert s.keys("error") == {pt(128).key}
    # Another connection (e.g. a reader while a sweep runs) sees committed rows.
    rows = sqlite3.connect(db).execute(
        'SELECT key, status, cycles, "sram.capacity_kib", stages, error FROM points '
        'ORDER BY "sram.capacity_kib"'
    ).fetchall()
    assert rows == [(pt(64).key, "ok", 11, 64, 2, None),
                    (pt(128).key, "error", None, 128, 2, "CapacityError: too big")]


def test_new_figures_add_columns_and_load_gives_a_dataframe(tmp_path):
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as s:
        s.put(Outcome(pt(64), "ok", {"cycles": 10, "config_hash": "h1"}, None, "0.1.0", wall_s=0.5))
        s.put(Outcome(pt(128), "ok", {"cycles": 7, "dram_bytes_read": 4096, "config_hash": "h2"}, None,
                      "0.1.0"))
        assert s.points() == [pt(64), pt(128)]
    df = load(db)
    assert list(df["cycles"]) == [10, 7]
    assert list(df["config_hash"]) == ["h1", "h2"]
    assert df["dram_bytes_read"].isna().tolist() == [True, False]
    assert {"workload", "config", "fidelity", "sram.capacity_kib", "stages", "tile_sizes",
            "accelsim_version", "key", "status", "error", "wall_s", "cpu_s"} <= set(df.columns)
    assert df["wall_s"].tolist()[0] == 0.5


def test_an_older_database_gains_new_fixed_columns(tmp_path):
    db = tmp_path / "old.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE points (key TEXT PRIMARY KEY, status TEXT NOT NULL, error TEXT, "
                "accelsim_version TEXT, config_hash TEXT, wall_s REAL, worker TEXT, finished_at REAL, "
                "point_json TEXT NOT NULL)")
    con.commit()
    con.close()
    with ResultStore(db) as s:
        s.put(Outcome(pt(64), "ok", {"cycles": 3}, None, "0.1.0", cpu_s=0.25))
    assert load(db)["cpu_s"].tolist() == [0.25]


def test_a_figure_named_like_a_parameter_is_refused(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as s, pytest.raises(ConfigError, match="stages"):
        s.put(Outcome(pt(64), "ok", {"stages": 3}, None, "0.1.0"))


def test_not_a_database(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ConfigError, match="not a usable results database"):
        ResultStore(bad)
    with pytest.raises(ConfigError, match="no such results database"):
        load(tmp_path / "absent.sqlite")


def test_boolean_columns_load_as_booleans(tmp_path):
    p = Point("gemm:M=8", compiler=(("copy_out_pipelining", False), ("data_copy", True)))
    with ResultStore(tmp_path / "b.sqlite") as s:
        s.put(Outcome(p, "ok", {"cycles": 1, "outputs_match": True}, None, "0.1.0"))
        s.put(Outcome(pt(64), "error", {}, "boom", "0.1.0"))
    df = load(tmp_path / "b.sqlite")
    assert str(df["copy_out_pipelining"].dtype) == "boolean"
    assert df["copy_out_pipelining"].tolist() == [False, True]
    assert bool(df["outputs_match"].iloc[0])
    assert df["outputs_match"].isna().tolist() == [False, True]
