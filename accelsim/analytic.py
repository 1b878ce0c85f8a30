"""Analytical estimate: the same program and config, without SimPy and without walking every
iteration.

The control program is walked once with a closed-form resource state instead of events:
each DMA engine and DRAM channel has a "free at" cycle, each tag its completion cycle, the
control processor its current cycle. A DMA costs setup + burst-granular transfer + latency on
the least-loaded engine (which starts its next descriptor after the transfer, with at most
`dma.max_outstanding` in flight) and on the earliest free channel, or on every channel in
rotation when transfers are interleaved; a kernel costs its cost-model cycles;
a wait advances to the tag's completion. A pipelined loop therefore settles at
max(DMA, compute) per iteration and an unpipelined one at their sum, with no special casing.

Loops are sampled, not iterated: iterations are walked until the machine state relative to
the clock repeats (period 1 to 6 iterations, times the body's `mod` patterns), then the middle
is skipped in whole periods by shifting the whole state (engines, channels, tags, clock), and
the last iteration (where partial tiles are) is walked again. The jump is exact when the
loop's iterations differ only in those periodic patterns.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from accelsim.config import HardwareConfig, load_config
from accelsim.cost_model import CostModel
from accelsim.kernels import ensure_outlined
from accelsim.regions import strides_of
from accelsim.simulate import pick_func
from compiler.analysis.counting import compile_map, compile_set
from compiler.ir import ops as O
from compiler.ir.affine_expr import Binary, Const
from compiler.ir.core import Block, Value
from compiler.ir.types import MemRefType


@dataclass(frozen=True, slots=True)
class AnalyticResult:
    cycles: int
    dma_ops: int
    kernel_calls: int
    dram_bytes: int
    compute_cycles: int
    wall_seconds: float
    config: HardwareConfig

    @property
    def seconds(self) -> float:
        return self.cycles / (self.config.clock_ghz * 1e9)


class _Buf:
    __slots__ = ("ebytes", "shape", "space", "strides")

    def __init__(self, t: MemRefType, shape: tuple[int, ...]):
        self.shape = shape
        self.space = t.memory_space
        self.ebytes = t.element.byte_width
        self.strides = strides_of(shape)


class _State:
    """The closed-form machine: free-at cycles, tag completions, and the clock."""

    __slots__ = ("calls", "channels", "compute", "dma_ops", "dram_bytes", "engines", "pending",
                 "queued", "rr", "t", "tags")

    def __init__(self, engines: int, channels: int):
        self.t = 0
        self.engines = [0] * engines
        self.pending: list[list[int]] = [[] for _ in range(engines)]  # completion cycles per engine
        self.queued: list[list[int]] = [[] for _ in range(engines)]   # future start cycles per engine
        self.channels = [0] * channels
        self.rr = 0  # first channel of the next interleaved transfer
        self.tags: dict[tuple[int, int], int] = {}
        self.dma_ops = 0
        self.calls = 0
        self.dram_bytes = 0
        self.compute = 0

    def snapshot(self) -> tuple[int, int, int, int, int]:
        return (self.t, self.dma_ops, self.calls, self.dram_bytes, self.compute)

    def signature(self) -> tuple:  # type: ignore[type-arg]
        """The state relative to the clock (past times clipped to 0): equal signatures evolve
        identically, since the model is deterministic."""
        t = self.t
        return (tuple(max(e - t, 0) for e in self.engines),
                tuple(max(c - t, 0) for c in self.channels),
                tuple(sorted((k[1], max(v - t, 0)) for k, v in self.tags.items())),
                tuple(tuple(max(c - t, 0) for c in p) for p in self.pending),
                tuple(tuple(c - t for c in q if c > t) for q in self.queued),
                self.rr)

    def advance(self, k: int, period: int, d: tuple[int, int, int, int, int]) -> None:
        """Repeat an iteration `k` more times: shift every time by k*period, add k*counts."""
        if k <= 0:
            return
        s = k * period
        self.t += s
        self.engines = [e + s for e in self.engines]
        self.pending = [[c + s for c in p] for p in self.pending]
        self.queued = [[c + s for c in q] for q in self.queued]
        self.channels = [c + s for c in self.channels]
        self.tags = {key: v + s for key, v in self.tags.items()}
        self.dma_ops += k * d[1]
        self.calls += k * d[2]
        self.dram_bytes += k * d[3]
        self.compute += k * d[4]


class Analytic:
    def __init__(self, module: O.ModuleOp, config: HardwareConfig, cost: CostModel | None = None):
        self.module = module
        self.cfg = config
        self.cost = cost if cost is not None else CostModel.for_config(config)
        self.funcs = {f.sym_name: f for f in module.funcs}
        d = config.dram
        self.setup, self.lat = config.dma.setup_cycles, d.latency_cycles
        self.burst, self.bw = d.burst_bytes, d.bandwidth_bytes_per_cycle
        self.sram_bw = config.sram.bytes_per_cycle
        self.dram_space, self.sram_space = config.spaces.dram, config.spaces.sram
        self.issue = config.control.issue_cycles
        self._plans: dict[Block, list[Any]] = {}
        self._mods: dict[O.AffineForOp, int] = {}

    def run(self, func: O.FuncOp) -> _State:
        st = _State(self.cfg.dma.engines, self.cfg.dram.channels)
        vals: dict[Value, Any] = {}
        for a in func.args:
            if isinstance(a.type, MemRefType):
                vals[a] = _Buf(a.type, tuple(a.type.shape))  # type: ignore[arg-type]
        self._block(func.body, vals, st)
        end = max([st.t, *st.engines, *st.tags.values(), *(c for p in st.pending for c in p)])
        st.t = end
        return st

    # Each block is compiled once into a list of closures `step(vals, state)`; walking a
    # sampled iteration is then a flat loop over them.
    def _block(self, block: Block, vals: dict[Value, Any], st: _State) -> None:
        steps = self._plans.get(block)
        if steps is None:
            steps = self._plans[block] = [self._compile(op) for op in block.ops]
        for step in steps:
            if step is not None:
                step(vals, st)

    def _compile(self, op: Any) -> Any:
        if isinstance(op, O.AffineForOp):
            if not any(isinstance(o, O.AffineDmaStartOp | O.AffineDmaWaitOp | O.CallOp)
                       for o in op.walk()):
                return None  # pure index arithmetic: takes no time
            return lambda vals, st: self._for(op, vals, st)
        if isinstance(op, O.AffineIfOp):
            fn, ops = compile_set(op.condition), list(op.operands)
            then_b, else_b = op.then_block, op.else_block

            def if_(vals: dict[Value, Any], st: _State) -> None:
                self._block(then_b if fn([vals[v] for v in ops]) else else_b, vals, st)
            return if_
        if isinstance(op, O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp):
            fn, ops, res = compile_map(op.map), list(op.operands), op.results[0]
            pick = (lambda r: r[0]) if isinstance(op, O.AffineApplyOp) else (
                min if isinstance(op, O.AffineMinOp) else max)

            def index(vals: dict[Value, Any], st: _State) -> None:
                vals[res] = pick(fn([vals[v] for v in ops]))
            return index
        if isinstance(op, O.ConstantOp):
            res, value = op.results[0], op.value

            def const(vals: dict[Value, Any], st: _State) -> None:
                vals[res] = value
            return const
        if isinstance(op, O.AllocOp):
            t, ops, res = op.memref_type, list(op.operands), op.results[0]
            static = _Buf(t, tuple(t.shape)) if t.has_static_shape else None  # type: ignore[arg-type]

            def alloc(vals: dict[Value, Any], st: _State) -> None:
                if static is not None:
                    vals[res] = _Buf(t, static.shape)
                    return
                dyn = iter(vals[v] for v in ops)
                vals[res] = _Buf(t, tuple(d if d is not None else next(dyn) for d in t.shape))
            return alloc
        if isinstance(op, O.AffineDmaStartOp):
            return self._compile_dma(op)
        if isinstance(op, O.AffineDmaWaitOp):
            tagv, fn, ops = op.tag, compile_map(op.tag_map), op.tag_indices

            def wait(vals: dict[Value, Any], st: _State) -> None:
                tag = vals[tagv]
                done = st.tags.pop((id(tag), _lin(fn([vals[v] for v in ops]), tag.strides)), st.t)
                if done > st.t:
                    st.t = done
            return wait
        if isinstance(op, O.CallOp):
            f, ops, issue, cost = self.funcs[op.callee], list(op.operands), self.issue, self.cost

            def call(vals: dict[Value, Any], st: _State) -> None:
                args = tuple(None if isinstance(a, _Buf) else int(a) for a in (vals[v] for v in ops))
                c = cost.kernel(f, args)
                st.t += issue + c.cycles
                st.calls += 1
                st.compute += c.compute_cycles
            return call
        return None

    def _for(self, op: O.AffineForOp, vals: dict[Value, Any], st: _State) -> None:
        lo = max(compile_map(op.lower_map)([vals[v] for v in op.lower_operands]))
        hi = min(compile_map(op.upper_map)([vals[v] for v in op.upper_operands]))
        if hi <= lo:
            return
        trip = -((lo - hi) // op.step)
        body, iv = op.body, op.iv
        # Walk iterations until the per-iteration deltas repeat (double buffering on two engines
        # alternates, several engines rotate), then jump over the middle in whole periods.
        deltas: list[tuple[int, ...]] = []
        sigs: list[tuple] = []  # type: ignore[type-arg]
        k = 0
        last = trip - 1
        mod = self._modulus(op)
        while k < last:
            before = st.snapshot()
            vals[iv] = lo + k * op.step
            self._block(body, vals, st)
            after = st.snapshot()
            deltas.append(tuple(a - b for a, b in zip(after, before)))
            sigs.append(st.signature())
            k += 1
            period = _period(sigs, deltas)
            if period and k < last:
                period = math.lcm(period, mod)
                if len(deltas) >= period:
                    reps = (last - k) // period
                    d = tuple(sum(x[i] for x in deltas[-period:]) for i in range(5))
                    st.advance(reps, d[0], d)  # type: ignore[arg-type]
                    k += reps * period
                    sigs.clear()
                    deltas.clear()
        vals[iv] = lo + last * op.step
        self._block(body, vals, st)

    def _modulus(self, loop: O.AffineForOp) -> int:
        """lcm of the `mod` divisors in the affine maps inside `loop` (tag slots, buffer halves)."""
        hit = self._mods.get(loop)
        if hit is None:
            m = 1
            for o in loop.walk():
                for amap in _maps_of(o):
                    for r in amap.results:
                        for d in _mod_divisors(r):
                            m = math.lcm(m, d)
            hit = self._mods[loop] = min(m, 64)
        return hit

    def _compile_dma(self, op: O.AffineDmaStartOp) -> Any:
        srcv, dstv, tagv = op.src, op.dst, op.tag
        st_, dt_ = srcv.type, dstv.type
        assert isinstance(st_, MemRefType) and isinstance(dt_, MemRefType)
        numv, perv = op.num_elements, op.elements_per_stride
        tfn, tops = compile_map(op.tag_map), op.tag_indices
        eb = st_.element.byte_width
        burst, bw, sram_bw = self.burst, self.bw, self.sram_bw
        sides = (st_.memory_space == self.dram_space) + (dt_.memory_space == self.dram_space)
        sram_sides = (st_.memory_space == self.sram_space) + (dt_.memory_space == self.sram_space)
        setup, lat, issue = self.setup, self.lat, self.issue
        m, depth = self.cfg.dma.max_outstanding, self.cfg.dma.queue_depth
        nch = self.cfg.dram.channels
        interleave = self.cfg.dram.interleave == "burst" and nch > 1

        def dma(vals: dict[Value, Any], st: _State) -> None:
            n = vals[numv]
            per, nchunks, last = n, 1, n
            if perv is not None:
                per = vals[perv]
                nchunks = -(-n // per) if per > 0 else 1
                last = n - (nchunks - 1) * per
            dram_bytes = 0
            if sides and n:
                if nchunks == 1:
                    one = -(-n * eb // burst) * burst
                else:
                    one = ((nchunks - 1) * (-(-per * eb // burst)) + -(-last * eb // burst)) * burst
                dram_bytes = one * sides
            port = -(-(n * eb * sram_sides) // sram_bw)
            T = max(-(-dram_bytes // bw), port)
            st.t += issue
            engines = st.engines
            # the event model's policy: fewest descriptors not yet completed, lowest index on ties
            now = st.t
            e, best = 0, -1
            for k, pend in enumerate(st.pending):
                if pend and pend[0] <= now:
                    pend[:] = [c for c in pend if c > now]
                if best < 0 or len(pend) < best:
                    e, best = k, len(pend)
            pend = st.pending[e]
            # a full descriptor queue stalls the control processor until the oldest queued
            # descriptor starts (the engine keeps the one it was handed)
            q = st.queued[e]
            if q and q[0] <= now:
                q[:] = [c for c in q if c > now]
            if len(q) >= depth:
                now = st.t = q[0]
                q[:] = [c for c in q if c > now]
            start = max(now, engines[e])
            if len(pend) >= m and pend[-m] > start:  # no free slot: the oldest must complete
                start = pend[-m]
            if start > now:
                q.append(start)
            start += setup
            if dram_bytes:
                chans = st.channels
                if interleave:
                    nb = dram_bytes // burst
                    first = st.rr
                    st.rr = (first + nb) % nch
                    q, r = divmod(nb, nch)
                    end = start + port
                    for i in range(min(nb, nch)):
                        c = (first + i) % nch
                        x = max(start, chans[c]) - (-((q + (i < r)) * burst) // bw)
                        chans[c] = x
                        if x > end:
                            end = x
                else:
                    c = min(range(len(chans)), key=chans.__getitem__)
                    end = max(start, chans[c]) + T
                    chans[c] = end
                engines[e] = end
                done = end + lat
            else:
                done = engines[e] = start + T
            pend.append(done)
            tag = vals[tagv]
            st.tags[(id(tag), _lin(tfn([vals[v] for v in tops]), tag.strides))] = done
            st.dma_ops += 1
            st.dram_bytes += dram_bytes
        return dma


def _maps_of(op: Any) -> list[Any]:
    if isinstance(op, O.AffineDmaStartOp):
        return [op.src_map, op.dst_map, op.tag_map]
    if isinstance(op, O.AffineDmaWaitOp):
        return [op.tag_map]
    if isinstance(op, O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp | O.AffineLoadOp | O.AffineStoreOp):
        return [op.map]
    return []


def _mod_divisors(e: Any) -> list[int]:
    if isinstance(e, Binary):
        out = _mod_divisors(e.lhs) + _mod_divisors(e.rhs)
        if e.kind == "mod" and isinstance(e.rhs, Const) and e.rhs.value > 0:
            out.append(e.rhs.value)
        return out
    return []


_MAX_PERIOD = 6


def _period(sigs: list[tuple], deltas: list[tuple[int, ...]]) -> int:  # type: ignore[type-arg]
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


def _lin(idx: tuple[int, ...], strides: tuple[int, ...]) -> int:
    return sum(i * s for i, s in zip(idx, strides))


def estimate(module: O.ModuleOp, config: HardwareConfig | str = "default", func: str | None = None,
             cost: CostModel | None = None, inputs: Mapping[str, Any] | None = None) -> AnalyticResult:
    """Analytic cycles of `module` on `config` (`fidelity="analytic"`)."""
    cfg = load_config(config) if isinstance(config, str) else config
    t0 = time.perf_counter()
    module = ensure_outlined(module)
    f = pick_func(module, func)
    st = Analytic(module, cfg, cost).run(f)
    return AnalyticResult(st.t, st.dma_ops, st.calls, st.dram_bytes, st.compute,
                          time.perf_counter() - t0, cfg)
