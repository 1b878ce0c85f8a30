"""Kill test: `accelsim dse run` SIGKILLed mid-way, restarted, stores every point exactly once."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from accelsim.dse import load_spec


def stored(db) -> list[str]:
    if not os.path.exists(db):
        return []
    con = sqlite3.connect(db, timeout=10)
    try:
        return [r[0] for r in con.execute("SELECT key FROM points")]
    except sqlite3.OperationalError:  # table not created yet
        return []
    finally:
        con.close()


def run_cmd(spec, db, evaluator):
    return [sys.executable, "-m", "accelsim", "dse", "run", str(spec), "--db", str(db), "--workers", "2",
            *(["--evaluator", evaluator] if evaluator else [])]


def kill_and_resume(tmp_path, spec_text, env, evaluator=None, kill_after=4, timeout_s=120.0):
    spec = tmp_path / "kill.toml"
    spec.write_text(spec_text)
    keys = sorted(p.key for p in load_spec(spec).points())
    db = tmp_path / "kill.sqlite"
    # own session: SIGKILL reaches the runner, its forkserver and its workers, nothing else
    proc = subprocess.Popen(run_cmd(spec, db, evaluator), env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout_s
    while len(stored(db)) < kill_after and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()[-2000:]
    first = stored(db)
    assert kill_after <= len(first) < len(keys), (
        f"the sweep must be killed mid-way: {len(first)} of {len(keys)} stored at the kill")

    done = subprocess.run(run_cmd(spec, db, evaluator), env=env, capture_output=True, text=True,
                          timeout=timeout_s)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{len(first)} already stored" in done.stderr
    assert f"{len(keys) - len(first)} points evaluated" in done.stderr
    final = stored(db)
    assert sorted(final) == keys  # every point, each exactly once (key is the primary key too)
    assert set(first) <= set(final)
    return db


REAL_SPEC = """
name = "kill-me-real"
workloads = ["gemm:M=32,N=32,K=32", "gemm:M=16,N=48,K=32"]
fidelity = "event"
[hardware]
sram.capacity_kib = [8, 12, 16]  # 16^3 tiles x 2 stages need 6 KiB: every point fits
dma.engines = [1, 2, 4]
[compiler]
tile_sizes = [[16, 16, 16]]
stages = [2]
"""


def test_sigkill_mid_sweep_then_resume_simulator(tmp_path):
    """The real evaluator: compile + simulate each point, runner SIGKILLed after 4 rows."""
    db = kill_and_resume(tmp_path, REAL_SPEC, dict(os.environ))
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM points WHERE status = 'ok' AND cycles > 0").fetchone()[0] == 18
