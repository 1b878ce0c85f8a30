"""Analytical estimate: the same program and config, without SimPy and without walking every
iteration.

The control program is walked once with a closed-form resource state instead of events
(`accelsim.estimate.state`): each DMA engine and DRAM channel has a "free at" cycle, each
tag its completion cycle, the control processor its current cycle. A DMA costs setup +
burst-granular transfer + latency on the least-loaded engine (which starts its next
descriptor after the transfer, with at most `dma.max_outstanding` in flight) and on the
earliest free channel, or on every channel in rotation when transfers are interleaved; a
kernel costs its cost-model cycles; a wait advances to the tag's completion. A pipelined loop
therefore settles at max(DMA, compute) per iteration and an unpipelined one at their sum, with
no special casing.

Loops are sampled, not iterated: iterations are walked until the machine state relative to
the clock repeats (period 1 to 6 iterations, times the body's `mod` patterns), then the middle
is skipped in whole windows of lcm(period, mod) iterations by shifting the whole state
(engines, channels, tags, clock), and the last iteration (where partial tiles are) is walked
again. A window is repeated only when the state before it equals the state after it. The
jump is exact when the loop's iterations differ only in those periodic patterns.

Loops are also memoized: a loop entered again with the same machine state (relative to the
clock) and the same values of everything its timing depends on (loop bounds, conditions, DMA
sizes, tag indices, kernel index arguments, found by a backward slice at compile time) ends in
the same state, so the recorded outcome is replayed (`ClosedFormMachine.restore`). A tile loop nest thus
walks its inner loops a handful of times, not once per outer iteration.

The program is compiled once (`Program`) into closures over a flat slot environment; the
compiled form does not depend on the hardware config and is cached by the module's structure
(`compiled_program`, `accelsim.estimate.cache`), so a sweep over hardware reuses it. Loop
nests still in the control program are costed in place as the kernels `outline-kernels`
would make of them (`compiler.analysis.nest_kernel`), so the module is not rewritten.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter, sub
from typing import Any

import numpy as np

from accelsim.config import HardwareConfig, load_config
from accelsim.cost import kernel as cost_model
from accelsim.cost.energy import Energy, energy
from accelsim.cost.kernel import CostModel, cost_args
from accelsim.cost.precision import dma_element_bytes
from accelsim.errors import InputError
from accelsim.estimate import cache as analytic_cache
from accelsim.estimate.state import ClosedFormMachine, Counters, OverLimit, Signature, wait_step
from compiler.analysis.nest_kernel import NestKernel, inline_kernel
from compiler.ir import ops as O
from compiler.ir.affine_eval import compile_map, compile_set, expr_source
from compiler.ir.affine_expr import AffineExpr, Binary, Const, Dim, Sym
from compiler.ir.affine_map import AffineMap, IntegerSet
from compiler.ir.analysis_cache import ObjectCache
from compiler.ir.core import Block, Operation, Value
from compiler.ir.entry import entry_function
from compiler.ir.types import INDEX, MemRefType, row_major_strides
from compiler.transforms.outline_kernels import outline_if_needed

Env = list  # type: ignore[type-arg]
# value -> the modulus through which timing reads it (0: its exact value)
Rel = dict[Value, int]
Step = Callable[[Env, ClosedFormMachine], None]


@dataclass(frozen=True, slots=True)
class AnalyticResult:
    cycles: int
    dma_ops: int
    kernel_calls: int
    dram_bytes: int
    compute_cycles: int
    wall_seconds: float
    config: HardwareConfig
    # the kernels' work, for the energy (as an event run's `RunStats` counts it)
    macs: int = 0
    alu_ops: int = 0
    special_ops: int = 0
    kernel_sram_bytes: int = 0
    compute_pj: float | None = None  # the kernels' compute energy by precision (None: at f32)

    @property
    def seconds(self) -> float:
        return self.cycles / (self.config.clock_ghz * 1e9)

    @property
    def energy(self) -> Energy:
        """The energy by the one formula (`accelsim.cost.energy`) on the estimate's counts:
        its DRAM bytes, the kernels' SRAM bytes plus the DMAs' SRAM side (each DMA byte
        moved between DRAM and SRAM once), its MACs / ALU / special ops, static power over
        its cycles. With memory levels the flat per-byte energies (the inner levels' traffic
        is not estimated)."""
        return energy(self.config, dram_bytes=self.dram_bytes,
                      sram_bytes=self.kernel_sram_bytes + self.dram_bytes, macs=self.macs,
                      alu_ops=self.alu_ops, special_ops=self.special_ops, seconds=self.seconds,
                      compute_pj=self.compute_pj)


class _Buf:
    """A memref at run time: where its tags live (`site`: the alloc op, or -1-k for argument
    k) and its strides (tag indices are linearized)."""

    __slots__ = ("shape", "site", "strides")

    def __init__(self, site: int, shape: tuple[int, ...]):
        self.site = site
        self.shape = shape
        self.strides = row_major_strides(shape)


@dataclass(slots=True)
class _BlockInfo:
    steps: list[Step]
    timed: bool            # holds a DMA, a wait or a call somewhere
    mod: int               # lcm of the `mod` divisors of its maps
    rel: Rel               # values defined outside it that its timing depends on


class Program:
    """One function compiled into closures (`run(config)` walks it on a fresh machine)."""

    def __init__(self, module: O.ModuleOp, func: O.FuncOp, inline_nests: bool = False):
        """`inline_nests`: cost DMA-free loop nests in place as the kernels `outline-kernels`
        would make of them (`compiler.analysis.nest_kernel`); raises `NeedsOutlining` when one cannot
        be. Otherwise the module must be outlined already."""
        self.func = func
        self.inline_nests = inline_nests
        self.loop_depth = 0  # timed loops around the op being compiled
        self.dma_loops: set[O.AffineForOp] = set()
        if inline_nests:
            _dma_loops(func.body, self.dma_loops)
        self.funcs = {f.sym_name: f for f in module.funcs}
        self.slots: dict[Value, int] = {}
        self.consts: dict[Value, Any] = {}
        self.bufs: dict[Value, _Buf] = {}
        self.nsites = 0
        self.nloops = 0
        for k, a in enumerate(func.args):
            if isinstance(a.type, MemRefType) and a.type.has_static_shape:
                self.bufs[a] = _Buf(-1 - k, tuple(a.type.shape))  # type: ignore[arg-type]
        self.body = self._block(func.body).steps

    def run(self, config: HardwareConfig, cost: CostModel | None = None,
            inputs: Mapping[str, Any] | None = None, limit: int | None = None) -> ClosedFormMachine:
        """`inputs`: the scalar arguments' values by name (or `argN`), as the event run gets
        them; an index argument the walk reads (a symbolic bound) must be given. `limit`:
        raise `OverLimit` as soon as the walk is past that cycle (checked per loop
        iteration and at the end: the run would take longer)."""
        m = ClosedFormMachine(config, cost)
        if limit is not None:
            m.limit = limit
        env: Env = [None] * len(self.slots)
        names = self.func.arg_names()
        for k, a in enumerate(self.func.args):
            s = self.slots.get(a)
            if s is None or isinstance(a.type, MemRefType):
                continue
            given = None if inputs is None else inputs.get(names[k], inputs.get(f"arg{k}"))
            if given is not None:
                env[s] = int(np.asarray(given)) if a.type == INDEX else np.asarray(given).item()
            elif a.type == INDEX:
                raise InputError(f"the analytic estimate of @{self.func.sym_name} needs the value of "
                                 f"its index argument %{names[k]} (a loop bound or size): give it "
                                 "in --inputs")
        for step in self.body:
            step(env, m)
        m.t = m.end()
        if m.t > m.limit:
            raise OverLimit(m.t)
        return m

    # ---- operands ------------------------------------------------------------------------
    def _slot(self, v: Value) -> int:
        s = self.slots.get(v)
        if s is None:
            s = self.slots[v] = len(self.slots)
        return s

    def _getter(self, operands: Sequence[Value]) -> tuple[list[Any] | None, Callable[[Env], Sequence[Any]]]:
        """(the operand values if all are compile-time constants, else None; a reader)."""
        if all(v in self.consts for v in operands):
            vals = [self.consts[v] for v in operands]
            return vals, lambda e: vals
        items = [(self.consts[v], -1) if v in self.consts else (None, self._slot(v)) for v in operands]
        if all(s >= 0 for _, s in items):
            # a C-level reader (no Python frame): `itemgetter` of the slots, which for one
            # operand reads it twice so that the result is still a tuple (readers only index
            # the first `len(operands)` entries)
            slots = [s for _, s in items]
            return None, itemgetter(*slots) if len(slots) > 1 else itemgetter(slots[0], slots[0])
        return None, lambda e: [c if s < 0 else e[s] for c, s in items]

    def _scalar(self, v: Value | None) -> tuple[Any, int]:
        """(constant, -1) or (None, slot)."""
        if v is None:
            return None, -1
        if v in self.consts:
            return self.consts[v], -1
        return None, self._slot(v)

    # ---- blocks --------------------------------------------------------------------------
    def _block(self, block: Block) -> _BlockInfo:
        steps: list[Step] = []
        timed, mod = False, 1
        # per op: (relevant uses, index result, mod divisors of its timing-relevant maps)
        uses: list[tuple[Rel, Value | None, int]] = []
        for op in block.ops:
            step, t, m, rel, res = self._op(op)
            if step is not None:
                steps.append(step)
            timed = timed or t
            uses.append((rel, res, m))
        # backward slice: index ops whose results are relevant make their operands relevant;
        # only their `mod` patterns (and those of tags, bounds, conditions) make iterations
        # differ in timing (a buffer slot `i mod 3` only moves addresses)
        R: Rel = {}
        for (rel, res, m), op in zip(reversed(uses), reversed(block.ops)):
            if res is not None:
                if res in R:
                    # a single result read modulo q needs its operands modulo their periods
                    need = R[res] if len(op.map.results) == 1 else 0
                    _merge(R, _periods(op.map, op.operands, need))
                    mod = math.lcm(mod, m)
            else:
                if rel:
                    _merge(R, rel)
                if m != 1:
                    mod = math.lcm(mod, m)
        for a in block.args:
            R.pop(a, None)
        for op in block.ops:
            for r in op.results:
                R.pop(r, None)
        return _BlockInfo(steps, timed, min(mod, 64), R)

    def _op(self, op: Operation) -> tuple[Step | None, bool, int, Rel, Value | None]:
        """(step, timed, mod, relevant uses, result of an index op)."""
        if isinstance(op, O.ConstantOp):
            self.consts[op.results[0]] = op.value
            return None, False, 1, {}, None
        if isinstance(op, O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp):
            return self._index(op), False, _mods([op.map]), {}, op.results[0]
        if isinstance(op, O.AffineForOp):
            if self.inline_nests and op not in self.dma_loops:
                k = inline_kernel(op)
                if k is None:
                    raise NeedsOutlining(op)
                return self._kernel_call(k, k.args)
            return self._for(op)
        if isinstance(op, O.AffineIfOp):
            return self._if(op)
        if isinstance(op, O.AllocOp):
            return self._alloc(op)
        if isinstance(op, O.AffineDmaStartOp):
            return self._dma(op)
        if isinstance(op, O.AffineDmaWaitOp):
            return self._wait(op)
        if isinstance(op, O.CallOp):
            return self._call(op)
        return None, False, 1, {}, None

    def _index(self, op: O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp) -> Step | None:
        fn, res = compile_map(op.map), op.results[0]
        one = isinstance(op, O.AffineApplyOp) or len(op.map.results) == 1
        pick: Callable[[tuple[int, ...]], int] = (
            itemgetter(0) if one else min if isinstance(op, O.AffineMinOp) else max)
        static, get = self._getter(op.operands)
        if static is not None:
            self.consts[res] = pick(fn(static))
            return None
        r = self._slot(res)
        if one:
            def index1(e: Env, m: ClosedFormMachine) -> None:
                e[r] = fn(get(e))[0]
            return index1

        def index(e: Env, m: ClosedFormMachine) -> None:
            e[r] = pick(fn(get(e)))
        return index

    def _alloc(self, op: O.AllocOp) -> tuple[Step | None, bool, int, Rel, None]:
        t, res = op.memref_type, op.results[0]
        site = self.nsites
        self.nsites += 1
        if t.has_static_shape:
            self.bufs[res] = _Buf(site, tuple(t.shape))  # type: ignore[arg-type]
            return None, False, 1, {}, None
        r, get = self._slot(res), self._getter(op.operands)[1]

        def alloc(e: Env, m: ClosedFormMachine) -> None:
            dyn = iter(get(e))
            e[r] = _Buf(site, tuple(d if d is not None else next(dyn) for d in t.shape))
        return alloc, False, 1, dict.fromkeys(op.operands, 0), None

    def _tag(self, tag: Value, tag_map: AffineMap, indices: Sequence[Value]
             ) -> tuple[tuple[int, int] | None, Callable[[Env], tuple[int, int]], Rel]:
        """The tag key (site, linear index): static, or a reader; and the values it reads."""
        static, get = self._getter(indices)
        buf = self.bufs.get(tag)
        if buf is not None:
            site, lin = buf.site, _by_identity(_linear_index, tag_map, buf.strides)
            if static is not None:
                key = (site, lin(static))
                return key, lambda e: key, {}
            used = _periods(tag_map, indices, 0)
            if len(indices) == 1 and get is not None:
                s0 = self.slots[indices[0]]
                return None, lambda e: (site, lin((e[s0],))), used
            return None, lambda e: (site, lin(get(e))), used
        fn = compile_map(tag_map)
        ts = self._slot(tag)

        def dyn(e: Env) -> tuple[int, int]:
            b = e[ts]
            return (b.site, sum(i * s for i, s in zip(fn(get(e)), b.strides)))
        return None, dyn, {tag: 0, **_periods(tag_map, indices, 0)}

    def _dma(self, op: O.AffineDmaStartOp) -> tuple[Step, bool, int, Rel, None]:
        st_, dt_ = op.src.type, op.dst.type
        assert isinstance(st_, MemRefType) and isinstance(dt_, MemRefType)
        eb, ss, ds = dma_element_bytes(st_.element), st_.memory_space, dt_.memory_space
        numv, stv = op.num_elements, op.stride
        perv = op.elements_per_stride if stv is not None else None
        n0, ns = self._scalar(numv)
        s0, sts = self._scalar(stv)
        p0, ps = self._scalar(perv)
        key, tagf, rel = self._tag(op.tag, op.tag_map, op.tag_indices)
        rel = {**rel, **{v: 0 for v in (numv, stv, perv) if v is not None}}
        mods = _mods([op.tag_map])  # the transfer's addresses do not change its timing
        if ns < 0 and sts < 0 and ps < 0:
            # (machine, sizes, whether it writes DRAM): static sizes, once per run
            cache: list[Any] = [None, None, False]

            def dma_static(e: Env, m: ClosedFormMachine) -> None:
                if cache[0] is not m:
                    cache[0], cache[1] = m, m.sizes_of(n0, s0, p0, eb, ss, ds)
                    cache[2] = ds == m.dram_space and ss != ds
                db, port, T = cache[1]
                m.dma(db, port, T, key if key is not None else tagf(e), cache[2])
            return dma_static, True, mods, rel, None

        def dma(e: Env, m: ClosedFormMachine) -> None:
            n = n0 if ns < 0 else e[ns]
            stride = s0 if sts < 0 else e[sts]
            per = p0 if ps < 0 else e[ps]
            db, port, T = m.sizes_of(n, stride, per, eb, ss, ds)
            m.dma(db, port, T, key if key is not None else tagf(e), ds == m.dram_space and ss != ds)
        return dma, True, mods, rel, None

    def _wait(self, op: O.AffineDmaWaitOp) -> tuple[Step, bool, int, Rel, None]:
        key, tagf, rel = self._tag(op.tag, op.tag_map, op.tag_indices)
        step = wait_step(key, None) if key is not None else wait_step(None, tagf)
        return step, True, _mods([op.tag_map]), rel, None

    def _call(self, op: O.CallOp) -> tuple[Step, bool, int, Rel, None]:
        return self._kernel_call(self.funcs[op.callee], op.operands)

    def _kernel_call(self, f: O.FuncOp | NestKernel, operands: Sequence[Value]
                     ) -> tuple[Step, bool, int, Rel, None]:
        # the arguments the call's cost can depend on (not those that only move its accesses);
        # outside any loop nothing is memoized, so nothing needs to know
        relevant = cost_args(f) if self.loop_depth else range(len(operands))
        idx = [v for k, v in enumerate(operands)
               if k in relevant and v.type == INDEX and v not in self.consts]
        pattern = [self._scalar(v) if v.type == INDEX else (_int_const(v), -1) for v in operands]
        if all(s < 0 for _, s in pattern):
            args = tuple(None if c is None else int(c) for c, _ in pattern)
            cache: list[Any] = [None, None]  # (machine, cost): static arguments, once per run

            def call_static(e: Env, m: ClosedFormMachine) -> None:
                if cache[0] is not m:
                    cache[0], cache[1] = m, m.cost.kernel(f, args)
                c = cache[1]
                m.busy_for(m.issue + c.cycles)
                m.call(c)
            return call_static, True, 1, dict.fromkeys(idx, 0), None

        def call(e: Env, m: ClosedFormMachine) -> None:
            c = m.cost.kernel(f, tuple([c if s < 0 else int(e[s]) for c, s in pattern]))
            m.busy_for(m.issue + c.cycles)
            m.call(c)
        return call, True, 1, dict.fromkeys(idx, 0), None

    def _if(self, op: O.AffineIfOp) -> tuple[Step | None, bool, int, Rel, None]:
        fn = compile_set(op.condition)
        then_b, else_b = self._block(op.then_block), self._block(op.else_block)
        rel = _periods(op.condition, op.operands, 0)
        _merge(rel, then_b.rel)
        _merge(rel, else_b.rel)
        mod = math.lcm(then_b.mod, else_b.mod, _by_identity(_set_mod, op.condition))
        timed = then_b.timed or else_b.timed
        static, get = self._getter(op.operands)
        if static is not None:
            steps = then_b.steps if fn(static) else else_b.steps
            if not steps:
                return None, timed, mod, rel, None

            def if_static(e: Env, m: ClosedFormMachine) -> None:
                for s in steps:
                    s(e, m)
            return if_static, timed, mod, rel, None
        then_s, else_s = then_b.steps, else_b.steps

        def if_(e: Env, m: ClosedFormMachine) -> None:
            for s in (then_s if fn(get(e)) else else_s):
                s(e, m)
        return if_, timed, mod, rel, None

    def _for(self, op: O.AffineForOp) -> tuple[Step | None, bool, int, Rel, None]:
        iv = self._slot(op.iv)
        self.loop_depth += 1
        body = self._block(op.body)
        self.loop_depth -= 1
        rel = _periods(op.lower_map, op.lower_operands, 0)
        _merge(rel, _periods(op.upper_map, op.upper_operands, 0))
        if not body.timed:
            return None, False, 1, {}, None  # pure index arithmetic: takes no time
        # the memo key reads what the body's timing reads: exact values, or residues
        outside = sorted({self._slot(v) for v, p in body.rel.items() if v not in self.consts and not p})
        residues = sorted({(self._slot(v), p) for v, p in body.rel.items() if v not in self.consts and p})
        _merge(rel, body.rel)
        lof, hif = compile_map(op.lower_map), compile_map(op.upper_map)
        lo_static, lo_get = self._getter(op.lower_operands)
        hi_static, hi_get = self._getter(op.upper_operands)
        lo0 = max(lof(lo_static)) if lo_static is not None else None
        hi0 = min(hif(hi_static)) if hi_static is not None else None
        stride, steps, mod = op.step, body.steps, body.mod
        bounds_mod = _mods([op.lower_map, op.upper_map])
        loop_id = self.nloops
        self.nloops += 1
        nested = self.loop_depth > 0  # inside another timed loop: walked more than once

        def for_(e: Env, m: ClosedFormMachine) -> None:
            lo = lo0 if lo0 is not None else max(lof(lo_get(e)))
            hi = hi0 if hi0 is not None else min(hif(hi_get(e)))
            if hi <= lo:
                return
            base = (loop_id, lo, hi, tuple([e[s] for s in outside]),
                    tuple([e[s] % p for s, p in residues]) if residues else None)
            sig = m.signature()
            memo = m.memo
            hit = memo.get((base, 0, sig))
            if hit is not None:
                m.restore(*hit)
                return
            t0, c0 = m.t, m.counters()
            if not nested:  # walked once per run: only the entry is worth recording
                _walk(e, m, steps, iv, lo, hi, stride, mod, base, None)
                c1 = m.counters()
                memo[(base, 0, sig)] = (m.t - t0, m.signature(), tuple(map(sub, c1, c0)))
                return
            marks = [(0, sig, t0, c0)]
            _walk(e, m, steps, iv, lo, hi, stride, mod, base, marks)
            t1, c1, sig1 = m.t, m.counters(), m.signature()
            # every walked iteration's entry state: the rest of the loop from there
            for k, sk, tk, ck in marks:
                memo[(base, k, sk)] = (t1 - tk, sig1, tuple(map(sub, c1, ck)))
        return for_, True, math.lcm(mod, bounds_mod), rel, None


def _walk(e: Env, m: ClosedFormMachine, steps: list[Step], iv: int, lo: int, hi: int, stride: int,
          mod: int, base: tuple[object, ...], marks: list[tuple[int, Signature, int, Counters]] | None
          ) -> None:
    """Run iterations lo, lo+stride, ... < hi: walk until the per-iteration deltas repeat
    (double buffering on two engines alternates, several engines rotate), jump over the
    middle in whole periods, walk the last iteration.

    Suffix memo: the state before iteration k (and the memo key `base` of the loop's
    timing-relevant values) fixes the rest of the loop, so a walk that reaches a state an
    earlier walk of the same loop passed through at the same k replays that walk's end
    (entry states of inner loops differ in the outer loop's in-flight tags, and converge
    once those complete). Entry states are appended to `marks` for the caller to record."""
    trip = -((lo - hi) // stride)
    last = trip - 1
    k = 0
    if trip > 3:  # shorter loops cannot jump: walk them plainly
        deltas: list[tuple[int, ...]] = []
        sigs: list[Signature | None] = []
        while k < last:
            before = (m.t, *m.counters())
            e[iv] = lo + k * stride
            for s in steps:
                s(e, m)
            d = tuple(map(sub, (m.t, *m.counters()), before))
            k += 1
            if m.t > m.limit:
                raise OverLimit(m.t)
            # a period needs this iteration's work to equal one up to 6 back: past the first
            # iterations (where periods are found), a loop whose work changes every iteration
            # skips the state signature until it does
            if len(deltas) >= 2 * _MAX_PERIOD and d not in deltas[-_MAX_PERIOD:]:
                deltas.append(d)
                sigs.append(None)
                continue
            deltas.append(d)
            sig = m.signature()
            sigs.append(sig)
            if marks is not None:
                hit = m.memo.get((base, k, sig))
                if hit is not None:
                    m.restore(*hit)
                    return
                marks.append((k, sig, m.t, m.counters()))
            # a period p needs this state to equal the one p iterations back (p <= 6)
            period = _period(sigs, deltas) if sig in sigs[-_MAX_PERIOD - 1:-1] else 0
            if period and k < last:
                # the jump repeats the last `period` iterations (a multiple of the body's mod
                # patterns): exact only if they started from the state they ended in (a
                # shorter state period found after a transient does not say so by itself)
                period = math.lcm(period, mod)
                if len(sigs) > period and sigs[-1 - period] == sigs[-1]:
                    reps = (last - k) // period
                    d = [sum(x[i] for x in deltas[-period:]) for i in range(len(d))]
                    m.advance(reps, d[0], d[1:])  # type: ignore[arg-type]
                    k += reps * period
                    sigs.clear()
                    deltas.clear()
    while k <= last:
        e[iv] = lo + k * stride
        for s in steps:
            s(e, m)
        k += 1
        if m.t > m.limit:
            raise OverLimit(m.t)


@functools.cache
def _linear_index(amap: AffineMap, strides: tuple[int, ...]) -> Callable[[Sequence[int]], int]:
    """`fn(operands) -> sum(result_k * strides_k)`: a tag's slot as one compiled expression."""
    fn = compile_map(amap)
    if len(strides) != len(amap.results):
        return lambda v: sum(i * s for i, s in zip(fn(v), strides))
    terms = [f"{expr_source(r, amap.num_dims)} * {s}" for r, s in zip(amap.results, strides) if s]
    return eval(f"lambda v: {' + '.join(terms) or '0'}")  # type: ignore[no-any-return]


