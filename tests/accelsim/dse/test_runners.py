"""The sweep machinery with closed-form evaluation functions (toy_eval): runners agree, a
sweep resumes, failures and dead workers are recorded per point."""

import io

import toy_eval

from accelsim.dse import ResultStore, Sweep, load, run_sweep

FIGURES = ["cycles", "energy_pj", "sram_peak_bytes", "note"]


def sweep(**kw) -> Sweep:
    hw = kw.pop("hardware", {"sram.capacity_kib": [32, 64, 128], "dma.engines": [1, 2, 3]})
    return Sweep(workloads=["gemm:M=16,N=16,K=16"], hardware=hw,
                 compiler={"tile_sizes": "auto", "stages": [1, 2]}, **kw)


def rows(db) -> dict:
    df = load(db).set_index("key").sort_index()
    return df


def test_two_local_workers_store_what_the_in_process_run_stores(tmp_path):
    s = sweep()
    a = run_sweep(s, tmp_path / "a.sqlite", evaluate=toy_eval.failing, workers=0, progress=False)
    # `slow` sleeps before the closed form, so both workers get points
    b = run_sweep(s, tmp_path / "b.sqlite", evaluate=toy_eval.slow, workers=2, progress=False)
    assert a.ran == b.ran == len(s.points()) == 18
    ra, rb = rows(tmp_path / "a.sqlite"), rows(tmp_path / "b.sqlite")
    cols = ["status", "error", "workload", "sram.capacity_kib", "dma.engines", "stages", *FIGURES]
    assert ra[cols].equals(rb[cols])
    assert (rb["status"] == "error").sum() == 6
    assert len(set(rb["worker"])) == 2  # really two processes
    # the figures are the evaluation function's, row by row
    for p in s.points():
        if p.hw["sram.capacity_kib"] == 32:
            continue
        expect = toy_eval.closed_form(p)
        assert {k: rb.loc[p.key, k] for k in expect} == expect


def test_resume_skips_stored_points(tmp_path):
    db = tmp_path / "r.sqlite"
    first = sweep(hardware={"sram.capacity_kib": [64], "dma.engines": [1, 2, 3]})
    run_sweep(first, db, evaluate=toy_eval.closed_form, workers=0, progress=False)
    before = rows(db)["finished_at"].to_dict()
    full = sweep()
    out = io.StringIO()
    summary = run_sweep(full, db, evaluate=toy_eval.closed_form, workers=0, progress=out)
    assert (summary.total, summary.skipped, summary.ran) == (18, 6, 12)
    assert "(6 already stored)" in out.getvalue()
    after = rows(db)
    assert sorted(after.index) == sorted(p.key for p in full.points())
    assert {k: after.loc[k, "finished_at"] for k in before} == before  # not re-run
    again = run_sweep(full, db, evaluate=toy_eval.closed_form, workers=0, progress=False)
    assert (again.skipped, again.ran) == (18, 0)


def test_failing_point_stores_its_error_and_the_sweep_goes_on(tmp_path):
    db = tmp_path / "f.sqlite"
    summary = run_sweep(sweep(), db, evaluate=toy_eval.failing, workers=2, progress=False)
    assert (summary.ran, summary.failed) == (18, 6)
    df = load(db)
    bad = df[df["sram.capacity_kib"] == 32]
    assert set(bad["status"]) == {"error"}
    assert set(bad["error"]) == {"ValueError: SRAM of 32 KiB cannot hold the tile buffers"}
    assert bad["cycles"].isna().all()
    good = df[df["sram.capacity_kib"] != 32]
    assert set(good["status"]) == {"ok"} and good["error"].isna().all()
    # stored errors are skipped on resume unless asked to retry them
    assert run_sweep(sweep(), db, evaluate=toy_eval.closed_form, workers=0, progress=False).ran == 0
    retry = run_sweep(sweep(), db, evaluate=toy_eval.closed_form, workers=0, progress=False,
                      retry_failed=True)
    assert (retry.ran, retry.failed) == (6, 0)
    assert set(load(db)["status"]) == {"ok"} and len(load(db)) == 18


def test_a_dead_worker_fails_only_its_own_point(tmp_path):
    db = tmp_path / "c.sqlite"
    summary = run_sweep(sweep(), db, evaluate=toy_eval.crashing, workers=2, progress=False)
    assert summary.ran == 18
    df = load(db)
    dead = df[df["status"] == "error"]
    assert sorted(dead["dma.engines"]) == [3] * 6
    assert set(dead["error"]) == {"worker process died while evaluating this point"}
    ok = df[df["status"] == "ok"]
    assert len(ok) == 12 and (ok["dma.engines"] != 3).all()


def test_store_object_can_be_shared_across_runs(tmp_path):
    with ResultStore(tmp_path / "s.sqlite") as store:
        run_sweep(sweep(), store, evaluate=toy_eval.closed_form, workers=0, progress=False)
        assert store.count() == 18
        assert store.conn.execute("SELECT COUNT(*) FROM sweeps").fetchone()[0] == 1


def test_real_evaluator_failing_point_stores_its_error(tmp_path):
    """Each value alone is a valid config, but DRAM and SRAM in one memory space is not: that
    point fails inside the worker with the config's message, and the other three run."""
    s = Sweep(workloads=["gemm:M=16,N=16,K=16"], fidelity="event",
              hardware={"spaces.sram": [1, 3], "spaces.dram": [0, 3]}, compiler={"tile_sizes": "none"})
    summary = run_sweep(s, tmp_path / "real.sqlite", workers=2, progress=False)
    assert (summary.ran, summary.failed) == (4, 1)
    df = load(tmp_path / "real.sqlite")
    bad = df[df["status"] == "error"]
    assert bad[["spaces.sram", "spaces.dram"]].values.tolist() == [[3, 3]]
    assert bad["error"].iloc[0].startswith("ConfigError:") and "distinct" in bad["error"].iloc[0]
    good = df[df["status"] == "ok"]
    assert (good["cycles"] > 0).all() and good["error"].isna().all()


def test_points_of_a_group_stay_on_one_worker(tmp_path):
    s = Sweep(workloads=["gemm:M=16,N=16,K=16"],
              hardware={"sram.capacity_kib": [64, 128, 256, 512], "dma.engines": [1, 2, 4]},
              compiler={"tile_sizes": "auto", "stages": [1, 2]})
    run_sweep(s, tmp_path / "g.sqlite", evaluate=toy_eval.grouped, workers=2, progress=False)
    df = load(tmp_path / "g.sqlite")
    assert len(df) == 24 and df["worker"].nunique() == 2
    pairs = df.groupby("sram.capacity_kib")["worker"].nunique()
    # 4 groups of 6 on 2 workers: whole groups, except where an idle worker steals at the tail
    # (random placement would put almost every group on both workers)
    assert pairs.sum() <= 6, pairs.to_dict()
    assert (pairs == 1).sum() >= 2


def test_the_simulator_groups_points_by_compiled_program():
    from accelsim.dse.evaluate import compile_group, evaluate_point

    assert evaluate_point.group_key is compile_group
    base = {"sram.capacity_kib": 64, "dma.engines": 1}
    pts = [Sweep(workloads=["gemm:M=16,N=16,K=16"], hardware={**base, **hw}).points()[0]
           for hw in ({}, {"dma.engines": 4}, {"sram.capacity_kib": 128})]
    g = [compile_group(p) for p in pts]
    assert g[0] == g[1] != g[2]
