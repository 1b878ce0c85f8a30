"""What a fused group is and what its parts share (`accelsim.network.fused` builds and runs
groups, `accelsim.network.depthfirst` bands them): the group and the network's plan, a group's
program, the fast level's capacity, a kernel's argument retyped into another shape or memory,
a band kernel compiled for the capacity its band buffers leave."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from accelsim.network.links import Link
from accelsim.network.model import Network

if TYPE_CHECKING:
    from accelsim.config import HardwareConfig
    from compiler.ir.ops import ModuleOp

# the intermediates resident while one kernel runs take at most RESIDENT_SHARE of the fast
# level (the rest: its tiles)
RESIDENT_SHARE = 0.75
MIN_TILE_KIB = 16    # the least capacity a kernel's own tiles are compiled for


@dataclass(frozen=True)
class Group:
    """Layers `first` .. `last` (indices) as one program; `onchip`: the links kept on chip,
    `dram`: the linked intermediates that go through DRAM inside the group."""

    first: int
    last: int
    onchip: tuple[Link, ...] = ()
    dram: tuple[Link, ...] = ()
    # > 0: computed depth-first, `band_rows` rows of the last output at a time, every link
    # on chip as the band of rows its consumer needs (`accelsim.network.depthfirst`)
    band_rows: int = 0
    # a banded group's weights (every operand its band kernels read whole) loaded into the
    # fast level once, before the first band, where they fit beside the band buffers
    # (`depthfirst.stationary`); else each band's kernel streams them from DRAM
    weights_onchip: bool = False
    # > 0: a feed-forward chain run a chunk of `chunk` hidden columns at a time, its hidden
    # tensor on chip one chunk at a time (`accelsim.network.chunked`)
    chunk: int = 0

    @property
    def layers(self) -> range:
        return range(self.first, self.last + 1)


@dataclass
class _Plan:
    """The network's kernels and links, and what each kernel compiles to (cached by its
    residency: the same kernel with the same on-chip operands and capacity compiles once)."""

    network: Network
    config: HardwareConfig
    flat: list[tuple[int, Any]]
    links: dict[int, Link]                      # producer kernel index -> link
    compiled: dict[tuple[Any, ...], tuple[Any, Any, int]] = field(default_factory=dict)
    # (first, last) -> the group those layers form (`fused._group`: its band plan made once)
    groups: dict[tuple[int, int], Group] = field(default_factory=dict)
    # (first, last, band rows) -> every band of that banded group (`depthfirst.layout`)
    layouts: dict[tuple[int, int, int], Any] = field(default_factory=dict)
    # a group's program, built by the grouping's first look at it and run by `run_group`
    programs: dict[Group, GroupProgram] = field(default_factory=dict)

    def kernels_of(self, first: int, last: int) -> list[int]:
        return [p for p, (li, _) in enumerate(self.flat) if first <= li <= last]


def _capacity(cfg: HardwareConfig) -> int:
    return int(cfg.memory_chain()[1].capacity_kib) * 1024


@dataclass(frozen=True)
class GroupProgram:
    """A group as written (each kernel as its workload builds it) and compiled, its on-chip
    peak in bytes (the resident intermediates and the largest kernel's buffers), and what
    each argument of its function is: (name, kernel index, the kernel's argument)."""

    source: ModuleOp
    compiled: ModuleOp
    peak: int
    args: tuple[tuple[str, int, str], ...]


def _compile_band(plan: _Plan, bk: Any, resident: int) -> tuple[Any, int]:
    """One band's kernel (`depthfirst.BandKernel`) compiled by the accelerator pipeline for
    the capacity the group's band buffers (`resident` bytes) leave, and the bytes of its own
    fast buffers; the same program (an interior band's) compiles once."""
    from accelsim.compile.accelerator import compile_for_accelerator
    from accelsim.errors import InputError
    from compiler.text.printer import print_module

    key = ("band", print_module(bk.module), resident)
    if key not in plan.compiled:
        module = bk.module.clone()
        cap_kib = plan.config.memory_chain()[1].capacity_kib - math.ceil(resident / 1024)
        if cap_kib < MIN_TILE_KIB:
            raise InputError(f"kernel {bk.func_name}: {cap_kib} KiB left beside its band buffers")
        cfg = plan.config.with_overrides({"sram.capacity_kib": cap_kib})
        compile_for_accelerator(cfg, module, bk.func_name)
        plan.compiled[key] = (None, module, _fast_bytes(module, plan.config.spaces.sram))
    _, done, own = plan.compiled[key]
    return done, own


def _retype(func: Any, name: str, shape: tuple[int, ...] | None, space: int | None, pad: int) -> None:
    """Argument `name` of `func` in memory `space` (None: as it is) and, with `shape`, of that
    shape: every access's map rewritten to the same element there (`pad`: the NCHW interior of
    a buffer with that border; else the same row-major position)."""
    from compiler.ir.ops.affine import AffineLoadOp, AffineStoreOp
    from compiler.ir.types import FunctionType, MemRefType

    i = func.arg_names().index(name)
    arg = func.args[i]
    old = arg.type
    new_shape = tuple(shape) if shape is not None else tuple(old.shape)
    arg.type = MemRefType(new_shape, old.element, old.memory_space if space is None else space)
    if new_shape != tuple(old.shape):
        for op in func.walk():
            if isinstance(op, AffineLoadOp | AffineStoreOp) and op.memref is arg:
                op.map = (_shifted(op.map, pad) if pad else _reshaped(op.map, old.shape, new_shape))
    func.function_type = FunctionType(tuple(a.type for a in func.args), func.function_type.results)


def _shifted(m: Any, pad: int) -> Any:
    """NCHW indices moved `pad` rows and columns into a padded buffer."""
    r = list(m.results)
    return m.with_results([r[0], r[1], r[2] + pad, r[3] + pad])


def _reshaped(m: Any, src: Sequence[int], dst: Sequence[int]) -> Any:
    """Indices into row-major `src` as the same element's indices into row-major `dst`."""
    from compiler.ir.affine_expr import as_expr

    lin = as_expr(0)
    for e, st in zip(m.results, _strides(src)):
        lin = lin + e * st
    out = []
    for j, (d, st) in enumerate(zip(dst, _strides(dst))):
        e = lin.floordiv(st) if st > 1 else lin
        out.append(e % d if j > 0 else e)
    return m.with_results(out)


def _strides(shape: Sequence[int]) -> list[int]:
    out, s = [], 1
    for d in reversed(shape):
        out.append(s)
        s *= d
    return out[::-1]


def _fast_bytes(module: ModuleOp, fast: int) -> int:
    """Bytes of every fast-space buffer the compiled kernel allocates (all live at once, at
    worst)."""
    from compiler.ir.ops.memref import AllocOp

    total = 0
    for op in module.walk():
        if isinstance(op, AllocOp):
            t = op.memref_type
            if t.memory_space == fast:
                total += math.prod(t.shape) * t.element.bitwidth // 8
    return total


@lru_cache(maxsize=1024)
def _accumulates(spec: str, name: str) -> bool:
    """Whether kernel `spec` loads argument `name` (its output: it accumulates into it)."""
    import workloads
    from compiler.ir.ops.affine import AffineLoadOp

    w = workloads.get(spec)
    f = next(f for f in w.module().funcs if f.sym_name == w.func_name)
    arg = f.args[f.arg_names().index(name)]
    return any(isinstance(op, AffineLoadOp) and op.memref is arg for op in f.walk())


def _unique(name: str, used: set[str]) -> str:
    label = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    base, k = label, 1
    while label in used:
        label, k = f"{base}_{k}", k + 1
    used.add(label)
    return label


def zero_fill(block: Any, buf: Any) -> None:
    """Append to `block` a nest storing zero into every element of `buf`."""
    from compiler.ir.affine_map import AffineMap
    from compiler.ir.ops.affine import AffineForOp, AffineStoreOp, AffineYieldOp
    from compiler.ir.ops.arith import ConstantOp

    t = buf.type
    zero = block.append(ConstantOp(0.0 if t.element.kind == "float" else 0, t.element)).results[0]
    ivs, bodies = [], []
    inner = block
    for d in t.shape:
        loop = inner.append(AffineForOp(AffineMap.constant(0), [], AffineMap.constant(d), []))
        ivs.append(loop.iv)
        inner = loop.body
        bodies.append(inner)
    inner.append(AffineStoreOp(zero, buf, AffineMap.identity(len(ivs)), ivs))
    for loop_body in bodies:
        loop_body.append(AffineYieldOp())


def entry_func(module: Any) -> Any:
    """The module's entry: its one defined function, or the public one."""
    funcs = [f for f in module.funcs if not f.is_declaration]
    return funcs[0] if len(funcs) == 1 else next(f for f in funcs if not f.private)


def inline_entry(entry: Any, body: Any, mapping: dict[Any, Any], renames: dict[str, str]) -> None:
    """Append `entry`'s body but its return to `body`, its values mapped by `mapping` and its
    calls to the module's other functions renamed by `renames`."""
    from compiler.ir.ops.func import ReturnOp

    for op in entry.body.ops:
        if not isinstance(op, ReturnOp):
            _rename_calls(body.append(op.clone(mapping)), renames)


def renamed_clone(func: Any, renames: dict[str, str]) -> Any:
    """A copy of `func` under its name in `renames`, its calls renamed likewise."""
    g = func.clone()
    g.sym_name = renames[func.sym_name]
    _rename_calls(g, renames)
    return g


def _rename_calls(op: Any, renames: dict[str, str]) -> None:
    from compiler.ir.ops.func import CallOp

    for o in op.walk():
        if isinstance(o, CallOp) and o.callee in renames:
            o.callee = renames[o.callee]