class NeedsOutlining(Exception):
    """A loop nest the cost model must see as an outlined kernel function."""


def _dma_loops(block: Block, out: set[O.AffineForOp]) -> bool:
    """Collect the loops with a DMA op (or a kernel call: `outline-kernels`' rule, a nest
    around calls is control) anywhere inside; whether `block` has one."""
    found = False
    for op in block.ops:
        if isinstance(op, O.AffineDmaStartOp | O.AffineDmaWaitOp | O.CallOp):
            found = True
            continue
        inner = False
        for b in op.blocks:
            inner = _dma_loops(b, out) or inner
        if inner:
            found = True
            if isinstance(op, O.AffineForOp):
                out.add(op)
    return found


def _int_const(v: Value) -> int | None:
    """The value of an integer constant (cloned into an outlined kernel, where the cost model
    reads it); None for anything else that is not an index (memrefs, floats)."""
    owner = getattr(v, "owner", None)
    if isinstance(owner, O.ConstantOp) and isinstance(owner.value, int) and not isinstance(owner.value, bool):
        return owner.value
    return None


def _merge(into: Rel, rel: Rel) -> None:
    """Add `rel` to `into`: a value read modulo p and modulo q is read modulo lcm(p, q)."""
    for v, p in rel.items():
        q = into.get(v)
        into[v] = p if q is None else (q and p and math.lcm(q, p))


