"""What real hardware would corrupt silently, said as an error naming the op, its location
and the simulated cycle: races with a DMA in flight, accesses outside a memref, a use after
`memref.dealloc`, a reused tag, a wait that would never return.

The handlers decide *whether* something may be wrong with cheap span tests; these methods
decide whether it really is (exact region overlap, point by point) and raise the message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import numpy as np

from accelsim.errors import HazardError, SimulationError
from accelsim.hw.simpy_adapter import SimEnv
from accelsim.sim.memory import Buffer, InFlightDma, TransferShape
from accelsim.sim.regions import Region
from compiler.ir import ops as O
from compiler.ir.core import Operation


def first_in_flight(buf: Buffer, reads: bool, hit: Callable[[Region], bool]
                    ) -> tuple[InFlightDma, bool] | None:
    """The earliest issued DMA in flight on `buf` whose side on `buf` satisfies `hit`, and
    whether that side writes `buf`; DMAs reading `buf` count only if `reads`. (A DMA from a
    buffer into itself: its reading side counts first.)"""
    best: tuple[int, int, InFlightDma] | None = None
    for writes, xs in ((False, buf.reading if reads else ()), (True, buf.writing)):
        for x in xs:
            if hit(x.region(writes)) and (best is None or (x.seq, writes) < best[:2]):
                best = (x.seq, writes, x)
    return None if best is None else (best[2], bool(best[1]))


class Hazards:
    """The hazard messages of one run (they name the cycle: `env.now`)."""

    def __init__(self, env: SimEnv, levels: dict[int, str] | None = None):
        self.env = env
        # memory levels: memory space -> level name, so messages say where a buffer lives
        # (the two-level machine: none, the messages as they always were)
        self.levels = levels or {}

    def _in(self, buf: Buffer, idx: object = "") -> str:
        """A buffer (and an index in it) as messages name it: with memory levels,
        `A[3] (in glb)`."""
        level = self.levels.get(buf.space)
        return f"{buf.name}{idx} (in {level})" if level else f"{buf.name}{idx}"

    # ---- any op ---------------------------------------------------------------------------
    def check_alive(self, buf: Buffer, op: Operation) -> None:
        if not buf.alive:
            raise HazardError(f"{op.NAME} uses {buf.name} after its memref.dealloc "
                              f"(cycle {self.env.now})", op.loc)

    def checked_index(self, op: Operation, buf: Buffer, idx: tuple[int, ...], what: str) -> int:
        """The row-major linear index of `idx` in `buf`; an index outside it is an error."""
        for d, (i, n) in enumerate(zip(idx, buf.shape)):
            if not 0 <= i < n:
                raise HazardError(
                    f"{op.NAME} {what}{list(idx)} is outside {buf.type} ({self._in(buf)}): index {i} "
                    f"of dimension {d} not in [0, {n - 1}] (cycle {self.env.now})", op.loc)
        return sum(i * s for i, s in zip(idx, buf.strides))

    def race(self, op: Operation, verb: str, buf: Buffer, f: InFlightDma, f_writes: bool,
             lin: int | None) -> NoReturn:
        """`op` touches `buf` while `f` (writing `buf` if `f_writes`) is in flight."""
        where = ""
        if lin is not None:
            where = f" element {[int(x) for x in np.unravel_index(lin, buf.shape)]}" if buf.shape else ""
        direction = "into" if f_writes else "out of"
        raise HazardError(
            f"{op.NAME} {verb} {self._in(buf)}{where} at cycle {self.env.now} while a DMA {direction} "
            f"it is in flight ({f.label}, {f.op.NAME} at {f.op.loc}, issued at cycle {f.issued}): "
            f"a dma_wait on its tag must come first", op.loc)

    def scalar_access(self, op: Operation, buf: Buffer, lin: int, writes: bool) -> None:
        """A load (store if `writes`) of element `lin` of `buf` in the control program."""
        if buf.writing or (writes and buf.reading):
            first = first_in_flight(buf, writes, lambda r: r.hits(lin, lin + 1))
            if first is not None:
                self.race(op, "writes" if writes else "reads", buf, first[0], first[1], lin)

    def check_dealloc(self, op: O.DeallocOp, buf: Buffer) -> None:
        if buf.reading or buf.writing:
            first = first_in_flight(buf, True, lambda r: True)
            assert first is not None
            f, writes = first
            raise HazardError(
                f"memref.dealloc of {self._in(buf)} at cycle {self.env.now} while a DMA "
                f"{'into' if writes else 'out of'} it is in flight ({f.op.NAME} at {f.op.loc}, "
                f"issued at cycle {f.issued})", op.loc)

    # ---- DMA ------------------------------------------------------------------------------
    def timing_op_in_kernel(self, call: O.CallOp) -> NoReturn:
        raise SimulationError(f"kernel @{call.callee} contains DMA or timing ops", call.loc)

    def tag_reuse(self, op: Operation, tag: Buffer, idx: tuple[int, ...], prev: InFlightDma
                  ) -> NoReturn:
        raise HazardError(
            f"affine.dma_start reuses tag {tag.name}{list(idx)} "
            f"at cycle {self.env.now} while the transfer it signals is not yet waited on "
            f"({prev.label}, issued at cycle {prev.issued} by the dma_start at {prev.op.loc})",
            op.loc)

    def wait_count(self, op: Operation, tag: Buffer, idx: tuple[int, ...], count: int,
                   pend: InFlightDma) -> NoReturn:
        raise HazardError(
            f"affine.dma_wait on {tag.name}{list(idx)} at cycle {self.env.now} waits for "
            f"{count} element(s), but the transfer it signals ({pend.label}, issued at cycle "
            f"{pend.issued} by the dma_start at {pend.op.loc}) moves {pend.shape.count}", op.loc)

    def deadlock(self, op: Operation, tag: Buffer, idx: tuple[int, ...]) -> NoReturn:
        raise HazardError(
            f"affine.dma_wait on {tag.name}{list(idx)} at cycle "
            f"{self.env.now}: no DMA in flight signals this tag, so the wait would never "
            "return (deadlock)", op.loc)

    def dma_read_race(self, op: Operation, src: Buffer, x: InFlightDma, s0: int,
                      sh: TransferShape) -> None:
        """`x` writes `src` with an overlapping span: an error if the regions really overlap
        (`src.writing` is in issue order, so the first such `x` is the earliest)."""
        sreg = Region(s0, *sh.s_tail)
        if x.region(True).overlaps(sreg):
            self.race(op, "reads", src, x, True, sreg.first_common(x.region(True)))

    def dma_overwrite_race(self, op: Operation, dst: Buffer, d0: int, sh: TransferShape) -> None:
        """Spans overlap: an error if the regions really do (the earliest such DMA)."""
        dreg = Region(d0, *sh.d_tail)
        first = first_in_flight(dst, True, dreg.overlaps)
        if first is not None:
            f, writes = first
            self.race(op, "overwrites", dst, f, writes, dreg.first_common(f.region(writes)))

    def dma_bounds(self, op: Operation, buf: Buffer, reg: Region, idx: tuple[int, ...],
                   side: str, strided: bool) -> None:
        """Linear overrun past the memref's end, or a strided row chunk past its row's end."""
        if not reg.count:
            return
        pos: list[int] | None = None
        if strided and len(buf.shape) > 1 and reg.stride != reg.per:
            inner = buf.shape[-1]
            col = reg.start % inner  # a chunk starting mid-row must end within that row
            if reg.stride % inner == 0 and col and col + reg.per > inner:
                pos = [int(x) for x in np.unravel_index(reg.start, buf.shape)]
                pos[-1] += reg.per - 1
        if pos is None and reg.end > buf.numel:
            bad = max(buf.numel, reg.start)
            lead = bad // buf.strides[0] if buf.shape else bad
            rest = bad % buf.strides[0] if buf.shape else 0
            pos = [int(lead)] + [int(x) for x in np.unravel_index(rest, buf.shape[1:])]
        if pos is None:
            return
        dim = next((d for d, (i, n) in enumerate(zip(pos, buf.shape)) if not 0 <= i < n),
                   len(pos) - 1)
        raise HazardError(
            f"affine.dma_start {side} {self._in(buf, list(idx))} runs outside {buf.type} at cycle "
            f"{self.env.now}: the transfer ({reg.count} chunk(s) of {reg.per} elements, stride "
            f"{reg.stride}) reaches element {pos}, index {pos[dim]} of dimension {dim} not in "
            f"[0, {buf.shape[dim] - 1}]", op.loc)

    # ---- kernels --------------------------------------------------------------------------
    def kernel_race(self, op: O.CallOp, buf: Buffer, read: bool, written: bool,
                    regions: list[Region],
                    exact: Callable[[], tuple[set[int], set[int]] | None] | None = None) -> None:
        """Spans overlap: an error if a region of the kernel's box overlaps a DMA's, and
        (with `exact`: the elements of `buf` this call accesses and those it writes, None
        where the analysis cannot say) if an element the kernel really touches does: a box
        over a sparse access (a diagonal a cluster writes back) holds elements another
        cluster's DMA may move meanwhile without a race."""
        first = first_in_flight(buf, written, lambda g: any(r.overlaps(g) for r in regions))
        if first is None:
            return
        touched = exact() if exact is not None else None
        if touched is not None:
            accessed, stored = touched

            def hit(g: Region, elements: set[int]) -> int | None:
                return next((e for e in sorted(elements) if g.hits(e, e + 1)), None)

            best: tuple[int, InFlightDma, bool, int] | None = None
            for writes, xs, elements in ((False, buf.reading if written else (), stored),
                                         (True, buf.writing, accessed)):
                for x in xs:
                    e = hit(x.region(writes), elements)
                    if e is not None and (best is None or x.seq < best[0]):
                        best = (x.seq, x, writes, e)
            if best is None:
                return
            _, f, writes, e = best
            verb = "reads and writes" if read and written else "writes" if written else "reads"
            self.race(op, f"(kernel @{op.callee}) {verb}", buf, f, writes, e)
        f, writes = first
        g = f.region(writes)
        r = next(r for r in regions if r.overlaps(g))
        verb = "reads and writes" if read and written else "writes" if written else "reads"
        self.race(op, f"(kernel @{op.callee}) {verb}", buf, f, writes, r.first_common(g))

    def kernel_access_outside(self, op: O.CallOp, access: Operation, buf: Buffer,
                              idx: list[int]) -> NoReturn:
        raise HazardError(
            f"kernel @{op.callee} called at cycle {self.env.now}: {access.NAME} at {access.loc} "
            f"accesses {self._in(buf, list(idx))} outside {buf.type}", op.loc)


