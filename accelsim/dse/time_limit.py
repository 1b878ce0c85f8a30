"""A per-point time limit inside the evaluating thread.

`time_limit(seconds)` raises `PointTimeout` in the thread that evaluates a point once it has run
for `seconds`: by SIGALRM in the main thread (which also interrupts a blocking sleep or
syscall), by an asynchronous exception in any other thread (a Dask worker's task thread; it
takes effect at the thread's next Python bytecode). `PointTimeout` is a BaseException, so an
evaluator's `except Exception` cannot swallow it.

Native code that never returns to Python is not interrupted here: the local runner kills its
worker process at the limit instead (`accelsim.dse.local_pool`), and the Dask runner stops
waiting for such a task (`accelsim.dse.runners.dask_outcomes`).
"""

from __future__ import annotations

import ctypes
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

DEFAULT_TIME_LIMIT_S = 600.0  # the `time_limit_s` of a sweep that does not set one
MAX_TIME_LIMIT_S = 7 * 24 * 3600.0


class PointTimeout(BaseException):
    """A point ran longer than its sweep's `time_limit_s`."""

    def __init__(self, limit_s: float | None = None):  # no argument when raised asynchronously
        super().__init__(limit_s)
        self.limit_s = limit_s

    def __str__(self) -> str:
        return timeout_message(self.limit_s) if self.limit_s is not None else "time limit exceeded"


def timeout_message(limit_s: float) -> str:
    """The `error` text stored with a timed-out point."""
    return f"exceeded the time limit of {limit_s:g} s (time_limit_s)"


def check_time_limit(value: object, where: str) -> float:
    """`value` as a limit in seconds, or ValueError naming `where`, the value and the range."""
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= MAX_TIME_LIMIT_S
    if not ok:
        raise ValueError(f"{where}: expected a number of seconds > 0 and <= {MAX_TIME_LIMIT_S:g}, "
                         f"found {value!r}")
    return float(value)  # type: ignore[arg-type]


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise `PointTimeout(seconds)` in this thread if the body runs longer than `seconds`."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _alarm(seconds):
            yield
    else:
        with _async_exception(seconds):
            yield


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise PointTimeout(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _async_exception(seconds: float) -> Iterator[None]:
    ident = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def expire() -> None:
        with lock:
            if state["done"]:
                return
            state["fired"] = True
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(PointTimeout))

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["done"] = True
            if state["fired"]:  # raised already, or still pending: never let it escape later
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), None)
        timer.cancel()