def _periods(amap: AffineMap | IntegerSet, operands: Sequence[Value], need: int) -> Rel:
    """The operands a map's (or an integer set's) results read, each with a period P: moving
    the operand by P changes no result (`need` 0) or changes each by a multiple of `need`,
    so timing reads it only modulo P (0: its exact value). An operand the map ignores is
    not read at all (tag maps carry outer induction variables they do not use); one read
    only through `(i floordiv 4) mod 2` is read modulo 8, so an outer loop stepping `i`
    enters its inner loops with two memo keys, not one per iteration."""
    per = _by_identity(_operand_periods, amap, need)
    out: Rel = {}
    for k, v in enumerate(operands):
        p = per.get(k)
        if p is not None:
            _merge(out, {v: p})
    return out


def _operand_periods(amap: AffineMap | IntegerSet, need: int) -> dict[int, int]:
    nd = amap.num_dims
    exprs = amap.results if hasattr(amap, "results") else amap.constraints
    out: dict[int, int] = {}
    for r in exprs:
        mods, divs = _divisors(r)
        base = math.lcm(need or 1, *mods)
        # candidates: the mod divisors times any product of the division divisors, smallest
        # first (`(i floordiv 9 + j floordiv 10) mod 2` reads i modulo 18, j modulo 20)
        cands = {base}
        for q in sorted(set(divs))[:5]:
            cands |= {c * q for c in cands}
        for a in r.atoms():
            if not isinstance(a, Dim | Sym):
                continue
            pos = a.pos if isinstance(a, Dim) else nd + a.pos
            if out.get(pos) == 0:
                continue
            p = 0
            if mods or need:
                for c in sorted(cands):
                    d = _shift(r, a, c)
                    if d is not None and (d % need == 0 if need else d == 0):
                        p = c
                        break
            q = out.get(pos)
            out[pos] = p if q is None else (q and p and math.lcm(q, p))
    return out