def kernel_elements(func: O.FuncOp, args: list[object], k: int, strides: tuple[int, ...]
                    ) -> tuple[set[int], set[int]] | None:
    """The row-major linear indices of argument `k` of kernel `func` that a call with `args`
    accesses, and those it writes (isl: each load's and store's access relation over its
    iteration domain, the index arguments fixed to the call's values); None where the
    analysis does not model the kernel."""
    import islpy as isl

    from compiler.analysis.access import access_relation
    from compiler.analysis.isl_bridge import AnalysisError, isl_name

    memref = func.body.args[k]
    values = {isl_name(a): int(v) for a, v in zip(func.body.args, args, strict=True)  # type: ignore[call-overload]
              if not isinstance(v, Buffer)}
    accessed: set[int] = set()
    stored: set[int] = set()
    try:
        for op in func.walk():
            if not isinstance(op, O.AffineLoadOp | O.AffineStoreOp) or op.memref is not memref:
                continue
            rng = access_relation(op).range()
            for j in range(rng.dim(isl.dim_type.param)):
                name = rng.get_dim_name(isl.dim_type.param, j)
                if name not in values:
                    return None
                rng = rng.fix_val(isl.dim_type.param, j, isl.Val.int_from_si(rng.get_ctx(), values[name]))
            if not rng.is_bounded():
                return None
            into = stored if isinstance(op, O.AffineStoreOp) else accessed

            def add(pt: isl.Point, into: set[int] = into) -> None:
                n = pt.get_space().dim(isl.dim_type.set)
                idx = [pt.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(n)]
                into.add(sum(i * s for i, s in zip(idx, strides, strict=True)))

            rng.foreach_point(add)
    except (AnalysisError, isl.Error):
        return None
    return accessed | stored, stored
