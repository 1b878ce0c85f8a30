"""`accelsim.hw.simpy_adapter`, the one module that touches SimPy's internals: the SimPy release
it was written against, each internal it relies on, and that nothing else in accelsim/ touches
them."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import simpy
from simpy.core import EmptySchedule
from simpy.events import NORMAL, URGENT

from accelsim.hw.simpy_adapter import SIMPY_VERSIONS, SimEnv, TriggeredEvent

ROOT = Path(__file__).resolve().parents[3]


def test_the_installed_simpy_is_a_release_the_adapter_was_written_against():
    major_minor = ".".join(simpy.__version__.split(".")[:2])
    assert major_minor in SIMPY_VERSIONS, (
        f"SimPy {simpy.__version__}: accelsim/hw/simpy_adapter.py relies on SimPy's internals "
        f"as of {SIMPY_VERSIONS}; check each assumption in this file, then add the release")


def test_the_internals_the_adapter_relies_on():
    env = simpy.Environment()
    assert isinstance(env._queue, list) and env._now == 0
    assert isinstance(env._eid, type(itertools.count()))
    t = env.timeout(3)
    (when, prio, eid, ev), = env._queue  # a heap of (time, priority, event id, event)
    assert (when, prio, ev) == (3, NORMAL, t) and isinstance(eid, int)
    assert t._ok is True and t._value is None and t.callbacks == []
    env.run()
    assert t.callbacks is None and env._now == 3  # processed: callbacks set to None
    failed = simpy.Event(env)
    failed.fail(ValueError("x"))
    assert failed._ok is False and isinstance(failed._value, ValueError)
    failed.defused = True
    assert failed._defused is True
    assert URGENT < NORMAL


def test_simpy_processes_run_on_the_adapter_environment_as_on_simpy():
    def model(env: simpy.Environment, log: list) -> None:
        res = simpy.Resource(env, capacity=1)

        def user(name: str, hold: int):  # type: ignore[no-untyped-def]
            with res.request() as req:
                yield req
                log.append((env.now, name, "got"))
                yield env.timeout(hold)
                log.append((env.now, name, "done"))

        for k in range(3):
            env.process(user(f"u{k}", 2 + k))
        env.run()
        log.append((env.now, "end", ""))

    a: list = []
    b: list = []
    model(simpy.Environment(), a)
    model(SimEnv(), b)
    assert a == b == [(0, "u0", "got"), (2, "u0", "done"), (2, "u1", "got"), (5, "u1", "done"),
                      (5, "u2", "got"), (9, "u2", "done"), (9, "end", "")]


def test_now_is_the_clock_simpy_keeps():
    env = SimEnv(initial_time=5)
    assert env.now == 5 == env._now
    seen = []
    ev = TriggeredEvent.__new__(TriggeredEvent)
    ev.env, ev.callbacks = env, [lambda e: seen.append(env.now)]
    env.schedule_at(9, ev)
    env.timeout(2)  # due at 7, processed first
    assert env.next_due() == 7
    env.process_next()
    assert env.now == 7 and not seen
    env.advance_to(20)
    assert seen == [9] and env.now == 20 and env.next_due() is None
    env.run(until=25)
    assert env.now == 25


def test_wait_on_an_event_never_scheduled_is_an_empty_schedule():
    env = SimEnv()
    ev = simpy.Event(env)
    with pytest.raises(EmptySchedule):
        env.wait(ev)


def test_a_failed_event_nobody_defused_crashes_the_driver():
    env = SimEnv()
    ev = simpy.Event(env)
    ev.fail(KeyError("boom"))
    try:
        env.advance_to(1)
    except KeyError as exc:
        assert isinstance(exc.__cause__, KeyError)
    else:
        raise AssertionError("no crash")
    env2 = SimEnv()
    ok = simpy.Event(env2)
    ok.fail(KeyError("quiet"))
    ok.defused = True
    env2.advance_to(1)


# SimPy's private fields: an environment's queue, clock and event ids, an event's state, the
# queue-entry priority; only the adapter may name them
_PRIVATE = re.compile(r"\._(queue|now|eid|ok|value|defused)\b|[\"']_defused[\"']|"
                      r"^\s+_(ok|value) = |\bNORMAL\b|\bURGENT\b|EmptySchedule", re.M)


def test_only_the_adapter_touches_simpy_internals():
    users = {}
    for path in sorted((ROOT / "accelsim").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        if rel == "accelsim/hw/simpy_adapter.py" or ("simpy" not in text and "env" not in text):
            continue
        hits = [m.group(0) for m in _PRIVATE.finditer(text)]
        if rel == "accelsim/dse/store.py":  # SQLite's `synchronous=NORMAL` pragma
            hits = [h for h in hits if h != "NORMAL"]
        if hits:
            users[rel] = hits
    assert not users, f"SimPy internals outside accelsim/hw/simpy_adapter.py: {users}"
