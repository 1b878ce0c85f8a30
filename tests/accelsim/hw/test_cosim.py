"""The N-processor hub: exact timelines of processors waiting for cycles, for events, and at
barriers (SimPy's style: collect (who, cycle) and compare the whole list)."""

from __future__ import annotations

import pytest

from accelsim.errors import SimulationError
from accelsim.hw.cosim import ClusterEnv
from accelsim.trace import TraceRecord


def test_processors_interleave_in_cycle_order() -> None:
    env = ClusterEnv(2)
    log: list[tuple[str, int]] = []

    def a() -> None:
        for t in (5, 12, 20):
            env.advance_to(t)
            log.append(("a", env.now))

    def b() -> None:
        ev = env.timeout(7)
        env.wait(ev)
        log.append(("b", env.now))
        env.advance_to(15)
        log.append(("b", env.now))

    env.run_all([a, b])
    assert log == [("a", 5), ("b", 7), ("a", 12), ("b", 15), ("a", 20)]


def test_barrier_releases_every_cluster_at_the_last_arrival() -> None:
    env = ClusterEnv(3)
    records: list[TraceRecord] = []
    after: list[tuple[str, int]] = []

    def body(name: str, t: int):  # type: ignore[no-untyped-def]
        def run() -> None:
            env.advance_to(t)
            env.barrier(name, records, "barrier", "x.mlir:1:1")
            after.append((name, env.now))
        return run

    env.run_all([body("c0.cp", 10), body("c1.cp", 30), body("c2.cp", 20)])
    assert sorted(after) == [("c0.cp", 30), ("c1.cp", 30), ("c2.cp", 30)]
    assert sorted((r.unit, r.start, r.end, r.kind) for r in records) == [
        ("c0.cp", 10, 30, "barrier"), ("c2.cp", 20, 30, "barrier")]


def test_a_cluster_missing_a_barrier_is_an_error() -> None:
    env = ClusterEnv(2)

    def waits() -> None:
        env.barrier("c0.cp", [], "barrier", "")

    def ends() -> None:
        env.advance_to(3)

    with pytest.raises(SimulationError, match="never reached"):
        env.run_all([waits, ends])
