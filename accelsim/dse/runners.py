"""Run a sweep's points: local worker processes (default) or a Dask cluster.

Both runners only move points out and outcomes back; the parent process writes each outcome to
the store the moment it arrives, so what is stored is exactly what finished. The evaluation
function is a parameter (default: the simulator, `accelsim.dse.evaluate.evaluate_point`); it must
be importable by the workers (a module-level function), as with any process pool.

Optional attributes of the evaluation function: `group_key(point)` (points with equal keys
share expensive work, e.g. one compiled program: the local runner sends them to one worker and
Dask tasks carry chunks of one group) and `preload` (modules the local fork server imports once).
"""

from __future__ import annotations

import os
import queue
import signal
import socket
import sys
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from accelsim.dse.confirm import front_to_confirm
from accelsim.dse.feasibility import InfeasiblePoint
from accelsim.dse.local_pool import EvalFn, crashed, default_mp_context, timed_out
from accelsim.dse.local_pool import local_outcomes as pool_outcomes
from accelsim.dse.progress import Progress
from accelsim.dse.spec import Point, Sweep
from accelsim.dse.store import (
    STATUS_ERROR,
    STATUS_INFEASIBLE,
    STATUS_OK,
    STATUS_TIMEOUT,
    Outcome,
    ResultStore,
)
from accelsim.dse.time_limit import (
    DEFAULT_TIME_LIMIT_S,
    PointTimeout,
    check_time_limit,
    time_limit,
    timeout_message,
)
from accelsim.errors import PROGRAMMING_ERRORS, ConfigError

__all__ = ["EvalFn", "SweepSummary", "connect", "default_mp_context", "local_outcomes", "run_point",
           "run_sweep"]
MAX_ERROR_CHARS = 4000


def run_point(evaluate: EvalFn, point: Point, time_limit_s: float | None = None) -> Outcome:
    """Evaluate one point in the worker; any exception becomes the point's stored error.

    With `time_limit_s`, the evaluation is interrupted in this thread at the limit (the local
    runner's workers go without: their parent kills them at the limit instead)."""
    from accelsim.cost.version import PACKAGE_VERSION as __version__
    from accelsim.cost.version import TIMING_MODEL_VERSION

    start, cpu = time.perf_counter(), time.process_time()
    try:
        if time_limit_s is None:
            figures = dict(evaluate(point))
        else:
            with time_limit(time_limit_s):
                figures = dict(evaluate(point))
        status, error = STATUS_OK, None
    except PointTimeout:
        figures, status, error = {}, STATUS_TIMEOUT, timeout_message(time_limit_s or 0.0)
    except InfeasiblePoint as exc:  # decided before simulating: a result, not a failure
        figures, status, error = {}, STATUS_INFEASIBLE, str(exc)[:MAX_ERROR_CHARS]
    except Exception as exc:
        # A worker boundary around the user's evaluator: any failure of one point is stored
        # with it and never stops the sweep (re-raised here, it would kill the worker and turn
        # into an anonymous "worker died"). A programming error (PROGRAMMING_ERRORS) is stored
        # with the file and line that raised it, so the bug is found from the row.
        figures, status = {}, STATUS_ERROR
        error = f"{type(exc).__name__}: {exc}{_raised_at(exc)}"[:MAX_ERROR_CHARS]
    return Outcome(point=point, status=status, figures=figures, error=error,
                   accelsim_version=__version__, wall_s=time.perf_counter() - start,
                   cpu_s=time.process_time() - cpu, worker=f"{socket.gethostname()}:{os.getpid()}",
                   timing_model=TIMING_MODEL_VERSION)


def _raised_at(exc: Exception) -> str:
    """For a programming error, ` (raised at FILE:LINE)` of the innermost frame; else ''."""
    if not isinstance(exc, PROGRAMMING_ERRORS) or exc.__traceback__ is None:
        return ""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f" (raised at {frame.filename}:{frame.lineno})"


# ---------------------------------------------------------------------------------------------
# local processes (accelsim.dse.local_pool)

