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

import multiprocessing
import os
import signal
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from accelsim.dse.progress import Progress
from accelsim.dse.spec import Point, Scalar, Sweep
from accelsim.dse.store import STATUS_ERROR, STATUS_OK, Outcome, ResultStore
from accelsim.errors import ConfigError

EvalFn = Callable[[Point], Mapping[str, Scalar | None]]
MAX_ERROR_CHARS = 4000


def run_point(evaluate: EvalFn, point: Point) -> Outcome:
    """Evaluate one point in the worker; any exception becomes the point's stored error."""
    from accelsim import __version__

    start, cpu = time.perf_counter(), time.process_time()
    try:
        figures = dict(evaluate(point))
        status, error = STATUS_OK, None
    except Exception as exc:  # a failing point must never stop the sweep
        figures, status = {}, STATUS_ERROR
        error = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
    return Outcome(point=point, status=status, figures=figures, error=error,
                   accelsim_version=__version__, wall_s=time.perf_counter() - start,
                   cpu_s=time.process_time() - cpu, worker=f"{socket.gethostname()}:{os.getpid()}")


def _crashed(point: Point, why: str) -> Outcome:
    from accelsim import __version__

    return Outcome(point=point, status=STATUS_ERROR, error=why, accelsim_version=__version__)


# ---------------------------------------------------------------------------------------------
# local processes

def default_mp_context() -> str:
    """forkserver: workers fork from a clean single-threaded server with the simulator preloaded."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent, which stops the sweep and shuts the pool down."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Slot:
    """One worker process (a one-process pool) and the group of points it is working through.

    Points of one group (by the evaluator's `group_key`, e.g. the same compiled program) go to
    the same process so its caches hit; an idle slot takes the next group, and at the end of
    the sweep it steals half of the largest unfinished group.
    """

    def __init__(self, ctx: Any):
        self.ctx = ctx
        self.pool = ProcessPoolExecutor(1, mp_context=ctx, initializer=_worker_init)
        self.group: deque[Point] = deque()
        self.inflight: dict[Future[Outcome], Point] = {}
        self.broken = False

    def next_point(self, groups: deque[deque[Point]], slots: Sequence[_Slot]) -> Point | None:
        if not self.group:
            if groups:
                self.group = groups.popleft()
            else:
                victim = max(slots, key=lambda s: len(s.group))
                if len(victim.group) < 2:
                    return None
                stolen = [victim.group.pop() for _ in range(len(victim.group) // 2)]
                self.group = deque(reversed(stolen))
        return self.group.popleft()

    def restart(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = ProcessPoolExecutor(1, mp_context=self.ctx, initializer=_worker_init)
        self.inflight.clear()
        self.broken = False


def local_outcomes(evaluate: EvalFn, points: Sequence[Point], workers: int,
                   mp_context: str | None = None) -> Iterator[Outcome]:
    """Outcomes in completion order. `workers=0` evaluates in this process (for debugging).

    If the evaluator has a `group_key(point)` attribute, points with equal keys are sent to
    the same worker process (see `_Slot`). A worker that dies takes only its own point down:
    the points it had in flight are re-run alone, and the one that kills a worker again is
    stored with that error.
    """
    if workers <= 0:
        for p in points:
            yield run_point(evaluate, p)
        return
    method = mp_context or default_mp_context()
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        wanted = (getattr(evaluate, "__module__", None), "accelsim.dse.runners",
                  *getattr(evaluate, "preload", ()))
        preload = [m for m in wanted if m]
        ctx.set_forkserver_preload(preload)
    group_key = getattr(evaluate, "group_key", None)
    by_group: dict[Any, deque[Point]] = {}
    for p in points:
        by_group.setdefault(group_key(p) if group_key else p.key, deque()).append(p)
    groups = deque(by_group.values())
    slots = [_Slot(ctx) for _ in range(workers)]
    suspects: deque[Point] = deque()
    try:
        while True:
            for slot in slots:
                while len(slot.inflight) < 2:  # one running, one queued: no idle gap
                    p = slot.next_point(groups, slots)
                    if p is None:
                        break
                    try:
                        slot.inflight[slot.pool.submit(run_point, evaluate, p)] = p
                    except BrokenProcessPool:
                        suspects.append(p)
                        slot.broken = True
                        break
            owner = {f: slot for slot in slots for f in slot.inflight}
            if not owner and not suspects:
                return
            done = wait(owner, return_when=FIRST_COMPLETED)[0] if owner else set()
            for fut in done:
                slot = owner[fut]
                p = slot.inflight.pop(fut)
                try:
                    yield fut.result()
                except BrokenProcessPool:
                    suspects.append(p)
                    slot.broken = True
            for slot in slots:
                if slot.broken:
                    suspects.extend(slot.inflight.values())
                    slot.restart()
            while suspects:
                yield _run_alone(ctx, evaluate, suspects.popleft())
    finally:
        for slot in slots:
            slot.pool.shutdown(wait=False, cancel_futures=True)


def _run_alone(ctx: Any, evaluate: EvalFn, point: Point) -> Outcome:
    with ProcessPoolExecutor(1, mp_context=ctx, initializer=_worker_init) as solo:
        try:
            return solo.submit(run_point, evaluate, point).result()
        except BrokenProcessPool:
            return _crashed(point, "worker process died while evaluating this point")


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


def run_points(evaluate: EvalFn, points: Sequence[Point]) -> list[Outcome]:
    """Several points in one task, in order: one Dask task per chunk of a group, so a worker
    compiles the group's program once (the evaluator's cache) instead of once per point."""
    return [run_point(evaluate, p) for p in points]


def chunked_groups(evaluate: EvalFn, points: Sequence[Point], chunk: int) -> list[list[Point]]:
    """Points grouped by the evaluator's `group_key` (if any), in chunks of at most `chunk`."""
    group_key = getattr(evaluate, "group_key", None)
    if group_key is None or chunk <= 1:
        return [[p] for p in points]
    groups: dict[Any, list[Point]] = {}
    for p in points:
        groups.setdefault(group_key(p), []).append(p)
    return [g[i:i + chunk] for g in groups.values() for i in range(0, len(g), chunk)]


