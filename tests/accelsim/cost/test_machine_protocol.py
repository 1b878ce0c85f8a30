"""The `Machine` protocol (`accelsim.cost.machine`): the event machine and the closed-form
machine both implement it, operation for operation, and agree on the timeline of straight-line
programs of DMAs, waits and kernels (no contention the closed form leaves out)."""

from __future__ import annotations

import inspect

import pytest

from accelsim.config import load_config
from accelsim.cost.dma import DmaCostModel
from accelsim.cost.machine import DmaDesc, Machine
from accelsim.estimate.state import ClosedFormMachine
from accelsim.hw.dma import Transfer
from accelsim.hw.machine import Machine as EventMachine

OPERATIONS = [n for n in vars(Machine) if not n.startswith("_")]


def test_protocol_names_the_walkers_operations() -> None:
    assert set(OPERATIONS) >= {"now", "start_dma", "wait_dma", "run_kernel", "finish"}


@pytest.mark.parametrize("cls", [EventMachine, ClosedFormMachine])
def test_each_machine_has_every_operation_with_the_protocols_parameters(cls: type) -> None:
    for name in OPERATIONS:
        want = getattr(Machine, name)
        got = getattr(cls, name, None)
        assert got is not None, f"{cls.__name__} lacks {name}"
        if isinstance(want, property):
            assert isinstance(got, property), f"{cls.__name__}.{name} is not a property"
            continue
        params = list(inspect.signature(want).parameters)
        have = list(inspect.signature(got).parameters)
        assert have[:len(params)] == params, f"{cls.__name__}.{name}{have} vs {params}"


def test_instances_satisfy_the_runtime_protocol() -> None:
    cfg = load_config("default")
    assert isinstance(EventMachine(cfg), Machine)
    assert isinstance(ClosedFormMachine(cfg), Machine)
    assert not isinstance(object(), Machine)


def _desc(cfg, n: int, kind: str) -> DmaDesc:  # type: ignore[no-untyped-def]
    c = DmaCostModel.for_config(cfg).transfer(n, None, None, 4, kind == "read", kind == "write",
                                              kind == "read", 1)
    return (c.cycles, c.dram_bytes, 4 * n, c.port_cycles, kind, f"{kind}{n}")


def _walk(m: Machine, make, program) -> list[int]:  # type: ignore[no-untyped-def]
    """Drive `m` through `program`; the clock after each operation and at the end."""
    times = []
    for op, *args in program:
        if op == "start":
            desc, tag = args
            m.start_dma(make(desc), tag)
        elif op == "wait":
            m.wait_dma(args[0], "here")
        else:
            m.run_kernel(args[0], 64, "k", "here")
        times.append(m.now)
    times.append(m.finish())
    return times


@pytest.mark.parametrize("overrides", [{}, {"control.issue_cycles": 3},
                                       {"dma.engines": 1, "dma.max_outstanding": 2}])
def test_both_machines_walk_the_same_timeline(overrides: dict[str, int]) -> None:
    cfg = load_config("default", overrides)
    program = []
    for it in range(6):  # double-buffered: prefetch the next tile, wait, compute, write back
        program += [("start", _desc(cfg, 1024 + 256 * it, "read"), ("in", (it + 1) % 2)),
                    ("wait", ("in", it % 2)), ("kernel", 900 + 50 * it),
                    ("start", _desc(cfg, 512, "write"), ("out", it % 2))]
        if it:
            program.append(("wait", ("out", (it - 1) % 2)))
    program = [("start", _desc(cfg, 1024, "read"), ("in", 0)), *program]
    ev = EventMachine(cfg)

    def transfer(desc: DmaDesc) -> Transfer:
        cycles, dram_bytes, payload, port, kind, loc = desc
        return Transfer(ev.env, cycles, dram_bytes, payload, kind, "x", loc, port)

    event_times = _walk(ev, transfer, program)
    closed_times = _walk(ClosedFormMachine(cfg), _Desc, program)
    assert event_times == closed_times
    assert event_times[-1] > 6 * 900  # the kernels alone take that long
    kernels = [r for r in ev.trace.records if r.kind == "kernel"]
    assert len(kernels) == 6 and all(r.bytes == 64 for r in kernels)


class _Desc:
    """A costed DMA for the closed-form machine (anything with `desc`)."""

    def __init__(self, desc: DmaDesc):
        self.desc = desc
