"""A real Dask LocalCluster on loopback (worker processes) runs a sweep; its rows equal the
local runner's."""

import time

import pandas as pd
import pytest

from accelsim.dse import Sweep, load, run_sweep

distributed = pytest.importorskip("distributed")

import toy_eval  # noqa: E402

COMPARED = ["status", "error", "workload", "config", "fidelity", "sram.capacity_kib", "dma.engines",
            "stages", "accelsim_version"]


@pytest.fixture(scope="module")
def cluster():
    import dask

    # a task whose worker dies fails at once (default: retried on 3 more workers)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                     dashboard_address=None, silence_logs=40) as c:
        yield c


def test_dask_rows_equal_local_rows_closed_form(tmp_path, cluster):
    sweep = Sweep(workloads=["gemm:M=16,N=16,K=16"],
                  hardware={"sram.capacity_kib": [32, 64, 128], "dma.engines": [1, 2]},
                  compiler={"tile_sizes": "auto", "stages": [1, 2]})
    local = run_sweep(sweep, tmp_path / "local.sqlite", evaluate=toy_eval.failing, workers=0, progress=False)
    dask = run_sweep(sweep, tmp_path / "dask.sqlite", evaluate=toy_eval.slow,
                     scheduler=cluster.scheduler_address, progress=False)
    assert (local.ran, dask.ran) == (12, 12)
    a = load(tmp_path / "local.sqlite").set_index("key").sort_index()
    b = load(tmp_path / "dask.sqlite").set_index("key").sort_index()
    figures = ["cycles", "energy_pj", "sram_peak_bytes", "note"]
    assert (a["status"] == "error").sum() == 4
    pd.testing.assert_frame_equal(a[COMPARED + figures], b[COMPARED + figures])
    assert len(set(b["worker"])) == 2  # both Dask workers took points


def test_dask_rows_equal_local_rows_simulator(tmp_path, cluster):
    """The real evaluator (compile + simulate) on both runners: identical rows."""
    sweep = Sweep(workloads=["gemm:M=16,N=48,K=32"], fidelity=["analytic", "event"],
                  hardware={"sram.capacity_kib": [8, 64], "dma.engines": [1, 2]},  # 16^3 tiles fit both
                  compiler={"tile_sizes": [[16, 16, 16]], "stages": [1, 2]})
    local = run_sweep(sweep, tmp_path / "local.sqlite", workers=2, progress=False)
    dask = run_sweep(sweep, tmp_path / "dask.sqlite", scheduler=cluster.scheduler_address, progress=False)
    assert (local.ran, dask.ran, local.failed) == (16, 16, 0)
    a = load(tmp_path / "local.sqlite").set_index("key").sort_index()
    b = load(tmp_path / "dask.sqlite").set_index("key").sort_index()
    figures = [c for c in a.columns if c not in ("wall_s", "cpu_s", "worker", "finished_at")]
    assert {"cycles", "energy_pj", "dram_bytes_read", "roofline_ratio", "config_hash"} <= set(figures)
    pd.testing.assert_frame_equal(a[figures], b[figures])
    assert a["cycles"].nunique() >= 3  # the parameters really changed the simulation


def test_cli_run_with_scheduler(tmp_path, cluster, capsys):
    from accelsim.cli import main

    spec = tmp_path / "s.toml"
    spec.write_text('workloads = ["gemm:M=16,N=16,K=16"]\nfidelity = "analytic"\n'
                    '[hardware]\nsram.capacity_kib = [4, 16]\n[compiler]\ntile_sizes = [[8, 8, 8]]\n')
    db = tmp_path / "cli.sqlite"
    assert main(["dse", "run", str(spec), "--db", str(db), "--scheduler", cluster.scheduler_address,
                 "--no-progress"]) == 0
    assert "2 points evaluated (0 failed)" in capsys.readouterr().err
    df = load(db)
    assert set(df["status"]) == {"ok"} and (df["cycles"] > 0).all()


