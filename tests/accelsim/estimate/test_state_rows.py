"""`ClosedFormMachine.dma_rows` / `wait_rows` (the tile search's replay issues a copy's rows
with them) leave the machine exactly as `dma` / `wait` per row do."""

from __future__ import annotations

import random

import pytest

from accelsim.config import load_config
from accelsim.estimate.state import ClosedFormMachine

CONFIGS = [
    ("default", {}),
    ("default", {"dma.engines": 1, "dma.queue_depth": 2}),
    ("default", {"dma.engines": 3, "dram.channels": 16, "dma.max_outstanding": 2}),
    ("default", {"control.issue_cycles": 3, "dram.channels": 4}),
    ("edge", {}),
    ("server", {}),
]


def _state(m: ClosedFormMachine) -> tuple[object, ...]:
    return (m.t, m.front, m.due, m.counters(), m.signature(), sorted(m.tags.items()),
            [list(p) for p in m.pending], list(m.loads), list(m.busy), list(m.free_at),
            m.next_channel)


@pytest.mark.parametrize("preset,over", CONFIGS)
def test_rows_equal_one_descriptor_at_a_time(preset, over):
    cfg = load_config(preset).with_overrides(over)
    rng = random.Random(7)
    batched, single = ClosedFormMachine(cfg), ClosedFormMachine(cfg)
    for step in range(300):
        kind = rng.random()
        if kind < 0.5:
            nbytes = rng.choice([64, 256, 1000, 4096])
            port, cycles = rng.randint(1, 80), rng.randint(1, 300)
            prefix, count = (step % 5, rng.randint(0, 3)), rng.randint(0, 40)
            batched.dma_rows(nbytes, port, cycles, prefix, count)
            for j in range(count):
                single.dma(nbytes, port, cycles, (*prefix, j))
        elif kind < 0.85:
            prefix, count = (rng.randint(0, 4), rng.randint(0, 3)), rng.randint(0, 45)
            batched.wait_rows(prefix, count)
            for j in range(count):
                single.wait((*prefix, j))
        else:
            cycles = rng.randint(0, 500)
            batched.busy_for(cycles)
            single.busy_for(cycles)
        assert _state(batched) == _state(single), f"step {step}"
    assert batched.end() == single.end()


def test_a_subclass_that_changes_dma_gets_it_per_row():
    seen: list[tuple[int, ...]] = []

    class Counting(ClosedFormMachine):
        def dma(self, dram_bytes, port, T, tag, write=False):  # type: ignore[no-untyped-def]
            seen.append(tag)
            super().dma(dram_bytes, port, T, tag, write)

    Counting(load_config("default")).dma_rows(256, 4, 16, (1, 2), 3)
    assert seen == [(1, 2, 0), (1, 2, 1), (1, 2, 2)]