def _divisors(e: AffineExpr) -> tuple[list[int], list[int]]:
    """(mod divisors, floordiv/ceildiv divisors) of constant right-hand sides in `e`."""
    mods: list[int] = []
    divs: list[int] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Binary):
            if isinstance(x.rhs, Const) and x.rhs.value > 0:
                if x.kind == "mod":
                    mods.append(x.rhs.value)
                elif x.kind in ("floordiv", "ceildiv"):
                    divs.append(x.rhs.value)
            stack.append(x.lhs)
            stack.append(x.rhs)
    return mods, divs


def _shift(e: AffineExpr, atom: Dim | Sym, P: int) -> int | None:
    """How much `e` changes when `atom` (a Dim or Sym) moves by P, whatever every value is;
    None when that is not a constant."""
    if isinstance(e, Const):
        return 0
    if isinstance(e, Dim | Sym):
        return P if e == atom else 0
    assert isinstance(e, Binary)
    a = _shift(e.lhs, atom, P)
    b = _shift(e.rhs, atom, P)
    if a is None or b is None:
        return None
    if e.kind == "add":
        return a + b
    if b == 0 and isinstance(e.rhs, Const):
        c = e.rhs.value
        if e.kind == "mul":
            return a * c
        if c > 0 and a % c == 0:
            return a // c if e.kind in ("floordiv", "ceildiv") else 0
        return None
    if e.kind == "mul" and a == 0 and isinstance(e.lhs, Const):
        return e.lhs.value * b
    return 0 if a == 0 and b == 0 else None


