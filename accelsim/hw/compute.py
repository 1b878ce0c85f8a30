"""A compute unit (vector lanes or a MAC array). Kernel cycles come from the cost model.

The in-order control processor blocks on each call, so one unit never sees contention: a
kernel is the control processor advancing the clock by its cycles (no event at all)."""

from __future__ import annotations

import simpy

from accelsim.trace import Trace, TraceRecord

_tnew = tuple.__new__


class ComputeUnit:
    def __init__(self, env: simpy.Environment, index: int, trace: Trace):
        self.env = env
        self.name = f"compute{index}"
        self.trace = trace

    def record(self, start: int, end: int, label: str, loc: str, nbytes: int = 0) -> None:
        """The unit was busy with kernel `label` in [start, end). (Specialized call handlers,
        `cp_compile.compile_call`, append the same record directly.)"""
        self.trace.records.append(_tnew(TraceRecord, (self.name, start, end, "kernel", nbytes,
                                                      label, loc)))