def dask_outcomes(evaluate: EvalFn, points: Sequence[Point], client: Any,
                  window: int | None = None, chunk: int = 8) -> Iterator[Outcome]:
    """Outcomes from a Dask cluster, a chunk of points of one group per task, at most
    `window` tasks in flight. A chunk whose task fails (e.g. its worker died, taking the tasks
    queued next to it along) is retried one point per task; a point whose own task fails is
    re-run at the end alone on the cluster, so only a point that fails by itself stores the
    infrastructure error."""
    from distributed import as_completed

    if window is None:
        nthreads = sum(client.nthreads().values()) or 1
        window = 2 * nthreads
    queue: deque[list[Point]] = deque(chunked_groups(evaluate, points, chunk))
    inflight: dict[str, list[Point]] = {}

    def submit() -> Any:
        batch = queue.popleft()
        fut = client.submit(run_points, evaluate, batch, pure=False)
        inflight[fut.key] = batch
        return fut

    suspects: list[Point] = []
    pending = as_completed([submit() for _ in range(min(window, len(queue)))], loop=client.loop)
    try:
        for fut in pending:
            batch = inflight.pop(fut.key)
            if fut.status == "finished":
                yield from fut.result()
            elif len(batch) > 1:
                queue.extendleft([p] for p in reversed(batch))
            else:
                suspects.append(batch[0])
            fut.release()
            while queue and len(inflight) < window:
                pending.add(submit())
    finally:
        for f in list(pending.futures):
            f.cancel()
    for p in suspects:  # alone on the cluster: a failure now is this point's own
        fut = client.submit(run_points, evaluate, [p], pure=False)
        try:
            yield from fut.result()
        except Exception as exc:  # infrastructure failure (e.g. KilledWorker), not the sweep's
            yield _crashed(p, f"dask: {type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS])
        finally:
            fut.release()


# ---------------------------------------------------------------------------------------------
# the sweep

@dataclass(frozen=True, slots=True)
class SweepSummary:
    total: int  # points of the sweep after constraints
    skipped: int  # already stored before this run
    ran: int  # evaluated by this run
    failed: int  # of those, stored with an error
    wall_s: float

    @property
    def rate(self) -> float:
        return self.ran / self.wall_s if self.wall_s > 0 else 0.0

    def __str__(self) -> str:
        return (f"{self.ran} points evaluated ({self.failed} failed), {self.skipped} already stored, "
                f"{self.total} in the sweep; {self.wall_s:.1f} s, {self.rate:.2f} points/s")


def default_evaluator() -> EvalFn:
    from accelsim.dse.evaluate import evaluate_point

    return evaluate_point


def run_sweep(sweep: Sweep | Iterable[Point], db: str | Path | ResultStore, *,
              evaluate: EvalFn | None = None, workers: int | None = None,
              scheduler: str | Any | None = None, progress: bool | TextIO = True,
              retry_failed: bool = False, mp_context: str | None = None) -> SweepSummary:
    """Evaluate every point not yet in `db` and store each outcome as it completes.

    `workers`: local processes (default one per core; 0 = in this process). `scheduler`: a
    Dask address `tcp://host:port` or a `distributed.Client`; when given, `workers` is unused.
    `retry_failed`: re-run points stored with an error (their rows are replaced).
    """
    evaluate = evaluate or default_evaluator()
    points = sweep.points() if isinstance(sweep, Sweep) else list(sweep)
    points = list({p.key: p for p in points}.values())
    store = db if isinstance(db, ResultStore) else ResultStore(db)
    try:
        done_keys = store.keys("ok") if retry_failed else store.keys()
        todo = [p for p in points if p.key not in done_keys]
        if isinstance(sweep, Sweep):
            store.record_sweep(sweep.name, sweep.to_dict())
        stream = progress if not isinstance(progress, bool) else sys.stderr
        bar = Progress(len(todo), skipped=len(points) - len(todo), stream=stream) if progress else None

        client, own_client = None, False
        if scheduler is not None and todo:
            own_client = isinstance(scheduler, str)
            client = connect(scheduler) if own_client else scheduler
        start = time.perf_counter()
        ran = failed = 0
        try:
            if client is not None:
                outcomes = dask_outcomes(evaluate, todo, client)
            else:
                n = (os.cpu_count() or 1) if workers is None else workers
                outcomes = local_outcomes(evaluate, todo, min(n, len(todo)) if n > 0 else 0, mp_context)
            for outcome in outcomes:
                store.put(outcome)
                ran += 1
                failed += not outcome.ok
                if bar is not None:
                    bar.advance(outcome.ok)
        finally:
            if bar is not None:
                bar.close()
            if own_client:
                client.close()
        return SweepSummary(total=len(points), skipped=len(points) - len(todo), ran=ran, failed=failed,
                            wall_s=time.perf_counter() - start)
    finally:
        if not isinstance(db, ResultStore):
            store.close()
