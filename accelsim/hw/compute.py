"""A compute unit (vector lanes or a MAC array). Kernel cycles come from the cost model.

The in-order control processor blocks on each call, so one unit never sees contention and a
kernel is a single timeout (no request/release events on the hot path)."""

from __future__ import annotations

import simpy

from accelsim.trace import Trace, TraceRecord


class ComputeUnit:
    def __init__(self, env: simpy.Environment, index: int, trace: Trace):
        self.env = env
        self.name = f"compute{index}"
        self.trace = trace

    def record(self, start: int, end: int, label: str, loc: str, nbytes: int = 0) -> None:
        self.trace.records.append(TraceRecord(self.name, start, end, "kernel", nbytes, label, loc))
