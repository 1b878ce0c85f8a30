"""The `Machine` protocol: what a walker of the control program drives.

A walker reads the program (loops, index arithmetic, which DMA and which kernel) and asks the
machine for time; the machine owns the clock and every contention rule. Two machines
implement it:

- the event machine, `accelsim.hw.machine.Machine` (SimPy events: contention, queueing, DRAM
  state, trace records), driven by the executor's handlers (`accelsim.sim.handlers`);
- the closed-form machine, `accelsim.estimate.state.ClosedFormMachine` (free-at cycles), driven
  by the analytic estimate (`accelsim.estimate.analytic`) and the tile search's replay
  (`accelsim.compile.tile_replay`).

Both take every cost from this package: a DMA arrives already costed (`Described.desc`, the
`accelsim.cost.dma` transfer as the event machine's `Transfer` carries it), a kernel as its
cycles from `accelsim.cost.kernel`. Issue cycles are the machine's: `start_dma` and
`run_kernel` each spend them before the descriptor or the kernel starts.

tests/accelsim/cost/test_machine_protocol.py holds both to the protocol (a structural check that
fails on a missing or renamed operation) and to the same timeline on programs of DMAs, waits
and kernels where the closed form is exact.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol, runtime_checkable

# (transfer cycles on one channel, bytes moved on DRAM at burst granularity, bytes the program
#  asked for, SRAM-port bound on an interleaved transfer, kind "read" / "write" / "copy", the
#  op's location): `accelsim.hw.dma.Transfer.desc`
DmaDesc = tuple[int, int, int, int, str, str]


class Described(Protocol):
    """A costed DMA: a `TransferShape`, a `Transfer` (the event machine needs one: it is the
    completion event), or any object carrying the description."""

    @property
    def desc(self) -> DmaDesc: ...


@runtime_checkable
class Machine(Protocol):
    """The operations every walker needs (module docstring). `tag` is the walker's name for a
    tag slot (hashable); a slot holds the last DMA started on it until it is waited on."""

    @property
    def now(self) -> int:
        """The control processor's clock, in cycles."""
        ...

    def start_dma(self, xfer: Described, tag: Hashable) -> None:
        """Issue one descriptor: the issue cycles, then the engine the policy picks (the
        control processor stalls while that engine's queue is full); its completion signals
        `tag`."""
        ...

    def wait_dma(self, tag: Hashable, loc: str) -> None:
        """Block until the DMA last started on `tag` completes, and free the slot; at once if
        it has or if none was started (a walker that must refuse that checks first)."""
        ...

    def run_kernel(self, cycles: int, sram_bytes: int, label: str, loc: str) -> None:
        """A kernel call: the issue cycles, then the compute unit busy `cycles` while the
        control processor waits for it."""
        ...

    def finish(self) -> int:
        """Let every DMA still in flight complete; the cycle the last one ends (or the clock)."""
        ...
