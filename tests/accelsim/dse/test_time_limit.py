"""Every point has a time limit (`time_limit_s`): a point past it is stored as `timeout` with the
limit and the sweep goes on, on local workers and in this process (Dask: test_dask.py)."""

import threading
import time

import pytest
import toy_eval

from accelsim.dse import Sweep, load, load_spec, run_sweep
from accelsim.dse.time_limit import DEFAULT_TIME_LIMIT_S, PointTimeout, time_limit
from accelsim.errors import ConfigError


def sweep(**kw) -> Sweep:
    return Sweep(workloads=["gemm:M=16,N=16,K=16"],
                 hardware={"sram.capacity_kib": [64, 128], "dma.engines": [1, 2, 3]}, **kw)


def check_timeouts(db, limit: float) -> None:
    df = load(db)
    late = df[df["status"] == "timeout"]
    assert sorted(late["dma.engines"]) == [3, 3]
    assert set(late["error"]) == {f"exceeded the time limit of {limit:g} s (time_limit_s)"}
    assert late["cycles"].isna().all()
    ok = df[df["status"] == "ok"]
    assert len(ok) == 4 and (ok["dma.engines"] != 3).all() and (ok["cycles"] > 0).all()


@pytest.mark.parametrize("evaluator", [toy_eval.spinning, toy_eval.sleeping, toy_eval.native_hang])
def test_local_workers_stop_a_point_at_its_limit(tmp_path, evaluator):
    """A Python loop, a blocking sleep, C code holding the GIL: each is stopped at the limit."""
    if evaluator is toy_eval.native_hang:  # hangs on every point: engines 3 only
        evaluator = toy_eval.native_hang_engines_3
    start = time.perf_counter()
    summary = run_sweep(sweep(time_limit_s=1.5), tmp_path / "t.sqlite", evaluate=evaluator, workers=2,
                        progress=False)
    assert time.perf_counter() - start < 30
    assert (summary.ran, summary.failed, summary.timed_out) == (6, 0, 2)
    assert "(0 failed, 2 timed out)" in str(summary)
    check_timeouts(tmp_path / "t.sqlite", 1.5)


@pytest.mark.parametrize("evaluator", [toy_eval.spinning, toy_eval.sleeping])
def test_in_process_points_stop_at_their_limit(tmp_path, evaluator):
    summary = run_sweep(sweep(), tmp_path / "t.sqlite", evaluate=evaluator, workers=0, progress=False,
                        time_limit_s=0.5)
    assert (summary.ran, summary.timed_out) == (6, 2)
    check_timeouts(tmp_path / "t.sqlite", 0.5)


def test_timed_out_points_are_kept_until_retried(tmp_path):
    db = tmp_path / "r.sqlite"
    run_sweep(sweep(time_limit_s=0.5), db, evaluate=toy_eval.spinning, workers=0, progress=False)
    again = run_sweep(sweep(time_limit_s=0.5), db, evaluate=toy_eval.closed_form, workers=0, progress=False)
    assert (again.skipped, again.ran) == (6, 0)
    retry = run_sweep(sweep(), db, evaluate=toy_eval.closed_form, workers=0, progress=False,
                      retry_failed=True)
    assert (retry.ran, retry.timed_out) == (2, 0)
    assert set(load(db)["status"]) == {"ok"}


def test_the_spec_key_has_a_default_and_is_checked(tmp_path):
    plain = tmp_path / "a.toml"
    plain.write_text('workloads = ["gemm"]\n')
    assert load_spec(plain).time_limit_s == DEFAULT_TIME_LIMIT_S == 600.0
    given = tmp_path / "b.toml"
    given.write_text('workloads = ["gemm"]\ntime_limit_s = 90\n')
    assert load_spec(given).time_limit_s == 90.0
    assert load_spec(given).to_dict()["time_limit_s"] == 90.0
    for bad in ("0", "-5", '"10"', "true", "1e9", "nan"):
        spec = tmp_path / "bad.toml"
        spec.write_text(f'workloads = ["gemm"]\n\ntime_limit_s = {bad}\n')
        with pytest.raises(ConfigError, match=rf"^{spec}:3: key 'time_limit_s': expected a number of seconds "
                                              r"> 0 and <= 604800, found "):
            load_spec(spec)


def test_the_cli_takes_the_limit_from_the_spec_or_the_flag(tmp_path, capsys):
    from accelsim.cli import main

    spec = tmp_path / "s.toml"
    spec.write_text('workloads = ["gemm:M=16,N=16,K=16"]\ntime_limit_s = 0.5\n[hardware]\n'
                    'sram.capacity_kib = [64, 128]\ndma.engines = [1, 2, 3]\n')
    assert main(["dse", "run", str(spec), "--dry-run"]) == 0
    assert "6 points (6 before constraints), time limit 0.5 s per point" in capsys.readouterr().out
    assert main(["dse", "run", str(spec), "--time-limit", "0", "--workers", "0"]) == 1
    err = capsys.readouterr().err
    assert "--time-limit: expected a number of seconds > 0 and <= 604800, found 0.0" in err
    db = tmp_path / "s.sqlite"
    assert main(["dse", "run", str(spec), "--db", str(db), "--workers", "0", "--evaluator",
                 "toy_eval:spinning", "--no-progress"]) == 0
    assert "6 points evaluated (0 failed, 2 timed out)" in capsys.readouterr().err
    assert main(["dse", "status", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{db}: 6 points, 4 ok, 0 failed, 2 timed out"
    i = out.index("timeouts by limit (first line):")
    assert out[i + 1] == "      2  exceeded the time limit of 0.5 s (time_limit_s)"
    assert main(["dse", "run", str(spec), "--db", str(db), "--workers", "0", "--evaluator",
                 "toy_eval:closed_form", "--no-progress", "--retry-failed", "--time-limit", "30"]) == 0
    assert "2 points evaluated (0 failed), 4 already stored" in capsys.readouterr().err


def test_the_limit_reaches_a_thread_that_is_not_the_main_one():
    """Dask runs points in worker threads: there the limit is an asynchronous exception."""
    caught: list[BaseException] = []

    def spin() -> None:
        try:
            with time_limit(0.3):
                while True:
                    pass
        except PointTimeout as exc:
            caught.append(exc)

    t = threading.Thread(target=spin)
    t.start()
    t.join(timeout=10)
    assert not t.is_alive() and len(caught) == 1

    def quick() -> None:  # finished before the limit: nothing is raised later
        with time_limit(0.2):
            pass
        time.sleep(0.5)
        caught.append(None)

    t = threading.Thread(target=quick)
    t.start()
    t.join(timeout=10)
    assert caught[-1] is None
