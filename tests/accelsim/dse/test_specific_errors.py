"""The DSE's catches name what they expect: a bad config groups as unconfigurable, a failing
point is stored (a programming error with where it was raised), a Dask infrastructure failure
is stored as crashed, and a bug of ours (AttributeError, ...) is never taken for either."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from accelsim.dse import Sweep
from accelsim.dse.runners import dask_outcomes, run_point
from accelsim.dse.spec import Point


def _point(**hardware) -> Point:
    return Sweep(workloads=["gemm:M=16,N=16,K=16"], hardware=hardware).points()[0]


def test_compile_group_of_a_bad_config_is_unconfigurable_and_a_bug_surfaces(monkeypatch):
    from accelsim.dse import evaluate

    # a point the sweep's own check would refuse, as a stale or hand-made one can be
    p = dataclasses.replace(_point(), hardware=(("sram.capacity_kib", 0),))
    assert evaluate.compile_group(p) == ("unconfigurable", p.key)

    def broken(name, hardware):
        raise AttributeError("a bug in the config loader")

    monkeypatch.setattr(evaluate, "_config", broken)
    with pytest.raises(AttributeError, match="a bug in the config loader"):
        evaluate.compile_group(_point())


def _value_error(point: Point) -> dict:
    raise ValueError("SRAM too small")


def _attribute_error(point: Point) -> dict:
    return point.no_such_field  # type: ignore[attr-defined]


def test_run_point_stores_a_failure_and_where_a_programming_error_was_raised():
    out = run_point(_value_error, _point())
    assert (out.status, out.error) == ("error", "ValueError: SRAM too small")
    out = run_point(_attribute_error, _point())
    assert out.status == "error"
    assert out.error.startswith("AttributeError: ") and "no_such_field" in out.error
    line = _attribute_error.__code__.co_firstlineno + 1
    assert out.error.endswith(f" (raised at {__file__}:{line})"), out.error


class KilledWorker(Exception):
    """Stands for distributed's KilledWorker (no dask needed)."""


class _Future:
    keys = itertools.count()

    def __init__(self, exc: Exception):
        self.key, self.status, self.exc = f"f{next(self.keys)}", "error", exc

    def add_done_callback(self, fn) -> None:
        fn(self)

    def result(self, timeout=None):
        raise self.exc

    def release(self) -> None:
        pass

    def cancel(self) -> None:
        pass


class _Client:
    def __init__(self, exc: Exception):
        self.exc = exc

    def nthreads(self) -> dict:
        return {"w": 1}

    def submit(self, *args, pure=True) -> _Future:
        return _Future(self.exc)


def test_dask_infrastructure_failure_is_stored_and_a_bug_is_raised():
    p = _point()
    (out,) = dask_outcomes(_value_error, [p], _Client(KilledWorker("worker died")), time_limit_s=5)
    assert out.status == "error" and out.error.startswith("dask: KilledWorker: worker died")
    with pytest.raises(AttributeError, match="a bug in run_points"):
        list(dask_outcomes(_value_error, [p], _Client(AttributeError("a bug in run_points")),
                           time_limit_s=5))