def _mods(maps: Sequence[AffineMap]) -> int:
    """lcm of the `mod` divisors in `maps` (tag slots, buffer halves)."""
    m = 1
    for amap in maps:
        m = math.lcm(m, _by_identity(_map_mod, amap))
    return m


# per map or set object: (fn, *extra) -> fn(amap, *extra)
_BY_ID: ObjectCache[dict[tuple[Any, ...], Any]] = ObjectCache("analytic per-map figures")


def _by_identity(fn: Callable[..., Any], amap: Any, *extra: Any) -> Any:
    """`fn(amap, *extra)` memoized by the map object's identity: hashing a map by value walks
    its expressions, and clones share map objects."""
    table = _BY_ID.get(id(amap))
    if table is None:
        table = _BY_ID.put(amap, {})
    key = (fn, *extra)
    hit = table.get(key, _MISSING)
    if hit is _MISSING:
        hit = table[key] = fn(amap, *extra)
    return hit


_MISSING = object()


def _set_mod(s: IntegerSet) -> int:
    return math.lcm(*(d for c in s.constraints for d in _mod_divisors(c)))


def _map_mod(amap: AffineMap) -> int:
    return math.lcm(*(d for r in amap.results for d in _mod_divisors(r)))


def _mod_divisors(e: AffineExpr) -> list[int]:
    if isinstance(e, Binary):
        out = _mod_divisors(e.lhs) + _mod_divisors(e.rhs)
        if e.kind == "mod" and isinstance(e.rhs, Const) and e.rhs.value > 0:
            out.append(e.rhs.value)
        return out
    return []


