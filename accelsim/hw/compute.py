"""A compute unit (vector lanes or a MAC array). Kernel cycles come from the cost model;
the unit is a SimPy resource so that concurrent kernels would queue."""

from __future__ import annotations

from collections.abc import Generator

import simpy

from accelsim.trace import Trace


class ComputeUnit:
    def __init__(self, env: simpy.Environment, index: int, trace: Trace):
        self.env = env
        self.name = f"compute{index}"
        self.trace = trace
        self.resource = simpy.Resource(env, capacity=1)

    def run(self, cycles: int, label: str, loc: str, nbytes: int = 0
            ) -> Generator[simpy.Event, object, None]:
        with self.resource.request() as req:
            yield req
            start = self.env.now
            if cycles:
                yield self.env.timeout(cycles)
            self.trace.add(self.name, start, self.env.now, "kernel", nbytes, label, loc)
