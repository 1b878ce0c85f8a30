"""Per-op plans: everything about an op that does not change between its executions.

`make_plan(op, context)` builds, once per op and run, the op's compiled index maps and
conditions and, for DMA starts, waits and kernel calls, the facts and caches their handlers
read (`accelsim.sim.handlers`): the generated index code (maps, bounds checks and row-major
linearization in one function), the transfer shape and cost per element count / stride
(the cost from `accelsim.cost.dma`), a kernel's race checks and cost per argument tuple.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple, TypeVar

from accelsim.config import HardwareConfig, SpacesConfig
from accelsim.cost.dma import DmaCostModel, LevelCostModel, chunking
from accelsim.cost.kernel import KernelCost
from accelsim.cost.precision import dma_element_bytes
from accelsim.errors import ConfigError, HazardError
from accelsim.sim.codegen import IndexCode, call_reader, index_code, lins_fn
from accelsim.sim.hazards import Hazards
from accelsim.sim.kernel_boxes import BoxKey, kernel_box_key
from accelsim.sim.memory import Buffer, RuntimeValue, TransferShape, Vals, linear_index
from accelsim.sim.regions import Region
from compiler.ir import ops as O
from compiler.ir.affine_eval import MapFn, SetFn, compile_map, compile_set
from compiler.ir.core import Operation, Value
from compiler.ir.types import ElementType, MemRefType

ShapeKey = int | tuple[int, int, int]  # a DMA's element count, or (count, stride, per stride)


class ConstantPlan(NamedTuple):
    result: Value
    value: RuntimeValue


class ForPlan(NamedTuple):
    lower: MapFn
    lower_operands: list[Value]
    upper: MapFn
    upper_operands: list[Value]


class AccessPlan(NamedTuple):
    """A scalar load or store: its index map and operands."""

    map: MapFn
    indices: list[Value]


@dataclass(slots=True)
class DmaStartPlan:
    """Everything about a dma_start that does not change between executions, and caches
    (the transfer shape per element count and stride, the last label)."""

    op: O.AffineDmaStartOp
    src_v: Value
    src_fn: MapFn
    src_ops: list[Value]
    dst_v: Value
    dst_fn: MapFn
    dst_ops: list[Value]
    tag: Value
    tag_fn: MapFn
    tag_ops: list[Value]
    num: Value
    stride: Value | None
    per: Value | None
    # vals -> (src, dst, tag) linear indices, -1 if out of bounds; None: a dynamic shape
    lins: Callable[[Vals], tuple[int, int, int]] | None
    ebytes: int | Fraction  # per element on the DMA: packed (i4: 1/2, `precision.dma_element_bytes`)
    src_strided: bool
    src_dram: bool
    dst_dram: bool
    sram_sides: int
    kind: str
    loc: str
    constant: bool  # count, stride and per are constants
    cost: DmaCostModel
    shapes: dict[ShapeKey, TransferShape] = field(default_factory=dict)
    const_shape: TransferShape | None = None
    label_src: Buffer | None = None
    label_dst: Buffer | None = None
    label: str = ""
    levels: LevelCostModel | None = None  # several links: the hops of each transfer
    code: IndexCode | None = None  # `lins` as index code (`codegen.index_code`), to inline

    def tag_index(self, vals: Vals) -> tuple[int, ...]:
        return self.tag_fn([vals[v] for v in self.tag_ops])  # type: ignore[misc]

    def checked_indices(self, vals: Vals, src: Buffer, dst: Buffer, tag: Buffer,
                        hazards: Hazards) -> tuple[int, int, int]:
        """Linear source, destination and tag indices; an out-of-bounds index is an error."""
        op = self.op
        s_idx = self.src_fn([vals[v] for v in self.src_ops])  # type: ignore[misc]
        s0 = linear_index(src, s_idx)
        if s0 < 0:
            s0 = hazards.checked_index(op, src, s_idx, f"source {src.name}")
        d_idx = self.dst_fn([vals[v] for v in self.dst_ops])  # type: ignore[misc]
        d0 = linear_index(dst, d_idx)
        if d0 < 0:
            d0 = hazards.checked_index(op, dst, d_idx, f"destination {dst.name}")
        t_idx = self.tag_index(vals)
        t0 = linear_index(tag, t_idx)
        if t0 < 0:
            t0 = hazards.checked_index(op, tag, t_idx, f"tag {tag.name}")
        return s0, d0, t0

    def relabel(self, src: Buffer, dst: Buffer) -> str:
        """`src->dst` (cached on the plan for the last pair of buffers)."""
        self.label = f"{src.name}->{dst.name}"
        self.label_src, self.label_dst = src, dst
        return self.label

    def new_shape(self, n: int, key: ShapeKey, src: Buffer, dst: Buffer) -> TransferShape:
        """The first transfer of this shape (or one on a dynamic-shaped memref): computed,
        and kept on the plan when its memrefs' shapes are static."""
        sh = self.transfer_shape(n, key, src.shape, dst.shape)
        if self.lins is not None:
            self.shapes[key] = sh
            if self.constant:
                self.const_shape = sh
        return sh

    def transfer_shape(self, n: int, key: ShapeKey, src_shape: tuple[int, ...],
                       dst_shape: tuple[int, ...]) -> TransferShape:
        """Everything about a transfer that depends only on its element count, stride and
        elements per stride: both sides' region shapes, extents, the row-overrun check and
        the cost (`DmaCostModel.transfer`)."""
        op = self.op
        if n < 0:
            raise HazardError(f"affine.dma_start moves {n} elements", op.loc)
        stride: int | None = None
        if isinstance(key, int):
            nchunks, _ = chunking(n, None, None)
            s_tail = d_tail = (n or 1, n, nchunks, n)
            s_ext = d_ext = n
            per, ci = n, 0
        else:
            _, stride, per = key
            if per <= 0 or stride <= 0:
                raise HazardError(f"affine.dma_start with stride {stride} and {per} elements per "
                                  "stride: both must be positive", op.loc)
            nchunks, last = chunking(n, stride, per)
            if self.src_strided:
                s_tail, d_tail, shape = (stride, per, nchunks, last), (per, per, nchunks, last), src_shape
            else:
                s_tail, d_tail, shape = (per, per, nchunks, last), (stride, per, nchunks, last), dst_shape
            s_ext = (nchunks - 1) * s_tail[0] + last if nchunks else 0
            d_ext = (nchunks - 1) * d_tail[0] + last if nchunks else 0
            inner = shape[-1] if shape else 0
            ci = inner if inner and stride % inner == 0 else 0
        if self.levels is not None:
            st, dt = op.src.type, op.dst.type
            hops = self.levels.hops(n, stride, per if stride is not None else None, self.ebytes,
                                    st.memory_space, dt.memory_space, self.src_strided)  # type: ignore[union-attr]
            h = hops[0]
            return TransferShape(nchunks, s_tail, d_tail, s_ext, d_ext, per, ci, self.src_strided,
                                 (h.cycles, h.parent_bytes, -(-n * self.ebytes // 1), h.port_cycles,
                                  self.kind, self.loc), -(-n * self.ebytes * self.sram_sides // 1),
                                 op, n, hops)
        c = self.cost.transfer(n, stride, per if stride is not None else None, self.ebytes,
                               self.src_dram, self.dst_dram, self.src_strided, self.sram_sides)
        return TransferShape(nchunks, s_tail, d_tail, s_ext, d_ext, per, ci, self.src_strided,
                             (c.cycles, c.dram_bytes, -(-n * self.ebytes // 1), c.port_cycles, self.kind,
                              self.loc), c.sram_bytes, op, n)

    def check_overrun(self, vals: Vals, src: Buffer, dst: Buffer, s0: int, d0: int,
                      sh: TransferShape, hazards: Hazards) -> None:
        """A side may run past its memref (or a row): raise if it really does."""
        op = self.op
        sreg, dreg = Region(s0, *sh.s_tail), Region(d0, *sh.d_tail)
        strided = self.stride is not None
        if strided or sreg.end > src.numel:
            hazards.dma_bounds(op, src, sreg, self.src_fn([vals[v] for v in self.src_ops]),  # type: ignore[misc]
                               "source", strided)
        if strided or dreg.end > dst.numel:
            hazards.dma_bounds(op, dst, dreg, self.dst_fn([vals[v] for v in self.dst_ops]),  # type: ignore[misc]
                               "destination", strided)


@dataclass(frozen=True, slots=True)
class DmaWaitPlan:
    op: O.AffineDmaWaitOp
    tag: Value
    fn: MapFn
    ops: list[Value]
    lin: Callable[[Vals], int] | None  # vals -> linear tag index, -1 if out of bounds; None: dynamic
    loc: str
    num: Value  # the element count waited for
    code: IndexCode | None = None  # `lin` as index code (`codegen.index_code`), to inline

    def tag_index(self, vals: Vals) -> tuple[int, ...]:
        return self.fn([vals[v] for v in self.ops])  # type: ignore[misc]

    def checked_tag_index(self, vals: Vals, tag: Buffer, hazards: Hazards) -> int:
        t_idx = self.tag_index(vals)
        t0 = linear_index(tag, t_idx)
        if t0 < 0:
            t0 = hazards.checked_index(self.op, tag, t_idx, f"tag {tag.name}")
        return t0


# One access box of a kernel call as race checks: (argument, whether the kernel reads it
# there, whether it writes it, the box's regions, lo, hi), `[lo, hi)` the span of those
# regions (a DMA outside it cannot overlap them). A plain tuple: the call handler unpacks one
# per buffer argument and call, and unpacking a NamedTuple takes CPython's slow path.
KernelSpan = tuple[int, bool, bool, list[Region], int, int]


class KernelEntry:
    """A call site with one tuple of index arguments: its race checks, its cost (None until
    needed) and how often it ran (added to the run's counters at the end)."""

    __slots__ = ("bounds", "calls", "cost", "spans")

    def __init__(self, spans: list[KernelSpan]):
        self.spans = spans
        # (lo, hi) of every span, flat: what the unrolled race checks read
        self.bounds = tuple(x for sp in spans for x in sp[4:])
        self.cost: KernelCost | None = None
        self.calls = 0


ArgKey = tuple[int | None, ...]  # a call's index arguments, None for each buffer argument


def _whole_tuple(idx_args: ArgKey) -> ArgKey:
    return idx_args


@dataclass(slots=True)
class CallPlan:
    """A call site. Its entries (race checks, cost, call count) are kept per *entry key*:
    the values its kernel's access boxes and cost depend on (`boxes.key`, from
    `accelsim.sim.kernel_boxes`, on the kernel's cost arguments), or the whole tuple of
    index arguments when there is no such key (`boxes` None) or it returns None."""

    op: O.CallOp
    func: O.FuncOp | None  # None: no body in the module (an error when executed)
    operands: list[Value]
    buf_pos: tuple[int, ...]
    # vals -> (arguments, index arguments with None for buffers, every buffer is alive)
    read: Callable[[Vals], tuple[list[RuntimeValue], ArgKey, bool]]
    static: bool  # every buffer argument has a static shape: per-key checks can be cached
    loc: str
    boxes: BoxKey | None = None
    entry_key: Callable[[ArgKey], Hashable | None] = _whole_tuple
    entries: dict[Hashable, KernelEntry] = field(default_factory=dict)

    def arguments(self, vals: Vals) -> list[RuntimeValue]:
        """The call's argument values. (A method: a comprehension in the call handler would
        make `vals` a closure cell there, which costs every call.)"""
        return [vals[v] for v in self.operands]


Plan = (ConstantPlan | ForPlan | AccessPlan | MapFn | SetFn | DmaStartPlan | DmaWaitPlan
        | CallPlan)


@dataclass(frozen=True, slots=True)
class PlanContext:
    """What plans read beyond the op: the config's memory spaces, the module's functions
    and the DMA cost model."""

    spaces: SpacesConfig
    funcs: Mapping[str, O.FuncOp]
    dma_cost: DmaCostModel
    config: HardwareConfig | None = None  # routes and hop costs from it (always given)


def _is_constant(v: Value) -> bool:
    """Defined by a constant op: the same value every time it is read."""
    return isinstance(getattr(v, "owner", None), O.ConstantOp)


def _for_plan(op: O.AffineForOp, cx: PlanContext) -> ForPlan:
    return ForPlan(compile_map(op.lower_map), op.lower_operands, compile_map(op.upper_map),
                   op.upper_operands)


def _if_plan(op: O.AffineIfOp, cx: PlanContext) -> SetFn:
    return compile_set(op.condition)


def _map_plan(op: O.AffineApplyOp | O.AffineMinOp | O.AffineMaxOp, cx: PlanContext) -> MapFn:
    return compile_map(op.map)


def _access_plan(op: O.AffineLoadOp | O.AffineStoreOp, cx: PlanContext) -> AccessPlan:
    return AccessPlan(compile_map(op.map), op.indices)


def _dma_start_plan(op: O.AffineDmaStartOp, cx: PlanContext) -> DmaStartPlan:
    st, dt = op.src.type, op.dst.type
    assert isinstance(st, MemRefType) and isinstance(dt, MemRefType)
    spaces = cx.spaces
    sd, dd = st.memory_space == spaces.dram, dt.memory_space == spaces.dram
    cfg = cx.config
    assert cfg is not None
    sl, dl = cfg.level_of_space(st.memory_space), cfg.level_of_space(dt.memory_space)
    try:
        cfg.route(st.memory_space, dt.memory_space)
    except ConfigError as exc:
        raise HazardError(f"{op.NAME} from %{op.src.name_hint or 'src'} "
                          f"({_level_name(sl, st.memory_space)}) to %{op.dst.name_hint or 'dst'} "
                          f"({_level_name(dl, dt.memory_space)}): {exc}", op.loc) from None
    chain = cfg.memory_chain()
    a, b = chain.index(sl), chain.index(dl)  # type: ignore[arg-type]
    kind = "read" if a < b else "write" if a > b else "copy"
    sram_sides = (a > 0) + (b > 0)  # its bytes through on-chip ports, for the energy
    # several links: a transfer is its hops (one link: the one hop is the transfer's cost)
    levels = None if cfg.single_link else LevelCostModel.for_config(cfg)
    sides = [(op.src_map, op.src_indices, st), (op.dst_map, op.dst_indices, dt),
             (op.tag_map, op.tag_indices, op.tag.type)]
    code = index_code(sides, ("s0", "d0", "t0"))
    lins = lins_fn(sides, code)
    constant = all(_is_constant(v) for v in (op.num_elements, op.stride, op.elements_per_stride)
                   if v is not None)
    return DmaStartPlan(
        op, op.src, compile_map(op.src_map), op.src_indices, op.dst, compile_map(op.dst_map),
        op.dst_indices, op.tag, compile_map(op.tag_map), op.tag_indices, op.num_elements,
        op.stride, op.elements_per_stride, lins, dma_element_bytes(st.element),
        st.memory_space <= dt.memory_space, sd, dd, sram_sides, kind, str(op.loc),
        constant, cx.dma_cost, levels=levels, code=code)


def _level_name(level: object, space: int) -> str:
    name = getattr(level, "name", None)
    return f"level {name}, space {space}" if name else f"space {space}, no memory level"


def _dma_wait_plan(op: O.AffineDmaWaitOp, cx: PlanContext) -> DmaWaitPlan:
    tag = op.operands[0]
    sides = [(op.tag_map, op.tag_indices, tag.type)]
    code = index_code(sides, ("t0",))
    return DmaWaitPlan(op, tag, compile_map(op.tag_map), op.tag_indices, lins_fn(sides, code),
                       str(op.loc), op.num_elements, code)


def _call_plan(op: O.CallOp, cx: PlanContext) -> CallPlan:
    func = cx.funcs.get(op.callee)
    if func is not None and func.is_declaration:
        func = None
    operands = list(op.operands)
    is_buf = [isinstance(v.type, MemRefType) for v in operands]
    static = all(v.type.has_static_shape for v, b in zip(operands, is_buf) if b)  # type: ignore[union-attr]
    plan = CallPlan(op, func, operands, tuple(k for k, b in enumerate(is_buf) if b),
                    call_reader(operands, is_buf), static, str(op.loc))
    if func is not None and static and len(func.args) == len(operands):
        plan.boxes = kernel_box_key(func)
        if plan.boxes is not None:
            plan.entry_key = plan.boxes.key
    return plan


def _constant_plan(op: O.ConstantOp, cx: PlanContext) -> ConstantPlan:
    t = op.results[0].type
    assert isinstance(t, ElementType)
    return ConstantPlan(op.results[0],
                        int(op.value) if t.is_index else t.numpy_dtype.type(op.value))


_PLANNERS: dict[type[Operation], Callable[[Operation, PlanContext], Plan]] = {
    O.AffineForOp: _for_plan, O.AffineIfOp: _if_plan,  # type: ignore[dict-item]
    O.AffineApplyOp: _map_plan, O.AffineMinOp: _map_plan, O.AffineMaxOp: _map_plan,  # type: ignore[dict-item]
    O.AffineLoadOp: _access_plan, O.AffineStoreOp: _access_plan,  # type: ignore[dict-item]
    O.AffineDmaStartOp: _dma_start_plan, O.AffineDmaWaitOp: _dma_wait_plan,  # type: ignore[dict-item]
    O.CallOp: _call_plan, O.ConstantOp: _constant_plan,  # type: ignore[dict-item]
}


def fresh_plan(plan: Plan) -> Plan:
    """Another executor's copy of `plan` (made for the same op): what it counts or remembers
    per run is its own (a call's entries, a DMA's last label); the rest, and the transfer
    shapes (a function of the op and the config), are shared."""
    if isinstance(plan, DmaStartPlan):
        new = _copy(plan)
        new.label_src = new.label_dst = None
        new.label = ""
        return new
    if isinstance(plan, CallPlan):
        new = _copy(plan)
        new.entries = {}
        return new
    return plan  # immutable


_T = TypeVar("_T", DmaStartPlan, CallPlan)


def _copy(plan: _T) -> _T:
    """A shallow copy of a slots dataclass (`dataclasses.replace` runs `__init__`: slower)."""
    new = object.__new__(type(plan))
    for name in type(plan).__slots__:
        object.__setattr__(new, name, getattr(plan, name))
    return new


def make_plan(op: Operation, context: PlanContext) -> Plan:
    """The plan of `op` (a control, memory, DMA, call or constant op)."""
    planner = _PLANNERS.get(type(op))
    if planner is None:
        raise AssertionError(op.NAME)
    return planner(op, context)
