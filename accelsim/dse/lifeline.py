"""Worker processes end with the sweep that started them, however the sweep ends.

A sweep killed with SIGKILL runs no cleanup, so the children must notice by themselves:

- every worker watches its parent's sentinel (`multiprocessing.parent_process().sentinel`, a
  pipe whose write end only the sweep's process holds; under forkserver it is still the
  sweep's, not the server's) from a daemon thread, and exits the moment it reads EOF;
- on Linux, `prctl(PR_SET_PDEATHSIG, SIGKILL)` also has the kernel kill the worker when its
  parent dies, which works even while the worker's thread sits in native code holding the
  GIL. A forkserver worker's parent is the fork server, so the server gets the same signal
  tied to the sweep: `FORKSERVER_GUARD` is the module the server imports at start (it is in
  the preload list) and `arm_forkserver()` is what the import does there.

Python's forkserver only exits once every worker is gone (they all hold its "alive" pipe), so
without these a killed sweep left its workers and the server running for as long as the
points in flight took.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from multiprocessing.connection import wait

FORKSERVER_GUARD = "accelsim.dse.forkserver_guard"
GUARD_ENV = "ACCELSIM_DSE_SWEEP_PID"  # the sweep's pid, for the fork server's guard
PR_SET_PDEATHSIG = 1


def kill_with_parent(parent_pid: int) -> bool:
    """Linux: SIGKILL this process when its parent dies. False if unsupported or already dead."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent_pid:  # the parent died before the prctl: nobody will signal us
        os._exit(1)
    return True


def watch_parent() -> None:
    """In a multiprocessing child: exit as soon as the parent process is gone."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def bind_worker() -> None:
    """Called first thing in a worker process."""
    kill_with_parent(os.getppid())
    watch_parent()


def arm_forkserver() -> None:
    """In the fork server (only there: the sweep names itself in GUARD_ENV before the server
    starts, and only a process whose parent is that sweep acts): die with the sweep."""
    expected = os.environ.get(GUARD_ENV)
    if expected is not None and expected == str(os.getppid()):
        kill_with_parent(int(expected))


def announce_sweep() -> None:
    """In the sweep's process, before the fork server starts: name it for `arm_forkserver`."""
    os.environ[GUARD_ENV] = str(os.getpid())
