"""A kernel call's race checks and counters, per call site and tuple of index arguments.

The first call of a kernel with some index arguments asks the analysis for its access boxes
(`compiler.analysis.counting.access_boxes`), clamps them to the buffers (a box that leaves a
buffer is checked point by point: only a real access outside is an error) and turns each
into regions to test against the DMAs in flight. The kernel's cost and call count are kept
on the same entry and added to the run's counters once, at the end.
"""

from __future__ import annotations

from accelsim.cost.kernel import KernelCost
from accelsim.sim.hazards import Hazards
from accelsim.sim.memory import Buffer, RuntimeValue
from accelsim.sim.oob import find_out_of_bounds
from accelsim.sim.plans import ArgKey, CallPlan, KernelEntry, KernelSpan
from accelsim.sim.regions import Region, box_regions
from accelsim.sim.stats import RunStats
from compiler.analysis.counting import AccessBox, access_boxes
from compiler.ir import ops as O


class KernelCalls:
    def __init__(self, hazards: Hazards, stats: RunStats, dram_space: int):
        self.hazards = hazards
        self.stats = stats
        self.dram_space = dram_space
        self.entries: list[KernelEntry] = []  # every entry made, for the counters
        self._boxes: dict[tuple[int, ArgKey], list[AccessBox]] = {}
        self._regions: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], list[Region]] = {}

    def entry(self, p: CallPlan, args: list[RuntimeValue], idx_args: ArgKey) -> KernelEntry:
        """The entry for a call with these index arguments (kept on the plan when its
        buffers' shapes are static)."""
        assert p.func is not None
        boxes = self._kernel_boxes(p.op, p.func, args, idx_args)
        entry = KernelEntry(self._spans(boxes, args))
        if p.static:
            p.entries[idx_args] = entry
        self.entries.append(entry)
        return entry

    def flag_dram(self, op: O.CallOp, cost: KernelCost) -> None:
        s = self.stats
        msg = (f"kernel @{op.callee} called at {op.loc} accesses slow memory directly "
               f"({cost.counts.accesses_in(self.dram_space)} accesses, {cost.dram_direct_cycles} "
               "cycles of DRAM latency charged)")
        if msg not in s.flags:
            s.flags.append(msg)

    def fold_stats(self) -> None:
        """Kernel counters are kept per call site and argument tuple; add them up once."""
        s = self.stats
        for entry in self.entries:
            cost, k = entry.cost, entry.calls
            if cost is None or not k:
                continue
            c = cost.counts
            s.kernel_calls += k
            s.macs += k * c.mac
            s.alu_ops += k * (c.mul + c.add + c.other)
            s.special_ops += k * c.special
            s.kernel_sram_bytes += k * cost.sram_bytes
            s.ideal_compute_cycles += k * cost.compute_cycles
            entry.calls = 0

    def _kernel_boxes(self, op: O.CallOp, func: O.FuncOp, args: list[RuntimeValue],
                      idx_args: ArgKey) -> list[AccessBox]:
        """The kernel's access boxes for these index arguments, clamped to the buffers; an
        access that really leaves its buffer is an error (checked point by point)."""
        key = (id(func), idx_args)
        boxes = self._boxes.get(key)
        if boxes is None:
            boxes = self._boxes[key] = access_boxes(func, idx_args)
            clamped = []
            for ab in boxes:
                buf = args[ab.arg]
                assert isinstance(buf, Buffer)
                if any(lo < 0 or hi >= n for (lo, hi), n in zip(ab.box, buf.shape)):
                    self._exact_oob(op, func, args, idx_args)
                    # in bounds point by point: the box only overshot; clamp it to the shape
                    box = tuple((max(lo, 0), min(hi, n - 1)) for (lo, hi), n in zip(ab.box, buf.shape))
                    ab = AccessBox(ab.arg, box, ab.read, ab.written)
                clamped.append(ab)
            boxes = self._boxes[key] = clamped
        return boxes

    def _spans(self, boxes: list[AccessBox], args: list[RuntimeValue]) -> list[KernelSpan]:
        out = []
        for ab in boxes:
            buf = args[ab.arg]
            assert isinstance(buf, Buffer)
            rkey = (ab.box, buf.shape)
            regions = self._regions.get(rkey)
            if regions is None:
                regions = self._regions[rkey] = box_regions(ab.box, buf.shape)
            nonempty = [r for r in regions if r.count]
            lo = min((r.start for r in nonempty), default=0)
            hi = max((r.end for r in nonempty), default=0)
            out.append((ab.arg, ab.read, ab.written, regions, lo, hi))
        return out

    def _exact_oob(self, op: O.CallOp, func: O.FuncOp, args: list[RuntimeValue],
                   idx_args: ArgKey) -> None:
        """The interval box left the bounds: find a real out-of-bounds access, if any."""
        shapes = {a: b.shape for a, b in zip(func.args, args) if isinstance(b, Buffer)}
        budget = [2_000_000]
        found = find_out_of_bounds(func, idx_args, shapes, budget)
        if found is None:
            if budget[0] <= 0 and len(self.stats.flags) < 20:
                self.stats.flags.append(
                    f"kernel @{op.callee} called at {op.loc}: its accesses' bounding box leaves a "
                    "buffer and the kernel is too large to check point by point (first 2M "
                    "accesses were in bounds)")
            return
        access, idx = found
        buf = args[next(i for i, a in enumerate(func.args) if a is access.memref)]  # type: ignore[attr-defined]
        assert isinstance(buf, Buffer)
        self.hazards.kernel_access_outside(op, access, buf, idx)
