"""The local runner: one worker process per slot, points and outcomes over a pipe.

Each worker takes a point, says it started, evaluates it and sends back the outcome; the
parent keeps two points in flight per worker (one running, one queued: no idle gap) and knows
which one is running, so it can

- end a point at its time limit: the worker is killed (SIGKILL: native code cannot ignore it)
  and the point is stored as `timeout`; a fresh worker takes the points that were queued;
- tell a point that kills its worker (a segfault in native code) from the points queued next
  to it: only the running one is re-run, alone, and stored with the error if it kills its
  worker again;
- stop every worker at once when the sweep ends for any reason (an exception, Ctrl-C,
  SIGTERM): the `finally` kills them. A sweep killed outright (SIGKILL) cannot run that; the
  workers and the fork server then end by themselves (`accelsim.dse.lifeline`).

Points of one group (the evaluator's `group_key`, e.g. one compiled program) go to the same
worker so its caches hit; an idle worker takes the next group, and at the end of the sweep it
takes half of the largest unfinished group.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from pathlib import Path

from accelsim.dse.lifeline import FORKSERVER_GUARD, announce_sweep, bind_worker
from accelsim.dse.spec import Point, Scalar
from accelsim.dse.store import STATUS_ERROR, STATUS_TIMEOUT, Outcome
from accelsim.dse.time_limit import timeout_message

EvalFn = Callable[[Point], Mapping[str, Scalar | None]]
RunPoint = Callable[[EvalFn, Point], Outcome]
IN_FLIGHT = 2  # per worker: the running point and the next one
DIED = "worker process died while evaluating this point"


def default_mp_context() -> str:
    """forkserver: workers fork from a clean single-threaded server with the simulator preloaded."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def context_for(evaluate: EvalFn, mp_context: str | None) -> BaseContext:
    check_main_guard(evaluate)
    method = mp_context or default_mp_context()
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        wanted = (FORKSERVER_GUARD, getattr(evaluate, "__module__", None), "accelsim.dse.runners",
                  *getattr(evaluate, "preload", ()))
        ctx.set_forkserver_preload([m for m in wanted if m])  # type: ignore[attr-defined]
        announce_sweep()
    return ctx


class main_script_hidden:
    """While a worker starts: the sweep's script (`__main__`) hidden from multiprocessing, so
    the worker (and the fork server) do not import it again: a script that runs its sweep at
    top level, without `if __name__ == "__main__":`, would run the sweep again in every worker
    and fail there. Only when neither function the worker runs lives in the script."""

    def __init__(self, *functions: Callable[..., object]):
        self.active = all(getattr(f, "__module__", None) != "__main__" for f in functions)
        self.saved: dict[str, object] = {}

    def __enter__(self) -> None:
        main = sys.modules.get("__main__")
        if not self.active or main is None:
            return
        for name in ("__file__", "__spec__"):
            if name in vars(main):
                self.saved[name] = vars(main)[name]
        main.__spec__ = None
        if "__file__" in self.saved:
            del main.__file__

    def __exit__(self, *exc: object) -> None:
        main = sys.modules.get("__main__")
        if main is not None:
            for name, value in self.saved.items():
                setattr(main, name, value)
        self.saved.clear()


def check_main_guard(evaluate: EvalFn) -> None:
    """An evaluation function defined in the sweep's script needs the workers to import that
    script: refuse, before anything runs or is stored, a script that would then run its sweep
    again in every worker (no `if __name__ == "__main__":` guard)."""
    if getattr(evaluate, "__module__", None) != "__main__":
        return
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if not path or not os.path.isfile(path):
        return  # interactive: the function cannot reach a worker anyway (pickling says so)
    import ast

    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return
    guarded = any(isinstance(n, ast.If) and "__name__" in ast.unparse(n.test)
                  and "__main__" in ast.unparse(n.test) for n in tree.body)
    if not guarded:
        from accelsim.errors import ConfigError

        raise ConfigError(
            f"{path}: the evaluation function {getattr(evaluate, '__name__', '?')} is defined in "
            "this script, which every worker process imports again: put the sweep under "
            "`if __name__ == \"__main__\":` (or run it in this process: workers=0)")


def serve(conn: Connection, evaluate: EvalFn, run_point: RunPoint) -> None:
    """A worker's life: points in, ("started", key) and ("outcome", Outcome) out, until EOF."""
    bind_worker()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            point = conn.recv()
        except (EOFError, OSError):
            return
        if point is None:
            return
        conn.send(("started", point.key))
        conn.send(("outcome", run_point(evaluate, point)))


class Worker:
    """One worker process, the pipe to it, and the points sent to it not yet answered."""

    def __init__(self, ctx: BaseContext, evaluate: EvalFn, run_point: RunPoint):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc: BaseProcess = ctx.Process(target=serve, args=(child, evaluate, run_point),  # type: ignore[attr-defined]
                                             daemon=True, name="accelsim-dse-worker")
        with main_script_hidden(evaluate, run_point):
            self.proc.start()
        child.close()
        self.sent: deque[Point] = deque()
        self.started_at: float | None = None  # monotonic time the first of `sent` started
        self.dead = False

    def send(self, point: Point) -> bool:
        """False (and the worker counts as dead) if the worker is gone."""
        try:
            self.conn.send(point)
        except OSError:  # BrokenPipeError: it died since the last message
            self.dead = True
            return False
        self.sent.append(point)
        return True

    def receive(self) -> tuple[str, object] | None:
        """The next message, or None when the worker is gone."""
        try:
            return self.conn.recv()  # type: ignore[no-any-return]
        except (EOFError, OSError):
            self.dead = True
            return None

    @property
    def name(self) -> str:
        return f"{socket.gethostname()}:{self.proc.pid}"

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=10)
        self.conn.close()
        self.dead = True