def local_outcomes(evaluate: EvalFn, points: Sequence[Point], workers: int,
                   mp_context: str | None = None,
                   time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Iterator[Outcome]:
    """Outcomes in completion order. `workers=0` evaluates in this process (for debugging).

    If the evaluator has a `group_key(point)` attribute, points with equal keys are sent to
    the same worker process. A point still running at `time_limit_s` is stopped (its worker
    killed) and stored as `timeout`. A worker that dies takes only its own point down: that
    point is re-run alone, and stored with the error if it kills its worker again.
    """
    if workers <= 0:
        for p in points:
            yield run_point(evaluate, p, time_limit_s)
        return
    yield from pool_outcomes(evaluate, points, workers, time_limit_s, run_point, mp_context)


# ---------------------------------------------------------------------------------------------
# Dask

def connect(scheduler: str, timeout_s: float = 20.0) -> Any:
    """A `distributed.Client` for `tcp://host:port`; a clear ConfigError if nobody answers."""
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError("--scheduler needs dask.distributed (pip install 'accelsim[dse]')")
    try:
        return Client(scheduler, timeout=f"{timeout_s}s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {exc}")


def run_points(evaluate: EvalFn, points: Sequence[Point],
               time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> list[Outcome]:
    """Several points in one task, in order: one Dask task per chunk of a group, so a worker
    compiles the group's program once (the evaluator's cache) instead of once per point. Each
    point has its own time limit, raised in the task's thread."""
    return [run_point(evaluate, p, time_limit_s) for p in points]


def chunked_groups(evaluate: EvalFn, points: Sequence[Point], chunk: int) -> list[list[Point]]:
    """Points grouped by the evaluator's `group_key` (if any), in chunks of at most `chunk`."""
    group_key = getattr(evaluate, "group_key", None)
    if group_key is None or chunk <= 1:
        return [[p] for p in points]
    groups: dict[Any, list[Point]] = {}
    for p in points:
        groups.setdefault(group_key(p), []).append(p)
    return [g[i:i + chunk] for g in groups.values() for i in range(0, len(g), chunk)]


DASK_GRACE_S = 30.0  # scheduling and transfer slack of the parent's backstop


@dataclass(frozen=True, slots=True)
class _DaskTask:
    future: Any
    batch: list[Point]
    backstop: float  # monotonic time after which the parent gives up on the task


def dask_outcomes(evaluate: EvalFn, points: Sequence[Point], client: Any, window: int | None = None,
                  chunk: int = 8, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Iterator[Outcome]:
    """Outcomes from a Dask cluster, a chunk of points of one group per task, at most
    `window` tasks in flight. A chunk whose task fails (e.g. its worker died, taking the tasks
    queued next to it along) is retried one point per task; a point whose own task fails is
    re-run at the end alone on the cluster, so only a point that fails by itself stores the
    infrastructure error.

    Time limits: each point is interrupted in its task's thread at `time_limit_s` (stored as
    `timeout`, the task goes on with the next point). A task stuck where that cannot reach it
    (native code) gets a backstop: once the points of its chunk and of one chunk queued ahead
    of it could all have used their limit, the parent stops waiting, retries a chunk point by
    point and stores a single point as `timeout` (the worker's thread stays busy until the
    code returns)."""
    if window is None:
        nthreads = sum(client.nthreads().values()) or 1
        window = 2 * nthreads
    todo: deque[list[Point]] = deque(chunked_groups(evaluate, points, chunk))
    ahead = max((len(b) for b in todo), default=1)  # points of a task that may run before one
    finished: queue.Queue[Any] = queue.Queue()  # futures, put by Dask's callback thread
    inflight: dict[str, _DaskTask] = {}

    def submit(batch: list[Point]) -> None:
        fut = client.submit(run_points, evaluate, batch, time_limit_s, pure=False)
        backstop = time.monotonic() + (len(batch) + ahead) * time_limit_s + DASK_GRACE_S
        inflight[fut.key] = _DaskTask(fut, batch, backstop)
        fut.add_done_callback(finished.put)

    suspects: list[Point] = []
    try:
        while todo or inflight:
            while todo and len(inflight) < window:
                submit(todo.popleft())
            nearest = min(t.backstop for t in inflight.values())
            try:
                fut = finished.get(timeout=max(0.0, nearest - time.monotonic()))
            except queue.Empty:
                fut = None
            task = inflight.pop(fut.key, None) if fut is not None else None
            if task is not None:
                if fut.status == "finished":
                    yield from fut.result()
                elif len(task.batch) > 1:
                    todo.extendleft([p] for p in reversed(task.batch))
                else:
                    suspects.append(task.batch[0])
                fut.release()
            now = time.monotonic()
            for key, late in list(inflight.items()):
                if now < late.backstop:
                    continue
                del inflight[key]
                late.future.cancel()
                if len(late.batch) > 1:
                    todo.extendleft([p] for p in reversed(late.batch))
                else:
                    yield _dask_timeout(late.batch[0], time_limit_s)
    finally:
        for task in inflight.values():
            task.future.cancel()
    for p in suspects:  # alone on the cluster: a failure now is this point's own
        fut = client.submit(run_points, evaluate, [p], time_limit_s, pure=False)
        try:
            yield from fut.result(timeout=time_limit_s + DASK_GRACE_S)
        except TimeoutError:
            yield _dask_timeout(p, time_limit_s)
        except PROGRAMMING_ERRORS:  # run_points stores every failure of a point: a bug of ours
            raise
        except Exception as exc:
            # Dask's infrastructure failures (KilledWorker, CancelledError, a closed comm) have
            # no common base class: the point is stored as crashed, the sweep goes on.
            yield crashed(p, f"dask: {type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS])
        finally:
            fut.release()


def _dask_timeout(point: Point, limit_s: float) -> Outcome:
    out = timed_out(point, limit_s, "dask")
    return Outcome(point=out.point, status=out.status, accelsim_version=out.accelsim_version,
                   error=f"{out.error}; the Dask task did not return (stuck outside Python?)",
                   wall_s=out.wall_s, worker=out.worker)


# ---------------------------------------------------------------------------------------------
# the sweep

@dataclass(frozen=True, slots=True)
class SweepSummary:
    total: int  # points of the sweep after constraints
    skipped: int  # already stored before this run
    ran: int  # evaluated by this run
    failed: int  # of those, stored with an error
    wall_s: float
    infeasible: int = 0  # of those, stored as infeasible (buffers that cannot fit), never simulated
    timed_out: int = 0  # of those, stopped at the time limit
    # stored points that no longer answered their point (config edited, another timing model)
    # and ran again: (reason, count)
    stale: tuple[tuple[str, int], ...] = ()

    @property
    def rate(self) -> float:
        return self.ran / self.wall_s if self.wall_s > 0 else 0.0

    def __str__(self) -> str:
        extra = "".join(f", {n} {what}" for n, what in ((self.infeasible, "infeasible"),
                                                         (self.timed_out, "timed out")) if n)
        from accelsim.dse.staleness import describe

        again = "".join(f"; {line}, run again" for line in
                        describe(why for why, n in self.stale for _ in range(n)))
        return (f"{self.ran} points evaluated ({self.failed} failed{extra}), {self.skipped} already stored, "
                f"{self.total} in the sweep{again}; {self.wall_s:.1f} s, {self.rate:.2f} points/s")


RETRIED = (STATUS_ERROR, STATUS_TIMEOUT)  # what `retry_failed` re-runs; infeasible is a result


def default_evaluator() -> EvalFn:
    from accelsim.dse.evaluate import evaluate_point

    return evaluate_point


def run_sweep(sweep: Sweep | Iterable[Point], db: str | Path | ResultStore, *,
              evaluate: EvalFn | None = None, workers: int | None = None,
              scheduler: str | Any | None = None, progress: bool | TextIO = True,
              retry_failed: bool = False, mp_context: str | None = None,
              time_limit_s: float | None = None) -> SweepSummary:
    """Evaluate every point not yet in `db` and store each outcome as it completes.

    `workers`: local processes (default one per core; 0 = in this process). `scheduler`: a
    Dask address `tcp://host:port` or a `distributed.Client`; when given, `workers` is unused.
    `retry_failed`: re-run points stored with an error or a timeout (their rows are replaced);
    points stored as ok or infeasible are never run again. `time_limit_s`: each point's limit
    (default: the sweep's `time_limit_s`, else DEFAULT_TIME_LIMIT_S).
    SIGTERM, like Ctrl-C, stops the sweep and its workers (in the main thread: SystemExit(143)).
    """
    evaluate = evaluate or default_evaluator()
    if time_limit_s is None:
        time_limit_s = sweep.time_limit_s if isinstance(sweep, Sweep) else DEFAULT_TIME_LIMIT_S
    try:
        limit = check_time_limit(time_limit_s, "time_limit_s")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    points = sweep.points() if isinstance(sweep, Sweep) else list(sweep)
    points = list({p.key: p for p in points}.values())
    store = db if isinstance(db, ResultStore) else ResultStore(db)
    try:
        from accelsim.dse.staleness import ConfigDigests, stale_reason

        digests = ConfigDigests()
        rows = store.identities()
        todo, stale = [], []
        for p in points:
            row = rows.get(p.key)
            if row is None or (retry_failed and row["status"] in RETRIED):
                todo.append(p)
                continue
            why = stale_reason(row["config_hash"], row["timing_model"], digests(p))
            if why is not None:  # its config was edited, or another timing model computed it
                todo.append(p)
                stale.append(why)
        if isinstance(sweep, Sweep):
            store.record_sweep(sweep.name, sweep.to_dict())
        counts = dict.fromkeys((STATUS_OK, STATUS_ERROR, STATUS_INFEASIBLE, STATUS_TIMEOUT), 0)
        stream = progress if not isinstance(progress, bool) else sys.stderr
        bar = Progress(len(todo), skipped=len(points) - len(todo), stream=stream) if progress else None
        if stale and progress:
            from accelsim.dse.staleness import describe

            for line in describe(stale):
                print(f"{line}: running again", file=stream)

        def drain(outcomes: Any) -> None:
            """Store each outcome as it completes."""
            try:
                for outcome in outcomes:
                    store.put(outcome, digests(outcome.point))
                    counts[outcome.status] = counts.get(outcome.status, 0) + 1
                    if bar is not None:
                        bar.advance(outcome.ok, outcome.status)
            finally:
                close = getattr(outcomes, "close", None)
                if close is not None:
                    close()  # the runner's finally: workers stopped now, not at garbage collection

        client, own_client = None, False
        both = isinstance(sweep, Sweep) and "both" in sweep.fidelity
        if scheduler is not None and (todo or both):
            own_client = isinstance(scheduler, str)
            client = connect(scheduler) if own_client else scheduler
        start = time.perf_counter()
        try:
            with _sigterm_stops_the_sweep():
                if client is not None:
                    outcomes = dask_outcomes(evaluate, todo, client, time_limit_s=limit)
                else:
                    n = (os.cpu_count() or 1) if workers is None else workers
                    outcomes = local_outcomes(evaluate, todo, min(n, len(todo)) if n > 0 else 0, mp_context,
                                              time_limit_s=limit)
                drain(outcomes)
                confirm = getattr(evaluate, "confirm", None)
                if both and confirm is not None:  # until the front is all confirmed
                    for _ in range(len(points)):
                        again = front_to_confirm(store, points, sweep.objectives)  # type: ignore[union-attr]
                        if not again:
                            break
                        if bar is not None:
                            bar.total += len(again)
                        if client is not None:
                            drain(dask_outcomes(confirm, again, client, time_limit_s=limit))
                        else:
                            n = (os.cpu_count() or 1) if workers is None else workers
                            drain(local_outcomes(confirm, again, min(n, len(again)) if n > 0 else 0,
                                                 mp_context, time_limit_s=limit))
        finally:
            if bar is not None:
                bar.close()
            if own_client:
                client.close()
        return SweepSummary(total=len(points), skipped=len(points) - len(todo), ran=sum(counts.values()),
                            failed=counts[STATUS_ERROR], wall_s=time.perf_counter() - start,
                            infeasible=counts[STATUS_INFEASIBLE], timed_out=counts[STATUS_TIMEOUT],
                            stale=tuple(Counter(stale).most_common()))
    finally:
        if not isinstance(db, ResultStore):
            store.close()


class _sigterm_stops_the_sweep:
    """SIGTERM raises SystemExit(128 + 15) in the main thread while a sweep runs, so the
    runner's cleanup (killing its workers) runs as it does for Ctrl-C."""

    def __enter__(self) -> None:
        self.previous: Any = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._stop)

    @staticmethod
    def _stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)
