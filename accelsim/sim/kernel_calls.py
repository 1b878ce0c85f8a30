"""A kernel call's race checks and counters, per call site and entry key.

The entry key of a call is what its access boxes and cost depend on (`CallPlan.entry_key`:
the generated key of `accelsim.sim.kernel_boxes`, or the whole tuple of index arguments).
The first call with a key asks the analysis for the access boxes
(`compiler.analysis.counting.access_boxes`), clamps them to the buffers (a box that leaves a
buffer is checked point by point: only a real access outside is an error) and turns each
into regions to test against the DMAs in flight. The kernel's cost and call count are kept
on the same entry and added to the run's counters at the end, or when the entries are
dropped: there are at most `MAX_ENTRIES` at a time, so memory does not grow with the run.
A call whose box leaves a buffer keeps its entry by the whole tuple of index arguments
(the point-by-point check depends on all of them).
"""

from __future__ import annotations

from collections.abc import Hashable

from accelsim.cost.kernel import KernelCost
from accelsim.sim.hazards import Hazards
from accelsim.sim.memory import Buffer, RuntimeValue
from accelsim.sim.oob import find_out_of_bounds
from accelsim.sim.plans import ArgKey, CallPlan, KernelEntry, KernelSpan
from accelsim.sim.regions import Region, box_regions
from accelsim.sim.stats import RunStats
from compiler.analysis.counting import AccessBox, access_boxes
from compiler.ir import ops as O

MAX_ENTRIES = 20_000  # entries (and the boxes and regions behind them) kept at a time


class KernelCalls:
    def __init__(self, hazards: Hazards, stats: RunStats, dram_space: int):
        self.hazards = hazards
        self.stats = stats
        self.dram_space = dram_space
        self.entries: list[KernelEntry] = []  # every entry kept, for the counters
        self._tables: dict[int, dict[Hashable, KernelEntry]] = {}  # the plans' entry tables
        # entries by (call site, index arguments): calls without an entry key, or whose box
        # leaves a buffer
        self._by_args: dict[tuple[int, ArgKey], KernelEntry] = {}
        self._boxes: dict[tuple[int, ArgKey], tuple[list[AccessBox], bool]] = {}
        self._regions: dict[tuple[tuple[tuple[int, int], ...], tuple[int, ...]], list[Region]] = {}

    def entry(self, p: CallPlan, args: list[RuntimeValue], idx_args: ArgKey) -> KernelEntry:
        """The entry for a call with these index arguments that `p.entries` does not have
        (kept there by its entry key when its buffers' shapes are static)."""
        assert p.func is not None
        hit = self._by_args.get((id(p), idx_args))
        if hit is not None:
            return hit
        key = p.entry_key(idx_args) if p.static else None
        if len(self.entries) >= MAX_ENTRIES:
            self._drop_entries()
        boxes, clipped = self._kernel_boxes(p.op, p.func, args, idx_args)
        entry = KernelEntry(self._spans(boxes, args))
        bk = p.boxes
        if bk is not None and not bk.fallible and tuple(sp[:3] for sp in entry.spans) != bk.spans:
            raise AssertionError(f"kernel @{p.func.sym_name}: its access boxes at {idx_args} are "
                                 f"{[sp[:3] for sp in entry.spans]}, the generated key says {bk.spans}")
        if key is not None and not clipped:
            p.entries[key] = entry
            self._tables[id(p)] = p.entries
        elif p.static:
            self._by_args[(id(p), idx_args)] = entry
        self.entries.append(entry)
        return entry

    def _drop_entries(self) -> None:
        """Count the calls so far and forget every entry, box and region (made again when
        needed): what bounds this bookkeeping's memory in a long run."""
        self.fold_stats()
        self.entries = []
        for table in self._tables.values():
            table.clear()  # in place: specialized handlers hold the plan's table
        self._tables.clear()
        self._by_args.clear()
        self._boxes.clear()
        self._regions.clear()

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
            s.compute_pj += k * cost.compute_pj
            unit = "array" if cost.on_matrix else "lanes"
            for cls, dt, acc, n in c.typed:
                if cls == "mac":
                    key = (dt, acc, unit)
                    s.macs_by_dtype[key] = s.macs_by_dtype.get(key, 0) + k * n
            s.kernel_sram_bytes += k * cost.sram_bytes
            for space, nbytes in cost.level_bytes:
                s.kernel_level_bytes[space] = s.kernel_level_bytes.get(space, 0) + k * nbytes
            s.ideal_compute_cycles += k * cost.compute_cycles
            if cost.array is not None:
                s.array_folds += k * cost.array.folds
                s.array_pe_used += k * cost.array.pe_used
            entry.calls = 0

    def _kernel_boxes(self, op: O.CallOp, func: O.FuncOp, args: list[RuntimeValue],
                      idx_args: ArgKey) -> tuple[list[AccessBox], bool]:
        """The kernel's access boxes for these index arguments, clamped to the buffers, and
        whether one had to be clamped; an access that really leaves its buffer is an error
        (checked point by point)."""
        key = (id(func), idx_args)
        hit = self._boxes.get(key)
        if hit is None:
            boxes = access_boxes(func, idx_args)
            self._boxes[key] = (boxes, True)  # what a failed check below leaves
            clamped = []
            clipped = False
            for ab in boxes:
                buf = args[ab.arg]
                assert isinstance(buf, Buffer)
                if any(lo < 0 or hi >= n for (lo, hi), n in zip(ab.box, buf.shape)):
                    self._exact_oob(op, func, args, idx_args)
                    # in bounds point by point: the box only overshot; clamp it to the shape
                    box = tuple((max(lo, 0), min(hi, n - 1)) for (lo, hi), n in zip(ab.box, buf.shape))
                    ab = AccessBox(ab.arg, box, ab.read, ab.written)
                    clipped = True
                clamped.append(ab)
            hit = self._boxes[key] = (clamped, clipped)
        return hit

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
