"""Kill test: `accelsim dse run` SIGKILLed mid-way, restarted, stores every point exactly once."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from accelsim.dse import load_spec

SPEC = """
name = "kill-me"
workloads = ["gemm:M=16,N=16,K=16"]
[hardware]
sram.capacity_kib = [32, 64, 128, 256, 512]
dma.engines = [1, 2, 4, 8]
[compiler]
stages = [1, 2]
"""


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
    assert kill_after <= len(first) < len(keys), "the sweep must be killed mid-way"

    done = subprocess.run(run_cmd(spec, db, evaluator), env=env, capture_output=True, text=True,
                          timeout=timeout_s)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{len(first)} already stored" in done.stderr
    assert f"{len(keys) - len(first)} points evaluated" in done.stderr
    final = stored(db)
    assert sorted(final) == keys  # every point, each exactly once (key is the primary key too)
    assert set(first) <= set(final)
    return db


def test_sigkill_mid_sweep_then_resume_closed_form(tmp_path, toy_env):
    env = dict(toy_env, TOY_SLEEP_S="0.1")
    kill_and_resume(tmp_path, SPEC, env, evaluator="toy_eval:slow")
