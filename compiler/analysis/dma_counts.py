"""DMA waits whose element count no transfer on their tag can have, found on the program as
written.

An `affine.dma_wait %tag[...], %n` names the element count of the transfer it waits for (as
MLIR defines it). When `%n` is a constant and every `affine.dma_start` signalling the same
tag memref moves a constant count, none of them `%n`, the wait cannot match any transfer:
the program is wrong, whichever tag element each op picks. The simulator checks the count of
every wait it executes against the transfer it consumes; this check finds the certain cases
before anything runs (counts that are run-time values are left to the simulator).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.diagnostics import DiagnosticError
from compiler.ir.core import OpResult, Value
from compiler.ir.ops import AffineDmaStartOp, AffineDmaWaitOp, ConstantOp, FuncOp


class DmaCountError(DiagnosticError):
    """A dma_wait names an element count that no dma_start on its tag moves."""


@dataclass(frozen=True, slots=True)
class CountMismatch:
    wait: AffineDmaWaitOp
    count: int
    starts: tuple[tuple[AffineDmaStartOp, int], ...]  # every dma_start on the tag, its count

    def message(self) -> str:
        tag = self.wait.tag.name_hint or "its tag"
        moved = ", ".join(f"{n} (dma_start at {op.loc})" for op, n in self.starts[:3])
        more = f" and {len(self.starts) - 3} more" if len(self.starts) > 3 else ""
        return (f"affine.dma_wait on %{tag} waits for {self.count} element(s), but every "
                f"affine.dma_start signalling %{tag} moves another count: {moved}{more}")


def _constant(v: Value) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.owner, ConstantOp) and isinstance(v.owner.value, int):
        return v.owner.value
    return None


def dma_count_mismatches(func: FuncOp) -> list[CountMismatch]:
    """Every dma_wait of `func` whose constant count no dma_start on its tag moves."""
    starts: dict[int, list[tuple[AffineDmaStartOp, int | None]]] = {}
    waits: list[AffineDmaWaitOp] = []
    for op in func.walk():
        if isinstance(op, AffineDmaStartOp):
            starts.setdefault(id(op.tag), []).append((op, _constant(op.num_elements)))
        elif isinstance(op, AffineDmaWaitOp):
            waits.append(op)
    out = []
    for w in waits:
        n = _constant(w.num_elements)
        on_tag = starts.get(id(w.tag), [])
        if n is None or not on_tag or any(c is None or c == n for _, c in on_tag):
            continue
        out.append(CountMismatch(w, n, tuple((op, c) for op, c in on_tag if c is not None)))
    return out


def check_dma_counts(func: FuncOp) -> None:
    """Raise `DmaCountError` (at the wait) for the first wait of `func` no transfer matches."""
    bad = dma_count_mismatches(func)
    if bad:
        raise DmaCountError(bad[0].message(), bad[0].wait.loc)
