"""Kill tests: `accelsim dse run` SIGKILLed mid-way, restarted, stores every point exactly once;
and killing only the sweep's own process (SIGKILL, SIGTERM, SIGINT) leaves none of the processes
it started (workers, fork server, resource tracker) running."""

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accelsim.dse import load_spec

HERE = Path(__file__).parent


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


# ---------------------------------------------------------------------------------------------
# the sweep's process killed alone: nothing it started may survive it

def session_processes(sid: int) -> set[int]:
    """Live (not zombie) processes of session `sid`: the sweep and everything it started, even
    those reparented after its death (they keep the session)."""
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        pids = [p.pid for p in psutil.process_iter()]
    else:
        pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, session = fields[0], int(fields[3])
        if session == sid and state not in ("Z", "X"):
            alive.add(pid)
    return alive


KILL_SPEC = """
workloads = ["gemm:M=16,N=16,K=16"]
[hardware]
dma.engines = [1, 2, 3, 4, 5, 6]
"""


@pytest.mark.parametrize("sig, evaluator, code", [
    (signal.SIGKILL, "toy_eval:native_hang", -signal.SIGKILL),  # workers stuck in C code holding the GIL
    (signal.SIGKILL, "toy_eval:sleeping_all", -signal.SIGKILL),
    (signal.SIGTERM, "toy_eval:sleeping_all", 128 + signal.SIGTERM),
    (signal.SIGINT, "toy_eval:sleeping_all", 130),
], ids=["sigkill-native", "sigkill", "sigterm", "sigint"])
def test_killing_the_sweep_leaves_no_process_behind(tmp_path, sig, evaluator, code):
    spec = tmp_path / "k.toml"
    spec.write_text(KILL_SPEC)
    marks = tmp_path / "marks"
    marks.mkdir()
    env = {**os.environ, "TOY_MARK_DIR": str(marks),
           "PYTHONPATH": os.pathsep.join([str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])])}
    log = tmp_path / "stderr.txt"  # a file, not a pipe: a survivor holding a pipe would block the read
    with log.open("wb") as err:
        # SIGINT at its default, as at a terminal: a test run started in the background by a
        # non-interactive shell (`make test &`) inherits SIGINT ignored, and the sweep would
        # rightly keep ignoring it (as under nohup)
        proc = subprocess.Popen(run_cmd(spec, tmp_path / "k.sqlite", evaluator), env=env,
                                start_new_session=True, stdout=subprocess.DEVNULL, stderr=err,
                                preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 60
        while len(list(marks.iterdir())) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None and len(list(marks.iterdir())) == 2, "both workers must be inside a point"
        started = session_processes(proc.pid) - {proc.pid}
        assert len(started) >= 3, started  # two workers and the fork server, at least
        os.kill(proc.pid, sig)  # the sweep's process only, as a user's kill or a scheduler's would
        proc.wait(timeout=60)  # a backstop for a hang
        assert proc.returncode == code, log.read_text()[-2000:]
        deadline = time.monotonic() + 5
        while session_processes(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = session_processes(proc.pid)
        assert not left, "still running 5 s after the kill: " + "; ".join(map(command_line, left))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")[:200]
    except OSError:
        return str(pid)