def test_unreachable_scheduler_is_a_config_error():
    from accelsim.dse.runners import connect
    from accelsim.errors import ConfigError

    with pytest.raises(ConfigError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"):
        connect("tcp://127.0.0.1:9", timeout_s=1)


def test_a_dead_dask_worker_fails_only_its_own_point(tmp_path, cluster):
    """Points of one group travel in one task; when that task's worker dies, the group is
    retried point by point, and only the point that kills its worker stores the error."""
    sweep = Sweep(workloads=["gemm:M=16,N=16,K=16"], hardware={"dma.engines": [1, 2, 3, 4, 5]})
    summary = run_sweep(sweep, tmp_path / "crash.sqlite", evaluate=toy_eval.grouped_crashing,
                        scheduler=cluster.scheduler_address, progress=False)
    assert (summary.ran, summary.failed) == (5, 1)
    df = load(tmp_path / "crash.sqlite")
    dead = df[df["status"] == "error"]
    assert dead["dma.engines"].tolist() == [3]
    assert all(e.startswith("dask: ") for e in dead["error"])
    assert (df[df["status"] == "ok"]["dma.engines"] != 3).all()


def test_chunks_follow_the_evaluators_groups():
    from accelsim.dse.evaluate import evaluate_point
    from accelsim.dse.runners import chunked_groups

    sweep = Sweep(workloads=["gemm:M=16,N=16,K=16"],
                  hardware={"sram.capacity_kib": [32, 64], "dma.engines": [1, 2, 4]})
    chunks = chunked_groups(evaluate_point, sweep.points(), chunk=2)
    assert sorted(len(c) for c in chunks) == [1, 1, 2, 2]  # 2 programs x 3 engine counts, by 2
    for c in chunks:
        assert len({p.hw["sram.capacity_kib"] for p in c}) == 1
    assert [len(c) for c in chunked_groups(toy_eval.closed_form, sweep.points(), 8)] == [1] * 6


def test_points_past_their_time_limit_on_dask_are_timeouts(tmp_path, cluster):
    """The limit is raised in the Dask task's thread: the point is stored as timeout, the
    worker goes on with the next points."""
    sweep = Sweep(workloads=["gemm:M=16,N=16,K=16"], time_limit_s=1.5,
                  hardware={"sram.capacity_kib": [64, 128], "dma.engines": [1, 2, 3]})
    summary = run_sweep(sweep, tmp_path / "t.sqlite", evaluate=toy_eval.spinning,
                        scheduler=cluster.scheduler_address, progress=False)
    assert (summary.ran, summary.failed, summary.timed_out) == (6, 0, 2)
    df = load(tmp_path / "t.sqlite")
    late = df[df["status"] == "timeout"]
    assert sorted(late["dma.engines"]) == [3, 3]
    assert set(late["error"]) == {"exceeded the time limit of 1.5 s (time_limit_s)"}
    assert (df[df["status"] == "ok"]["dma.engines"] != 3).all()


def test_a_dask_task_stuck_outside_python_is_given_up_at_the_backstop(tmp_path, monkeypatch):
    """A task blocked where the limit cannot reach it (a sleep in a worker thread here) is
    given up by the parent once its limit and one task's ahead of it are spent."""
    import dask

    from accelsim.dse import runners

    monkeypatch.setattr(runners, "DASK_GRACE_S", 1.0)
    sweep = Sweep(workloads=["gemm:M=16,N=16,K=16"], time_limit_s=1.0, hardware={"dma.engines": [1, 3]})
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1",
                                     dashboard_address=None, silence_logs=40) as own:
        start = time.perf_counter()
        summary = run_sweep(sweep, tmp_path / "b.sqlite", evaluate=toy_eval.sleeping,
                            scheduler=own.scheduler_address, progress=False)
        assert time.perf_counter() - start < 30
    assert (summary.ran, summary.timed_out) == (2, 1)
    df = load(tmp_path / "b.sqlite").set_index("dma.engines")
    assert df.loc[3, "status"] == "timeout" and df.loc[1, "status"] == "ok"
    assert df.loc[3, "error"] == ("exceeded the time limit of 1 s (time_limit_s); the Dask task did not "
                                  "return (stuck outside Python?)")