_MAX_PERIOD = 6


def _period(sigs: list[Signature | None], deltas: list[tuple[int, ...]]) -> int:
    """The smallest p <= 6 with the machine state (relative to the clock) after the last
    iteration equal to the state p iterations earlier, and the same work (cycles, DMAs,
    calls, bytes) in the last p iterations as in the p before: from there on the loop is
    periodic. Engines and channels rotate, so periods of 2-4 iterations are common; loops
    whose work changes every iteration (triangular nests) are walked in full."""
    n = len(sigs)
    for p in range(1, _MAX_PERIOD + 1):
        if n >= 2 * p and sigs[-1] == sigs[-1 - p] and deltas[-p:] == deltas[-2 * p: -p]:
            return p
    return 0


def estimate(module: O.ModuleOp, config: HardwareConfig | str = "default", func: str | None = None,
             cost: CostModel | None = None, inputs: Mapping[str, Any] | None = None,
             limit: int | None = None) -> AnalyticResult:
    """Analytic cycles of `module` on `config` (`fidelity="analytic"`; with `dram.model =
    "timing"`, on `config.bandwidth_view()`: the estimate stays a bandwidth/latency model). Loop nests left in
    the control program are costed as the kernels `outline-kernels` would make of them,
    without outlining; a structurally equal module estimated before reuses its compiled
    program (`accelsim.estimate.cache`). `limit`: raise `OverLimit` once the walk passes that
    cycle (a candidate that cannot beat the best found so far stops early)."""
    cfg = load_config(config) if isinstance(config, str) else config
    if cfg.clusters > 1:
        raise InputError(f"estimate() walks one cluster's program; config {cfg.name!r} has "
                         f"clusters = {cfg.clusters}: use accelsim.estimate.clusters."
                         "estimate_clusters (or --set clusters=1)")
    t0 = time.perf_counter()
    # a bandwidth/latency model: with the DRAM timing model, its figures in those terms
    m = compiled_program(module, func).run(cfg.bandwidth_view(), cost, inputs, limit)
    return AnalyticResult(m.t, m.dma_ops, m.calls, m.dram_bytes, m.compute,
                          time.perf_counter() - t0, cfg, m.macs, m.alu_ops, m.special_ops,
                          m.kernel_sram_bytes, m.compute_pj)


def clear_caches() -> None:
    """Forget compiled programs and shared kernel figures: the next estimate runs cold."""
    analytic_cache.clear()
    cost_model.clear_caches()


def compiled_program(module: O.ModuleOp, func: str | None = None) -> Program:
    """The compiled walk of `module`'s entry function (or `func`), cached by structure.
    Loop nests left in the control program are costed in place (`compiler.analysis.nest_kernel`);
    only when one cannot be is the module outlined (in place) first."""
    key, refs = analytic_cache.structure_key(module)
    prog = analytic_cache.lookup((key, func))
    if prog is not None:
        return prog  # type: ignore[no-any-return]
    defined = [f for f in module.funcs if not f.is_declaration]
    # the only function is the entry (entry_function's first rule, without its walk for calls)
    entry = defined[0] if func is None and len(defined) == 1 else entry_function(module, func, InputError)
    try:
        prog = Program(module, entry, inline_nests=True)
    except NeedsOutlining:
        outline_if_needed(module)
        prog = Program(module, entry_function(module, func, InputError))
    analytic_cache.store((key, func), [*refs, module], prog)
    return prog