class Slot:
    """A worker and the group of points it is working through."""

    def __init__(self, ctx: BaseContext, evaluate: EvalFn, run_point: RunPoint):
        self.args = (ctx, evaluate, run_point)
        self.worker = Worker(*self.args)
        self.group: deque[Point] = deque()

    def next_point(self, groups: deque[deque[Point]], slots: Sequence[Slot]) -> Point | None:
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

    def fill(self, groups: deque[deque[Point]], slots: Sequence[Slot]) -> None:
        while len(self.worker.sent) < IN_FLIGHT and not self.worker.dead:
            p = self.next_point(groups, slots)
            if p is None:
                return
            if not self.worker.send(p):
                self.group.appendleft(p)

    def replace_worker(self) -> Point | None:
        """Kill the worker, start a fresh one; the running point is returned, the queued ones
        go back to the front of this slot's group."""
        old = self.worker
        old.kill()
        running = old.sent.popleft() if old.sent else None
        self.group.extendleft(reversed(old.sent))
        self.worker = Worker(*self.args)
        return running


def timed_out(point: Point, limit_s: float, worker: str) -> Outcome:
    from accelsim import __version__

    return Outcome(point=point, status=STATUS_TIMEOUT, error=timeout_message(limit_s),
                   accelsim_version=__version__, wall_s=limit_s, worker=worker)


def crashed(point: Point, why: str) -> Outcome:
    from accelsim import __version__

    return Outcome(point=point, status=STATUS_ERROR, error=why, accelsim_version=__version__)


def local_outcomes(evaluate: EvalFn, points: Sequence[Point], workers: int, time_limit_s: float,
                   run_point: RunPoint, mp_context: str | None = None) -> Iterator[Outcome]:
    """Outcomes in completion order from `workers` processes (see the module doc)."""
    ctx = context_for(evaluate, mp_context)
    group_key: Callable[[Point], Hashable] | None = getattr(evaluate, "group_key", None)
    by_group: dict[Hashable, deque[Point]] = {}
    for p in points:
        by_group.setdefault(group_key(p) if group_key else p.key, deque()).append(p)
    groups = deque(by_group.values())
    slots: list[Slot] = []
    suspects: deque[Point] = deque()
    try:
        slots.extend(Slot(ctx, evaluate, run_point) for _ in range(workers))
        while True:
            for slot in slots:
                slot.fill(groups, slots)
                if slot.worker.dead:  # died since its last message: its points to a fresh one
                    _replace_dead(slot, suspects)
                    slot.fill(groups, slots)
            busy = [s for s in slots if s.worker.sent]
            if not busy and not suspects:
                return
            if busy:
                yield from _step(busy, time_limit_s, suspects)
            while suspects:
                yield _run_alone(ctx, evaluate, run_point, suspects.popleft(), time_limit_s)
    finally:
        for slot in slots:
            slot.worker.kill()


def _step(busy: Sequence[Slot], limit_s: float, suspects: deque[Point]) -> Iterator[Outcome]:
    """Wait for the next message (or the first time limit), and act on it."""
    now = time.monotonic()
    deadlines = [s.worker.started_at + limit_s for s in busy if s.worker.started_at is not None]
    timeout = max(0.0, min(deadlines) - now) if deadlines else None
    ready = wait([s.worker.conn for s in busy], timeout)
    for slot in busy:
        w = slot.worker
        if w.conn not in ready:
            continue
        while not w.dead and w.conn.poll():
            msg = w.receive()
            if msg is None:
                break
            kind, value = msg
            if kind == "started":
                w.started_at = time.monotonic()
            else:
                w.sent.popleft()
                w.started_at = None
                assert isinstance(value, Outcome)
                yield value
        if w.dead:
            _replace_dead(slot, suspects)
    now = time.monotonic()
    for slot in busy:
        w = slot.worker
        if w.started_at is not None and now >= w.started_at + limit_s and not w.conn.poll():
            name = w.name
            running = slot.replace_worker()
            if running is not None:
                yield timed_out(running, limit_s, name)


def _replace_dead(slot: Slot, suspects: deque[Point]) -> None:
    running = slot.replace_worker()
    if running is not None:
        suspects.append(running)  # re-run alone: was it this point that killed the worker?


def _run_alone(ctx: BaseContext, evaluate: EvalFn, run_point: RunPoint, point: Point,
               limit_s: float) -> Outcome:
    """A point whose worker died, in a worker of its own: its outcome, or the crash."""
    w = Worker(ctx, evaluate, run_point)
    try:
        w.send(point)
        deadline: float | None = None
        while True:
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not wait([w.conn], timeout):
                return timed_out(point, limit_s, w.name)
            msg = w.receive()
            if msg is None:
                return crashed(point, DIED)
            kind, value = msg
            if kind == "started":
                deadline = time.monotonic() + limit_s
            else:
                assert isinstance(value, Outcome)
                return value
    finally:
        w.kill()

