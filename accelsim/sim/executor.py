"""The control processor's program walk: executes a compiled module on the machine.

Control (loops, ifs, index arithmetic, alloc/dealloc, DMA start/wait, calls) is interpreted
here in program order, in plain Python: the control processor drives the SimPy environment
and moves the clock only when it must wait (issue cycles, a full descriptor queue, a kernel
on the compute unit, a `dma_wait` on an unfinished transfer), stepping through every event
due by then, in SimPy's order (`accelsim.hw.env.SimEnv`). Kernels (`func.call`) take the cost
model's cycles on the compute unit and, in functional mode, run natively on the numpy buffers
(host backend) or, when the backend is not available, through this interpreter.

Per op, everything that does not change between executions is computed once (a plan: index
maps, bounds checks and row-major linearization as one generated function, the DMA's cost per
transfer shape, a kernel's access boxes and cost per argument tuple), so the per-execution work
is the dynamic part: indices, hazard checks against what is in flight, the machine's state.

Every misuse real hardware would corrupt silently is a `HazardError` naming the op, its
location and the simulated cycle; SRAM overflow is a `CapacityError`.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from accelsim.config import HardwareConfig
from accelsim.cost.kernel import CostModel, KernelCost
from accelsim.errors import HazardError, InputError, SimulationError
from accelsim.hw.dma import Transfer, transfer_done
from accelsim.hw.machine import Machine
from accelsim.sim.codegen import call_reader, lins_fn
from accelsim.sim.native import KernelRunner
from accelsim.sim.regions import Region, box_regions, strides_of
from compiler.analysis.counting import AccessBox, access_boxes
from compiler.ir import ops as O
from compiler.ir.affine_eval import compile_map, compile_set
from compiler.ir.core import Block, Operation, Value
from compiler.ir.types import ElementType, MemRefType

_tnew = tuple.__new__  # NamedTuples (regions, in-flight entries) without the extra __new__ frame

class Buffer:
    """A memref value at run time: its array (functional mode) and in-flight DMA regions."""

    __slots__ = (
        "alive",
        "array",
        "ebytes",
        "flat",
        "handle",
        "reading",
        "name",
        "numel",
        "shape",
        "space",
        "strides",
        "type",
        "writing",
    )

    def __init__(self, name: str, type: MemRefType, shape: tuple[int, ...], array: np.ndarray | None):
        self.name = name
        self.type = type
        self.shape = shape
        self.space = type.memory_space
        self.numel = math.prod(shape)
        self.ebytes = type.element.byte_width
        self.strides = strides_of(shape)
        self.array = array
        self.flat = array.reshape(-1) if array is not None else None
        # DMAs in flight whose source / destination this buffer is, in issue order
        self.reading: list[_Dma] = []
        self.writing: list[_Dma] = []
        self.handle: int | None = None
        self.alive = True

    def __repr__(self) -> str:
        return f"<Buffer {self.name} {self.type}>"


def _first_in_flight(buf: Buffer, reads: bool, hit: Callable[[Region], bool]
                     ) -> tuple[_Dma, bool] | None:
    """The earliest issued DMA in flight on `buf` whose side on `buf` satisfies `hit`, and
    whether that side writes `buf`; DMAs reading `buf` count only if `reads`. (A DMA from a
    buffer into itself: its reading side counts first.)"""
    best: tuple[int, int, _Dma] | None = None
    for writes, xs in ((False, buf.reading if reads else ()), (True, buf.writing)):
        for x in xs:
            if hit(x.region(writes)) and (best is None or (x.seq, writes) < best[:2]):
                best = (x.seq, writes, x)
    return None if best is None else (best[2], bool(best[1]))


@dataclass(slots=True)
class RunStats:
    """Counters for the report (event counts, not clocks)."""

    dma_ops: int = 0
    kernel_calls: int = 0
    macs: int = 0
    alu_ops: int = 0
    special_ops: int = 0
    kernel_sram_bytes: int = 0
    dma_sram_bytes: int = 0
    ideal_compute_cycles: int = 0
    flags: list[str] = field(default_factory=list)
    unwaited: list[str] = field(default_factory=list)




def _loc(op: Operation) -> str:
    return str(op.loc)


def _name(v: Value, fallback: str) -> str:
    return v.name_hint or fallback


class Executor:
    def __init__(self, module: O.ModuleOp, config: HardwareConfig, functional: bool = True,
                 kernel_runner: KernelRunner | None = None, compiled: bool = True):
        self.module = module
        self.compiled = compiled  # run the control program compiled to Python (cp_compile)
        self.config = config
        self.functional = functional
        self.machine = Machine(config)
        self.env = self.machine.env
        self.trace = self.machine.trace
        self.cost = CostModel.for_config(config)
        self.stats = RunStats()
        self.kernel_runner = kernel_runner
        self._plans: dict[Operation, Any] = {}
        self._steps: dict[Block, list[tuple[int, Any, Operation]]] = {}
        self._boxes: dict[tuple[int, tuple], list] = {}
        self._regions: dict[tuple, list[Region]] = {}
        self._funcs = {f.sym_name: f for f in module.funcs}
        # the call whose kernel body the interpreter is running (None: the control program)
        self._kernel_op: O.CallOp | None = None
        self._kernel_entries: list[list[Any]] = []  # [checks, cost, calls] per call site x args
        self._tmp = 0
        sp = config.spaces
        self.sram_space, self.dram_space, self.tag_space = sp.sram, sp.dram, sp.tag
        self._burst = config.dram.burst_bytes
        self._bw = config.dram.bandwidth_bytes_per_cycle
        self._sram_bw = config.sram.bytes_per_cycle
        m = self.machine
        self._slots = m.tags.slots
        self._cp = m.cp
        self._records = self.trace.records
        self._compute_unit = m.compute.name
        self._dma_class = _DmaCopy if functional else _Dma

    # ---- entry ---------------------------------------------------------------------------
    def run(self, func: O.FuncOp, inputs: Mapping[str, np.ndarray] | None) -> dict[str, Buffer]:
        args: list[Any] = []
        bufs: dict[str, Buffer] = {}
        for a, name in zip(func.args, func.arg_names(), strict=True):
            t = a.type
            if isinstance(t, MemRefType):
                shape = self._arg_shape(name, t, inputs)
                arr = None
                if self.functional:
                    arr = self._input_array(name, MemRefType(shape, t.element, t.memory_space), inputs)
                buf = Buffer(name, t, shape, arr)
                if t.memory_space == self.sram_space:
                    buf.handle = self.machine.sram.allocate(name, buf.numel * buf.ebytes, func.loc,
                                                            "function argument", 0)
                bufs[name] = buf
                args.append(buf)
            else:
                if inputs is None or name not in inputs:
                    raise InputError(f"scalar argument %{name} needs a value in inputs")
                args.append(int(inputs[name]))
        vals: dict[Value, Any] = dict(zip(func.args, args, strict=True))
        # The run allocates many short-lived objects and no reference cycles worth collecting
        # mid-run; the cyclic GC rescanning the IR and trace costs ~20% of a long run.
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            self._main(func, vals)
            self.env.run()  # the transfers still in flight complete
        finally:
            self._fold_kernel_stats()
            if gc_was_on:
                gc.enable()
        for slot in self._slots.values():
            self.stats.unwaited.append(f"{slot.op.NAME} at {slot.op.loc} (issued at cycle "
                                       f"{slot.issued}) was never waited on")
        return bufs

    def _fold_kernel_stats(self) -> None:
        """Kernel counters are kept per call site and argument tuple; add them up once."""
        s = self.stats
        for entry in self._kernel_entries:
            cost, k = entry[1], entry[2]
            if cost is None or not k:
                continue
            c = cost.counts
            s.kernel_calls += k
            s.macs += k * c.mac
            s.alu_ops += k * (c.mul + c.add + c.other)
            s.special_ops += k * c.special
            s.kernel_sram_bytes += k * cost.sram_bytes
            s.ideal_compute_cycles += k * cost.compute_cycles
            entry[2] = 0

    @staticmethod
    def _arg_shape(name: str, t: MemRefType, inputs: Mapping[str, np.ndarray] | None
                   ) -> tuple[int, ...]:
        """The static shape, or for `?` extents the shape of the input array given for it."""
        if t.has_static_shape:
            return tuple(t.shape)  # type: ignore[arg-type]
        if inputs is None or name not in inputs:
            raise InputError(f"argument %{name} has a dynamic shape ({t}): give an array for it "
                             "in inputs (its shape sets the extents; timing-only runs too)")
        shape = tuple(np.shape(inputs[name]))
        if len(shape) != t.rank or any(d is not None and d != e for d, e in zip(t.shape, shape)):
            raise InputError(f"input '{name}': expected a shape matching {t}, got {shape}")
        return shape

    def _input_array(self, name: str, t: MemRefType, inputs: Mapping[str, np.ndarray] | None
                     ) -> np.ndarray:
        dtype = t.element.numpy_dtype
        if inputs is None or name not in inputs:
            return np.zeros(t.shape, dtype=dtype)  # type: ignore[arg-type]
        arr = np.asarray(inputs[name])
        if arr.shape != tuple(t.shape):
            raise InputError(f"input '{name}': expected shape {tuple(t.shape)} for {t}, got {arr.shape}")
        if arr.dtype != dtype:
            raise InputError(f"input '{name}': expected dtype {dtype} for {t}, got {arr.dtype}")
        return np.array(arr, dtype=dtype, order="C", copy=True)

    def _main(self, func: O.FuncOp, vals: dict[Value, Any]) -> None:
        run = None
        if self.compiled:
            from accelsim.sim.fast_path import compile_control

            run = compile_control(self, func)
        if run is None:
            self._block(func.body, vals)
        else:
            run(self, vals)

    def _unsupported(self, op: Operation) -> None:
        raise SimulationError(f"the simulator does not execute '{op.NAME}' here (control ops, DMA, "
                              "alloc, calls and scalar ops only)", op.loc)

    # ---- walking -------------------------------------------------------------------------
    def _block(self, block: Block, vals: dict[Value, Any]) -> list[Any] | None:
        steps = self._steps.get(block)
        if steps is None:
            steps = self._steps[block] = [self._make_step(op) for op in block.ops]
        for kind, h, op in steps:
            if kind == 5:  # constant: (result, value)
                vals[h[0]] = h[1]
            elif kind == 6:  # affine.apply: (fn, operands, result)
                vals[h[2]] = h[0]([vals[v] for v in h[1]])[0]
            elif kind == 0:
                h(self, op, vals)
            elif kind == 8:  # DMA start/wait, call: (bound handler, plan)
                h[0](h[1], vals)
            elif kind == 2:
                return [vals[v] for v in op.operands]
            elif kind == 3:
                return None
            else:
                raise SimulationError(f"the simulator does not execute '{op.NAME}' here (control "
                                      "ops, DMA, alloc, calls and scalar ops only)", op.loc)
        return None

    def _make_step(self, op: Operation) -> tuple[int, Any, Operation]:
        if isinstance(op, O.ConstantOp):
            return 5, self._plan(op), op
        if type(op) is O.AffineApplyOp:
            return 6, (self._plan(op), list(op.operands), op.results[0]), op
        site = self.site(op)
        if site is not None:
            return 8, site, op
        return _step(op)

    def _plan(self, op: Operation) -> Any:
        p = self._plans.get(op)
        if p is None:
            p = self._plans[op] = _make_plan(op, self.config.spaces, self._funcs)
        return p

    def site(self, op: Operation) -> tuple[Callable[[Any, dict[Value, Any]], None], Any] | None:
        """`(handler, plan)` for the ops with a plan-taking handler (DMA start/wait, calls):
        `handler(plan, vals)` executes the op (what the compiled control program calls)."""
        name = _SITES.get(type(op))
        if name is None:
            return None
        return getattr(self, name), self._plan(op)

    # ---- control -------------------------------------------------------------------------
    def _for(self, op: O.AffineForOp, vals: dict[Value, Any]) -> None:
        lo_fn, lo_ops, hi_fn, hi_ops = self._plan(op)
        lo = max(lo_fn([vals[v] for v in lo_ops]))
        hi = min(hi_fn([vals[v] for v in hi_ops]))
        iters = [vals[v] for v in op.inits]
        body = op.body
        iv = op.iv
        iargs = op.region_iter_args
        for i in range(lo, hi, op.step):
            vals[iv] = i
            for a, x in zip(iargs, iters):
                vals[a] = x
            r = self._block(body, vals)
            if iargs:
                iters = r  # type: ignore[assignment]
        for res, x in zip(op.results, iters):
            vals[res] = x

    def _if(self, op: O.AffineIfOp, vals: dict[Value, Any]) -> None:
        fn = self._plan(op)
        cond = fn([vals[v] for v in op.operands])
        blk = op.then_block if cond else op.else_block
        r = None
        if blk.ops:
            r = self._block(blk, vals)
        for res, x in zip(op.results, r or ()):
            vals[res] = x

    def _apply(self, op: O.AffineApplyOp, vals: dict[Value, Any]) -> None:
        vals[op.results[0]] = self._plan(op)([vals[v] for v in op.operands])[0]

    def _min(self, op: O.AffineMinOp, vals: dict[Value, Any]) -> None:
        vals[op.results[0]] = min(self._plan(op)([vals[v] for v in op.operands]))

    def _max(self, op: O.AffineMaxOp, vals: dict[Value, Any]) -> None:
        vals[op.results[0]] = max(self._plan(op)([vals[v] for v in op.operands]))

    # ---- memory --------------------------------------------------------------------------
    def _alloc(self, op: O.AllocOp, vals: dict[Value, Any]) -> None:
        t = op.memref_type
        dyn = iter(vals[v] for v in op.operands)
        shape = tuple(d if d is not None else next(dyn) for d in t.shape)
        self._tmp += 1
        name = _name(op.results[0], f"buf{self._tmp}")
        arr = np.zeros(shape, dtype=t.element.numpy_dtype) if self.functional else None
        buf = Buffer(name, t, shape, arr)
        if t.memory_space == self.sram_space:
            buf.handle = self.machine.sram.allocate(name, buf.numel * buf.ebytes, op.loc, op.NAME,
                                                    self.env.now)
        vals[op.results[0]] = buf

    def _dealloc(self, op: O.DeallocOp, vals: dict[Value, Any]) -> None:
        buf: Buffer = vals[op.memref]
        if buf.reading or buf.writing:
            first = _first_in_flight(buf, True, lambda r: True)
            assert first is not None
            f, writes = first
            raise HazardError(
                f"memref.dealloc of {buf.name} at cycle {self.env.now} while a DMA "
                f"{'into' if writes else 'out of'} it is in flight ({f.op.NAME} at {f.op.loc}, "
                f"issued at cycle {f.issued})", op.loc)
        if buf.handle is not None:
            self.machine.sram.free(buf.handle)
            buf.handle = None
        buf.alive = False

    def _check_alive(self, buf: Buffer, op: Operation) -> None:
        if not buf.alive:
            raise HazardError(f"{op.NAME} uses {buf.name} after its memref.dealloc "
                              f"(cycle {self.env.now})", op.loc)

    def _indices(self, op: Operation, buf: Buffer, idx: tuple[int, ...], what: str) -> int:
        for d, (i, n) in enumerate(zip(idx, buf.shape)):
            if not 0 <= i < n:
                raise HazardError(
                    f"{op.NAME} {what}{list(idx)} is outside {buf.type} ({buf.name}): index {i} "
                    f"of dimension {d} not in [0, {n - 1}] (cycle {self.env.now})", op.loc)
        return sum(i * s for i, s in zip(idx, buf.strides))

    def _load(self, op: O.AffineLoadOp, vals: dict[Value, Any]) -> None:
        fn, idx_ops = self._plan(op)
        buf: Buffer = vals[op.memref]
        idx = fn([vals[v] for v in idx_ops])
        if self._kernel_op is not None:
            vals[op.results[0]] = buf.array[idx]  # type: ignore[index]
            return
        self._check_alive(buf, op)
        lin = self._indices(op, buf, idx, f"{buf.name}")
        self._scalar_hazard(op, buf, lin, writes=False)
        vals[op.results[0]] = buf.flat[lin] if buf.flat is not None else _zero(op.results[0].type)

    def _store(self, op: O.AffineStoreOp, vals: dict[Value, Any]) -> None:
        fn, idx_ops = self._plan(op)
        buf: Buffer = vals[op.memref]
        idx = fn([vals[v] for v in idx_ops])
        if self._kernel_op is not None:
            buf.array[idx] = vals[op.value]  # type: ignore[index]
            return
        self._check_alive(buf, op)
        lin = self._indices(op, buf, idx, f"{buf.name}")
        self._scalar_hazard(op, buf, lin, writes=True)
        if buf.flat is not None:
            buf.flat[lin] = vals[op.value]

    def _scalar_hazard(self, op: Operation, buf: Buffer, lin: int, writes: bool) -> None:
        if buf.writing or (writes and buf.reading):
            first = _first_in_flight(buf, writes, lambda r: r.hits(lin, lin + 1))
            if first is not None:
                self._race(op, "writes" if writes else "reads", buf, first[0], first[1], lin)

    def _race(self, op: Operation, verb: str, buf: Buffer, f: _Dma, f_writes: bool,
              lin: int | None) -> None:
        """`op` touches `buf` while `f` (writing `buf` if `f_writes`) is in flight."""
        where = ""
        if lin is not None:
            where = f" element {[int(x) for x in np.unravel_index(lin, buf.shape)]}" if buf.shape else ""
        direction = "into" if f_writes else "out of"
        raise HazardError(
            f"{op.NAME} {verb} {buf.name}{where} at cycle {self.env.now} while a DMA {direction} "
            f"it is in flight ({f.label}, {f.op.NAME} at {f.op.loc}, issued at cycle {f.issued}): "
            f"a dma_wait on its tag must come first", op.loc)


    # ---- DMA -----------------------------------------------------------------------------
    def _timing_op_in_kernel(self) -> None:
        op = self._kernel_op
        assert op is not None
        raise SimulationError(f"kernel @{op.callee} contains DMA or timing ops", op.loc)

    def _dma_start(self, op: O.AffineDmaStartOp, vals: dict[Value, Any]) -> None:
        self._dma_start_p(self._plan(op), vals)

    def _dma_start_p(self, p: _DmaPlan, vals: dict[Value, Any]) -> None:
        """Issue the descriptor: checks, regions in flight, cost, the tag's slot; the control
        processor waits only for issue cycles or a full queue."""
        if self._kernel_op is not None:
            self._timing_op_in_kernel()
        op = p.op
        src: Buffer = vals[p.src_v]
        dst: Buffer = vals[p.dst_v]
        tag: Buffer = vals[p.tag]
        if not (src.alive and dst.alive and tag.alive):
            for b in (src, dst, tag):
                self._check_alive(b, op)
        # linear indices with the bounds checks folded in (-1: out of bounds, reported below)
        lins = p.lins
        if lins is not None:
            s0, d0, t0 = lins(vals)
            if s0 < 0 or d0 < 0 or t0 < 0:
                s0, d0, t0 = self._dma_indices(p, vals, src, dst, tag)
        else:
            s0, d0, t0 = self._dma_indices(p, vals, src, dst, tag)
        key = (id(tag), t0)
        slots = self._slots
        if key in slots:
            self._tag_reuse(p, vals, tag, slots[key])
        sh = p.const_shape  # the shape when count, stride and per are constants (known once)
        if sh is None:
            n = vals[p.num]
            ckey = n if p.stride is None else (n, vals[p.stride], vals[p.per])
            sh = p.shapes.get(ckey) if lins is not None else None
            if sh is None:  # first transfer of this shape (or a dynamic-shaped memref)
                sh = self._dma_shape(p, n, ckey, src, dst)
                if lins is not None:
                    p.shapes[ckey] = sh
                    if p.constant:
                        p.const_shape = sh
        s_end = s0 + sh.s_ext
        d_end = d0 + sh.d_ext
        ci = sh.col_inner
        if (s_end > src.numel or d_end > dst.numel
                or (ci and 0 < (s0 if sh.col_src else d0) % ci > ci - sh.per)):
            self._dma_overrun(p, vals, src, dst, s0, d0, sh)
        label = p.label if src is p.label_src and dst is p.label_dst else self._dma_label(p, src, dst)
        # races: another DMA writing what this one reads; any DMA on what this one writes
        if src.writing:
            for x in src.writing:
                if x.d_end > s0 and s_end > x.d0:
                    self._dma_read_race(op, src, x, s0, sh)
        if dst.writing:
            for x in dst.writing:
                if x.d_end > d0 and d_end > x.d0:
                    self._dma_overwrite_race(op, dst, d0, sh)
        if dst.reading:
            for x in dst.reading:
                if x.s_end > d0 and d_end > x.s0:
                    self._dma_overwrite_race(op, dst, d0, sh)
        env = self.env
        stats = self.stats
        stats.dma_ops += 1
        stats.dma_sram_bytes += sh.sram_bytes
        xfer = self._dma_class(env, sh, label, env.now, stats.dma_ops, src, s0, s_end, dst, d0,
                               d_end)
        src.reading.append(xfer)
        dst.writing.append(xfer)
        slots[key] = xfer
        cp = self._cp
        if cp.issue_cycles:
            cp.issue(label, p.loc)
        cp.submit(xfer)

    def _tag_reuse(self, p: _DmaPlan, vals: dict[Value, Any], tag: Buffer, prev: _Dma) -> None:
        raise HazardError(
            f"affine.dma_start reuses tag {tag.name}{list(p.tag_fn([vals[v] for v in p.tag_ops]))} "
            f"at cycle {self.env.now} while the transfer it signals is not yet waited on "
            f"({prev.label}, issued at cycle {prev.issued} by the dma_start at {prev.op.loc})",
            p.op.loc)

    def _dma_label(self, p: _DmaPlan, src: Buffer, dst: Buffer) -> str:
        """`src->dst` (cached on the plan for the last pair of buffers)."""
        p.label = f"{src.name}->{dst.name}"
        p.label_src, p.label_dst = src, dst
        return p.label

    def _dma_indices(self, p: _DmaPlan, vals: dict[Value, Any], src: Buffer, dst: Buffer,
                     tag: Buffer) -> tuple[int, int, int]:
        """Linear source, destination and tag indices; an out-of-bounds index is an error."""
        op = p.op
        s_idx = p.src_fn([vals[v] for v in p.src_ops])
        s0 = _lin(src, s_idx)
        if s0 < 0:
            s0 = self._indices(op, src, s_idx, f"source {src.name}")
        d_idx = p.dst_fn([vals[v] for v in p.dst_ops])
        d0 = _lin(dst, d_idx)
        if d0 < 0:
            d0 = self._indices(op, dst, d_idx, f"destination {dst.name}")
        t_idx = p.tag_fn([vals[v] for v in p.tag_ops])
        t0 = _lin(tag, t_idx)
        if t0 < 0:
            t0 = self._indices(op, tag, t_idx, f"tag {tag.name}")
        return s0, d0, t0

    def _dma_shape(self, p: _DmaPlan, n: int, ckey: Any, src: Buffer, dst: Buffer) -> _Shape:
        """Everything about a transfer that depends only on its element count, stride and
        elements per stride (cached per op and shape for static memrefs): both sides' region
        shapes, extents, the row-overrun check and the cost."""
        op = p.op
        if n < 0:
            raise HazardError(f"affine.dma_start moves {n} elements", op.loc)
        if p.stride is None:
            nchunks = 1 if n else 0
            s_tail = d_tail = (n or 1, n, nchunks, n)
            s_ext = d_ext = n
            per, ci = n, 0
        else:
            _, stride, per = ckey
            if per <= 0 or stride <= 0:
                raise HazardError(f"affine.dma_start with stride {stride} and {per} elements per "
                                  "stride: both must be positive", op.loc)
            nchunks = -(-n // per)
            last = n - (nchunks - 1) * per if nchunks else 0
            if p.src_strided:
                s_tail, d_tail, sbuf = (stride, per, nchunks, last), (per, per, nchunks, last), src
            else:
                s_tail, d_tail, sbuf = (per, per, nchunks, last), (stride, per, nchunks, last), dst
            s_ext = (nchunks - 1) * s_tail[0] + last if nchunks else 0
            d_ext = (nchunks - 1) * d_tail[0] + last if nchunks else 0
            inner = sbuf.shape[-1] if sbuf.shape else 0
            ci = inner if inner and stride % inner == 0 else 0
        # cost: bursts on the DRAM side(s), bytes through the SRAM port
        eb = p.ebytes
        last = s_tail[3]
        dram_bytes = 0
        if nchunks and p.dram_sides:
            burst = self._burst
            full = -(-n * eb // burst) * burst
            for is_dram, (rstride, rper, rcount, _) in ((p.src_dram, s_tail), (p.dst_dram, d_tail)):
                if is_dram:
                    if rstride == rper or rcount == 1:
                        dram_bytes += full
                    else:
                        dram_bytes += ((nchunks - 1) * -(-per * eb // burst)
                                       + -(-last * eb // burst)) * burst
        sram_bytes = n * eb * p.sram_sides
        port = -(-sram_bytes // self._sram_bw)
        cyc = max(-(-dram_bytes // self._bw), port)
        return _Shape(nchunks, s_tail, d_tail, s_ext, d_ext, per, ci, p.src_strided,
                      (cyc, dram_bytes, n * eb, port, p.kind, p.loc), sram_bytes, op)

    def _dma_overrun(self, p: _DmaPlan, vals: dict[Value, Any], src: Buffer, dst: Buffer,
                     s0: int, d0: int, sh: _Shape) -> None:
        """A side may run past its memref (or a row): raise if it really does."""
        op = p.op
        sreg, dreg = Region(s0, *sh.s_tail), Region(d0, *sh.d_tail)
        strided = p.stride is not None
        if strided or sreg.end > src.numel:
            self._dma_bounds(op, src, sreg, p.src_fn([vals[v] for v in p.src_ops]), "source",
                             strided)
        if strided or dreg.end > dst.numel:
            self._dma_bounds(op, dst, dreg, p.dst_fn([vals[v] for v in p.dst_ops]),
                             "destination", strided)

    def _dma_read_race(self, op: Operation, src: Buffer, x: _Dma, s0: int, sh: _Shape) -> None:
        """`x` writes `src` with an overlapping span: an error if the regions really overlap
        (`src.writing` is in issue order, so the first such `x` is the earliest)."""
        sreg = Region(s0, *sh.s_tail)
        if x.region(True).overlaps(sreg):
            self._race(op, "reads", src, x, True, sreg.first_common(x.region(True)))

    def _dma_overwrite_race(self, op: Operation, dst: Buffer, d0: int, sh: _Shape) -> None:
        """Spans overlap: an error if the regions really do (the earliest such DMA)."""
        dreg = Region(d0, *sh.d_tail)
        first = _first_in_flight(dst, True, dreg.overlaps)
        if first is not None:
            f, writes = first
            self._race(op, "overwrites", dst, f, writes, dreg.first_common(f.region(writes)))

    def _dma_bounds(self, op: Operation, buf: Buffer, reg: Region, idx: tuple[int, ...],
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
            f"affine.dma_start {side} {buf.name}{list(idx)} runs outside {buf.type} at cycle "
            f"{self.env.now}: the transfer ({reg.count} chunk(s) of {reg.per} elements, stride "
            f"{reg.stride}) reaches element {pos}, index {pos[dim]} of dimension {dim} not in "
            f"[0, {buf.shape[dim] - 1}]", op.loc)


    def _dma_wait(self, op: O.AffineDmaWaitOp, vals: dict[Value, Any]) -> None:
        self._dma_wait_p(self._plan(op), vals)

    def _dma_wait_p(self, p: _WaitPlan, vals: dict[Value, Any]) -> None:
        if self._kernel_op is not None:
            self._timing_op_in_kernel()
        tag: Buffer = vals[p.tag]
        t0 = p.lin(vals) if p.lin is not None else -1
        if t0 < 0:
            t0 = self._wait_index(p, vals, tag)
        pend = self._slots.pop((id(tag), t0), None)
        if pend is None:
            self._deadlock(p, vals, tag)
        if pend.callbacks is not None:  # not completed yet
            self._cp.wait(pend, f"wait {pend.label}", p.loc)

    def _wait_index(self, p: _WaitPlan, vals: dict[Value, Any], tag: Buffer) -> int:
        t_idx = p.fn([vals[v] for v in p.ops])
        t0 = _lin(tag, t_idx)
        if t0 < 0:
            t0 = self._indices(p.op, tag, t_idx, f"tag {tag.name}")
        return t0

    def _deadlock(self, p: _WaitPlan, vals: dict[Value, Any], tag: Buffer) -> None:
        raise HazardError(
            f"affine.dma_wait on {tag.name}{list(p.fn([vals[v] for v in p.ops]))} at cycle "
            f"{self.env.now}: no DMA in flight signals this tag, so the wait would never "
            "return (deadlock)", p.op.loc)

    # ---- kernels -------------------------------------------------------------------------
    def _call(self, op: O.CallOp, vals: dict[Value, Any]) -> None:
        self._call_p(self._plan(op), vals)

    def _call_p(self, p: _CallPlan, vals: dict[Value, Any]) -> None:
        op = p.op
        func = p.func
        if func is None:
            raise SimulationError(f"func.call to @{op.callee}: no function body in the module", op.loc)
        if self._kernel_op is not None:  # a call inside a kernel being interpreted
            self._run_kernel(op, func, [vals[v] for v in p.operands])
            return
        args, idx_args, alive = p.read(vals)
        if not alive:
            for k in p.buf_pos:
                self._check_alive(args[k], op)
        entry = p.entries.get(idx_args) if p.static else None
        if entry is None:
            entry = self._call_entry(p, args, idx_args)
        for arg, read, written, regions, lo, hi in entry[0]:
            buf = args[arg]
            if buf.writing or (written and buf.reading):
                for x in buf.writing:
                    if x.d_end > lo and hi > x.d0:
                        self._kernel_race(op, buf, read, written, regions)
                if written:
                    for x in buf.reading:
                        if x.s_end > lo and hi > x.s0:
                            self._kernel_race(op, buf, read, written, regions)
        cost: KernelCost | None = entry[1]
        if cost is None:
            cost = entry[1] = self.cost.kernel(func, idx_args)
        entry[2] += 1
        if cost.dram_direct_cycles and len(self.stats.flags) < 20:
            self._flag_dram(op, cost)
        if self.functional:
            self._run_kernel(op, func, args)
        cp = self._cp
        if cp.issue_cycles:
            cp.issue(op.callee, p.loc)
        env = self.env
        start = env.now
        end = start + cost.cycles
        if end > start:
            env.advance_to(end)  # the compute unit is busy; the control processor waits
        self.machine.compute.record(start, end, op.callee, p.loc, cost.sram_bytes)

    def _call_entry(self, p: _CallPlan, args: list[Any], idx_args: tuple[int | None, ...]
                    ) -> list[Any]:
        """[race checks (`_kernel_spans`), cost (None until needed), calls] for a call with
        these index arguments (kept on the plan when its buffers' shapes are static)."""
        assert p.func is not None
        boxes = self._kernel_boxes(p.op, p.func, args, idx_args)
        entry = [self._kernel_spans(boxes, args), None, 0]
        if p.static:
            p.entries[idx_args] = entry
        self._kernel_entries.append(entry)
        return entry

    def _kernel_race(self, op: O.CallOp, buf: Buffer, read: bool, written: bool,
                     regions: list[Region]) -> None:
        """Spans overlap: an error if a region of the kernel's box overlaps a DMA's."""
        first = _first_in_flight(buf, written, lambda g: any(r.overlaps(g) for r in regions))
        if first is None:
            return
        f, writes = first
        g = f.region(writes)
        r = next(r for r in regions if r.overlaps(g))
        verb = "reads and writes" if read and written else "writes" if written else "reads"
        self._race(op, f"(kernel @{op.callee}) {verb}", buf, f, writes, r.first_common(g))

    def _flag_dram(self, op: O.CallOp, cost: KernelCost) -> None:
        s = self.stats
        msg = (f"kernel @{op.callee} called at {op.loc} accesses slow memory directly "
               f"({cost.counts.accesses_in(self.dram_space)} accesses, {cost.dram_direct_cycles} "
               "cycles of DRAM latency charged)")
        if msg not in s.flags:
            s.flags.append(msg)

    def _kernel_boxes(self, op: O.CallOp, func: O.FuncOp, args: list[Any],
                      idx_args: tuple[int | None, ...]) -> list[AccessBox]:
        """The kernel's access boxes for these index arguments, clamped to the buffers; an
        access that really leaves its buffer is an error (checked point by point)."""
        key = (id(func), idx_args)
        boxes = self._boxes.get(key)
        if boxes is None:
            boxes = self._boxes[key] = access_boxes(func, idx_args)
            clamped = []
            for ab in boxes:
                buf = args[ab.arg]
                if any(lo < 0 or hi >= n for (lo, hi), n in zip(ab.box, buf.shape)):
                    self._exact_oob(op, func, args, idx_args)
                    # in bounds point by point: the box only overshot; clamp it to the shape
                    box = tuple((max(lo, 0), min(hi, n - 1)) for (lo, hi), n in zip(ab.box, buf.shape))
                    ab = AccessBox(ab.arg, box, ab.read, ab.written)
                clamped.append(ab)
            boxes = self._boxes[key] = clamped
        return boxes

    def _kernel_spans(self, boxes: list[AccessBox], args: list[Any]) -> list[tuple]:
        """Per access box: (arg, read, written, regions, lo, hi), `[lo, hi)` the span of its
        regions (a DMA outside it cannot overlap them)."""
        out = []
        for ab in boxes:
            shape = args[ab.arg].shape
            rkey = (ab.box, shape)
            regions = self._regions.get(rkey)
            if regions is None:
                regions = self._regions[rkey] = box_regions(ab.box, shape)
            nonempty = [r for r in regions if r.count]
            lo = min((r.start for r in nonempty), default=0)
            hi = max((r.end for r in nonempty), default=0)
            out.append((ab.arg, ab.read, ab.written, regions, lo, hi))
        return out

    def _exact_oob(self, op: O.CallOp, func: O.FuncOp, args: list[Any],
                   idx_args: tuple[int | None, ...]) -> None:
        """The interval box left the bounds: find a real out-of-bounds access, if any."""
        shapes = {a: b.shape for a, b in zip(func.args, args) if isinstance(b, Buffer)}
        budget = [2_000_000]
        found = _find_oob(func, idx_args, shapes, budget)
        if found is None:
            if budget[0] <= 0 and len(self.stats.flags) < 20:
                self.stats.flags.append(
                    f"kernel @{op.callee} called at {op.loc}: its accesses' bounding box leaves a "
                    "buffer and the kernel is too large to check point by point (first 2M "
                    "accesses were in bounds)")
            return
        acc, idx = found
        buf = args[next(i for i, a in enumerate(func.args) if a is acc.memref)]
        raise HazardError(
            f"kernel @{op.callee} called at cycle {self.env.now}: {acc.NAME} at {acc.loc} accesses "
            f"{buf.name}{list(idx)} outside {buf.type}", op.loc)

    def _run_kernel(self, op: O.CallOp, func: O.FuncOp, args: list[Any]) -> None:
        if self.kernel_runner is not None and self._kernel_op is None:
            self.kernel_runner(op.callee, [a.array if isinstance(a, Buffer) else a for a in args])
            return
        saved = self._kernel_op
        if saved is None:
            self._kernel_op = op  # named by a DMA or wait found inside
        try:
            vals: dict[Value, Any] = dict(zip(func.args, args, strict=True))
            self._block(func.body, vals)
        finally:
            self._kernel_op = saved

    # ---- scalars -------------------------------------------------------------------------
    def _constant(self, op: O.ConstantOp, vals: dict[Value, Any]) -> None:
        res, v = self._plan(op)
        vals[res] = v

    def _scalar(self, op: Operation, vals: dict[Value, Any]) -> None:
        fn = _SCALAR[type(op)]
        vals[op.results[0]] = fn(op, *[vals[v] for v in op.operands])




# ---- per-op plans --------------------------------------------------------------------------

class _Shape(NamedTuple):
    """What a transfer's element count, stride and elements per stride decide (per op)."""

    nchunks: int
    s_tail: tuple[int, int, int, int]  # source Region fields after `start`
    d_tail: tuple[int, int, int, int]  # destination Region fields after `start`
    s_ext: int                         # source region end - start
    d_ext: int
    per: int
    col_inner: int   # row length when the strided side's rows must not be overrun, else 0
    col_src: bool    # the strided side is the source
    desc: tuple[int, int, int, int, str, str]  # Transfer.desc (cost, kind, location)
    sram_bytes: int
    op: Operation


class _Dma(Transfer):
    """A transfer with the executor's bookkeeping: it is in flight on its source's `reading`
    and its destination's `writing` list (spans `[s0, s_end)`, `[d0, d_end)`) and leaves them
    when it completes."""

    __slots__ = ("d0", "d_end", "dst", "issued", "s0", "s_end", "seq", "shape", "src")

    def __init__(self, env: Any, sh: _Shape, label: str, issued: int, seq: int, src: Buffer,
                 s0: int, s_end: int, dst: Buffer, d0: int, d_end: int):
        self.env = env
        self.callbacks = [transfer_done]
        self.desc = sh.desc
        self.label = label
        self.shape = sh
        self.issued = issued
        self.seq = seq  # issue order
        self.src, self.s0, self.s_end = src, s0, s_end
        self.dst, self.d0, self.d_end = dst, d0, d_end

    @property
    def op(self) -> Operation:
        return self.shape.op

    def region(self, writes: bool) -> Region:
        """Its destination region (`writes`) or its source region."""
        if writes:
            return Region(self.d0, *self.shape.d_tail)
        return Region(self.s0, *self.shape.s_tail)

    def completed(self) -> None:
        self.src.reading.remove(self)
        self.dst.writing.remove(self)


class _DmaCopy(_Dma):
    """Functional mode: the data moves at completion, then the transfer leaves its buffers."""

    __slots__ = ()

    def completed(self) -> None:
        _copy(self.src, self.region(False), self.dst, self.region(True), self.shape.nchunks)
        self.src.reading.remove(self)
        self.dst.writing.remove(self)


@dataclass(slots=True)
class _DmaPlan:
    """Everything about a dma_start that does not change between executions, and caches
    (the cost per transfer shape, the last label)."""

    op: O.AffineDmaStartOp
    src_v: Value
    src_fn: Any
    src_ops: list[Value]
    dst_v: Value
    dst_fn: Any
    dst_ops: list[Value]
    tag: Value
    tag_fn: Any
    tag_ops: list[Value]
    num: Value
    stride: Value | None
    per: Value | None
    lins: Any  # vals -> (src, dst, tag) linear indices, -1 if out of bounds; None: dynamic
    ebytes: int
    src_strided: bool
    src_dram: bool
    dst_dram: bool
    dram_sides: int
    sram_sides: int
    kind: str
    loc: str
    constant: bool  # count, stride and per are constants
    shapes: dict[Any, _Shape] = field(default_factory=dict)
    const_shape: _Shape | None = None
    label_src: Any = None
    label_dst: Any = None
    label: str = ""


@dataclass(frozen=True, slots=True)
class _WaitPlan:
    op: O.AffineDmaWaitOp
    tag: Value
    fn: Any
    ops: list[Value]
    lin: Any  # vals -> linear tag index, -1 if out of bounds; None: dynamic shape
    loc: str


@dataclass(slots=True)
class _CallPlan:
    op: O.CallOp
    func: O.FuncOp | None  # None: no body in the module (an error when executed)
    operands: list[Value]
    buf_pos: tuple[int, ...]
    # vals -> (arguments, index arguments with None for buffers, every buffer is alive)
    read: Callable[[dict[Value, Any]], tuple[list[Any], tuple[int | None, ...], bool]]
    static: bool  # every buffer argument has a static shape: per-key checks can be cached
    loc: str
    entries: dict[tuple[int | None, ...], list[Any]] = field(default_factory=dict)


_SITES: dict[type, str] = {
    O.AffineDmaStartOp: "_dma_start_p", O.AffineDmaWaitOp: "_dma_wait_p", O.CallOp: "_call_p",
}


def _step(op: Operation) -> tuple[int, Any, Operation]:
    """(kind, handler, op): 0 handler, 2 yield, 3 return, 4 unsupported (5/6: constants and
    applies, 8: DMA and calls, see `Executor._make_step`)."""
    t = type(op)
    if t in _SYNC:
        return 0, _SYNC[t], op
    if t is O.AffineYieldOp:
        return 2, None, op
    if t is O.ReturnOp:
        return 3, None, op
    return 4, None, op


def _is_constant(v: Value) -> bool:
    """Defined by a constant op: the same value every time it is read."""
    return isinstance(getattr(v, "owner", None), O.ConstantOp)


def _lin(buf: Buffer, idx: tuple[int, ...]) -> int:
    """Row-major linear index, or -1 when an index is out of bounds (the caller reports it)."""
    lin = 0
    for i, n, st in zip(idx, buf.shape, buf.strides):
        if not 0 <= i < n:
            return -1
        lin += i * st
    return lin


def _make_plan(op: Operation, spaces: Any, funcs: Mapping[str, O.FuncOp]) -> Any:
    if isinstance(op, O.AffineForOp):
        return (compile_map(op.lower_map), op.lower_operands,
                compile_map(op.upper_map), op.upper_operands)
    if isinstance(op, O.AffineIfOp):
        return compile_set(op.condition)
    if isinstance(op, O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp):
        return compile_map(op.map)
    if isinstance(op, O.AffineLoadOp | O.AffineStoreOp):
        return compile_map(op.map), op.indices
    if isinstance(op, O.AffineDmaStartOp):
        st, dt = op.src.type, op.dst.type
        assert isinstance(st, MemRefType) and isinstance(dt, MemRefType)
        sd, dd = st.memory_space == spaces.dram, dt.memory_space == spaces.dram
        kind = "read" if sd and not dd else "write" if dd and not sd else "copy"
        lins = lins_fn([(op.src_map, op.src_indices, st), (op.dst_map, op.dst_indices, dt),
                         (op.tag_map, op.tag_indices, op.tag.type)])
        return _DmaPlan(op, op.src, compile_map(op.src_map), op.src_indices, op.dst,
                        compile_map(op.dst_map), op.dst_indices, op.tag, compile_map(op.tag_map),
                        op.tag_indices, op.num_elements, op.stride, op.elements_per_stride, lins,
                        st.element.byte_width, st.memory_space <= dt.memory_space, sd, dd,
                        sd + dd, (st.memory_space == spaces.sram) + (dt.memory_space == spaces.sram),
                        kind, str(op.loc), all(_is_constant(v) for v in (
                            op.num_elements, op.stride, op.elements_per_stride) if v is not None))
    if isinstance(op, O.AffineDmaWaitOp):
        tag = op.operands[0]
        return _WaitPlan(op, tag, compile_map(op.tag_map), op.tag_indices,
                         lins_fn([(op.tag_map, op.tag_indices, tag.type)]), str(op.loc))
    if isinstance(op, O.CallOp):
        func = funcs.get(op.callee)
        if func is not None and func.is_declaration:
            func = None
        operands = list(op.operands)
        is_buf = [isinstance(v.type, MemRefType) for v in operands]
        static = all(v.type.has_static_shape for v, b in zip(operands, is_buf) if b)
        return _CallPlan(op, func, operands, tuple(k for k, b in enumerate(is_buf) if b),
                         call_reader(operands, is_buf), static, str(op.loc))
    if isinstance(op, O.ConstantOp):
        t = op.results[0].type
        assert isinstance(t, ElementType)
        return op.results[0], (int(op.value) if t.is_index else t.numpy_dtype.type(op.value))
    raise AssertionError(op.NAME)


def _copy(src: Buffer, sreg: Region, dst: Buffer, dreg: Region, nchunks: int) -> None:
    sf, df = src.flat, dst.flat
    assert sf is not None and df is not None
    if nchunks == 0:
        return
    if nchunks == 1:
        n = sreg.last
        df[dreg.start: dreg.start + n] = sf[sreg.start: sreg.start + n]
        return
    full = nchunks - 1
    per = sreg.per
    isz = sf.itemsize
    sv = np.lib.stride_tricks.as_strided(sf[sreg.start:], shape=(full, per),
                                         strides=(sreg.stride * isz, isz), writeable=False)
    dv = np.lib.stride_tricks.as_strided(df[dreg.start:], shape=(full, per),
                                         strides=(dreg.stride * df.itemsize, df.itemsize))
    dv[...] = sv
    s_last = sreg.start + full * sreg.stride
    d_last = dreg.start + full * dreg.stride
    df[d_last: d_last + sreg.last] = sf[s_last: s_last + sreg.last]


def _zero(t: Any) -> Any:
    if isinstance(t, ElementType):
        return 0 if t.is_index else t.numpy_dtype.type(0)
    return 0


def _find_oob(func: O.FuncOp, args: Sequence[int | None], shapes: dict[Value, tuple[int, ...]],
              budget: list[int]) -> tuple[Operation, list[int]] | None:
    """First load/store of a memref argument (with its run-time `shapes`) that leaves its
    bounds, walking point by point; gives up (None, budget <= 0) after `budget[0]` accesses."""
    env: dict[Value, int] = {a: v for a, v in zip(func.args, args, strict=True) if v is not None}

    def walk(block: Block) -> tuple[Operation, list[int]] | None:
        for op in block.ops:
            if isinstance(op, O.AffineForOp):
                lo = max(compile_map(op.lower_map)([env[v] for v in op.lower_operands]))
                hi = min(compile_map(op.upper_map)([env[v] for v in op.upper_operands]))
                for i in range(lo, hi, op.step):
                    env[op.iv] = i
                    r = walk(op.body)
                    if r is not None:
                        return r
                    if budget[0] <= 0:
                        return None
            elif isinstance(op, O.AffineIfOp):
                c = compile_set(op.condition)([env[v] for v in op.operands])
                r = walk(op.then_block if c else op.else_block)
                if r is not None:
                    return r
            elif isinstance(op, O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp):
                res = compile_map(op.map)([env[v] for v in op.operands])
                env[op.results[0]] = (res[0] if isinstance(op, O.AffineApplyOp)
                                      else min(res) if isinstance(op, O.AffineMinOp) else max(res))
            elif isinstance(op, O.ConstantOp) and isinstance(op.value, int):
                env[op.results[0]] = op.value
            elif isinstance(op, O.AffineLoadOp | O.AffineStoreOp):
                budget[0] -= 1
                shape = shapes.get(op.memref)
                if shape is None:
                    continue
                idx = compile_map(op.map)([env[v] for v in op.indices])
                if any(not 0 <= i < n for i, n in zip(idx, shape)):
                    return op, list(idx)
        return None

    return walk(func.body)


def _fdiv(op: Operation, a: Any, b: Any) -> Any:
    if isinstance(a, np.floating):
        with np.errstate(divide="ignore", invalid="ignore"):
            return a / b
    if b == 0:
        raise SimulationError("integer division by zero", op.loc)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _rem(op: Operation, a: Any, b: Any) -> Any:
    if b == 0:
        raise SimulationError("integer remainder by zero", op.loc)
    return a - b * _fdiv(op, a, b)


_CMP = {
    "oeq": lambda a, b: a == b, "ogt": lambda a, b: a > b, "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b, "ole": lambda a, b: a <= b, "one": lambda a, b: a < b or a > b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
    "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b,
    "uge": lambda a, b: a >= b, "ueq": lambda a, b: a == b or a != a or b != b,
    "une": lambda a, b: a != b, "ord": lambda a, b: a == a and b == b,
    "uno": lambda a, b: a != a or b != b, "true": lambda a, b: True, "false": lambda a, b: False,
}


def _cast(op: Operation, a: Any) -> Any:
    t = op.results[0].type
    assert isinstance(t, ElementType)
    if t.is_index:
        return int(a)
    return t.numpy_dtype.type(a)


def _fmax(op: Operation, a: Any, b: Any) -> Any:
    return a if (a != a or a > b) else b if b == b and b > a else a if a == b else b


def _fmin(op: Operation, a: Any, b: Any) -> Any:
    return a if (a != a or a < b) else b if b == b and b < a else a if a == b else b


_SCALAR: dict[type, Callable[..., Any]] = {
    O.AddFOp: lambda op, a, b: a + b, O.SubFOp: lambda op, a, b: a - b,
    O.MulFOp: lambda op, a, b: a * b, O.DivFOp: _fdiv,
    O.AddIOp: lambda op, a, b: a + b, O.SubIOp: lambda op, a, b: a - b,
    O.MulIOp: lambda op, a, b: a * b, O.DivSIOp: _fdiv, O.RemSIOp: _rem,
    O.MaxSIOp: lambda op, a, b: max(a, b), O.MinSIOp: lambda op, a, b: min(a, b),
    O.MaximumFOp: _fmax, O.MinimumFOp: _fmin,
    O.NegFOp: lambda op, a: -a, O.AbsFOp: lambda op, a: abs(a),
    O.ExpOp: lambda op, a: np.exp(a), O.SqrtOp: lambda op, a: np.sqrt(a),
    O.CmpFOp: lambda op, a, b: bool(_CMP[op.predicate](a, b)),
    O.CmpIOp: lambda op, a, b: bool(_CMP[op.predicate](a, b)),
    O.SelectOp: lambda op, c, a, b: a if c else b,
    O.IndexCastOp: _cast, O.SIToFPOp: _cast, O.FPToSIOp: _cast, O.ExtFOp: _cast,
    O.TruncFOp: _cast,
}

_SYNC: dict[type, Callable[[Executor, Any, dict[Value, Any]], None]] = {
    O.AffineApplyOp: Executor._apply, O.AffineMinOp: Executor._min, O.AffineMaxOp: Executor._max,
    O.AffineLoadOp: Executor._load, O.AffineStoreOp: Executor._store,
    O.AllocOp: Executor._alloc, O.AllocaOp: Executor._alloc, O.DeallocOp: Executor._dealloc,
    O.ConstantOp: Executor._constant, O.AffineForOp: Executor._for, O.AffineIfOp: Executor._if,
    O.AffineDmaStartOp: Executor._dma_start, O.AffineDmaWaitOp: Executor._dma_wait,
    O.CallOp: Executor._call,
    **{t: Executor._scalar for t in _SCALAR},
}
Executor.SYNC = _SYNC  # the fast path calls the same handlers
