"""`SimEnv.advance_to` / `SimEnv.wait` (the control processor driving SimPy) against the same
program written as a SimPy process (yielding a `Timeout` or the event): every callback and every
control-processor step must happen at the same cycle and in the same order."""

from __future__ import annotations

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st
from simpy.events import NORMAL

from accelsim.hw.simpy_adapter import SimEnv

# an action: ("start", delay) schedules a completion `delay` cycles ahead (as a DMA engine
# does), ("busy", cycles) keeps the control processor busy, ("wait", k) waits on the k-th
# started completion (modulo how many were started)
ACTION = st.one_of(st.tuples(st.just("start"), st.integers(0, 6)),
                   st.tuples(st.just("busy"), st.integers(0, 6)),
                   st.tuples(st.just("wait"), st.integers(0, 50)))


def _completion(env: simpy.Environment, log: list, name: str, delay: int) -> simpy.Event:
    ev = simpy.Event(env)
    ev.callbacks.append(lambda _e: log.append((env.now, name)))
    ev._ok = True
    ev._value = None
    env.schedule(ev, NORMAL, delay)
    return ev


def as_process(actions: list[tuple[str, int]]) -> list:
    env = simpy.Environment()
    log: list = []
    started: list[simpy.Event] = []

    def cp():  # type: ignore[no-untyped-def]
        for i, (what, x) in enumerate(actions):
            if what == "start":
                started.append(_completion(env, log, f"done{len(started)}", x))
            elif what == "busy" and x:
                yield env.timeout(x)
            elif what == "wait" and started:
                ev = started[x % len(started)]
                if not ev.processed:
                    yield ev
            log.append((env.now, f"cp{i}"))

    env.process(cp())
    env.run()
    log.append((env.now, "end"))
    return log


def as_driver(actions: list[tuple[str, int]]) -> list:
    env = SimEnv()
    log: list = []
    started: list[simpy.Event] = []
    for i, (what, x) in enumerate(actions):
        if what == "start":
            started.append(_completion(env, log, f"done{len(started)}", x))
        elif what == "busy" and x:
            env.advance_to(env.now + x)
        elif what == "wait" and started:
            ev = started[x % len(started)]
            if not ev.processed:
                env.wait(ev)
        log.append((env.now, f"cp{i}"))
    env.run()
    log.append((env.now, "end"))
    return log


@settings(max_examples=300, deadline=None)
@given(st.lists(ACTION, max_size=40))
def test_driving_the_environment_equals_a_process(actions):
    assert as_driver(actions) == as_process(actions)


def test_same_cycle_completions_after_the_awaited_one_run_later():
    # two completions at cycle 5; waiting on the first resumes before the second is processed
    # (it was scheduled after it), as a process resumed by the first would
    actions = [("start", 5), ("start", 5), ("wait", 0), ("busy", 0), ("wait", 1)]
    log = as_driver(actions)
    assert log == as_process(actions)
    assert log.index((5, "cp2")) < log.index((5, "done1"))


def test_advance_processes_completions_due_at_the_target_first():
    actions = [("start", 4), ("busy", 4)]
    log = as_driver(actions)
    assert log == [(0, "cp0"), (4, "done0"), (4, "cp1"), (4, "end")]
